"""A stream that cannot seek (standard input, ``kubectl get``'s output) read as ``stream_objects``
reads a file, without copying it anywhere.

``Replayable`` keeps the first ``keep + 1`` bytes it reads, so a reader may go back to the start
once (``seek(0)``): to sniff the first bytes, or to read a stream the plain readers do not take
with the full loader, which is only done within ``max-file-size`` anyway. What comes after those
bytes is not kept: memory is bounded by ``keep``, and nothing is written to disk (a temporary copy
of an endless stream would fill the disk).

``mark()`` says that an object was read whole; ``NoObjectEnds`` is raised when more than
``span`` bytes go by without one (an endless scalar, garbage that the YAML parser buffers), so
an endless stream of anything but objects cannot hold the memory either.
"""

from __future__ import annotations

import io
from typing import IO


class NoObjectEnds(Exception):
    """More than ``span`` bytes of a stream went by without an object ending."""

    def __init__(self, span: int) -> None:
        """``span``: the bytes read since the last object."""
        super().__init__(f"no object ends within {span} bytes")
        self.span = span


class Replayable(io.RawIOBase):
    """A binary stream over ``raw`` whose first ``keep + 1`` bytes can be read again (see the
    module's docstring)."""

    def __init__(self, raw: IO[bytes], keep: int, span: int) -> None:
        """Read ``raw``; keep its first ``keep + 1`` bytes; ``NoObjectEnds`` after ``span`` bytes
        without a ``mark()``."""
        super().__init__()
        self.raw = raw
        self.keep = keep
        self.span = span
        self.head = bytearray()
        self.pos = 0  # where the next read starts, in the stream's bytes
        self.taken = 0  # bytes read from raw
        self.since_mark = 0

    def readable(self) -> bool:
        """Always."""
        return True

    def seekable(self) -> bool:
        """Only back to the start (``seek(0)``)."""
        return True

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        """Go back to the start (the only move there is): what follows the kept bytes cannot be
        read again, so after more than ``keep + 1`` bytes the stream ends where they end."""
        if offset != 0 or whence != io.SEEK_SET:
            raise io.UnsupportedOperation("a pipe can only go back to its start")
        self.pos = 0
        self.since_mark = 0
        return 0

    def tell(self) -> int:
        """Where the next read starts."""
        return self.pos

    def mark(self) -> None:
        """An object was read whole."""
        self.since_mark = 0

    def read(self, size: int | None = -1) -> bytes:
        """Up to ``size`` bytes (all that is left for a negative size)."""
        if self.pos < len(self.head):
            end = len(self.head) if size is None or size < 0 else min(len(self.head), self.pos + size)
            data = bytes(self.head[self.pos : end])
        elif self.pos < self.taken:  # went back to the start after more than was kept
            data = b""
        else:
            data = self.raw.read(-1 if size is None else size)
            self.taken += len(data)
            room = self.keep + 1 - len(self.head)
            if room > 0:
                self.head += data[:room]
        self.pos += len(data)
        self.since_mark += len(data)
        if self.since_mark > self.span:
            raise NoObjectEnds(self.since_mark)
        return data

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        """``read`` into ``buffer``."""
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)
