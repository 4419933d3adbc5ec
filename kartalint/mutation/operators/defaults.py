"""Defaults: the ``// d`` alternatives and ``?`` that keep an expression working when a field is absent."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from kartalint.mutation.mutant import JqEdit, Mutant, Subject, jq_mutant, jq_trees, removals
from kartalint.mutation.operators.base import Operator


def drop_default(subject: Subject) -> Iterator[Mutant]:
    """Drop a default: ``(.replicas // 1)`` -> ``(.replicas)``.

    Killed by a fixture whose object lacks the field (the default is then what the consumers see)."""
    for jq_field, tree in jq_trees(subject):
        text = jq_field.expression
        for node in tree.walk():
            if node.kind == "binop" and node.value == "//" and node.children[0] is not None:
                left = node.children[0]
                edit = JqEdit(
                    node.start, node.end, left.source(text), node.source(text), left.source(text),
                    removals(tree, left.start, left.end),
                )  # fmt: skip
                yield jq_mutant(subject, "drop-default", "defaults", jq_field, edit)


def _other_defaults(value: Any) -> list[Any]:
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, (int, float)):
        if value == 1:
            return [0, 2]
        return [value + 1] + ([value - 1] if value > 0 else [])
    if isinstance(value, str):
        return [""] if value else ["x"]
    return []


def change_default(subject: Subject) -> Iterator[Mutant]:
    """Change a literal default: ``// 1`` -> ``// 0`` and ``// 2``; ``// n`` -> ``n+1``, ``n-1``; a
    string to ``""``; a boolean to its opposite.

    Killed by a fixture whose object lacks the field and whose ``expect`` pins the value."""
    for jq_field, tree in jq_trees(subject):
        text = jq_field.expression
        for node in tree.walk():
            if node.kind != "binop" or node.value != "//" or node.children[0] is None:
                continue
            default = node.children[1]
            if default is None or default.kind != "literal":
                continue
            left = node.children[0]
            for value in _other_defaults(default.value):
                new = json.dumps(value)
                after = text[node.start : default.start] + new
                edit = JqEdit(
                    default.start, default.end, new, node.source(text), after, removals(tree, left.start, left.end)
                )
                yield jq_mutant(subject, "change-default", "defaults", jq_field, edit)


def drop_optional(subject: Subject) -> Iterator[Mutant]:
    """Drop ``?`` on an iteration: ``.spec.tasks[]?`` -> ``.spec.tasks[]``.

    Killed by a fixture whose object lacks the list (``[]`` on null is an error; ``[]?`` gives no
    instances)."""
    for jq_field, tree in jq_trees(subject):
        text = jq_field.expression
        for node in tree.walk():
            inner = node.children[0] if node.kind == "optional" and node.children else None
            if inner is None or inner.kind != "iterate":
                continue
            edit = JqEdit(
                node.start, node.end, inner.source(text), node.source(text), inner.source(text),
                removals(tree, inner.start, inner.end, lists=True),
            )  # fmt: skip
            yield jq_mutant(subject, "drop-optional", "defaults", jq_field, edit)


OPERATORS = (
    Operator("drop-default", "defaults", drop_default),
    Operator("change-default", "defaults", change_default),
    Operator("drop-optional", "defaults", drop_optional),
)
