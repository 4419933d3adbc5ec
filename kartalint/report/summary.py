"""``kartalint describe --summary``: the fleet summary as a table and as Markdown (CSV and JSON:
``summary_data``).

Each format is a lifecycle (``report.base``) over a ``FleetSummary``: ``item`` is called with each
entry as soon as its batch is evaluated and writes its rows (the table a batch of rows at a time,
so its columns line up), ``finish`` writes the totals, the objects not counted (by kind) and the
objects that failed (with their errors), and with ``--explain`` which workloads count as active.
Markdown, for a CI job summary, writes the totals first and the rows after them, so it keeps the
rows' lines (not the objects) until the end.

Units: the table and Markdown write each row's CPU and memory as Kubernetes quantities (``500m``,
``16Gi``) and each column of the totals in one unit, as describe's Resources table does; CSV and
JSON use machine units (GPUs, millicores, bytes, as integers).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import IO, Any

from kartalint.evaluation.fleet_totals import FleetSummary, Totals
from kartalint.report.base import Lifecycle
from kartalint.report.summary_rows import explain_lines, problem_lines, row_cells, row_head, rows_of, total_rows

FLUSH = 256  # table rows written together (their columns aligned to the widest cell so far)


class SummaryReporter(Lifecycle[FleetSummary]):
    """A summary format: ``report(summary)`` walks the entries as they are evaluated. ``walk`` then
    ``finish`` is the same in two steps, for a command that decides in between whether the report is
    written at all: a format writes nothing before the first object is read, so when none could be
    (every input missing, unreadable or empty: exit 2) the command can leave it unwritten, as it
    does except for JSON (``written_when_nothing_read``), whose ``unreadable`` says why."""

    written_when_nothing_read = False  # JSON: the document says what could not be read

    def __init__(self, stream: IO[str], explain: bool = False) -> None:
        """Writes to ``stream``; ``explain``: say which workloads count as active (``--explain``); the
        summary is known once ``report`` is called."""
        self.stream = stream
        self.explain = explain
        self.summary: FleetSummary | None = None

    def report(self, whole: FleetSummary) -> None:
        """Run the lifecycle over ``whole``, kept as ``summary`` for the steps."""
        self.walk(whole)
        self.finish(whole)

    def walk(self, whole: FleetSummary) -> None:
        """``start``, then ``item`` for each entry of ``whole`` (kept as ``summary``); ``finish`` is left
        to the caller."""
        self.summary = whole
        self.start()
        for item in self.items(whole):
            self.item(item)

    def items(self, whole: FleetSummary) -> Iterable[Any]:
        """The summary's entries, each as soon as its batch is evaluated."""
        return whole.entries()

    @property
    def pods_given(self) -> bool:
        """Whether pods were given: only then the READY and ALLOCATED columns are shown."""
        return bool(self.summary and self.summary.pods_given)

    @property
    def per_role(self) -> bool:
        """Whether the rows are per role (``--rows role``)."""
        return bool(self.summary and self.summary.rows == "role")


def _align(rows: list[list[str]], widths: list[int]) -> list[str]:
    for row in rows:
        for i, cell in enumerate(row[:-1]):
            widths[i] = max(widths[i], len(cell))
    return ["".join([*(c.ljust(widths[i] + 3) for i, c in enumerate(row[:-1])), row[-1]]).rstrip() for row in rows]


class TableSummary(SummaryReporter):
    """One aligned row per counted workload (or role), then the totals and the problems (the default)."""

    name = "table"

    def start(self) -> None:
        """Begin with no row kept and none written."""
        self.rows: list[list[str]] = []
        self.widths: list[int] = []
        self.written = 0

    def item(self, item: Any) -> None:
        """Keep a counted entry's rows (the header before the first); write them every ``FLUSH`` rows."""
        if item.outcome != "counted":
            return
        if not self.widths:
            head = row_head(self.pods_given, self.per_role)
            self.widths = [len(h) for h in head]
            self.rows.append(head)
        for row in rows_of(item, self.per_role):
            self.rows.append(row_cells(row, self.pods_given, self.per_role))
        if len(self.rows) >= FLUSH:
            self._flush()

    def _flush(self) -> None:
        for line in _align(self.rows, self.widths):
            self.stream.write(line + "\n")
        self.written += len(self.rows)
        self.rows = []

    def finish(self, whole: FleetSummary) -> None:
        """Write the rows left (``(no workload counted)`` when there was none), the totals table, the
        objects not counted or failed, and with ``explain`` the active mapping."""
        self._flush()
        totals: Totals = whole.totals
        if not self.written:
            self.stream.write("(no workload counted)\n")
        by = ", ".join(totals.group_by)
        self.stream.write(f"\nTotals by {by}:\n" if by else "\nTotals:\n")
        table = total_rows(totals, whole.pods_given)
        for line in _align(table, [0] * len(table[0])):
            self.stream.write(line + "\n")
        problems = problem_lines(totals, unreadable=False)
        if problems:
            self.stream.write("\n" + "\n".join(problems) + "\n")
        if self.explain:
            self.stream.write("\n" + "\n".join(explain_lines(totals)) + "\n")


def markdown_cell(text: str) -> str:
    """A table cell of Markdown: ``|`` and ``\\`` escaped (the text is visible already)."""
    return text.replace("\\", "\\\\").replace("|", "\\|")


def markdown_table(rows: list[list[str]]) -> list[str]:
    """A header row, its rule, then the rows, as Markdown table lines."""
    head, *body = rows
    lines = ["| " + " | ".join(markdown_cell(c) for c in head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(markdown_cell(c) for c in row) + " |" for row in body]
    return lines


def markdown_items(lines: list[str]) -> list[str]:
    """Problem lines as Markdown: an indented line becomes a list item."""
    return [f"- {line.strip()}" if line.startswith("  ") else line for line in lines]


class MarkdownSummary(SummaryReporter):
    """For a CI job summary: the totals, the problems, then the rows in a collapsed section."""

    name = "markdown"

    def start(self) -> None:
        """Begin with no row kept."""
        self.lines: list[str] = []

    def item(self, item: Any) -> None:
        """Keep a counted entry's table rows for the end."""
        if item.outcome == "counted":
            for row in rows_of(item, self.per_role):
                cells = row_cells(row, self.pods_given, self.per_role)
                self.lines.append("| " + " | ".join(markdown_cell(c) for c in cells) + " |")

    def finish(self, whole: FleetSummary) -> None:
        """Write the totals table, the problems, the active mapping with ``explain``, then the kept
        rows in a collapsed section."""
        totals: Totals = whole.totals
        by = ", ".join(totals.group_by)
        out = ["## Workloads by " + by if by else "## Workloads", ""]
        out += markdown_table(total_rows(totals, whole.pods_given))
        problems = problem_lines(totals)
        if problems:
            out += ["", *markdown_items(problems)]
        if self.explain:
            out += ["", *markdown_items(explain_lines(totals))]
        head = row_head(whole.pods_given, self.per_role)
        rows = f", {len(self.lines)} role row(s)" if self.per_role else ""
        out += ["", f"<details><summary>{totals.all.workloads} workload(s){rows}</summary>", ""]
        out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head), *self.lines, "", "</details>"]
        self.stream.write("\n".join(out) + "\n")
