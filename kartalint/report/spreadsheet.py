"""The one CSV writer of every CSV kartalint writes: cells a spreadsheet would run are neutralised.

A cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is a formula (or
becomes one) when a spreadsheet opens the file: a workload named ``=HYPERLINK("http://...")``
would turn a report into a link or a command. As OWASP recommends (CSV Injection), such a cell is
written with a leading ``'``, which spreadsheets show as text and do not evaluate: ``'=HYPERLINK(...)``.
A cell that is a number (``-3``, ``1.5``, ``-2e3``: kartalint's figures and a user's figures
quoted back) is written as it is, since a number is not a formula. A cell that starts with ``'``
gets one more, so a reader takes one leading ``'`` away and has the value back (``'abc`` is written
``''abc``). Quoting is RFC 4180's (fields holding a comma, a quote or a line break are quoted, and
a record whose first cell starts with ``::`` after any spaces is quoted whole, so that no line of
the file starts like a GitHub Actions workflow command and the output guard has nothing to break),
lines end with CRLF. docs/security.md states the promise; ``tests/test_summary.py`` holds it for
each CSV the summary writes, ``tests/test_fuzz.py`` over hostile names.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from typing import IO

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_FIRST = frozenset(FORMULA_STARTS)
QUOTE = "'"  # the mark the writer adds; a cell that starts with one gets one more: one leading ' is always the writer's
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def neutralised(cell: object) -> str:
    """``cell`` as text a spreadsheet shows and never evaluates: with a leading ``'`` when it starts
    like a formula and is not a number."""
    text = cell if type(cell) is str else "" if cell is None else str(cell)
    if text and ((text[0] in _FIRST and not _NUMBER.fullmatch(text)) or text[0] == QUOTE):
        return QUOTE + text
    return text


class SafeCsvWriter:
    """``csv.writer`` (RFC 4180, CRLF) whose every cell is ``neutralised``."""

    def __init__(self, stream: IO[str]) -> None:
        """Writes records to ``stream``."""
        self._writer = csv.writer(stream, lineterminator="\r\n")
        self._quoted = csv.writer(stream, lineterminator="\r\n", quoting=csv.QUOTE_ALL)

    def writerow(self, cells: Iterable[object]) -> None:
        """Write one record (an ``int`` cell is a number: written as it is)."""
        record = [cell if type(cell) is int else neutralised(cell) for cell in cells]
        first = record[0] if record else ""
        starts_a_command = type(first) is str and first.lstrip().startswith("::")
        (self._quoted if starts_a_command else self._writer).writerow(record)

    def writerows(self, records: Iterable[Iterable[object]]) -> None:
        """Write each record as ``writerow`` does."""
        for cells in records:
            self.writerow(cells)
