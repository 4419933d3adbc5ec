"""Which paths of the input a jq expression reads, followed through pipes, variables, ``select``, ``if``, alternatives and function calls: the facts the CRD-aware rules check."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from kartalint.jqlang.parser import Node


@dataclass(frozen=True)
class PathRead:
    """A field path read by an expression, e.g. ``.spec.replicatedJobs[].replicas``."""

    path: tuple[str, ...]  # field names, "[]" for iteration, "[n]" for indices, "[?]" for a computed index
    start: int
    end: int
    guarded: bool  # under the left side of `//` or `?`, inside try, or tested by an enclosing select/if/and
    parent_tested: bool = False  # an ancestor path is tested non-null by an enclosing select/if/and

    def text(self) -> str:
        return path_text(self.path)


def path_text(path: tuple[str, ...]) -> str:
    """A field path as jq writes it: ``.spec.roles[].name`` (``.`` for the input itself)."""
    return "".join(part if part.startswith("[") else "." + part for part in path or ()) or "."


@dataclass(frozen=True)
class NotFollowed:
    """A place after which the reads of an expression cannot be related to the input document."""

    construct: str  # e.g. "to_entries", "keys", "a computed value"
    start: int
    end: int


@dataclass
class PathFacts:
    reads: list[PathRead] = field(default_factory=list)
    arithmetic: list[tuple[Node, PathRead]] = field(
        default_factory=list
    )  # `-`, `*`, `/`, `%` on a bare, unguarded path
    not_followed: list[NotFollowed] = field(default_factory=list)
    comparisons: list[tuple[tuple[str, ...], str, int, int]] = field(default_factory=list)  # P == "s" / P != "s"


MAX_INLINE_DEPTH = 4


# builtins whose output is their input (or part of the empty stream): the path goes through them
_PASS_THROUGH = {
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
}


# builtins whose output is (a stream of) their last argument's output
_OUTPUT_OF_ARGUMENT = {"first", "last", "limit", "until", "nth"}


_ELEMENT_CALLS = {"map", "any", "all", "map_values"}


@dataclass(frozen=True)
class _Scope:
    base: Path_ | None  # the path of `.`; None when it is not a place of the input
    env: tuple[tuple[str, Path_ | None], ...] = ()  # variables bound to input paths
    funcs: tuple[tuple[str, Node], ...] = ()  # user functions of arity 0, inlined at their calls
    guarded: bool = False
    tested: frozenset = frozenset()  # paths an enclosing select/if/and tests non-null
    depth: int = 0

    def var(self, name: str) -> Path_ | None:
        for key, value in reversed(self.env):
            if key == name:
                return value
        return None

    def func(self, name: str) -> Node | None:
        for key, value in reversed(self.funcs):
            if key == name:
                return value
        return None

    def but(self, **changes: Any) -> _Scope:
        return replace(self, **changes)


def _path_of(node: Node | None, scope: _Scope) -> Path_ | None:
    """The static input path a node's outputs come from (None when they are computed values)."""
    base = scope.base
    if node is None or node.kind == "identity":
        return base
    kind = node.kind
    if kind == "var":
        return scope.var(str(node.value))
    if kind == "field":
        inner = _path_of(node.children[0], scope)
        return (*inner, str(node.value)) if inner is not None else None
    if kind == "index":
        inner = _path_of(node.children[0], scope)
        key = node.children[1]
        if inner is None or key is None:
            return None
        if key.kind == "literal" and isinstance(key.value, str):
            return (*inner, key.value)
        if key.kind == "literal" and isinstance(key.value, int):
            return (*inner, f"[{key.value}]")
        return (*inner, "[?]")
    if kind == "iterate":
        inner = _path_of(node.children[0], scope)
        return (*inner, "[]") if inner is not None else None
    if kind in ("optional", "paren", "try"):
        return _path_of(node.children[0], scope) if node.children else None
    if kind == "binop" and node.value == "|":
        left = _path_of(node.children[0], scope)
        return _path_of(node.children[1], scope.but(base=left))
    if kind == "binop" and node.value == "//":
        # `P // []`, `P // {}`, `P // 1`: the values still come from P (or are a constant)
        right = node.children[1]
        if right is not None and right.kind in ("literal", "array", "object") and not _reads_input(right):
            return _path_of(node.children[0], scope)
        return None
    if kind == "array" and len(node.children) == 1 and node.children[0] is not None:
        # `[P[] | select(...)]` is (part of) the array at P
        inner = _path_of(node.children[0], scope)
        return inner[:-1] if inner is not None and inner and inner[-1] == "[]" else None
    if kind == "bind":
        return _path_of(node.children[1], _bound(node, scope))
    if kind == "funcdef":
        return _path_of(node.children[1], _defined(node, scope))
    if kind == "if":
        branches = _if_branches(node)
        paths = {_path_of(branch, scope) for branch in branches}
        return paths.pop() if len(paths) == 1 and len(branches) > 1 else None
    if kind == "call":
        name = str(node.value)
        if name in _PASS_THROUGH:
            return base
        if name in _OUTPUT_OF_ARGUMENT and node.children:
            return _path_of(node.children[-1], scope)
        body = scope.func(name) if not node.children else None
        if body is not None and scope.depth < MAX_INLINE_DEPTH:
            return _path_of(body, scope.but(depth=scope.depth + 1))
    return None


def _if_branches(node: Node) -> list[Node | None]:
    """The result branches of an ``if`` (then, elif-thens, else; a missing else is ``.``)."""
    pairs = node.value if isinstance(node.value, int) and node.value else 1
    branches = [node.children[2 * i + 1] for i in range(pairs)]
    rest = node.children[2 * pairs :]
    branches.append(rest[0] if rest else None)  # no else: the input goes through
    return branches


def _bound(node: Node, scope: _Scope) -> _Scope:
    """The scope of a ``SOURCE as PATTERN | BODY`` body: pattern variables bound to input paths."""
    source_path = _path_of(node.children[0], scope)
    env = list(scope.env)
    for pattern in node.children[1:]:
        if pattern is not None and pattern.kind.startswith("pattern"):
            _bind_pattern(pattern, source_path, env)
    return scope.but(env=tuple(env))


def _bind_pattern(pattern: Node | None, path: Path_ | None, env: list) -> None:
    if pattern is None:
        return
    if pattern.kind == "pattern_var":
        env.append((str(pattern.value), path))
    elif pattern.kind == "pattern_array":
        for index, item in enumerate(pattern.children):
            _bind_pattern(item, (*path, f"[{index}]") if path is not None else None, env)
    elif pattern.kind == "pattern_object":
        for entry in pattern.children:
            key, value = ([*entry.children, None, None])[:2] if entry is not None else (None, None)
            name = key.value if key is not None and key.kind == "literal" and isinstance(key.value, str) else None
            sub = (*path, name) if path is not None and name is not None else None
            if value is None and key is not None and key.kind == "pattern_var":  # {$name}
                env.append((str(key.value), (*path, str(key.value)) if path is not None else None))
            else:
                _bind_pattern(value, sub, env)


def _defined(node: Node, scope: _Scope) -> _Scope:
    """A user ``def`` without parameters is inlined where it is called (one with parameters is not)."""
    body = node.children[0]
    if body is None or node.params:
        return scope
    return scope.but(funcs=(*scope.funcs, (str(node.value), body)))


def _tested(cond: Node | None, scope: _Scope) -> frozenset:
    """Paths that are non-null whenever ``cond`` is true: ``P``, ``P != null``, ``has("k")``,
    ``P | type == "..."``, and conjunctions of these."""
    if cond is None:
        return frozenset()
    if cond.kind == "paren":
        return _tested(cond.children[0], scope)
    if cond.kind == "binop" and cond.value == "and":
        return _tested(cond.children[0], scope) | _tested(cond.children[1], scope)
    if cond.kind == "binop" and cond.value in ("!=", "=="):
        left, right = cond.children
        if cond.value == "!=" and right is not None and right.kind == "literal" and right.value is None:
            return _tested(left, scope)
        if cond.value == "!=" and left is not None and left.kind == "literal" and left.value is None:
            return _tested(right, scope)
        if cond.value == "==" and right is not None and right.kind == "literal" and right.value is not None:
            return _tested(left, scope)  # equal to a non-null constant: present
        return frozenset()
    if cond.kind == "call" and cond.value == "has" and len(cond.children) == 1:
        key = cond.children[0]
        if key is not None and key.kind == "literal" and isinstance(key.value, str) and scope.base is not None:
            return frozenset({(*scope.base, key.value)})
        return frozenset()
    if cond.kind == "binop" and cond.value == "|":
        left_path = _path_of(cond.children[0], scope)
        if left_path is not None and cond.children[1] is not None and cond.children[1].kind == "binop":
            return frozenset({left_path})  # `P | type == "object"`, `P | length > 0`
        return frozenset()
    path = _path_of(cond, scope) if cond.kind in ("field", "index", "var", "optional", "identity") else None
    return frozenset({path}) if path is not None else frozenset()


def _construct(node: Node) -> str:
    while (
        node.kind in ("iterate", "field", "index", "optional", "paren")
        and node.children
        and node.children[0] is not None
    ):
        node = node.children[0]
    if node.kind == "call":
        return str(node.value)
    if node.kind == "binop" and node.value == "|":
        return _construct(node.children[1]) if node.children[1] is not None else "a pipe"
    return {
        "object": "an object construction",
        "array": "an array construction",
        "literal": "a constant",
        "reduce": "reduce",
        "foreach": "foreach",
        "if": "an if whose branches read different places",
        "binop": f"the operator {node.value}",
        "format": "a format string",
        "string": "a string",
    }.get(node.kind, node.kind)


def _reads_input(node: Node | None) -> Node | None:
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


_FACTS: dict = {}  # id(tree) -> (tree, facts): parsed trees are cached and shared, so are their facts


def path_facts_of(root: Node) -> PathFacts:
    """What an expression reads: every maximal field path (through pipes, ``select``, ``if``,
    ``//``, ``try``, variables, ``reduce``/``foreach`` sources, ``map``, user ``def``s inlined
    up to a depth), the arithmetic on bare unguarded paths, the comparisons of a path with a
    string, and the places after which reads cannot be related to the input (``to_entries``, a
    constructed value, ...). Computed once per tree."""
    cached = _FACTS.get(id(root))
    if cached is not None and cached[0] is root:
        return cached[1]
    facts = PathFacts()
    _walk(root, _Scope(base=()), facts)
    if len(_FACTS) > 4096:
        _FACTS.clear()
    _FACTS[id(root)] = (root, facts)
    return facts


def output_path(root: Node) -> tuple[str, ...] | None:
    """The input path an expression's outputs come from (``.status.phase // "x"`` -> status.phase),
    or None when it computes new values."""
    return _path_of(root, _Scope(base=()))


def compared_constants(root: Node) -> list[tuple[tuple[str, ...], str, int, int]]:
    """(path, string, start, end) for each ``P == "s"`` / ``"s" == P`` / ``!=`` in an expression,
    where P is a static input path (followed like every other read)."""
    return path_facts_of(root).comparisons


def path_facts(root: Node) -> list[PathRead]:
    """Every maximal field path read (see ``path_facts_of``)."""
    return path_facts_of(root).reads


def unguarded_arithmetic(root: Node) -> list[tuple[Node, PathRead]]:
    """(operator node, operand path) for ``-``, ``*``, ``/``, ``%`` on a bare path that nothing
    guards: jq fails on ``null`` there (``null + x`` is fine, so ``+`` is not reported)."""
    return path_facts_of(root).arithmetic


def _read(node: Node, scope: _Scope, path: Path_) -> PathRead:
    exact = scope.guarded or node.kind == "optional" or _has_optional(node) or path in scope.tested
    parent = any(path[: len(t)] == t for t in scope.tested if len(t) < len(path))
    return PathRead(path, node.start, node.end, exact, parent)


def _walk(node: Node | None, scope: _Scope, facts: PathFacts) -> None:
    if node is None:
        return
    kind = node.kind
    if kind in ("field", "index", "iterate", "optional") or (kind == "var" and scope.var(str(node.value)) is not None):
        full = _path_of(node, scope)
        if full is not None:
            if kind != "var":
                facts.reads.append(_read(node, scope, full))
            for sub in node.walk():  # index expressions are evaluated against the input too
                if sub.kind == "index" and sub.children[1] is not None and sub.children[1].kind != "literal":
                    _walk(sub.children[1], scope, facts)
            return
    if kind == "binop" and node.value == "|":
        left, right = node.children
        _walk(left, scope, facts)
        left_path = _path_of(left, scope)
        tested = scope.tested
        last = _last_stage(left)
        if (
            last is not None
            and last.kind == "call"
            and last.value == "select"
            and last.children
            and left_path is not None
        ):
            tested = tested | _tested(last.children[0], scope.but(base=left_path))
        if left_path is None and scope.base is not None and left is not None:
            reader = _reads_input(right)
            if reader is not None:
                facts.not_followed.append(NotFollowed(_construct(left), left.start, left.end))
        _walk(right, scope.but(base=left_path, tested=tested), facts)
        return
    if kind == "binop" and node.value == "//":
        _walk(node.children[0], scope.but(guarded=True), facts)
        _walk(node.children[1], scope, facts)
        return
    if kind == "binop" and node.value == "and":
        _walk(node.children[0], scope, facts)
        _walk(node.children[1], scope.but(tested=scope.tested | _tested(node.children[0], scope)), facts)
        return
    if kind == "binop" and node.value in ("==", "!="):
        left, right = node.children
        for path_node, constant in ((left, right), (right, left)):
            if (
                constant is not None
                and constant.kind == "literal"
                and isinstance(constant.value, str)
                and path_node is not None
            ):
                path = _path_of(path_node, scope)
                if path is not None:
                    facts.comparisons.append((path, constant.value, constant.start, constant.end))
    if kind == "binop" and node.value in _ARITH_FAILS_ON_NULL:
        for operand in node.children:
            bare = operand.children[0] if operand is not None and operand.kind == "paren" else operand
            if bare is not None and bare.kind in ("field", "index") and not _has_optional(bare):
                full = _path_of(bare, scope)
                if full is not None:
                    read = _read(bare, scope, full)
                    if not read.guarded:
                        facts.arithmetic.append((node, read))
    if kind in ("try", "optional"):
        for child in node.children:
            _walk(child, scope.but(guarded=True), facts)
        return
    if kind == "if":
        pairs = node.value if isinstance(node.value, int) and node.value else 1
        tested = scope.tested
        for i in range(pairs):
            cond, then = node.children[2 * i], node.children[2 * i + 1]
            _walk(cond, scope.but(tested=tested), facts)
            _walk(then, scope.but(tested=tested | _tested(cond, scope)), facts)
        for rest in node.children[2 * pairs :]:
            _walk(rest, scope, facts)
        return
    if kind == "bind":
        _walk(node.children[0], scope, facts)
        _walk(node.children[1], _bound(node, scope), facts)
        return
    if kind in ("reduce", "foreach"):
        _walk(node.children[0], scope, facts)
        inner = _bound(node, scope).but(base=None)  # `.` is the accumulator there, not the input
        for child in node.children[2:]:
            if child is not None and not child.kind.startswith("pattern"):
                _walk(child, inner, facts)
        return
    if kind == "funcdef":
        _walk(node.children[1], _defined(node, scope), facts)  # the body is read where it is called
        return
    if kind == "call":
        name = str(node.value)
        body = scope.func(name) if not node.children else None
        if body is not None:
            if scope.depth < MAX_INLINE_DEPTH:
                _walk(body, scope.but(depth=scope.depth + 1), facts)
            return
        inner_base = (
            (*scope.base, "[]") if scope.base is not None and name in _ELEMENT_CALLS and node.children else scope.base
        )
        for child in node.children:
            _walk(child, scope.but(base=inner_base), facts)
        return
    for child in node.children:
        if child is not None and child.kind.startswith("pattern"):
            continue
        _walk(child, scope, facts)


def _last_stage(node: Node | None) -> Node | None:
    while node is not None and node.kind == "binop" and node.value == "|":
        node = node.children[1]
    while node is not None and node.kind == "paren":
        node = node.children[0]
    return node


def _has_optional(node: Node) -> bool:
    return any(n.kind == "optional" for n in node.walk())


_ARITH_FAILS_ON_NULL = ("-", "*", "/", "%")


Path_ = tuple[str, ...]
