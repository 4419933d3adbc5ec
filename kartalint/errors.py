"""The exceptions kartalint's Python API raises.

Bad *data* (a definition that breaks the Karta rules, an object without the fields a path reads,
YAML that cannot be read, a jq expression that fails or never ends) never raises: it becomes a
finding (lint) or an error in the returned view (evaluation). Exceptions are for bad *arguments*:
a value of the wrong type or outside its range, given by the calling program.
"""

from __future__ import annotations


class KartalintError(Exception):
    """Base of every exception kartalint raises on purpose."""


class ArgumentError(KartalintError, TypeError, ValueError):
    """An argument of the wrong type or out of range (``pods=5``, ``timeout=nan``)."""


__all__ = ["ArgumentError", "KartalintError"]
