"""A mutant: one small change of a definition, where it is, and how to write it out.

Operators (``kartalint.mutation.operators``) see a definition through a ``Subject`` (its data,
components, jq fields and a few sample objects) and yield ``Mutant`` records. A mutant carries the
mutated definition (a copy; the original is never changed), the place of the change (the YAML path
of the field and, inside a jq string, the characters), the text before and after, and the
``Perturbation`` records that say which objects would tell it apart from the original (used when no
fixture object does: ``kartalint.mutation.probes``).

A mutant is a record of its change (a ``Change``: a value set at a path, or a key or list item
removed), not a copy: the mutated definition is built when it is first read (``Mutant.definition``),
so that generating every mutant of a large definition costs little and ``--mutants-limit`` builds
only the mutants it picks. ``Change.key`` tells two changes that make the same definition apart
without building either.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kartalint import karta
from kartalint.jqlang import Node, parse_cached
from kartalint.jqlang.paths import path_facts, path_text
from kartalint.model import Path

if TYPE_CHECKING:
    from kartalint.load.crds import CrdVersion


@dataclass(frozen=True)
class Perturbation:
    """A change of an object that may tell a mutant from its original: steps that each ``remove``
    an input path (a field path as ``jqlang.paths`` writes it, ``[]`` for every element) or ``set``
    it to a value, and how a person says it ("without .spec.replicas")."""

    steps: tuple[tuple[str, tuple[str, ...], Any], ...]  # (action, path, value); set-number: only over a number
    text: str


_REMOVED = object()  # the value of a change that removes a mapping key or a list item
BUILT = [0]  # how many mutated definitions were built in this process (a test reads it)


class Change:
    """A definition with ``value`` at ``path`` (``value`` absent: without the key or list item at
    ``path``), built on demand. ``key`` is the same for two changes exactly when the definitions
    they build are the same (the changed leaves, compared as JSON; a list item removed, by the
    first of the equal items around it), computed from the part of the definition at ``path``
    alone: generating every mutant of a large definition stays linear."""

    __slots__ = ("_key", "base", "path", "value")

    def __init__(self, base: dict[str, Any], path: Path, value: Any = _REMOVED) -> None:
        """A change of ``base``: ``value`` at ``path``, or the key or item there removed when no value is given."""
        self.base, self.path, self.value = base, tuple(path), value
        self._key: frozenset | None = None

    def build(self) -> dict[str, Any]:
        """The changed definition: a copy of the base with the change."""
        BUILT[0] += 1
        if not self.path:
            return copy.deepcopy(self.value)
        out = copy.deepcopy(self.base)
        parent = get_at(out, self.path[:-1])
        if self.value is _REMOVED:
            del parent[self.path[-1]]
        else:
            parent[self.path[-1]] = copy.deepcopy(self.value)
        return out

    @property
    def key(self) -> frozenset:
        """What the change makes of the definition, equal for two changes that build the same definition."""
        if self._key is None:
            parent = get_at(self.base, self.path[:-1]) if self.path else None
            if self.value is _REMOVED and isinstance(parent, list) and isinstance(self.path[-1], int):
                self._key = frozenset({(self.path[:-1], f"-[{_run_start(parent, self.path[-1])}]")})
            else:
                found = _exists(self.base, self.path)
                before = get_at(self.base, self.path) if found else _REMOVED
                self._key = frozenset(_leaf_changes(before, self.value, self.path))
        return self._key


def _run_start(items: list[Any], index: int) -> int:
    """The first index of the run of items equal (as JSON) to ``items[index]``: removing any of
    them leaves the same list."""
    shown = _json(items[index])
    while index > 0 and _json(items[index - 1]) == shown:
        index -= 1
    return index


def _exists(data: Any, path: Path) -> bool:
    for part in path:
        if isinstance(data, dict) and part in data:
            data = data[part]
            continue
        if not (isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data)):
            return False
        data = data[part]
    return True


def _json(value: Any) -> str:
    return "-" if value is _REMOVED else json.dumps(value, sort_keys=True, default=str)


def _leaf_changes(before: Any, after: Any, path: Path) -> Iterator[tuple[Path, str]]:
    """(path, the new value as JSON, or ``-`` when removed) of every leaf where ``after`` differs
    from ``before``: one canonical description of the change, whatever path it was made at."""
    if isinstance(before, dict) and isinstance(after, dict):
        for key in (*before, *(k for k in after if k not in before)):
            yield from _leaf_changes(before.get(key, _REMOVED), after.get(key, _REMOVED), (*path, key))
    elif isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        for index, (old, new) in enumerate(zip(before, after, strict=True)):
            yield from _leaf_changes(old, new, (*path, index))
    elif _json(before) != _json(after):
        yield path, _json(after)


@dataclass
class Mutant:
    """A mutant: the operator and family that made it, the component and field changed, where, the text before and
    after, the change, and what else it takes to tell it apart."""

    operator: str
    family: str
    component: str | None  # the component whose field changed (None: not a component's field)
    field: str  # the field, relative to the component ("scaleDefinition.replicasPath") or to spec
    path: Path  # where the change is in the definition document
    before: str
    after: str
    change: Change = dataclasses.field(repr=False)
    span: tuple[int, int] | None = None  # characters of the jq string at ``path`` that changed
    perturbations: tuple[Perturbation, ...] = ()
    pods_only: bool = False  # only what is evaluated on pods changed: no object without pods tells
    occurrence: int = 1  # the same change at a second place of the same field is #2
    _built: dict[str, Any] | None = dataclasses.field(default=None, repr=False, compare=False)

    @property
    def definition(self) -> dict[str, Any]:
        """The mutated definition, built the first time it is read."""
        if self._built is None:
            self._built = self.change.build()
        return self._built

    def forget(self) -> None:
        """Let the mutated definition go (it is built again if read again)."""
        self._built = None

    @property
    def id(self) -> str:
        """Stable while the definition's text at the place is unchanged (listed equivalents use it)."""
        where = f"{self.component}.{self.field}" if self.component is not None else self.field
        again = f" #{self.occurrence}" if self.occurrence > 1 else ""
        return f"{where}: {self.operator}: {self.before} -> {self.after}{again}"


@dataclass
class Subject:
    """What operators read: the definition, its components and jq fields, sample objects."""

    definition: dict[str, Any]
    objects: Sequence[Any] = ()
    crd: CrdVersion | None = None  # the root kind's CRD version, when the project configures CRDs

    def __post_init__(self) -> None:
        """The definition's components and jq fields."""
        self.components = karta.components(self.definition)
        self.jq_fields = list(karta.jq_fields(self.definition))

    def component_at(self, path: Path) -> tuple[str | None, str]:
        """(component name, field relative to it) of a document path."""
        for ref in self.components:
            prefix = tuple(ref.path)
            if tuple(path[: len(prefix)]) == prefix and isinstance(ref.name, str):
                return ref.name, _dotted(path[len(prefix) :])
        return None, _dotted(path[1:] if path and path[0] == "spec" else path)

    def mutant(
        self,
        operator: str,
        family: str,
        path: Path,
        before: str,
        after: str,
        change: Change | dict[str, Any],
        span: tuple[int, int] | None = None,
        perturbations: Sequence[Perturbation] = (),
        pods_only: bool = False,
    ) -> Mutant:
        """A mutant of the subject's definition made by ``operator`` at ``path``, its component and field found
        from the path."""
        component, field_name = self.component_at(path)
        return Mutant(
            operator,
            family,
            component,
            field_name,
            tuple(path),
            before,
            after,
            change if isinstance(change, Change) else Change(self.definition, (), change),
            span,
            tuple(perturbations),
            pods_only,
        )


def _dotted(path: Sequence[Any]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


# -- changing a copy ---------------------------------------------------------------------------------


def get_at(data: Any, path: Path) -> Any:
    """The value at ``path`` in ``data`` (keys and list indexes), or None when there is none."""
    for part in path:
        if isinstance(data, dict):
            if part not in data:
                return None
            data = data[part]
        elif isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data):
            data = data[part]
        else:
            return None
    return data


def with_value(definition: dict[str, Any], path: Path, value: Any) -> Change:
    """``definition`` with ``value`` at ``path`` (which must exist up to its parent), built on demand."""
    return Change(definition, path, value)


def without(definition: dict[str, Any], path: Path) -> Change:
    """``definition`` without the mapping key or list item at ``path``, built on demand."""
    return Change(definition, path)


# -- jq text -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class JqEdit:
    """Characters ``start:end`` of an expression replaced by ``text``; ``before``/``after`` show the
    smallest part that reads well (the node that changed, as written and as mutated)."""

    start: int
    end: int
    text: str
    before: str
    after: str
    perturbations: tuple[Perturbation, ...] = ()


def apply_edit(expression: str, edit: JqEdit) -> str:
    """``expression`` with ``edit`` applied."""
    return expression[: edit.start] + edit.text + expression[edit.end :]


def jq_trees(subject: Subject, kinds: Sequence[str] | None = None) -> Iterator[tuple[karta.JqField, Node]]:
    """The parsed jq fields of the definition (of the given kinds), in document order; write-back
    paths (suspend actions) are left out: evaluation never reads them."""
    for jq_field in subject.jq_fields:
        if jq_field.kind == "actionPath" or (kinds is not None and jq_field.kind not in kinds):
            continue
        tree, _ = parse_cached(jq_field.expression)
        if tree is not None:
            yield jq_field, tree


def jq_mutant(subject: Subject, operator: str, family: str, jq_field: karta.JqField, edit: JqEdit) -> Mutant:
    """A mutant of a jq field; besides the edit's own perturbations, objects where each number
    the changed part reads is 3 (a count of 0 or 1 hides most arithmetic)."""
    expression = apply_edit(jq_field.expression, edit)
    tree, _ = parse_cached(jq_field.expression)
    numbers = settings(tree, edit.start, edit.end, 3, action="set-number") if tree is not None else ()
    return subject.mutant(
        operator,
        family,
        jq_field.path,
        edit.before,
        edit.after,
        with_value(subject.definition, jq_field.path, expression),
        span=(edit.start, edit.end),
        perturbations=(*edit.perturbations, *numbers),
        pods_only=jq_field.target == "pod",
    )


def show(value: Any) -> str:
    """A YAML value written inline for a message."""

    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def removals(tree: Node, start: int, end: int, lists: bool = False) -> tuple[Perturbation, ...]:
    """Objects without the input paths read between characters ``start`` and ``end`` of the
    expression (an iterated list: without the list; ``lists``: without the first list a path
    iterates)."""

    out: dict[tuple[str, ...], Perturbation] = {}
    for read in path_facts(tree).reads:
        if read.start >= end or read.end <= start or not read.path:
            continue
        path = read.path
        if lists and "[]" in path:
            path = path[: path.index("[]")]
        elif path[-1] == "[]":
            path = path[:-1]
        if path and path[-1] not in ("[?]",) and path not in out:
            out[path] = Perturbation((("remove", path, None),), f"without {path_text(path)}")
    return tuple(out.values())


def settings(tree: Node, start: int, end: int, value: Any, action: str = "set") -> tuple[Perturbation, ...]:
    """Objects where each input path read between ``start`` and ``end`` holds ``value``
    (``set-number``: only where the object holds a number there)."""

    out: dict[tuple[str, ...], Perturbation] = {}
    for read in path_facts(tree).reads:
        if read.start >= end or read.end <= start or not read.path or read.path[-1].startswith("["):
            continue
        if read.path not in out:
            out[read.path] = Perturbation(((action, read.path, value),), f"with {path_text(read.path)} = {show(value)}")
    return tuple(out.values())
