"""Run the mutants of each definition under test against its cases (``kartalint test --mutants``).

For each definition whose cases all passed: generate its mutants (``operators``: records of each
change; a mutated definition is built only for the mutants ``--mutants-limit`` picks), discard those
upstream refuses or libjq cannot compile (``invalid``) and, when no case gives pods, those that
only change what is evaluated on pods (``untested``); evaluate every other mutant on the cases'
objects with ``Evaluator.evaluate_many`` (one jq worker, the objects of a definition streamed in
one batch per mutant). A mutant is **killed** when a case fails or errors on it; otherwise it
**survived** when its view differs from the original's on a case's object in a way no ``expect``
pins, or on a probe object (``probes``: a fixture object without a field, with a status's
conditions), or when it changes a component no case has an instance of (nothing evaluates it);
it is **equivalent** when nothing tells it apart (or the configuration lists it with a reason). Score = killed / (killed + survived).
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kartalint import karta
from kartalint.evaluation import Evaluator, WorkloadView
from kartalint.jqlang.compile import compile_problems
from kartalint.lint.pipeline import crd_index
from kartalint.load.definitions import DefinitionFile
from kartalint.load.documents import Document, load_file
from kartalint.mutation.judge import difference, full_expectation, pin_hint, unnoticed
from kartalint.mutation.mutant import Mutant, Subject
from kartalint.mutation.operators import generate
from kartalint.mutation.probes import probes
from kartalint.mutation.score import OUTCOMES, DefinitionMutation, MutantResult, MutationRun
from kartalint.testing.run import CaseResult, TestRun, view_diffs


@dataclass
class MutationOptions:
    """How ``--mutants`` runs: at most ``limit`` mutants per definition (sampled with ``seed``), the minimum score,
    the mutants the configuration declares equivalent, and the project's CRDs."""

    limit: int | None = None  # at most this many mutants per definition
    seed: int | None = None  # with ``limit``: a random sample of this seed (else evenly spaced)
    min_score: float | None = None
    equivalent: dict[tuple[str, str], str] = field(default_factory=dict)  # (definition, mutant id) -> reason
    crds: tuple[str, ...] = ()  # the project's CRDs (operators that read a field's documentation)


def select(mutants: list[Mutant], limit: int | None, seed: int | None) -> list[Mutant]:
    """At most ``limit`` mutants: evenly spaced over the list, or a sample drawn with ``seed``."""
    if limit is None or len(mutants) <= limit:
        return mutants
    if seed is not None:
        chosen = sorted(random.Random(seed).sample(range(len(mutants)), limit))
    else:
        chosen = [i * len(mutants) // limit for i in range(limit)]
    return [mutants[i] for i in chosen]


def run_mutants(
    test_run: TestRun, evaluator: Evaluator, definitions: Sequence[DefinitionFile], options: MutationOptions
) -> MutationRun:
    """Mutation results of each of ``definitions`` exercised by ``test_run``, in the order of its cases."""
    started = time.perf_counter()
    wanted = {d.path: d for d in definitions}
    by_definition: dict[str, list[CaseResult]] = {}
    for result in test_run.results:
        if result.case.definition is not None and result.case.definition.path in wanted:
            by_definition.setdefault(result.case.definition.path, []).append(result)
    run = MutationRun(min_score=options.min_score)
    for path, results in by_definition.items():
        run.definitions.append(_mutate(wanted[path], results, evaluator, options))
    run.seconds = time.perf_counter() - started
    return run


def _mutate(
    definition: DefinitionFile, results: list[CaseResult], evaluator: Evaluator, options: MutationOptions
) -> DefinitionMutation:
    failing = [r for r in results if r.outcome not in ("passed", "xfailed")]
    results = [r for r in results if r.outcome == "passed" and r.view is not None]  # xfail cases do not judge
    outcome = DefinitionMutation(definition, cases=len(results), kinds={r.case.kind for r in results})
    if failing or not results:
        outcome.note = (
            f"{len(failing)} case(s) did not pass: mutants are run on a passing suite only"
            if failing
            else "no passing case"
        )
        return outcome
    if evaluator.prepare(definition.data).invalid:
        outcome.note = "the definition is invalid (upstream refuses it)"
        return outcome
    subject = Subject(definition.data, [r.case.object for r in results], _crd_of(definition, options.crds))
    mutants = generate(subject)
    outcome.generated = len(mutants)
    session = _Session(definition, results, evaluator)
    for mutant in select(mutants, options.limit, options.seed):
        result = session.judge(mutant)
        mutant.forget()  # a run holds every result: not every mutated definition
        listed = options.equivalent.get((definition.name, mutant.id))
        if listed is not None and result.outcome == "survived":
            result.outcome, result.detail, result.hint = "equivalent", f"listed as equivalent: {listed}", ""
        outcome.results.append(result)
    judged = {r.mutant.id: r.outcome for r in outcome.results}
    outcome.stale = [
        mutant_id
        for (name, mutant_id) in options.equivalent
        if name == definition.name and judged.get(mutant_id, "missing") not in ("equivalent", "survived")
    ]
    return outcome


def _crd_of(definition: DefinitionFile, crds: Sequence[str]) -> Any:
    """The CRD version of the definition's root kind among ``crds`` (None without one)."""

    refs = karta.components(definition.data)
    if not crds or not refs or not refs[0].is_root:
        return None
    return crd_index(list(crds)).get(karta.gvk_of(refs[0].data.get("kind")))


class _Session:
    """One definition's cases, the original's views and probes, and where its fields are written."""

    def __init__(self, definition: DefinitionFile, results: list[CaseResult], evaluator: Evaluator) -> None:
        self.definition = definition
        self.results = results
        self.evaluator = evaluator
        self.objects = [r.case.object for r in results]
        self.pods = [r.case.pods for r in results]
        self.with_pods = any(p is not None for p in self.pods)
        self.expectations = [full_expectation(r.view) for r in results if r.view is not None]
        self.original_fields = {f.expression for f in Subject(definition.data).jq_fields}
        self.probe_expectations: dict[str, dict[str, Any]] = {}
        # components with at least one instance on some case's object (a mutant of any other is not reached)
        self.covered = {c.name for r in results if r.view is not None for c in r.view.components if c.instances}
        self.document = _document(definition)

    def judge(self, mutant: Mutant) -> MutantResult:
        result = MutantResult(mutant, "killed", location=self.locate(mutant))
        problem = self.invalid(mutant)
        if problem:
            result.outcome, result.detail = "invalid", problem
            return result
        if mutant.pods_only and not self.with_pods:
            result.outcome, result.detail = (
                "untested",
                "it changes only what is evaluated on pods, and no case gives pods",
            )
            result.hint = "add a fixture with the workload's pods (`kartalint new fixture OBJECT --pods PODS`)"
            return result
        views = self.evaluator.evaluate_many(mutant.definition, self.objects, self.pods)
        for case_result, view in zip(self.results, views, strict=True):
            diffs = view_diffs(case_result.case, view)
            if diffs:
                result.killed_by, result.detail = case_result.case.id, diffs[0].text
                return result
        result.outcome = "survived"
        for case_result, expectation, view in zip(self.results, self.expectations, views, strict=True):
            diffs = unnoticed(expectation, view)
            if diffs:
                case = case_result.case
                result.detail = f"on {case.name or case.id}, {difference(diffs[0])}, but its expect does not pin it"
                result.hint = f"pin it in {case.file}: {pin_hint(diffs[0])}"
                return result
        reached = self.probe(mutant)
        if reached is not None:
            result.detail, result.hint = reached
            return result
        if mutant.component is not None and mutant.component not in self.covered:
            result.detail = f"no case's object has an instance of {mutant.component}: no case evaluates what changed"
            result.hint = f"add a fixture from a real object that has a {mutant.component}"
            return result
        result.outcome, result.detail = "equivalent", "the same view on every case's object and every probe object"
        return result

    def invalid(self, mutant: Mutant) -> str:
        prepared = self.evaluator.prepare(mutant.definition)
        if prepared.invalid:
            return f"upstream refuses it: {prepared.invalid[0]}"
        changed = [
            f.expression for f in Subject(mutant.definition).jq_fields if f.expression not in self.original_fields
        ]
        for expression, problems in zip(changed, compile_problems(changed), strict=True):
            if problems:
                return f"jq cannot compile {expression!r}: {problems[0].message}"
        return ""

    def probe(self, mutant: Mutant) -> tuple[str, str] | None:
        """(detail, hint) when a probe object tells the mutant apart, else None."""
        found = probes(mutant.perturbations, self.objects, self.reaching(mutant.component))
        if not found:
            return None
        keys = [json.dumps(obj, sort_keys=True, default=str) for obj, _, _ in found]
        missing = [
            (key, obj) for key, (obj, _, _) in zip(keys, found, strict=True) if key not in self.probe_expectations
        ]
        if missing:
            views = self.evaluator.evaluate_many(self.definition.data, [obj for _, obj in missing])
            for (key, _), view in zip(missing, views, strict=True):
                self.probe_expectations[key] = full_expectation(view)
        views = self.evaluator.evaluate_many(mutant.definition, [obj for obj, _, _ in found])
        for key, (_, perturbation, index), view in zip(keys, found, views, strict=True):
            diffs = unnoticed(self.probe_expectations[key], view)
            if diffs:
                case = self.results[index].case
                detail = f"on the object of {case.name or case.id} {perturbation.text}, {difference(diffs[0])}; no case has such an object"
                if diffs[0].path.startswith("errors[") and diffs[0].expected == "no error":
                    return (
                        detail,
                        f"add a fixture from a real object {perturbation.text} (the mutant fails on it; errors are always compared)",
                    )
                return detail, f"add a fixture from a real object {perturbation.text}, pinning {pin_hint(diffs[0])}"
        return None

    def reaching(self, component: str | None) -> list[int]:
        """Indexes of the cases whose object has an instance of ``component``."""
        if component is None:
            return []
        return [
            i
            for i, r in enumerate(self.results)
            if r.view is not None and any(c.name == component and c.instances for c in r.view.components)
        ]

    def locate(self, mutant: Mutant) -> tuple[int, int, int, int]:
        if self.document is None:
            return (1, 1, 0, 0)
        if mutant.span is not None:
            span = self.document.scalar_span(mutant.path, *mutant.span)
        else:
            span = self.document.span(mutant.path)
        return (span.line, span.column, span.end_line, span.end_column)


def _document(definition: DefinitionFile) -> Document | None:
    """The document of ``definition`` in its file (for positions), when the file can be read."""

    if not os.path.isfile(definition.path):
        return None
    documents = load_file(definition.path).karta_documents
    for document in documents:
        if document.data == definition.data:
            return document
    return documents[0] if documents else None


__all__ = ["MutationOptions", "MutationRun", "WorkloadView", "run_mutants", "select"]


def scores_by_definition(
    test_run: TestRun, evaluator: Evaluator, *, definitions: Sequence[DefinitionFile], options: MutationOptions
) -> dict[str, dict[str, Any]]:
    """The mutation score of each of ``definitions`` (by path) exercised by ``test_run``, as the
    catalog shows it: mutants, each outcome counted, the score (4 decimals)."""
    mutation = run_mutants(test_run, evaluator, definitions, options)
    return {
        item.definition.path: {
            "mutants": len(item.results),
            **{outcome: item.counts[outcome] for outcome in OUTCOMES},
            "score": None if item.score is None else round(item.score, 4),
        }
        for item in mutation.definitions
        if not item.note
    }
