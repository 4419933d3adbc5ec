"""Which paths of the input a jq expression reads, followed through pipes, variables, ``select``,
``if``, alternatives, ``to_entries``/``with_entries``, ``getpath`` and function calls (the places
come from ``kartalint.jqlang.places``): the facts the CRD-aware rules check."""

from __future__ import annotations

from kartalint.jqlang import uses
from kartalint.jqlang.parser import Node
from kartalint.jqlang.places import (
    COMPUTED,
    MAX_INLINE_DEPTH,
    MAX_TESTED,
    PSEUDO,
    Path_,
    Scope,
    argument_bases,
    bound,
    defined,
    if_branches,
    places_of,
    reads_input,
    real,
    single,
    tested,
)
from kartalint.jqlang.reads import PathRead, path_text, read_at
from kartalint.jqlang.uses import Consumed, Fallback, StringTest
from kartalint.model import Frozen, Record, set_field

__all__ = ["MAX_INLINE_DEPTH", "NotFollowed", "PathFacts", "PathRead", "path_facts", "path_text"]


class NotFollowed(Frozen):
    """A place after which the reads of an expression cannot be related to the input document."""

    __slots__ = ("construct", "end", "start")
    construct: str  # as written: "to_entries", "$name", "an object construction"
    start: int
    end: int

    def __init__(self, construct: str, start: int, end: int) -> None:
        """The ``construct`` written from ``start`` to ``end`` (excluded)."""
        set_field(self, "construct", construct)
        set_field(self, "start", start)
        set_field(self, "end", end)


class PathFacts(Record):
    """What an expression does with the input paths it reads: the reads, arithmetic on bare paths, paths it stops
    following, comparisons and string tests, object keys, and more (one list per use); found by ``path_facts``,
    which fills the lists."""

    __slots__ = (
        "_memo",
        "arithmetic",
        "comparisons",
        "consumed",
        "fallbacks",
        "not_followed",
        "object_keys",
        "reads",
        "string_tests",
        "sums",
    )
    reads: list[PathRead]
    arithmetic: list[tuple[Node, PathRead]]  # `-`, `*`, `/`, `%` on a bare, unguarded path
    not_followed: list[NotFollowed]
    comparisons: list[tuple[tuple[str, ...], str, int, int]]  # P == "s" / P != "s"
    object_keys: list[PathRead]  # {(P): v}: P read as an object key
    string_tests: list[StringTest]  # P == "s", P | test("re"), startswith...
    fallbacks: list[Fallback]  # P // 1, P // "x", P // true
    consumed: list[Consumed]  # P | to_entries, keys, map(f), add... (fail on null)
    sums: list[tuple[Node, PathRead]]  # `-`, `*`... on `map(.x) | add`
    _memo: dict  # tested paths of `and` chains

    def __init__(self) -> None:
        """No fact yet."""
        self.reads = []
        self.arithmetic = []
        self.not_followed = []
        self.comparisons = []
        self.object_keys = []
        self.string_tests = []
        self.fallbacks = []
        self.consumed = []
        self.sums = []
        self._memo = {}


_FACTS: dict = {}  # id(tree) -> (tree, facts): parsed trees are cached and shared, so are their facts


def path_facts(root: Node) -> PathFacts:
    """What an expression reads: every maximal field path (through pipes, ``select``, ``if``,
    ``//``, ``try``, variables, ``reduce``/``foreach`` sources, ``map``, ``to_entries``,
    ``getpath``, user ``def``s inlined up to a depth), the arithmetic on bare unguarded paths, the
    comparisons of a path with a string, the paths used as object keys, and the places after which
    reads cannot be related to the input (a constructed value, ...). Computed once per tree."""
    cached = _FACTS.get(id(root))
    if cached is not None and cached[0] is root:
        return cached[1]
    facts = PathFacts()
    _walk(root, Scope(base=((),)), facts)
    facts._memo.clear()
    facts.reads = list(dict.fromkeys(facts.reads))  # an `if` or `//` may lead twice to one read
    facts.arithmetic = list({(id(op), read): (op, read) for op, read in facts.arithmetic}.values())
    facts.sums = list({(id(op), read): (op, read) for op, read in facts.sums}.values())
    facts.string_tests = list(dict.fromkeys(facts.string_tests))
    facts.fallbacks = list(dict.fromkeys(facts.fallbacks))
    facts.consumed = list(dict.fromkeys(facts.consumed))
    if len(_FACTS) > 4096:
        _FACTS.clear()
    _FACTS[id(root)] = (root, facts)
    return facts


def output_path(root: Node) -> tuple[str, ...] | None:
    """The input path an expression's outputs come from (``.status.phase // "x"`` -> status.phase),
    or None when it computes new values or reads several places."""
    path = single(places_of(root, Scope(base=((),))))
    return path if path is not None and not any(p in PSEUDO for p in path) else None


def output_places(root: Node) -> list[tuple[str, ...]]:
    """Every input place an expression's outputs may come from (the branches of an ``if``, the two
    sides of ``//``); computed values are left out."""
    return [p for p in real(places_of(root, Scope(base=((),)))) if not any(s in PSEUDO for s in p)]


def compared_constants(root: Node) -> list[tuple[tuple[str, ...], str, int, int]]:
    """(path, string, start, end) for each ``P == "s"`` / ``"s" == P`` / ``!=`` in an expression,
    where P is a static input path (followed like every other read)."""
    return path_facts(root).comparisons


def unguarded_arithmetic(root: Node) -> list[tuple[Node, PathRead]]:
    """(operator node, operand path) for ``-``, ``*``, ``/``, ``%`` on a bare path that nothing
    guards: jq fails on ``null`` there (``null + x`` is fine, so ``+`` is not reported)."""
    return path_facts(root).arithmetic


def _with_ancestors(paths: frozenset) -> frozenset:
    return frozenset(path[:i] for path in paths for i in range(1, len(path) + 1))


def _also_tested(scope: Scope, more: frozenset) -> Scope:
    """``scope`` where the paths ``more`` are known non-null, and so their ancestors (at most
    ``MAX_TESTED`` paths are kept: a long chain of conditions adds nothing more)."""
    room = MAX_TESTED - len(scope.tested)
    if not more or room <= 0:
        return scope
    added = _with_ancestors(more) - scope.tested
    return scope.but(tested=scope.tested | (added if len(added) <= room else frozenset(list(added)[:room])))


_CHAIN = ("field", "index", "iterate", "optional", "paren", "slice")


def _is_read(node: Node, scope: Scope) -> bool:
    kind = node.kind
    if kind in ("field", "index", "iterate", "optional"):
        return True
    if kind == "var":
        return bool(real(scope.var(str(node.value))))
    return kind == "call" and node.value == "getpath" and len(node.children) == 1


def _walk_read(node: Node, scope: Scope, facts: PathFacts) -> bool:
    """Record the reads of a path chain (``.a.b[]``, ``$v.x``, ``(if ... end).y``); False when the
    chain reads no place of the input."""
    places = real(places_of(node, scope))
    if not places:
        return False
    if node.kind != "var":
        facts.reads.extend(read_at(node, scope, place) for place in places)
    # what the chain starts from, when it is not `.` or a variable, is walked for its own reads; the
    # keys of computed indices are evaluated against the input too
    inner: Node | None = node
    optional = False
    while inner is not None:
        optional = optional or inner.kind == "optional"
        if inner.kind in ("index", "slice"):
            for key in inner.children[1:]:
                if key is not None and key.kind != "literal":
                    _walk(key, scope, facts)
        if inner.kind not in _CHAIN or not inner.children or inner.children[0] is None:
            break
        inner = inner.children[0]
    if inner is not None and inner is not node and inner.kind not in (*_CHAIN, "identity", "var"):
        _walk(inner, scope.but(guarded=scope.guarded or optional), facts)
    return True


def _walk(node: Node | None, scope: Scope, facts: PathFacts) -> None:
    if node is None:
        return
    kind = node.kind
    if _is_read(node, scope) and _walk_read(node, scope, facts):
        return
    if kind == "binop" and node.value == "|":
        _walk_pipe(node, scope, facts)
        return
    if kind == "binop" and node.value == "//":
        facts.fallbacks.extend(uses.fallback(node, scope))
        _walk(node.children[0], scope.but(guarded=True), facts)
        _walk(node.children[1], scope, facts)
        return
    if kind == "binop" and node.value == "and":
        _walk(node.children[0], scope, facts)
        _walk(node.children[1], _also_tested(scope, tested(node.children[0], scope, facts._memo)), facts)
        return
    if kind == "binop" and node.value in ("==", "!="):
        facts.comparisons.extend(uses.comparisons(node, scope))
        facts.string_tests.extend(uses.string_tests(node, scope))
    if kind == "binop" and node.value in _ARITH_FAILS_ON_NULL:
        facts.arithmetic.extend(uses.arithmetic(node, scope))
        facts.sums.extend(uses.sums(node, scope))
    if kind == "object":
        facts.object_keys.extend(uses.object_keys(node, scope))
    if kind in ("try", "optional"):
        for child in node.children:
            _walk(child, scope.but(guarded=True), facts)
        return
    if kind == "if":
        pairs = node.value if isinstance(node.value, int) and node.value else 1
        for i in range(pairs):
            cond, then = node.children[2 * i], node.children[2 * i + 1]
            _walk(cond, scope, facts)
            _walk(then, _also_tested(scope, tested(cond, scope)), facts)
        for rest in node.children[2 * pairs :]:
            _walk(rest, scope, facts)
        return
    if kind == "bind":
        _walk(node.children[0], scope, facts)
        inner = bound(node, scope)
        pattern = node.children[2] if len(node.children) > 2 else None
        if pattern is not None and pattern.kind == "pattern_var" and uses.never_null(node.children[0]):
            inner = inner.but(values=inner.values | {str(pattern.value)})
        _walk(node.children[1], inner, facts)
        return
    if kind in ("reduce", "foreach"):
        _walk(node.children[0], scope, facts)
        _walk(node.children[2], scope, facts)  # the initial value is computed from the input
        inner = bound(node, scope).but(base=COMPUTED)  # `.` is the accumulator there, not the input
        for child in node.children[3:]:
            _walk(child, inner, facts)
        return
    if kind == "funcdef":
        _walk(node.children[1], defined(node, scope), facts)  # the body is read where it is called
        return
    if kind == "call":
        name = str(node.value)
        body = scope.func(name) if not node.children else None
        if body is None:
            facts.string_tests.extend(uses.string_tests(node, scope))
            facts.consumed.extend(uses.consumed(node, scope))
        if body is not None:
            if scope.depth < MAX_INLINE_DEPTH:
                _walk(body, scope.but(depth=scope.depth + 1), facts)
            return
        for child, base in zip(node.children, argument_bases(node, scope), strict=True):
            _walk(child, scope.but(base=base), facts)
        return
    for child in node.children:
        if child is not None and child.kind.startswith("pattern"):
            continue
        _walk(child, scope, facts)


def _walk_pipe(node: Node, scope: Scope, facts: PathFacts) -> None:
    left, right = node.children
    _walk(left, scope, facts)
    left_places = places_of(left, scope)
    after = scope
    last = _last_stage(left)
    left_path = single(left_places)
    if last is not None and last.kind == "call" and last.value == "select" and last.children and left_path is not None:
        after = _also_tested(after, tested(last.children[0], scope.but(base=(left_path,))))
    if last is not None and last.kind == "if":
        after = _also_tested(after, _present_after_if(last, scope))
    if not real(left_places) and real(scope.base) and left is not None and reads_input(right) is not None:
        facts.not_followed.append(NotFollowed(construct(left), left.start, left.end))
    present = uses.never_null(left) or (left is not None and left.kind == "var" and str(left.value) in scope.values)
    _walk(right, after.but(base=left_places, present=present), facts)


def _present_after_if(node: Node, scope: Scope) -> frozenset:
    """The places an ``if`` outputs that exist whenever they are output: in every branch that
    outputs it, the branch's condition tests it or something under it
    (``if .status.list then .status.list else [] end``)."""
    pairs = node.value if isinstance(node.value, int) and node.value else 1
    seen: dict[Path_, bool] = {}
    for i, branch in enumerate(if_branches(node)):
        known = _with_ancestors(tested(node.children[2 * i], scope)) if i < pairs else frozenset()
        for place in real(places_of(branch, scope)):
            present = place in scope.tested or place in known
            seen[place] = seen.get(place, True) and present
    return frozenset(place for place, present in seen.items() if present)


def construct(node: Node) -> str:
    """The construct after which reads cannot be related to the input, as the author wrote it."""
    while (
        node.kind in ("iterate", "field", "index", "optional", "paren")
        and node.children
        and node.children[0] is not None
    ):
        node = node.children[0]
    if node.kind == "call":
        return str(node.value)
    if node.kind == "var":
        return f"${node.value}"
    if node.kind == "binop" and node.value == "|":
        return construct(node.children[1]) if node.children[1] is not None else "a pipe"
    if node.kind == "binop":
        return f"the operator {node.value}"
    return {
        "object": "an object construction",
        "array": "an array construction",
        "literal": "a constant",
        "reduce": "reduce",
        "foreach": "foreach",
        "if": "an if whose branches compute values",
        "format": "a format string",
        "string": "a string",
        "bind": "an `as` binding",
        "neg": "a negation",
        "slice": "a slice",
        "try": "try",
        "label": "label",
        "funcdef": "a def",
    }.get(node.kind, node.kind)


def _last_stage(node: Node | None) -> Node | None:
    while node is not None and node.kind == "binop" and node.value == "|":
        node = node.children[1]
    while node is not None and node.kind == "paren":
        node = node.children[0]
    return node


_ARITH_FAILS_ON_NULL = ("-", "*", "/", "%")
