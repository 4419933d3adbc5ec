"""``kartalint describe --summary --compare FILE``: only what differs, in table, CSV, JSON, Markdown.

The entries of the summary go by (the comparison adds them up as they come); ``finish`` writes the
keys whose figures differ (with why, when an object is not covered by a definition or failed), the
totals that differ, and what the summary could not count. Figures are in machine units (GPUs,
millicores, bytes, replicas), as in the user's file.
"""

from __future__ import annotations

import csv
import json
from fractions import Fraction
from typing import Any

from kartalint.diff.figures import Comparison
from kartalint.evaluation.fleet import SCHEMA_VERSION, Totals
from kartalint.report.summary import SummaryReporter, problem_lines


def _number(value: int | Fraction | None) -> str:
    if value is None:
        return "-"
    if isinstance(value, Fraction):
        return str(value.numerator) if value.denominator == 1 else f"{float(value):g}"
    return str(value)


def difference_rows(comparison: Comparison) -> list[list[str]]:
    """Header, one row per differing key and column, then one TOTAL row per differing column."""
    keys = list(comparison.expected.keys)
    rows = [[k.upper() for k in keys] + ["COLUMN", "SUMMARY", "FILE", "NOTE"]]
    for difference in comparison.differences():
        cells = [v or "<none>" for v in difference.key]
        for i, (column, (mine, theirs)) in enumerate(difference.values.items()):
            rows.append([*cells, column, _number(mine), _number(theirs), difference.note if i == 0 else ""])
    if keys:  # without keys the one row is the total
        for column, (mine, theirs) in comparison.total_differences().items():
            rows.append(["TOTAL", *[""] * (len(keys) - 1), column, _number(mine), _number(theirs), ""])
    return rows


def _scope(comparison: Comparison) -> str:
    keys = ", ".join(comparison.expected.keys) or "the whole fleet"
    return f"{comparison.expected.path} (per {keys}; {', '.join(comparison.expected.columns)})"


class ComparisonReporter(SummaryReporter):
    """The lifecycle of a comparison: nothing per entry, everything at ``finish``."""

    def __init__(self, stream: Any, comparison: Comparison) -> None:
        """Writes to ``stream`` the differences that ``comparison`` finds (it adds the entries up as they go by)."""
        super().__init__(stream)
        self.comparison = comparison


class TableComparison(ComparisonReporter):
    """The default format: the figures that differ from the user's file, aligned, with a TOTAL row per
    differing column, or one line saying they are the same."""

    name = "table"

    def finish(self, whole: Any) -> None:
        """Write the differences (or that there are none), the columns not compared, and the objects
        not covered or failed."""
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
            self.stream.write(f"columns not compared: {', '.join(ignored)}\n")
        problems = problem_lines(whole.totals, unreadable=False)
        if problems:
            self.stream.write("\n" + "\n".join(problems) + "\n")


class CsvComparison(ComparisonReporter):
    """One record per differing key and column (``scope`` ``row``) and per differing total
    (``scope`` ``total``): the key columns of FILE, ``column``, ``summary``, ``file``, ``note``."""

    name = "csv"

    def finish(self, whole: Any) -> None:
        """Write the header and the records."""
        writer = csv.writer(self.stream, lineterminator="\r\n")
        keys = list(self.comparison.expected.keys)
        writer.writerow(["scope", *keys, "column", "summary", "file", "note"])
        for difference in self.comparison.differences():
            for column, (mine, theirs) in difference.values.items():
                mine_text = "" if mine is None else _number(mine)
                theirs_text = "" if theirs is None else _number(theirs)
                writer.writerow(["row", *difference.key, column, mine_text, theirs_text, difference.note])
        for column, (mine, theirs) in self.comparison.total_differences().items() if keys else ():
            writer.writerow(["total", *[""] * len(keys), column, _number(mine), _number(theirs), ""])


class JsonComparison(ComparisonReporter):
    """``{"schemaVersion": 1, "document": "comparison", ...}`` (summary.schema.json)."""

    name = "json"

    def finish(self, whole: Any) -> None:
        """Write the document: the comparison's own fields, then the ``failed`` objects with their
        errors and the ``unreadable`` places of the input."""
        totals: Totals = whole.totals
        document = {
            "schemaVersion": SCHEMA_VERSION,
            "document": "comparison",
            **self.comparison.to_dict(),
            "failed": [{"origin": e.origin, "errors": list(e.errors)} for e in totals.failed],
            "unreadable": [{"origin": e.origin, "error": e.errors[0]} for e in totals.unreadable],
        }
        self.stream.write(json.dumps(document, indent=2) + "\n")


class MarkdownComparison(ComparisonReporter):
    """For a CI job summary: the differences as a markdown table (or one line saying there are none),
    then the problems."""

    name = "markdown"

    def finish(self, whole: Any) -> None:
        """Write the differences (or that there are none), then the objects not covered, failed or not read."""
        rows = difference_rows(self.comparison)
        if len(rows) == 1:
            out = [f"**{_scope(self.comparison)}**: the same figures as the summary"]
        else:
            out = [f"**{_scope(self.comparison)}**: figures that differ from the summary", ""]
            out.append("| " + " | ".join(rows[0]) + " |")
            out.append("|" + "---|" * len(rows[0]))
            out += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows[1:]]
        problems = problem_lines(whole.totals)
        if problems:
            out += [""] + [f"- {line.strip()}" if line.startswith("  ") else line for line in problems]
        self.stream.write("\n".join(out) + "\n")
