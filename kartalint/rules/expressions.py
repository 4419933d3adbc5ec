"""jq rules: syntax (upstream parity), compilation, restrictions, portability, safety,
assignable write-back paths and null-safe scale arithmetic."""

from __future__ import annotations

import functools

from kartalint import karta
from kartalint.jqlang import analysis, parse_cached, paths
from kartalint.jqlang.analysis import (
    JQ_ASSIGNMENT,
    JQ_FORBIDDEN_FUNCTION,
    JQ_NOT_PORTABLE,
    JQ_RECURSIVE_DESCENT,
    JQ_UNBOUNDED_RECURSION,
    JQ_UNSAFE,
    OBJECT_KEY_NOT_STRING,
)
from kartalint.jqlang.builtins import statically_compiles
from kartalint.jqlang.compile import compile_problems
from kartalint.model import Rule, Severity
from kartalint.rules.context import Check, Context

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The ids of the rules this module reports (constants: a misspelt id is an import error).
JQ_SYNTAX_ERROR = "jq-syntax-error"
JQ_COMPILE_ERROR = "jq-compile-error"
NOT_ASSIGNABLE_PATH = "not-assignable-path"
SCALE_PATH_NOT_NULL_SAFE = "scale-path-not-null-safe"


# Its checks run after crd_paths', which settle with the CRD the null-safety questions the jq rules
# ask (``ctx.superseded``).
AFTER = ("crd_paths",)

# The rules this module reports (collected by kartalint.rules.registry; docs/rules.md renders them).
RULES = (
    Rule(
        JQ_SYNTAX_ERROR,
        Severity.ERROR,
        "parity",
        "A jq expression does not parse.",
        "fix the jq syntax at the position shown",
        why="Upstream parses every expression when a definition is applied and refuses one that does not parse.",
    ),
    Rule(
        JQ_COMPILE_ERROR,
        Severity.ERROR,
        "jq",
        "A jq expression parses but does not compile (unknown function, wrong arity, undefined variable); upstream only parses, so it fails at run time in every consumer.",
        "define or correct the function or variable",
        why="Upstream only parses expressions, so an unknown function or variable is accepted and then fails in every consumer each time the definition is used.",
    ),
    Rule(
        JQ_FORBIDDEN_FUNCTION,
        Severity.ERROR,
        "jq",
        "Karta forbids `del`, and `range`, `paths`, `recurse`, `walk`, `repeat` at any arity.",
        "rewrite the expression without the forbidden function",
        why="Karta refuses these functions: del modifies its input, the others can produce unbounded output.",
    ),
    Rule(
        JQ_RECURSIVE_DESCENT,
        Severity.ERROR,
        "jq",
        "Karta forbids the recursive descent operator `..`.",
        "use explicit paths instead of `..`",
        why="Karta refuses `..`: it walks the whole object and its output grows with the object.",
    ),
    Rule(
        JQ_ASSIGNMENT,
        Severity.ERROR,
        "jq",
        "Karta forbids assignment and update operators (`=`, `|=`, `+=`, `-=`, `*=`, `/=`, `%=`, `//=`) in read expressions.",
        "read values without modifying them; write-back paths are plain paths",
        why="Karta refuses assignments in read expressions: an expression reads the object, it never changes it.",
    ),
    Rule(
        JQ_NOT_PORTABLE,
        Severity.WARNING,
        "jq",
        "A jq builtin or construct that libjq accepts but gojq (what Karta, KAI and Run:ai run) lacks or evaluates differently.",
        "use a construct that gojq supports (see docs/jq.md)",
        why="kartalint runs libjq, but Karta, KAI Scheduler and Run:ai run gojq: an expression that only works in libjq passes here and fails there.",
    ),
    Rule(
        JQ_UNSAFE,
        Severity.ERROR,
        "jq",
        "A jq construct that reads the environment, files or input, or writes to stderr (`env`, `$ENV`, `input`, `inputs`, `debug`, `stderr`, `input_filename`, `halt`, `halt_error`, `import`, `include`).",
        "remove the construct; definitions must depend only on the object",
        why="These constructs read the environment, files or other inputs, or write to stderr: the result would depend on the machine, and secrets of CI could end up in reports.",
        security_severity="8.0",
    ),
    Rule(
        JQ_UNBOUNDED_RECURSION,
        Severity.ERROR,
        "jq",
        "A recursive jq function without a visible base case never terminates.",
        "add a base case (an `if ... then ... else ... end` that does not recurse)",
        why="A recursive function without a base case never ends; consumers kill the evaluation after their time limit and report nothing.",
    ),
    Rule(
        OBJECT_KEY_NOT_STRING,
        Severity.ERROR,
        "jq",
        "An object key is computed from a value that is never a string (a number, a boolean, null, a list or an object, known from the expression or from the CRD's type of the field it reads): jq refuses it on every object.",
        "make the key a string (`tostring`), or use a field that holds one",
        why="Only strings can be object keys: jq fails with 'Cannot use number (1) as object key', so the expression fails on every object, in every consumer.",
    ),
    Rule(
        NOT_ASSIGNABLE_PATH,
        Severity.WARNING,
        "jq",
        "A write-back path (pod template, pod spec, fragmented field, suspend action) is not a plain assignable path.",
        "use a plain path such as `.spec.template`; move defaults (`//`) out of write-back paths",
        why="Consumers write pod templates, fragments and suspend values back through these paths; a path jq cannot assign to fails exactly when it is written.",
    ),
    Rule(
        SCALE_PATH_NOT_NULL_SAFE,
        Severity.WARNING,
        "practice",
        "A scale path does arithmetic on a field that may be absent, without a `//` default; objects without the field make the whole extraction fail.",
        "add a default, e.g. `(.template.spec.parallelism // 1)`",
        why="jq cannot do arithmetic on null: when the field is absent (operators default it), the whole extraction fails and the role shows no replicas.",
    ),
)


_UPSTREAM_MISSES = (
    " (upstream's validator does not look inside this construct and would accept it, but Karta forbids it)"
)


STATIC_PROOF = True  # tests turn it off to compare with libjq compiling everything


@functools.lru_cache(maxsize=8192)
def _proven(expression: str) -> bool:
    tree, error = parse_cached(expression)
    return error is None and tree is not None and statically_compiles(tree)


@functools.lru_cache(maxsize=8192)
def _analysed(expression: str) -> tuple[tuple[str, str, int, int], ...]:
    """(rule, message, start, end) of what the analyses find in a parsed expression: Karta's
    restrictions, safety, portability, object keys. Kept per expression text: the same expression
    in many definitions (a folder of them, the language server's edits) is analysed once."""
    tree, _ = parse_cached(expression)
    if tree is None:
        return ()
    found = [
        (p.rule, p.message + (_UPSTREAM_MISSES if p.upstream_misses else ""), p.start, p.end)
        for p in analysis.restrictions(tree)
    ]
    found.extend(
        (p.rule, p.message, p.start, p.end)
        for p in analysis.safety(tree) + analysis.portability(tree, expression) + analysis.object_keys(tree)
    )
    return tuple(found)


@functools.lru_cache(maxsize=8192)
def _first_non_path(expression: str) -> tuple[int, int] | None:
    """(start, end) of the first part of a parsed expression that is not an assignable path."""
    tree, _ = parse_cached(expression)
    bad = analysis.first_non_path(tree) if tree is not None else None
    return None if bad is None else (bad.start, bad.end)


def compile_unproven(expressions: list[str]) -> list[tuple[Any, ...]]:
    """libjq compile problems per expression, compiling only what kartalint's parser and builtin
    table cannot prove compiles (``kartalint.jqlang.builtins``)."""
    proven = [STATIC_PROOF and _proven(e) for e in expressions]
    rest = iter(compile_problems([e for e, ok in zip(expressions, proven, strict=True) if not ok]))
    return [() if ok else next(rest) for ok in proven]


def check(ctx: Context) -> None:
    """The jq rules on every expression of the definition (parsing, compiling, restrictions, portability, safety)."""
    fields = ctx.jq_fields
    if not fields:
        return
    compiled = compile_unproven([f.expression for f in fields])
    for field, problems in zip(fields, compiled, strict=False):
        expr = field.expression
        for problem in problems:
            rule = JQ_SYNTAX_ERROR if problem.syntax else JQ_COMPILE_ERROR
            prefix = "jq syntax error" if problem.syntax else "jq compile error"
            ctx.report(
                rule,
                field.path,
                f"{prefix}: {problem.message}",
                scalar_range=(problem.start, problem.end),
                hint=_compile_hint(expr, problem.message),
            )
        if problems:
            continue
        tree, error = parse_cached(expr)
        if tree is None:
            if not problems and error is not None:
                ctx.report(
                    JQ_NOT_PORTABLE,
                    field.path,
                    f"libjq accepts this expression but kartalint's gojq-grammar parser does not: {error.message}",
                    scalar_range=(error.start, error.end),
                )
            continue
        for rule, message, start, end in _analysed(expr):
            ctx.report(rule, field.path, message, scalar_range=(start, end))
        if field.assignable:
            bad = _first_non_path(expr)
            if bad is not None:
                what = expr[bad[0] : bad[1]]
                ctx.report(
                    NOT_ASSIGNABLE_PATH,
                    field.path,
                    f"{field.kind} is written back by consumers but '{what}' is not an assignable path",
                    scalar_range=bad,
                )
        if field.kind in karta.SCALE_PATHS:
            for operator, read in paths.unguarded_arithmetic(tree):
                if (tuple(field.path), read.start) in ctx.superseded:
                    continue
                ctx.report(
                    SCALE_PATH_NOT_NULL_SAFE,
                    field.path,
                    f"'{operator.value}' on {read.text()}, which may be absent: the whole {field.kind} "
                    f"extraction fails when it is (jq cannot do arithmetic on null)",
                    scalar_range=(read.start, read.end),
                    hint=f"give it a default, e.g. ({expr[read.start : read.end]} // 1)",
                )


def _compile_hint(expression: str, message: str) -> str | None:
    """A path written without its leading dot (``spec.x``) compiles as a call of ``spec/0``; a
    constant object key that is not a string (``{(1): .x}``) is refused when libjq folds it."""
    if message.startswith("Cannot use ") and message.endswith(" as object key"):
        return 'object keys are strings: write the key as one, e.g. {"1": ...} or {(1 | tostring): ...}'
    name = message.split("/", 1)[0]
    if (
        message.endswith("/0 is not defined")
        and expression.startswith(name)
        and expression[len(name) :][:1] in (".", "[")
    ):
        return f"jq paths start with a dot: write .{expression}"
    return None


CHECKS = (Check(tuple(rule.id for rule in RULES), check),)
