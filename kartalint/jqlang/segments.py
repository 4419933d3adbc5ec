"""Where a path read stands at a place of its text: ``.template.spec.parallelism`` read after
``.spec.replicatedJobs[] |`` has the path ``spec.replicatedJobs[].template.spec.parallelism``, but
its text holds only the last three segments. Used to cut a read's path at a cursor (hover) or at
an iteration (``crd-optional-iteration``)."""

from __future__ import annotations

import re

from kartalint.jqlang.paths import PathRead

# one path segment as written: .name, ."quoted", [], []?, .[], [n], ["key"] and [$var] (compiled when first
# used, by re's cache)
SEGMENT = r'\.[A-Za-z_][A-Za-z0-9_]*|\."[^"]*"|\.?\[(?:"[^"]*"|\$?[A-Za-z_][A-Za-z0-9_]*|-?\d+)?\]\??'


def path_before(expression: str, read: PathRead, offset: int) -> tuple[str, ...]:
    """``read.path`` without the segments written at or after ``offset`` (an index into
    ``expression``)."""
    text = expression[read.start : read.end]
    after = sum(1 for match in re.finditer(SEGMENT, text) if match.start() >= offset - read.start)
    return read.path[: len(read.path) - after]
