"""``kartalint explore``'s report: each explored definition with the objects it gets wrong (shrunk
to a minimal object, with lint's hint for the field), as text or JSON (``schemaVersion`` 1)."""

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
    ``crd``, ``examples``, ``failures``, and ``outOfTime``, ``saved`` when they apply); for the
    text format, whether only the definitions with failures are shown (``quiet``, then a summary
    line) and whether in colour."""

    reports: list[dict[str, Any]] = field(default_factory=list)
    quiet: bool = False
    colour: bool = False


def render_json(explored: Explored) -> str:
    """One definition's document, or a list of them when several were explored."""
    documents = [dict(schemaVersion=SCHEMA_VERSION, **report) for report in explored.reports]
    document: Any = documents[0] if len(documents) == 1 else documents
    return json.dumps(document, indent=2) + "\n"


def render_text(explored: Explored) -> str:
    """Each definition's line and its failures; ``quiet``: only the definitions with failures,
    then one summary line."""
    reports, colour = explored.reports, explored.colour
    shown = [r for r in reports if r["failures"]] if explored.quiet else reports
    text = "".join(_text(r, colour) for r in shown)
    if explored.quiet:
        text += f"{len(reports)} definition(s) explored, {count(len(shown), 'with failures', RED, colour)}\n"
    return text


def _text(report: dict[str, Any], colour: bool) -> str:
    failures = report["failures"]
    budget = " (time budget spent)" if report.get("outOfTime") else ""
    lines = [  # (text from the inputs, made visible; colour added around it)
        visible(f"{report['definition']} (CRD {report['crd']}): {report['examples']} object(s), ")
        + count(len(failures), "failure(s)", RED, colour)
        + budget
    ]
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
