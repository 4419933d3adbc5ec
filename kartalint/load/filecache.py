"""What was read from a file, kept for the rest of the process while the file is unchanged.

A process often reads the same files again: the language server on every project load, the
bundled catalog for every command run in one process (tests, ``kartalint.cli.main`` called by a
tool), a CRD for the draft and for its check. A file is the same while its path, resolved path,
modification and change times, size and inode are; anything else is read again.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Callable

from kartalint.model import Generic

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeVar

    T = TypeVar("T")

Identity = tuple[str, str, int, int, int, int]


def identity(path: str) -> Identity | None:
    """What says a file is unchanged (None when it cannot be told: then it is never kept)."""
    try:
        stat = os.stat(path)
        return (path, os.path.realpath(path), stat.st_mtime_ns, stat.st_ctime_ns, stat.st_size, stat.st_ino)
    except (OSError, ValueError):
        return None


class FileCache(Generic["T"]):
    """The ``limit`` most recently read files' values (least recently used dropped first)."""

    def __init__(self, limit: int) -> None:
        """A cache of at most ``limit`` files' values, the least recently used dropped first."""
        self.limit = limit
        self._values: OrderedDict[Identity, T] = OrderedDict()

    def get(self, path: str, read: Callable[[str], T]) -> T:
        """``read(path)``, or the value it gave for this unchanged file before. Callers must not
        change the value they get: copy what they will change."""
        key = identity(path)
        if key is not None and key in self._values:
            self._values.move_to_end(key)
            return self._values[key]
        value = read(path)
        if key is not None:
            self._values[key] = value
            while len(self._values) > self.limit:
                self._values.popitem(last=False)
        return value
