"""``kartalint catalog``: the bundled (or given) definitions as a table, with fixture coverage
(and, with ``--mutants``, each definition's mutation score).

docs/catalog.md is ``kartalint catalog --format markdown --mutants`` (tests keep it in sync).
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from kartalint import karta
from kartalint.load.definitions import DefinitionFile, DefinitionIndex
from kartalint.report.escape import visible

if TYPE_CHECKING:
    from kartalint.load.confinement import Confinement
    from kartalint.testing.run import LintCache


def _roles(definition: dict[str, Any]) -> str:
    out = []
    for comp in karta.components(definition):
        if comp.is_root and not karta.as_dict(comp.data.get("specDefinition")):
            continue
        name = str(comp.name)
        if comp.data.get("instanceIdPath"):
            name += " (per id)"
        if not isinstance(comp.data.get("kind"), dict):
            name += " (logical)"
        elif not karta.as_dict(comp.data.get("specDefinition")):
            name += " (no pod spec)"
        out.append(name)
    return ", ".join(out)


def _mappings(definition: dict[str, Any]) -> list[str]:
    root = karta.as_dict(karta.structure(definition).get("rootComponent"))
    mappings = karta.as_dict(karta.as_dict(root.get("statusDefinition")).get("statusMappings"))
    return [karta.MAPPING_KEYS.get(k, k) for k in karta.MAPPING_KEYS if k in mappings]


def _gang(definition: dict[str, Any]) -> str:
    gang = karta.gang_scheduling(definition)
    if isinstance(gang.get("podGroup"), dict):
        subs = [karta.as_dict(s).get("componentName") for s in karta.as_list(gang["podGroup"].get("subGroups"))]
        return "podGroup" + (f" ({', '.join(map(str, subs))})" if subs else "")
    if gang.get("podGroups"):
        return "podGroups"
    return "-"


def _written(entry: DefinitionFile, fixtures: list[str], evaluator: Any) -> dict[str, Any] | None:
    """What the operator writes (``fixtures/<name>/written-values.yaml``) and what the definition
    gives each value, evaluated now: the docs show the definition's answer, not the file's claim."""
    from kartalint.testing import written

    found = next((path for folder in fixtures if (path := written.find(folder, entry.name))), None)
    if found is None:
        return None
    values = written.load(found)
    return {
        "source": values.source,
        "values": [
            {"value": value.label, "statuses": statuses, "note": value.note}
            for value, statuses in written.evaluate(entry.data, values, evaluator)
        ],
    }


def rows(
    index: DefinitionIndex,
    fixtures: list[str],
    confinement: Confinement,
    lint_cache: LintCache,
    mutants: Any = None,
) -> list[dict[str, Any]]:
    """One row per definition; the fixtures under ``fixtures`` run for coverage, reading files only
    inside ``confinement`` (as ``kartalint test``: a fixture's outside ``objectFile`` is refused,
    and a refused case counts for nothing); ``mutants`` (``MutationOptions``): run the mutants of
    each too."""
    from kartalint.evaluation import Evaluator

    coverage: dict[str, Any] = {}
    counts: dict[str, int] = {}
    scores: dict[str, dict[str, Any]] = {}
    fixtures = [f for f in fixtures if os.path.exists(f)]
    with Evaluator() as evaluator:  # one jq worker for the fixtures, the mutants and the written values
        if fixtures:
            from kartalint.testing.cases import discover
            from kartalint.testing.run import run_cases

            found = discover(fixtures, index, confinement=confinement)
            cases = [
                c
                for c in found.cases
                if c.definition is not None
                and not c.problems
                and c.definition.path in {d.path for d in index.definitions}
            ]
            report = run_cases(cases, evaluator, lint_cache)
            if mutants is not None:
                scores = _mutation(report, evaluator, index, mutants)
            for case in cases:
                counts[case.definition.path] = counts.get(case.definition.path, 0) + 1  # type: ignore[union-attr]
            coverage = {path: cov.percent for path, cov in report.coverage.items()}
        written = {entry.path: _written(entry, fixtures, evaluator) for entry in index.definitions}
    out = []
    for entry in sorted(index.definitions, key=lambda d: os.path.basename(d.path)):
        gvk = karta.gvk_of(karta.as_dict(karta.structure(entry.data).get("rootComponent")).get("kind")) or ("", "", "")
        out.append(
            {
                "kind": gvk[2],
                "groupVersion": f"{gvk[0] + '/' if gvk[0] else ''}{gvk[1]}",
                "name": entry.name,
                "file": os.path.basename(entry.path),
                "roles": _roles(entry.data),
                "statusMappings": _mappings(entry.data),
                "gangScheduling": _gang(entry.data),
                "fixtures": counts.get(entry.path, 0),
                "coverage": round(coverage[entry.path]) if entry.path in coverage else None,
                "written": written[entry.path],
            }
        )
        if mutants is not None:
            out[-1]["mutation"] = scores.get(entry.path)
    return out


def _mutation(report: Any, evaluator: Any, index: DefinitionIndex, options: Any) -> dict[str, dict[str, Any]]:
    from kartalint.mutation.run import run_mutants
    from kartalint.mutation.score import OUTCOMES

    run = run_mutants(report, evaluator, index.definitions, options)
    return {
        item.definition.path: {
            "mutants": len(item.results),
            **{outcome: item.counts[outcome] for outcome in OUTCOMES},
            "score": None if item.score is None else round(item.score, 4),
        }
        for item in run.definitions
        if not item.note
    }


MUTATION_HEADING = "## Mutation score"


def _mutation_markdown(table: list[dict[str, Any]]) -> list[str]:
    lines = [
        "",
        MUTATION_HEADING,
        "",
        "Each definition changed in small ways (`kartalint test fixtures --mutants`, docs/fixtures.md),",
        "its fixtures run against every change. Score = killed / (killed + survived). Equivalent",
        "mutants (the same view on every fixture object and probe object, or listed in `.kartalint.yaml`",
        "with the reason no valid object tells them apart) and untested ones (selector changes, which",
        "only fixtures with pods test) are counted apart.",
        "",
        "| definition | mutants | killed | survived | equivalent | untested | invalid | score |",
        "|---|---|---|---|---|---|---|---|",
    ]
    total = dict.fromkeys(("mutants", "killed", "survived", "equivalent", "untested", "invalid"), 0)
    for row in table:
        found = row.get("mutation")
        if not found:
            continue
        for key in total:
            total[key] += found[key]
        score = "-" if found["score"] is None else f"{found['score']:.2f}"
        lines.append(
            f"| `{row['name']}` | {found['mutants']} | {found['killed']} | {found['survived']} | "
            f"{found['equivalent']} | {found['untested']} | {found['invalid']} | {score} |"
        )
    judged = total["killed"] + total["survived"]
    score = f"{total['killed'] / judged:.2f}" if judged else "-"
    lines.append(
        f"| **all** | {total['mutants']} | {total['killed']} | {total['survived']} | {total['equivalent']} | "
        f"{total['untested']} | {total['invalid']} | **{score}** |"
    )
    return lines


def render_markdown(table: list[dict[str, Any]]) -> str:
    """docs/catalog.md: one table row per definition (kind, group/version, roles, status mappings, gang
    scheduling, fixtures, coverage), the values each operator writes and the statuses they get, and the
    mutation table when the rows have scores (``--mutants``)."""
    lines = [
        "# Catalog",
        "",
        "<!-- Generated by `kartalint catalog --format markdown --mutants`; do not edit by hand. -->",
        "",
        "The definitions in `catalog/`, written for this project and proven by the fixtures in",
        "`fixtures/<definition>/` (objects from the recordings in ../shared/reference where they exist,",
        "otherwise written from the operator's API and marked so in each fixture's `source`).",
        "Coverage is the share of status mappings (matchers) that at least one fixture matches.",
        "Every definition's header comment says what its roles are and which fields it reads.",
        "",
        "| type | group/version | definition | roles | status mappings | gang scheduling | fixtures | coverage |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in table:
        cov = "-" if row["coverage"] is None else f"{row['coverage']}%"
        lines.append(
            f"| {row['kind']} | {row['groupVersion']} | [`{row['name']}`](../catalog/{row['file']}) | {row['roles']} | "
            f"{', '.join(row['statusMappings'])} | {row['gangScheduling']} | {row['fixtures']} | {cov} |"
        )
    written = _written_markdown(table)
    if written:
        lines += ["", *written[:-1]]  # each section ends with a blank line; the last one's is the final newline
    if any("mutation" in row for row in table):
        lines.extend(_mutation_markdown(table))
    lines.append("")
    return "\n".join(visible(line) for line in lines)  # names from the definitions stay on their line


def _written_markdown(table: list[dict[str, Any]]) -> list[str]:
    documented = [row for row in table if row.get("written")]
    if not documented:
        return []
    lines = [
        "## Written values and mapping",
        "",
        "Every phase or condition set each operator writes in the status its definition reads, from the",
        "operator's source (`fixtures/<definition>/written-values.yaml` names the repository, commit and",
        "files), and the statuses the definition gives it, evaluated from the definition when this page is",
        "generated. `Undefined` is a deliberate choice where the note says why.",
        "",
    ]
    for row in documented:
        written = row["written"]
        lines += [
            f"### {row['kind']} ({row['groupVersion']}): `{row['name']}`",
            "",
            f"Source: {written['source']}",
            "",
            "| written | status | note |",
            "|---|---|---|",
        ]
        for value in written["values"]:
            text = value["value"].replace("|", "\\|")
            lines.append(f"| {text} | {', '.join(value['statuses'])} | {value['note']} |")
        lines.append("")
    return lines


def render_text(table: list[dict[str, Any]]) -> str:
    """The terminal table: kind, group/version, fixtures, coverage (``-`` when no fixture ran for the
    definition), the mutation score with ``--mutants``, and the name, one line per definition."""
    widths = {"kind": 4, "groupVersion": 13, "fixtures": 8}
    for row in table:
        widths["kind"] = max(widths["kind"], len(row["kind"]))
        widths["groupVersion"] = max(widths["groupVersion"], len(row["groupVersion"]))
    mutants = any("mutation" in row for row in table)
    head = "  MUTANTS" if mutants else ""
    out = [f"{'KIND':<{widths['kind']}}  {'GROUP/VERSION':<{widths['groupVersion']}}  FIXTURES  COVERAGE{head}  NAME"]
    for row in table:
        cov = "-" if row["coverage"] is None else f"{row['coverage']}%"
        found = row.get("mutation") or {}
        score = (f"{found['score']:.2f}" if found.get("score") is not None else "-") if mutants else ""
        score = f"  {score:<7}" if mutants else ""
        out.append(
            f"{row['kind']:<{widths['kind']}}  {row['groupVersion']:<{widths['groupVersion']}}  {row['fixtures']:<8}  {cov:<8}{score}  {row['name']}"
        )
    return "\n".join(visible(line) for line in out) + "\n"


def render_json(table: list[dict[str, Any]]) -> str:
    """``{"schemaVersion": 1, "definitions": [row, ...]}`` (the rows of ``rows``), indented."""
    return json.dumps({"schemaVersion": 1, "definitions": table}, indent=2) + "\n"


__all__ = ["DefinitionFile", "render_json", "render_markdown", "render_text", "rows"]
