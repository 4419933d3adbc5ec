"""What one run of a jq program gave (``RunResult``): its outputs, or the error that stopped it.
The bounded jq worker (``kartalint.jqlang.runner``) returns one for each program it runs."""

from __future__ import annotations

from kartalint.model import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class RunResult(Record):
    """The outputs of one run, or the error that stopped it (``timed_out`` when it ran out of time)."""

    __slots__ = ("error", "results", "timed_out")
    results: list[Any]
    error: str | None
    timed_out: bool

    def __init__(self, results: list[Any] | None = None, error: str | None = None, timed_out: bool = False) -> None:
        """The ``results`` of a run, or its ``error``."""
        self.results = [] if results is None else results
        self.error = error
        self.timed_out = timed_out

    @property
    def ok(self) -> bool:
        """Whether the run ended without an error."""
        return self.error is None
