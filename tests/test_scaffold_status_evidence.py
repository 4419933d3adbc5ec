"""Statuses drafted with the pods as evidence (`new --crd --from`) where no one phase value or
condition tells them apart: counts kept per entry of a list (JobSet's ``replicatedJobsStatus``),
nothing counted yet, no phase yet, and two parts of one matcher (RayJob), on the recorded frames of
real operators (``real-data`` of the reference: the same object over time, each frame drafted as an
object of its own) with the pods the operator had made by then, labelled and owned as it makes them
(JobSet: pods of a Job named ``<jobset>-<replicatedJob>-<index>``, labels ``JobSetNameKey`` and
``ReplicatedJobNameKey`` of kubernetes-sigs/jobset api/jobset/v1alpha2/jobset_types.go; KubeRay:
pods owned by their RayCluster, labels ``RayClusterLabelKey`` and ``RayNodeTypeLabelKey`` of
ray-project/kuberay ray-operator/controllers/ray/utils/constant.go)"""

from __future__ import annotations

import copy
import glob
import os

import pytest
import yaml
from conftest import HAVE_SHARED_REFERENCE, REFERENCE, ROOT, unwrapped

from kartalint.evaluation import Evaluator
from kartalint.load.crds import CrdIndex
from kartalint.load.observed import ObservedInput, ObservedObject
from kartalint.scaffold.observed_draft import draft_from_objects
from kartalint.testing.recording import state_events

SHARED_ONLY = pytest.mark.skipif(not HAVE_SHARED_REFERENCE, reason="the KubeRay CRDs and recordings are in ../shared")
_KARTA = {"Succeeded": "Completed", "Failed": "Failed", "Running": "Running", "Pending": "Initializing"}
_STARTED = {True: ("Running", True), False: ("Pending", False)}  # a pod ready, or not started yet


def recorded_frames(folder):
    """Every recorded frame of ``real-data/*/*/<folder>``, renamed ``<name>-<recording>-<n>`` with a
    uid of its own (one object per frame)."""
    frames = []
    for path in sorted(glob.glob(os.path.join(REFERENCE, "real-data", "*", "*", folder, "*.yaml"))):
        with open(path, encoding="utf-8") as handle:
            recording = yaml.load(handle, Loader=yaml.CSafeLoader)
        stem = os.path.splitext(os.path.basename(path))[0]
        for n, event in enumerate(state_events(recording)):
            obj = copy.deepcopy(event.object)
            obj["metadata"]["name"] = f"{obj['metadata']['name']}-{stem}-{n}"
            obj["metadata"]["uid"] = f"{folder}-{stem}-{n}"
            frames.append(obj)
    return frames


def made_pods(obj, template, count, phase, ready, owner, labels):
    """``count`` pods of ``template`` (a PodTemplateSpec of ``obj``) in ``phase``, owned by ``owner``
    (kind, name, uid) and labelled as their operator labels them."""
    return [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": f"{owner[1]}-{n}",
                "namespace": obj["metadata"].get("namespace", "default"),
                "labels": {**(template.get("metadata") or {}).get("labels", {}), **labels},
                "ownerReferences": [dict(zip(("kind", "name", "uid"), owner, strict=True))],
            },
            "spec": copy.deepcopy(template["spec"]),
            "status": {"phase": phase, "conditions": [{"type": "Ready", "status": str(ready)}]},
        }
        for n in range(count)
    ]


def drafted(crd, frames, pods):
    """The draft of ``crd`` from the frames and their pods, and its statuses on every frame."""
    (version,) = [v for v in CrdIndex.from_paths([os.path.join(REFERENCE, "crds", crd)]).versions.values() if v.storage]
    observed = ObservedInput()
    observed.others.extend(ObservedObject(f"frame {n}", f) for n, f in enumerate(frames))
    observed.pods.extend(ObservedObject(f"pod {n}", p) for n, p in enumerate(pods))
    with Evaluator() as evaluator:
        draft = draft_from_objects(version, observed, evaluator)
        statuses = [v.statuses for v in evaluator.evaluate_many(draft.data, frames)]
    return draft, draft.data["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"], statuses


# -- JobSet: no phase until the end, no condition until then; what runs is counted per replicated Job


def _jobset_pods(frame):
    """The pods a recorded JobSet frame had, from what the controller counted of its Jobs: none while
    suspended, Succeeded or Failed once terminal, Running and ready where a Job is ready, Running
    where one is active, else Pending (created, not yet counted); with what they say of it."""
    status = frame.get("status") or {}
    conditions = {c["type"]: c["status"] for c in status.get("conditions") or []}
    sums = {k: sum(j.get(k, 0) for j in status.get("replicatedJobsStatus") or []) for k in ("ready", "active")}
    if conditions.get("Suspended") == "True":
        return [], ["Suspended"]
    terminal = status.get("terminalState")
    phase, ready = (
        ("Succeeded", False)
        if terminal == "Completed"
        else ("Failed", False)
        if terminal == "Failed"
        else ("Running", True)
        if sums["ready"]
        else ("Running", False)
        if sums["active"]
        else ("Pending", False)
    )
    name = frame["metadata"]["name"]
    pods = []
    for job in frame["spec"]["replicatedJobs"]:
        template = job["template"]["spec"]["template"]
        labels = {"jobset.sigs.k8s.io/jobset-name": name, "jobset.sigs.k8s.io/replicatedjob-name": job["name"]}
        owner = ("Job", f"{name}-{job['name']}-0", f"job-{name}-{job['name']}")
        pods += made_pods(frame, template, job["template"]["spec"].get("parallelism", 1), phase, ready, owner, labels)
    said = "Running" if ready else "Initializing" if phase == "Running" else _KARTA[phase]
    return pods, [said]


def _jobset_frames(keep):
    frames = [f for f in recorded_frames("jobset-x-k8s-io-jobset-v1alpha2") if f.get("status") and keep(f)]
    made = [_jobset_pods(f) for f in frames]
    return frames, [p for pods, _ in made for p in pods], [said for _, said in made]


def _suspended(frame):
    return any(c["type"] == "Suspended" and c["status"] == "True" for c in frame["status"].get("conditions") or [])


def test_a_jobset_is_read_from_the_counts_of_its_replicated_jobs():
    frames, pods, said = _jobset_frames(lambda f: not _suspended(f))
    assert {s for (s,) in said} == {"Running", "Initializing", "Completed", "Failed"}
    draft, status, statuses = drafted("jobset.x-k8s.io_jobsets.yaml", frames, pods)
    assert statuses == said
    mappings = status["statusMappings"]
    # running: a Job is ready (the counts of the list's entries added up)
    ready = "([.status.replicatedJobsStatus[]? | .ready // 0] | add // 0)"
    assert mappings["running"] == [{"byExpression": {"expression": f"{ready} > 0", "expectedResult": "true"}}]
    # initializing: nothing counted yet (every entry's counts 0); resumed (Suspended=False, a Job
    # still counted suspended); else no phase yet and no Job ready (a Job active, its pods not
    # ready): the completed and failed frames have a phase, the running ones a Job ready
    assert mappings["initializing"] == [
        {
            "byExpression": {
                "expression": "([.status.replicatedJobsStatus[]? | .active, .failed, .ready, .succeeded, .suspended "
                "| numbers] | all(. == 0))",
                "expectedResult": "true",
            }
        },
        {"byConditions": [{"type": "Suspended", "status": "False"}]},
        {
            "byExpression": {
                "expression": f'((.status.terminalState // "") == "") and ({ready} == 0)',
                "expectedResult": "true",
            }
        },
    ]
    assert not draft.todo and "TODO" not in "".join(draft.notes)
    assert "# nothing counted yet (every count of the status is 0): seen on 5 objects" in unwrapped(draft.text)
    assert "# no phase yet and .status.replicatedJobsStatus[].ready at 0: seen on 5 objects" in unwrapped(draft.text)


def test_a_suspended_jobset_and_one_resumed_that_its_status_still_says_suspended():
    def agrees(frame):
        return _suspended(frame) == bool(frame["spec"].get("suspend"))

    frames, pods, said = _jobset_frames(agrees)
    assert ["Suspended"] in said
    draft, status, statuses = drafted("jobset.x-k8s.io_jobsets.yaml", frames, pods)
    assert statuses == said and not draft.todo
    assert status["statusMappings"]["suspended"] == [{"byConditions": [{"type": "Suspended", "status": "True"}]}]
    # resumed (spec.suspend false), no pod yet, the status still Suspended=True: its pods say starting,
    # its status what the suspended frames say; nothing tells them apart, so it is a TODO, not a guess
    frames, pods, _ = _jobset_frames(lambda f: True)
    (torn,) = [f["metadata"]["name"] for f in frames if not agrees(f)]
    draft, status, _ = drafted("jobset.x-k8s.io_jobsets.yaml", frames, pods)
    assert any(line.startswith("Status: TODO: initializing: seen on") and torn in line for line in draft.todo)


# -- RayCluster: no .status.state until the head is ready; RayJob: two strings, neither alone telling


def _head_pod(frame, template, cluster, phase, ready):
    labels = {"ray.io/cluster": cluster, "ray.io/node-type": "head"}
    return made_pods(frame, template, 1, phase, ready, ("RayCluster", cluster, f"rc-{cluster}"), labels)


@SHARED_ONLY
def test_a_raycluster_without_a_state_yet_is_starting():
    # the recording of a cluster started and never suspended (resumed ones keep state suspended while
    # they start again: their HeadPodReady=False is what tells them)
    frames = [
        f for f in recorded_frames("ray-io-raycluster-v1") if f.get("status") and "-running-" in f["metadata"]["name"]
    ]
    ready = [f["status"].get("state") == "ready" for f in frames]
    pods = [
        p
        for f, r in zip(frames, ready, strict=True)
        for p in _head_pod(f, f["spec"]["headGroupSpec"]["template"], f["metadata"]["name"], *_STARTED[r])
    ]
    assert not all(ready) and any(ready)
    _, status, statuses = drafted("ray.io_rayclusters.yaml", frames, pods)
    assert status["phaseDefinition"] == {"path": ".status.state"}
    # no state yet and HeadPodReady=False hold on the same frames: the phase is the simpler
    assert status["statusMappings"]["initializing"] == [
        {"byExpression": {"expression": '(.status.state // "") == ""', "expectedResult": "true"}}
    ]
    assert status["statusMappings"]["running"] == [{"byPhase": "ready"}]
    assert statuses == [["Running"] if r else ["Initializing"] for r in ready]


@SHARED_ONLY
def test_a_rayjob_running_is_its_job_running_and_its_deployment_running():
    frames, pods, said = [], [], []
    # the recorded frames, and a job past its deadline: jobStatus still RUNNING, jobDeploymentStatus
    # Failed (the project's fixture, written from KubeRay's rayjob_controller.go)
    with open(os.path.join(ROOT, "fixtures", "ray-io-rayjob-v1", "deadline-exceeded.yaml"), encoding="utf-8") as handle:
        deadline = yaml.safe_load(handle)["object"]
    deadline["metadata"].update(name="karta-e2e-rayjob-deadline", uid="rayjob-deadline")
    for frame in [*recorded_frames("ray-io-rayjob-v1"), deadline]:
        status = frame.get("status") or {}
        job, deployment = status.get("jobStatus"), status.get("jobDeploymentStatus")
        if not status or deployment in ("Suspending", "Suspended") or frame["spec"].get("suspend"):
            continue
        head = {c["type"]: c["status"] for c in (status.get("rayClusterStatus") or {}).get("conditions") or []}
        # the pod stands for the job (as in test_scaffold_catalog_net): Succeeded or Failed once the job
        # ends, else Running, ready once the head is (HeadPodReady)
        phase = {"SUCCEEDED": "Succeeded", "STOPPED": "Succeeded", "FAILED": "Failed"}.get(job, "Running")
        phase = "Failed" if deployment == "Failed" else phase
        ready = phase == "Running" and head.get("HeadPodReady") == "True"
        template = frame["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]
        frames.append(frame)
        pods += _head_pod(frame, template, f"{frame['metadata']['name']}-x7k2p", phase, ready)  # its RayCluster's
        said.append(["Running" if ready else "Initializing" if phase == "Running" else _KARTA[phase]])
    assert any(
        f["status"].get("reason") == "DeadlineExceeded" and f["status"]["jobStatus"] == "RUNNING" for f in frames
    )
    draft, status, statuses = drafted("ray.io_rayjobs.yaml", frames, pods)
    # PENDING: the job waits, but the head pod is ready, and the pods are the evidence (the catalog
    # reads it Initializing); RUNNING is also the job past its deadline: with the deployment Running
    assert status["statusMappings"]["running"] == [
        {"byPhase": "PENDING"},
        {
            "byPhase": "RUNNING",
            "byExpression": {
                "expression": '(.status.jobDeploymentStatus // "") == "Running"',
                "expectedResult": "true",
            },
        },
    ]
    assert "# RUNNING and .status.jobDeploymentStatus is Running: seen on" in unwrapped(draft.text)
    assert statuses == said
