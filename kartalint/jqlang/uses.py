"""What a jq expression does with the values it reads, at each place of the input (collected by
``kartalint.jqlang.paths`` during its walk): comparisons and string tests with constants, ``//``
fallbacks to a constant, arithmetic, sums (``add``), object keys, and builtins that fail on null
(``to_entries``, ``keys``, ``map``, ``add``...). The CRD-aware rules judge them against the CRD."""

from __future__ import annotations

from kartalint.jqlang.parser import Node
from kartalint.jqlang.places import LIST, Places, Scope, if_branches, places_of, real, visible
from kartalint.jqlang.reads import PathRead, has_optional, known_depth, read_at
from kartalint.model import Frozen, set_field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# builtins that fail on a null input ("null (null) has no keys", "Cannot iterate over null"), with
# their arity (`length` does not: it gives 0; `any`/`all` with two arguments read their generator)
ON_NULL_FAILS = frozenset(
    [(name, 0) for name in ("to_entries", "keys", "keys_unsorted", "add", "any", "all", "sort", "unique")]
    + [(name, 0) for name in ("min", "max", "flatten", "from_entries")]
    + [(name, 1) for name in ("map", "map_values", "with_entries", "sort_by", "group_by", "unique_by")]
    + [(name, 1) for name in ("min_by", "max_by", "join", "any", "all")]
)
# builtins whose output is never null (what comes after them needs no default)
_NEVER_NULL = {
    "to_entries", "keys", "keys_unsorted", "map", "map_values", "with_entries", "from_entries", "length",
    "sort", "sort_by", "group_by", "unique", "unique_by", "tostring", "tojson", "type", "ascii_downcase",
    "ascii_upcase", "split", "join", "flatten", "reverse", "any", "all", "not", "has", "test", "startswith",
    "endswith", "contains", "inside", "isempty", "splits", "ltrimstr", "rtrimstr", "tonumber",
    "values", "objects", "arrays", "iterables", "strings", "numbers", "booleans", "scalars",  # drop null
}  # fmt: skip
STRING_TESTS = ("test", "startswith", "endswith")


class StringTest(Frozen):
    """``P == "s"``, ``P != "s"``, ``P | test("re")``, ``startswith``/``endswith``: a place of the
    input tested against a constant string (``flags``: test's second argument)."""

    __slots__ = ("end", "flags", "op", "path", "start", "value")
    path: tuple[str, ...]
    op: str  # "==", "!=", "test", "startswith", "endswith"
    value: str
    start: int  # the constant, as written
    end: int
    flags: str

    def __init__(self, path: tuple[str, ...], op: str, value: str, start: int, end: int, flags: str = "") -> None:
        """The test ``op`` of ``path`` against ``value``, written from ``start`` to ``end`` (excluded)."""
        set_field(self, "path", path)
        set_field(self, "op", op)
        set_field(self, "value", value)
        set_field(self, "start", start)
        set_field(self, "end", end)
        set_field(self, "flags", flags)


class Fallback(Frozen):
    """``P // D``: the value at a place, else the constant ``D`` (a number, string or boolean)."""

    __slots__ = ("end", "read", "start", "value")
    read: PathRead
    value: Any
    start: int  # the whole ``P // D``
    end: int

    def __init__(self, read: PathRead, value: Any, start: int, end: int) -> None:
        """``read // value``, written from ``start`` to ``end`` (excluded)."""
        set_field(self, "read", read)
        set_field(self, "value", value)
        set_field(self, "start", start)
        set_field(self, "end", end)


class Consumed(Frozen):
    """A builtin that fails on null (``to_entries``, ``keys``, ``map``, ``add``...) applied to the
    value at a place; ``read.guarded`` when a ``//`` default, ``?``, ``try`` or a test protects it."""

    __slots__ = ("name", "read")
    name: str
    read: PathRead

    def __init__(self, name: str, read: PathRead) -> None:
        """The builtin ``name`` applied to the value ``read``."""
        set_field(self, "name", name)
        set_field(self, "read", read)


def strip(node: Node | None) -> Node | None:
    while node is not None and node.kind == "paren":
        node = node.children[0]
    return node


def never_null(node: Node | None) -> bool:
    """True when every output of ``node`` is a value (a construct, a constant, a test, a builtin
    that always gives one, a ``//`` with such a fallback): what it feeds needs no default."""
    node = strip(node)
    while node is not None and node.kind == "binop" and node.value == "|":
        node = strip(node.children[1])
    if node is None:
        return False
    if node.kind in ("array", "object", "string", "format"):
        return True
    if node.kind == "literal":
        return node.value is not None
    if node.kind == "binop":
        if node.value == "//":
            return never_null(node.children[1])
        return node.value in ("==", "!=", "<", "<=", ">", ">=", "and", "or")
    if node.kind == "call":
        return str(node.value) in _NEVER_NULL
    if node.kind == "if":
        return all(branch is not None and never_null(branch) for branch in if_branches(node))
    return False


def comparisons(node: Node, scope: Scope) -> list[tuple[tuple[str, ...], str, int, int]]:
    """(path, string, start, end) of ``P == "s"``, ``"s" == P``, ``!=``."""
    return [(test.path, test.value, test.start, test.end) for test in _equalities(node, scope)]


def _equalities(node: Node, scope: Scope) -> list[StringTest]:
    out = []
    left, right = node.children
    for path_node, constant in ((left, right), (right, left)):
        if constant is not None and constant.kind == "literal" and isinstance(constant.value, str) and path_node:
            for path in real(places_of(path_node, scope)):
                out.append(StringTest(visible(path), str(node.value), constant.value, constant.start, constant.end))
    return out


def string_tests(node: Node, scope: Scope) -> list[StringTest]:
    """The string tests of a node: an ``==``/``!=`` with a constant string, or ``test``,
    ``startswith``, ``endswith`` with constant arguments applied to the place of the input."""
    if node.kind == "binop" and node.value in ("==", "!="):
        return _equalities(node, scope)
    if node.kind != "call" or str(node.value) not in STRING_TESTS or not node.children:
        return []
    args = [strip(arg) for arg in node.children]
    if len(args) > (2 if node.value == "test" else 1):
        return []
    if any(arg is None or arg.kind != "literal" or not isinstance(arg.value, str) for arg in args):
        return []
    first = args[0]
    assert first is not None
    flags = str(args[1].value) if len(args) == 2 and args[1] is not None else ""
    return [
        StringTest(visible(path), str(node.value), str(first.value), first.start, first.end, flags)
        for path in real(scope.base)
    ]


def fallback(node: Node, scope: Scope) -> list[Fallback]:
    """``P // D`` with ``D`` a number, a string or a boolean (``-1`` too)."""
    left, right = strip(node.children[0]), strip(node.children[1])
    value: Any = None
    if right is not None and right.kind == "literal" and right.value is not None:
        value = right.value
    elif right is not None and right.kind == "neg" and right.children and right.children[0] is not None:
        inner = right.children[0]
        value = -inner.value if inner.kind == "literal" and isinstance(inner.value, (int, float)) else None
    if value is None or left is None or left.kind not in ("field", "index", "var", "optional", "call"):
        return []
    return [Fallback(read_at(left, scope, path), value, node.start, node.end) for path in real(places_of(left, scope))]


def consumed(node: Node, scope: Scope) -> list[Consumed]:
    """A call of a builtin that fails on null, on the places of its input (unless the input is a
    value built there: ``[...] | add``, ``(.x // {}) | keys``)."""
    if (str(node.value), len(node.children)) not in ON_NULL_FAILS or scope.present:
        return []
    out = []
    for path in real(scope.base):
        shown = visible(path)
        known = known_depth(scope, shown)
        read = PathRead(shown, node.start, node.end, scope.guarded or known == len(shown), min(known, len(shown) - 1))
        out.append(Consumed(str(node.value), read))
    return out


def arithmetic(node: Node, scope: Scope) -> list[tuple[Node, PathRead]]:
    """``-``, ``*``, ``/``, ``%`` on a bare path that nothing guards: jq fails on ``null`` there
    (``null + x`` is fine, so ``+`` is not reported)."""
    out = []
    for operand in node.children:
        bare = operand.children[0] if operand is not None and operand.kind == "paren" else operand
        if bare is not None and bare.kind in ("field", "index") and not has_optional(bare):
            for path in real(places_of(bare, scope)):
                read = read_at(bare, scope, path)
                if not read.guarded:
                    out.append((node, read))
    return out


def sums(node: Node, scope: Scope) -> list[tuple[Node, PathRead]]:
    """``-``, ``*``, ``/``, ``%`` on the ``add`` of values read at a place (``map(.replicas) |
    add``): the sum is null when no element has the field."""
    out = []
    for operand in node.children:
        bare, base, producer = strip(operand), scope.base, None
        while bare is not None and bare.kind == "binop" and bare.value == "|":
            producer = bare.children[0]
            base = places_of(producer, scope.but(base=base))
            bare = strip(bare.children[1])
        if operand is None or bare is None or bare.kind != "call" or bare.value != "add" or bare.children:
            continue
        if _values(producer):
            continue
        for place in real(base) if not scope.guarded else ():
            if place and place[-1] == LIST:
                shown = visible(place)
                depth = min(known_depth(scope, shown), len(shown) - 1)
                out.append((node, PathRead(shown, operand.start, operand.end, False, depth)))
    return out


def _values(node: Node | None) -> bool:
    """True when ``node`` builds a list of values that are never null (``map(.x // 1)``, ``[.a[] | .x // 0]``)."""
    node = strip(node)
    while node is not None and node.kind == "binop" and node.value == "|":
        node = strip(node.children[1])
    if node is None or not node.children:
        return False
    if node.kind == "call" and node.value == "map" and len(node.children) == 1:
        return never_null(node.children[0])
    return node.kind == "array" and never_null(node.children[0])


def object_keys(node: Node, scope: Scope) -> list[PathRead]:
    """``{(P): v}``: the places read as keys (guarded when the key has a ``//`` default or ``?``)."""
    out = []
    for entry in node.children:
        key = entry.children[0] if entry is not None and entry.children else None
        if key is None or key.kind != "paren":
            continue
        inner = strip(key.children[0])
        if inner is None:
            continue
        defaulted = inner.kind == "binop" and inner.value == "//"
        subject = inner.children[0] if defaulted else inner
        if subject is None or subject.kind not in ("field", "index", "var", "call"):
            continue
        for path in real(places_of(subject, scope)):
            read = read_at(subject, scope, path)
            out.append(read.replace(guarded=read.guarded or defaulted))
    return out


__all__ = ["ON_NULL_FAILS", "Consumed", "Fallback", "Places", "StringTest", "never_null"]
