"""`kartalint describe --summary`: fleet accounting on real recorded objects (docs/fleet.md).

The objects are every recorded JobSet, PyTorchJob, RayCluster and LeaderWorkerSet of the reference
data (the operators' recordings and example manifests), renamed one by one, as a cluster dump holds
them.
"""

from __future__ import annotations

import copy
import csv
import glob
import io
import json
import os
import re
import sys

import pytest
import yaml
from conftest import REFERENCE, ROOT

from kartalint.cli import main
from kartalint.evaluation import quantity
from kartalint.testing.recording import is_recording, state_events

KINDS = ("JobSet", "PyTorchJob", "RayCluster", "LeaderWorkerSet")
SCHEMA = os.path.join(ROOT, "kartalint", "schema", "data", "summary.schema.json")


def recorded_workloads() -> list[dict]:
    found = []
    for path in sorted(glob.glob(os.path.join(REFERENCE, "real-data", "**", "*.yaml"), recursive=True)):
        with open(path, encoding="utf-8") as handle:
            data = yaml.load(handle, Loader=yaml.CSafeLoader)  # libyaml: the same data, faster
        if is_recording(data):
            found += [e.object for e in state_events(data) if isinstance(e.object, dict)]
    for path in sorted(glob.glob(os.path.join(REFERENCE, "objects", "*.yaml"))):
        with open(path, encoding="utf-8") as handle:
            found += [d for d in yaml.load_all(handle, Loader=yaml.CSafeLoader) if isinstance(d, dict)]
    return [o for o in found if o.get("kind") in KINDS]


def renamed(objects: list[dict]) -> list[dict]:
    out = []
    for i, obj in enumerate(objects):
        obj = copy.deepcopy(obj)
        meta = obj.setdefault("metadata", {})
        meta["name"] = f"{meta.get('name', 'w')}-{i}"
        meta["namespace"] = f"team-{i % 3}"
        meta["uid"] = f"uid-{i}"
        out.append(obj)
    return out


@pytest.fixture(scope="module")
def workloads() -> list[dict]:
    found = renamed(recorded_workloads())
    assert {o["kind"] for o in found} >= {"JobSet", "PyTorchJob", "LeaderWorkerSet", "RayCluster"}
    return found


def as_list(items: list[dict]) -> str:
    return yaml.safe_dump({"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}})


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def dump(tmp_path, monkeypatch, workloads):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "fleet.yaml").write_text(as_list(workloads))
    return tmp_path / "fleet.yaml"


def summary_json(capsys, *argv) -> tuple[int, dict, str]:
    code, out, err = run(capsys, "describe", *argv, "--summary", "-f", "json")
    return code, json.loads(out), err


def describe_totals(tree: str) -> list[tuple[str, int, int, int, int]]:
    """(Kind/name, replicas, GPUs, millicores, bytes) of each TOTAL row of describe's trees."""
    out = []
    for block in re.split(r"\n(?=[^\s/]+/\S+   namespace: )", tree):
        name = block.split("   ", 1)[0]
        total = next(line for line in block.splitlines() if line.startswith("TOTAL "))
        _, replicas, gpus, cpu, memory = total.split()
        millis = quantity.milli_value(quantity.parse(cpu))
        out.append((name, int(replicas), int(gpus), millis, quantity.value(quantity.parse(memory))))
    return out


def test_totals_equal_the_sum_of_each_objects_describe(dump, capsys, workloads):
    code, tree, err = run(capsys, "describe", str(dump))  # one tree per object, each with its TOTAL row
    assert code == 0, err
    each = describe_totals(tree)
    assert len(each) == len(workloads)
    code, doc, err = summary_json(capsys, str(dump))
    assert code == 0, err
    rows = doc["rows"]
    assert [f"{r['kind']}/{r['name']}" for r in rows] == [name for name, *_ in each]  # input order
    for row, (name, replicas, gpus, millis, size) in zip(rows, each, strict=True):
        assert row["outcome"] == "counted", row
        figures = {k: row["resources"][k] for k in ("gpus", "cpuMillis", "memoryBytes")}
        assert (row["replicas"], figures) == (replicas, {"gpus": gpus, "cpuMillis": millis, "memoryBytes": size}), name
        assert (
            row["resources"]["activeGpus"] == (gpus if row["active"] else 0)
            and row["resources"]["allocatedGpus"] is None
        )
    total = doc["totals"]["all"]
    assert total["workloads"] == len(workloads)
    assert total["replicas"] == sum(t[1] for t in each) > 0
    assert total["resources"] == {
        "gpus": sum(t[2] for t in each),
        "activeGpus": sum(r["resources"]["activeGpus"] for r in rows),
        "allocatedGpus": None,
        "cpuMillis": sum(t[3] for t in each),
        "memoryBytes": sum(t[4] for t in each),
    }
    assert total["resources"]["cpuMillis"] > 0 and total["resources"]["memoryBytes"] > 0
    # grouped by namespace and kind (the default): each group is the sum of its rows
    assert doc["groupBy"] == ["namespace", "kind"]
    for group in doc["totals"]["groups"]:
        mine = [r for r in rows if (r["namespace"], r["kind"]) == (group["key"]["namespace"], group["key"]["kind"])]
        assert group["workloads"] == len(mine) > 0
        assert group["resources"]["gpus"] == sum(r["resources"]["gpus"] for r in mine)
        assert group["replicas"] == sum(r["replicas"] for r in mine)
    assert sum(g["workloads"] for g in doc["totals"]["groups"]) == len(rows)


def test_the_table_shows_rows_totals_in_one_unit_per_column_and_group_by_is_repeatable(dump, capsys, workloads):
    code, out, err = run(capsys, "describe", str(dump), "--summary", "--group-by", "kind", "--group-by", "status")
    assert code == 0, err
    head, _, rest = out.partition("\nTotals by kind, status:\n")
    lines = head.splitlines()
    assert lines[0].split() == ["NAMESPACE", "KIND", "NAME", "DEFINITION", "STATUS", "REPLICAS", "GPU", "ACTIVE",
                                "CPU", "MEMORY"]  # fmt: skip
    assert len(lines) == 1 + len(workloads)
    table = rest.strip().splitlines()
    assert table[0].split() == ["KIND", "STATUS", "WORKLOADS", "REPLICAS", "GPU", "ACTIVE", "CPU", "MEMORY"]
    assert table[-1].startswith("TOTAL ")
    units = {re.sub(r"^\d+", "", line.split()[-1]) for line in table[1:] if line.split()[-1] != "0"}
    assert len(units) == 1  # every memory of the totals in the same unit
    _, doc, _ = summary_json(capsys, str(dump), "--group-by", "kind", "--group-by", "status")
    statuses = {(r["kind"], r["status"]) for r in doc["rows"]}
    assert {tuple(g["key"].values()) for g in doc["totals"]["groups"]} == statuses


def test_an_uncovered_kind_is_counted_and_a_failing_object_is_reported_without_stopping_the_rest(
    tmp_path, monkeypatch, capsys, workloads
):
    monkeypatch.chdir(tmp_path)
    with open(os.path.join(REFERENCE, "crds", "jobset.x-k8s.io_jobsets.yaml"), encoding="utf-8") as handle:
        crd = yaml.load(handle, Loader=yaml.CSafeLoader)  # a real object of a kind no definition covers
    broken = copy.deepcopy(next(o for o in workloads if o["kind"] == "JobSet"))
    broken["metadata"]["name"] = "broken"
    broken["spec"]["replicatedJobs"][0]["replicas"] = "two"  # the scale path's value is not a number
    items = [*workloads[:5], broken, crd, *workloads[5:]]
    (tmp_path / "fleet.yaml").write_text(as_list(items))
    code, doc, err = summary_json(capsys, "fleet.yaml")
    assert code == 1, err  # an object failed
    assert doc["objects"] == len(items)
    assert doc["uncovered"] == {
        "objects": 1,
        "byKind": [{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "objects": 1}],
    }
    failed = [r for r in doc["rows"] if r["outcome"] == "failed"]
    assert [r["name"] for r in failed] == ["broken"] and failed[0]["resources"] is None
    assert "replicasPath" in failed[0]["errors"][0] and "two" in failed[0]["errors"][0]
    assert doc["failed"] == 1
    assert doc["totals"]["all"]["workloads"] == len(workloads)  # the rest, all counted
    assert [r["name"] for r in doc["rows"]][5] == "broken"  # in its place
    code, out, _ = run(capsys, "describe", "fleet.yaml", "--summary")
    assert code == 1
    assert "not covered by any definition: 1 object(s): CustomResourceDefinition (apiextensions.k8s.io/v1) 1" in out
    assert re.search(
        r"failed, not in the totals: 1 object\(s\):\n  team-\d/JobSet/broken \(fleet.yaml:\d+\): .*replicasPath", out
    )


def test_csv_parses_with_the_csv_module_and_compare_passes_an_equal_file_and_finds_a_planted_difference(
    dump, capsys, workloads
):
    code, out, err = run(capsys, "describe", str(dump), "--summary", "-f", "csv", "-o", "summary.csv")
    assert code == 0 and out == "", err
    with open("summary.csv", encoding="utf-8", newline="") as handle:
        text = handle.read()
    assert "\r\n" in text and text.count("\n") == len(workloads) + 1
    records = list(csv.DictReader(io.StringIO(text, newline="")))
    assert len(records) == len(workloads)
    assert list(records[0]) == ["namespace", "kind", "name", "apiVersion", "definition", "status", "replicas",
                                "ready", "gpus", "activeGpus", "allocatedGpus", "cpuMillis", "memoryBytes",
                                "error"]  # fmt: skip
    assert all(r["gpus"].isdigit() and r["cpuMillis"].isdigit() and r["memoryBytes"].isdigit() for r in records)
    assert any("," in r["status"] for r in records) and '"Running,' in text  # quoted as RFC 4180 says
    gpus = sum(int(r["gpus"]) for r in records)

    # the summary's own CSV is an equal file (other columns are named and ignored)
    code, out, err = run(capsys, "describe", str(dump), "--summary", "--compare", "summary.csv")
    assert code == 0, out + err
    assert (
        "summary.csv (per namespace, apiVersion, kind, name; gpus, activeGpus, cpuMillis, memoryBytes, replicas): the same figures"
        in out
    )
    assert "columns not compared: definition, status, ready, error, allocatedGpus" in out  # allocatedGpus: all empty

    # a script's CSV: namespace,kind,name,gpus, with one planted difference
    planted = records[3]
    with open("costs.csv", "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["namespace", "kind", "name", "gpus"])
        for r in records:
            writer.writerow([r["namespace"], r["kind"], r["name"], int(r["gpus"]) + (8 if r is planted else 0)])
    code, out, err = run(capsys, "describe", str(dump), "--summary", "--compare", "costs.csv")
    assert code == 1, err
    lines = [line.split() for line in out.splitlines()[1:]]
    assert lines[0] == ["NAMESPACE", "KIND", "NAME", "COLUMN", "SUMMARY", "FILE", "NOTE"]
    assert lines[1] == [planted["namespace"], planted["kind"], planted["name"], "gpus", planted["gpus"],
                        str(int(planted["gpus"]) + 8)]  # fmt: skip
    assert lines[2] == ["TOTAL", "gpus", str(gpus), str(gpus + 8)]
    assert len(lines) == 3

    # per namespace only (a subset of the key columns): the figures are added up
    with open("by-namespace.csv", "w", encoding="utf-8") as handle:
        handle.write("namespace,gpus,cost\n")
        for namespace in sorted({r["namespace"] for r in records}):
            handle.write(f"{namespace},{sum(int(r['gpus']) for r in records if r['namespace'] == namespace)},1.5\n")
    code, out, _ = run(capsys, "describe", str(dump), "--summary", "--compare", "by-namespace.csv")
    assert code == 0 and "the same figures" in out and "columns not compared: cost" in out


def test_compare_says_why_a_key_differs_and_writes_each_format(tmp_path, monkeypatch, capsys, workloads):
    monkeypatch.chdir(tmp_path)
    with open(os.path.join(REFERENCE, "crds", "jobset.x-k8s.io_jobsets.yaml"), encoding="utf-8") as handle:
        crd = yaml.load(handle, Loader=yaml.CSafeLoader)
    (tmp_path / "fleet.yaml").write_text(as_list([workloads[0], crd]))
    name = workloads[0]["metadata"]["name"]
    (tmp_path / "costs.csv").write_text(f"kind,name,gpus\n{workloads[0]['kind']},{name},0\n"
                                        "CustomResourceDefinition,jobsets.jobset.x-k8s.io,4\nJobSet,gone,2\n")  # fmt: skip
    code, out, _ = run(capsys, "describe", "fleet.yaml", "--summary", "--compare", "costs.csv")
    assert code == 1
    assert "no definition covers apiextensions.k8s.io/v1 CustomResourceDefinition" in out
    assert re.search(r"JobSet\s+gone\s+gpus\s+-\s+2\s+not in the input", out)
    # figures that agree are not a difference, though an object of the key is not covered
    _, doc, _ = summary_json(capsys, "fleet.yaml")
    (tmp_path / "agree.csv").write_text(f"gpus\n{doc['totals']['all']['resources']['gpus']}\n")  # the fleet's total
    code, out, _ = run(capsys, "describe", "fleet.yaml", "--summary", "--compare", "agree.csv")
    assert code == 0 and "the same figures" in out and "not covered by any definition: 1 object(s)" in out
    for fmt in ("csv", "json", "markdown"):
        code, out, _ = run(capsys, "describe", "fleet.yaml", "--summary", "--compare", "costs.csv", "-f", fmt)
        assert code == 1, fmt
        if fmt == "csv":
            records = list(csv.DictReader(io.StringIO(out)))
            assert {(r["scope"], r["name"]) for r in records} >= {("row", "gone"), ("total", "")}
        elif fmt == "json":
            doc = json.loads(out)
            assert doc["document"] == "comparison" and doc["equal"] is False
            validate(doc)
        else:
            assert (
                out.startswith("**costs.csv (per kind, name; gpus)**: figures that differ")
                and "| JobSet | gone | gpus | - | 2 | not in the input |" in out
            )


def validate(document: dict) -> None:
    from jsonschema import Draft202012Validator

    with open(SCHEMA, encoding="utf-8") as handle:
        schema = json.load(handle)
    Draft202012Validator.check_schema(schema)
    errors = sorted(Draft202012Validator(schema).iter_errors(document), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:5]]


def test_json_is_valid_against_its_schema(tmp_path, monkeypatch, capsys, workloads):
    monkeypatch.chdir(tmp_path)
    broken = copy.deepcopy(workloads[0])
    broken["metadata"]["name"] = "broken"
    broken["spec"] = {"replicatedJobs": [{"name": "x", "replicas": "two"}]}
    (tmp_path / "fleet.yaml").write_text(
        as_list([*workloads, broken, {"apiVersion": "v1", "kind": "Secret"}]) + "---\n3\n"
    )
    code, doc, _ = summary_json(capsys, "fleet.yaml", "--group-by", "definition")
    assert code == 1 and doc["failed"] == 1 and doc["uncovered"]["objects"] == 1
    assert doc["unreadable"] and "expected a Kubernetes object" in doc["unreadable"][0]["error"]
    validate(doc)
    doc["rows"][0]["resources"]["gpus"] = -1
    with pytest.raises(AssertionError):
        validate(doc)  # the schema does constrain the document


def test_stdin_lists_multi_document_streams_and_several_files(tmp_path, monkeypatch, capsys, workloads):
    monkeypatch.chdir(tmp_path)
    first, second, third = workloads[:4], workloads[4:9], workloads[9:12]
    (tmp_path / "stream.yaml").write_text("".join("---\n" + yaml.safe_dump(o) for o in second))
    (tmp_path / "list.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": third}, indent=4))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(as_list(first).encode())))
    code, doc, err = summary_json(capsys, "-", "stream.yaml", "list.json")
    assert code == 0, err
    assert [r["name"] for r in doc["rows"]] == [o["metadata"]["name"] for o in first + second + third]
    origins = [r["origin"] for r in doc["rows"]]
    assert origins[0].startswith("<stdin>:") and origins[4] == "stream.yaml:2" and origins[9].startswith("list.json:")
    # the same objects whichever way they come
    code, alone, _ = summary_json(capsys, "stream.yaml")
    assert [r["resources"] for r in alone["rows"]] == [r["resources"] for r in doc["rows"][4:9]]


def test_ready_replicas_come_from_the_pods_their_workload_owns(tmp_path, monkeypatch, capsys):
    from test_project import KUBECTL_JOBSET, kubectl_pods

    monkeypatch.chdir(tmp_path)
    jobset = yaml.safe_load(KUBECTL_JOBSET)
    other = copy.deepcopy(jobset)
    other["metadata"].update(name="other", uid="uid-other")
    (tmp_path / "fleet.yaml").write_text(as_list([jobset, other]))
    pods = yaml.safe_load(kubectl_pods())
    uid = jobset["metadata"]["uid"]
    jobs = [
        {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "job", "namespace": "default", "uid": "job",
         "ownerReferences": [{"kind": "JobSet", "name": "demo", "uid": uid, "controller": True}]}}
    ]  # fmt: skip
    pods["items"] += jobs  # kubectl get pods,jobs -o yaml
    (tmp_path / "pods.yaml").write_text(yaml.safe_dump(pods))
    ready = sum(1 for p in pods["items"] if p["kind"] == "Pod" and any(
        c.get("type") == "Ready" and c.get("status") == "True" for c in p.get("status", {}).get("conditions", [])))  # fmt: skip
    assert ready > 0
    code, doc, err = summary_json(capsys, "fleet.yaml", "--pods", "pods.yaml")
    assert code == 0, err
    assert doc["podsGiven"] is True
    assert [r["ready"] for r in doc["rows"]] == [ready, 0]  # the other JobSet owns none of them
    assert doc["totals"]["all"]["ready"] == ready
    code, out, _ = run(capsys, "describe", "fleet.yaml", "--summary", "--pods", "pods.yaml")
    assert out.splitlines()[0].split()[6] == "READY"


def test_markdown_puts_the_totals_first_for_a_job_summary(dump, capsys, workloads):
    code, out, err = run(capsys, "describe", str(dump), "--summary", "-f", "markdown")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "## Workloads by namespace, kind"
    assert lines[2].startswith("| NAMESPACE | KIND | WORKLOADS |") and lines[3].startswith("|---|")
    assert f"<details><summary>{len(workloads)} workload(s)</summary>" in lines
    assert sum(1 for line in lines if line.startswith("| team-")) >= len(workloads)


def test_rows_are_written_as_their_batch_is_done(workloads):
    """Objects are pulled one at a time and each batch's entries come out before the next is read."""
    from kartalint.evaluation import Evaluator
    from kartalint.evaluation.fleet import summarise
    from kartalint.load.definitions import default_index, object_gvk
    from kartalint.load.objects import LoadedObject

    index = default_index()
    pulled = []

    def objects():
        for i, obj in enumerate(workloads):
            pulled.append(i)
            yield LoadedObject(f"x:{i}", obj)

    with Evaluator() as evaluator:
        entries = summarise(objects(), lambda o: index.find(object_gvk(o)), evaluator, batch=4)
        first = next(entries)
        assert first.name == workloads[0]["metadata"]["name"] and len(pulled) == 4
        rest = list(entries)
    assert len(rest) == len(workloads) - 1 and len(pulled) == len(workloads)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--summary", "-f", "tree"], "--summary writes table, csv, json, markdown, not tree"),
        (["-f", "csv"], "-f csv is a format of --summary"),
        (["--compare", "x.csv"], "go with --summary"),
        (["other.yaml"], "go with --summary"),
        (["-", "--summary", "--pods", "-"], "stdin ('-') can be read once"),
        (["--summary", "--compare", "none.csv"], "none.csv: cannot read file"),
        (["--summary", "--compare", "bad.csv"], "bad.csv:1: no column to compare"),
        (["--summary", "--compare", "words.csv"], "words.csv:2: gpus 'eight' is not a number"),
    ],
)
def test_usage_errors(dump, capsys, argv, message):
    (dump.parent / "bad.csv").write_text("namespace,kind,name\n")
    (dump.parent / "words.csv").write_text("name,gpus\nx,eight\n")
    code, out, err = run(capsys, "describe", str(dump), *argv)
    assert code == 2 and out == "" and message in err, err


def test_group_by_takes_only_known_keys(dump, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["describe", str(dump), "--summary", "--group-by", "owner"])
    assert exit_info.value.code == 2 and "invalid choice: 'owner'" in capsys.readouterr().err


def test_the_cli_offers_the_group_keys_of_the_summary():
    from kartalint.cli import describe_summary
    from kartalint.evaluation import fleet_totals

    assert describe_summary.GROUP_KEYS == fleet_totals.GROUP_KEYS
    assert describe_summary.ROW_KINDS == fleet_totals.ROW_KINDS


def test_nothing_to_count_is_not_a_silent_success(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty.yaml").write_text("# nothing\n")
    code, _out, err = run(capsys, "describe", "empty.yaml", "--summary")
    assert code == 2 and "no Kubernetes object found" in err
    (tmp_path / "secrets.yaml").write_text(as_list([{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}]))
    code, _out, err = run(capsys, "describe", "secrets.yaml", "--summary", "-f", "csv")
    assert code == 2 and "no object is covered by a definition" in err
    assert "kartalint: note: not covered by any definition: 1 object(s): Secret (v1) 1" in err
    code, _out, err = run(capsys, "describe", "missing.yaml", "--summary")
    assert code == 2 and "kartalint: error: missing.yaml: no such file" in err.lower()


def test_the_documented_json_example_is_valid_against_the_schema():
    with open(os.path.join(ROOT, "docs", "fleet.md"), encoding="utf-8") as handle:
        text = handle.read()
    example = json.loads(re.search(r"```json\n(.*?)```", text, re.S).group(1))
    validate(example)
    assert example["totals"]["all"]["resources"]["gpus"] == 116  # the figures the page shows


def test_a_definition_upstream_refuses_fails_its_objects_unless_forced(tmp_path, monkeypatch, capsys, workloads):
    from conftest import BASE_DEFINITION

    monkeypatch.chdir(tmp_path)
    (tmp_path / "trainer.yaml").write_text(BASE_DEFINITION.replace("ownerRef: trainer", "ownerRef: nobody"))
    trainers = [
        {"apiVersion": "example.com/v1", "kind": "Trainer", "metadata": {"name": f"t{i}", "namespace": "ml"},
         "spec": {"roles": [{"name": "w", "replicas": 2, "template": {"spec": {"containers": [
             {"name": "c", "resources": {"limits": {"nvidia.com/gpu": 4}}}]}}}]}}
        for i in range(3)
    ]  # fmt: skip
    (tmp_path / "fleet.yaml").write_text(as_list([*trainers, workloads[0]]))
    code, doc, _ = summary_json(capsys, "fleet.yaml", "--definition", "trainer.yaml")
    assert code == 1
    outcomes = [(r["name"], r["outcome"]) for r in doc["rows"]]
    assert outcomes == [
        ("t0", "failed"),
        ("t1", "failed"),
        ("t2", "failed"),
        (workloads[0]["metadata"]["name"], "counted"),
    ]
    assert (
        "trainer.yaml is invalid (upstream refuses it): child component 'worker' has owner ref"
        in doc["rows"][0]["errors"][0]
    )
    code, doc, _ = summary_json(capsys, "fleet.yaml", "--definition", "trainer.yaml", "--force")
    assert [r["outcome"] for r in doc["rows"]] == ["failed"] * 3 + ["counted"]  # the view keeps "invalid karta"
    assert "invalid karta" in doc["rows"][0]["errors"][0]
