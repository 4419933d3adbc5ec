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
from dataclasses import dataclass, field
from typing import Any

from kartalint.karta import as_dict, as_list
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
    conditions = as_list(as_dict(pod.get("status")).get("conditions"))
    return any(isinstance(c, dict) and c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def _phase(pod: dict[str, Any]) -> str:
    phase = as_dict(pod.get("status")).get("phase")
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


@dataclass(frozen=True)
class CounterTest:
    """A ready counter compared with a desired count: ``running`` when as many are ready as
    wanted, ``initializing`` when fewer (and some are wanted)."""

    status: str
    ready: str
    total: str
    default: int

    @property
    def expression(self) -> str:
        want, have = f"({self.total} // {self.default})", f"({self.ready} // 0)"
        return f"{want} > 0 and {have} {'>=' if self.status == 'running' else '<'} {want}"

    def holds(self, found: Features) -> bool:
        got = found.counts.get(self.total, -1)
        want = self.default if got < 0 else got
        have = max(found.counts.get(self.ready, 0), 0)
        return want > 0 and (have >= want if self.status == "running" else have < want)


def _counter_tests(names: set[str], desired: dict[str, int]) -> list[CounterTest]:
    """Every ready counter against every desired count (the spec's first, then the status's own
    total beside it)."""
    tests: list[CounterTest] = []
    readies = sorted(n for n in names if _READY.match(n.rsplit(".", 1)[-1]))
    totals = list(desired.items()) + [(n, 0) for n in sorted(names) if _TOTAL.match(n.rsplit(".", 1)[-1])]
    for ready in readies:
        for total, default in totals:
            if total == ready or (total.startswith(".status") and ready.rsplit(".", 1)[0] != total.rsplit(".", 1)[0]):
                continue
            tests += [CounterTest(status, ready, total, default) for status in ("running", "initializing")]
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
                t
                for t in counters
                if t.status == status
                and all(t.holds(found[i]) for i in members)
                and not any(t.holds(found[i]) for i in others)
            ),
            None,
        )
        if test is not None:
            learned.mappings[status] = [{"byExpression": {"expression": test.expression, "expectedResult": "true"}}]
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


_PHASE_FIELDS = (("status", "phase"), ("status", "state"), ("status", "status"))
_SIMPLE = re.compile(r"^(\.[A-Za-z_][A-Za-z0-9_]*)+$")


def _observed_phase(objects: list[ObservedObject]) -> tuple[str, ...] | None:
    for path in _PHASE_FIELDS:
        if any(isinstance(_get(o.data, path), str) for o in objects):
            return path
    return None


def _observed_conditions(objects: list[ObservedObject]) -> bool:
    return any(
        isinstance(item, dict) and isinstance(item.get("type"), str)
        for o in objects
        for item in (_get(o.data, ("status", "conditions")) or [])
        if isinstance(_get(o.data, ("status", "conditions")), list)
    )


def merge_learned(
    status: Any, evidence: Any, objects: list[ObservedObject], comments: dict[Any, list[str]], root: str
) -> Learned:
    """The statuses the evidence shows, in ``status`` (a ``crd_status.StatusDraft``): each learned
    status replaces what the CRD gave it (a placeholder included), a phase value or condition it
    was learned from leaves every other status, and the evidence is the comment above it."""
    definition = status.definition
    phase = definition.get("phaseDefinition", {}).get("path")
    phase_path = tuple(phase.strip(".").split(".")) if isinstance(phase, str) and _SIMPLE.match(phase) else None
    if phase_path is None and "phaseDefinition" not in definition:
        phase_path = _observed_phase(objects)
        if phase_path is not None:
            definition["phaseDefinition"] = {"path": "." + ".".join(phase_path)}
            status.notes.append(f".{'.'.join(phase_path)} read as the phase (a string the objects have there)")
    conditions = definition.get("conditionsDefinition")
    if conditions is None and _observed_conditions(objects):
        conditions = definition["conditionsDefinition"] = {
            "path": ".status.conditions // []",
            "typeFieldName": "type",
            "statusFieldName": "status",
        }
        status.notes.append(".status.conditions read as the conditions (the objects have them)")
    type_field = (conditions or {}).get("typeFieldName", "type")
    status_field = (conditions or {}).get("statusFieldName", "status")
    desired = {".spec.replicas": 1} if any(isinstance(_get(o.data, ("spec", "replicas")), int) for o in objects) else {}
    found = [features(o.data, phase_path, type_field, status_field, list(desired)) for o in objects]
    learned = learn_statuses(objects, evidence.states, found, desired)
    mappings: dict[str, list[dict[str, Any]]] = definition.get("statusMappings", {})
    learned_conditions = [m for ms in learned.mappings.values() for m in ms if "byConditions" in m]
    for key in list(mappings):
        if key in learned.mappings:
            continue
        kept = [
            m
            for m in mappings[key]
            if learned.phase_values.get(m.get("byPhase", ""), key) == key and m not in learned_conditions
        ]
        if kept:
            mappings[key] = kept
        else:
            del mappings[key]
            comments.pop((root, key), None)
    for key, matchers in learned.mappings.items():
        mappings[key] = matchers
        comments[(root, key)] = learned.why[key]
    order = ("initializing", "running", "completed", "failed", "degraded", "suspending", "suspended", "resuming")
    definition.pop("statusMappings", None)  # last, after a phase or conditions added here
    definition["statusMappings"] = {k: mappings[k] for k in order if k in mappings}
    status.todo.extend(learned.todo)
    if learned.todo:
        comments[(root, "statusMappings")] = [*comments.get((root, "statusMappings"), []), *learned.todo]
    return learned
