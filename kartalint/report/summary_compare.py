"""``kartalint describe --summary --compare FILE``: only what differs, in table, CSV, JSON, Markdown.

The entries of the summary go by (the comparison adds them up as they come); ``finish`` writes the
keys whose figures differ, each with why (``diff.figures_compare``), the totals that differ, and
what the summary could not count. Figures are in machine units (GPUs, millicores, bytes,
replicas) in CSV and JSON; the table and Markdown write ``cpu`` and ``memory`` as Kubernetes
quantities, as the user's file does. Text from the inputs (keys, notes) is made visible in the
table and Markdown; CSV cells that a spreadsheet would run are neutralised.
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import IO, Any

from kartalint.diff.figures import QUANTITY_COLUMNS
from kartalint.diff.figures_compare import Comparison
from kartalint.evaluation import quantity
from kartalint.evaluation.fleet import SCHEMA_VERSION
from kartalint.evaluation.fleet_totals import FleetSummary, Totals
from kartalint.report.escape import visible
from kartalint.report.spreadsheet import SafeCsvWriter
from kartalint.report.summary import SummaryReporter, markdown_cell, markdown_items
from kartalint.report.summary_rows import problem_lines


def _number(value: int | Fraction | None, column: str = "", shown: bool = True) -> str:
    """A figure as text: ``-`` (``""`` unless ``shown``) for none; cpu and memory as quantities when
    ``shown`` (the table), else in machine units."""
    if value is None:
        return "-" if shown else ""
    if shown and column in QUANTITY_COLUMNS and value >= 0 and Fraction(value).denominator == 1:
        return quantity.format_cpu(int(value)) if column == "cpu" else quantity.format_memory(int(value))
    if isinstance(value, Fraction):  # (as the JSON document writes it: ``:g`` kept 6 digits, 1000000.5 was 1e+06)
        return str(value.numerator) if value.denominator == 1 else repr(float(value))
    return str(value)


def _json_number(value: Fraction | int | None) -> int | float | None:
    if value is None or isinstance(value, int):
        return value
    return int(value) if value.denominator == 1 else float(value)


def difference_rows(comparison: Comparison) -> list[list[str]]:
    """Header, one row per differing key and column, then one TOTAL row per differing column."""
    keys = list(comparison.expected.keys)
    rows = [[k.upper() for k in keys] + ["COLUMN", "SUMMARY", "FILE", "NOTE"]]
    for difference in comparison.differences():
        cells = [visible(v) or "<none>" for v in difference.key]
        for column, (mine, theirs) in difference.values.items():
            note = visible(difference.note_of(column))
            rows.append([*cells, column, _number(mine, column), _number(theirs, column), note])
    if keys:  # without keys the one row is the total
        for column, (mine, theirs) in comparison.total_differences().items():
            rows.append(["TOTAL", *[""] * (len(keys) - 1), column, _number(mine, column), _number(theirs, column), ""])
    return rows


def _scope(comparison: Comparison) -> str:
    keys = ", ".join(comparison.expected.keys) or "the whole fleet"
    return f"{visible(comparison.expected.path)} (per {keys}; {', '.join(comparison.expected.columns)})"


class ComparisonReporter(SummaryReporter):
    """The lifecycle of a comparison: nothing per entry, everything at ``finish``."""

    def __init__(self, stream: IO[str], comparison: Comparison, explain: bool = False) -> None:
        """Writes to ``stream`` the differences that ``comparison`` finds (it adds the entries up as they go by)."""
        super().__init__(stream, explain)
        self.comparison = comparison


class TableComparison(ComparisonReporter):
    """The default format: the figures that differ from the user's file, aligned, with a TOTAL row per
    differing column, or one line saying they are the same."""

    name = "table"

    def finish(self, whole: FleetSummary) -> None:
        """Write the differences (or that there are none), the columns not compared, and the objects
        not counted or failed."""
        rows = difference_rows(self.comparison)
        if len(rows) == 1:
            self.stream.write(f"{_scope(self.comparison)}: the same figures as the summary\n")
        else:
            self.stream.write(f"{_scope(self.comparison)}: figures that differ from the summary\n")
            widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
            for row in rows:
                self.stream.write("   ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() + "\n")
        ignored = self.comparison.expected.ignored
        if ignored:
            self.stream.write(f"columns not compared: {', '.join(visible(c) for c in ignored)}\n")
        problems = problem_lines(whole.totals, unreadable=False)
        if problems:
            self.stream.write("\n" + "\n".join(problems) + "\n")


class CsvComparison(ComparisonReporter):
    """One record per differing key and column (``scope`` ``row``) and per differing total
    (``scope`` ``total``): the key columns of FILE, ``column``, ``summary``, ``file``, ``note``."""

    name = "csv"

    def finish(self, whole: FleetSummary) -> None:
        """Write the header and the records."""
        writer = SafeCsvWriter(self.stream)
        keys = list(self.comparison.expected.keys)
        writer.writerow(["scope", *keys, "column", "summary", "file", "note"])
        for difference in self.comparison.differences():
            for column, (mine, theirs) in difference.values.items():
                writer.writerow(["row", *difference.key, column, _number(mine, shown=False),
                                 _number(theirs, shown=False), difference.note_of(column)])  # fmt: skip
        for column, (mine, theirs) in self.comparison.total_differences().items() if keys else ():
            writer.writerow(["total", *[""] * len(keys), column, _number(mine, shown=False),
                             _number(theirs, shown=False), ""])  # fmt: skip


def comparison_dict(comparison: Comparison) -> dict[str, Any]:
    """The comparison's own fields of the JSON document (``describe --summary --compare FILE -f json``)."""
    differences = comparison.differences()
    totals = comparison.total_differences()
    expected = comparison.expected
    return {
        "file": expected.path,
        "keys": list(expected.keys),
        "columns": list(expected.columns),
        "ignoredColumns": list(expected.ignored),
        "equal": not differences and not totals,
        "differences": [
            {
                "key": dict(zip(expected.keys, d.key, strict=True)),
                "values": {
                    c: {"summary": _json_number(s), "file": _json_number(f), "note": d.notes.get(c, "")}
                    for c, (s, f) in d.values.items()
                },
                "note": d.note,
            }
            for d in differences
        ],
        "totals": {c: {"summary": s, "file": _json_number(f)} for c, (s, f) in totals.items()},
    }


class JsonComparison(ComparisonReporter):
    """``{"schemaVersion": 2, "document": "comparison", ...}`` (summary.schema.json)."""

    name = "json"
    written_when_nothing_read = True

    def finish(self, whole: FleetSummary) -> None:
        """Write the document: the comparison's own fields, then the first failed objects with their
        errors and the first unreadable places of the input."""
        totals: Totals = whole.totals
        document = {
            "schemaVersion": SCHEMA_VERSION,
            "document": "comparison",
            **comparison_dict(self.comparison),
            "failed": [{"origin": e.origin, "errors": list(e.errors)} for e in totals.failed],
            "failedCount": totals.failed_count,
            "unreadable": [{"origin": e.origin, "error": e.errors[0]} for e in totals.unreadable],
            "unreadableCount": totals.unreadable_count,
        }
        self.stream.write(json.dumps(document, indent=2) + "\n")


class MarkdownComparison(ComparisonReporter):
    """For a CI job summary: the differences as a markdown table (or one line saying there are none),
    then the problems."""

    name = "markdown"

    def finish(self, whole: FleetSummary) -> None:
        """Write the differences (or that there are none), then the objects not counted, failed or not read."""
        rows = difference_rows(self.comparison)
        if len(rows) == 1:
            out = [f"**{_scope(self.comparison)}**: the same figures as the summary"]
        else:
            out = [f"**{_scope(self.comparison)}**: figures that differ from the summary", ""]
            out.append("| " + " | ".join(rows[0]) + " |")
            out.append("|" + "---|" * len(rows[0]))
            out += ["| " + " | ".join(markdown_cell(c) for c in row) + " |" for row in rows[1:]]
        problems = problem_lines(whole.totals)
        if problems:
            out += ["", *markdown_items(problems)]
        self.stream.write("\n".join(out) + "\n")
