"""A fleet summary against the user's own figures (``describe --summary --compare FILE``).

FILE is a CSV with a header, as a quota or cost script writes it: any of the key columns
``namespace``, ``kind``, ``name`` (none: one line of fleet totals) and at least one of the value
columns ``gpus``, ``cpuMillis``, ``memoryBytes``, ``replicas`` (plain numbers; an empty cell is
not compared). Lines with the same key are added up, and so are the summary's counted workloads:
with only ``namespace``, the figures are compared per namespace. A key missing on one side counts
as zero there, so a script that lists only GPU workloads agrees with a summary whose other
workloads have no GPUs. Other columns are ignored (and named).

``Comparison`` is an observer of ``FleetSummary``: it keeps one small record per key of the
summary (not the objects), and the user's file.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from kartalint.evaluation.fleet import Entry

KEY_COLUMNS = ("namespace", "kind", "name")
VALUE_COLUMNS = ("gpus", "cpuMillis", "memoryBytes", "replicas")
MAX_EXPECTED_BYTES = 256 * 1024 * 1024


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


def _number(text: str, path: str, line: int, column: str) -> Fraction | None:
    text = text.strip()
    if not text:
        return None
    try:
        value = Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise FiguresError(f"{path}:{line}: {column} {text[:40]!r} is not a number") from None
    return value


def read_expected(path: str) -> Expected:
    """The figures of a CSV file (RFC 4180, a header line first)."""
    try:
        handle = open(path, encoding="utf-8-sig", newline="")  # noqa: SIM115 - closed below
    except OSError as exc:
        raise FiguresError(f"{path}: cannot read file: {exc.strerror or exc}") from None
    with handle:
        try:
            if len(handle.read(MAX_EXPECTED_BYTES + 1)) > MAX_EXPECTED_BYTES:
                raise FiguresError(f"{path}: over {MAX_EXPECTED_BYTES} bytes")
            handle.seek(0)
            reader = csv.reader(handle, strict=True)
            header = next(reader, None)
            if not header:
                raise FiguresError(f"{path}:1: no header line (expected e.g. namespace,kind,name,gpus)")
            names = [h.strip() for h in header]
            duplicated = sorted({n for n in names if names.count(n) > 1})
            if duplicated:
                raise FiguresError(f"{path}:1: column {duplicated[0]} appears twice")
            keys = tuple(k for k in KEY_COLUMNS if k in names)
            columns = tuple(c for c in VALUE_COLUMNS if c in names)
            if not columns:
                raise FiguresError(
                    f"{path}:1: no column to compare: the header needs one of {', '.join(VALUE_COLUMNS)} "
                    f"(and any of the key columns {', '.join(KEY_COLUMNS)})"
                )
            expected = Expected(path, keys, columns, ignored=[n for n in names if n not in keys + columns])
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
                    value = _number(record[where[column]], path, line, column)
                    if value is not None:
                        sums[column] = sums.get(column, Fraction(0)) + value
        except csv.Error as exc:
            raise FiguresError(f"{path}: not CSV: {exc}") from None
        except UnicodeDecodeError as exc:
            raise FiguresError(f"{path}: not UTF-8 text (byte offset {exc.start})") from None
    return expected


def figures_of(entry: Entry) -> dict[str, int]:
    resources = entry.resources
    if resources is None:
        return {}
    return {
        "gpus": resources.gpus,
        "cpuMillis": resources.cpu_millis,
        "memoryBytes": resources.memory_bytes,
        "replicas": entry.replicas or 0,
    }


@dataclass
class Difference:
    """A key whose figures differ, with why when it is known (an object of the key that no
    definition covers, or whose evaluation failed, is not counted)."""

    key: tuple[str, ...]
    values: dict[str, tuple[int | None, Fraction | None]]  # column -> (summary, file); None: no figure
    note: str = ""


class Comparison:
    """The summary's counted entries added up per key of ``expected``, then the differences."""

    def __init__(self, expected: Expected) -> None:
        self.expected = expected
        self.found: dict[tuple[str, ...], dict[str, int]] = {}
        self.notes: dict[tuple[str, ...], list[str]] = {}  # keys with a failed or uncovered object
        self.totals = dict.fromkeys(expected.columns, 0)

    def add(self, entry: Entry) -> None:
        if entry.outcome == "unreadable":
            return
        key = tuple(entry.value(k) for k in self.expected.keys)
        if entry.outcome == "counted":
            sums = self.found.setdefault(key, dict.fromkeys(self.expected.columns, 0))
            values = figures_of(entry)
            for column in self.expected.columns:
                sums[column] += values[column]
                self.totals[column] += values[column]
            return
        who = "/".join(part for part in (entry.namespace, entry.kind, entry.name) if part)
        if entry.outcome == "uncovered":
            note = f"{who}: no definition covers {entry.api_version} {entry.kind}"
        else:
            note = f"{who}: not counted, the evaluation failed: {entry.errors[0] if entry.errors else ''}"
        notes = self.notes.setdefault(key, [])
        if len(notes) < 3:
            notes.append(note)
        elif len(notes) == 3:
            notes.append("...")

    def differences(self) -> list[Difference]:
        out = []
        for key in sorted(set(self.found) | set(self.expected.rows) | set(self.notes)):
            mine = self.found.get(key)  # None: no counted workload has this key
            theirs = self.expected.rows.get(key)  # None: the file has no line with this key
            values: dict[str, tuple[int | None, Fraction | None]] = {}
            for column in self.expected.columns:
                if theirs is not None and column not in theirs:
                    continue  # the file leaves it empty: not compared
                here = mine[column] if mine is not None else 0
                there = theirs[column] if theirs is not None else Fraction(0)
                if here != there:
                    values[column] = (here if mine is not None else None, there if theirs is not None else None)
            notes = self.notes.get(key, [])
            if values and mine is None and not notes:
                notes = ["not in the input"]
            if values:  # an object not counted where the figures agree is said by the summary's own lines
                out.append(Difference(key, values, "; ".join(notes)))
        return out

    def total_differences(self) -> dict[str, tuple[int, Fraction]]:
        mine = self.totals
        theirs = {c: sum((row.get(c, Fraction(0)) for row in self.expected.rows.values()), Fraction(0)) for c in mine}
        return {c: (mine[c], theirs[c]) for c in mine if mine[c] != theirs[c]}

    def to_dict(self) -> dict[str, Any]:
        """The comparison's JSON document (``describe --summary --compare FILE -f json``)."""
        differences = self.differences()
        totals = self.total_differences()

        def number(value: Fraction | int | None) -> int | float | None:
            if value is None or isinstance(value, int):
                return value
            return int(value) if value.denominator == 1 else float(value)

        return {
            "file": self.expected.path,
            "keys": list(self.expected.keys),
            "columns": list(self.expected.columns),
            "ignoredColumns": list(self.expected.ignored),
            "equal": not differences and not totals,
            "differences": [
                {
                    "key": dict(zip(self.expected.keys, d.key, strict=True)),
                    "values": {c: {"summary": number(s), "file": number(f)} for c, (s, f) in d.values.items()},
                    "note": d.note,
                }
                for d in differences
            ],
            "totals": {c: {"summary": s, "file": number(f)} for c, (s, f) in totals.items()},
        }
