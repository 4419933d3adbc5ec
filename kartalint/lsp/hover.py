"""Hover: what a jq field evaluates to on this definition's fixtures, what the CRD says about the
field path under the cursor, and a rule's documentation on a suppression comment."""

from __future__ import annotations

import json
import re
from typing import Any

from kartalint.jqlang import parse_cached, paths
from kartalint.jqlang.segments import path_before
from kartalint.load.crds import lookup
from kartalint.lsp.document import OpenFile, Place, jq_field_at
from kartalint.lsp.project import LspProject
from kartalint.rules import registry
from kartalint.rules.suppress import DIRECTIVE

MAX_FIXTURES = 3
MAX_SHOWN = 400  # characters of one fixture's results


def hover(open_file: OpenFile, project: LspProject, position: tuple[int, int]) -> str | None:
    """The whole hover, jq included (the server runs the jq part off the request path instead:
    ``describe``, then ``values_text`` of ``values_on_fixtures`` in its jq thread)."""
    parts, jq_field = describe(open_file, project, position)
    if jq_field is not None:
        parts.append(values_text(values_on_fixtures(open_file, project, jq_field.expression, jq_field.target)))
    return "\n\n".join(p for p in parts if p) or None


def describe(open_file: OpenFile, project: LspProject, position: tuple[int, int]) -> tuple[list[str], Any]:
    """(the parts of a hover that need no jq, the jq field under the cursor whose values on the
    fixtures complete it, or None)."""
    rule_doc = _rule_in_comment(open_file, position)
    if rule_doc is not None:
        return [rule_doc], None
    place = open_file.place(position)
    if place is None or not place.document.is_karta:
        return [], None
    jq_field = jq_field_at(place.document, place.path)
    if jq_field is None:
        return [], None
    parts = [f"**{jq_field.kind}** (jq on the {jq_field.target})"]
    crd_text = _crd_field(project, place, jq_field)
    if crd_text:
        parts.append(crd_text)
    return parts, jq_field


def values_on_fixtures(
    open_file: OpenFile, project: LspProject, expression: str, target: str, runner: Any = None
) -> list[tuple[str, Any, str | None]]:
    """(fixture name, results, error) of ``expression`` on the first fixtures of this definition,
    with the bounded engine (the time limit applies; ``runner``: the project's, or a view of it
    with a budget)."""
    out: list[tuple[str, Any, str | None]] = []
    runner = runner or project.runner()
    stopped = False  # one runaway is enough: the other fixtures are not made to wait for it too
    for case in project.cases_for(open_file.path)[:MAX_FIXTURES]:
        subjects = [case.object] if target == "workload" else list(case.pods or [])
        if stopped or not subjects:
            reason = (
                "not run: the expression did not finish on a fixture above" if stopped else "no pods in this fixture"
            )
            out.append((case.name or case.id, None, reason))
            continue
        results: list[Any] = []
        error = None
        for subject in subjects:
            run = runner.run(expression, subject)
            if not run.ok:
                error, stopped = run.error, run.timed_out
                break
            results.extend(run.results)
        out.append((case.name or case.id, results, error))
    return out


def values_text(found: list[tuple[str, Any, str | None]]) -> str:
    """A hover's list of what an expression gives on each fixture (``found``: name, outputs, error)."""
    if not found:
        return "_no fixture uses this definition_ (`kartalint new fixture` makes one)"
    lines = []
    for name, results, error in found:
        if error is not None:
            lines.append(f"- `{name}`: error: {error}")
        else:
            shown = json.dumps(results, sort_keys=True)
            if len(shown) > MAX_SHOWN:
                shown = shown[:MAX_SHOWN] + " ..."
            lines.append(f"- `{name}`: `{shown}`")
    return "On the fixtures:\n" + "\n".join(lines)


def _crd_field(project: LspProject, place: Place, jq_field: Any) -> str | None:
    """Type, default and description from the CRD of the path segment under the cursor."""
    if place.scalar_index is None or jq_field.target != "workload":
        return None
    version = project.crd_version(place.document.data)
    if version is None:
        return None

    tree, _ = parse_cached(jq_field.expression)
    if tree is None:
        return None
    for read in paths.path_facts(tree).reads:
        if read.start <= place.scalar_index <= read.end:
            # the path up to the segment under the cursor (those written after it are cut)
            segments = path_before(jq_field.expression, read, place.scalar_index + 1) or read.path[:1]
            result = lookup(version.schema, segments)
            if not result.found or result.schema is None:
                return f"`{paths.path_text(segments)}`: not a field of {version.kind} {version.group}/{version.version}"
            schema = result.schema
            kind = schema.get("type") or ("int or string" if schema.get("x-kubernetes-int-or-string") else "any")
            text = f"`{paths.path_text(segments)}` ({kind}) in {version.kind} {version.group}/{version.version}"
            if "default" in schema:
                text += f", default `{json.dumps(schema['default'])}`"
            if result.required:
                text += ", required"
            description = str(schema.get("description") or "").strip()
            return text + (f"\n\n{description}" if description else "")
    return None


def _rule_in_comment(open_file: OpenFile, position: tuple[int, int]) -> str | None:
    line = open_file.line_text(position[0])
    match = re.search(DIRECTIVE, line)
    if not match or match.group(2) is None:
        return None
    column = len(line.encode("utf-16-le")[: position[1] * 2].decode("utf-16-le", errors="ignore"))
    for rule_match in re.finditer(r"[A-Za-z0-9_-]+", match.group(2)):
        start, end = match.start(2) + rule_match.start(), match.start(2) + rule_match.end()
        if start <= column <= end:
            rule = registry.RULES.get(rule_match.group(0))
            if rule is None:
                return f"`{rule_match.group(0)}`: no such kartalint rule (`kartalint rules` lists them)"
            return (
                f"**{rule.id}** ({rule.severity}, {rule.category})\n\n{rule.summary}\n\n"
                f"Why: {rule.why}\n\nFix: {rule.hint}"
            )
    return None
