"""The pod selectors of roles drafted from real pods (`new --crd --from`): for each role the label
that tells its pods from the other roles' (``componentTypeSelector``), and the one whose value is
the instance's id (``componentInstanceSelector``), chosen from the labels the operator put on the
pods.

One label for all roles is preferred: on every pod of every role, one value per role, a different
value for each (PyTorchJob's ``replica-type``). Else each role gets a label of its own that every
pod of it has with one value and no pod of another role has with that value (or at all: a wrapped
Job's pods have ``batch.kubernetes.io/job-name``, a PyTorchJob's do not). Labels that identify one
pod or a revision (``pod-template-hash``, ``controller-revision-hash``, an index) come last: a
selector on them breaks at the next rollout. A label whose value is the name of a workload observed
(an AppWrapper's ``workload.codeflare.dev/appwrapper: NAME`` on every pod it wraps) names an object,
not a role: a selector on it would find the pods of that one object, so it is never chosen. None
that fits: the selector stays a TODO.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from kartalint.load.observed import ObservedObject

_UNSTABLE = re.compile(r"(?i)hash|revision|pod-name|pod-index|uid|index|generation|job-completion|(^|/)id$|-id$")


@dataclass(frozen=True)
class TypeSelector:
    """How a role's pods are told apart: a label key, and its value (None: the key's presence)."""

    key: str
    value: str | None


def label_path(key: str) -> str:
    """``.metadata.labels["key"]`` (a jq string: JSON's escapes)."""
    return f".metadata.labels[{json.dumps(key)}]"


def _rank(key: str, named: bool = False) -> tuple[bool, bool, bool, int, str]:
    """Stable labels first, then one whose value names the role, then the operator's own (a
    prefixed key: ``batch.kubernetes.io/job-name`` before ``job-name``), then the shortest."""
    return (bool(_UNSTABLE.search(key)), not named, "/" not in key, len(key), key)


def _constant(pods: list[ObservedObject], key: str, names: frozenset[str] = frozenset()) -> str | None:
    """The one value of ``key`` on every pod of ``pods`` (None: several, missing, or the name of a
    workload, ``names``)."""
    values = {pod.labels.get(key) for pod in pods}
    value = values.pop() if len(values) == 1 and None not in values else None
    return None if value in names else value


def _shared(pods_by_role: dict[str, list[ObservedObject]], names: frozenset[str]) -> dict[str, TypeSelector] | None:
    """One label for every role: on every pod, one value per role, all different."""
    roles = list(pods_by_role)
    common = set.intersection(*(set(pod.labels) for pods in pods_by_role.values() for pod in pods))
    fitting: list[tuple[str, dict[str, str]]] = []
    for key in common:
        values = {role: _constant(pods_by_role[role], key, names) for role in roles}
        if None not in values.values() and len(set(values.values())) == len(roles):
            fitting.append((key, {r: v for r, v in values.items() if v is not None}))
    if not fitting:
        return None
    key, chosen = min(fitting, key=lambda kv: _rank(kv[0], all(_names(r, v) for r, v in kv[1].items())))
    return {role: TypeSelector(key, value) for role, value in chosen.items()}


def _own(
    role: str, pods_by_role: dict[str, list[ObservedObject]], names: frozenset[str]
) -> list[tuple[tuple[bool, bool, bool, int, str], TypeSelector]]:
    """The labels of ``role``'s own: every pod of it has one (with one value) that no other role's
    pod has with that value (or at all), ranked."""
    mine = pods_by_role[role]
    others = [pod for other, pods in pods_by_role.items() if other != role for pod in pods]
    keys = set.intersection(*(set(pod.labels) for pod in mine))
    options: list[tuple[tuple[bool, bool, bool, int, str], TypeSelector]] = []
    for key in keys:
        value = _constant(mine, key, names)
        if value is not None and not any(pod.labels.get(key) == value for pod in others):
            options.append((_rank(key, _names(role, value)), TypeSelector(key, value)))
        elif not any(key in pod.labels for pod in others):
            options.append(((*_rank(key)[:4], "~" + key), TypeSelector(key, None)))
    return options


def type_selectors(
    pods_by_role: dict[str, list[ObservedObject]], workload_names: frozenset[str] = frozenset()
) -> dict[str, TypeSelector]:
    """The type selector of each role that has pods (see the module's docstring; ``workload_names``:
    the names of the workloads observed); a role no label tells apart is left out."""
    seen = {role: pods for role, pods in pods_by_role.items() if pods}
    if not seen:
        return {}
    shared = _shared(seen, workload_names)
    if shared is not None:
        return shared
    options = {role: _own(role, seen, workload_names) for role in seen}
    used: dict[str, int] = {}  # a key several roles can use is preferred (replica-type for master and worker)
    for listed in options.values():
        for key in {option.key for _, option in listed}:
            used[key] = used.get(key, 0) + 1
    out = {}
    for role, listed in options.items():
        if listed:
            out[role] = min(listed, key=lambda o: (o[0][0], -used[o[1].key], *o[0][1:]))[1]
    return out


def _names(role: str, value: str) -> bool:
    return role.split("-")[0] in value.lower() or value.lower() in role


def instance_selector(pods_by_instance: dict[str, list[ObservedObject]]) -> str | None:
    """The label whose value is the pod's instance id on every pod (None when none is)."""
    pods = [(instance, pod) for instance, group in pods_by_instance.items() for pod in group]
    if not pods:
        return None
    keys = set.intersection(*(set(pod.labels) for _, pod in pods))
    fitting = [k for k in keys if all(pod.labels[k] == instance for instance, pod in pods)]
    return min(fitting, key=_rank) if fitting else None
