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
"""

from __future__ import annotations

import csv
import io
import re
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction

from kartalint.evaluation import quantity
from kartalint.load.confinement import ReadRefused, read_regular

KEY_COLUMNS = ("namespace", "apiVersion", "group", "kind", "name", "role")
VALUE_COLUMNS = ("gpus", "activeGpus", "allocatedGpus", "cpu", "memory", "cpuMillis", "memoryBytes", "replicas")
QUANTITY_COLUMNS = ("cpu", "memory")  # Kubernetes quantities (kept as millicores and bytes)
MAX_EXPECTED_BYTES = 64 * 1024 * 1024
MAX_COLUMNS = 1000
MAX_NUMBER = 64  # characters of one value
_DECIMAL = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE]([+-]?\d+))?")


class FiguresError(ValueError):
    """The user's file cannot be read as figures (the message names the file and line)."""


@dataclass
class Expected:
    """The user's figures: per key (the values of ``keys``), the sum of each value column."""

    path: str
    keys: tuple[str, ...]
    columns: tuple[str, ...]
    rows: dict[tuple[str, ...], dict[str, Fraction]] = field(default_factory=dict)
    ignored: list[str] = field(default_factory=list)


def parse_value(text: str, column: str, where: str) -> Fraction | None:
    """A cell of a value column in its unit (millicores for ``cpu``, bytes for ``memory``), None
    when empty; ``FiguresError`` naming ``where`` (``file:line``) otherwise."""
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
        return amount * 1000 if column == "cpu" else amount
    match = _DECIMAL.fullmatch(text)
    if match is None:
        raise FiguresError(f"{where}: {column} {shown} is not a number")
    if match.group(1) is not None and abs(int(match.group(1))) > 100:
        raise FiguresError(f"{where}: {column} {shown} is out of range (an exponent of at most 100)")
    return Fraction(text)


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
        reader = csv.reader(io.StringIO(text, newline=""), strict=True)
        header = next(reader, None)
        if not header:
            raise FiguresError(f"{path}:1: no header line (expected e.g. namespace,kind,name,gpus)")
        names = [h.strip() for h in header]
        keys, columns, ignored = _header(names, path)
        expected = Expected(path, keys, columns, ignored=ignored)
        where = {n: i for i, n in enumerate(names)}
        for record in reader:
            line = reader.line_num
            if not any(cell.strip() for cell in record):
                continue
            if len(record) != len(names):
                raise FiguresError(f"{path}:{line}: {len(record)} fields, the header has {len(names)}")
            key = tuple(record[where[k]].strip() for k in keys)
            sums = expected.rows.setdefault(key, {})
            for column in columns:
                value = parse_value(record[where[column]], column, f"{path}:{line}")
                if value is not None:
                    sums[column] = sums.get(column, Fraction(0)) + value
        if expected.rows:  # a column left empty in every line is not compared
            expected.columns = tuple(c for c in columns if any(c in sums for sums in expected.rows.values()))
            expected.ignored += [c for c in columns if c not in expected.columns]
        if not expected.columns:
            raise FiguresError(f"{path}: no figure to compare: every cell of {', '.join(columns)} is empty")
    except csv.Error as exc:
        place = f":{reader.line_num}" if reader is not None else ""
        raise FiguresError(f"{path}{place}: not CSV: {exc}") from None
    except UnicodeDecodeError as exc:
        raise FiguresError(f"{path}: not UTF-8 text (byte offset {exc.start})") from None
    return expected
