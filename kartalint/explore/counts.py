"""The pods a single-instance component asks for, when its ``replicasPath`` chooses between fields:
``if``/``elif``/``else`` branches and ``//`` alternatives, each a field the CRD gives a default, or
a constant. ``replicas-match-spec`` checks such a count on every object (the branch an object
takes is found by running its conditions with jq on that object); ``properties.replica_fields``
covers the counts that are one field.

A count is a tree: ``Field`` (a path and the CRD's default: the value the object holds there, else
the default the API server fills in; a ``// D`` after it is what is being checked, not an
alternative, and so is ``// B``: the API server has filled A in before B could apply),
``Constant`` and ``Branches`` (the conditions, as jq on the object, and one count per branch; the
last is ``else``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kartalint.jqlang import parse_cached
from kartalint.jqlang.parser import Node
from kartalint.jqlang.paths import output_path
from kartalint.jqlang.places import Scope, if_branches, places_of, single
from kartalint.load.crds import CrdVersion, lookup


@dataclass(frozen=True)
class Field:
    """A count read from a field: its path, and the default the API server fills in when it is absent."""

    path: tuple[str, ...]
    default: int


@dataclass(frozen=True)
class Constant:
    """A count written in the expression."""

    value: int


@dataclass(frozen=True)
class Branches:
    """A count chosen by conditions: the conditions (jq on the whole object), and one count per branch, the last
    the ``else``."""

    conditions: tuple[str, ...]  # jq on the whole object, in order
    counts: tuple[Count, ...]  # one per condition, then the else branch


Count = Field | Constant | Branches


@dataclass(frozen=True)
class ChosenCount:
    """A single-instance component whose count chooses between fields (``if`` branches, ``//``)."""

    component: str
    count: Count
    text: str  # the replicasPath, as written

    def conditions(self) -> list[str]:
        """The conditions of the count's branches, as jq on the object."""
        return list(_conditions(self.count))


def chosen_count(component: str, expression: str, version: CrdVersion) -> ChosenCount | None:
    """The count of ``expression`` when it chooses between fields with CRD defaults (None when it is
    one field, computed otherwise, or reads a field without a default)."""
    tree, error = parse_cached(expression)
    if error is not None or tree is None:
        return None

    if output_path(tree) is not None:
        return None  # one field: properties.replica_fields checks it
    count = _count(tree, expression, "", Scope(base=((),)), version)
    if count is None or isinstance(count, Constant):
        return None
    return ChosenCount(component, count, expression)


def _strip(node: Node | None) -> Node | None:
    while node is not None and node.kind == "paren":
        node = node.children[0]
    return node


def _count(node: Node | None, text: str, prefix: str, scope: Scope, version: CrdVersion) -> Count | None:
    node = _strip(node)
    if node is None:
        return None
    if node.kind == "literal" and isinstance(node.value, int) and not isinstance(node.value, bool):
        return Constant(node.value)
    if node.kind == "binop" and node.value == "|":
        left, right = node.children
        inner = scope.but(base=places_of(left, scope))
        return _count(right, text, f"{prefix}{left.source(text) if left is not None else '.'} | ", inner, version)
    if node.kind == "binop" and node.value == "//":  # `P // D`, `P // Q`: the API server fills P's default in
        first = _count(node.children[0], text, prefix, scope, version)
        return first if isinstance(first, Field) else None
    if node.kind == "if":
        pairs = node.value if isinstance(node.value, int) and node.value else 1
        tests = [node.children[2 * i] for i in range(pairs)]
        conditions = tuple(f"{prefix}({test.source(text)})" for test in tests if test is not None)
        counts = [_count(branch, text, prefix, scope, version) for branch in if_branches(node)]
        known = [count for count in counts if count is not None]
        if len(conditions) != pairs or len(known) != len(counts):
            return None
        return Branches(conditions, tuple(known))
    if node.kind in ("field", "index", "optional"):
        path = single(places_of(node, scope))
        if not path or any(part.startswith("[") or part.startswith("{") for part in path):
            return None  # a list's entries: several instances, compared by properties.replica_fields
        found = lookup(version.schema, path)
        if found.found and isinstance(found.default, int) and not isinstance(found.default, bool):
            return Field(path, found.default)
    return None


def _conditions(count: Count) -> list[str]:
    if isinstance(count, Branches):
        return [*count.conditions, *(c for sub in count.counts for c in _conditions(sub))]
    return []


def asked(count: Count, obj: Any, truths: dict[str, bool | None]) -> int | None:
    """The pods ``count`` asks for on ``obj`` (None when a condition could not be decided)."""
    if isinstance(count, Constant):
        return count.value
    if isinstance(count, Field):
        value = _at(obj, count.path)
        return value if isinstance(value, int) and not isinstance(value, bool) else count.default
    for condition, branch in zip(count.conditions, count.counts, strict=False):
        truth = truths.get(condition)
        if truth is None:
            return None
        if truth:
            return asked(branch, obj, truths)
    return asked(count.counts[-1], obj, truths)


def _at(obj: Any, path: tuple[str, ...]) -> Any:
    for part in path:
        obj = obj.get(part) if isinstance(obj, dict) else None
    return obj
