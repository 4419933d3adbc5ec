"""`kartalint describe`: definition lookup, tree/json/yaml output, stdin, lists, errors."""

from __future__ import annotations

import io
import json
import os
import re

import pytest
import yaml
from conftest import BASE_DEFINITION, REFERENCE, ROOT

from kartalint.cli import main

OBJECT = """\
apiVersion: example.com/v1
kind: Trainer
metadata: {name: t1, namespace: team-a, uid: u-1}
spec:
  roles:
  - name: worker
    replicas: 2
    template:
      spec:
        containers:
        - name: main
          resources: {limits: {nvidia.com/gpu: 4, cpu: 500m, memory: 16Gi}}
  - name: leader
    template:
      spec:
        containers:
        - name: main
          resources: {requests: {cpu: "1", memory: 1Gi}}
status:
  phase: Running
"""

PODS = """\
apiVersion: v1
kind: PodList
items:
- metadata: {name: t1-worker-0, labels: {example.com/role: worker}}
  spec: {nodeName: node-a, containers: [{name: main, resources: {limits: {nvidia.com/gpu: 4}}}]}
  status: {phase: Running, conditions: [{type: Ready, status: "True"}]}
- metadata: {name: t1-worker-1, labels: {example.com/role: worker}}
  spec: {containers: [{name: main}]}
  status: {phase: Pending, conditions: [{type: PodScheduled, status: "False", reason: Unschedulable}]}
"""


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "defs").mkdir()
    (tmp_path / "defs" / "trainer.yaml").write_text(BASE_DEFINITION)
    (tmp_path / "obj.yaml").write_text(OBJECT)
    (tmp_path / "pods.yaml").write_text(PODS)
    return tmp_path


def norm(out):
    """Lines with runs of spaces collapsed (column widths depend on the longest cell)."""
    return [" ".join(line.split()) for line in out.splitlines()]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_tree_without_pods(workdir, capsys):
    code, out, err = run(capsys, "describe", "obj.yaml", "--catalog", "defs")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "Trainer/t1   namespace: team-a   definition: example-com-trainer-v1 (defs/trainer.yaml)"
    assert "`-- worker       2 instance(s)   gpu: 8" in lines
    assert "    |-- leader   replicas: 1" in lines
    assert "    `-- worker   replicas: 2     gpu: 8" in lines
    assert "Phase: Running" in lines
    table = lines[lines.index("Resources:") + 1 :]
    assert table[0].split() == ["COMPONENT", "REPLICAS", "GPU", "CPU", "MEMORY"]
    assert table[1].split() == ["worker", "3", "8", "2", "33Gi"]
    assert table[2].split() == ["TOTAL", "3", "8", "2", "33Gi"]
    assert "podGroup pg-u-1-all   minAvailable: 0   minSubGroup: 1" in out


def test_tree_with_pods(workdir, capsys):
    code, out, err = run(capsys, "describe", "obj.yaml", "--catalog", "defs", "--pods", "pods.yaml")
    assert code == 0, err
    lines = norm(out)
    assert "|-- leader 0/1 ready" in lines
    assert "`-- worker 1/2 ready gpu: 8 node-a" in lines
    assert "|-- t1-worker-0 Running gpu: 4 node-a" in lines
    assert "`-- t1-worker-1 Pending (Unschedulable) <none>" in lines
    assert "        `-- t1-worker-1   Pending (Unschedulable)            <none>" in out.splitlines()


def test_pods_that_are_not_pods_are_refused(workdir, capsys):
    """A file of other objects given as --pods (a definition, the workload itself) is a usage
    error naming the document, never shown as pods."""
    code, out, err = run(capsys, "describe", "obj.yaml", "--catalog", "defs", "--pods", "defs/trainer.yaml")
    assert code == 2 and out == ""
    assert "defs/trainer.yaml" in err and "a 'Karta' is not a Pod" in err, err


def test_pods_given_twice_is_a_usage_error_not_the_last_one_alone(workdir, capsys):
    """argparse keeps the last of an option given twice: the first file of pods was dropped in silence."""
    for command in (["describe", "obj.yaml"], ["new", "fixture", "obj.yaml"]):
        code, out, err = run(
            capsys, *command, "--catalog", "defs", "--pods", "pods.yaml", "--pods", "defs/trainer.yaml"
        )
        assert code == 2 and out == "", (command, out)
        assert "--pods given 2 times (pods.yaml, defs/trainer.yaml)" in err, (command, err)


def test_json_document(workdir, capsys):
    code, out, _ = run(capsys, "describe", "obj.yaml", "--catalog", "defs", "-o", "json", "--pods", "pods.yaml")
    doc = json.loads(out)
    assert code == 0
    assert doc["schemaVersion"] == 1 and doc["statuses"] == ["Running"] and doc["phase"] == "Running"
    assert doc["workload"] == {"apiVersion": "example.com/v1", "kind": "Trainer", "name": "t1", "namespace": "team-a"}
    worker = next(c for c in doc["components"] if c["name"] == "worker")
    assert [(i["id"], i["replicas"]["desired"], i["resources"]["gpus"]) for i in worker["instances"]] == [
        ("leader", 1, 0),
        ("worker", 2, 8),
    ]
    assert worker["pods"]["current"] == 2 and worker["pods"]["ready"] == 1
    assert doc["resources"] == {"gpus": 8, "cpuMillis": 2000, "memoryBytes": 33 * 2**30}
    assert doc["gang"]["subGroups"][0]["minAvailable"] == 3


def test_yaml_output_equals_json(workdir, capsys):
    _, as_json, _ = run(capsys, "describe", "obj.yaml", "--catalog", "defs", "-o", "json")
    _, as_yaml, _ = run(capsys, "describe", "obj.yaml", "--catalog", "defs", "-o", "yaml")
    assert yaml.safe_load(as_yaml) == json.loads(as_json)


def test_stdin_and_explicit_definition(workdir, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(OBJECT.encode())))
    code, out, _ = run(capsys, "describe", "-", "--definition", "defs/trainer.yaml", "-o", "json")
    assert code == 0 and json.loads(out)["workload"]["name"] == "t1"


def test_list_and_multi_document_give_an_array(workdir, capsys):
    second = OBJECT.replace("name: t1,", "name: t2,")
    (workdir / "multi.yaml").write_text(OBJECT + "---\n" + second)
    code, out, _ = run(capsys, "describe", "multi.yaml", "--catalog", "defs", "-o", "json")
    assert code == 0 and [d["workload"]["name"] for d in json.loads(out)] == ["t1", "t2"]
    listing = {"apiVersion": "v1", "kind": "List", "items": [yaml.safe_load(OBJECT), yaml.safe_load(second)]}
    (workdir / "list.yaml").write_text(yaml.safe_dump(listing))
    code, out, _ = run(capsys, "describe", "list.yaml", "--catalog", "defs", "-o", "json")
    assert code == 0 and [d["workload"]["name"] for d in json.loads(out)] == ["t1", "t2"]
    code, out, _ = run(capsys, "describe", "list.yaml", "--catalog", "defs")
    assert out.count("Resources:") == 2


def test_no_definition_names_the_gvk_and_the_search(workdir, capsys):
    (workdir / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    code, out, err = run(capsys, "describe", "cm.yaml", "--catalog", "defs")
    assert code == 2 and out == ""
    assert "no definition for v1, Kind=ConfigMap" in err
    assert "defs" in err and "catalog" in err


def test_version_must_match_exactly(workdir, capsys):
    (workdir / "v2.yaml").write_text(OBJECT.replace("example.com/v1", "example.com/v2"))
    code, _, err = run(capsys, "describe", "v2.yaml", "--catalog", "defs")
    assert code == 2 and "example.com/v2, Kind=Trainer" in err
    assert "Trainer is covered only at other versions: example.com/v1 (example-com-trainer-v1)" in err


def test_bad_inputs_are_clean_errors(workdir, capsys):
    (workdir / "broken.yaml").write_text("kind: [unclosed\n")
    code, _out, err = run(capsys, "describe", "broken.yaml", "--catalog", "defs")
    assert code == 2 and "broken.yaml:" in err and "Traceback" not in err
    code, _, err = run(capsys, "describe", "missing.yaml")
    assert code == 2 and "missing.yaml" in err
    (workdir / "scalar.yaml").write_text("just text\n")
    code, _, err = run(capsys, "describe", "scalar.yaml")
    assert code == 2 and "expected a Kubernetes object" in err


def test_extraction_errors_exit_1_and_are_shown(workdir, capsys):
    definition = yaml.safe_load(BASE_DEFINITION)
    child = definition["spec"]["structureDefinition"]["childComponents"][0]
    child["scaleDefinition"]["replicasPath"] = ".spec.roles[] | .replicas * .template.spec.parallelism"
    (workdir / "broken-def.yaml").write_text(yaml.safe_dump(definition))
    code, out, _ = run(capsys, "describe", "obj.yaml", "-d", "broken-def.yaml")
    assert code == 1
    assert (
        "Errors:\n  worker: scaleDefinition.replicasPath: number (2) and null (null) cannot be multiplied (broken-def.yaml:"
        in out
    )
    assert "Phase: Running" in out
    # the tree shows a count it could not read as `?`, the table's sums count it as 0
    lines = norm(out)
    assert "|-- leader replicas: ?" in lines and "`-- worker replicas: ?" in lines
    assert "worker 0 0 0 0" in lines and "TOTAL 0 0 0 0" in lines


@pytest.mark.parametrize(
    "name, statuses, roles",
    [
        ("karta-docs-quickstart--jobset.yaml", ["Running"], {"replicatedjob": [("leader", 1), ("workers", 8)]}),
        ("cli-workload-testdata--leaderworkerset.yaml", None, {"leader": [(None, 2)], "worker": [(None, 6)]}),
    ],
)
def test_real_objects_with_the_bundled_catalog(capsys, name, statuses, roles):
    code, out, err = run(capsys, "describe", os.path.join(REFERENCE, "objects", name), "-o", "json")
    assert code == 0, err
    doc = json.loads(out)
    if statuses:
        assert doc["statuses"] == statuses
    by_name = {c["name"]: c for c in doc["components"]}
    for comp, expected in roles.items():
        assert [(i["id"], i["replicas"]["desired"]) for i in by_name[comp]["instances"]] == expected


def with_child(workdir, component):
    """The test definition with one more child component, written to defs/trainer.yaml."""
    definition = yaml.safe_load(BASE_DEFINITION)
    definition["spec"]["structureDefinition"]["childComponents"].append(dict(component, ownerRef="trainer"))
    (workdir / "defs" / "trainer.yaml").write_text(yaml.safe_dump(definition))


def test_resource_columns_use_one_unit_each(workdir, capsys):
    with_child(
        workdir,
        {
            "name": "driver",
            "kind": {"group": "", "version": "v1", "kind": "Pod"},
            "specDefinition": {"podTemplateSpecPath": ".spec.driver.template"},
        },
    )
    obj = yaml.safe_load(OBJECT)
    obj["spec"]["roles"] = [
        {
            "name": "worker",
            "replicas": 1,
            "template": {
                "spec": {"containers": [{"name": "main", "resources": {"limits": {"cpu": "500m", "memory": "4Gi"}}}]}
            },
        }
    ]
    obj["spec"]["driver"] = {
        "template": {"spec": {"containers": [{"name": "main", "resources": {"limits": {"cpu": "2", "memory": "4Ti"}}}]}}
    }
    (workdir / "obj.yaml").write_text(yaml.safe_dump(obj))
    code, out, err = run(capsys, "describe", "obj.yaml", "--catalog", "defs")
    assert code == 0, err
    lines = out.splitlines()
    table = [line.split() for line in lines[lines.index("Resources:") + 1 : lines.index("Resources:") + 5]]
    assert table[1:] == [
        ["worker", "1", "0", "500m", "4Gi"],
        ["driver", "1", "0", "2000m", "4096Gi"],
        ["TOTAL", "2", "0", "2500m", "4100Gi"],
    ]


def test_logical_component_row_is_the_sum_of_its_children_as_kli(tmp_path, capsys, monkeypatch):
    from conftest import ROOT

    monkeypatch.chdir(ROOT)
    with open(
        os.path.join(
            ROOT, "fixtures", "leaderworkerset-x-k8s-io-leaderworkerset-v1", "updating-two-groups-of-four.yaml"
        )
    ) as handle:
        obj = yaml.safe_load(handle)["object"]
    (tmp_path / "lws.yaml").write_text(yaml.safe_dump(obj))
    _code, out, _err = run(capsys, "describe", str(tmp_path / "lws.yaml"))
    assert "`-- group        replicas: 8" in out.splitlines()
    _code, out, _err = run(capsys, "describe", str(tmp_path / "lws.yaml"), "-f", "json")
    group = next(c for c in json.loads(out)["components"] if c["name"] == "group")
    assert group["replicas"]["row"] == 8 and group["replicas"]["own"] != 8


def test_a_component_with_replicas_and_no_pod_spec_keeps_its_row(workdir, capsys):
    with_child(
        workdir,
        {
            "name": "tuning",
            "kind": {"group": "batch", "version": "v1", "kind": "Job"},
            "scaleDefinition": {"replicasPath": "1"},
        },
    )
    _code, out, _err = run(capsys, "describe", "obj.yaml", "--catalog", "defs")
    lines = out.splitlines()
    assert "    `-- tuning   replicas: 1" in [line.rstrip() for line in lines] or any(
        line.strip().startswith("`-- tuning") and "replicas: 1" in line for line in lines
    )
    table = [line.split() for line in lines[lines.index("Resources:") + 1 :]]
    assert ["tuning", "1", "0", "0", "0"] in table
    assert next(row for row in table if row and row[0] == "TOTAL")[1] == "4"  # worker 3 + tuning 1


def test_an_invalid_definition_is_refused_with_its_places_unless_forced(workdir, capsys):
    import kartalint

    definition = yaml.safe_load(BASE_DEFINITION)
    mappings = definition["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]["statusMappings"]
    mappings["suspended"] = ['.status.phase == "Suspended"']  # a matcher written as a string
    mappings["failed"] = [{"byExpression": '.status.phase == "Failed"'}]
    (workdir / "defs" / "trainer.yaml").write_text(yaml.safe_dump(definition, sort_keys=False))
    code, out, err = run(capsys, "describe", "obj.yaml", "--catalog", "defs")
    assert code == 1 and out == ""
    located = [
        line
        for line in err.splitlines()
        if re.match(r"kartalint: error: defs/trainer\.yaml:\d+:\d+: .*\(wrong-type\)$", line)
    ]
    assert len(located) == 2, err
    assert "add --force" in err
    code, out, err = run(capsys, "describe", "obj.yaml", "--catalog", "defs", "--force")
    assert "Phase: Running" in out  # a matcher of the wrong type never matches
    assert code == 1 and "invalid karta" in out
    view = kartalint.evaluate(definition, yaml.safe_load(OBJECT))
    assert view.statuses == [] and all("invalid karta" in e.message for e in view.errors) and len(view.errors) == 2


def test_object_files_follow_the_configured_size_limit(workdir, capsys):
    (workdir / ".kartalint.yaml").write_text("max-file-size: 100\n")
    code, _, err = run(capsys, "describe", "obj.yaml", "--catalog", "defs")
    assert code == 2 and "over the 100-byte limit" in err
    (workdir / ".kartalint.yaml").write_text(f"max-file-size: {len(OBJECT) + 1}\n")
    code, out, err = run(capsys, "describe", "obj.yaml", "--catalog", "defs")
    assert code == 0 and out.startswith("Trainer/t1"), err


def test_the_tree_says_when_a_parent_s_copies_are_not_in_its_children_s_totals(tmp_path, capsys, monkeypatch):
    """Issue 43: a RoleSet of 2 copies whose roles' replicas ignore the copies is shown as one copy
    by every consumer; the tree says so. The definition that multiplies in the child does not."""
    monkeypatch.chdir(tmp_path)
    examples = os.path.join(os.path.dirname(__file__), "..", "kartalint", "rules", "examples")
    obj = {
        "apiVersion": "example.com/v1",
        "kind": "RoleSet",
        "metadata": {"name": "serve", "namespace": "ml"},
        "spec": {
            "replicas": 2,
            "roles": [{"name": "worker", "replicas": 4, "template": {"spec": {"containers": [{"name": "c"}]}}}],
        },
    }
    (tmp_path / "set.yaml").write_text(yaml.safe_dump(obj))
    bad = os.path.join(examples, "parent-scale-not-multiplied", "bad.yaml")
    good = os.path.join(examples, "parent-scale-not-multiplied", "good.yaml")
    main(["describe", "set.yaml", "--definition", bad])
    out = capsys.readouterr().out
    assert "replicas: 4" in out
    assert "note: set asks for 2 copies, but the totals of role count one copy" in out
    main(["describe", "set.yaml", "--definition", good])
    out = capsys.readouterr().out
    assert "replicas: 8" in out and "note:" not in out
    obj["spec"]["replicas"] = 1  # one copy: nothing is missing from the totals
    (tmp_path / "set.yaml").write_text(yaml.safe_dump(obj))
    main(["describe", "set.yaml", "--definition", bad])
    assert "note:" not in capsys.readouterr().out


def test_the_description_of_the_objects_holds_the_exit_code(workdir):
    """The exit policy of describe of objects belongs to its result (``evaluation.described``): 2
    when no definition covers an object, 1 when upstream refuses an object's definition, a view has
    errors or a place of the input could not be read, else 0; the views are those of the objects
    whose definition was chosen, in order."""
    from kartalint.evaluation import Evaluator
    from kartalint.evaluation.described import Subject, describe
    from kartalint.load.definitions import DefinitionIndex
    from kartalint.load.objects import load_objects

    (workdir / "mixed.yaml").write_text(OBJECT + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    (workdir / "half.yaml").write_text("just text\n---\n" + OBJECT)
    (workdir / "invalid").mkdir()
    definition = yaml.safe_load(BASE_DEFINITION)
    mappings = definition["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]["statusMappings"]
    mappings["failed"] = [{"byExpression": '.status.phase == "Failed"'}]  # a matcher of the wrong type
    (workdir / "invalid" / "trainer.yaml").write_text(yaml.safe_dump(definition))
    definition = yaml.safe_load(BASE_DEFINITION)
    child = definition["spec"]["structureDefinition"]["childComponents"][0]
    child["scaleDefinition"]["replicasPath"] = ".spec.roles[] | .replicas * .template.spec.parallelism"
    (workdir / "erring.yaml").write_text(yaml.safe_dump(definition))
    defs, invalid = DefinitionIndex.from_paths(["defs"]), DefinitionIndex.from_paths(["invalid"])

    pods = [o.data for o in load_objects("pods.yaml")[0]]

    def described(evaluator, path, index=defs, fixed=None):
        objects, errors = load_objects(path)
        return describe(Subject(path, objects, errors, pods), index, fixed, evaluator)

    with Evaluator() as evaluator:
        good = described(evaluator, "obj.yaml")
        mixed = described(evaluator, "mixed.yaml")
        half = described(evaluator, "half.yaml")
        refused = described(evaluator, "obj.yaml", invalid)
        erring = described(evaluator, "obj.yaml", fixed=DefinitionIndex.from_paths(["erring.yaml"]).definitions[0])
    assert [c.outcome for c in good.choices] == ["chosen"] and good.exit_code() == 0
    ((entry, view),) = good.views
    assert entry.path == "defs/trainer.yaml" and view.statuses == ["Running"] and view.resources.gpus == 8
    assert next(c for c in view.to_dict()["components"] if c["name"] == "worker")["pods"]["ready"] == 1  # with pods
    assert [c.outcome for c in mixed.choices] == ["chosen", "uncovered"] and len(mixed.views) == 1
    assert mixed.exit_code() == 2
    assert half.subject.errors and [c.outcome for c in half.choices] == ["chosen"] and half.exit_code() == 1
    assert [c.outcome for c in refused.choices] == ["refused"] and refused.views == [] and refused.exit_code() == 1
    assert erring.views[0][1].all_errors and erring.exit_code() == 1
    with Evaluator(force=True) as forced:  # --force: upstream's refusal is an error of the view
        forced_view = described(forced, "obj.yaml", invalid)
    assert [c.outcome for c in forced_view.choices] == ["chosen"] and forced_view.exit_code() == 1


# -- pods given in a file are each object's own (issue 47's describe --pods) ---------------------------

JOBSET_FIXTURE = os.path.join(
    os.path.dirname(__file__), "..", "fixtures", "jobset-x-k8s-io-jobset-v1alpha2", "running-running-v0_12_0.yaml"
)


def _jobset_pod_and_job(jobset: dict, ready: bool) -> tuple[dict, dict]:
    """A worker pod and its Job as the JobSet controller and the Job controller write them (jobset
    pkg/controllers/jobset_controller.go names a Job <jobset>-<replicatedJob>-<jobIndex>, owned by
    the JobSet, and labels its pod template; the Job owns the pod: controller, blockOwnerDeletion)."""
    name, namespace = jobset["metadata"]["name"], jobset["metadata"]["namespace"]
    job_name, job_uid = f"{name}-workers-0", f"uid-job-{name}"
    labels = {
        "jobset.sigs.k8s.io/jobset-name": name,
        "jobset.sigs.k8s.io/replicatedjob-name": "workers",
        "jobset.sigs.k8s.io/job-index": "0",
    }
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": job_name,
            "namespace": namespace,
            "uid": job_uid,
            "labels": labels,
            "ownerReferences": [
                {
                    "apiVersion": "jobset.x-k8s.io/v1alpha2",
                    "kind": "JobSet",
                    "name": name,
                    "uid": jobset["metadata"]["uid"],
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
    }
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": f"{job_name}-0-x7k2p",
            "namespace": namespace,
            "labels": {**labels, "batch.kubernetes.io/job-name": job_name},
            "ownerReferences": [
                {
                    "apiVersion": "batch/v1",
                    "kind": "Job",
                    "name": job_name,
                    "uid": job_uid,
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": {"nodeName": "node-1", "containers": [{"name": "worker", "image": "busybox:1.36"}]},
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]},
    }
    return pod, job  # fmt: skip


def test_pods_given_are_each_objects_own_not_every_pod_of_the_file(tmp_path, monkeypatch, capsys):
    """`describe OBJECT --pods ALL` where ALL is `kubectl get pods,jobs -o yaml` of a namespace with
    two JobSets, one named with the other's name as a prefix (`train`, `train-big`): each object
    gets the pods whose owners lead to it through the Jobs given, not its neighbour's; each object
    of a List its own. Without the Jobs the pods lead nowhere: left out, and a note says what to give."""
    with open(JOBSET_FIXTURE, encoding="utf-8") as handle:
        train = yaml.safe_load(handle)["object"]
    train["metadata"].update(name="train")
    big = json.loads(json.dumps(train))
    big["metadata"].update(name="train-big", uid="0b7d7e43-0b1f-4d4c-9a43-1f0f1a3b5c11")
    (pod, job), (big_pod, big_job) = _jobset_pod_and_job(train, ready=True), _jobset_pod_and_job(big, ready=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "train.yaml").write_text(yaml.safe_dump(train))
    (tmp_path / "both.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [train, big]}))
    everything = {"apiVersion": "v1", "kind": "List", "items": [big_pod, pod, job, big_job]}
    (tmp_path / "all.yaml").write_text(yaml.safe_dump(everything))
    (tmp_path / "pods.yaml").write_text(
        yaml.safe_dump({"apiVersion": "v1", "kind": "PodList", "items": [big_pod, pod]})
    )

    def workers(view: dict) -> tuple[int, int]:
        pods = next(c for c in view["components"] if c["name"] == "replicatedjob")["pods"]
        return pods["current"], pods["ready"]

    code, out, err = run(capsys, "describe", "train.yaml", "--pods", "all.yaml", "-f", "json")
    assert code == 0 and workers(json.loads(out)) == (1, 1), err
    assert "1 pod(s) given belong to JobSet train-big (through the owners given), which is not described" in err
    code, out, err = run(capsys, "describe", "both.yaml", "--pods", "all.yaml", "-f", "json")
    assert code == 0 and [workers(v) for v in json.loads(out)] == [(1, 1), (1, 0)] and "note" not in err, err
    unnamed = json.loads(json.dumps(train))  # written by hand, without a uid: its Job names it
    del unnamed["metadata"]["uid"]
    (tmp_path / "unnamed.yaml").write_text(
        yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [unnamed, big]})
    )
    code, out, err = run(capsys, "describe", "unnamed.yaml", "--pods", "all.yaml", "-f", "json")
    assert code == 0 and [workers(v) for v in json.loads(out)] == [(1, 1), (1, 0)], err
    (tmp_path / "none.yaml").write_text("apiVersion: v1\nkind: List\nitems: []\n")  # kubectl: no pod matched
    code, out, err = run(capsys, "describe", "train.yaml", "--pods", "none.yaml", "-f", "json")
    assert code == 0 and "note: none.yaml: no pod in it: every object is shown without pods" in err, err
    code, out, err = run(capsys, "describe", "both.yaml", "--pods", "pods.yaml", "-f", "json")
    assert code == 0 and [workers(v) for v in json.loads(out)] == [(0, 0), (0, 0)]
    assert (
        "2 pod(s) given are owned by Job train-big-workers-0, Job train-workers-0, not in the file: left out; a pod "
        "counts when its owners lead to the object described: give the owners in between with the pods (kubectl get "
        "pods,jobs -o yaml)"
    ) in err


def test_one_object_with_a_namespaces_pods_keeps_those_owned_by_what_is_named_after_it(tmp_path, monkeypatch, capsys):
    """`describe SERVER --pods PODS` where PODS is `kubectl get pods -o yaml` of a namespace of four
    Seldon Servers (tests/data/from-objects/seldon-server, as the operator writes them: each Server's
    pods owned by a StatefulSet named after it, which the file does not hold): the Server gets its
    own two pods, not all eight, and a note says the others' owners are not in the file."""
    data = os.path.join(os.path.dirname(__file__), "data", "from-objects", "seldon-server")
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    pods = os.path.join(data, "pods.yaml")
    code, _, err = run(capsys, "new", "--crd", os.path.join(data, "crd.yaml"), "--from", os.path.join(data, "objects.yaml"),
                       "--from", pods, "-o", "draft.yaml")  # fmt: skip
    assert code == 0, err
    with open(os.path.join(data, "objects.yaml"), encoding="utf-8") as handle:
        servers = next(d for d in yaml.safe_load_all(handle) if d)["items"]
    (tmp_path / "one.yaml").write_text(yaml.safe_dump(servers[0]))
    code, out, err = run(capsys, "describe", "one.yaml", "--pods", pods, "--definition", "draft.yaml", "-f", "json")
    assert code == 0, err
    (component,) = [c for c in json.loads(out)["components"] if c["hasPodDefinition"]]
    assert (component["pods"]["current"], component["pods"]["ready"]) == (2, 2), component["pods"]
    assert "6 pod(s) given are owned by StatefulSet mlserver-134, StatefulSet mlserver-gpu" in err, err
    # what to give is the kind of the owners seen, not Jobs (the suggestion said `pods,jobs` whatever they were)
    assert err.rstrip().endswith("give the owners in between with the pods (kubectl get pods,statefulsets -o yaml)")
    # `new fixture` with the same pods holds the pods describe gives the Server, and says the same of the
    # others (it embedded all eight and pinned six as unmatched pods, which `kartalint test` then warned of)
    code, _, fixture_err = run(capsys, "new", "fixture", "one.yaml", "--pods", pods, "--definition", "draft.yaml",
                               "-o", "fixture.yaml")  # fmt: skip
    assert code == 0, fixture_err
    fixture = yaml.safe_load((tmp_path / "fixture.yaml").read_text())
    assert len(fixture["pods"]) == 2 and fixture["expect"].get("unmatchedPods", []) == [], fixture["expect"]
    assert "6 pod(s) given are owned by StatefulSet mlserver-134, StatefulSet mlserver-gpu" in fixture_err


def test_pods_of_a_deployment_without_their_replicaset_suggest_listing_replicasets(tmp_path, monkeypatch, capsys):
    """`describe DEPLOYMENTS --pods PODS` (two Deployments, PODS `kubectl get pods -o yaml`): each pod
    is owned by a Deployment's ReplicaSet, which the file does not hold. The note says to give the owners'
    kind, `kubectl get pods,replicasets -o yaml` (it said `pods,jobs`, which gets no ReplicaSet).
    Objects as kubernetes/kubernetes writes them (pkg/controller/deployment/sync.go names the
    ReplicaSet `<deployment>-<pod-template-hash>`; pkg/controller/replicaset/replica_set.go gives each
    pod a controller reference to it: metav1.NewControllerRef)."""
    monkeypatch.chdir(tmp_path)
    labels = {"app": "web"}
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop", "uid": "5b1e4c2a-8f0d-4e61-9d7a-0c2f3b4a5d6e"},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "web", "image": "nginx"}]}},
        },
        "status": {"replicas": 2, "readyReplicas": 2, "availableReplicas": 2, "updatedReplicas": 2},
    }
    owner = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "name": "web-7c9d8f6b5",
        "uid": "a3f1d2c4-6b7e-4f80-9a1b-2c3d4e5f6a7b",
        "controller": True,
        "blockOwnerDeletion": True,
    }
    pods = [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": f"web-7c9d8f6b5-{suffix}",
                "namespace": "shop",
                "labels": {**labels, "pod-template-hash": "7c9d8f6b5"},
                "ownerReferences": [owner],
            },
            "spec": {"containers": [{"name": "web", "image": "nginx"}]},
            "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]},
        }
        for suffix in ("x2k9p", "q7m4z")
    ]
    api = json.loads(json.dumps(deployment))
    api["metadata"].update(name="api", uid="9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b")
    (tmp_path / "both.yaml").write_text(
        yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [deployment, api]})
    )
    (tmp_path / "pods.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": pods}))
    code, _, err = run(capsys, "describe", "both.yaml", "--pods", "pods.yaml")  # two objects: owners must lead
    assert code == 0, err
    assert "2 pod(s) given are owned by ReplicaSet web-7c9d8f6b5, not in the file: left out" in err, err
    assert "(kubectl get pods,replicasets -o yaml)" in err and "pods,jobs" not in err, err


def test_a_project_definition_shadowing_a_bundled_one_is_noted_only_with_verbose(tmp_path, monkeypatch, capsys):
    """A project holding its own JobSet definition (a copy of the bundled one): describe of a JobSet
    uses it and its tree names the file, so the note that it shadows the bundled one is said only
    with -v (it was said on every describe in the project, of a PyTorchJob too)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    (tmp_path / "karta").mkdir()
    with open(os.path.join(ROOT, "catalog", "jobset-x-k8s-io-jobset-v1alpha2.yaml"), encoding="utf-8") as handle:
        (tmp_path / "karta" / "my-jobset.yaml").write_text(handle.read())
    jobset = os.path.join(REFERENCE, "objects", "karta-docs-quickstart--jobset.yaml")
    pytorchjob = os.path.join(REFERENCE, "objects", "cli-workload-testdata--pytorchjob.yaml")
    code, out, err = run(capsys, "describe", jobset)
    assert code == 0 and "definition: jobset-x-k8s-io-jobset-v1alpha2 (karta/my-jobset.yaml)" in out, err
    assert err == ""
    code, out, err = run(capsys, "describe", pytorchjob)
    assert code == 0 and err == "", err
    code, out, err = run(capsys, "describe", "-v", jobset)
    assert code == 0 and err.count("\n") == 1
    assert "project definition karta/my-jobset.yaml shadows the bundled" in err and "Kind=JobSet" in err


@pytest.mark.parametrize("option", ["OBJECT", "--pods"])
def test_standard_input_that_is_not_utf8_says_so_as_the_file_does(workdir, capsys, monkeypatch, option):
    """`describe - < binary` said "no Kubernetes object found" (the problem was read, then standard
    input read again, empty), `--pods - < binary` took it for no pod: both say what the same file
    given by name says, at the same place, naming <stdin>."""
    binary = b"\x7fELF\x02\x01\x01" + bytes(range(256)) * 4  # (the head of an executable)
    (workdir / "binary.yaml").write_bytes(binary)
    as_file = ("binary.yaml",) if option == "OBJECT" else ("obj.yaml", "--pods", "binary.yaml")
    code, out, err = run(capsys, "describe", *as_file, "--catalog", "defs")
    assert (code, out) == (2, "") and err.startswith("kartalint: error: binary.yaml:2:118: "), err
    said = err.split("binary.yaml", 1)[1]
    assert "not valid UTF-8: byte 0x80 at offset 135" in said and err.count("\n") == 1, err
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(binary)))
    from_stdin = ("-",) if option == "OBJECT" else ("obj.yaml", "--pods", "-")
    code, out, err = run(capsys, "describe", *from_stdin, "--catalog", "defs")
    assert (code, out, err) == (2, "", f"kartalint: error: <stdin>{said}")
