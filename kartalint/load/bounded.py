"""Bounded parsers for the JSON and TOML files kartalint reads (a baseline, a ``pyproject.toml``,
the SARIF logs the Action merges).

Python's parsers fail on hostile input with exceptions no caller expects: JSON or TOML nested a
thousand deep is a ``RecursionError``, an integer of 5,000 digits a ``ValueError`` ("Exceeds the
limit for integer string conversion"). Here the text is scanned first (strings and comments
skipped): nesting deeper than ``MAX_DEPTH`` or a number of more than ``MAX_DIGITS`` digits is a
``ParseError`` at its line and column, and so is any syntax error of the parser, so a caller says
one thing: ``file:line:column: problem``.
"""

from __future__ import annotations

import json
import re
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_DEPTH = 100  # arrays and objects (tables) inside each other
MAX_DIGITS = 1000  # digits in a row outside a string (a number; TOML's hexadecimal, octal and binary too)

# (compiled when first used, by re's cache: most runs read no JSON or TOML file)
_JSON_TOKENS = r'"[^"\\]*(?:\\.[^"\\]*)*"|(?P<open>[\[{])|(?P<close>[\]}])|(?P<digits>\d{' + str(MAX_DIGITS + 1) + ",})"
_TOML_TOKENS = (
    r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"|\'[^\'\n]*\'|#[^\n]*'
    r"|(?P<open>[\[{])|(?P<close>[\]}])|(?P<digits>0[xob][0-9A-Fa-f_]{" + str(MAX_DIGITS + 1) + ",}"
    r"|[0-9_]{" + str(MAX_DIGITS + 1) + ",})"
)


class ParseError(ValueError):
    """A text that is not read: its ``line`` and ``column`` (1-based) and what is wrong there."""

    def __init__(self, problem: str, line: int = 1, column: int = 1) -> None:
        """``problem`` says what is wrong with the text, at ``line`` and ``column`` (1-based)."""
        super().__init__(problem)
        self.problem, self.line, self.column = problem, line, column

    def where(self, name: str) -> str:
        """``name:line:column: problem``."""
        return f"{name}:{self.line}:{self.column}: {self.problem}"


def position(text: str, offset: int) -> tuple[int, int]:
    """The 1-based (line, column) of ``offset`` in ``text``."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _scan(text: str, tokens: str, max_depth: int) -> None:
    depth = 0
    for match in re.finditer(tokens, text):
        if match.group("open"):
            depth += 1
            if depth > max_depth:
                raise ParseError(f"nested deeper than {max_depth} levels: refused", *position(text, match.start()))
        elif match.group("close"):
            depth = max(0, depth - 1)
        elif match.group("digits") and len(re.sub(r"^0[xob]|_", "", match.group("digits"))) > MAX_DIGITS:
            raise ParseError(f"a number of more than {MAX_DIGITS} digits: refused", *position(text, match.start()))


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def json_loads(text: str, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON value of ``text`` (NaN and Infinity refused), or ``ParseError``."""
    _scan(text, _JSON_TOKENS, max_depth)
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise ParseError(f"invalid JSON: {exc.msg}", exc.lineno, exc.colno) from None
    except (ValueError, RecursionError) as exc:  # what the scan missed (a constant, a number it did not see)
        raise ParseError(f"invalid JSON: {exc}") from None


def toml_loads(text: str, max_depth: int = MAX_DEPTH) -> dict[str, Any]:
    """The TOML document of ``text``, or ``ParseError``."""
    # lazy: only for a TOML file (start-up of lint)
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10
        import tomli as tomllib
    _scan(text, _TOML_TOKENS, max_depth)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        found = re.search(r"\(at line (\d+), column (\d+)\)$", message)
        if found:
            message = message[: found.start()].rstrip()
            raise ParseError(f"invalid TOML: {message}", int(found.group(1)), int(found.group(2))) from None
        if message.endswith("(at end of document)"):
            raise ParseError(f"invalid TOML: {message}", *position(text, len(text))) from None
        raise ParseError(f"invalid TOML: {message}") from None
    except (ValueError, RecursionError) as exc:
        raise ParseError(f"invalid TOML: {exc}") from None
