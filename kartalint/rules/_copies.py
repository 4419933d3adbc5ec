"""Copies of a template that consumers do not count: a component whose replica count can exceed 1
and a pod-bearing descendant whose replicas ignore it (consumers add children once, never times
their parent's replicas). ``rules/components`` reports it (``parent-scale-not-multiplied``);
describe's tree notes it (the evaluation engine hands the pairs to the view). Imports only
``karta`` and ``jqlang``: the engine reads it without the rule machinery."""

from __future__ import annotations

from kartalint import karta
from kartalint.jqlang import parse_cached
from kartalint.jqlang.paths import path_facts, path_text
from kartalint.karta import as_dict
from kartalint.model import Frozen, set_field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Unmultiplied(Frozen):
    """A pod-bearing ``child`` whose replicas do not read the count of its ancestor ``parent``,
    whose ``field`` (``expression``) can give more than 1 replica."""

    __slots__ = ("child", "expression", "field", "parent", "reads")
    parent: karta.ComponentRef
    field: str
    expression: str
    reads: tuple[str, ...]  # the paths the parent's count reads, as jq
    child: karta.ComponentRef

    def __init__(
        self, parent: karta.ComponentRef, field: str, expression: str, reads: tuple[str, ...], child: karta.ComponentRef
    ) -> None:
        """``child`` under ``parent``, whose ``field`` is ``expression``."""
        set_field(self, "parent", parent)
        set_field(self, "field", field)
        set_field(self, "expression", expression)
        set_field(self, "reads", reads)
        set_field(self, "child", child)


def unmultiplied(definition: Any) -> list[Unmultiplied]:
    """Every (parent, pod-bearing descendant) pair where the parent's count can exceed 1 and the
    descendant's replicas (``replicasPath``, else ``minReplicasPath``) read none of the paths it
    reads: consumers then show one copy of the descendant, not the parent's count of them."""
    comps = karta.components(definition)
    children: dict[str, list[karta.ComponentRef]] = {}
    for comp in comps:
        owner = comp.data.get("ownerRef")
        if not comp.is_root and isinstance(owner, str):
            children.setdefault(owner, []).append(comp)
    out = []
    for parent in comps:
        count = _count(parent)
        if count is None or not isinstance(parent.name, str):
            continue
        field, expression, reads = count
        seen, queue = {parent.name}, list(children.get(parent.name, []))
        while queue:
            child = queue.pop(0)
            if not isinstance(child.name, str) or child.name in seen:
                continue
            seen.add(child.name)
            queue.extend(children.get(child.name, []))
            child_count = _count(child, constant_ok=True)
            if _has_pods(child) and not (child_count is not None and set(child_count[2]) & set(reads)):
                out.append(Unmultiplied(parent, field, expression, reads, child))
    return out


def unmultiplied_by_parent(definition: Any) -> dict[str, list[str]]:
    """``unmultiplied`` as parent name -> the names of its descendants (describe's tree notes them)."""
    out: dict[str, list[str]] = {}
    for found in unmultiplied(definition):
        out.setdefault(str(found.parent.name), []).append(str(found.child.name))
    return out


def _count(comp: karta.ComponentRef, constant_ok: bool = False) -> tuple[str, str, tuple[str, ...]] | None:
    """(field, expression, the paths it reads) of a component's replica count: ``replicasPath``,
    else ``minReplicasPath``; None without one, or (unless ``constant_ok``) when it reads nothing
    (a constant: ``"1"``)."""

    scale = as_dict(comp.data.get("scaleDefinition"))
    for field in ("replicasPath", "minReplicasPath"):
        expression = scale.get(field)
        if not isinstance(expression, str) or not expression.strip():
            continue
        tree, _ = parse_cached(expression)
        if tree is None:
            return None
        reads = tuple(dict.fromkeys(path_text(read.path) for read in path_facts(tree).reads))
        return (field, expression, reads) if reads or constant_ok else None
    return None


def _has_pods(comp: karta.ComponentRef) -> bool:
    spec = as_dict(comp.data.get("specDefinition"))
    return any(
        spec.get(key) is not None for key in ("podTemplateSpecPath", "podSpecPath", "fragmentedPodSpecDefinition")
    )
