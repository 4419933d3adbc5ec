"""``kartalint describe --summary``: the fleet summary as CSV and JSON, for scripts (machine units:
GPUs, millicores, bytes, as integers). Rows are written as their batch is evaluated."""

from __future__ import annotations

import json
from typing import Any

from kartalint.evaluation.fleet import SCHEMA_VERSION, Entry
from kartalint.evaluation.fleet_totals import FleetSummary, Total, Totals
from kartalint.report.spreadsheet import SafeCsvWriter
from kartalint.report.summary import SummaryReporter
from kartalint.report.summary_rows import Row, rows_of

WORKLOAD_COLUMNS = ("namespace", "kind", "name", "apiVersion", "definition", "status")
FIGURE_COLUMNS = ("gpus", "activeGpus", "allocatedGpus", "cpuMillis", "memoryBytes")
CSV_COLUMNS = (*WORKLOAD_COLUMNS, "replicas", "ready", *FIGURE_COLUMNS, "error")
ROLE_CSV_COLUMNS = (*WORKLOAD_COLUMNS, "role", "instance", "replicas", "ready", "gpusPerPod", *FIGURE_COLUMNS, "error")


def _cell(value: int | None) -> int | str:
    return "" if value is None else value


def csv_record(row: Row, per_role: bool) -> list[int | str]:
    """A CSV record in ``CSV_COLUMNS`` (``ROLE_CSV_COLUMNS`` with ``per_role``) order, in machine
    units; a failed workload has empty figures and its errors joined by ``; ``."""
    entry, role = row.entry, row.role
    resources = row.resources
    figures: list[int | str] = ["", "", "", "", ""]
    if resources is not None:
        figures = [resources.gpus, row.active_gpus, _cell(row.allocated_gpus), resources.cpu_millis,
                   resources.memory_bytes]  # fmt: skip
    head: list[int | str] = [entry.namespace, entry.kind, entry.name, entry.api_version, entry.definition, entry.status]
    replicas = [_cell(row.replicas), _cell(row.ready)]
    if per_role:
        names: list[int | str] = [role.role if role else "", (role.instance or "") if role else ""]
        per_pod: list[int | str] = [role.gpus_per_pod if role else ""]
        return [*head, *names, *replicas, *per_pod, *figures, "; ".join(entry.errors)]
    return [*head, *replicas, *figures, "; ".join(entry.errors)]


class CsvSummary(SummaryReporter):
    """One header, then one record per workload (or role) a definition covers (RFC 4180 quoting,
    formula cells neutralised, machine units; a failed workload has empty figures and its error).
    Totals are a sum away; what is not counted is said on stderr by the command."""

    name = "csv"

    def start(self) -> None:
        """Begin with nothing written: the header goes before the first record, or at ``finish``."""
        self.writer = SafeCsvWriter(self.stream)
        self.headed = False

    def _head(self) -> None:
        if not self.headed:
            self.writer.writerow(ROLE_CSV_COLUMNS if self.per_role else CSV_COLUMNS)
            self.headed = True

    def item(self, item: Any) -> None:
        """Write the records of a counted or failed entry (the others are said on stderr by the command)."""
        if item.outcome in ("counted", "failed"):
            self._head()
            self.writer.writerows([csv_record(row, self.per_role) for row in rows_of(item, self.per_role)])

    def finish(self, whole: FleetSummary) -> None:
        """Write the header if no record did."""
        self._head()


def figures_dict(row: Row | Total, pods_given: bool) -> dict[str, Any]:
    """``resources`` of a row or a total: ``gpus``, ``activeGpus``, ``allocatedGpus`` (None without
    pods), ``cpuMillis``, ``memoryBytes``."""
    resources = row.resources
    assert resources is not None
    allocated = row.allocated_gpus if pods_given else None
    return {
        "gpus": resources.gpus,
        "activeGpus": row.active_gpus,
        "allocatedGpus": (allocated or 0) if pods_given else None,
        "cpuMillis": resources.cpu_millis,
        "memoryBytes": resources.memory_bytes,
    }


def row_dict(row: Row, pods_given: bool, per_role: bool) -> dict[str, Any]:
    """An entry of ``rows`` in the summary document (schema: summary.schema.json)."""
    entry, role = row.entry, row.role
    counted = entry.outcome == "counted"
    out: dict[str, Any] = {
        "origin": entry.origin,
        "namespace": entry.namespace,
        "kind": entry.kind,
        "apiVersion": entry.api_version,
        "name": entry.name,
        "definition": entry.definition,
        "outcome": entry.outcome,
        "statuses": list(entry.statuses),
        "status": entry.status,
        "active": entry.active,
        "activity": entry.activity,
    }
    if per_role:
        out["role"] = role.role if role else None
        out["instance"] = role.instance if role else None
        out["gpusPerPod"] = role.gpus_per_pod if role else None
    out["replicas"] = row.replicas
    out["ready"] = row.ready
    out["resources"] = figures_dict(row, pods_given) if counted else None
    out["errors"] = list(entry.errors)
    return out


def total_dict(total: Total, pods_given: bool) -> dict[str, Any]:
    """A group's figures in the summary document: ``workloads``, ``replicas``, ``ready`` (None without
    pods) and ``resources``."""
    return {
        "workloads": total.workloads,
        "replicas": total.replicas,
        "ready": total.ready if pods_given else None,
        "resources": figures_dict(total, pods_given),
    }


def _unreadable(entries: list[Entry]) -> list[dict[str, str]]:
    return [{"origin": e.origin, "error": e.errors[0]} for e in entries]


class JsonSummary(SummaryReporter):
    """The summary document (``schemaVersion`` 2, kartalint/schema/data/summary.schema.json):
    ``rows`` (every workload, or role, a definition covers, counted or failed) streamed one per
    line, then ``totals``, what was not counted and ``unreadable``."""

    name = "json"
    written_when_nothing_read = True

    def start(self) -> None:
        """Write the head of the document and open ``rows``."""
        assert self.summary is not None
        head = {
            "schemaVersion": SCHEMA_VERSION,
            "document": "summary",
            "groupBy": list(self.summary.totals.group_by),
            "rowsPer": self.summary.rows,
            "statuses": sorted(self.summary.statuses),
            "podsGiven": self.summary.pods_given,
        }
        self.stream.write(
            "{\n" + "".join(f"  {json.dumps(k)}: {json.dumps(v)},\n" for k, v in head.items()) + '  "rows": ['
        )
        self.first = True

    def item(self, item: Any) -> None:
        """Write each row of a counted or failed entry as one line of ``rows``."""
        if item.outcome in ("counted", "failed"):
            for row in rows_of(item, self.per_role):
                line = json.dumps(row_dict(row, self.pods_given, self.per_role))
                self.stream.write(("\n    " if self.first else ",\n    ") + line)
                self.first = False

    def finish(self, whole: FleetSummary) -> None:
        """Close ``rows`` and write ``totals`` (per group and ``all``), ``objects``, ``failed``,
        ``uncovered``, ``owned``, ``filtered``, ``notActive`` and ``unreadable``."""
        totals: Totals = whole.totals
        pods = whole.pods_given
        tail = {
            "totals": {
                "groups": [
                    {
                        "key": dict(zip(totals.group_by, key, strict=True)),
                        **({"group": group} if group is not None else {}),  # the kind's API group
                        **total_dict(total, pods),
                    }
                    for key, group, total in totals.sorted_groups_with_api_group()
                ],
                "all": total_dict(totals.all, pods),
            },
            "objects": totals.objects,
            "failed": totals.failed_count,
            "uncovered": {
                "objects": totals.uncovered_count,
                "byKind": [
                    {"apiVersion": api, "kind": kind, "objects": count}
                    for (api, kind), count in sorted(totals.uncovered.items())
                ],
            },
            "owned": [
                {"kind": kind, "owner": owner, "objects": n} for (kind, owner), n in sorted(totals.owned.items())
            ],
            "filtered": [{"status": status, "workloads": n} for status, n in sorted(totals.filtered.items())],
            "notActive": [
                {"activity": why, "workloads": workloads, "gpus": gpus}
                for why, (workloads, gpus) in sorted(totals.inactive.items())
            ],
            "unreadable": _unreadable(totals.unreadable),
            "unreadableCount": totals.unreadable_count,
        }
        self.stream.write("]" if self.first else "\n  ]")
        for key, value in tail.items():
            self.stream.write(f",\n  {json.dumps(key)}: " + json.dumps(value, indent=2).replace("\n", "\n  "))
        self.stream.write("\n}\n")
