"""``kartalint describe --summary``: the fleet summary in table, CSV, JSON and Markdown.

Each format is a lifecycle (``report.base``) over a ``FleetSummary``: ``item`` is called with each
entry as soon as its batch is evaluated and writes it (the table a batch of rows at a time, so its
columns line up), ``finish`` writes the totals, the objects no definition covers (by kind) and the
objects that failed (with their errors). Markdown, for a CI job summary, writes the totals first
and the rows after them, so it keeps the rows' lines (not the objects) until the end.

Units: the table and Markdown write each row's CPU and memory as Kubernetes quantities (``500m``,
``16Gi``) and each column of the totals in one unit, as describe's Resources table does; CSV and
JSON use machine units (GPUs, millicores, bytes, as integers).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from typing import IO, Any

from kartalint.evaluation import quantity
from kartalint.evaluation.fleet import SCHEMA_VERSION, Entry, FleetSummary, Total, Totals
from kartalint.report.base import Lifecycle

CSV_COLUMNS = (
    "namespace",
    "kind",
    "name",
    "apiVersion",
    "definition",
    "status",
    "replicas",
    "ready",
    "gpus",
    "cpuMillis",
    "memoryBytes",
    "error",
)
FLUSH = 256  # table rows written together (their columns aligned to the widest cell so far)


class SummaryReporter(Lifecycle):
    """A summary format: ``report(summary)`` walks the entries as they are evaluated."""

    def __init__(self, stream: IO[str]) -> None:
        """Writes to ``stream``; the summary is known once ``report`` is called."""
        self.stream = stream
        self.summary: FleetSummary | None = None

    def report(self, whole: Any) -> None:
        """Run the lifecycle over ``whole`` (a ``FleetSummary``), kept as ``summary`` for the steps."""
        self.summary = whole
        super().report(whole)

    def items(self, whole: Any) -> Iterable[Any]:
        """The summary's entries, each as soon as its batch is evaluated."""
        return whole.entries()

    @property
    def pods_given(self) -> bool:
        """Whether pods were read (``--pods``): only then the READY column and ready counts are shown."""
        return bool(self.summary and self.summary.pods_given)


def _namespace(text: str) -> str:
    return text or "<none>"


def _who(entry: Entry) -> str:
    return "/".join(p for p in (entry.namespace, entry.kind, entry.name) if p) or "<unnamed>"


def problem_lines(totals: Totals, unreadable: bool = True) -> list[str]:
    """The objects no definition covers (by kind), those that failed and (with ``unreadable``) the
    places of the input that could not be read (the command says those on stderr too)."""
    lines = []
    if totals.uncovered:
        kinds = ", ".join(
            f"{kind or '<no kind>'} ({api or '<no apiVersion>'}) {count}"
            for (api, kind), count in sorted(totals.uncovered.items())
        )
        lines.append(f"not covered by any definition: {totals.uncovered_count} object(s): {kinds}")
    if totals.failed:
        lines.append(f"failed, not in the totals: {len(totals.failed)} object(s):")
        for entry in totals.failed:
            more = f" (and {len(entry.errors) - 1} more)" if len(entry.errors) > 1 else ""
            lines.append(f"  {_who(entry)} ({entry.origin}): {entry.errors[0] if entry.errors else ''}{more}")
    if totals.unreadable and unreadable:
        lines.append(f"not read: {len(totals.unreadable)} place(s) of the input:")
        lines.extend(f"  {entry.errors[0]}" for entry in totals.unreadable)
    return lines


def _align(rows: list[list[str]], widths: list[int]) -> list[str]:
    for row in rows:
        for i, cell in enumerate(row[:-1]):
            widths[i] = max(widths[i], len(cell))
    return ["".join([*(c.ljust(widths[i] + 3) for i, c in enumerate(row[:-1])), row[-1]]).rstrip() for row in rows]


def total_rows(totals: Totals, pods_given: bool) -> list[list[str]]:
    """The totals table: the group-by columns, then WORKLOADS REPLICAS [READY] GPU CPU MEMORY, each
    resource column in one unit; the last row is the TOTAL."""
    groups: list[tuple[list[str], Total]] = [
        ([_namespace(v) if k == "namespace" else v for k, v in zip(totals.group_by, key, strict=True)], total)
        for key, total in totals.sorted_groups()
    ]
    groups.append((["TOTAL"] + [""] * (len(totals.group_by) - 1), totals.all))
    cpus = quantity.cpu_column([t.resources.cpu_millis for _, t in groups])
    memories = quantity.memory_column([t.resources.memory_bytes for _, t in groups])
    head = [k.upper() for k in totals.group_by] + ["WORKLOADS", "REPLICAS"] + (["READY"] if pods_given else [])
    rows = [[*head, "GPU", "CPU", "MEMORY"]]
    for (cells, total), cpu, memory in zip(groups, cpus, memories, strict=True):
        ready = [str(total.ready)] if pods_given else []
        rows.append([*cells, str(total.workloads), str(total.replicas), *ready, str(total.resources.gpus), cpu, memory])
    return rows


def _row_cells(entry: Entry, pods_given: bool) -> list[str]:
    resources = entry.resources
    assert resources is not None  # counted entries only
    ready = [str(entry.ready if entry.ready is not None else 0)] if pods_given else []
    return [
        _namespace(entry.namespace),
        entry.kind,
        entry.name,
        entry.definition,
        entry.status,
        str(entry.replicas),
        *ready,
        str(resources.gpus),
        quantity.format_cpu(resources.cpu_millis),
        quantity.format_memory(resources.memory_bytes),
    ]


def _row_head(pods_given: bool) -> list[str]:
    ready = ["READY"] if pods_given else []
    return ["NAMESPACE", "KIND", "NAME", "DEFINITION", "STATUS", "REPLICAS", *ready, "GPU", "CPU", "MEMORY"]


class TableSummary(SummaryReporter):
    """One aligned row per counted workload, then the totals and the problems (the default)."""

    name = "table"

    def start(self) -> None:
        """Begin with no row kept and none written."""
        self.rows: list[list[str]] = []
        self.widths: list[int] = []
        self.written = 0

    def item(self, item: Any) -> None:
        """Keep a counted entry's row (the header before the first); write them every ``FLUSH`` rows."""
        if item.outcome == "counted":
            if not self.widths:
                head = _row_head(self.pods_given)
                self.widths = [len(h) for h in head]
                self.rows.append(head)
            self.rows.append(_row_cells(item, self.pods_given))
            if len(self.rows) >= FLUSH:
                self._flush()

    def _flush(self) -> None:
        for line in _align(self.rows, self.widths):
            self.stream.write(line + "\n")
        self.written += len(self.rows)
        self.rows = []

    def finish(self, whole: Any) -> None:
        """Write the rows left (``(no workload counted)`` when there was none), the totals table and
        the objects not covered or failed."""
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


def csv_record(entry: Entry) -> list[str]:
    """A CSV record in ``CSV_COLUMNS`` order, in machine units; a failed entry has empty figures and
    its errors joined by ``; ``."""
    resources = entry.resources
    numbers = ["", "", "", ""]
    if resources is not None:
        numbers = [str(entry.replicas), str(resources.gpus), str(resources.cpu_millis), str(resources.memory_bytes)]
    return [
        entry.namespace,
        entry.kind,
        entry.name,
        entry.api_version,
        entry.definition,
        entry.status,
        numbers[0],
        "" if entry.ready is None else str(entry.ready),
        *numbers[1:],
        "; ".join(entry.errors),
    ]


class CsvSummary(SummaryReporter):
    """One header, then one record per workload a definition covers (RFC 4180 quoting, machine
    units; a failed one has empty figures and its error). Totals are a sum away; what no definition
    covers is said on stderr by the command."""

    name = "csv"

    def start(self) -> None:
        """Begin with the header record."""
        self.writer = csv.writer(self.stream, lineterminator="\r\n")
        self.writer.writerow(CSV_COLUMNS)

    def item(self, item: Any) -> None:
        """Write the record of a counted or failed entry (the others are said on stderr by the command)."""
        if item.outcome in ("counted", "failed"):
            self.writer.writerow(csv_record(item))


def entry_dict(entry: Entry) -> dict[str, Any]:
    """An entry of ``rows`` in the summary document: where it comes from, the object's identity, its
    definition, outcome, statuses, replicas, ready pods, ``resources`` (None unless counted) and
    errors."""
    return {
        "origin": entry.origin,
        "namespace": entry.namespace,
        "kind": entry.kind,
        "apiVersion": entry.api_version,
        "name": entry.name,
        "definition": entry.definition,
        "outcome": entry.outcome,
        "statuses": list(entry.statuses),
        "status": entry.status,
        "replicas": entry.replicas,
        "ready": entry.ready,
        "resources": entry.resources.to_dict() if entry.resources is not None else None,
        "errors": list(entry.errors),
    }


def total_dict(total: Total, pods_given: bool) -> dict[str, Any]:
    """A group's figures in the summary document: ``workloads``, ``replicas``, ``ready`` (None without
    pods) and ``resources``."""
    return {
        "workloads": total.workloads,
        "replicas": total.replicas,
        "ready": total.ready if pods_given else None,
        "resources": total.resources.to_dict(),
    }


class JsonSummary(SummaryReporter):
    """The summary document (``schemaVersion`` 1, kartalint/schema/data/summary.schema.json):
    ``rows`` (every workload a definition covers, counted or failed) streamed one per line, then
    ``totals``, ``uncovered`` and ``unreadable``."""

    name = "json"

    def start(self) -> None:
        """Write the head of the document (``schemaVersion``, ``document``, ``groupBy``, ``podsGiven``)
        and open ``rows``."""
        assert self.summary is not None
        head = {
            "schemaVersion": SCHEMA_VERSION,
            "document": "summary",
            "groupBy": list(self.summary.totals.group_by),
            "podsGiven": self.summary.pods_given,
        }
        self.stream.write(
            "{\n" + "".join(f"  {json.dumps(k)}: {json.dumps(v)},\n" for k, v in head.items()) + '  "rows": ['
        )
        self.first = True

    def item(self, item: Any) -> None:
        """Write a counted or failed entry as one line of ``rows``."""
        if item.outcome in ("counted", "failed"):
            self.stream.write(("\n    " if self.first else ",\n    ") + json.dumps(entry_dict(item)))
            self.first = False

    def finish(self, whole: Any) -> None:
        """Close ``rows`` and write ``totals`` (per group and ``all``), ``objects``, ``failed``,
        ``uncovered`` (by kind) and ``unreadable``."""
        totals: Totals = whole.totals
        pods = whole.pods_given
        tail = {
            "totals": {
                "groups": [
                    {"key": dict(zip(totals.group_by, key, strict=True)), **total_dict(total, pods)}
                    for key, total in totals.sorted_groups()
                ],
                "all": total_dict(totals.all, pods),
            },
            "objects": totals.objects,
            "failed": len(totals.failed),
            "uncovered": {
                "objects": totals.uncovered_count,
                "byKind": [
                    {"apiVersion": api, "kind": kind, "objects": count}
                    for (api, kind), count in sorted(totals.uncovered.items())
                ],
            },
            "unreadable": [{"origin": e.origin, "error": e.errors[0]} for e in totals.unreadable],
        }
        self.stream.write("]" if self.first else "\n  ]")
        for key, value in tail.items():
            self.stream.write(f",\n  {json.dumps(key)}: " + json.dumps(value, indent=2).replace("\n", "\n  "))
        self.stream.write("\n}\n")


def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _markdown_table(rows: list[list[str]]) -> list[str]:
    head, *body = rows
    lines = ["| " + " | ".join(_cell(c) for c in head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in body]
    return lines


class MarkdownSummary(SummaryReporter):
    """For a CI job summary: the totals, the problems, then the rows in a collapsed section."""

    name = "markdown"

    def start(self) -> None:
        """Begin with no row kept."""
        self.lines: list[str] = []

    def item(self, item: Any) -> None:
        """Keep a counted entry's table row for the end."""
        if item.outcome == "counted":
            self.lines.append("| " + " | ".join(_cell(c) for c in _row_cells(item, self.pods_given)) + " |")

    def finish(self, whole: Any) -> None:
        """Write the totals table, the problems, then the kept rows in a collapsed section."""
        totals: Totals = whole.totals
        by = ", ".join(totals.group_by)
        out = ["## Workloads by " + by if by else "## Workloads", ""]
        out += _markdown_table(total_rows(totals, whole.pods_given))
        problems = problem_lines(totals)
        if problems:
            out += [""] + [f"- {line.strip()}" if line.startswith("  ") else line for line in problems]
        head = _row_head(whole.pods_given)
        out += ["", f"<details><summary>{totals.all.workloads} workload(s)</summary>", ""]
        out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head), *self.lines, "", "</details>"]
        self.stream.write("\n".join(out) + "\n")
