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

import json
import re
from collections.abc import Callable
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
    "idle": "with no pod and none wanted (replicas 0)",
}
POD_STATE_SHORT = {  # the same, in the draft's header list of objects
    "running": "Running and ready",
    "completed": "all Succeeded",
    "failed": "one Failed",
    "initializing": "not all ready",
    "pending": "no pod yet",
    "suspended": "no pod, suspended",
    "idle": "no pod, none wanted",
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


def karta_status(state: str) -> str | None:
    """The Karta status a pod state is evidence of (no pod yet: ``initializing``; none when no pod
    is wanted: a service scaled to zero says nothing of its status)."""
    return None if state == "idle" else "initializing" if state == "pending" else state


@dataclass
class Features:
    """What the status of one object says: its phase, its conditions (type -> status), its counts."""

    phase: str | None
    conditions: dict[str, str]
    counts: dict[str, int]  # jq path -> value, of the status's and the spec's integers
    empty: bool = False  # no status at all yet
    reasons: dict[str, str] = field(default_factory=dict)  # condition type -> its reason
    strings: dict[str, str] = field(default_factory=dict)  # jq path -> value, of the status's short strings

    @property
    def true_set(self) -> tuple[str, ...]:
        return tuple(sorted(k for k, v in self.conditions.items() if v == "True"))


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
    reasons: dict[str, str] = {}
    listed = _get(obj, ("status", "conditions"))
    for item in listed if isinstance(listed, list) else []:
        if isinstance(item, dict) and isinstance(item.get(type_field), str):
            value = item.get(status_field)
            conditions[item[type_field]] = value if isinstance(value, str) else ""
            if isinstance(item.get("reason"), str) and item["reason"]:
                reasons[item[type_field]] = item["reason"]
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
    empty = not (isinstance(status, dict) and status)
    return Features(phase if isinstance(phase, str) else None, conditions, counts, empty, reasons, _strings(status))


_DATE = re.compile(r"^\d{4}-\d\d-\d\d")


def _strings(status: Any, prefix: str = ".status", depth: int = 0) -> dict[str, str]:
    """The short strings of a status (not dates, not messages), through objects, 3 levels down:
    RayJob's jobDeploymentStatus beside the phase the CRD shows."""
    out: dict[str, str] = {}
    if not isinstance(status, dict) or depth > 2:
        return out
    for key, value in status.items():
        if not isinstance(key, str) or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", key) or key == "conditions":
            continue
        if isinstance(value, str) and 0 < len(value) <= 40 and " " not in value and not _DATE.match(value):
            out[f"{prefix}.{key}"] = value
        elif isinstance(value, dict):
            out.update(_strings(value, f"{prefix}.{key}", depth + 1))
    return out


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


@dataclass
class Candidate:
    """A matcher that may map a status: its data, the test it is in Python, what it says, its rank."""

    matcher: dict[str, Any]
    holds: Callable[[Features], bool]
    said: str
    rank: int


def _phase_is(value: str) -> Callable[[Features], bool]:
    return lambda f: f.phase == value


def _condition_is(kind: str, value: str, reason: str | None = None) -> Callable[[Features], bool]:
    return lambda f: f.conditions.get(kind) == value and (reason is None or f.reasons.get(kind) == reason)


def _string_is(path: str, value: str) -> Callable[[Features], bool]:
    return lambda f: f.strings.get(path) == value


def _no_phase(found: Features) -> bool:
    return not found.phase


def _true_set_is(true_set: tuple[str, ...]) -> Callable[[Features], bool]:
    return lambda f: not f.empty and f.true_set == true_set


def _candidates(
    status: str, members: list[Features], counters: list[CounterTest], fields: tuple[str, str], phase_path: str | None
) -> list[Candidate]:
    """Every matcher a status could be drafted with, simplest first: a phase value, a condition (a
    True one whose type names the status first), a ready count against the desired one, no status
    yet, the exact set of True conditions (Kubeflow's Created alone)."""
    out: list[Candidate] = []
    for value in sorted({f.phase for f in members if f.phase is not None}):
        if value:
            out.append(Candidate({"byPhase": value}, _phase_is(value), value, 0))
        elif phase_path:  # a byPhase of "" matches every object (an empty matcher): an expression instead
            expression = f'({phase_path} // "") == ""'
            out.append(
                Candidate(
                    {"byExpression": {"expression": expression, "expectedResult": "true"}},
                    _no_phase,
                    "an empty phase",
                    0,
                )
            )
    pairs = sorted({pair for f in members for pair in f.conditions.items()})
    for kind, value in sorted(pairs, key=lambda p: (p[1] != "True", meaning(p[0], CONDITION_MEANINGS)[0] != status, p)):
        out.append(
            Candidate(
                {"byConditions": [{"type": kind, "status": value}]},
                _condition_is(kind, value),
                f"condition {kind}={value}",
                1,
            )
        )
    reasoned = sorted({(k, v, f.reasons[k]) for f in members for k, v in f.conditions.items() if k in f.reasons})
    for kind, value, reason in reasoned:
        out.append(
            Candidate(
                {"byConditions": [{"type": kind, "status": value, "reason": reason}]},
                _condition_is(kind, value, reason),
                f"condition {kind}={value} ({reason})",
                2,
            )
        )
    for path, value in sorted({item for f in members for item in f.strings.items()}):
        if phase_path and path == phase_path:
            continue  # the phase itself: byPhase above
        expression = f'({path} // "") == {json.dumps(value)}'
        out.append(
            Candidate(
                {"byExpression": {"expression": expression, "expectedResult": "true"}},
                _string_is(path, value),
                f"{path} is {value}",
                2,
            )
        )
    for test in counters:
        if test.status == status:
            out.append(
                Candidate(
                    {"byExpression": {"expression": test.expression, "expectedResult": "true"}}, test.holds, "counts", 2
                )
            )
    out.append(
        Candidate(
            {"byExpression": {"expression": "(.status // {}) == {}", "expectedResult": "true"}},
            lambda f: f.empty,
            "no status yet",
            3,
        )
    )
    kind_field, status_field = fields
    for true_set in sorted({f.true_set for f in members}):
        listed = json.dumps(list(true_set))
        expression = (
            f'[(.status.conditions // [])[]? | select(.{status_field} == "True") | .{kind_field}] | unique == {listed}'
        )
        out.append(
            Candidate(
                {"byExpression": {"expression": expression, "expectedResult": "true"}},
                _true_set_is(true_set),
                f"the True conditions are exactly {', '.join(true_set) or 'none'}",
                4,
            )
        )
    return out


def learn_statuses(
    objects: list[ObservedObject],
    states: list[str],
    found: list[Features],
    desired: dict[str, int],
    fields: tuple[str, str] = ("type", "status"),
    phase_path: str | None = None,
) -> Learned:
    """Matchers for each status seen (see the module's docstring): the fewest matchers, simplest
    first, that hold on every object with the status and on no other."""
    learned = Learned()
    labels = [karta_status(s) for s in states]
    names = {n for f in found for n in f.counts if n.startswith(".status")}
    counters = _counter_tests(names, desired)
    for status in EVIDENCE_ORDER:
        members = [i for i, label in enumerate(labels) if label == status]
        if not members:
            continue
        # an object with no pod is weak evidence: it may run at zero scale (Knative), so it blocks
        # only the matchers of statuses other than running
        others = [
            found[i]
            for i, label in enumerate(labels)
            if label not in (status, None) and not (states[i] == "pending" and status == "running")
        ]
        exclusive = [
            c
            for c in _candidates(status, [found[i] for i in members], counters, fields, phase_path)
            if not any(c.holds(f) for f in others)
        ]
        left = list(members)
        while left and exclusive:
            best = max(exclusive, key=lambda c: (sum(c.holds(found[i]) for i in left), -c.rank))
            covered = [i for i in left if best.holds(found[i])]
            if not covered:
                break
            learned.mappings.setdefault(status, []).append(best.matcher)
            learned.why.setdefault(status, []).append(f"{best.said}: {_evidence(objects, states, covered)}")
            if "byPhase" in best.matcher:
                learned.phase_values[best.matcher["byPhase"]] = status
            exclusive.remove(best)
            left = [i for i in left if i not in covered]
        if left:  # a placeholder `lint --strict` names (draft-placeholder), beside what was learned
            placeholder = {"byExpression": {"expression": f'"TODO-{status}"', "expectedResult": "true"}}
            learned.mappings.setdefault(status, []).append(placeholder)
            where = ", ".join(objects[i].key for i in left[:5])
            learned.why.setdefault(status, []).append(
                f"TODO: placeholder: no phase, condition or count tells {where} from the other objects"
            )
            learned.todo.append(
                f"TODO: {status}: seen on {where} ({POD_STATE_WORDS[states[left[0]]]}), but no phase, condition "
                "or count of their status tells them from the other objects: map it by hand"
            )
    return learned


def _evidence(objects: list[ObservedObject], states: list[str], members: list[int]) -> str:
    kinds = sorted({states[i] for i in members})
    words = " or ".join(POD_STATE_WORDS[k] for k in kinds)
    count = len(members)
    return f"seen on {count} object{'s' if count != 1 else ''} {words} ({', '.join(objects[i].key for i in members[:3])}{', ...' if count > 3 else ''})"


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
    phase_jq = "." + ".".join(phase_path) if phase_path else None
    learned = learn_statuses(objects, evidence.states, found, desired, (type_field, status_field), phase_jq)
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
