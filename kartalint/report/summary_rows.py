"""What every summary format writes of an entry: its rows (one per workload, or one per role), the
totals table and the lines about what was not counted (``describe --summary``).

A ``Row`` is a workload (``role`` None) or one role of it (``--rows role``: describe's Resources
table, one row per component, per instance for a component with instances). Its GPU figures are
``gpus`` (desired), ``active_gpus`` (the desired GPUs while the workload is active, else 0) and
``allocated_gpus`` (what its pods hold, with pods). Text cells taken from the inputs are passed
through ``escape.visible`` by the human-readable formats (a name holding a line break stays on its
line).
"""

from __future__ import annotations

from dataclasses import dataclass

from kartalint.evaluation import quantity, usage
from kartalint.evaluation.fleet import Entry
from kartalint.evaluation.fleet_totals import Total, Totals
from kartalint.evaluation.resources import ZERO, Resources
from kartalint.evaluation.usage import RoleFigures
from kartalint.report.escape import visible


@dataclass(frozen=True)
class Row:
    """One row of the summary: a workload (``role`` None) or one of its roles."""

    entry: Entry
    role: RoleFigures | None = None

    @property
    def counted(self) -> bool:
        """Whether the workload was counted (a failed one has no figures)."""
        return self.entry.outcome == "counted"

    @property
    def replicas(self) -> int | None:
        """Desired replicas (None when the workload failed)."""
        return self.role.replicas if self.role is not None else self.entry.replicas

    @property
    def ready(self) -> int | None:
        """Ready pods (None without pods)."""
        return self.role.ready if self.role is not None else self.entry.ready

    @property
    def resources(self) -> Resources | None:
        """Desired resources (None when the workload failed)."""
        return self.role.resources if self.role is not None else self.entry.resources

    @property
    def active_gpus(self) -> int:
        """The desired GPUs when the workload is active, else 0."""
        resources = self.resources or ZERO
        return resources.gpus if self.entry.active else 0

    @property
    def allocated_gpus(self) -> int | None:
        """The GPUs the pods hold (None without pods)."""
        return self.role.allocated_gpus if self.role is not None else self.entry.allocated_gpus


def rows_of(entry: Entry, per_role: bool) -> list[Row]:
    """The rows of a counted or failed entry: one, or with ``per_role`` one per role (a workload
    without a role, or a failed one, keeps one row)."""
    if per_role and entry.outcome == "counted" and entry.roles:
        return [Row(entry, role) for role in entry.roles]
    return [Row(entry)]


def namespace_cell(text: str) -> str:
    """A namespace as the tables show it (``<none>`` when the object has none)."""
    return visible(text) if text else "<none>"


def row_head(pods_given: bool, per_role: bool) -> list[str]:
    """The header of the table's (and Markdown's) rows."""
    ready = ["READY"] if pods_given else []
    allocated = ["ALLOCATED"] if pods_given else []
    names = (
        ["ROLE", "INSTANCE", "STATUS", "REPLICAS", *ready, "GPU/POD"]
        if per_role
        else ["DEFINITION", "STATUS", "REPLICAS", *ready]
    )
    return ["NAMESPACE", "KIND", "NAME", *names, "GPU", "ACTIVE", *allocated, "CPU", "MEMORY"]


def row_cells(row: Row, pods_given: bool, per_role: bool) -> list[str]:
    """A counted row's cells (Kubernetes quantities for CPU and memory), inputs made visible."""
    entry, role = row.entry, row.role
    resources = row.resources or ZERO
    ready = [str(row.ready or 0)] if pods_given else []
    allocated = [str(row.allocated_gpus or 0)] if pods_given else []
    if per_role:
        names = [
            visible(role.role) if role is not None else "-",
            visible(role.instance) if role is not None and role.instance else "-",
            visible(entry.status),
            str(row.replicas or 0),
            *ready,
            str(role.gpus_per_pod if role is not None else 0),
        ]
    else:
        names = [visible(entry.definition), visible(entry.status), str(row.replicas or 0), *ready]
    return [
        namespace_cell(entry.namespace),
        visible(entry.kind),
        visible(entry.name),
        *names,
        str(resources.gpus),
        str(row.active_gpus),
        *allocated,
        quantity.format_cpu(resources.cpu_millis),
        quantity.format_memory(resources.memory_bytes),
    ]


def total_rows(totals: Totals, pods_given: bool) -> list[list[str]]:
    """The totals table: the group-by columns, then WORKLOADS REPLICAS [READY] GPU ACTIVE
    [ALLOCATED] CPU MEMORY, each resource column in one unit; the last row is the TOTAL."""
    groups: list[tuple[list[str], Total]] = [
        ([namespace_cell(v) if k == "namespace" else visible(v) for k, v in zip(totals.group_by, key, strict=True)], t)
        for key, t in totals.sorted_groups()
    ]
    groups.append((["TOTAL"] + [""] * (len(totals.group_by) - 1), totals.all))
    cpus = quantity.cpu_column([t.resources.cpu_millis for _, t in groups])
    memories = quantity.memory_column([t.resources.memory_bytes for _, t in groups])
    head = [k.upper() for k in totals.group_by] + ["WORKLOADS", "REPLICAS"] + (["READY"] if pods_given else [])
    rows = [[*head, "GPU", "ACTIVE", *(["ALLOCATED"] if pods_given else []), "CPU", "MEMORY"]]
    for (cells, t), cpu, memory in zip(groups, cpus, memories, strict=True):
        ready = [str(t.ready)] if pods_given else []
        allocated = [str(t.allocated_gpus)] if pods_given else []
        rows.append([*cells, str(t.workloads), str(t.replicas), *ready, str(t.resources.gpus), str(t.active_gpus),
                     *allocated, cpu, memory])  # fmt: skip
    return rows


def who(entry: Entry) -> str:
    """``namespace/Kind/name`` of an entry, made visible."""
    return visible("/".join(p for p in (entry.namespace, entry.kind, entry.name) if p) or "<unnamed>")


def problem_lines(totals: Totals, unreadable: bool = True) -> list[str]:
    """The objects no definition covers (by kind), those counted under their owner, the workloads
    ``--status`` left out, those that failed and (with ``unreadable``) the places of the input that
    could not be read (the command says those on stderr too); at most ``KEPT`` of each listed."""
    lines = []
    if totals.uncovered:
        kinds = ", ".join(
            f"{visible(kind) or '<no kind>'} ({visible(api) or '<no apiVersion>'}) {count}"
            for (api, kind), count in sorted(totals.uncovered.items())
        )
        lines.append(f"not covered by any definition: {totals.uncovered_count} object(s): {kinds}")
    if totals.owned:
        kinds = ", ".join(
            f"{visible(kind)} of {visible(owner)} {n}" for (kind, owner), n in sorted(totals.owned.items())
        )
        lines.append(f"counted under their owner, not as workloads: {sum(totals.owned.values())} object(s): {kinds}")
    if totals.filtered:
        statuses = ", ".join(f"{visible(status)} {n}" for status, n in sorted(totals.filtered.items()))
        lines.append(f"left out by --status: {sum(totals.filtered.values())} workload(s): {statuses}")
    if totals.failed_count:
        lines.append(f"failed, not in the totals: {totals.failed_count} object(s):")
        for entry in totals.failed:
            more = f" (and {len(entry.errors) - 1} more)" if len(entry.errors) > 1 else ""
            error = visible(entry.errors[0]) if entry.errors else ""
            lines.append(f"  {who(entry)} ({visible(entry.origin)}): {error}{more}")
        if totals.failed_kept.more:
            lines.append(f"  ... and {totals.failed_kept.more} more (every one is a row of -f csv and -f json)")
    if totals.unreadable_count and unreadable:
        lines.append(f"not read: {totals.unreadable_count} place(s) of the input:")
        lines.extend(f"  {visible(entry.errors[0])}" for entry in totals.unreadable)
        if totals.unreadable_kept.more:
            lines.append(f"  ... and {totals.unreadable_kept.more} more")
    return lines


def explain_lines(totals: Totals) -> list[str]:
    """``--explain``: which workloads count as active (the mapping), and the counted workloads that
    are not, by why, largest first."""
    lines = ["Active GPUs (activeGpus): a workload's desired GPUs while it holds its pods:"]
    lines += [f"  {line}" for line in usage.activity_lines()]
    if totals.inactive:
        lines.append("Counted workloads not active now (their desired GPUs are not in ACTIVE):")
        for why, (workloads, gpus) in sorted(totals.inactive.items(), key=lambda item: (-item[1][1], item[0])):
            lines.append(f"  {visible(why)}: {workloads} workload(s), {gpus} desired GPU(s)")
    return lines
