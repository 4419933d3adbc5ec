"""A read of the input by a jq expression (``PathRead``: the field path, where it is written, and
whether something guards it) and the path written as jq (``path_text``); ``paths`` collects the
reads, ``uses`` what is done with the values read."""

from __future__ import annotations

import json

from kartalint.jqlang.parser import Node
from kartalint.jqlang.places import PSEUDO, Path_, Scope, visible
from kartalint.model import Frozen, set_field


class PathRead(Frozen):
    """A field path read by an expression, e.g. ``.spec.replicatedJobs[].replicas``."""

    __slots__ = ("end", "guarded", "path", "start", "tested_depth")
    path: tuple[str, ...]  # field names, "[]" for iteration, "[n]" for indices, "[?]" for a computed index
    start: int
    end: int
    guarded: bool  # under the left side of `//` or `?`, inside try, or tested by an enclosing select/if/and
    tested_depth: int  # the length of the longest ancestor path tested non-null by an enclosing select/if/and

    def __init__(self, path: tuple[str, ...], start: int, end: int, guarded: bool, tested_depth: int = 0) -> None:
        """The read of ``path`` written from ``start`` to ``end`` (excluded) of the expression."""
        set_field(self, "path", path)
        set_field(self, "start", start)
        set_field(self, "end", end)
        set_field(self, "guarded", guarded)
        set_field(self, "tested_depth", tested_depth)

    def text(self) -> str:
        """The path as jq writes it."""
        return path_text(self.path)


def path_text(path: tuple[str, ...]) -> str:
    """A field path as jq writes it: ``.spec.roles[].name``, ``.limits["nvidia.com/gpu"]`` (``.``
    for the input itself; a computed key ``[?]`` is written ``[]``, any element)."""
    out = ""
    for part in path or ():
        if part in PSEUDO:
            continue
        if part == "[?]":
            part = "[]"
        if part.startswith("["):
            out += part if out else "." + part
        elif part.isascii() and part.isidentifier():  # ([A-Za-z_][A-Za-z0-9_]*: no pattern to compile)
            out += "." + part
        else:
            out += ("" if out else ".") + "[" + json.dumps(part) + "]"
    return out or "."


def known_depth(scope: Scope, path: Path_) -> int:
    """The length of the longest ancestor of ``path`` (itself included) the scope knows non-null."""
    return next((i for i in range(len(path), 0, -1) if path[:i] in scope.tested), 0)


def read_at(node: Node, scope: Scope, path: Path_) -> PathRead:
    """The read of ``path`` written at ``node``, guarded by the scope, a ``?`` in it, or a test."""
    path = visible(path)
    known = known_depth(scope, path)
    exact = scope.guarded or node.kind == "optional" or has_optional(node) or known == len(path)
    depth = min(known, len(path) - 1)
    return PathRead(path, node.start, node.end, exact, depth)


def has_optional(node: Node) -> bool:
    """Whether ``node`` holds a ``?`` anywhere."""
    return any(n.kind == "optional" for n in node.walk())
