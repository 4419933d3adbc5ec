"""``kartalint explore``'s report: each explored definition with the objects it gets wrong (shrunk
to a minimal object, with lint's hint for the field) and the paths it reads that no object tried
reached ("N of M paths exercised"), as text or JSON (``schemaVersion`` 1); SARIF and JUnit are
``report.explore_ci``'s."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import yaml

from kartalint.report.colour import RED, count, paint
from kartalint.report.escape import visible

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Explored:
    """What ``kartalint explore`` shows: one report per explored definition (``definition``,
    ``crd``, ``examples``, ``failures``, ``paths``, and ``outOfTime``, ``saved`` when they apply); for the
    text format, whether only the definitions with failures are shown (``quiet``, then a summary
    line) and whether in colour."""

    reports: list[dict[str, Any]] = field(default_factory=list)
    quiet: bool = False
    colour: bool = False
    properties: tuple[str, ...] = ()  # the properties checked (JUnit's cases; default: all)


def render_json(explored: Explored) -> str:
    """One definition's document, or a list of them when several were explored."""
    documents = [dict(schemaVersion=SCHEMA_VERSION, **report) for report in explored.reports]
    document: Any = documents[0] if len(documents) == 1 else documents
    return json.dumps(document, indent=2) + "\n"


def render_text(explored: Explored) -> str:
    """Each definition's line and its failures; ``quiet``: only the definitions with failures,
    then one summary line."""
    reports, colour = explored.reports, explored.colour
    shown = [r for r in reports if r["failures"] or r["paths"].get("belowMinimum")] if explored.quiet else reports
    text = "".join(_text(r, colour) for r in shown)
    if explored.quiet:
        text += f"{len(reports)} definition(s) explored, {count(len(shown), 'with failures', RED, colour)}\n"
    return text


def paths_line(paths: dict[str, Any]) -> str:
    """``N of M paths exercised``: how many of the paths a definition reads the objects tried had."""
    return f"{paths['exercised']} of {paths['read']} paths exercised"


def below_line(paths: dict[str, Any]) -> str:
    """Why the path coverage fails, when it is below the minimum (else empty)."""
    if not paths.get("belowMinimum"):
        return ""
    share = 100.0 * paths["exercised"] / paths["read"] if paths["read"] else 100.0
    return f"path coverage {share:.0f}% is below the minimum {paths['minimum']:g}%"


def _text(report: dict[str, Any], colour: bool) -> str:
    failures, paths = report["failures"], report["paths"]
    budget = " (time budget spent)" if report.get("outOfTime") else ""
    lines = [  # (text from the inputs, made visible; colour added around it)
        visible(f"{report['definition']} (CRD {report['crd']}): {report['examples']} object(s), ")
        + count(len(failures), "failure(s)", RED, colour)
        + visible(f", {paths_line(paths)}")
        + budget
    ]
    lines.extend(visible(f"  not exercised: {path} (no object tried has it)") for path in paths["unreached"])
    if below_line(paths):
        lines.append("  " + paint(visible(below_line(paths)), RED, colour))
    for failure in failures:
        lines.append(
            "  "
            + paint(visible(failure["property"]), RED, colour)
            + visible(f": {failure['field']}: {failure['message']}")
        )
        if failure["hint"]:
            lines.append(visible(f"    hint: {failure['hint']}"))
        lines.append("    minimal object:")
        shown = yaml.safe_dump(failure["object"], sort_keys=False, width=120).rstrip("\n")
        lines.extend(visible("      " + line) for line in shown.splitlines())
    lines.extend(visible(f"  wrote {path}") for path in report.get("saved", []))
    return "\n".join(lines) + "\n"  # values from the objects stay on their line
