"""The statuses of a draft mapped with the pods as evidence (`new --crd --from`).

Each observed object gets the status its pods show: all Running and ready: ``running``; all
Succeeded: ``completed``; a Failed pod and none still running: ``failed``; pods not ready yet:
``initializing``; no pod: ``initializing`` (or ``suspended`` when a suspend field the CRD documents
is set). Then, status by status, the simplest matcher that holds on every object with that status
and on no other is drafted: the phase values they have (``byPhase``; no phase yet), else a
condition they all have and no other has (``byConditions``, a True one and a type whose name says
the status first), else a comparison of a ready counter with the desired count (``byExpression``,
as the catalog's Deployment and StatefulSet read theirs; without one, a ready counter above 0, or
at 0), else nothing counted yet (every count of the status 0). Where no one matcher tells some of
them apart, two that do together are one matcher (Karta ANDs its parts). Each matcher carries its
evidence ("seen on 3 objects whose pods were Running and ready"); a status no field tells apart is a
TODO naming the objects.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from kartalint.karta import as_dict, as_list
from kartalint.load.observed import ObservedObject
from kartalint.scaffold.observed_matchers import (
    Candidate,
    Features,
    candidates,
    counted_paths,
    counter_tests,
    features,
    get_path,
    pairs,
)

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
class Learned:
    """The matchers learned for each status, the comment above each, and the TODOs."""

    mappings: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    why: dict[str, list[str]] = field(default_factory=dict)
    todo: list[str] = field(default_factory=list)
    phase_values: dict[str, str] = field(default_factory=dict)  # value -> status it was seen with


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
    counters = counter_tests(names, desired)
    counted = counted_paths(names)
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
        pool = candidates(status, [found[i] for i in members], counters, fields, phase_path, counted)
        exclusive = [c for c in pool if not any(c.holds(f) for f in others)]
        left = list(members)
        paired: list[Candidate] | None = None  # made once, when no one matcher is left that holds
        while left:
            best = _widest(exclusive, [found[i] for i in left])
            if best is None:
                paired = pairs(pool, [found[i] for i in left], others) if paired is None else paired
                best = _widest(paired, [found[i] for i in left])
            if best is None:
                break
            covered = [i for i in left if best.holds(found[i])]
            learned.mappings.setdefault(status, []).append(best.matcher)
            learned.why.setdefault(status, []).append(f"{best.said}: {_evidence(objects, states, covered)}")
            if set(best.matcher) == {"byPhase"}:
                learned.phase_values[best.matcher["byPhase"]] = status
            for chosen in (exclusive, paired or []):
                if best in chosen:
                    chosen.remove(best)
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


def _widest(matchers: list[Candidate], left: list[Features]) -> Candidate | None:
    """The matcher that holds on the most objects left, the simplest among them; None if none holds."""
    best = max(matchers, key=lambda c: (sum(c.holds(f) for f in left), -c.rank), default=None)
    return best if best is not None and any(best.holds(f) for f in left) else None


def _evidence(objects: list[ObservedObject], states: list[str], members: list[int]) -> str:
    kinds = sorted({states[i] for i in members})
    words = " or ".join(POD_STATE_WORDS[k] for k in kinds)
    count = len(members)
    return f"seen on {count} object{'s' if count != 1 else ''} {words} ({', '.join(objects[i].key for i in members[:3])}{', ...' if count > 3 else ''})"


_PHASE_FIELDS = (("status", "phase"), ("status", "state"), ("status", "status"))
_SIMPLE = re.compile(r"^(\.[A-Za-z_][A-Za-z0-9_]*)+$")


def _observed_phase(objects: list[ObservedObject]) -> tuple[str, ...] | None:
    for path in _PHASE_FIELDS:
        if any(isinstance(get_path(o.data, path), str) for o in objects):
            return path
    return None


def _observed_conditions(objects: list[ObservedObject]) -> bool:
    return any(
        isinstance(item, dict) and isinstance(item.get("type"), str)
        for o in objects
        for item in (get_path(o.data, ("status", "conditions")) or [])
        if isinstance(get_path(o.data, ("status", "conditions")), list)
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
    desired = (
        {".spec.replicas": 1} if any(isinstance(get_path(o.data, ("spec", "replicas")), int) for o in objects) else {}
    )
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
