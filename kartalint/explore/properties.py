"""Properties a definition must have on every object valid for its CRD.

Each property looks at one evaluation (a ``Probe``: the object, its ``WorkloadView`` and what the
CRD says about the definition's replica fields) and returns the violations it finds as
``Violation(property, field, message)``; ``field`` is the definition field to blame ("" when the
whole view is). Properties are named, so ``--property`` can select them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kartalint import karta
from kartalint.evaluation.view import WorkloadView
from kartalint.explore.counts import ChosenCount, asked, chosen_count
from kartalint.jqlang import parse_cached, paths
from kartalint.load.crds import CrdVersion, lookup
from kartalint.rules.test_time import CONTRADICTORY


@dataclass(frozen=True)
class ReplicaField:
    """A component whose replicas are one field of the object (``.spec.replicas // 1``, or one
    field per entry of a list), and the default the CRD declares for it (what the API server fills
    in when the field is absent)."""

    component: str
    path: tuple[str, ...]
    default: int
    # where each list entry keeps the component's instance id (``("name",)`` for
    # ``instanceIdPath: .spec.roles[].name``), when the ids come from the same list; None otherwise
    id_field: tuple[str, ...] | None = None


def replica_fields(definition: Any, version: CrdVersion) -> list[ReplicaField]:
    """The components for which the CRD makes the pods asked for computable: a replicasPath that is
    a plain path (with at most a ``//`` default) to an integer field with a CRD default, iterating
    lists only (not maps, whose order is the definition's)."""
    out = []
    for ref in karta.components(definition):
        expression = karta.as_dict(ref.data.get("scaleDefinition")).get("replicasPath")
        if not isinstance(expression, str) or not expression:
            continue
        tree, error = parse_cached(expression)
        if error is not None or tree is None:
            continue
        path = paths.output_path(tree)  # None when the count is computed (arithmetic, a construct)
        if not path or any(part.startswith("[") and part != "[]" for part in path):
            continue
        found = lookup(version.schema, path)
        if found.found and isinstance(found.default, int) and not isinstance(found.default, bool):
            out.append(ReplicaField(str(ref.data.get("name")), path, found.default, _id_field(ref.data, path)))
    return out


def _id_field(component: dict[str, Any], path: tuple[str, ...]) -> tuple[str, ...] | None:
    """The field of each entry of the replica field's list that holds the instance id, when the
    ``instanceIdPath`` is a plain path through the same list (``.spec.roles[]?.name``)."""
    expression = component.get("instanceIdPath")
    if "[]" not in path or not isinstance(expression, str) or not expression:
        return None
    tree, error = parse_cached(expression)
    ids = paths.output_path(tree) if error is None and tree is not None else None
    last = len(path) - 1 - path[::-1].index("[]")
    prefix = path[: last + 1]
    if not ids or tuple(ids[: len(prefix)]) != prefix or any(part.startswith("[") for part in ids[len(prefix) :]):
        return None
    return tuple(ids[len(prefix) :]) or None


def chosen_counts(definition: Any, version: CrdVersion) -> list[ChosenCount]:
    """The single-instance components whose replicasPath chooses between fields the CRD gives a
    default (``if``/``elif``/``else``, ``//``): ``replicas-match-spec`` follows every branch."""
    out = []
    for ref in karta.components(definition):
        expression = karta.as_dict(ref.data.get("scaleDefinition")).get("replicasPath")
        if not isinstance(expression, str) or not expression or ref.data.get("instanceIdPath"):
            continue
        found = chosen_count(str(ref.data.get("name")), expression, version)
        if found is not None:
            out.append(found)
    return out


@dataclass
class Probe:
    """One object checked: the object, its view, and the replica counts and chosen counts the properties check on
    it (with each chosen count's condition on the object)."""

    obj: dict[str, Any]
    view: WorkloadView
    replica_fields: Sequence[ReplicaField] = field(default_factory=list)
    chosen: Sequence[ChosenCount] = field(default_factory=list)
    truths: dict[str, bool | None] = field(default_factory=dict)  # each chosen count's condition on obj


@dataclass(frozen=True)
class Violation:
    """A property that does not hold: which, on which field and component, and why."""

    property: str
    field: str
    message: str
    component: str = ""


def no_extraction_error(probe: Probe) -> list[Violation]:
    """No field fails to extract (a jq error, a value of the wrong type, instance ids and results
    that do not line up)."""
    view = probe.view
    return [
        Violation("no-extraction-error", error.field, error.message, component or "")
        for component, error in view.all_errors
    ]


def replicas_are_counts(probe: Probe) -> list[Violation]:
    """Every instance's desired replicas is a non-negative integer."""
    view = probe.view
    out = []
    for comp in view.components:
        for instance in comp.instances:
            desired = instance.desired
            if desired is not None and (not isinstance(desired, int) or desired < 0):
                label = comp.name + (f"[{instance.id}]" if instance.id is not None else "")
                out.append(
                    Violation(
                        "replicas-are-counts", "scaleDefinition", f"{label}: desired replicas {desired!r}", comp.name
                    )
                )
    return out


def _asked(comp: Any, depth: int = 0) -> int:
    """The pods a component's subtree asks for, composed as the gang minimum is (spec 3.8: a
    parent's scale multiplies its children's), with each instance's desired replicas in place of
    its minimum."""
    own = comp.scaled_desired
    if not comp.children or depth > 64:
        return own
    children = sum(_asked(child, depth + 1) for child in comp.children)
    if children == 0:
        return own
    return children if own == 0 else own * children


def gang_fits(probe: Probe) -> list[Violation]:
    """The gang's minimum never exceeds the replicas the workload asks for (counted the way the
    minimum is: through the component tree when the definition scales components)."""
    view = probe.view
    gang = view.gang
    if gang is None or gang.min_available is None:
        return []
    root = view.root
    if root is not None and any(c.has_replicas for c in view.components):
        total = _asked(root)
    else:
        total = sum(c.desired for c in view.components if c.has_pod_definition)
    if gang.min_available > total:
        return [
            Violation(
                "gang-fits",
                "optimizationInstructions.gangScheduling",
                f"minAvailable {gang.min_available} exceeds the {total} replicas the workload asks for",
            )
        ]
    return []


def gpus_add_up(probe: Probe) -> list[Violation]:
    """GPU totals are non-negative and the workload's total is the sum over its components."""
    view = probe.view
    own = sum(c.own_resources.gpus for c in view.components)
    total = view.resources.gpus
    if total < 0 or total != own:
        return [
            Violation("gpus-add-up", "specDefinition", f"workload GPUs {total}, components' own GPUs add up to {own}")
        ]
    return []


def statuses_agree(probe: Probe) -> list[Violation]:
    """Statuses that exclude each other do not match together (generated conditions set at most one
    of the types the definition tells apart to True, as operators do)."""
    view = probe.view
    found = set(view.statuses)
    return [
        Violation("statuses-agree", "statusDefinition.statusMappings", f"{a} and {b} matched together")
        for a, b in CONTRADICTORY
        if a in found and b in found
    ]


def _values(node: Any, path: tuple[str, ...]) -> list[Any]:
    """The values at ``path`` ("[]" iterates a list), None where a field is absent."""
    if not path:
        return [node]
    head, rest = path[0], path[1:]
    if head == "[]":
        return [v for item in (node if isinstance(node, list) else []) for v in _values(item, rest)]
    return _values(node.get(head) if isinstance(node, dict) else None, rest)


def _asked_per_id(obj: dict[str, Any], spec: ReplicaField) -> dict[str, Any] | None:
    """Instance id -> the count its list entry asks for, when every entry has a distinct id."""
    if spec.id_field is None:
        return None
    last = len(spec.path) - 1 - spec.path[::-1].index("[]")
    entries = _values(obj, spec.path[:last])
    out: dict[str, Any] = {}
    for entry in entries[0] if entries and isinstance(entries[0], list) else []:
        (instance_id,) = _values(entry, spec.id_field)
        (count,) = _values(entry, spec.path[last + 1 :])
        if not isinstance(instance_id, str) or not instance_id or instance_id in out:
            return None
        out[instance_id] = _count(count, spec)
    return out


def _count(value: Any, spec: ReplicaField) -> Any:
    return value if isinstance(value, int) and not isinstance(value, bool) else spec.default


def replicas_match_spec(probe: Probe) -> list[Violation]:
    """Where the CRD makes it computable (a replica field with a CRD default), each instance wants
    the pods its field asks for, or the CRD's default when the field is absent. Instances are
    compared by id where the ids come from the same list entries, else as multisets (the view
    orders instances by id, the object by position). A single-instance count that chooses between
    such fields (``if``/``elif``/``else``, ``//``) is checked on the branch each object takes."""
    out = []
    for spec in probe.replica_fields:
        comp = probe.view.component(spec.component)
        if comp is None or comp.errors:
            continue
        per_id = _asked_per_id(probe.obj, spec)
        given = {i.id: i.desired for i in comp.instances}
        if per_id is not None and set(per_id) == set(given):
            wrong = sorted(i for i in per_id if per_id[i] != given[i])
            asked: Any = {i: per_id[i] for i in wrong}
            desired: Any = {i: given[i] for i in wrong}
        else:
            asked = sorted(_count(v, spec) for v in _values(probe.obj, spec.path))
            desired = sorted((i.desired for i in comp.instances), key=lambda d: (d is None, d or 0))
            if len(asked) != len(desired):
                continue
        if asked != desired:
            out.append(
                Violation(
                    "replicas-match-spec",
                    "scaleDefinition.replicasPath",
                    f"{paths.path_text(spec.path)} asks for {asked} (the CRD's default is {spec.default}), "
                    f"the definition gives {desired}",
                    spec.component,
                )
            )
    return out + [v for chosen in probe.chosen for v in _chosen_match(probe, chosen)]


def _chosen_match(probe: Probe, chosen: ChosenCount) -> list[Violation]:
    """A count that chooses between fields: the branch the object takes asks for its field's value,
    or the CRD's default when the field is absent."""
    comp = probe.view.component(chosen.component)
    if comp is None or comp.errors or len(comp.instances) != 1:
        return []
    expected, desired = asked(chosen.count, probe.obj, probe.truths), comp.instances[0].desired
    if expected is None or desired == expected:
        return []
    message = (
        f"the branch of {chosen.text} this object takes asks for {expected} (the field's value, or the "
        f"CRD's default when it is absent), the definition gives {desired}"
    )
    return [Violation("replicas-match-spec", "scaleDefinition.replicasPath", message, chosen.component)]


PROPERTIES: dict[str, Callable[[Probe], list[Violation]]] = {
    "no-extraction-error": no_extraction_error,
    "replicas-are-counts": replicas_are_counts,
    "replicas-match-spec": replicas_match_spec,
    "gang-fits": gang_fits,
    "gpus-add-up": gpus_add_up,
    "statuses-agree": statuses_agree,
}
DEFAULT_PROPERTIES = tuple(PROPERTIES)
