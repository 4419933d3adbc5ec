"""libjq (the ``jq`` package) wrapper: cached compilation and error messages with positions."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from kartalint.model import Frozen, set_field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# (compiled when first used, by re's cache: only libjq's errors are read with them)
_ERROR = r"jq: error: (?P<msg>.*?) at <top-level>, line (?P<line>\d+), column (?P<col>\d+):\n[^\n]*\n(?P<caret>[^\n]*)"
_ERROR_NO_POS = r"jq: error: (?P<msg>[^\n]*)"


class CompileProblem(Frozen):
    """A libjq compile error: its message, its span in the expression, and whether it is a syntax error (else an
    undefined function or variable)."""

    __slots__ = ("end", "message", "start", "syntax")
    message: str
    start: int  # offset in the expression
    end: int
    syntax: bool  # a syntax error (vs. an undefined function/variable)

    def __init__(self, message: str, start: int, end: int, syntax: bool) -> None:
        """The error ``message`` from ``start`` to ``end`` (excluded) of the expression."""
        set_field(self, "message", message)
        set_field(self, "start", start)
        set_field(self, "end", end)
        set_field(self, "syntax", syntax)


def _offset(expression: str, line: int, column: int) -> int:
    lines = expression.split("\n")
    offset = sum(len(text) + 1 for text in lines[: max(0, line - 1)])
    return min(len(expression), offset + max(0, column - 1))


def parse_errors(expression: str, text: str) -> list[CompileProblem]:
    """The problems of libjq's error text ``text`` for ``expression``, each at the place its line and column name."""
    problems = []
    for match in re.finditer(_ERROR, text):
        start = _offset(expression, int(match["line"]), int(match["col"]))
        width = max(1, match["caret"].count("^"))
        message = match["msg"]
        problems.append(
            CompileProblem(message, start, min(len(expression), start + width) or start + 1, "syntax error" in message)
        )
    if not problems:
        found = re.search(_ERROR_NO_POS, text)
        message = found["msg"] if found else text.strip()
        problems.append(CompileProblem(message, 0, max(1, len(expression)), "syntax error" in message))
    return problems


@functools.lru_cache(maxsize=8192)
def compile_one(expression: str) -> tuple[Any | None, tuple[CompileProblem, ...]]:
    """(program, problems): a compiled libjq program, or the problems that prevented it."""
    try:
        import jq  # lazy: imported when first needed, most programs are proven by the builtin table

        return jq.compile(expression), ()
    except ValueError as exc:
        return None, tuple(parse_errors(expression, str(exc)))


@functools.lru_cache(maxsize=4096)
def _compile_batch(joined: str) -> bool:
    try:
        import jq  # lazy: as in compile_one

        jq.compile(joined)
        return True
    except ValueError:
        return False


def compile_problems(expressions: Sequence[str]) -> list[tuple[CompileProblem, ...]]:
    """Problems per expression. All expressions of a definition are first compiled together as
    function bodies of one program (one libjq compile instead of one per expression); only when
    that fails is each compiled on its own to say which one is wrong and where."""
    unique = list(dict.fromkeys(expressions))
    if unique and all("import" not in e and "include" not in e and "$__loc__" not in e for e in unique):
        # Unused definitions are not bound by libjq, so the body references every one of them.
        joined = "\n".join(f"def __kartalint_{i}: {e}\n;" for i, e in enumerate(unique))
        joined += "\n" + ", ".join(f"__kartalint_{i}" for i in range(len(unique)))
        if _compile_batch(joined):
            return [() for _ in expressions]
    return [compile_one(e)[1] for e in expressions]
