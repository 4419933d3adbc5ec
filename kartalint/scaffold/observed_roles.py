"""The roles that the observed pods show (`new --crd --from`): the pods of every workload matched to
it (``ownership``), each pod placed in its object (``provenance``), the places grouped by their
path with list indices generalised. A role inside a list has one instance per entry that holds it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from kartalint.load.observed import ObservedInput, ObservedObject, value_at
from kartalint.scaffold.crd_schema import GENERIC_KEYS, Role
from kartalint.scaffold.observed_status import pod_state
from kartalint.scaffold.ownership import Ownership, match_pods
from kartalint.scaffold.provenance import Place, places_of, provenance

SHAPES = {"template": "template", "podspec": "podspec", "container": "container"}


@dataclass
class ObservedRole:
    """A role the pods show: its ``Role`` (generalised path, shape), and its pods by workload and
    entry (``None`` outside a list)."""

    role: Role
    pods: dict[int, dict[int | None, list[ObservedObject]]] = field(default_factory=dict)
    entries: dict[int, list[int]] = field(default_factory=dict)  # workload -> entries of the list that hold it

    @property
    def iterated(self) -> bool:
        """Whether the role's pods are in a list (one instance per entry)."""
        return "[]" in self.role.path

    @property
    def list_at(self) -> int:
        """Where in the role's path its list is."""
        return self.role.path.index("[]")

    def all_pods(self) -> list[ObservedObject]:
        """Every pod of the role, of every workload and entry."""
        return [pod for by_entry in self.pods.values() for group in by_entry.values() for pod in group]

    @property
    def evidence(self) -> str:
        """The evidence in words: how many pods on how many objects."""
        pods = len(self.all_pods())
        return f"{pods} pod{'s' if pods != 1 else ''} on {len(self.pods)} object{'s' if len(self.pods) != 1 else ''}"


@dataclass
class Evidence:
    """What the objects and pods of one kind show."""

    workloads: list[ObservedObject]
    ownership: Ownership
    roles: list[ObservedRole]
    states: list[str]  # per workload: what its pods show (observed_status.pod_state)
    unexplained: list[ObservedObject] = field(default_factory=list)  # matched to a workload, no place explains them
    ambiguous: list[tuple[ObservedObject, list[Place]]] = field(default_factory=list)
    nested: list[tuple[str, ...]] = field(default_factory=list)  # places in two lists: not modelled

    @property
    def pods(self) -> int:
        """How many pods were matched to a workload."""
        return self.ownership.matched


def gather(observed: ObservedInput, group: str, kind: str, suspended: list[bool] | None = None) -> Evidence:
    """The evidence of the workloads of ``group``/``kind`` in ``observed``."""
    workloads = observed.workloads(group, kind)
    ownership = match_pods(observed, workloads)
    evidence = Evidence(workloads, ownership, [], [])
    by_path: dict[tuple[str, ...], ObservedRole] = {}
    for index, workload in enumerate(workloads):
        pods = ownership.pods_of(index)
        evidence.states.append(pod_state(pods, bool(suspended and suspended[index])))
        candidates = places_of(workload.data)
        found = provenance(workload.data, pods, candidates)
        evidence.unexplained.extend(found.unexplained)
        evidence.ambiguous.extend(found.ambiguous)
        for pod in pods:
            place = found.places.get(pod.origin)
            if place is None:
                continue
            path = place.role_path
            if path.count("[]") > 1:
                if path not in evidence.nested:
                    evidence.nested.append(path)
                continue
            role = by_path.get(path)
            if role is None:
                role = by_path[path] = ObservedRole(Role("", path, SHAPES[place.shape]))
            role.pods.setdefault(index, {}).setdefault(place.entry, []).append(pod)
    for role in by_path.values():
        if role.iterated:
            at = role.list_at
            for index, workload in enumerate(workloads):
                items = value_at(workload.data, role.role.path[:at])
                if isinstance(items, list):
                    rest = role.role.path[at + 1 :]
                    role.entries[index] = [i for i, item in enumerate(items) if value_at(item, rest) is not None]
    evidence.roles = sorted(by_path.values(), key=lambda r: _first_seen(r, workloads))
    _name(evidence.roles, workloads)
    return evidence


def _first_seen(role: ObservedRole, workloads: list[ObservedObject]) -> tuple[int, str]:
    return (min(role.pods), str(role.role.path))


def _wrapped_kind(observed: ObservedRole, workloads: list[ObservedObject]) -> str | None:
    """The kind of the object the role's template is in, below the workload (a wrapped Job), when
    every pod's is the same."""
    kinds = set()
    for index, by_entry in observed.pods.items():
        for entry in by_entry:
            path = tuple(entry if p == "[]" and entry is not None else p for p in observed.role.path)
            node: Any = workloads[index].data
            found = None
            for part in path[:-1]:
                node = (
                    node[part]
                    if isinstance(part, int) and isinstance(node, list)
                    else (node or {}).get(part)
                    if isinstance(node, dict)
                    else None
                )
                if (
                    isinstance(node, dict)
                    and isinstance(node.get("kind"), str)
                    and isinstance(node.get("apiVersion"), str)
                ):
                    found = node["kind"]
            kinds.add(found)
    return kinds.pop() if len(kinds) == 1 and None not in kinds else None


def _name(roles: list[ObservedRole], workloads: list[ObservedObject]) -> None:
    """Role names: the last key that is not generic (``template``, ``spec``) after the list (or on
    the whole path), else the list's name in the singular; alternatives of one list entry
    (``leaderWorkerPattern``, ``standalonePattern``) are ``<list>-<pattern>``."""
    used: set[str] = set()
    for observed in roles:
        path = observed.role.path
        if observed.iterated:
            at = observed.list_at
            listed = str(path[at - 1]) if at else "entry"
            after = [p for p in path[at + 1 :] if p not in GENERIC_KEYS and p != "[]"]
            stem = re.sub(r"(Specs?|s)$", "", listed) or listed
            siblings = [
                r for r in roles if r is not observed and r.iterated and r.role.path[: at + 1] == path[: at + 1]
            ]
            pattern = path[at + 1] if len(path) > at + 2 else None
            if pattern and any(len(r.role.path) > at + 1 and r.role.path[at + 1] != pattern for r in siblings):
                base = f"{stem}-{re.sub(r'Pattern$', '', str(pattern))}"
                observed.role.pattern = str(pattern)
            else:
                base = after[-1] if after else (_wrapped_kind(observed, workloads) or stem)
        else:
            base = next((p for p in reversed(path) if p not in GENERIC_KEYS), "pod")
        name = re.sub(r"(PodTemplate|Template|Pattern)$", "", str(base)) or str(base)
        name = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "pod"
        candidate, n = name, 2
        while candidate in used:
            candidate, n = f"{name}{n}", n + 1
        used.add(candidate)
        observed.role.name = candidate
