"""The user's own figures, for ``describe --summary --compare FILE`` (``figures_compare`` compares them).

FILE is a CSV with a header, as a quota or cost script writes it: any of the key columns
``namespace``, ``apiVersion``, ``group``, ``kind``, ``name``, ``role`` (none: one line of fleet
totals) and at least one of the value columns ``gpus``, ``activeGpus``, ``allocatedGpus``,
``cpu``, ``memory``, ``replicas`` (and the older ``cpuMillis``, ``memoryBytes``). Lines with the
same key are added up. A value column whose every cell is empty is not compared; other columns
are ignored (and named).

Values: GPUs and replicas are decimal numbers (``8``, ``2.5``, ``1e3``); ``cpu`` and ``memory``
are Kubernetes quantities (``2``, ``500m``, ``0.5``; ``16Gi``, ``70M``, a plain number of bytes),
kept as millicores and bytes; an empty cell is not compared. The reading is bounded, so a hostile
file is a clear error naming the file and its place, never a hang: the file at most 64 MiB (read
once, so a pipe such as ``<(python3 script.py)`` is a file too), a
header of at most ``MAX_COLUMNS`` columns, a number of at most 64 characters with an exponent of
at most 100.

The sums are kept compactly (``FigureRows``), as a file of millions of lines needs: the text is
read line by line (never copied into a ``StringIO``), each key is one string, each line's figures
one tuple (shared between the lines whose figures are the same) of ``int`` where the figure is
whole and ``Fraction`` where it is not, so every sum stays exact; a key's figures are made
``Fraction``s when the comparison asks for them.
"""

from __future__ import annotations

import csv
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING

from kartalint.evaluation import quantity
from kartalint.load.confinement import ReadRefused, read_regular

if TYPE_CHECKING:
    from _csv import Reader

KEY_COLUMNS = ("namespace", "apiVersion", "group", "kind", "name", "role")
VALUE_COLUMNS = ("gpus", "activeGpus", "allocatedGpus", "cpu", "memory", "cpuMillis", "memoryBytes", "replicas")
QUANTITY_COLUMNS = ("cpu", "memory")  # Kubernetes quantities (kept as millicores and bytes)
MAX_EXPECTED_BYTES = 64 * 1024 * 1024
MAX_COLUMNS = 1000
MAX_NUMBER = 64  # characters of one value
_DECIMAL = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE]([+-]?\d+))?")
# a line as io.StringIO(newline="") gives it: ended by \n, \r\n or \r, the ending kept
_LINE = re.compile(r"[^\r\n]*(?:\r\n?|\n)|[^\r\n]+")
_SEPARATOR = "\x00\x00"  # between the cells of a stored key (a NUL of a cell is stored as "\x00\x01")
SHARED_FIGURES = 4096  # distinct tuples of figures shared between the lines that have them
CACHED_CELLS = 4096  # distinct cells of a column whose value is kept, not parsed again

Figure = int | Fraction  # an int where the figure is whole: exact, and far smaller than a Fraction


class FiguresError(ValueError):
    """The user's file cannot be read as figures (the message names the file and line)."""


def stored_key(cells: Sequence[str]) -> str:
    """A key as one string: its cells joined by ``_SEPARATOR``, a NUL of a cell written ``\\x00\\x01``.
    Two keys are equal, and sort, as their stored strings do (a separator sorts before any
    character of a cell, a NUL of a cell too)."""
    return _SEPARATOR.join(c.replace("\x00", "\x00\x01") if "\x00" in c else c for c in cells)


def key_of(stored: str, width: int) -> tuple[str, ...]:
    """The key (of ``width`` cells) that ``stored_key`` made ``stored``."""
    if width == 0:
        return ()
    cells = stored.split(_SEPARATOR) if width > 1 else [stored]
    return tuple(c.replace("\x00\x01", "\x00") if "\x00" in c else c for c in cells)


def _whole(value: Figure) -> Figure:
    return value.numerator if isinstance(value, Fraction) and value.denominator == 1 else value


class FigureRows(Mapping[tuple[str, ...], dict[str, Fraction]]):
    """The sums of a file's lines per key: a mapping of key (a tuple of cells) to ``{column:
    Fraction}`` (the columns whose cells are not all empty for that key), held compactly."""

    def __init__(self, width: int = 0, columns: tuple[str, ...] = ()) -> None:
        """Keys of ``width`` cells, figures of ``columns`` (in that order)."""
        self.width = width
        self.columns = columns
        self._sums: dict[str, tuple[Figure | None, ...]] = {}  # stored key -> a figure per column
        self._shared: dict[tuple[Figure | None, ...], tuple[Figure | None, ...]] = {}
        self.filled: set[str] = set()  # the columns with a figure for some key

    def add(self, key: Sequence[str], figures: tuple[Figure | None, ...]) -> None:
        """Add a line's ``figures`` (one per column, None where the cell is empty) to ``key``'s."""
        stored = stored_key(key)
        before = self._sums.get(stored)
        if before is not None:
            figures = tuple(
                b if f is None else f if b is None else _whole(b + f) for b, f in zip(before, figures, strict=True)
            )
        shared = self._shared.get(figures)
        if shared is None:
            shared = figures
            self.filled.update(c for c, f in zip(self.columns, figures, strict=True) if f is not None)
            if len(self._shared) < SHARED_FIGURES:
                self._shared[figures] = figures
        self._sums[stored] = shared

    def __getitem__(self, key: tuple[str, ...]) -> dict[str, Fraction]:
        """The sums of ``key`` (``KeyError`` when no line of the file has it)."""
        figures = self._sums[stored_key(key)]
        return {c: Fraction(f) for c, f in zip(self.columns, figures, strict=True) if f is not None}

    def __contains__(self, key: object) -> bool:
        """Whether a line of the file has ``key``."""
        return isinstance(key, tuple) and stored_key(key) in self._sums

    def __iter__(self) -> Iterator[tuple[str, ...]]:
        """The keys, in the file's order."""
        return (key_of(stored, self.width) for stored in self._sums)

    def __len__(self) -> int:
        """How many keys."""
        return len(self._sums)

    def in_order(self) -> Iterator[tuple[str, ...]]:
        """The keys, sorted (as tuples sort)."""
        return (key_of(stored, self.width) for stored in sorted(self._sums))

    def total(self, column: str) -> Fraction:
        """The sum of ``column`` over every key (0 when every cell is empty)."""
        at = self.columns.index(column)
        return Fraction(sum(f[at] or 0 for f in self._sums.values()))


@dataclass
class Expected:
    """The user's figures: per key (the values of ``keys``), the sum of each value column."""

    path: str
    keys: tuple[str, ...]
    columns: tuple[str, ...]
    rows: FigureRows = field(default_factory=FigureRows)
    ignored: list[str] = field(default_factory=list)


def parse_value(text: str, column: str, where: str) -> Figure | None:
    """A cell of a value column in its unit (millicores for ``cpu``, bytes for ``memory``), exact:
    an ``int`` where it is whole, else a ``Fraction``; None when empty; ``FiguresError`` naming
    ``where`` (``file:line``) otherwise."""
    text = text.strip()
    if not text:
        return None
    shown = repr(text[:40]) + ("..." if len(text) > 40 else "")
    if len(text) > MAX_NUMBER:
        raise FiguresError(f"{where}: {column} {shown} is not a number: {len(text)} characters (at most {MAX_NUMBER})")
    if column in QUANTITY_COLUMNS:
        try:
            amount = quantity.parse(text)
        except quantity.QuantityError:
            raise FiguresError(f"{where}: {column} {shown} is not a Kubernetes quantity (e.g. 2, 500m, 16Gi)") from None
        return _whole(amount * 1000 if column == "cpu" else amount)
    if text.isdecimal():  # what \d matches, and int() reads: the same number as Fraction(text)
        return int(text)
    match = _DECIMAL.fullmatch(text)
    if match is None:
        raise FiguresError(f"{where}: {column} {shown} is not a number")
    if match.group(1) is not None and abs(int(match.group(1))) > 100:
        raise FiguresError(f"{where}: {column} {shown} is out of range (an exponent of at most 100)")
    return _whole(Fraction(text))


def _header(names: list[str], path: str) -> tuple[tuple[str, ...], tuple[str, ...], list[str]]:
    if len(names) > MAX_COLUMNS:
        raise FiguresError(f"{path}:1: {len(names)} columns: a header of at most {MAX_COLUMNS} columns is read")
    duplicated = sorted(name for name, count in Counter(names).items() if count > 1)
    if duplicated:
        raise FiguresError(f"{path}:1: column {duplicated[0][:80]!r} appears twice")
    keys = tuple(k for k in KEY_COLUMNS if k in names)
    columns = tuple(c for c in VALUE_COLUMNS if c in names)
    if not columns:
        raise FiguresError(
            f"{path}:1: no column to compare: the header needs one of {', '.join(VALUE_COLUMNS)} "
            f"(and any of the key columns {', '.join(KEY_COLUMNS)})"
        )
    return keys, columns, [n for n in names if n not in keys + columns]


def read_expected(path: str) -> Expected:
    """The figures of a CSV file (RFC 4180, a header line first); ``FiguresError`` naming the file
    and line for what cannot be read."""
    try:  # a regular file only: a FIFO or a device is never waited on, nor read without end
        data = read_regular(path, MAX_EXPECTED_BYTES, "file")
    except ReadRefused as exc:
        raise FiguresError(str(exc)) from None
    reader = None
    try:
        text = data.decode("utf-8-sig")
        del data  # (the text is read line by line as io.StringIO(text, newline="") gives them)
        reader = csv.reader((line.group() for line in _LINE.finditer(text)), strict=True)
        header = next(reader, None)
        if not header:
            raise FiguresError(f"{path}:1: no header line (expected e.g. namespace,kind,name,gpus)")
        names = [h.strip() for h in header]
        keys, columns, ignored = _header(names, path)
        expected = Expected(path, keys, columns, FigureRows(len(keys), columns), ignored=ignored)
        _read_lines(reader, names, expected)
        filled = expected.rows.filled
        if expected.rows:  # a column left empty in every line is not compared
            expected.columns = tuple(c for c in columns if c in filled)
            expected.ignored += [c for c in columns if c not in expected.columns]
        if not expected.columns:
            raise FiguresError(f"{path}: no figure to compare: every cell of {', '.join(columns)} is empty")
    except csv.Error as exc:
        place = f":{reader.line_num}" if reader is not None else ""
        raise FiguresError(f"{path}{place}: not CSV: {exc}") from None
    except UnicodeDecodeError as exc:
        raise FiguresError(f"{path}: not UTF-8 text (byte offset {exc.start})") from None
    return expected


def _read_lines(reader: Reader, names: list[str], expected: Expected) -> None:
    """Add each line of ``reader`` (a ``csv.reader``) to ``expected.rows``."""
    key_at = [names.index(k) for k in expected.keys]
    figure_at: list[tuple[int, str, dict[str, Figure | None]]] = [(names.index(c), c, {}) for c in expected.columns]
    rows = expected.rows
    for record in reader:
        line = reader.line_num
        if not any(cell.strip() for cell in record):
            continue
        if len(record) != len(names):
            raise FiguresError(f"{expected.path}:{line}: {len(record)} fields, the header has {len(names)}")
        figures = []
        for at, column, known in figure_at:
            cell = record[at]
            if cell in known:  # (a script writes the same few figures again and again)
                figures.append(known[cell])
                continue
            value = parse_value(cell, column, f"{expected.path}:{line}")
            if len(known) < CACHED_CELLS:
                known[cell] = value
            figures.append(value)
        rows.add([record[at].strip() for at in key_at], tuple(figures))
