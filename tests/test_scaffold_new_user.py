"""Drafting tried as a new user would (issue 42's Done when) on two operators the catalog lacks,
RoleBasedGroupSet and AppWrapper (tests/data/from-objects): for every object given, four checks
(roles: the replicas of every pod role and instance; replicas: the pods in all; statuses; GPUs)
against what the operator's controller does with the object (the truth below, written from its
source as the data's headers cite), for the draft from the objects and pods and for the draft from
the CRD alone. The first must be right on every check, the second on at least half; `lint --strict`
names every placeholder either leaves."""

from __future__ import annotations

import pathlib

import pytest
import yaml
from conftest import ROOT, run_cli

from kartalint.evaluation import Evaluator

DATA = pathlib.Path(ROOT) / "tests" / "data" / "from-objects"


def _gpus(template):
    return sum(
        int((c.get("resources") or {}).get("requests", {}).get("nvidia.com/gpu", 0))
        for c in template["spec"]["containers"]
    )


def rbgs_truth(obj):
    """(pods of every role entry, GPUs in all, status): a set runs replicas x role replicas x size
    pods per role (the RBG controller); Ready while every group is ready, else initializing."""
    pods, gpus = [], 0
    for role in obj["spec"]["groupTemplate"]["spec"]["roles"]:
        lwp = role["leaderWorkerPattern"]
        count = obj["spec"]["replicas"] * role["replicas"] * lwp["size"]
        pods.append(count)
        gpus += count * _gpus(lwp["template"])
    status = obj.get("status") or {}
    ready = status.get("readyReplicas", 0) >= obj["spec"]["replicas"] and status.get("replicas")
    return sorted(pods), gpus, "Running" if ready else "Initializing"


def appwrapper_truth(obj):
    """Each wrapped PyTorchJob runs its Master and Worker replicas, each Job its parallelism; the
    phase the AppWrapper controller writes is the status."""
    pods, gpus = [], 0
    for component in obj["spec"]["components"]:
        wrapped = component["template"]
        if wrapped["kind"] == "PyTorchJob":
            for spec in wrapped["spec"]["pytorchReplicaSpecs"].values():
                pods.append(spec["replicas"])
                gpus += spec["replicas"] * _gpus(spec["template"])
        else:
            pods.append(wrapped["spec"]["parallelism"])
            gpus += wrapped["spec"]["parallelism"] * _gpus(wrapped["spec"]["template"])
    phase = obj["status"]["phase"]
    return sorted(pods), gpus, {"Succeeded": "Completed"}.get(phase, phase)


OPERATORS = {"rbgs": rbgs_truth, "appwrapper": appwrapper_truth}


def checks(definition, operator):
    """How many of the four checks per object the definition passes, and how many there are."""
    objects = yaml.safe_load((DATA / operator / "objects.yaml").read_text())["items"]
    with Evaluator() as evaluator:
        views = evaluator.evaluate_many(definition, objects)
    passed = 0
    for obj, view in zip(objects, views, strict=True):
        pods, gpus, status = OPERATORS[operator](obj)
        instances = sorted(i.desired for c in view.components if c.has_pod_definition for i in c.instances if i.desired)
        passed += instances == pods  # roles: every pod role and instance, with its replicas
        passed += sum(instances) == sum(pods)  # replicas: the pods in all
        passed += view.statuses == [status]
        passed += view.resources.gpus == gpus
    return passed, 4 * len(objects)


def _lint_names_every_placeholder(path):
    code, out, _ = run_cli(["lint", "--strict", str(path)])
    assert code == 1
    flagged = {int(line.split(":")[1]) for line in out.splitlines() if " draft-placeholder " in line}
    placeholders = {
        n
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if "TODO" in line and not line.lstrip().startswith("#")
    }
    assert placeholders <= flagged, sorted(placeholders - flagged)
    assert 1 in flagged  # the draft header
    return len(placeholders)


@pytest.mark.parametrize("operator", sorted(OPERATORS))
def test_a_new_user_drafts_from_objects_right_and_from_the_crd_half_right(operator, tmp_path, capsys):
    crd = DATA / operator / "crd.yaml"
    from_objects, from_crd = tmp_path / "from-objects.yaml", tmp_path / "from-crd.yaml"
    assert run_cli(["new", "--crd", str(crd), "--from", str(DATA / operator), "-o", str(from_objects)])[0] == 0
    assert run_cli(["new", "--crd", str(crd), "-o", str(from_crd)])[0] == 0
    right, total = checks(yaml.safe_load(from_objects.read_text()), operator)
    crd_right, _ = checks(yaml.safe_load(from_crd.read_text()), operator)
    left = _lint_names_every_placeholder(from_objects), _lint_names_every_placeholder(from_crd)
    with capsys.disabled():  # the counts the issue asks to report (visible with -s)
        print(f"\n{operator}: from objects {right}/{total}, from the CRD {crd_right}/{total}, placeholders left {left}")
    assert right == total
    assert crd_right * 2 >= total
