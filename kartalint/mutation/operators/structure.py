"""Structure: which list a role's instances come from, which level holds the pod template, and
which component owns which."""

from __future__ import annotations

import re
from collections.abc import Iterator

from kartalint.jqlang import Node
from kartalint.mutation.mutant import JqEdit, Mutant, Subject, get_at, jq_mutant, jq_trees, with_value
from kartalint.mutation.operators.base import Operator

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _field_chain(node: Node | None) -> list[str] | None:
    """``.a.b.c`` as ["a", "b", "c"] (None when the node is not a plain field path)."""
    names: list[str] = []
    while node is not None:
        if node.kind != "field" or not isinstance(node.value, str):
            return None
        names.append(node.value)
        node = node.children[0] if node.children else None
    return names[::-1]


def _access(name: str) -> str:
    return f".{name}" if _IDENTIFIER.match(name) else f'["{name}"]'


def _sibling_lists(subject: Subject, parent: list[str], name: str) -> list[str]:
    """Keys next to ``name`` under ``parent`` that hold a non-empty list of objects in a sample object."""
    found: set[str] = set()
    for obj in subject.objects:
        holder = get_at(obj, tuple(parent))
        if not isinstance(holder, dict):
            continue
        for key, value in holder.items():
            if key != name and isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
                found.add(str(key))
    return sorted(found)


def sibling_instance_list(subject: Subject) -> Iterator[Mutant]:
    """Iterate a sibling list in an ``instanceIdPath``: ``.spec.replicatedJobs[]?.name`` ->
    ``.spec.<another list of the same object>[]?.name`` (the first such list of the sample objects).

    Killed by any fixture whose ``expect`` pins the role's instances."""
    for jq_field, tree in jq_trees(subject, ("instanceIdPath",)):
        text = jq_field.expression
        for node in tree.walk():
            target = node.children[0] if node.kind == "iterate" and node.children else None
            chain = _field_chain(target)
            if target is None or not chain:
                continue
            siblings = _sibling_lists(subject, chain[:-1], chain[-1])
            if not siblings:
                continue
            prefix = target.children[0].source(text) if target.children and target.children[0] is not None else ""
            new = prefix + _access(siblings[0])
            edit = JqEdit(target.start, target.end, new, target.source(text), new)
            yield jq_mutant(subject, "sibling-instance-list", "structure", jq_field, edit)


def _last_field(tree: Node) -> Node | None:
    """The field access that produces the expression's output (``... | .[$r].template``)."""
    node: Node | None = tree
    while node is not None and node.kind == "binop" and node.value == "|":
        node = node.children[1]
    return node if node is not None and node.kind == "field" else None


def neighbour_level(subject: Subject) -> Iterator[Mutant]:
    """Read the pod template one level off: ``.spec.template`` -> ``.spec`` (the parent) and ->
    ``.spec.template.spec`` (a child), for ``podTemplateSpecPath``, ``podSpecPath`` and ``metadataPath``.

    Killed by a fixture whose ``expect`` pins what the pod template gives (``gpus``, ``cpuMillis``,
    ``memoryBytes``) on an object that requests them."""
    for jq_field, tree in jq_trees(subject, ("podTemplateSpecPath", "podSpecPath", "metadataPath")):
        text = jq_field.expression
        last = _last_field(tree)
        if last is None:
            continue
        target = last.children[0] if last.children else None
        parent = target.source(text) if target is not None else "."
        for new in (parent, last.source(text) + ".spec"):
            yield jq_mutant(
                subject,
                "neighbour-level",
                "structure",
                jq_field,
                JqEdit(last.start, last.end, new, last.source(text), new),
            )


def owner_ref(subject: Subject) -> Iterator[Mutant]:
    """Give a child component another owner: ``ownerRef: jobset`` -> the first two other components
    (root first, then children in order).

    Killed by fixtures whose ``expect`` pins totals that add children up (``gpus``, ``replicas`` of
    a parent, the gang minimum)."""
    names = [ref.name for ref in subject.components if isinstance(ref.name, str)]
    for ref in subject.components:
        owner = ref.data.get("ownerRef")
        if ref.is_root or not isinstance(owner, str):
            continue
        others = [n for n in names if n not in (owner, ref.name)][:2]
        for other in others:
            where = (*ref.path, "ownerRef")
            yield subject.mutant(
                "owner-ref",
                "structure",
                where,
                f"ownerRef: {owner}",
                f"ownerRef: {other}",
                with_value(subject.definition, where, other),
            )


OPERATORS = (
    Operator("sibling-instance-list", "structure", sibling_instance_list),
    Operator("neighbour-level", "structure", neighbour_level),
    Operator("owner-ref", "structure", owner_ref),
)
