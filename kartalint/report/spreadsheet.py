"""The one CSV writer of every CSV kartalint writes: cells a spreadsheet would run are neutralised.

A cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is a formula (or
becomes one) when a spreadsheet opens the file: a workload named ``=HYPERLINK("http://...")``
would turn a report into a link or a command. As OWASP recommends (CSV Injection), such a cell is
written with a leading ``'``, which spreadsheets show as text and do not evaluate: ``'=HYPERLINK(...)``.
A cell that is a number (``-3``, ``1.5``, ``-2e3``: kartalint's figures and a user's figures
quoted back) is written as it is, since a number is not a formula. Quoting is RFC 4180's (fields
holding a comma, a quote or a line break are quoted), lines end with CRLF. docs/security.md
states the promise; ``tests/test_summary.py`` holds it for each CSV the summary writes.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from typing import IO

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_FIRST = frozenset(FORMULA_STARTS)
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def neutralised(cell: object) -> str:
    """``cell`` as text a spreadsheet shows and never evaluates: with a leading ``'`` when it starts
    like a formula and is not a number."""
    text = cell if type(cell) is str else "" if cell is None else str(cell)
    if text and text[0] in _FIRST and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


class SafeCsvWriter:
    """``csv.writer`` (RFC 4180, CRLF) whose every cell is ``neutralised``."""

    def __init__(self, stream: IO[str]) -> None:
        """Writes records to ``stream``."""
        self._writer = csv.writer(stream, lineterminator="\r\n")

    def writerow(self, cells: Iterable[object]) -> None:
        """Write one record (an ``int`` cell is a number: written as it is)."""
        self._writer.writerow([cell if type(cell) is int else neutralised(cell) for cell in cells])

    def writerows(self, records: Iterable[Iterable[object]]) -> None:
        """Write each record as ``writerow`` does."""
        self._writer.writerows(
            [[cell if type(cell) is int else neutralised(cell) for cell in cells] for cells in records]
        )
