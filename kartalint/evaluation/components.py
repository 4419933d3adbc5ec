"""The components of a view (spec §3.3-3.5), planned once per definition and built per object.

``plan_components`` reads what a component definition says once: its name, kind and owner, whether
it defines pods, its instance id path and the expressions of its spec, scale and fragment fields
(only those that are set). ``build_components`` then makes each object's components from the jq
outcomes alone: the per-object work is what depends on the object, nothing that a definition
decides (issue 46).
"""

from __future__ import annotations

import json
from typing import Any

from kartalint import karta
from kartalint.evaluation import values as convert
from kartalint.evaluation.extract import (
    ExtractionError,
    FragmentField,
    ScaleField,
    SpecField,
    account,
    expression_results,
    extract_fragments,
    extract_scale,
    extract_specs,
    field_error,
    plan_fragments,
    plan_scale,
    plan_specs,
)
from kartalint.evaluation.jqexec import Outcome
from kartalint.evaluation.view import Component, Instance
from kartalint.karta import as_dict


class ComponentPlan:
    """What a component definition decides for every object: its identity, its instance id path
    (None: a single instance), and the set fields of its spec, scale and fragment definitions."""

    __slots__ = (
        "accounts",
        "fragments",
        "has_pod_definition",
        "id_expression",
        "kind",
        "name",
        "owner",
        "scale",
        "specs",
    )

    def __init__(self, ref: karta.ComponentRef) -> None:
        """The plan of the component ``ref``."""
        data = ref.data
        raw_name = data.get("name")
        self.name: str = raw_name if isinstance(raw_name, str) else ""
        kind = data.get("kind") if isinstance(data.get("kind"), dict) else None
        self.kind: dict[str, str] | None = (
            {k: str(kind.get(k, "")) for k in ("group", "version", "kind")} if kind else None
        )
        self.owner: str | None = (
            data.get("ownerRef") if isinstance(data.get("ownerRef"), str) and not ref.is_root else None
        )
        self.has_pod_definition = _has_pod_definition(data)
        expression = data.get("instanceIdPath")
        self.id_expression: str | None = expression if isinstance(expression, str) and expression != "" else None
        self.specs: tuple[SpecField, ...] = plan_specs(data)
        self.scale: tuple[ScaleField, ...] | None = plan_scale(data)
        self.fragments: tuple[FragmentField, ...] | None = plan_fragments(data)
        # whether an instance can have anything to count: a pod template, a pod spec or fragments
        self.accounts = self.fragments is not None or any(
            field[3] in ("pod_template", "pod_spec") for field in self.specs
        )


def plan_components(refs: list[karta.ComponentRef]) -> tuple[list[ComponentPlan], list[int | None]]:
    """The plans of ``refs`` (root first), and for each the index of the component it is attached to
    as a child (its owner, the first component of that name; None for the root, an owner that does
    not exist, itself, or one that would close a cycle): the tree is the same for every object."""
    plans = [ComponentPlan(ref) for ref in refs]
    first: dict[str, int] = {}
    for index, plan in enumerate(plans):
        first.setdefault(plan.name, index)
    parents: list[int | None] = [None] * len(plans)
    for index in range(1, len(plans)):
        parent = first.get(plans[index].owner or "")
        if parent is not None and parent != index and not _is_ancestor(index, parent, plans, first):
            parents[index] = parent
    return plans, parents


def _is_ancestor(candidate: int, node: int | None, plans: list[ComponentPlan], first: dict[str, int]) -> bool:
    """Whether ``candidate`` is ``node`` or one of its owners (followed by name, each name once)."""
    seen: set[str] = set()
    while node is not None and plans[node].name not in seen:
        if node == candidate:
            return True
        seen.add(plans[node].name)
        node = first.get(plans[node].owner or "")
    return False


def build_components(
    plans: list[ComponentPlan], parents: list[int | None], outcomes: dict[str, Outcome]
) -> list[Component]:
    """The components of one object from its jq ``outcomes``, linked as ``plan_components`` said."""
    built = [_component(plan, outcomes) for plan in plans]
    for index, parent in enumerate(parents):
        if parent is not None:
            built[parent].children.append(built[index])
    return built


def _has_pod_definition(comp: dict[str, Any]) -> bool:
    spec = as_dict(comp.get("specDefinition"))
    return any(
        key in spec and spec[key] is not None
        for key in ("podTemplateSpecPath", "podSpecPath", "fragmentedPodSpecDefinition")
    )


def _instance_ids(expression: str, outcomes: dict[str, Outcome]) -> list[str]:
    ids = expression_results(outcomes, expression)
    if any(type(value) is not str for value in ids):  # null is "", anything else is an error
        ids = [convert.to_string(value, i) for i, value in enumerate(ids)]
    if "" in ids:
        raise ExtractionError(f"instance id path contained empty string values {json.dumps(ids)}")
    return ids


def _component(plan: ComponentPlan, outcomes: dict[str, Outcome]) -> Component:
    multi = plan.id_expression is not None
    comp = Component(plan.name, dict(plan.kind) if plan.kind else None, plan.owner, plan.has_pod_definition, multi)
    if plan.id_expression is None:
        ids = [""]
    else:
        try:
            ids = _instance_ids(plan.id_expression, outcomes)
        except (ExtractionError, convert.ConversionError) as exc:
            comp.errors.append(field_error("instanceIdPath", exc))
            return comp
    records: dict[str, Instance] = {i: Instance(i) for i in ids} if multi else {"": Instance(None)}
    # aligned by index; an id given twice shares its instance (the values of its last place win)
    ordered = list(records.values()) if len(records) == len(ids) else [records[i] for i in ids]
    if plan.specs:
        extract_specs(plan.specs, ids, ordered, outcomes, comp)
    if plan.scale is not None:
        extract_scale(plan.scale, ids, ordered, outcomes, comp)
    if plan.fragments is not None:
        extract_fragments(plan.fragments, ids, ordered, outcomes, comp)
    if len(records) < len(ids):  # an id given twice is one instance: the values of its last place
        seen: set[str] = set()
        for instance_id in ids:
            if instance_id in seen and instance_id not in comp.duplicate_ids:
                comp.duplicate_ids.append(instance_id)
            seen.add(instance_id)
    comp.instances = [records[i] for i in sorted(records)] if len(records) > 1 else list(records.values())
    if plan.accounts:
        for instance in comp.instances:
            account(instance, comp)
    return comp
