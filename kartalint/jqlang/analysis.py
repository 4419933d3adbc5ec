"""What kartalint knows about a jq expression from its syntax tree.

* ``restrictions``: Karta's blacklist (spec §2.3) as upstream applies it, plus the places
  upstream's walker misses (``as`` bodies, ``label`` bodies, unary operands), marked as such;
* ``portability``: constructs libjq accepts but gojq lacks or evaluates differently;
* ``safety``: constructs that read the environment, files or input, or never terminate;
* ``first_non_path``: why an expression cannot be used as an assignable path;
* ``path_facts``: the field paths an expression reads and whether each is guarded by ``//``;
* ``unguarded_arithmetic``: arithmetic that fails when an operand path is absent (null);
* ``object_keys``: computed object keys that are never strings.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kartalint.jqlang.lexer import KEYWORDS
from kartalint.jqlang.parser import ASSIGN_OPS, Node
from kartalint.jqlang.types import static_type
from kartalint.model import Frozen, set_field

# The ids of the rules declared with this module's findings (constants: a misspelt id is an import error).
JQ_FORBIDDEN_FUNCTION = "jq-forbidden-function"
JQ_RECURSIVE_DESCENT = "jq-recursive-descent"
JQ_ASSIGNMENT = "jq-assignment"
JQ_NOT_PORTABLE = "jq-not-portable"
JQ_UNSAFE = "jq-unsafe"
JQ_UNBOUNDED_RECURSION = "jq-unbounded-recursion"
OBJECT_KEY_NOT_STRING = "object-key-not-string"


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
_NOT_RE2 = r"\(\?[=!]|\(\?<[=!]|\(\?>|\\[1-9]|[*+?}]\+|\\[hHRXK]"  # (compiled when first used: re's cache)

# Calls through which a jq expression stays an assignable path.
PATH_CALLS = {
    "select",
    "first",
    "last",
    "getpath",
    "empty",
    "error",
    "recurse",
    "limit",
    "nth",
    "objects",
    "arrays",
    "scalars",
    "strings",
    "numbers",
    "booleans",
    "nulls",
    "iterables",
    "values",
    "paths",
}


class Problem(Frozen):
    """A problem of an expression: its rule, message and span in the expression's text; ``upstream_misses`` when
    upstream's validator accepts what kartalint reports."""

    __slots__ = ("end", "message", "rule", "start", "upstream_misses")
    rule: str
    message: str
    start: int
    end: int
    upstream_misses: bool

    def __init__(self, rule: str, message: str, start: int, end: int, upstream_misses: bool = False) -> None:
        """The problem of ``rule`` from ``start`` to ``end`` (excluded) of the expression."""
        set_field(self, "rule", rule)
        set_field(self, "message", message)
        set_field(self, "start", start)
        set_field(self, "end", end)
        set_field(self, "upstream_misses", upstream_misses)


def _walk_with_visibility(root: Node) -> Iterator[tuple[Node, bool]]:
    """Nodes with a flag: True where upstream's blacklist walker does not look."""
    stack: list[tuple[Node, bool]] = [(root, False)]
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


def restrictions(root: Node) -> list[Problem]:
    """Karta's forbidden constructs: ``del``, excessive-output functions, ``..``, assignment."""
    problems = []
    for node, hidden in _walk_with_visibility(root):
        if node.kind == "call" and node.value == FORBIDDEN_DEL:
            problems.append(Problem(JQ_FORBIDDEN_FUNCTION, "del function is not allowed", node.start, node.end, hidden))
        elif node.kind == "call" and node.value in FORBIDDEN_EXCESSIVE:
            problems.append(
                Problem(
                    JQ_FORBIDDEN_FUNCTION,
                    f"function '{node.value}' may produce excessive output and is not allowed",
                    node.start,
                    node.end,
                    hidden,
                )
            )
        elif node.kind == "recurse":
            problems.append(
                Problem(
                    JQ_RECURSIVE_DESCENT,
                    "recursive descent operator '..' is not allowed",
                    node.start,
                    node.end,
                    hidden,
                )
            )
        elif node.kind == "binop" and node.value in ASSIGN_OPS:
            problems.append(
                Problem(
                    JQ_ASSIGNMENT, f"modifying operator '{node.value}' is not allowed", node.start, node.end, hidden
                )
            )
    problems.sort(key=lambda p: (p.start, p.end))
    return problems


def portability(root: Node, source: str) -> list[Problem]:
    """What libjq accepts but gojq (what Karta, KAI and Run:ai run) lacks or evaluates differently
    (``jq-not-portable``): builtins, regular expressions, fractional slice bounds, each where it is written."""
    problems = []
    for node in root.walk():
        if node.kind == "call":
            name = str(node.value)
            arity = len(node.children)
            reason = NOT_PORTABLE_CALLS.get(f"{name}/{arity}") or NOT_PORTABLE_CALLS.get(name)
            if reason:
                problems.append(Problem(JQ_NOT_PORTABLE, f"'{name}' is not portable: {reason}", node.start, node.end))
            if name in REGEX_CALLS and node.children:
                regex = node.children[0]
                if (
                    regex is not None
                    and regex.kind == "literal"
                    and isinstance(regex.value, str)
                    and re.search(_NOT_RE2, regex.value)
                ):
                    problems.append(
                        Problem(
                            JQ_NOT_PORTABLE,
                            "regular expression uses a feature Go's regexp (gojq) does not support (lookaround, backreference, atomic or possessive groups)",
                            regex.start,
                            regex.end,
                        )
                    )
        elif node.kind == "var" and node.value in NOT_PORTABLE_VARS:
            problems.append(
                Problem(
                    JQ_NOT_PORTABLE,
                    f"'${node.value}' is not portable: {NOT_PORTABLE_VARS[node.value]}",
                    node.start,
                    node.end,
                )
            )
        elif node.kind == "funcdef":
            name = str(node.value)
            if "::" in name:
                problems.append(
                    Problem(
                        JQ_NOT_PORTABLE,
                        f"module-qualified function name '{name}' is not accepted by gojq",
                        node.start,
                        node.end,
                    )
                )
            elif name in KEYWORDS or name == "not":
                problems.append(
                    Problem(
                        JQ_NOT_PORTABLE,
                        f"gojq does not allow the keyword '{name}' as a function name",
                        node.start,
                        node.end,
                    )
                )
        elif node.kind == "slice":
            for bound in node.children[1:]:
                if bound is not None and bound.kind == "literal" and isinstance(bound.value, float):
                    problems.append(
                        Problem(
                            JQ_NOT_PORTABLE,
                            "slices with fractional bounds round differently in libjq and gojq",
                            bound.start,
                            bound.end,
                        )
                    )
    return problems


def safety(root: Node) -> list[Problem]:
    """What reads the environment or further inputs, or writes to stderr (``jq-unsafe``): builtins the expression
    does not define itself, and ``$ENV``."""
    problems = []
    for node in root.walk():
        if node.kind == "call":
            reason = UNSAFE_CALLS.get(str(node.value))
            if reason and not _defined_locally(root, str(node.value)):
                problems.append(Problem(JQ_UNSAFE, f"'{node.value}' {reason}", node.start, node.end))
        elif node.kind == "var" and node.value in UNSAFE_VARS:
            problems.append(Problem(JQ_UNSAFE, f"'${node.value}' {UNSAFE_VARS[node.value]}", node.start, node.end))
        elif node.kind == "directive":
            problems.append(Problem(JQ_UNSAFE, f"'{node.value}' reads jq modules from files", node.start, node.end))
    problems.extend(unbounded_recursion(root))
    return problems


def object_keys(root: Node) -> list[Problem]:
    """Computed object keys whose type the syntax decides and that are not strings (jq refuses
    them: "Cannot use number (1) as object key")."""
    problems = []
    for node in root.walk():
        if node.kind != "object":
            continue
        for entry in node.children:
            key = entry.children[0] if entry is not None and entry.children else None
            kind = static_type(key) if key is not None and key.kind == "paren" else None
            if key is not None and kind not in (None, "string"):
                problems.append(
                    Problem(
                        OBJECT_KEY_NOT_STRING,
                        f"this object key is always {'an' if kind in ('array', 'object') else 'a'} {kind}: "
                        f"jq refuses it ('Cannot use {kind} as object key') on every object",
                        key.start,
                        key.end,
                    )
                )
    return problems


def _defined_locally(root: Node, name: str) -> bool:
    return any(n.kind == "funcdef" and n.value == name for n in root.walk())


def unbounded_recursion(root: Node) -> list[Problem]:
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
                    JQ_UNBOUNDED_RECURSION,
                    f"function '{node.value}' calls itself on every path and never returns",
                    call.start,
                    call.end,
                )
            )
    return problems


_STOPPERS = {"if", "try", "optional", "reduce", "foreach", "label", "funcdef"}
_MAY_BE_EMPTY_CALLS = {
    "select",
    "empty",
    "error",
    "first",
    "limit",
    "until",
    "while",
    "recurse",
    "last",
    "nth",
    "halt",
    "halt_error",
}


def _may_stop(node: Node) -> bool:
    """True when ``node`` may produce no output (so what is piped after it may not run)."""
    for sub in node.walk():
        if sub.kind in ("iterate", "if", "try", "optional", "reduce", "foreach"):
            return True
        if sub.kind == "call" and sub.value in _MAY_BE_EMPTY_CALLS:
            return True
    return False


def _unconditional_self_call(node: Node, name: str, arity: int) -> Node | None:
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


def first_non_path(node: Node) -> Node | None:
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
        branches = node.value if isinstance(node.value, int) and node.value else 1
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
