"""The exceptions kartalint raises.

Bad *data* (a definition that breaks the Karta rules, an object without the fields a path reads,
YAML that cannot be read, a jq expression that fails or never ends) never raises: it becomes a
finding (lint) or an error in the returned view (evaluation). Exceptions are for bad *arguments*:
a value of the wrong type or outside its range, given by the calling program, and for bad
*usage*: a command line, a configuration or a path that cannot be used (exit code 2).
"""

from __future__ import annotations

import re


class KartalintError(Exception):
    """Base of every exception kartalint raises on purpose. Its message is one line: a line break
    taken from a value it quotes (a rule id, a file name from a configuration) is shown as ``\\n``
    or ``\\r``, never a new line (a forged ``kartalint: error:`` line); the writer of standard
    error escapes the other control characters (``report.output.MessageStream``)."""

    def __init__(self, *args: object) -> None:
        """The message (the first argument) with its line breaks shown as ``\\n`` and ``\\r``."""
        if args and isinstance(args[0], str):
            args = (re.sub(_ONE_LINE, lambda m: _SHOWN[m.group()], args[0]), *args[1:])
        super().__init__(*args)


_SHOWN = {
    "\n": "\\n",
    "\r": "\\r",
    "\x0b": "\\x0b",
    "\x0c": "\\x0c",
    "\x1c": "\\x1c",
    "\x1d": "\\x1d",
    "\x1e": "\\x1e",
    "\x85": "\\x85",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}
_ONE_LINE = "[" + "".join(_SHOWN) + "]"  # what str.splitlines() breaks a line at (compiled when first used)


class ArgumentError(KartalintError, TypeError, ValueError):
    """An argument of the wrong type or out of range (``pods=5``, ``timeout=nan``)."""


class UsageError(KartalintError):
    """A command cannot run as asked: a bad option, a missing path, nothing to check (exit code 2;
    the message is one line)."""


class ConfigError(UsageError):
    """A configuration problem (``.kartalint.yaml``, ``[tool.kartalint]``), its message starting
    with ``file:line:column:`` where the place is known."""

    def __init__(self, message: str, file: str | None = None, line: int = 0, column: int = 0) -> None:
        """``message`` about the configuration ``file``, at ``line`` and ``column`` when known (0: not known)."""
        super().__init__(message)
        self.file, self.line, self.column = file, line, column


__all__ = ["ArgumentError", "ConfigError", "KartalintError", "UsageError"]
