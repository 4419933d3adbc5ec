"""jq rules: syntax (upstream parity), compilation, restrictions, portability, safety,
assignable write-back paths and null-safe scale arithmetic."""

from __future__ import annotations

from .. import karta
from ..jqlang import analysis, parse_cached
from ..jqlang.compile import compile_problems
from . import Context

_UPSTREAM_MISSES = " (upstream's validator does not look inside this construct and would accept it, but Karta forbids it)"


def check(ctx: Context) -> None:
    fields = list(karta.jq_fields(ctx.data))
    if not fields:
        return
    compiled = compile_problems([f.expression for f in fields])
    for field, problems in zip(fields, compiled):
        expr = field.expression
        for problem in problems:
            rule = "jq-syntax-error" if problem.syntax else "jq-compile-error"
            prefix = "jq syntax error" if problem.syntax else "jq compile error"
            ctx.report(rule, field.path, f"{prefix}: {problem.message}", scalar_range=(problem.start, problem.end),
                       hint=_compile_hint(expr, problem.message))
        if problems:
            continue
        tree, error = parse_cached(expr)
        if tree is None:
            if not problems and error is not None:
                ctx.report("jq-not-portable", field.path,
                           f"libjq accepts this expression but kartalint's gojq-grammar parser does not: {error.message}",
                           scalar_range=(error.start, error.end))
            continue
        for found in analysis.restrictions(tree):
            message = found.message + (_UPSTREAM_MISSES if found.upstream_misses else "")
            ctx.report(found.rule, field.path, message, scalar_range=(found.start, found.end))
        for found in analysis.safety(tree) + analysis.portability(tree, expr):
            ctx.report(found.rule, field.path, found.message, scalar_range=(found.start, found.end))
        if field.assignable:
            bad = analysis.first_non_path(tree)
            if bad is not None:
                what = expr[bad.start:bad.end]
                ctx.report("not-assignable-path", field.path,
                           f"{field.kind} is written back by consumers but '{what}' is not an assignable path",
                           scalar_range=(bad.start, bad.end))
        if field.kind in karta.SCALE_PATHS:
            for operator, read in analysis.unguarded_arithmetic(tree):
                if (tuple(field.path), read.start) in ctx.superseded:
                    continue
                ctx.report("scale-path-not-null-safe", field.path,
                           f"'{operator.value}' on {read.text()}, which may be absent: the whole {field.kind} "
                           f"extraction fails when it is (jq cannot do arithmetic on null)",
                           scalar_range=(read.start, read.end),
                           hint=f"give it a default, e.g. ({expr[read.start:read.end]} // 1)")


def _compile_hint(expression: str, message: str):
    """A path written without its leading dot (``spec.x``) compiles as a call of ``spec/0``."""
    name = message.split("/", 1)[0]
    if message.endswith("/0 is not defined") and expression.startswith(name) and expression[len(name):][:1] in (".", "["):
        return f"jq paths start with a dot: write .{expression}"
    return None
