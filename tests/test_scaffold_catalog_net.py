"""A regression net for drafting from real objects (`new --crd --from`): the CRD of every catalog type
drafted from the recorded and fixture objects of that type and their pods gives the catalog's roles,
replicas and statuses on every object.

The recordings and fixtures hold no pods, so the pods are made from the catalog's own view of each
object, as its operator would: per instance of every pod role, as many pods as its desired replicas,
with the instance's containers, the labels of its template and those the catalog's selectors read
(the operator's own), owned by the object; Running and ready where the catalog reads the object as
Running, Succeeded where Completed, Failed where Failed, Pending where Initializing. Objects the
catalog reads as several statuses, or as one the pods cannot show, are left out. The draft never
sees the catalog: only the CRD, the objects and the pods.

Kinds it cannot match, and why, are listed in ``SHORT`` with the counts they reach (a floor: the
net still holds them there); every other kind must match on every object.
"""

from __future__ import annotations

import copy
import glob
import os
import re

import pytest
from conftest import HAVE_SHARED_REFERENCE, REFERENCE, ROOT
from test_scaffold import _objects_by_source

from kartalint.evaluation import Evaluator
from kartalint.load.crds import CrdIndex
from kartalint.load.definitions import DefinitionIndex, object_gvk
from kartalint.load.observed import ObservedInput, ObservedObject
from kartalint.scaffold.observed_draft import draft_from_objects

CRD_FILES = sorted(glob.glob(os.path.join(REFERENCE, "crds", "*.yaml"))) + sorted(
    glob.glob(os.path.join(ROOT, "tests", "data", "operator-crds", "*.yaml"))
)
# kind -> (objects whose roles match, objects whose statuses match, why not all), measured with
# ../shared/reference (the recordings); without it only the other kinds are held to every object
SHORT = {
    "LeaderWorkerSet": (
        21,
        23,
        "the pods made here cannot carry LWS's worker-index beyond the leader's 0 (the catalog "
        "selects workers by an expression): leader and workers of a group are one place",
    ),
    "TrainJob": (
        1,
        6,
        "its pods come from the referenced runtime, not the object: no place of it holds their containers",
    ),
    "NIMCache": (7, 4, "the catalog models no pod (the caching Job is not a component): no pod to learn a status from"),
    "NIMService": (
        0,
        13,
        "the image is a repository and a tag, not a container's image: no place of the object holds it",
    ),
    "Milvus": (
        0,
        11,
        "the operator builds every pod from one image setting and the mode: the object holds no pod template",
    ),
    "Service": (
        64,
        67,
        "Knative's scale is an annotation string (autoscaling.knative.dev/min-scale): no integer explains it",
    ),
    "SparkApplication": (
        12,
        16,
        "the driver and executor pods are built by spark-submit from fields; executor counts "
        "of dynamic allocation are not in the object",
    ),
    "Job.batch.volcano.sh": (8, 9, "a task without replicas reads as 1 (no running object shows it at 0)"),
}

_LABEL = re.compile(r'^\.metadata\.labels\["([^"]+)"\]$|^\.metadata\.labels\.([A-Za-z_][A-Za-z0-9_]*)$')
_POD_STATE = {
    "Running": ("Running", True),
    "Completed": ("Succeeded", False),
    "Failed": ("Failed", False),
    "Initializing": ("Pending", False),
}


def _label(path):
    found = _LABEL.match(path.strip()) if isinstance(path, str) else None
    return (found.group(1) or found.group(2)) if found else None


def made_pods(definition, obj, view, uid):
    """The pods of ``obj`` as its operator makes them, from the catalog's view (see the module's
    docstring); None when the catalog's statuses are not one the pods can show."""
    if len(view.statuses) != 1 or view.statuses[0] not in _POD_STATE:
        return None
    phase, ready = _POD_STATE[view.statuses[0]]
    structure = definition["spec"]["structureDefinition"]
    declared = {c["name"]: c for c in [structure["rootComponent"], *structure.get("childComponents", [])]}
    pods = []
    for component in view.components:
        if not component.has_pod_definition:
            continue
        selector = declared[component.name].get("podSelector") or {}
        of_type = selector.get("componentTypeSelector") or {}
        of_instance = _label((selector.get("componentInstanceSelector") or {}).get("idPath"))
        for instance in component.instances:
            spec = instance.effective_pod_spec
            if spec is None and instance.fragments:
                spec = {
                    "containers": [
                        {
                            "name": component.name,
                            "image": instance.fragments.get("image") or "registry.example.com/x:1",
                            "resources": instance.fragments.get("resources") or {},
                        }
                    ]
                }
            if not spec or not isinstance(spec.get("containers"), list):
                continue
            meta = (instance.pod_template or {}).get("metadata") or instance.metadata or {}
            for n in range(instance.desired or 0):
                labels = dict(meta.get("labels") or {})
                key = _label(of_type.get("keyPath"))
                if key:
                    labels[key] = of_type.get("value", labels.get(key, component.name))
                labels.update(of_type.get("matchLabels") or {})
                if of_instance and instance.id is not None:
                    labels[of_instance] = instance.id
                name = obj["metadata"].get("name", "x")
                pods.append(
                    {
                        "apiVersion": "v1",
                        "kind": "Pod",
                        "metadata": {
                            "name": f"{name}-{component.name}-{instance.id or 0}-{n}",
                            "namespace": obj["metadata"].get("namespace", "default"),
                            "labels": labels,
                            "ownerReferences": [{"kind": obj["kind"], "name": name, "uid": uid}],
                        },
                        "spec": copy.deepcopy(spec),
                        "status": {"phase": phase, "conditions": [{"type": "Ready", "status": str(ready)}]},
                    }
                )
    return pods


def _desired(view):
    """The replicas of every pod-bearing instance that has any (a role no pod shows is not in a draft)."""
    return sorted(i.desired for c in view.components if c.has_pod_definition for i in c.instances if i.desired)


@pytest.mark.parametrize("path", CRD_FILES, ids=os.path.basename)
def test_drafted_from_the_objects_and_their_pods_the_catalog_reads_them_alike(path):
    catalog = DefinitionIndex.from_paths([os.path.join(ROOT, "catalog")])
    (version,) = [v for v in CrdIndex.from_paths([path]).versions.values() if v.storage]
    reference = catalog.find(version.gvk)
    assert reference is not None
    objects = [obj for source in _objects_by_source() for obj in source if object_gvk(obj) == version.gvk]
    observed, seen = ObservedInput(), []
    with Evaluator() as evaluator:
        for n, original in enumerate(objects):
            obj = copy.deepcopy(original)
            obj.setdefault("metadata", {})["uid"] = f"uid-{n}"  # frames of one recording: one object each
            view = evaluator.evaluate(reference.data, obj)
            pods = made_pods(reference.data, obj, view, f"uid-{n}")
            if pods is None:
                continue
            observed.others.append(ObservedObject(f"object {n}", obj))
            observed.pods.extend(ObservedObject(f"object {n} pod {i}", p) for i, p in enumerate(pods))
            seen.append((obj, view))
        if not seen:
            pytest.skip(f"no object of {version.kind} the pods can show")
        draft = draft_from_objects(version, observed, evaluator)
        drafted = evaluator.evaluate_many(draft.data, [obj for obj, _ in seen])
    roles = [_desired(mine) == _desired(theirs) for mine, (_, theirs) in zip(drafted, seen, strict=True)]
    statuses = [mine.statuses == theirs.statuses for mine, (_, theirs) in zip(drafted, seen, strict=True)]
    key = version.kind if version.kind != "Job" or version.group == "" else f"Job.{version.group}"
    if key in SHORT and HAVE_SHARED_REFERENCE:
        least_roles, least_statuses, why = SHORT[key]
        assert (sum(roles), sum(statuses)) >= (least_roles, least_statuses), why
        assert (sum(roles), sum(statuses)) == (least_roles, least_statuses), f"better than listed: update SHORT ({why})"
    elif key not in SHORT:
        wrong = [
            (obj["metadata"].get("name"), _desired(mine), _desired(theirs), mine.statuses, theirs.statuses)
            for mine, (obj, theirs), r, s in zip(drafted, seen, roles, statuses, strict=True)
            if not (r and s)
        ]
        assert not wrong, wrong
