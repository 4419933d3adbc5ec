"""The pod selectors of roles drafted from real pods (`new --crd --from`): the label whose values
tell the roles apart (``componentTypeSelector``) and the one whose value is the instance's id
(``componentInstanceSelector``), chosen from the labels the operator put on the pods.

A type label must be on every pod of every role, with one value per role and a different value
for each role; a lone role takes a label that every pod of it has with one value. Labels that
identify a single pod or a revision (``pod-template-hash``, ``controller-revision-hash``,
``statefulset.kubernetes.io/pod-name``, an index) are the last resort: a selector on them breaks
at the next rollout. None that fits: the selector stays a TODO.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from kartalint.load.observed import ObservedObject

_UNSTABLE = re.compile(r"(?i)hash|revision|pod-name|pod-index|uid|index|generation|job-completion")


@dataclass(frozen=True)
class TypeSelector:
    key: str
    values: dict[str, str]  # role -> value


def label_path(key: str) -> str:
    """``.metadata.labels["key"]`` (a jq string: JSON's escapes)."""
    return f".metadata.labels[{json.dumps(key)}]"


def _ranked(keys: set[str], preferred: list[str]) -> list[str]:
    return sorted(keys, key=lambda k: (bool(_UNSTABLE.search(k)), k not in preferred, len(k), k))


def type_selector(pods_by_role: dict[str, list[ObservedObject]]) -> TypeSelector | None:
    """The label that separates the roles (every pod has it, one value per role, all different)."""
    roles = [r for r, pods in pods_by_role.items() if pods]
    if not roles:
        return None
    common: set[str] | None = None
    for role in roles:
        for pod in pods_by_role[role]:
            common = set(pod.labels) if common is None else common & set(pod.labels)
    fitting = []
    for key in common or set():
        values = {}
        for role in roles:
            seen = {pod.labels[key] for pod in pods_by_role[role]}
            if len(seen) != 1:
                break
            values[role] = seen.pop()
        else:
            if len(set(values.values())) == len(roles):
                fitting.append((key, values))
    if not fitting:
        return None
    named = [k for k, v in fitting if all(_names(role, value) for role, value in v.items())]
    key = _ranked({k for k, _ in fitting}, named)[0]
    return TypeSelector(key, dict(dict(fitting)[key]))


def _names(role: str, value: str) -> bool:
    return role.split("-")[0] in value.lower() or value.lower() in role


def instance_selector(pods_by_instance: dict[str, list[ObservedObject]]) -> str | None:
    """The label whose value is the pod's instance id on every pod (None when none is)."""
    pods = [(instance, pod) for instance, group in pods_by_instance.items() for pod in group]
    if not pods:
        return None
    keys = set.intersection(*(set(pod.labels) for _, pod in pods))
    fitting = {k for k in keys if all(pod.labels[k] == instance for instance, pod in pods)}
    return _ranked(fitting, [])[0] if fitting else None
