"""The exceptions kartalint raises.

Bad *data* (a definition that breaks the Karta rules, an object without the fields a path reads,
YAML that cannot be read, a jq expression that fails or never ends) never raises: it becomes a
finding (lint) or an error in the returned view (evaluation). Exceptions are for bad *arguments*:
a value of the wrong type or outside its range, given by the calling program, and for bad
*usage*: a command line, a configuration or a path that cannot be used (exit code 2).
"""

from __future__ import annotations


class KartalintError(Exception):
    """Base of every exception kartalint raises on purpose."""


class ArgumentError(KartalintError, TypeError, ValueError):
    """An argument of the wrong type or out of range (``pods=5``, ``timeout=nan``)."""


class UsageError(KartalintError):
    """A command cannot run as asked: a bad option, a missing path, nothing to check (exit code 2;
    the message is one line)."""


class ConfigError(UsageError):
    """A configuration problem (``.kartalint.yaml``, ``[tool.kartalint]``), its message starting
    with ``file:line:column:`` where the place is known."""

    def __init__(self, message: str, file: str | None = None, line: int = 0, column: int = 0) -> None:
        super().__init__(message)
        self.file, self.line, self.column = file, line, column


__all__ = ["ArgumentError", "ConfigError", "KartalintError", "UsageError"]
