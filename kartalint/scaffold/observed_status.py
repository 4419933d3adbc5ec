"""The statuses of a draft mapped with the pods as evidence (`new --crd --from`).

Each observed object gets the status its pods show: all Running and ready: ``running``; all
Succeeded: ``completed``; a Failed pod and none still running: ``failed``; pods not ready yet:
``initializing``; no pod: ``initializing`` (or ``suspended`` when a suspend field the CRD documents
is set). Then, status by status, the simplest matcher that holds on every object with that status
and on no other is drafted: the phase values they have (``byPhase``), else a condition they all
have and no other has (``byConditions``, a True one and a type whose name says the status first),
else a comparison of a ready counter with the desired count (``byExpression``, as the catalog's
Deployment and StatefulSet read theirs). Each matcher carries its evidence ("seen on 3 objects
whose pods were Running and ready"); a status no field tells apart is a TODO naming the objects.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kartalint.load.observed import ObservedObject
from kartalint.scaffold.crd_status import CONDITION_MEANINGS, meaning

POD_STATE_WORDS = {
    "running": "whose pods were Running and ready",
    "completed": "whose pods had all Succeeded",
    "failed": "with a Failed pod and none running",
    "initializing": "whose pods were not all ready yet",
    "pending": "with no pod yet",
    "suspended": "with no pod and a suspend field set",
}
EVIDENCE_ORDER = ("running", "completed", "failed", "initializing", "suspended")
_READY = re.compile(r"(?i)^(ready|available)(replicas|pods|count)?$|^ready$")
_TOTAL = re.compile(r"(?i)^(replicas|desired|desiredReplicas|all|total|current|currentReplicas)$")


def _ready(pod: dict[str, Any]) -> bool:
    status = pod.get("status") if isinstance(pod.get("status"), dict) else {}
    conditions = status.get("conditions") if isinstance(status.get("conditions"), list) else []
    return any(isinstance(c, dict) and c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def _phase(pod: dict[str, Any]) -> str:
    status = pod.get("status") if isinstance(pod.get("status"), dict) else {}
    phase = status.get("phase")
    return phase if isinstance(phase, str) else "Unknown"


def pod_state(pods: list[ObservedObject], suspended: bool = False) -> str:
    """What the pods of one object show (see the module's docstring); ``pending``: no pod."""
    if not pods:
        return "suspended" if suspended else "pending"
    phases = [_phase(p.data) for p in pods]
    if all(p == "Succeeded" for p in phases):
        return "completed"
    if "Failed" in phases and not any(p in ("Running", "Pending") for p in phases):
        return "failed"
    if all(p == "Succeeded" or (p == "Running" and _ready(pod.data)) for p, pod in zip(phases, pods, strict=True)):
        return "running"
    return "initializing"


def karta_status(state: str) -> str:
    """The Karta status a pod state is evidence of (no pod yet: ``initializing``)."""
    return "initializing" if state == "pending" else state


@dataclass
class Features:
    """What the status of one object says: its phase, its conditions (type -> status), its counts."""

    phase: str | None
    conditions: dict[str, str]
    counts: dict[str, int]  # jq path -> value, of the status's and the spec's integers


@dataclass
class Learned:
    """The matchers learned for each status, the comment above each, and the TODOs."""

    mappings: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    why: dict[str, list[str]] = field(default_factory=dict)
    todo: list[str] = field(default_factory=list)
    phase_values: dict[str, str] = field(default_factory=dict)  # value -> status it was seen with


def _get(obj: Any, path: tuple[str, ...]) -> Any:
    for part in path:
        obj = obj.get(part) if isinstance(obj, dict) else None
    return obj


def features(
    obj: dict[str, Any], phase_path: tuple[str, ...] | None, type_field: str, status_field: str, desired: list[str]
) -> Features:
    phase = _get(obj, phase_path) if phase_path else None
    conditions: dict[str, str] = {}
    listed = _get(obj, ("status", "conditions"))
    for item in listed if isinstance(listed, list) else []:
        if isinstance(item, dict) and isinstance(item.get(type_field), str):
            value = item.get(status_field)
            conditions[item[type_field]] = value if isinstance(value, str) else ""
    counts: dict[str, int] = {}
    status = obj.get("status")
    for key, value in status.items() if isinstance(status, dict) else []:
        if isinstance(key, str) and isinstance(value, int) and not isinstance(value, bool):
            counts[f".status.{key}"] = value
        elif isinstance(key, str) and isinstance(value, dict):  # KubeAI's status.replicas.{all,ready}
            for inner, number in value.items():
                if isinstance(inner, str) and isinstance(number, int) and not isinstance(number, bool):
                    counts[f".status.{key}.{inner}"] = number
    for path in desired:
        value = _get(obj, tuple(path.strip(".").split(".")))
        counts[path] = value if isinstance(value, int) and not isinstance(value, bool) else -1
    return Features(phase if isinstance(phase, str) else None, conditions, counts)


def _counter_tests(names: set[str], desired: dict[str, int]) -> list[tuple[str, str, Callable[[Features], bool]]]:
    """(status, expression, test) comparing a ready counter with a desired count."""
    tests: list[tuple[str, str, Callable[[Features], bool]]] = []
    readies = sorted(n for n in names if _READY.match(n.rsplit(".", 1)[-1]))
    totals = [(p, d) for p, d in desired.items()] + [
        (n, 0) for n in sorted(names) if _TOTAL.match(n.rsplit(".", 1)[-1])
    ]
    for ready in readies:
        for total, default in totals:
            if total == ready or (total.startswith(".status") and ready.rsplit(".", 1)[0] != total.rsplit(".", 1)[0]):
                continue
            want = f"({total} // {default})"
            have = f"({ready} // 0)"

            def value(f: Features, path: str, fallback: int) -> int:
                got = f.counts.get(path, -1)
                return fallback if got < 0 else got

            tests.append(
                (
                    "running",
                    f"{want} > 0 and {have} >= {want}",
                    lambda f, r=ready, t=total, d=default: value(f, t, d) > 0 and value(f, r, 0) >= value(f, t, d),
                )
            )
            tests.append(
                (
                    "initializing",
                    f"{want} > 0 and {have} < {want}",
                    lambda f, r=ready, t=total, d=default: value(f, t, d) > 0 and value(f, r, 0) < value(f, t, d),
                )
            )
    return tests


def learn_statuses(
    objects: list[ObservedObject], states: list[str], found: list[Features], desired: dict[str, int]
) -> Learned:
    """Matchers for each status seen (see the module's docstring)."""
    learned = Learned()
    labels = [karta_status(s) for s in states]
    names = {n for f in found for n in f.counts if n.startswith(".status")}
    counters = _counter_tests(names, desired)
    for status in EVIDENCE_ORDER:
        members = [i for i, label in enumerate(labels) if label == status]
        if not members:
            continue
        others = [i for i, label in enumerate(labels) if label != status]
        evidence = _evidence(objects, states, members)
        phases = {found[i].phase for i in members}
        if None not in phases and not phases & {found[i].phase for i in others}:
            learned.mappings[status] = [{"byPhase": value} for value in sorted(p for p in phases if p is not None)]
            learned.why[status] = [f"{', '.join(sorted(p for p in phases if p))}: {evidence}"]
            learned.phase_values.update({p: status for p in phases if p})
            continue
        condition = _condition(status, [found[i] for i in members], [found[i] for i in others])
        if condition is not None:
            kind, value = condition
            learned.mappings[status] = [{"byConditions": [{"type": kind, "status": value}]}]
            learned.why[status] = [f"condition {kind}={value}: {evidence}"]
            continue
        test = next(
            (
                (expression, check)
                for want, expression, check in counters
                if want == status and all(check(found[i]) for i in members) and not any(check(found[i]) for i in others)
            ),
            None,
        )
        if test is not None:
            learned.mappings[status] = [{"byExpression": {"expression": test[0], "expectedResult": "true"}}]
            learned.why[status] = [f"counts: {evidence}"]
            continue
        where = ", ".join(objects[i].key for i in members[:5])
        learned.todo.append(
            f"TODO: {status}: seen on {where} ({POD_STATE_WORDS[states[members[0]]]}), but no phase, condition "
            "or count of their status tells them from the other objects: map it by hand"
        )
    return learned


def _evidence(objects: list[ObservedObject], states: list[str], members: list[int]) -> str:
    kinds = sorted({states[i] for i in members})
    words = " or ".join(POD_STATE_WORDS[k] for k in kinds)
    count = len(members)
    return f"seen on {count} object{'s' if count != 1 else ''} {words} ({', '.join(objects[i].key for i in members[:3])}{', ...' if count > 3 else ''})"


def _condition(status: str, members: list[Features], others: list[Features]) -> tuple[str, str] | None:
    """A (type, status) every member has and no other object has; True and a type whose name
    says the status first."""
    shared = set(members[0].conditions.items())
    for f in members[1:]:
        shared &= set(f.conditions.items())
    fitting = [pair for pair in shared if not any(f.conditions.get(pair[0]) == pair[1] for f in others)]
    if not fitting:
        return None

    def rank(pair: tuple[str, str]) -> tuple[bool, bool, str]:
        said, _ = meaning(pair[0], CONDITION_MEANINGS)
        return (pair[1] != "True", said != status, pair[0])

    return min(fitting, key=rank)
