"""Drafts that explain the objects and pods an author already has (`new --crd CRD --from PATH`).

The roles are the places the pods' containers came from (``observed_roles``), their replicas the
product of counts that gives the pods seen, their selectors the pods' labels
(``observed_components``), the statuses mapped with the pods as evidence (``observed_status``) on
top of what the CRD says (``crd_status``); the draft is then evaluated on every object: GPUs, CPU
and memory per pod against the pods' requests, statuses against what the pods show. What does not
agree is said in the draft's header and the review, never hidden.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kartalint.load.crds import CrdVersion
from kartalint.load.observed import ObservedInput, ObservedObject
from kartalint.scaffold.crd_components import crd_component
from kartalint.scaffold.crd_roles import pod_bearing_fields
from kartalint.scaffold.crd_schema import jq_path, role_name
from kartalint.scaffold.crd_status import SUSPEND_FIELDS, meaning
from kartalint.scaffold.crd_workload import gang_reason, suspend_fields
from kartalint.scaffold.draft_model import Comments, Draft
from kartalint.scaffold.draft_text import header_text, render
from kartalint.scaffold.drafts import (
    chosen_versions,
    definition_data,
    header_lines,
    printer_columns,
    root_status,
    schema_less,
    validate_skeleton,
)
from kartalint.scaffold.observed_checks import check_resources, check_statuses, fixture_cases
from kartalint.scaffold.observed_components import observed_components
from kartalint.scaffold.observed_roles import Evidence, gather
from kartalint.scaffold.observed_status import POD_STATE_SHORT, merge_learned
from kartalint.scaffold.skeleton import minimal_object

if TYPE_CHECKING:
    from kartalint.evaluation import Evaluator

MAX_LISTED = 10


def _get(obj: Any, path: str) -> Any:
    for part in path.strip(".").split("."):
        obj = obj.get(part) if isinstance(obj, dict) else None
    return obj


def is_suspended(workload: ObservedObject, suspends: list[tuple[str, str]], schema_less: bool) -> bool:
    """Whether the object is stopped on purpose: a suspend field or stop annotation the CRD
    documents is set, or (a CRD that documents nothing) a boolean named like one under .spec is
    true, or its phase says so (Suspended, Stopped, Paused)."""
    annotations = workload.metadata.get("annotations")
    for what, _ in suspends:
        if what.startswith(".spec.") and _get(workload.data, what) is True:
            return True
        if what.startswith("the annotation ") and isinstance(annotations, dict) and what.split()[-1] in annotations:
            return True
    spec = workload.data.get("spec")
    if schema_less and isinstance(spec, dict) and any(spec.get(k) is True for k in SUSPEND_FIELDS):
        return True
    status = workload.data.get("status")
    phases = [status.get(k) for k in ("phase", "state")] if isinstance(status, dict) else []
    return any(isinstance(p, str) and meaning(p)[0] in ("suspended", "suspending") for p in phases)


def draft_from_objects(version: CrdVersion, observed: ObservedInput, evaluator: Evaluator) -> Draft:
    """The draft of one CRD version that explains the objects of its kind and their pods."""
    schema = version.schema
    fields = pod_bearing_fields(schema)
    root_name = version.kind.lower()
    suspends = suspend_fields(schema, version.kind)
    workloads = observed.workloads(version.group, version.kind)
    evidence = gather(
        observed, version.group, version.kind, [is_suspended(w, suspends, schema_less(schema)) for w in workloads]
    )
    comments: Comments = {}
    notes: list[str] = []
    if evidence.roles:
        children, _ = observed_components(evidence, schema, root_name, comments)
        roles = [r.role for r in evidence.roles]
        unused = [r for r in fields.roles if r.path not in {o.path for o in roles}]
        notes += [
            f"not a role: no pod came from {_jq(r.path)} (TODO if its pods were not among those given)" for r in unused
        ]
    else:
        used = {root_name}
        for role in fields.roles:
            role.name = role_name(role.path, used)
        children = [crd_component(schema, r, fields.roles, root_name, comments, suspends) for r in fields.roles]
        roles = fields.roles
        if workloads:
            notes.append(
                "TODO: no pod of these objects was explained by a place in its object: roles from the CRD alone"
            )
    _idle(evidence, definition_data(version, root_name, {"statusMappings": {}}, children, roles, None), evaluator)
    status = root_status(version, root_name, comments, suspends)
    learned = merge_learned(status, evidence, workloads, comments, root_name)
    completed = [w.key for w, state in zip(workloads, evidence.states, strict=True) if state == "completed"]
    gang = gang_reason(schema, printer_columns(version)) or (
        f"its pods ran to completion ({', '.join(completed[:3])})" if completed else None
    )
    data = definition_data(version, root_name, status.definition, children, roles, gang)
    notes += check_resources(data, evidence, evaluator)
    notes += check_statuses(data, evidence, evaluator, set(learned.mappings), comments, root_name)
    header = header_lines(version, fields, status.notes, gang, roles, _evidence_lines(evidence, observed, notes))
    text = header_text(header) + render(data, comments)
    draft = Draft(data["metadata"]["name"], text, data, minimal_object(version, roles), roles)
    draft.todo = [f"Status: {line}" for line in status.todo if "TODO" in line]
    draft.evidence = {r.role.name: r.evidence for r in evidence.roles}
    draft.notes = notes
    draft.cases = fixture_cases(data, evidence, evaluator)
    return draft


def _idle(evidence: Evidence, data: dict[str, Any], evaluator: Evaluator) -> None:
    """Objects with no pod whose roles want none (replicas 0: a service scaled to zero) say nothing
    of what their status means: ``idle``, left out of the statuses' evidence."""
    waiting = [i for i, state in enumerate(evidence.states) if state == "pending"]
    if not waiting or not evidence.roles:
        return
    views = evaluator.evaluate_many(data, [evidence.workloads[i].data for i in waiting])
    for index, view in zip(waiting, views, strict=True):
        wanted = sum(c.desired for c in view.components if c.has_pod_definition)
        if wanted == 0 and not view.all_errors:
            evidence.states[index] = "idle"


def _jq(path: tuple[str, ...]) -> str:
    return jq_path(path)


def _listed(items: list[str]) -> str:
    shown = ", ".join(items[:MAX_LISTED])
    return shown + (f", and {len(items) - MAX_LISTED} more" if len(items) > MAX_LISTED else "")


def _evidence_lines(evidence: Evidence, observed: ObservedInput, notes: list[str]) -> list[str]:
    """The header lines that say what the draft was drafted from and what does not agree."""
    kind_objects = []
    for i, w in enumerate(evidence.workloads):
        count = len(evidence.ownership.pods_of(i))
        said = POD_STATE_SHORT[evidence.states[i]]
        kind_objects.append(f"{w.key} ({f'{count} pod(s), ' if count else ''}{said})")
    lines = [
        f"# Drafted from {len(evidence.workloads)} object(s) and {evidence.pods} of their pod(s) "
        f"({len(observed.files)} file(s)): {_listed(kind_objects) or 'none of this kind (TODO: the CRD alone)'}."
    ]
    if evidence.ownership.unmatched:
        lines.append(
            "# Pods of no object given (listed, never guessed): "
            + _listed([f"{p.key} ({why})" for p, why in evidence.ownership.unmatched])
            + "."
        )
    if evidence.unexplained:
        lines.append(
            "# TODO: pods whose containers no place of their object holds (the operator builds them itself?): "
            + _listed([p.key for p in evidence.unexplained])
            + "."
        )
    if evidence.ambiguous:
        lines.append(
            "# TODO: pods that two places explain alike (no label tells them apart): "
            + _listed(
                [f"{p.key} ({' or '.join(_jq(pl.role_path) for pl in places)})" for p, places in evidence.ambiguous]
            )
            + "."
        )
    lines += [
        f"# Skipped {_jq(path)}: pods from a place nested in two lists are not modelled (TODO)."
        for path in evidence.nested
    ]
    lines += [f"# Evidence: {note}" for note in notes]
    return lines


def drafts_from_objects(
    path: str, observed: ObservedInput, evaluator: Evaluator, version: str | None = None
) -> list[Draft]:
    """One draft per kind in the CRD file, each explaining the objects of its kind in ``observed``."""
    drafts = []
    for chosen, crd in chosen_versions(path, version):
        draft = draft_from_objects(chosen, observed, evaluator)
        validate_skeleton(draft, chosen, crd)
        drafts.append(draft)
    return drafts
