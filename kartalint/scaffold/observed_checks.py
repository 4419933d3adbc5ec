"""A draft drafted from real objects, checked on them (`new --crd --from`): the GPUs, CPU and memory
per pod it reads against what the pods request, the statuses it gives against what the pods show,
and one fixture per distinct observed state (as `new fixture` writes them), so that `kartalint
test` passes on the first run and pins what was seen."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kartalint.evaluation.resources import ResourceError, Resources, pod_spec
from kartalint.load.observed import ObservedObject
from kartalint.scaffold.crd_schema import jq_path
from kartalint.scaffold.fixture import fixture_text
from kartalint.scaffold.observed_components import RolePaths
from kartalint.scaffold.observed_roles import Evidence
from kartalint.scaffold.observed_status import POD_STATE_WORDS, karta_status

if TYPE_CHECKING:
    from kartalint.evaluation import Evaluator
    from kartalint.evaluation.view import WorkloadView


def _quantity(value: int, binary: tuple[tuple[str, int], ...], decimal: tuple[tuple[str, int], ...]) -> str:
    for unit, size in (*binary, *decimal):
        if value and value % size == 0:
            return f"{value // size}{unit}"
    return f"{value / 10**9:.2f}G" if value >= 10**9 else str(value)


def amounts(resources: Resources) -> str:
    """``1 GPU, 2 CPU, 4Gi memory`` (what describe's table counts)."""
    cpu = f"{resources.cpu_millis // 1000}" if resources.cpu_millis % 1000 == 0 else f"{resources.cpu_millis}m"
    memory = _quantity(
        resources.memory_bytes, (("Gi", 1 << 30), ("Mi", 1 << 20)), (("G", 10**9), ("M", 10**6), ("Ki", 1 << 10))
    )
    return f"{resources.gpus} GPU, {cpu} CPU, {memory} memory"


def _requested(pod: ObservedObject) -> Resources | None:
    try:
        return pod_spec(pod.data.get("spec"))
    except ResourceError:
        return None


def check_resources(data: dict[str, Any], evidence: Evidence, evaluator: Evaluator) -> list[str]:
    """Per role: the GPUs, CPU and memory per pod the draft reads, against the pods' requests."""
    if not evidence.workloads:
        return []
    views = evaluator.evaluate_many(data, [w.data for w in evidence.workloads])
    notes = []
    for observed in evidence.roles:
        paths = RolePaths(observed, evidence.workloads, {})
        differences: list[tuple[Resources, Resources, str]] = []
        agree = 0
        for index, by_entry in observed.pods.items():
            component = views[index].component(observed.role.name)
            if component is None:
                continue
            for entry, pods in by_entry.items():
                wanted = paths.instance_id(evidence.workloads[index], entry)
                instance = next((i for i in component.instances if i.id == wanted), None)
                if instance is None:
                    continue
                for pod in pods:
                    requested = _requested(pod)
                    if requested is None:
                        continue
                    if requested == instance.per_replica:
                        agree += 1
                    else:
                        differences.append((requested, instance.per_replica, evidence.workloads[index].key))
        name, where = observed.role.name, jq_path(observed.role.path)
        if differences:
            gpus = "GPUs agree" if all(d[0].gpus == d[1].gpus for d in differences) else "GPUs differ"
            grouped: dict[tuple[str, str, str], int] = {}
            for requested, read, where_seen in differences:
                key = (where_seen, amounts(requested), amounts(read))
                grouped[key] = grouped.get(key, 0) + 1
            seen = [f"{w} ({n} pod(s)): {r} requested, {d} read" for (w, r, d), n in grouped.items()]
            notes.append(
                f"TODO: {name}: the pods request other resources than the draft reads per pod from {where} ({gpus}; "
                f"the operator adds containers or sets resources itself: count them where it does): "
                + "; ".join(seen[:3])
                + (f"; and {len(seen) - 3} more" if len(seen) > 3 else "")
            )
        elif agree:
            notes.append(
                f"{name}: {agree} pod(s) request what the draft reads per pod ({amounts(read_of(views, observed))})"
            )
    return notes


def read_of(views: list[WorkloadView], observed: Any) -> Resources:
    """The per-pod resources the draft reads for the role ``observed`` (on its first instance seen)."""
    for index in observed.pods:
        component = views[index].component(observed.role.name)
        if component is not None and component.instances:
            return component.instances[0].per_replica
    return Resources()


def _features(obj: dict[str, Any], definition: dict[str, Any]) -> tuple[str | None, dict[str, str]]:
    phase_path = definition.get("phaseDefinition", {}).get("path", "")
    phase: Any = obj
    for part in phase_path.strip(".").split(".") if re.match(r"^(\.[A-Za-z_]\w*)+$", phase_path) else ["\0"]:
        phase = phase.get(part) if isinstance(phase, dict) else None
    conditions = definition.get("conditionsDefinition") or {}
    kind, value = conditions.get("typeFieldName", "type"), conditions.get("statusFieldName", "status")
    found = {}
    listed = (obj.get("status") or {}).get("conditions") if isinstance(obj.get("status"), dict) else None
    for item in listed if isinstance(listed, list) else []:
        if isinstance(item, dict) and isinstance(item.get(kind), str):
            found[item[kind]] = str(item.get(value, ""))
    return (phase if isinstance(phase, str) else None), found


def _matches(matcher: dict[str, Any], phase: str | None, conditions: dict[str, str]) -> bool:
    if "byPhase" in matcher and matcher["byPhase"] != phase:
        return False
    for entry in matcher.get("byConditions") or []:
        if entry.get("type") not in conditions or ("status" in entry and conditions[entry["type"]] != entry["status"]):
            return False
    return "byExpression" not in matcher and ("byPhase" in matcher or "byConditions" in matcher)


def check_statuses(
    data: dict[str, Any],
    evidence: Evidence,
    evaluator: Evaluator,
    learned: set[str],
    comments: dict[Any, list[str]],
    root: str,
) -> list[str]:
    """The statuses the draft gives every object against what its pods show: a matcher from the CRD
    alone that gives an object a status its pods contradict is dropped (said in a note); what still
    disagrees is a TODO."""
    status_definition = data["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]
    mappings = status_definition.get("statusMappings", {})
    notes: list[str] = []
    for attempt in range(2):
        views = evaluator.evaluate_many(data, [w.data for w in evidence.workloads])
        wrong = []
        for workload, state, view in zip(evidence.workloads, evidence.states, views, strict=True):
            wanted = (karta_status(state) or "").capitalize()
            if wanted and view.statuses != [wanted]:
                wrong.append((workload, state, view.statuses))
        if not wrong or attempt:
            break
        for workload, state, statuses in wrong:
            phase, conditions = _features(workload.data, status_definition)
            for status in statuses:
                key = status.lower()
                if key == karta_status(state) or key in learned or key not in mappings:
                    continue
                dropped = [m for m in mappings[key] if _matches(m, phase, conditions)]
                if dropped:
                    mappings[key] = [m for m in mappings[key] if m not in dropped]
                    notes.append(
                        f"{key}: dropped {dropped} (from the CRD alone): it matched {workload.key}, "
                        f"an object {POD_STATE_WORDS[state]}"
                    )
                    if not mappings[key]:
                        del mappings[key]
                        comments.pop((root, key), None)
    notes += [
        f"TODO: {workload.key} reads as {', '.join(statuses)}, but it was seen {POD_STATE_WORDS[state]}"
        for workload, state, statuses in wrong
    ]
    return notes


@dataclass
class FixtureCase:
    """One distinct observed state: a file-name slug, the object and its pods."""

    slug: str
    workload: ObservedObject
    pods: list[ObservedObject]
    state: str


def fixture_cases(data: dict[str, Any], evidence: Evidence, evaluator: Evaluator) -> list[FixtureCase]:
    """The first object of every distinct (statuses, what its pods show)."""
    if not evidence.workloads:
        return []
    views = evaluator.evaluate_many(data, [w.data for w in evidence.workloads])
    cases: dict[tuple[tuple[str, ...], str], FixtureCase] = {}
    used: set[str] = set()
    for index, (workload, state, view) in enumerate(zip(evidence.workloads, evidence.states, views, strict=True)):
        key = (tuple(view.statuses), state)
        if key in cases:
            continue
        slug = "-".join(s.lower() for s in view.statuses)
        if [(karta_status(state) or "").capitalize()] != view.statuses or state in ("pending", "idle"):
            slug += "-no-pods" if state in ("pending", "idle") else f"-pods-{state}"
        base, n = slug, 2
        while slug in used:
            slug, n = f"{base}-{n}", n + 1
        used.add(slug)
        cases[key] = FixtureCase(slug, workload, evidence.ownership.pods_of(index), state)
    return list(cases.values())


def case_fixture(case: FixtureCase, data: dict[str, Any], evaluator: Evaluator, definition: str | None) -> str:
    """The fixture of one case, as `new fixture` writes it (the object, its pods, the expect block)."""
    pods = [p.data for p in case.pods]
    view = evaluator.evaluate(data, case.workload.data, pods)
    return fixture_text(
        case.workload.data,
        view,
        name=f"{case.slug}: {case.workload.key}",
        source=f"{case.workload.origin} and {len(pods)} of its pods ({POD_STATE_WORDS[case.state]}), drafted with new --crd --from",
        definition=definition,
        pods=pods,
    )
