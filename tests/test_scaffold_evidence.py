"""The parts of drafting from real objects (`new --crd --from`) on small inputs: which workload a pod
belongs to, where its containers came from, the counts that explain it, the bad inputs, `init --crd
--from`, and the CRD-only rules of issue 42 (a free-form container, `paused` of a rollout, gangs)."""

from __future__ import annotations

import json
import pathlib

import yaml
from conftest import ROOT, crd_document, run_cli, spec_and_status, unwrapped

from kartalint.cli import main
from kartalint.load.observed import ObservedInput, ObservedObject, read_observed
from kartalint.scaffold.observed_counts import Observation, choose_count
from kartalint.scaffold.ownership import match_pods
from kartalint.scaffold.provenance import places_of, provenance

DATA = pathlib.Path(ROOT) / "tests" / "data" / "from-objects"


def obj(kind, name, uid=None, owners=(), labels=None, namespace="ns", api="example.com/v1", **rest):
    meta = {"name": name, "namespace": namespace}
    if uid:
        meta["uid"] = uid
    if owners:
        meta["ownerReferences"] = [dict(zip(("kind", "name", "uid"), o, strict=False)) for o in owners]
    if labels:
        meta["labels"] = labels
    return ObservedObject(f"{name}.yaml", {"apiVersion": api, "kind": kind, "metadata": meta, **rest})


def pod(name, owners=(), labels=None, containers=(("main", "img:1"),), namespace="ns"):
    data = obj("Pod", name, owners=owners, labels=labels, namespace=namespace, api="v1")
    data.data["spec"] = {"containers": [{"name": n, "image": i} for n, i in containers]}
    return data


def test_pods_belong_through_owners_chains_absent_owners_and_labels():
    workloads = [obj("Trainer", "train", uid="w1"), obj("Trainer", "train-big", uid="w2")]
    job = obj("Job", "train-big-workers", uid="j1", owners=[("Trainer", "train-big", "w2")], api="batch/v1")
    observed = ObservedInput(
        pods=[
            pod("direct", owners=[("Trainer", "train", "w1")]),
            pod("chained", owners=[("Job", "train-big-workers", "j1")]),  # the Job is in the input
            pod("absent", owners=[("RoleInstance", "train-big-0-worker-0", "x")]),  # the longest name wins
            pod("labelled", labels={"app": "train"}),
            pod("stranger", owners=[("ReplicaSet", "web-5d8f", "r")]),
            pod("elsewhere", labels={"app": "train"}, namespace="other"),  # a label, but in another namespace
        ],
        others=[*workloads, job],
    )
    found = match_pods(observed, workloads)
    assert [p.name for p in found.pods_of(0)] == ["direct", "labelled"]
    assert [p.name for p in found.pods_of(1)] == ["chained", "absent"]
    assert found.how == {
        "direct.yaml": "owner",
        "chained.yaml": "owner chain",
        "absent.yaml": "owner name",
        "labelled.yaml": "label",
    }
    unmatched = {p.name: why for p, why in found.unmatched}
    assert set(unmatched) == {"stranger", "elsewhere"}  # listed, never guessed (another namespace too)
    assert "web-5d8f is not in the input" in unmatched["stranger"]


def test_a_pod_is_placed_where_its_containers_came_from_and_labels_break_ties():
    template = {"spec": {"containers": [{"name": "pytorch", "image": "torch:2"}]}}
    workload = {
        "apiVersion": "x/v1",
        "kind": "Wrapper",
        "metadata": {"name": "w"},
        "spec": {
            "items": [
                {
                    "name": "a",
                    "job": {
                        "spec": {"replicaSpecs": {"Master": {"template": template}, "Worker": {"template": template}}}
                    },
                },
                {"name": "b", "sidecar": {"image": "proxy:1", "name": "proxy"}},
            ]
        },
        "status": {"template": template},  # never a place: status is the operator's
    }
    places = places_of(workload)
    assert [(p.path, p.shape) for p in places] == [
        (("spec", "items", 0, "job", "spec", "replicaSpecs", "Master", "template"), "template"),
        (("spec", "items", 0, "job", "spec", "replicaSpecs", "Worker", "template"), "template"),
        (("spec", "items", 1, "sidecar"), "container"),
    ]
    pods = [
        pod("w-master-0", labels={"replica-type": "master"}, containers=(("pytorch", "torch:2"),)),
        pod("w-worker-3", labels={"replica-type": "worker"}, containers=(("pytorch", "torch:2"),)),
        pod("w-proxy", containers=(("proxy", "proxy:1"),)),
        pod("w-twin", containers=(("pytorch", "torch:2"),)),  # nothing tells Master from Worker
        pod("w-other", containers=(("db", "postgres:16"),)),
    ]
    found = provenance(workload, pods, places)
    assert {k: v.role_path for k, v in found.places.items()} == {
        "w-master-0.yaml": ("spec", "items", "[]", "job", "spec", "replicaSpecs", "Master", "template"),
        "w-worker-3.yaml": ("spec", "items", "[]", "job", "spec", "replicaSpecs", "Worker", "template"),
        "w-proxy.yaml": ("spec", "items", "[]", "sidecar"),
    }
    assert [p.name for p, _ in found.ambiguous] == ["w-twin"]
    assert [p.name for p in found.unexplained] == ["w-other"]


def test_the_count_is_the_product_that_fits_every_object_and_otherwise_a_todo():
    path = ("spec", "groups", "[]", "template")

    def seen(replicas, groups, pods):
        data = {"spec": {"replicas": replicas, "groups": groups}}
        return [Observation(data, i, n, f"o[{i}]") for i, n in enumerate(pods)]

    both = seen(2, [{"replicas": 3, "size": 2, "port": 80}, {"replicas": 1, "size": 4, "port": 80}], [12, 8])
    choice = choose_count(path, both, {}, leader_beside=False)
    assert [(f.level, f.key) for f in choice.factors] == [
        (("spec",), "replicas"),
        (("spec", "groups", "[]"), "replicas"),
        (("spec", "groups", "[]"), "size"),
    ]
    # a count that is 1 everywhere still multiplies (the most count fields that fit); port never does
    ones = seen(1, [{"replicas": 1, "size": 3, "port": 80}], [3])
    assert [f.key for f in choose_count(path, ones, {}, leader_beside=False).factors] == [
        "replicas",
        "replicas",
        "size",
    ]
    # workers beside a leader: size - 1 per group
    workers = seen(1, [{"replicas": 2, "size": 4}], [6])
    (minus,) = [f for f in choose_count(path, workers, {}, leader_beside=True).factors if f.minus_one]
    assert minus.key == "size"
    # an absent count the evidence reads as 0 (no pods without it)
    absent = seen(1, [{"size": 2}, {"size": 2, "replicas": 1}], [0, 2])
    factors = choose_count(path, absent, {}, leader_beside=False).factors
    assert {(f.key, f.default) for f in factors if f.level == ("spec", "groups", "[]")} == {
        ("replicas", 0),
        ("size", 1),
    }
    nothing = choose_count(path, seen(1, [{"size": 2}], [5]), {}, leader_beside=False)
    assert nothing.factors is None
    assert nothing.notes[0].startswith("TODO: no product of the counts on the way (.spec.replicas,")
    assert "gives the pods seen (5 on o[0])" in nothing.notes[0]


def test_bad_inputs_are_errors_naming_the_file(tmp_path):
    crd = str(DATA / "rbgs" / "crd.yaml")
    code, _, err = run_cli(["new", "--crd", crd, "--from", str(tmp_path / "missing.yaml")])
    assert code == 2 and "missing.yaml: no such file or directory" in err
    broken = tmp_path / "objects.yaml"
    broken.write_text("items: [\n  - {kind: Pod\n")
    code, _, err = run_cli(["new", "--crd", crd, "--from", str(broken)])
    assert code == 2 and f"{broken}:" in err and "Traceback" not in err
    code, _, err = run_cli(["new", "--crd", crd, "--from", str(DATA / "rbgs"), "--fixture", "x.yaml"])
    assert code == 2 and "--fixture" in err
    code, _, err = run_cli(["init", "--from", str(DATA / "rbgs"), "--root", str(tmp_path / "repo")])
    assert code == 2 and "--crd" in err


def test_objects_of_another_kind_only_leave_the_crd_draft(tmp_path, capsys):
    out = tmp_path / "draft.yaml"
    assert (
        main(["new", "--crd", str(DATA / "rbgs" / "crd.yaml"), "--from", str(DATA / "seldon-server"), "-o", str(out)])
        == 0
    )
    capsys.readouterr()
    text = unwrapped(out.read_text())
    assert (
        "# Drafted from 0 object(s) and 0 of their pod(s) (3 file(s)): none of this kind (TODO: the CRD alone)." in text
    )
    assert "role-leaderworker" in text  # the roles of the CRD alone


def test_init_writes_one_fixture_per_state_in_the_projects_folder(tmp_path):
    repo = tmp_path / "repo"
    code, out, err = run_cli(
        [
            "init",
            "--crd",
            str(DATA / "seldon-server" / "crd.yaml"),
            "--from",
            str(DATA / "seldon-server"),
            "--root",
            str(repo),
        ]
    )
    assert code == 0, err
    name = "mlops-seldon-io-server-v1alpha1"
    assert f"wrote {repo}/definitions/{name}/running.yaml" in out
    assert f"wrote {repo}/definitions/{name}/initializing.yaml" in out
    assert not (repo / "definitions" / name / "minimal.yaml").exists()  # the states seen replace the skeleton
    assert "evidence: 8 pods on 4 objects" in err
    code, out, _ = run_cli(["test"], cwd=repo)
    assert code == 0 and "2 passed" in out


def test_the_json_review_carries_the_evidence(tmp_path):
    code, out, _ = run_cli(
        [
            "new",
            "--crd",
            str(DATA / "kaito-workspace" / "crd.yaml"),
            "--from",
            str(DATA / "kaito-workspace"),
            "-f",
            "json",
        ]
    )
    assert code == 0
    review = json.loads(out)
    (draft,) = review["drafts"]
    assert review["schemaVersion"] == 1
    assert draft["roles"][0]["evidence"] == "3 pods on 2 objects" and draft["roles"][0]["confidence"] == "seen"
    assert any(
        note.startswith("inference: 3 pod(s) request what the draft reads per pod") for note in draft["evidence"]
    )


def _crd(spec_properties, status_properties=None, kind="Thing"):
    return crd_document(spec_and_status(spec_properties, status_properties), kind)


def _draft(tmp_path, document):
    path = tmp_path / "crd.yaml"
    path.write_text(yaml.safe_dump(document))
    code, _, err = run_cli(["new", "--crd", str(path), "-o", str(tmp_path / "draft.yaml")])
    assert code == 0, err
    text = unwrapped((tmp_path / "draft.yaml").read_text())
    return text, yaml.safe_load(text)


FREE = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}


def test_a_free_form_container_field_and_a_template_with_a_free_form_spec(tmp_path):
    _, data = _draft(
        tmp_path,
        _crd(
            {
                "engine": {
                    "type": "object",
                    "properties": {
                        "replicas": {"type": "integer", "default": 1},
                        "runner": {**FREE, "description": "Runner is the container that serves the model."},
                    },
                },
                "router": {"type": "object", "properties": {"container": FREE}},
                "worker": {
                    "type": "object",
                    "properties": {
                        "template": {"type": "object", "properties": {"metadata": {"type": "object"}, "spec": FREE}}
                    },
                },
            }
        ),
    )
    roles = {c["name"]: c for c in data["spec"]["structureDefinition"]["childComponents"]}
    assert roles["runner"]["specDefinition"] == {
        "fragmentedPodSpecDefinition": {"containerPath": ".spec.engine.runner"}
    }
    assert roles["runner"]["scaleDefinition"] == {"replicasPath": "(.spec.engine.replicas // 1)"}
    assert roles["container"]["specDefinition"] == {
        "fragmentedPodSpecDefinition": {"containerPath": ".spec.router.container"}
    }
    assert roles["worker"]["specDefinition"] == {"podTemplateSpecPath": ".spec.worker.template"}
    code, _, _ = run_cli(["test", str(tmp_path / "draft.fixture.yaml")])
    assert code == 0


def test_only_a_field_documented_to_stop_the_pods_is_a_suspend(tmp_path):
    pod_template = {
        "type": "object",
        "properties": {
            "metadata": {"type": "object"},
            "spec": {"type": "object", "properties": {"containers": {"type": "array", "items": FREE}}},
        },
    }
    text, data = _draft(
        tmp_path,
        _crd(
            {
                "replicas": {"type": "integer"},
                "paused": {"type": "boolean", "description": "Indicates that the rollout is paused."},
                "stopped": {
                    "type": "boolean",
                    "description": "Stopped deletes every pod of the service; set it back to start them.",
                },
                "template": pod_template,
            }
        ),
    )
    status = data["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]
    assert "TODO: .spec.stopped suspends the workload (the CRD has it)" in text
    assert ".spec.paused suspends" not in text
    assert "# TODO: .spec.paused is named like a suspend, but the CRD does not say it stops the pods" in text
    assert "suspended" in status["statusMappings"]


def test_a_gang_only_for_a_workload_that_ends_or_declares_a_minimum(tmp_path):
    pod_template = {
        "type": "object",
        "properties": {
            "metadata": {"type": "object"},
            "spec": {"type": "object", "properties": {"containers": {"type": "array", "items": FREE}}},
        },
    }
    role = {
        "type": "object",
        "required": ["name"],
        "properties": {"name": {"type": "string"}, "replicas": {"type": "integer"}, "template": pod_template},
    }
    roles = {"roles": {"type": "array", "items": role}}
    serving = _draft(tmp_path, _crd(roles, {"readyReplicas": {"type": "integer"}}))[1]
    assert serving["spec"]["optimizationInstructions"] == {}
    ending = _draft(tmp_path, _crd({**roles, "backoffLimit": {"type": "integer"}}))[1]
    assert ending["spec"]["optimizationInstructions"] == {"gangScheduling": {"podGroup": {"name": "thing"}}}
    minimum = _draft(tmp_path, _crd({**roles, "minAvailable": {"type": "integer"}}))[1]
    assert "gangScheduling" in minimum["spec"]["optimizationInstructions"]
    done = _draft(tmp_path, _crd(roles, {"phase": {"type": "string", "enum": ["Running", "Succeeded"]}}))[1]
    assert "gangScheduling" in done["spec"]["optimizationInstructions"]


def test_a_status_that_only_counts_gets_expressions(tmp_path):
    _, data = _draft(
        tmp_path, _crd({"replicas": {"type": "integer", "default": 2}}, {"readyReplicas": {"type": "integer"}})
    )
    mappings = data["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]["statusMappings"]
    assert mappings["running"] == [
        {
            "byExpression": {
                "expression": "(.spec.replicas // 2) > 0 and (.status.readyReplicas // 0) >= (.spec.replicas // 2)",
                "expectedResult": "true",
            }
        }
    ]
    assert mappings["initializing"][0]["byExpression"]["expression"].endswith(
        "(.status.readyReplicas // 0) < (.spec.replicas // 2)"
    )
    code, out, _ = run_cli(["new", "--crd", str(DATA / "kubeai" / "crd.yaml")])
    assert code == 0 and "(.status.replicas.ready // 0) >= (.status.replicas.all // 0)" in unwrapped(out)


def test_read_observed_keeps_each_object_once(tmp_path):
    pods = yaml.safe_load((DATA / "seldon-server" / "pods.yaml").read_text())
    (tmp_path / "a.json").write_text(json.dumps(pods))
    (tmp_path / "b.yaml").write_text((DATA / "seldon-server" / "pods.yaml").read_text())
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "c.yaml").write_text("kind: Pod\napiVersion: v1\nmetadata: {name: hidden}\n")
    observed = read_observed([str(tmp_path)])
    assert len(observed.files) == 2 and not observed.problems
    assert len(observed.pods) == len(pods["items"])
