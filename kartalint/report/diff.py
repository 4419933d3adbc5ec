"""Output of ``kartalint diff``: text, JSON (``schemaVersion`` 1) and a pull-request comment in
markdown (summary line, one table per changed definition, a mermaid role tree per workload)."""

from __future__ import annotations

import html
import json
import re
from collections import OrderedDict
from typing import Any

from kartalint.diff.summary import RESOURCE_LABELS, delta_text, show, show_resource
from kartalint.report.colour import CYAN, GREEN, RED, YELLOW, paint
from kartalint.report.escape import visible


def _summary(report: Any) -> str:
    workloads = len(report.changes)
    defs = [d for d in report.definitions]
    if not workloads and not defs:
        return f"No change: {report.cases} workload(s) evaluate the same at {report.base} and {report.head}."
    parts = [f"{workloads} of {report.cases} workload(s) change"]
    if defs:
        parts.append(f"{len(defs)} definition file(s) changed ({', '.join(sorted({d['status'] for d in defs}))})")
    return f"{'; '.join(parts)} between {report.base} and {report.head}."


_STATUS_COLOURS = {"added": GREEN, "deleted": RED, "broken": RED, "modified": YELLOW, "renamed": CYAN}


def render_text(report: Any, colour: bool = False) -> str:
    """The diff report as text; ``colour``: statuses, removed and added lines, findings and problems
    coloured (report.colour)."""
    lines: list[tuple[str, str]] = [("", _summary(report))]  # (colour, text from the inputs)
    for definition in report.definitions:
        where = definition["path"] + (f" -> {definition['headPath']}" if definition["status"] == "renamed" else "")
        where += f" at {definition['brokenAt']}: {definition['problem']}" if definition["status"] == "broken" else ""
        lines.append((_STATUS_COLOURS.get(definition["status"], ""), f"{definition['status']:<9} {where}"))
        for change in definition.get("expressions", []):  # the cause, above the workloads it changes
            lines.append(("", f"    {change['component']} {change['field']}:"))
            lines.append((RED, f"      - {change['before'] if change['before'] is not None else '(none)'}"))
            lines.append((GREEN, f"      + {change['after'] if change['after'] is not None else '(none)'}"))
        lines.extend((RED, f"    new finding: {f}") for f in definition["lint"]["new"])
        lines.extend((GREEN, f"    fixed finding: {f}") for f in definition["lint"]["fixed"])
    for entry in report.changes:
        lines.append(("", f"{entry['workload']} ({entry['definition']})"))
        lines.extend(("", f"    {c['text']}") for c in entry["changes"])
    lines.extend((RED, f"problem: {p}") for p in report.problems)
    # values from the inputs stay on their line (visible), then the colour goes around them
    return "\n".join(paint(visible(text), code, colour and bool(code)) for code, text in lines) + "\n"


def render_json(report: Any) -> str:
    """``kartalint diff --format json``: the report's ``to_dict()`` (``schemaVersion`` 1), indented."""
    return json.dumps(report.to_dict(), indent=2) + "\n"


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    return show(value).replace("|", "\\|")


def _code(text: Any) -> str:
    if text is None:
        return "-"
    return "<code>" + html.escape(str(text)).replace("|", "&#124;") + "</code>"


def _values(change: dict[str, Any]) -> tuple[str, str]:
    """The base and head cells of a change: quantities in Kubernetes units, the rest as JSON."""
    if change["what"] in RESOURCE_LABELS and isinstance(change["base"], int) and isinstance(change["head"], int):
        before, after, delta = show_resource(change["what"], change["base"], change["head"])
        return before, f"{after} ({delta})"
    return _cell(change["base"]), _cell(change["head"]) + delta_text(change["base"], change["head"])


def _mermaid_id(name: str) -> str:
    return "n_" + re.sub(r"[^A-Za-z0-9_]", "_", name)


def _mermaid(tree: dict[str, Any]) -> list[str]:
    nodes = tree.get("nodes") or []
    if not nodes:
        return []
    lines = ["```mermaid", "graph TD"]
    for node in nodes:
        roles = f"<br/>{', '.join(node['instances'])}" if node["instances"] else ""
        label = f"{node['name']} x{node['replicas']}{roles}".replace('"', "'")
        lines.append(f'  {_mermaid_id(node["name"])}["{label}"]')
    for node in nodes:
        if node["owner"]:
            lines.append(f"  {_mermaid_id(node['owner'])} --> {_mermaid_id(node['name'])}")
    changed = [_mermaid_id(n["name"]) for n in nodes if n["changed"]]
    if changed:
        lines.append("  classDef changed fill:#fff3cd,stroke:#d39e00,stroke-width:2px")
        lines.append(f"  class {','.join(changed)} changed")
    lines.append("```")
    return lines


def render_markdown(report: Any) -> str:
    """The pull-request comment: the summary line; each changed definition file with a table of its
    changed expressions and its new and fixed lint findings; per definition a table of the workloads'
    changes (quantities in Kubernetes units) and a collapsed mermaid role tree per workload; the
    problems."""
    lines = ["## kartalint diff", "", _summary(report), ""]
    for definition in report.definitions:
        where = f"`{definition['path']}`" + (
            f" -> `{definition['headPath']}`" if definition["status"] == "renamed" else ""
        )
        if definition["status"] == "broken":
            where += f" at {definition['brokenAt']}: {definition['problem']}"
        lines.append(f"- {definition['status']}: {where}")
        if definition.get("expressions"):
            lines += ["", "  | component | field | base | head |", "  |---|---|---|---|"]
            lines.extend(
                f"  | {c['component']} | `{c['field']}` | {_code(c['before'])} | {_code(c['after'])} |"
                for c in definition["expressions"]
            )
            lines.append("")
        lines.extend(f"  - new lint finding: {f}" for f in definition["lint"]["new"])
        lines.extend(f"  - fixed lint finding: {f}" for f in definition["lint"]["fixed"])
    if report.definitions:
        lines.append("")
    grouped: OrderedDict[str, list[dict[str, Any]]] = OrderedDict()
    for entry in report.changes:
        grouped.setdefault(entry["definition"] or "?", []).append(entry)
    for definition, entries in grouped.items():
        lines += [f"### `{definition}`", "", "| workload | change | base | head |", "|---|---|---|---|"]
        for entry in entries:
            for change in entry["changes"]:
                where = ".".join(str(x) for x in (change.get("component"), change.get("instance")) if x)
                what = change["what"] + (f" ({where})" if where else "")
                before, after = _values(change)
                lines.append(f"| `{entry['workload']}` | {what} | {before} | {after} |")
        lines.append("")
        for entry in entries:
            chart = _mermaid(entry.get("tree") or {})
            if chart:
                lines += [f"<details><summary>{entry['workload']}</summary>", "", *chart, "", "</details>", ""]
    for problem in report.problems:
        lines.append(f"> problem: {problem}")
    return "\n".join(visible(line) for line in lines).rstrip() + "\n"  # values stay on their line
