"""Where the outputs of a jq expression come from: the places of the input (field paths) they are
read at, followed through pipes, variables, ``select``, ``if`` branches, ``//`` fallbacks,
``to_entries``/``with_entries``/``from_entries``, ``getpath`` with a literal path, ``map`` and
user ``def``s. ``kartalint.jqlang.paths`` walks an expression with these to collect its reads.

An expression may take its outputs from several places (``if A then .status.x else .spec.x end``,
``.a // .b``): ``Places`` lists them, at most ``MAX_PLACES``; ``None`` among them stands for
outputs that are computed values (a constant, arithmetic, a construct), not places of the input.
"""

from __future__ import annotations

from kartalint.jqlang.scope import COMPUTED, Path_, Places, Scope
from kartalint.jqlang.syntax import COMPARE_OPS, Node

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_PLACES = 4
MAX_INLINE_DEPTH = 4

# Pseudo segments for what ``to_entries`` makes of the value at a path: the list of entries, and
# one entry; ``.value`` of an entry is the value at some key (``[?]``), ``.key`` is not a place.
ENTRIES = "{entries}"
ENTRY = "{entry}"
LIST = "{list}"  # a list built from the values at a place (`[.a]`, `map(.x)`): its elements are there
PSEUDO = (ENTRIES, ENTRY, LIST)

# builtins whose output is their input (or part of the empty stream): the path goes through them
PASS_THROUGH = {
    "select",
    "values",
    "objects",
    "arrays",
    "strings",
    "numbers",
    "booleans",
    "nulls",
    "iterables",
    "scalars",
    "not_null",
    "debug",
    "empty",
    "sort",
    "unique",
    "reverse",
}
# builtins whose output is (a stream of) their last argument's output
OUTPUT_OF_ARGUMENT = {"first", "last", "limit", "until", "nth"}
# builtins that apply their (only) argument to every element of their input
ELEMENT_CALLS = {"map", "any", "all", "map_values", "sort_by", "unique_by", "min_by", "max_by", "group_by"}
# builtins with one argument applied to elements whose output is the input reordered or filtered
_SAME_ARRAY = {"sort_by", "unique_by"}
_ONE_ELEMENT = {"min_by", "max_by"}


def real(places: Places) -> tuple[Path_, ...]:
    """The places that are places of the input (computed values left out)."""
    return tuple(place for place in places if place is not None)


def single(places: Places) -> Path_ | None:
    """The place when every output comes from exactly one place of the input, else None."""
    return places[0] if len(places) == 1 else None


def union(*groups: Places) -> Places:
    """The places of all of ``groups``, once each in order; ``COMPUTED`` when over ``MAX_PLACES``."""
    if len(groups) == 1 and len(groups[0]) == 1:
        return groups[0]
    out = tuple(dict.fromkeys(place for group in groups for place in group))
    return out if len(out) <= MAX_PLACES else COMPUTED


def step(path: Path_ | None, segment: str) -> Path_ | None:
    """``path`` followed by one segment (a field name, ``[]``, ``[n]``, ``[?]``)."""
    if path is None:
        return None
    last = path[-1] if path else ""
    if last == LIST:
        return path[:-1] if segment.startswith("[") else None
    if last == ENTRIES:
        return (*path[:-1], ENTRY) if segment.startswith("[") else None
    if last == ENTRY:
        return (*path[:-1], "[?]") if segment == "value" else None
    return (*path, segment)


def extend(places: Places, segment: str) -> Places:
    """Each of ``places`` followed by ``segment``."""
    if len(places) == 1:
        return (step(places[0], segment),)
    return union(tuple(step(place, segment) for place in places))


def visible(path: Path_) -> Path_:
    """A place as the CRD knows it: an entry of ``to_entries`` is the value at some key, the list
    of entries is the value itself."""
    if path and path[-1] == ENTRY:
        return (*path[:-1], "[?]")
    if path and path[-1] in (ENTRIES, LIST):
        return path[:-1]
    return path


def _collected(place: Path_ | None) -> Path_ | None:
    """The place of ``[X]``: the list at P when X's outputs are its elements (``[P[] | select(f)]``),
    else a list built from the values at X's place."""
    if place is None:
        return None
    if place and place[-1] in ("[]", "[?]"):
        return place[:-1]
    if place and place[-1] == ENTRY:
        return (*place[:-1], ENTRIES)
    if place and place[-1] in (ENTRIES, LIST):
        return None
    return (*place, LIST)


def collected(places: Places) -> Places:
    """The places of ``[X]`` for X's ``places``."""
    return union(tuple(_collected(place) for place in places))


def places_of(node: Node | None, scope: Scope) -> Places:
    """The places of the input a node's outputs come from."""
    if node is None or node.kind == "identity":
        return scope.base
    kind = node.kind
    children = node.children
    if kind == "var":
        return scope.var(str(node.value))
    if kind == "field":
        return extend(places_of(children[0], scope), str(node.value))
    if kind == "index":
        key = children[1]
        segment = _index_segment(key)
        return extend(places_of(children[0], scope), segment) if segment else COMPUTED
    if kind == "iterate":
        return extend(places_of(children[0], scope), "[]")
    if kind in ("optional", "paren", "try", "slice"):
        return places_of(children[0], scope) if children else COMPUTED
    if kind == "binop":
        left, right = children
        if node.value == "|":
            return places_of(right, scope.but(base=places_of(left, scope)))
        if node.value == "//" and is_constant(right):
            # `P // []`, `P // {}`, `P // 1`: the values still come from P (or are a constant)
            return places_of(left, scope)
        if node.value in ("//", ","):
            return union(places_of(left, scope), places_of(right, scope))
        return COMPUTED
    if kind == "array":
        return collected(places_of(children[0], scope)) if len(children) == 1 and children[0] is not None else COMPUTED
    if kind == "bind":
        return places_of(children[1], bound(node, scope))
    if kind == "funcdef":
        return places_of(children[1], defined(node, scope))
    if kind == "if":
        return union(*(places_of(branch, scope) for branch in if_branches(node)))
    if kind == "call":
        return _call_places(node, scope)
    return COMPUTED


def _index_segment(key: Node | None) -> str | None:
    if key is None:
        return None
    if key.kind == "literal" and isinstance(key.value, str):
        return key.value
    if key.kind == "literal" and isinstance(key.value, int) and not isinstance(key.value, bool):
        return f"[{key.value}]"
    return "[?]"


def _call_places(node: Node, scope: Scope) -> Places:
    name = str(node.value)
    args = node.children
    base = scope.base
    if not args:
        body = scope.func(name)
        if body is not None:
            return places_of(body, scope.but(depth=scope.depth + 1)) if scope.depth < MAX_INLINE_DEPTH else COMPUTED
        if name == "to_entries":
            return union(
                tuple(step(p, ENTRIES) if p is not None and (not p or p[-1] not in PSEUDO) else None for p in base)
            )
        if name == "from_entries":
            return union(tuple(p[:-1] if p and p[-1] == ENTRIES else None for p in base))
        if name in ("first", "last"):
            return extend(base, "[0]" if name == "first" else "[-1]")
    if name in PASS_THROUGH:
        return base
    if name in OUTPUT_OF_ARGUMENT and args:
        return places_of(args[-1], scope)
    if len(args) != 1:
        return COMPUTED
    if name == "with_entries":
        kept = []
        for place in base:
            entry = step(place, ENTRIES) if place is not None else None
            entry = step(entry, "[]")
            same = entry is not None and places_of(args[0], scope.but(base=(entry,))) == (entry,)
            kept.append(place if same else None)
        return union(tuple(kept))
    if name == "map":
        return collected(places_of(args[0], scope.but(base=extend(base, "[]"))))
    if name in _SAME_ARRAY:
        return base
    if name in _ONE_ELEMENT:
        return extend(base, "[]")
    if name == "getpath":
        segments = literal_path(args[0])
        if segments is None:
            return COMPUTED
        places = base
        for segment in segments:
            places = extend(places, segment)
        return places
    return COMPUTED


def argument_bases(node: Node, scope: Scope) -> list[Places]:
    """The places of `.` for each argument of a call."""
    name, args = str(node.value), node.children
    if name in ("any", "all") and len(args) == 2:  # any(generator; condition)
        return [scope.base, places_of(args[0], scope)]
    if name in ELEMENT_CALLS and len(args) == 1:
        return [extend(scope.base, "[]")]
    if name == "with_entries" and len(args) == 1:
        return [extend(extend(scope.base, ENTRIES), "[]")]
    return [scope.base] * len(args)


def literal_path(node: Node | None) -> list[str] | None:
    """The segments of a literal path: ``["spec", "x", 0]`` or ``"spec.x" | split(".")``."""
    while node is not None and node.kind == "paren":
        node = node.children[0]
    if node is None:
        return None
    if node.kind == "array":
        items: list[Node | None] = []
        stack = list(node.children)
        while stack:
            item = stack.pop(0)
            if item is not None and item.kind == "binop" and item.value == ",":
                stack[:0] = item.children
            else:
                items.append(item)
        segments = []
        for item in items:
            if item is None:
                continue
            if item.kind != "literal" or isinstance(item.value, (bool, float)) or item.value is None:
                return None
            segments.append(item.value if isinstance(item.value, str) else f"[{item.value}]")
        return segments
    if node.kind == "binop" and node.value == "|":
        text, split = node.children
        if (
            text is not None
            and text.kind == "literal"
            and isinstance(text.value, str)
            and split is not None
            and split.kind == "call"
            and split.value == "split"
            and len(split.children) == 1
            and split.children[0] is not None
            and split.children[0].kind == "literal"
            and isinstance(split.children[0].value, str)
            and split.children[0].value
        ):
            return text.value.split(split.children[0].value)
    return None


def is_constant(node: Node | None) -> bool:
    """A literal, or an array or object construction that reads nothing from the input."""
    return node is not None and node.kind in ("literal", "array", "object") and reads_input(node) is None


def if_branches(node: Node) -> list[Node | None]:
    """The result branches of an ``if`` (then, elif-thens, else; a missing else is ``.``)."""
    pairs = node.value if isinstance(node.value, int) and node.value else 1
    branches = [node.children[2 * i + 1] for i in range(pairs)]
    rest = node.children[2 * pairs :]
    branches.append(rest[0] if rest else None)  # no else: the input goes through
    return branches


def bound(node: Node, scope: Scope) -> Scope:
    """The scope of a ``SOURCE as PATTERN | BODY`` body: pattern variables bound to input places."""
    source = places_of(node.children[0], scope)
    env = list(scope.env)
    for pattern in node.children[1:]:
        if pattern is not None and pattern.kind.startswith("pattern"):
            _bind_pattern(pattern, source, env)
    return scope.but(env=tuple(env))


def _bind_pattern(pattern: Node | None, places: Places, env: list) -> None:
    if pattern is None:
        return
    if pattern.kind == "pattern_var":
        env.append((str(pattern.value), places))
    elif pattern.kind == "pattern_array":
        for index, item in enumerate(pattern.children):
            _bind_pattern(item, extend(places, f"[{index}]"), env)
    elif pattern.kind == "pattern_object":
        for entry in pattern.children:
            key, value = ([*entry.children, None, None])[:2] if entry is not None else (None, None)
            name = key.value if key is not None and key.kind == "literal" and isinstance(key.value, str) else None
            sub = extend(places, name) if name is not None else COMPUTED
            if value is None and key is not None and key.kind == "pattern_var":  # {$name}
                env.append((str(key.value), extend(places, str(key.value))))
            else:
                _bind_pattern(value, sub, env)


def defined(node: Node, scope: Scope) -> Scope:
    """A user ``def`` without parameters is inlined where it is called (one with parameters is not)."""
    body = node.children[0]
    if body is None or node.params:
        return scope
    return scope.but(funcs=(*scope.funcs, (str(node.value), body)))


_RANK = {type(None): 0, bool: 1, int: 3, float: 3, str: 4}
_MIRROR = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!="}


def _holds(left: Any, op: str, right: Any) -> bool:
    """``left OP right`` for two jq literals, in jq's order (null < false < true < numbers < strings)."""

    def key(value: Any) -> tuple:
        rank = _RANK.get(type(value), 5) + (1 if value is True else 0)
        return (rank, value if isinstance(value, (int, float, str)) and not isinstance(value, bool) else 0)

    a, b = key(left), key(right)
    return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]


def _strip(node: Node | None) -> Node | None:
    while node is not None and node.kind == "paren":
        node = node.children[0]
    return node


MAX_TESTED = 64  # paths known non-null at one place; more conditions than this add nothing


def tested(cond: Node | None, scope: Scope, memo: dict | None = None) -> frozenset:
    """Paths that are non-null whenever ``cond`` is true: ``P``, ``P != null``, ``P == "x"``,
    ``P > 0``, ``(P // 0) > 0`` (when the default itself fails the test), ``has("k")``,
    ``P | type == "..."``, and conjunctions of these."""
    cond = _strip(cond)
    if cond is None:
        return frozenset()
    if cond.kind == "binop" and cond.value == "and":
        # a long `and` chain is walked once per level: each level's answer is kept (linear, bounded)
        memo_key = (id(cond), scope.base)
        if memo is not None and memo_key in memo:
            return memo[memo_key]
        first = tested(cond.children[0], scope, memo)
        both = first if len(first) >= MAX_TESTED else first | tested(cond.children[1], scope, memo)
        if memo is not None:
            memo[memo_key] = both
        return both
    if cond.kind == "binop" and cond.value in COMPARE_OPS:
        left, right = cond.children
        op = str(cond.value)
        if left is not None and left.kind == "literal" and (right is None or right.kind != "literal"):
            left, right, op = right, left, _MIRROR[op]
        if right is None or right.kind != "literal":
            return frozenset()
        subject, default = _strip(left), None
        if subject is not None and subject.kind == "binop" and subject.value == "//":
            fallback = _strip(subject.children[1])
            if fallback is None or fallback.kind != "literal":
                return frozenset()
            subject, default = _strip(subject.children[0]), fallback.value
        if _holds(default, op, right.value):
            return frozenset()  # the test holds on an absent value too
        return _tested_place(subject, scope)
    if cond.kind == "call" and cond.value == "has" and len(cond.children) == 1:
        key, base = cond.children[0], single(scope.base)
        if key is not None and key.kind == "literal" and isinstance(key.value, str) and base is not None:
            return frozenset({(*base, key.value)})
        return frozenset()
    if cond.kind == "binop" and cond.value == "|":
        left_path = single(places_of(cond.children[0], scope))
        if left_path is not None and cond.children[1] is not None and cond.children[1].kind == "binop":
            return frozenset({left_path})  # `P | type == "object"`, `P | length > 0`
        return frozenset()
    return _tested_place(cond, scope)


def _tested_place(node: Node | None, scope: Scope) -> frozenset:
    if node is None or node.kind not in ("field", "index", "var", "optional", "identity"):
        return frozenset()
    path = single(places_of(node, scope))
    return frozenset({path}) if path is not None else frozenset()


def reads_input(node: Node | None) -> Node | None:
    """The first field access of ``node`` that is relative to its input (not to a variable)."""
    if node is None:
        return None
    for sub in node.walk():
        if sub.kind in ("field", "index", "iterate"):
            inner = sub.children[0] if sub.children else None
            while inner is not None and inner.kind in ("field", "index", "iterate", "optional", "paren"):
                inner = inner.children[0] if inner.children else None
            if inner is None or inner.kind == "identity":
                return sub
    return None
