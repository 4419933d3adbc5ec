"""``kartalint describe``: render a ``WorkloadView`` as a kli-style tree, JSON or YAML.

The tree follows ``kli describe`` (spec §5): a header, the component tree with ready/desired (or
``replicas: N`` without pods), GPUs per role and per pod and the nodes, the status line, then a
resources table COMPONENT/REPLICAS/GPU/CPU/MEMORY with a TOTAL row, then any extraction errors.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import yaml

from kartalint.evaluation import quantity
from kartalint.evaluation.gang_view import POD_GROUP, GangView
from kartalint.evaluation.view import Component, Instance, PodView, WorkloadView
from kartalint.load.definitions import field_location
from kartalint.report.escape import visible


def _align(rows: list[list[str]], padding: int = 3) -> list[str]:
    """kubectl's tab writer: pad every column but the last to its widest cell."""
    widths: dict[int, int] = {}
    for row in rows:
        for i, cell in enumerate(row[:-1]):
            widths[i] = max(widths.get(i, 0), len(cell))
    out = []
    for row in rows:
        cells = [cell.ljust(widths[i] + padding) if i < len(row) - 1 else cell for i, cell in enumerate(row)]
        out.append("".join(cells).rstrip())
    return out


def _gpu(count: int) -> str:
    return f"gpu: {count}" if count else ""


def _pod_row(prefix: str, pod: PodView) -> list[str]:
    phase = pod.phase + (f" ({pod.reason})" if pod.reason else "")
    return [f"{prefix}{pod.name}", phase, _gpu(pod.resources.gpus), pod.node or "<none>"]


def _counts(pods: list[PodView], desired: int | None, pods_given: bool) -> str:
    shown = "?" if desired is None else str(desired)
    if not pods_given:
        return f"replicas: {shown}"
    return f"{sum(1 for p in pods if p.ready)}/{shown} ready"


def _nodes(pods: list[PodView]) -> str:
    return ",".join(sorted({p.node for p in pods if p.node}))


def _visible(comp: Component) -> bool:
    if comp.has_pod_definition or comp.kind is not None:
        return True
    return any(_visible(c) for c in comp.children)


def _tree_rows(comp: Component, prefix: str, last: bool, rows: list[list[str]], depth: int = 0) -> None:
    if depth > 32:
        return
    branch = "`-- " if last else "|-- "
    inner = prefix + ("    " if last else "|   ")
    own = comp.own_resources
    if comp.multi_instance:
        rows.append(
            [f"{prefix}{branch}{comp.name}", f"{len(comp.instances)} instance(s)", _gpu(own.gpus), _nodes(comp.pods)]
        )
        items: list[Any] = list(comp.instances)
    else:
        if comp.has_pod_definition:
            label = _counts(comp.pods, comp.desired_if_known, comp.pods_given)
        elif comp.logical and comp.children:
            label = f"replicas: {comp.row_replicas}"  # as kli: the sum of its children
        elif comp.has_replicas:  # replicas but no pod spec (a Job whose pods the operator builds)
            label = f"replicas: {comp.desired_if_known}"
        else:
            label = ""
        rows.append([f"{prefix}{branch}{comp.name}", label, _gpu(own.gpus), _nodes(comp.pods)])
        items = list(comp.pods)
    children = [c for c in comp.children if _visible(c)]
    entries: list[Any] = items + children
    for i, entry in enumerate(entries):
        is_last = i == len(entries) - 1
        sub_branch = "`-- " if is_last else "|-- "
        if isinstance(entry, Instance):
            total = entry.resources
            rows.append(
                [
                    f"{inner}{sub_branch}{entry.id}",
                    _counts(entry.pods, entry.desired, comp.pods_given),
                    _gpu(total.gpus if total else 0),
                    _nodes(entry.pods),
                ]
            )
            sub_inner = inner + ("    " if is_last else "|   ")
            for j, pod in enumerate(entry.pods):
                rows.append(_pod_row(sub_inner + ("`-- " if j == len(entry.pods) - 1 else "|-- "), pod))
        elif isinstance(entry, PodView):
            rows.append(_pod_row(inner + sub_branch, entry))
        else:
            _tree_rows(entry, inner, is_last, rows, depth + 1)


def render_tree(
    view: WorkloadView, origin: str = "", locate: Callable[[str | None, str], str | None] | None = None
) -> str:
    """The kli-style tree; ``locate(component, field)`` gives ``file:line:col`` for error lines."""
    lines = _header_lines(view, origin)
    lines.extend(_component_lines(view))
    if view.unmatched_pods:
        lines.append(f"pods matched by no component: {', '.join(view.unmatched_pods)}")
    lines.extend(_unmultiplied_lines(view))
    lines += ["", f"Phase: {','.join(view.statuses) if view.statuses else '<no status definition>'}", "", "Resources:"]
    lines.extend(_resource_table(view))
    lines.extend(_error_lines(view, locate))
    if view.gang:
        lines += ["", "Gang scheduling:"]
        lines.extend(_gang_lines(view.gang))
    return "\n".join(visible(line) for line in lines) + "\n"  # names and messages from the inputs stay on their line


def _unmultiplied_lines(view: WorkloadView) -> list[str]:
    """A note for each component asking for several copies whose pod-bearing descendants count one
    (consumers never multiply a parent's replicas into its children: parent-scale-not-multiplied)."""
    out = []
    for comp in view.components:
        copies = max((i.desired or 0 for i in comp.instances if i.scale is not None), default=0)
        if comp.unmultiplied and copies > 1:
            out.append(
                f"note: {comp.name} asks for {copies} copies, but the totals of {', '.join(comp.unmultiplied)} "
                f"count one copy: consumers never multiply a parent's replicas into its children (parent-scale-not-multiplied)"
            )
    return out


def _header_lines(view: WorkloadView, origin: str) -> list[str]:
    """The workload, its namespace and definition, and a note when no pods were given."""
    w = view.workload
    header = (
        f"{w.get('kind') or '<no kind>'}/{w.get('name') or '<no name>'}   namespace: {w.get('namespace') or '<none>'}   "
        f"definition: {view.definition or '<unnamed>'}" + (f" ({origin})" if origin else "")
    )
    lines = [header]
    if not view.pods_given:
        lines.append("(no pods given: replicas are the desired counts)")
    lines.append("")
    return lines


def _component_lines(view: WorkloadView) -> list[str]:
    """The component tree, aligned: the root's row when it has pods (without its children), then
    the root's visible children as top-level branches."""
    rows: list[list[str]] = []
    root = view.root
    if root is not None:
        tops = ([root] if root.has_pod_definition else []) + [c for c in root.children if _visible(c)]
        if root.has_pod_definition:
            root_copy = Component(
                root.name,
                root.kind,
                None,
                True,
                root.multi_instance,
                root.instances,
                [],
                root.errors,
                root.pods,
                root.pods_given,
            )
            tops[0] = root_copy
        for i, comp in enumerate(tops):
            _tree_rows(comp, "", i == len(tops) - 1, rows)
    return _align(rows) if rows else ["(no components)"]


def _resource_table(view: WorkloadView) -> list[str]:
    """COMPONENT/REPLICAS/GPU/CPU/MEMORY, as kli: one row per non-grouping component, including
    one with replicas and no pod spec, then TOTAL."""
    rows_data = [(comp.name, str(comp.desired), comp.own_resources) for comp in view.table_components]
    rows_data.append(("TOTAL", str(view.replicas), view.resources))
    # one unit per column (4096Gi and 4100Gi, not 4Ti and 4100Gi), so the column reads at a glance
    cpus = quantity.cpu_column([r[2].cpu_millis for r in rows_data])
    memories = quantity.memory_column([r[2].memory_bytes for r in rows_data])
    table = [["COMPONENT", "REPLICAS", "GPU", "CPU", "MEMORY"]]
    table += [
        [name, replicas, str(res.gpus), cpu, memory]
        for (name, replicas, res), cpu, memory in zip(rows_data, cpus, memories, strict=False)
    ]
    return _align(table)


def _error_lines(view: WorkloadView, locate: Callable[[str | None, str], str | None] | None) -> list[str]:
    """Every extraction error, with its place in the definition when ``locate`` finds it."""
    problems = view.all_errors
    if not problems:
        return []
    lines = ["", "Errors:"]
    for component, error in problems:
        where = f"{component}: " if component else ""
        place = locate(component, error.field) if locate and component else None
        lines.append(f"  {where}{error.field}: {error.message}" + (f" ({place})" if place else ""))
    return lines


def _gang_lines(gang: GangView) -> list[str]:
    out = []
    if gang.format == POD_GROUP:
        out.append(
            f"  podGroup {gang.name}   minAvailable: {gang.min_available}"
            + (f"   minSubGroup: {gang.min_sub_group}" if gang.min_sub_group is not None else "")
        )
        for sub in gang.sub_groups:
            out.append(f"    subGroup {sub.name}   minAvailable: {sub.min_available}")
    else:
        for group in gang.groups:
            for member in group.members:
                out.append(f"  podGroups {group.name} / {member.component}   minAvailable: {member.min_available}")
    for error in gang.errors:
        out.append(f"  error: {error}")
    return out


@dataclass
class Described:
    """What ``kartalint describe`` shows: each (definition entry, view), and whether the input held
    one object (then JSON and YAML give that view's document rather than a list)."""

    documents: list[tuple[Any, WorkloadView]]
    single: bool = True

    def payload(self) -> Any:
        """The data of ``-o json`` and ``-o yaml``: the one view's document when the input held one
        object and one was described, else the list of the documents."""
        data = [view.to_dict() for _, view in self.documents]
        return data[0] if self.single and len(data) == 1 else data


def render_trees(described: Described) -> str:
    """The kli-style tree of every described workload (``render_tree``), one after the other; error
    lines point at their field in the definition file."""

    return "\n".join(
        render_tree(view, entry.path, functools.partial(field_location, entry)) for entry, view in described.documents
    )


def render_json(described: Described) -> str:
    """``describe -o json``: ``Described.payload`` as indented JSON."""
    return json.dumps(described.payload(), indent=2) + "\n"


def render_yaml(described: Described) -> str:
    """``describe -o yaml``: ``Described.payload`` as block YAML, keys in document order."""

    return yaml.safe_dump(described.payload(), sort_keys=False, default_flow_style=False)
