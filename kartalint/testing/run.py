"""``kartalint test``: run cases, compare, collect test-time findings and coverage.

Outcomes: ``passed``, ``failed`` (diffs), ``error`` (the case could not run), ``xfailed`` (a
fixture marked ``xfail`` failed as expected; shown with its diffs, counted as a pass) and
``xpassed`` (marked ``xfail`` but passed: a failure).
"""

from __future__ import annotations

import fnmatch
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from kartalint import __version__, karta
from kartalint.evaluation import Evaluator, WorkloadView
from kartalint.evaluation.engine import prepare
from kartalint.lint import lint_file
from kartalint.load.definitions import DefinitionFile, field_location
from kartalint.load.documents import display_path, load_file
from kartalint.model import Finding, Severity
from kartalint.project import Config
from kartalint.rules import registry, test_time
from kartalint.rules.karta_schema import WRONG_TYPE
from kartalint.testing.cases import Case
from kartalint.testing.compare import Diff, compare
from kartalint.testing.predictions import compare_prediction

# What became of a case: passed; failed (diffs); error (it could not run); xfailed (marked xfail
# and failed as expected: a pass); xpassed (marked xfail but passed: a failure); updated (its
# fixture rewritten by --update)
CaseOutcome = Literal["passed", "failed", "error", "xfailed", "xpassed", "updated"]
PASSING: tuple[CaseOutcome, ...] = ("passed", "xfailed", "updated")


@dataclass
class CaseResult:
    """The outcome of one case, with its differences, messages, lint findings, hints and the view it compared."""

    case: Case
    outcome: CaseOutcome
    diffs: list[Diff] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    hints: dict[str, list[str]] = field(default_factory=dict)  # diff path -> ["hint (rule at file:line:col)"]
    view: WorkloadView | None = None
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """The result as the JSON report writes it."""
        return {
            "id": self.case.id,
            "file": self.case.file,
            "kind": self.case.kind,
            "name": self.case.name,
            "definition": self.case.definition.path if self.case.definition else None,
            "outcome": self.outcome,
            "diffs": [dict(d.to_dict(), hints=self.hints.get(d.path, [])) for d in self.diffs],
            "messages": list(self.messages),
            "findings": [f.to_dict() for f in self.findings],
        }


@dataclass
class Coverage:
    """How much of a definition its cases exercise: the status mappings matched and the instances seen of each
    component."""

    definition: DefinitionFile
    mappings: list[tuple[str, int]]
    matched: set[tuple[str, int]] = field(default_factory=set)
    components: dict[str, set[str]] = field(default_factory=dict)  # name -> instance ids seen
    cases: int = 0

    @property
    def percent(self) -> float:
        """The share of status mappings matched, in percent (100 when there is none)."""
        return 100.0 if not self.mappings else 100.0 * len(self.matched & set(self.mappings)) / len(self.mappings)

    @property
    def unmatched(self) -> list[str]:
        """The status mappings no case matched, as ``key[index]``."""
        return [f"{key}[{index}]" for key, index in self.mappings if (key, index) not in self.matched]

    def to_dict(self) -> dict[str, Any]:
        """The coverage as the JSON report writes it."""
        return {
            "definition": self.definition.name,
            "file": self.definition.path,
            "cases": self.cases,
            "statusMappings": {
                "total": len(self.mappings),
                "matched": len(self.matched & set(self.mappings)),
                "percent": round(self.percent, 1),
                "neverMatched": self.unmatched,
            },
            "components": {name: sorted(ids) for name, ids in self.components.items()},
        }


@dataclass
class TestRun:
    """A ``kartalint test`` run: each case's result, the coverage per definition, what ``--require-fixtures`` and
    ``--min-coverage`` refused, and its times."""

    results: list[CaseResult] = field(default_factory=list)
    coverage: dict[str, Coverage] = field(default_factory=dict)
    without_fixtures: list[DefinitionFile] = field(default_factory=list)  # --require-fixtures failures
    below_coverage: list[Coverage] = field(default_factory=list)  # --min-coverage failures
    min_coverage: float | None = None
    seconds: float = 0.0
    started: float = 0.0  # wall-clock start (seconds since the epoch), for report timestamps

    def count(self, *outcomes: CaseOutcome) -> int:
        """How many cases ended with one of ``outcomes``."""
        return sum(1 for r in self.results if r.outcome in outcomes)

    def mark_updated(self, files: Sequence[str]) -> None:
        """Failing fixtures of the files ``--update`` rewrote are ``updated`` (their expect is now
        what was observed), not failed."""
        rewritten = set(files)
        for result in self.results:
            filled = result.outcome == "error" and result.view is not None and not result.case.expect  # an empty expect
            if (
                (result.outcome == "failed" or filled)
                and result.case.kind == "fixture"
                and result.case.file in rewritten
            ):
                result.outcome = "updated"

    @property
    def summary(self) -> dict[str, int]:
        """The counts of the run's summary line and JSON: passed, updated, failed, errors, expected failures,
        total."""
        return {
            "passed": self.count("passed"),
            "updated": self.count("updated"),
            "failed": self.count("failed", "xpassed"),
            "errors": self.count("error") + len(self.without_fixtures) + len(self.below_coverage),
            "expectedFailures": self.count("xfailed"),
            "total": len(self.results),
            "withoutFixtures": len(self.without_fixtures),
            "belowCoverage": len(self.below_coverage),
        }

    @property
    def ok(self) -> bool:
        """Whether the run passed: every case passed (or failed as expected) and no definition lacks fixtures or
        coverage."""
        return all(r.outcome in PASSING for r in self.results) and not self.without_fixtures and not self.below_coverage

    def judge(self, definitions: Sequence[DefinitionFile], require_fixtures: bool, min_coverage: float | None) -> None:
        """``--require-fixtures`` and ``--min-coverage`` over ``definitions`` (the project's)."""
        if require_fixtures:
            exercised = {r.case.definition.path for r in self.results if r.case.definition is not None}
            self.without_fixtures = [d for d in definitions if d.path not in exercised]
        if min_coverage is not None:
            self.min_coverage = min_coverage
            paths = {d.path for d in definitions}
            self.below_coverage = [
                c for c in self.coverage.values() if c.definition.path in paths and c.percent < min_coverage
            ]


def select(cases: Sequence[Case], pattern: str | None) -> list[Case]:
    """The cases whose id or name holds ``pattern`` (a glob when it has ``*``, ``?`` or ``[``); all without one."""
    if not pattern:
        return list(cases)
    if any(ch in pattern for ch in "*?["):
        return [c for c in cases if fnmatch.fnmatch(c.id, pattern) or fnmatch.fnmatch(c.name, pattern)]
    return [c for c in cases if pattern in c.id or pattern in c.name]


class LintCache:
    """Lint findings of definition files (for ``expect.lint`` and fix hints), computed once, with
    the project's configuration: its rules and severities, ``per-file-ignores``, its CRDs and the
    files' suppression comments, exactly as ``kartalint lint`` reports them. A definition a fixture
    names is linted even when ``exclude`` leaves it out of the project's files."""

    def __init__(self, config: Config) -> None:
        """Lint each definition once under ``config``."""
        self.config = config
        self._cache: dict[str, list[Finding]] = {}

    def findings(self, definition: DefinitionFile) -> list[Finding]:
        """The warnings and errors of ``definition``, linted on first ask."""
        if definition.path not in self._cache:
            outcome = lint_file(definition.path, self.config, strict_files=True)
            self._cache[definition.path] = [f for f in outcome.findings if f.severity >= Severity.WARNING]
        return self._cache[definition.path]

    def rule_ids(self, definition: DefinitionFile) -> list[str]:
        """The rules of those findings (``expect.lint`` compares them)."""
        return sorted({f.rule for f in self.findings(definition)})


def run_cases(cases: Sequence[Case], evaluator: Evaluator, lint_cache: LintCache) -> TestRun:
    """Run ``cases`` (evaluated together, definition by definition), with the lint findings of
    ``lint_cache`` (the project's configuration) for ``expect.lint`` and fix hints."""
    test_run = TestRun(started=time.time())
    started = time.perf_counter()
    runnable = [case for case in cases if _evaluates(case, evaluator)]
    views = evaluator.evaluate_all([(c.definition.data, c.object, c.pods) for c in runnable if c.definition])
    evaluated = {id(case): view for case, view in zip(runnable, views, strict=True)}
    share = (time.perf_counter() - started) / len(runnable) if runnable else 0.0  # evaluation time, evenly
    for case in cases:
        case_started = time.perf_counter()
        view = evaluated.get(id(case))
        result = run_case(case, evaluator, lint_cache, view)
        result.seconds = time.perf_counter() - case_started + (share if view is not None else 0.0)
        test_run.results.append(result)
        if case.definition is not None and result.view is not None:
            _cover(test_run, case.definition, result.view)
    test_run.seconds = time.perf_counter() - started
    return test_run


def _evaluates(case: Case, evaluator: Evaluator) -> bool:
    """Whether the case gets a view (else ``run_case`` says why not)."""
    if case.problems or case.definition is None:
        return False
    return not (evaluator.prepare(case.definition.data).invalid and not (case.expect or {}).get("errors"))


def run_case(case: Case, evaluator: Evaluator, lint_cache: LintCache, view: WorkloadView | None = None) -> CaseResult:
    """The outcome of one case; ``view`` is its evaluation when done already (``run_cases`` evaluates
    all cases of a definition together)."""
    if case.problems or case.definition is None:
        return CaseResult(case, "error", messages=list(case.problems) or ["no definition"])
    if not _evaluates(case, evaluator):
        # upstream refuses the definition: say where, instead of an "unexpected extraction error"
        return CaseResult(case, "error", messages=_invalid_definition(case.definition, lint_cache))
    if view is None:
        view = evaluator.evaluate(case.definition.data, case.object, case.pods)
    result = CaseResult(case, "passed", view=view)
    if case.kind == "fixture" and not case.expect:
        result.outcome = "error"
        result.messages.append("expect is empty: the fixture compares nothing (`kartalint test --update` fills it)")
        return result
    lint_ids = lint_cache.rule_ids(case.definition) if case.kind == "fixture" and "lint" in case.expect else None
    result.diffs = view_diffs(case, view, lint_ids)
    if lint_ids is not None:
        _lint_pins(result, lint_ids, lint_cache.config)
    result.findings = test_time.findings(case.file, case.line, view)
    if result.diffs:
        result.hints = {**_hints(case.definition, view, result.diffs, lint_cache), **result.hints}
    if case.xfail:
        if result.diffs:
            result.outcome = "xfailed"
            result.messages.append(f"expected to fail: {case.xfail}")
        else:
            result.outcome = "xpassed"
            result.messages.append(f"marked xfail ({case.xfail}) but passed: remove `xfail`")
    elif result.diffs:
        result.outcome = "failed"
    return result


def _lint_pins(result: CaseResult, lint_ids: Sequence[str], config: Config) -> None:
    """``expect.lint`` judged under the configuration: a pinned rule it turns off is not compared
    (a note names it); a pinned rule lint no longer reports says why it may have gone (a kartalint
    version without it, a configuration that makes it info or turns it off) and that ``--update``
    removes it."""

    pinned = sorted({str(rule) for rule in result.case.expect.get("lint") or []})
    off = [rule for rule in pinned if rule in config.severities and config.severities[rule] is None]
    where = config.source or "the configuration"
    if off:
        result.messages.append(f"note: expect.lint pins {', '.join(off)}, which {where} turns off: not compared")
    kept = [rule for rule in pinned if rule not in off]
    result.diffs = [d for d in result.diffs if d.path != "lint"]
    if kept == sorted(set(lint_ids)):
        return
    reasons = []
    for rule in (rule for rule in kept if rule not in lint_ids):
        if rule not in registry.RULES:
            reasons.append(f"kartalint {__version__} has no rule {rule}")
        elif config.severities.get(rule, registry.RULES[rule].severity) == Severity.INFO:
            reasons.append(f"{where} makes {rule} info, which expect.lint does not pin")
        else:
            reasons.append(f"kartalint {__version__} with {where} no longer reports {rule} on this definition")
    result.diffs.append(Diff("lint", kept, sorted(set(lint_ids)), "; ".join(reasons)))
    if reasons:
        result.hints["lint"] = ["`kartalint test --update` removes what lint no longer reports from expect.lint"]


def view_diffs(case: Case, view: WorkloadView, lint_ids: Sequence[str] | None = None) -> list[Diff]:
    """What does not hold of a case on a view: a recording's state, a prediction, a fixture's
    ``expect`` (``expect.lint`` only when ``lint_ids``, the definition's lint rule ids, are given)."""
    if case.kind == "recording":
        status_errors = [e for e in (view.root.errors if view.root else []) if e.field.startswith("statusDefinition")]
        if case.recorded_state not in view.statuses or status_errors:
            note = status_errors[0].message if status_errors else ""
            return [Diff("statuses", f"to contain {case.recorded_state}", list(view.statuses), note)]
        return []
    if case.kind == "prediction":
        return compare_prediction(case.expect, view)
    return compare(case.expect, view, lint_ids)


def invalid_definition_problems(definition: DefinitionFile, lint_cache: LintCache) -> list[str]:
    """Why upstream refuses a definition, each problem at its file:line:col (the schema's wrong
    types and upstream's validator rules); the bare messages when lint cannot place them."""
    located = [
        f"{display_path(f.file)}:{f.line}:{f.column}: {f.message} ({f.rule})"
        for f in lint_cache.findings(definition)
        if f.severity >= Severity.ERROR and (f.rule == WRONG_TYPE or registry.get(f.rule).category == "parity")
    ]
    if located:
        return located

    return [f"{display_path(definition.path)}: {message}" for message in prepare(definition.data).invalid]


def _invalid_definition(definition: DefinitionFile, lint_cache: LintCache) -> list[str]:
    return [
        *invalid_definition_problems(definition, lint_cache),
        f"definition {display_path(definition.path)} is invalid (upstream refuses it): nothing was evaluated",
    ]


def _diff_fields(diff: Diff, root: str | None) -> tuple[str | None, tuple[str, ...]]:
    """(component, definition fields relative to it) that a diff is about."""
    path = diff.path
    if path.startswith("errors["):
        inner = path[len("errors[") : -1]
        comp, _, field_name = inner.partition(".")
        return (comp, (field_name,)) if field_name else (None, (inner,))
    if path in ("statuses", "phase"):
        return root, ("statusDefinition",)
    comp = path.split("[")[0].split(".")[0]
    leaf = path.rsplit(".", 1)[-1]
    if leaf == "instances":
        return comp, ("instanceIdPath",)
    if leaf in ("replicas", "min", "max"):
        return comp, ("scaleDefinition",)
    if leaf in ("gpus", "cpuMillis", "memoryBytes"):
        return comp, ("scaleDefinition", "specDefinition")
    return comp, ()


def _hints(
    definition: DefinitionFile, view: WorkloadView, diffs: list[Diff], lint_cache: LintCache
) -> dict[str, list[str]]:
    """Fix hints for each diff: the definition's lint findings on the fields the diff is about."""
    findings = lint_cache.findings(definition)
    paths = {c.name: tuple(c.path) for c in karta.components(definition.data) if isinstance(c.name, str)}
    root = view.root.name if view.root else None
    hints: dict[str, list[str]] = {}
    for diff in diffs:
        comp, fields = _diff_fields(diff, root)
        prefix = paths.get(comp or "")
        if prefix is None or not fields:
            continue
        found = []
        for finding in findings:
            rest = (
                ".".join(str(p) for p in finding.path[len(prefix) :])
                if tuple(finding.path[: len(prefix)]) == prefix
                else None
            )
            if rest is None or not finding.hint or not any(rest.startswith(f) for f in fields):
                continue
            text = f"{finding.hint} ({finding.rule} at {display_path(finding.file)}:{finding.line}:{finding.column})"
            if text not in found:
                found.append(text)
        if not found and diff.path.startswith("errors["):
            where = field_location(definition, comp if comp in paths else None, fields[0]) if fields else None
            if where:
                found.append(f"the field is at {where}")
        if found:
            hints[diff.path] = found
    return hints


def _cover(test_run: TestRun, definition: DefinitionFile, view: WorkloadView) -> None:
    entry = test_run.coverage.get(definition.path)
    if entry is None:
        root = karta.as_dict(karta.structure(definition.data).get("rootComponent"))
        mappings = karta.as_dict(karta.as_dict(root.get("statusDefinition")).get("statusMappings"))
        declared = [(key, i) for key in mappings for i, _ in enumerate(karta.as_list(mappings.get(key)))]
        entry = test_run.coverage[definition.path] = Coverage(definition, declared)
    entry.cases += 1
    entry.matched.update(view.matched_matchers)
    for comp in view.components:
        ids = entry.components.setdefault(comp.name, set())
        if not comp.errors:
            ids.update(str(i.id) if i.id is not None else "" for i in comp.instances)


def mark_known_failures(cases: Sequence[Case], path: str) -> None:
    """Mark the cases listed in a ``--known-failures`` file (a YAML list of ``{id, reason}``; an
    id matches a case id equal to it or ending with ``/<id>``) as expected to fail."""

    source = load_file(path)
    entries = source.documents[0].data if source.documents else None
    bad = [f for f in source.findings if f.severity == Severity.ERROR]
    if (
        bad
        or not isinstance(entries, list)
        or not all(isinstance(e, dict) and isinstance(e.get("id"), str) for e in entries)
    ):
        raise ValueError(f"{path}: --known-failures needs a YAML list of {{id, reason}} entries")
    for case in cases:
        for entry in entries:
            if case.id == entry["id"] or case.id.endswith("/" + entry["id"]):
                case.xfail = str(entry.get("reason") or "known failure")
