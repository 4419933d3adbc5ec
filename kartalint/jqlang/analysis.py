"""What kartalint knows about a jq expression from its syntax tree.

* ``restrictions``: Karta's blacklist (spec §2.3) as upstream applies it, plus the places
  upstream's walker misses (``as`` bodies, ``label`` bodies, unary operands), marked as such;
* ``portability``: constructs libjq accepts but gojq lacks or evaluates differently;
* ``safety``: constructs that read the environment, files or input, or never terminate;
* ``first_non_path``: why an expression cannot be used as an assignable path;
* ``path_facts``: the field paths an expression reads and whether each is guarded by ``//``;
* ``unguarded_arithmetic``: arithmetic that fails when an operand path is absent (null).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, Iterator, List, Optional, Tuple

from .parser import ASSIGN_OPS, Node

FORBIDDEN_DEL = "del"
FORBIDDEN_EXCESSIVE = ("range", "paths", "recurse", "walk", "repeat")

# Builtins that libjq has and gojq lacks or treats differently.
NOT_PORTABLE_CALLS = {
    "keys_unsorted": "gojq has no keys_unsorted (object keys are always sorted there); use keys",
    "input_line_number": "gojq has no input_line_number",
    "get_search_list": "gojq has no get_search_list",
    "get_jq_origin": "gojq has no get_jq_origin",
    "get_prog_origin": "gojq has no get_prog_origin",
    "recurse_down": "gojq has no recurse_down",
    "splits/2": "splits with flags: Oniguruma (libjq) and Go regexp (gojq) flags differ",
}
NOT_PORTABLE_VARS = {"__loc__": "gojq has no $__loc__", "__prog_args": "gojq has no $__prog_args"}
UNSAFE_CALLS = {
    "env": "reads the process environment (it would leak CI secrets into reports; Karta runs with none)",
    "input": "reads further inputs",
    "inputs": "reads further inputs",
    "debug": "writes to stderr",
    "stderr": "writes to stderr",
    "input_filename": "reads the input file name",
    "halt": "stops the program",
    "halt_error": "stops the program",
}
UNSAFE_VARS = {"ENV": "reads the process environment (it would leak CI secrets into reports; Karta runs with none)"}
REGEX_CALLS = {"test", "match", "capture", "scan", "split", "splits", "sub", "gsub"}
_NOT_RE2 = re.compile(r"\(\?[=!]|\(\?<[=!]|\(\?>|\\[1-9]|[*+?}]\+|\\[hHRXK]")

# Calls through which a jq expression stays an assignable path.
PATH_CALLS = {
    "select", "first", "last", "getpath", "empty", "error", "recurse", "limit", "nth", "objects",
    "arrays", "scalars", "strings", "numbers", "booleans", "nulls", "iterables", "values", "paths",
}
_ARITH_FAILS_ON_NULL = ("-", "*", "/", "%")


@dataclass(frozen=True)
class Problem:
    rule: str
    message: str
    start: int
    end: int
    upstream_misses: bool = False


def _walk_with_visibility(root: Node) -> Iterator[Tuple[Node, bool]]:
    """Nodes with a flag: True where upstream's blacklist walker does not look."""
    stack: List[Tuple[Node, bool]] = [(root, False)]
    while stack:
        node, hidden = stack.pop()
        yield node, hidden
        kind = node.kind
        for index, child in enumerate(node.children):
            if child is None:
                continue
            child_hidden = hidden
            if kind == "bind" and index >= 1:
                child_hidden = True  # `as $x | body`: upstream does not descend
            elif kind in ("label", "neg"):
                child_hidden = True
            stack.append((child, child_hidden))


def restrictions(root: Node) -> List[Problem]:
    """Karta's forbidden constructs: ``del``, excessive-output functions, ``..``, assignment."""
    problems = []
    for node, hidden in _walk_with_visibility(root):
        if node.kind == "call" and node.value == FORBIDDEN_DEL:
            problems.append(Problem("jq-forbidden-function", "del function is not allowed", node.start, node.end, hidden))
        elif node.kind == "call" and node.value in FORBIDDEN_EXCESSIVE:
            problems.append(
                Problem("jq-forbidden-function", f"function '{node.value}' may produce excessive output and is not allowed", node.start, node.end, hidden)
            )
        elif node.kind == "recurse":
            problems.append(Problem("jq-recursive-descent", "recursive descent operator '..' is not allowed", node.start, node.end, hidden))
        elif node.kind == "binop" and node.value in ASSIGN_OPS:
            problems.append(Problem("jq-assignment", f"modifying operator '{node.value}' is not allowed", node.start, node.end, hidden))
    problems.sort(key=lambda p: (p.start, p.end))
    return problems


def portability(root: Node, source: str) -> List[Problem]:
    problems = []
    for node in root.walk():
        if node.kind == "call":
            name = str(node.value)
            arity = len(node.children)
            reason = NOT_PORTABLE_CALLS.get(f"{name}/{arity}") or NOT_PORTABLE_CALLS.get(name)
            if reason:
                problems.append(Problem("jq-not-portable", f"'{name}' is not portable: {reason}", node.start, node.end))
            if name in REGEX_CALLS and node.children:
                regex = node.children[0]
                if regex is not None and regex.kind == "literal" and isinstance(regex.value, str) and _NOT_RE2.search(regex.value):
                    problems.append(
                        Problem("jq-not-portable", "regular expression uses a feature Go's regexp (gojq) does not support (lookaround, backreference, atomic or possessive groups)", regex.start, regex.end)
                    )
        elif node.kind == "var" and node.value in NOT_PORTABLE_VARS:
            problems.append(Problem("jq-not-portable", f"'${node.value}' is not portable: {NOT_PORTABLE_VARS[node.value]}", node.start, node.end))
        elif node.kind == "funcdef":
            name = str(node.value)
            if "::" in name:
                problems.append(Problem("jq-not-portable", f"module-qualified function name '{name}' is not accepted by gojq", node.start, node.end))
            elif name in ("if", "then", "elif", "else", "end", "as", "reduce", "foreach", "try", "catch", "label", "import", "include", "and", "or", "not", "def", "__loc__"):
                problems.append(Problem("jq-not-portable", f"gojq does not allow the keyword '{name}' as a function name", node.start, node.end))
        elif node.kind == "slice":
            for bound in node.children[1:]:
                if bound is not None and bound.kind == "literal" and isinstance(bound.value, float):
                    problems.append(Problem("jq-not-portable", "slices with fractional bounds round differently in libjq and gojq", bound.start, bound.end))
    return problems


def safety(root: Node) -> List[Problem]:
    problems = []
    for node in root.walk():
        if node.kind == "call":
            reason = UNSAFE_CALLS.get(str(node.value))
            if reason and not _defined_locally(root, str(node.value)):
                problems.append(Problem("jq-unsafe", f"'{node.value}' {reason}", node.start, node.end))
        elif node.kind == "var" and node.value in UNSAFE_VARS:
            problems.append(Problem("jq-unsafe", f"'${node.value}' {UNSAFE_VARS[node.value]}", node.start, node.end))
        elif node.kind == "directive":
            problems.append(Problem("jq-unsafe", f"'{node.value}' reads jq modules from files", node.start, node.end))
    problems.extend(unbounded_recursion(root))
    return problems


def _defined_locally(root: Node, name: str) -> bool:
    return any(n.kind == "funcdef" and n.value == name for n in root.walk())


def unbounded_recursion(root: Node) -> List[Problem]:
    """Recursive functions whose self-call is reached on every path (no visible base case)."""
    problems = []
    for node in root.walk():
        if node.kind != "funcdef":
            continue
        body = node.children[0]
        if body is None:
            continue
        call = _unconditional_self_call(body, str(node.value), len(node.params))
        if call is not None:
            problems.append(
                Problem(
                    "jq-unbounded-recursion",
                    f"function '{node.value}' calls itself on every path and never returns",
                    call.start,
                    call.end,
                )
            )
    return problems


_STOPPERS = {"if", "try", "optional", "reduce", "foreach", "label", "funcdef"}
_MAY_BE_EMPTY_CALLS = {"select", "empty", "error", "first", "limit", "until", "while", "recurse", "last", "nth", "halt", "halt_error"}


def _may_stop(node: Node) -> bool:
    """True when ``node`` may produce no output (so what is piped after it may not run)."""
    for sub in node.walk():
        if sub.kind in ("iterate", "if", "try", "optional", "reduce", "foreach"):
            return True
        if sub.kind == "call" and sub.value in _MAY_BE_EMPTY_CALLS:
            return True
    return False


def _unconditional_self_call(node: Node, name: str, arity: int) -> Optional[Node]:
    if node.kind == "call" and node.value == name and len(node.children) == arity:
        return node
    if node.kind in _STOPPERS or node.kind == "call":
        return None
    if node.kind == "binop":
        left, right = node.children
        op = node.value
        if op in ("//", "and", "or"):
            return _unconditional_self_call(left, name, arity) if left is not None else None
        if op == "|":
            found = _unconditional_self_call(left, name, arity) if left is not None else None
            if found is not None:
                return found
            if left is not None and _may_stop(left):
                return None
            return _unconditional_self_call(right, name, arity) if right is not None else None
    if node.kind == "bind":
        source, body = node.children[0], node.children[1]
        found = _unconditional_self_call(source, name, arity) if source is not None else None
        if found is not None:
            return found
        if source is not None and _may_stop(source):
            return None
        return _unconditional_self_call(body, name, arity) if body is not None else None
    for child in node.children:
        if child is None:
            continue
        found = _unconditional_self_call(child, name, arity)
        if found is not None:
            return found
    return None


def first_non_path(node: Node) -> Optional[Node]:
    """The first sub-expression that prevents ``node`` from being an assignable path, or None."""
    kind = node.kind
    if kind in ("identity", "iterate", "field", "index", "slice", "optional", "paren", "try"):
        target = node.children[0] if node.children else None
        if kind == "index" and target is None:
            return None
        if kind == "try":
            return first_non_path(target) if target is not None else None
        return first_non_path(target) if target is not None else None
    if kind == "recurse":
        return None
    if kind == "binop" and node.value in ("|", ","):
        for child in node.children:
            if child is not None:
                bad = first_non_path(child)
                if bad is not None:
                    return bad
        return None
    if kind == "if":
        branches = int(node.value or 1)
        results = [node.children[2 * i + 1] for i in range(branches)]
        if len(node.children) > 2 * branches:
            results.append(node.children[-1])
        for child in results:
            if child is not None:
                bad = first_non_path(child)
                if bad is not None:
                    return bad
        return None
    if kind == "bind":
        body = node.children[1]
        return first_non_path(body) if body is not None else None
    if kind == "call" and node.value in PATH_CALLS:
        return None
    if kind == "funcdef":
        rest = node.children[1]
        return first_non_path(rest) if rest is not None else None
    return node


@dataclass(frozen=True)
class PathRead:
    """A field path read by an expression, e.g. ``.spec.replicatedJobs[].replicas``."""

    path: Tuple[str, ...]  # field names, "[]" for iteration, "[n]" for indices, "[?]" for a computed index
    start: int
    end: int
    guarded: bool  # under the left side of `//` or `?`, inside try, or tested by an enclosing select/if/and
    parent_tested: bool = False  # an ancestor path is tested non-null by an enclosing select/if/and

    def text(self) -> str:
        return path_text(self.path)


def path_text(path: Tuple[str, ...]) -> str:
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
    reads: List[PathRead] = field(default_factory=list)
    arithmetic: List[Tuple[Node, PathRead]] = field(default_factory=list)  # `-`, `*`, `/`, `%` on a bare, unguarded path
    not_followed: List[NotFollowed] = field(default_factory=list)
    comparisons: List[Tuple[Tuple[str, ...], str, int, int]] = field(default_factory=list)  # P == "s" / P != "s"


Path_ = Tuple[str, ...]
MAX_INLINE_DEPTH = 4
# builtins whose output is their input (or part of the empty stream): the path goes through them
_PASS_THROUGH = {"select", "values", "objects", "arrays", "strings", "numbers", "booleans", "nulls",
                 "iterables", "scalars", "not_null", "debug", "empty"}
# builtins whose output is (a stream of) their last argument's output
_OUTPUT_OF_ARGUMENT = {"first", "last", "limit", "until", "nth"}
_ELEMENT_CALLS = {"map", "any", "all", "map_values"}


@dataclass(frozen=True)
class _Scope:
    base: Optional[Path_]  # the path of `.`; None when it is not a place of the input
    env: Tuple[Tuple[str, Optional[Path_]], ...] = ()  # variables bound to input paths
    funcs: Tuple[Tuple[str, Node], ...] = ()  # user functions of arity 0, inlined at their calls
    guarded: bool = False
    tested: frozenset = frozenset()  # paths an enclosing select/if/and tests non-null
    depth: int = 0

    def var(self, name: str) -> Optional[Path_]:
        for key, value in reversed(self.env):
            if key == name:
                return value
        return None

    def func(self, name: str) -> Optional[Node]:
        for key, value in reversed(self.funcs):
            if key == name:
                return value
        return None

    def but(self, **changes: Any) -> "_Scope":
        return replace(self, **changes)


def _path_of(node: Optional[Node], scope: _Scope) -> Optional[Path_]:
    """The static input path a node's outputs come from (None when they are computed values)."""
    base = scope.base
    if node is None or node.kind == "identity":
        return base
    kind = node.kind
    if kind == "var":
        return scope.var(str(node.value))
    if kind == "field":
        inner = _path_of(node.children[0], scope)
        return inner + (str(node.value),) if inner is not None else None
    if kind == "index":
        inner = _path_of(node.children[0], scope)
        key = node.children[1]
        if inner is None or key is None:
            return None
        if key.kind == "literal" and isinstance(key.value, str):
            return inner + (key.value,)
        if key.kind == "literal" and isinstance(key.value, int):
            return inner + (f"[{key.value}]",)
        return inner + ("[?]",)
    if kind == "iterate":
        inner = _path_of(node.children[0], scope)
        return inner + ("[]",) if inner is not None else None
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


def _if_branches(node: Node) -> List[Optional[Node]]:
    """The result branches of an ``if`` (then, elif-thens, else; a missing else is ``.``)."""
    pairs = int(node.value or 1)
    branches = [node.children[2 * i + 1] for i in range(pairs)]
    rest = node.children[2 * pairs:]
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


def _bind_pattern(pattern: Optional[Node], path: Optional[Path_], env: list) -> None:
    if pattern is None:
        return
    if pattern.kind == "pattern_var":
        env.append((str(pattern.value), path))
    elif pattern.kind == "pattern_array":
        for index, item in enumerate(pattern.children):
            _bind_pattern(item, path + (f"[{index}]",) if path is not None else None, env)
    elif pattern.kind == "pattern_object":
        for entry in pattern.children:
            key, value = (entry.children + [None, None])[:2] if entry is not None else (None, None)
            name = key.value if key is not None and key.kind == "literal" and isinstance(key.value, str) else None
            sub = path + (name,) if path is not None and name is not None else None
            if value is None and key is not None and key.kind == "pattern_var":  # {$name}
                env.append((str(key.value), path + (str(key.value),) if path is not None else None))
            else:
                _bind_pattern(value, sub, env)


def _defined(node: Node, scope: _Scope) -> _Scope:
    """A user ``def`` without parameters is inlined where it is called (one with parameters is not)."""
    body = node.children[0]
    if body is None or node.params:
        return scope
    return scope.but(funcs=scope.funcs + ((str(node.value), body),))


def _tested(cond: Optional[Node], scope: _Scope) -> frozenset:
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
            return frozenset({scope.base + (key.value,)})
        return frozenset()
    if cond.kind == "binop" and cond.value == "|":
        left = _path_of(cond.children[0], scope)
        if left is not None and cond.children[1] is not None and cond.children[1].kind == "binop":
            return frozenset({left})  # `P | type == "object"`, `P | length > 0`
        return frozenset()
    path = _path_of(cond, scope) if cond.kind in ("field", "index", "var", "optional", "identity") else None
    return frozenset({path}) if path is not None else frozenset()


def _construct(node: Node) -> str:
    while node.kind in ("iterate", "field", "index", "optional", "paren") and node.children and node.children[0] is not None:
        node = node.children[0]
    if node.kind == "call":
        return str(node.value)
    if node.kind == "binop" and node.value == "|":
        return _construct(node.children[1]) if node.children[1] is not None else "a pipe"
    return {"object": "an object construction", "array": "an array construction", "literal": "a constant",
            "reduce": "reduce", "foreach": "foreach", "if": "an if whose branches read different places",
            "binop": f"the operator {node.value}", "format": "a format string", "string": "a string"}.get(node.kind, node.kind)


def _reads_input(node: Optional[Node]) -> Optional[Node]:
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


def output_path(root: Node) -> Optional[Tuple[str, ...]]:
    """The input path an expression's outputs come from (``.status.phase // "x"`` -> status.phase),
    or None when it computes new values."""
    return _path_of(root, _Scope(base=()))


def compared_constants(root: Node) -> List[Tuple[Tuple[str, ...], str, int, int]]:
    """(path, string, start, end) for each ``P == "s"`` / ``"s" == P`` / ``!=`` in an expression,
    where P is a static input path (followed like every other read)."""
    return path_facts_of(root).comparisons


def path_facts(root: Node) -> List[PathRead]:
    """Every maximal field path read (see ``path_facts_of``)."""
    return path_facts_of(root).reads


def unguarded_arithmetic(root: Node) -> List[Tuple[Node, PathRead]]:
    """(operator node, operand path) for ``-``, ``*``, ``/``, ``%`` on a bare path that nothing
    guards: jq fails on ``null`` there (``null + x`` is fine, so ``+`` is not reported)."""
    return path_facts_of(root).arithmetic


def _read(node: Node, scope: _Scope, path: Path_) -> PathRead:
    exact = scope.guarded or node.kind == "optional" or _has_optional(node) or path in scope.tested
    parent = any(path[: len(t)] == t for t in scope.tested if len(t) < len(path))
    return PathRead(path, node.start, node.end, exact, parent)


def _walk(node: Optional[Node], scope: _Scope, facts: PathFacts) -> None:
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
        if last is not None and last.kind == "call" and last.value == "select" and last.children and left_path is not None:
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
            if constant is not None and constant.kind == "literal" and isinstance(constant.value, str) and path_node is not None:
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
        pairs = int(node.value or 1)
        tested = scope.tested
        for i in range(pairs):
            cond, then = node.children[2 * i], node.children[2 * i + 1]
            _walk(cond, scope.but(tested=tested), facts)
            _walk(then, scope.but(tested=tested | _tested(cond, scope)), facts)
        for rest in node.children[2 * pairs:]:
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
        inner_base = scope.base + ("[]",) if scope.base is not None and name in _ELEMENT_CALLS and node.children else scope.base
        for child in node.children:
            _walk(child, scope.but(base=inner_base), facts)
        return
    for child in node.children:
        if child is not None and child.kind.startswith("pattern"):
            continue
        _walk(child, scope, facts)


def _last_stage(node: Optional[Node]) -> Optional[Node]:
    while node is not None and node.kind == "binop" and node.value == "|":
        node = node.children[1]
    while node is not None and node.kind == "paren":
        node = node.children[0]
    return node


def _has_optional(node: Node) -> bool:
    return any(n.kind == "optional" for n in node.walk())
