"""The catalog's rows (``kartalint catalog``, docs/catalog.md): each definition with its roles,
status mappings and gang scheduling, its fixtures run for coverage, what its operator writes and
the statuses the definition gives it (``kartalint.report.catalog`` renders them)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kartalint import karta
from kartalint.evaluation import Evaluator
from kartalint.load.definitions import DefinitionFile, DefinitionIndex
from kartalint.testing import written
from kartalint.testing.cases import discover
from kartalint.testing.run import LintCache, TestRun, run_cases

if TYPE_CHECKING:
    from kartalint.load.confinement import Confinement

# ``--mutants``: the mutation score of each definition (by path) from the run of its fixtures
# (``kartalint.mutation.run.scores_by_definition``, handed in: mutation runs after testing)
MutationScores = Callable[[TestRun, Evaluator], dict[str, dict[str, Any]]]


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
    found = next((path for folder in fixtures if (path := written.find(folder, entry.name))), None)
    if found is None:
        return None
    values = written.load(found)
    return {
        "source": values.source,
        "modes": [{"mode": m.name, "versions": m.versions, "source": m.source} for m in values.modes],
        "values": [
            {
                "value": value.label,
                "statuses": statuses,
                "note": value.note,
                "modes": value.modes,
                "source": value.source,
            }
            for value, statuses in written.evaluate(entry.data, values, evaluator)
        ],
    }


def catalog_rows(
    index: DefinitionIndex,
    fixtures: list[str],
    confinement: Confinement,
    lint_cache: LintCache,
    mutation_scores: MutationScores | None = None,
) -> list[dict[str, Any]]:
    """One row per definition; the fixtures under ``fixtures`` run for coverage, reading files only
    inside ``confinement`` (as ``kartalint test``: a fixture's outside ``objectFile`` is refused,
    and a refused case counts for nothing); ``mutation_scores`` (``--mutants``): each definition's
    mutation score, from the fixtures' run."""
    coverage: dict[str, Any] = {}
    counts: dict[str, int] = {}
    scores: dict[str, dict[str, Any]] = {}
    fixtures = [f for f in fixtures if os.path.exists(f)]
    with Evaluator() as evaluator:  # one jq worker for the fixtures, the mutants and the written values
        if fixtures:
            found = discover(fixtures, index, confinement=confinement)
            cases = [
                c
                for c in found.cases
                if c.definition is not None
                and not c.problems
                and c.definition.path in {d.path for d in index.definitions}
            ]
            test_run = run_cases(cases, evaluator, lint_cache)
            if mutation_scores is not None:
                scores = mutation_scores(test_run, evaluator)
            for case in cases:
                counts[case.definition.path] = counts.get(case.definition.path, 0) + 1  # type: ignore[union-attr]
            coverage = {path: cov.percent for path, cov in test_run.coverage.items()}
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
        if mutation_scores is not None:
            out[-1]["mutation"] = scores.get(entry.path)
    return out
