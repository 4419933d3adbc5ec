"""Output of ``kartalint test``: text, JSON (``schemaVersion`` 1), JUnit XML, GitHub, SARIF (with
the results of ``--mutants`` when there are: ``kartalint.report.mutants``).

Same lifecycle as the lint reporters: ``start`` -> ``case`` for each result -> ``finish`` with
the whole run (summary and coverage).
"""

from __future__ import annotations

import json
import os
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from kartalint.load.documents import load_file
from kartalint.report import mutants
from kartalint.report.base import LABELS, TestReporter, detail_lines
from kartalint.report.colour import GREEN, OUTCOME_COLOURS, RED, count, paint
from kartalint.report.escape import visible
from kartalint.report.github import escape_data, escape_property, workflow_file
from kartalint.report.sarif import LEVELS, SarifLog
from kartalint.rules import outcomes
from kartalint.rules.outcomes import COVERAGE_BELOW_MINIMUM, DEFINITION_WITHOUT_FIXTURE, FIXTURE_MISMATCH
from kartalint.testing.compare import expect_path

if TYPE_CHECKING:  # the whole a reporter is given, for the type checker only
    from kartalint.testing.run import TestRun

SCHEMA_VERSION = 1


class TextTestReporter(TestReporter):
    """Fixtures one line each; recordings one line per file unless a frame fails or ``-v``."""

    name = "text"

    def _write(self, text: str) -> None:
        """Lines whose values (ids, paths, names from the inputs) stay on their line."""
        self._said = True
        self.stream.write("\n".join(visible(line) for line in text.split("\n")))

    def _line(self, label: str, text: str) -> None:
        """A label (already coloured) and text from the inputs, made visible, on one line."""
        self._said = True
        self.stream.write(label + visible(text) + "\n")

    def start(self) -> None:
        """Begin with no case result kept."""
        self._groups: OrderedDict[str, list[Any]] = OrderedDict()
        self._said = False  # whether any line was written before the summary

    def case(self, result: Any) -> None:
        """Keep the result with the others of its file (written at ``finish``)."""
        self._groups.setdefault(result.case.file, []).append(result)

    def _label(self, label: str) -> str:
        """An outcome label padded to five columns, coloured when colour is on."""
        return paint(label, OUTCOME_COLOURS.get(label, ""), self.color) + " " * (5 - len(label)) + " "

    def finish(self, run: TestRun) -> None:
        """Write the results file by file (a recording that passes is one line unless ``verbose``;
        ``quiet`` leaves passed cases out), the ``--require-fixtures`` and ``--min-coverage`` errors,
        the coverage per definition (not with ``quiet``), the summary line, then the ``--mutants``
        block."""
        for file, results in self._groups.items():
            recording = results[0].case.kind == "recording"
            passed = all(r.outcome == "passed" and not r.findings for r in results)
            if recording and not self.verbose and passed:
                if not self.quiet:
                    used = f"  [{results[0].case.definition.path}]" if results[0].case.definition is not None else ""
                    self._line(self._label("PASS"), f"{file} ({len(results)} frames){used}")
                continue
            for result in results:
                quiet = self.quiet or (recording and not self.verbose)
                if quiet and result.outcome == "passed" and not result.findings:
                    continue
                used = f"  [{result.case.definition.path}]" if result.case.definition is not None else ""
                self._line(self._label(LABELS[result.outcome]), f"{result.case.id}{used}")
                if result.outcome != "passed" or self.verbose or result.findings or result.messages:
                    for line in detail_lines(result):
                        self._write(line + "\n")
        for item in run.without_fixtures:
            self._line(self._label("ERROR"), f"{item.path}: definition {item.name} has no fixture (--require-fixtures)")
        for cov in run.below_coverage:
            self._line(
                self._label("ERROR"),
                f"{cov.definition.path}: status-mapping coverage of {cov.definition.name} is {cov.percent:.0f}% "
                f"(below --min-coverage {run.min_coverage:g}%): never matched {', '.join(cov.unmatched)}",
            )
        if run.coverage and not self.quiet:
            self._write("\nCoverage:\n")
            for cov in run.coverage.values():
                matched = len(cov.matched & set(cov.mappings))
                never = f"; never matched: {', '.join(cov.unmatched)}" if cov.unmatched else ""
                comps = ", ".join(
                    f"{n} [{', '.join(sorted(i for i in ids if i)) or '-'}]" if any(ids) else n
                    for n, ids in cov.components.items()
                    if ids
                )
                self._write(
                    f"  {cov.definition.name}: {cov.cases} case(s), status mappings {matched}/{len(cov.mappings)}{never}\n"
                )
                if comps:
                    self._write(f"    exercised: {comps}\n")
        s = run.summary
        xf = f", {s['expectedFailures']} expected failure(s)" if s["expectedFailures"] else ""
        up = f", {s['updated']} updated" if s["updated"] else ""
        on = self.color
        blank = "" if self.quiet and not self._said else "\n"  # (-q with nothing above: the summary alone)
        self.stream.write(
            f"{blank}{count(s['passed'], 'passed', GREEN, on)}{up}, {count(s['failed'], 'failed', RED, on)}, "
            f"{count(s['errors'], 'error(s)', RED, on)}{xf} in {run.seconds:.2f} s\n"
        )
        if self.mutation is not None:
            self.stream.write("".join(line + "\n" for line in mutants.text_lines(self.mutation, self.verbose)))


class JsonTestReporter(TestReporter):
    """``kartalint test --format json``: one document (``schemaVersion`` 1, docs/fixtures.md) written at ``finish``."""

    name = "json"

    def finish(self, run: TestRun) -> None:
        """Write the document: ``cases``, ``summary``, ``coverage``, ``definitionsWithoutFixtures``,
        ``belowCoverage`` (each with its ``minimum``), and ``mutation`` with ``--mutants``."""
        doc = {
            "schemaVersion": SCHEMA_VERSION,
            "cases": [r.to_dict() for r in run.results],
            "summary": run.summary,
            "coverage": [c.to_dict() for c in run.coverage.values()],
            "definitionsWithoutFixtures": [d.path for d in run.without_fixtures],
            "belowCoverage": [dict(c.to_dict(), minimum=run.min_coverage) for c in run.below_coverage],
        }
        if self.mutation is not None:
            doc["mutation"] = mutants.json_document(self.mutation)
        self.stream.write(json.dumps(doc, indent=2) + "\n")


def diff_location(result: Any, diff: Any) -> tuple:
    """(line, column) of the expectation behind ``diff`` in the case's file (the case's line when
    the file cannot say more)."""

    case = result.case
    if case.kind == "recording" or not os.path.isfile(case.file):
        return case.line, 1
    source = _SOURCES.get(case.file)
    if source is None:
        source = _SOURCES[case.file] = load_file(case.file)
    documents = [d for d in source.documents if d.node.start_mark.line + 1 == case.line] or source.documents[:1]
    if not documents:
        return case.line, 1
    span = documents[0].span(expect_path(diff.path, case.kind), key=True)
    return span.line, span.column


_SOURCES: dict[str, Any] = {}


class GithubTestReporter(TestReporter):
    """One ``::error`` workflow command per differing field, at the fixture line of that field,
    titled with the case; a case that cannot run is one ``::error`` at the case."""

    name = "github"

    def finish(self, run: TestRun) -> None:
        """Write the workflow commands (see the class; survivors and low mutation scores too), then the
        summary line and, with ``--mutants``, the run's mutation score line."""

        def emit(file: str, line: int, col: int, title: str, message: str, command: str = "error") -> None:
            props = f"file={escape_property(workflow_file(file))},line={line},col={col},title={escape_property(title)}"
            self.stream.write(f"::{command} {props}::{escape_data(message)}\n")

        for result in run.results:
            title = f"kartalint test: {result.case.name or result.case.id}"
            if result.outcome == "error":
                emit(
                    result.case.file, result.case.line, 1, title, "\n".join(result.messages) or "the case could not run"
                )
            elif result.outcome in ("failed", "xpassed"):
                if not result.diffs:
                    emit(result.case.file, result.case.line, 1, title, "\n".join(result.messages))
                for diff in result.diffs:
                    line, col = diff_location(result, diff)
                    hints = "".join(f"\nhint: {h}" for h in result.hints.get(diff.path, []))
                    emit(result.case.file, line, col, title, diff.text + hints)
        for item in run.without_fixtures:
            emit(item.path, 1, 1, "kartalint test: --require-fixtures", f"definition {item.name} has no fixture")
        for cov in run.below_coverage:
            emit(
                cov.definition.path,
                1,
                1,
                "kartalint test: --min-coverage",
                f"status-mapping coverage of {cov.definition.name} is {cov.percent:.0f}% (below {run.min_coverage:g}%): "
                f"never matched {', '.join(cov.unmatched)}",
            )
        if self.mutation is not None:
            mutants.github_lines(
                self.mutation, lambda cmd, file, line, col, title, text: emit(file, line, col, title, text, cmd)
            )
        s = run.summary
        self.stream.write(
            f"{s['passed']} passed, {s['failed']} failed, {s['errors']} error(s) in {run.seconds:.2f} s\n"
        )
        if self.mutation is not None:
            self.stream.write(mutants.text_lines(self.mutation, False)[-1] + "\n")


class SarifTestReporter(TestReporter):
    """``kartalint test --format sarif`` (or ``--sarif FILE``): each differing field a
    ``fixture-mismatch`` result at its line in the fixture, each case that cannot run a
    ``fixture-error`` (``fixture-path-outside`` when a file was refused), test-time findings
    under their own rules, ``--require-fixtures`` / ``--min-coverage`` failures at the definition."""

    name = "sarif"

    def finish(self, run: TestRun) -> None:
        """Write the SARIF log of the run (see the class), the ``--mutants`` results included."""

        log = SarifLog("test", self.project_root)
        for result in run.results:
            case = result.case
            title = case.name or case.id
            if result.outcome == "error":
                log.add_result(
                    outcomes.case_rule(result.outcome, case.refused),
                    "error",
                    f"{title}: " + ("; ".join(result.messages) or "the case could not run"),
                    case.file,
                    case.id,
                    case.line,
                )
            elif result.outcome == "xpassed":
                log.add_result(
                    outcomes.case_rule(result.outcome, case.refused),
                    "error",
                    f"{title}: " + "; ".join(result.messages),
                    case.file,
                    case.id,
                    case.line,
                )
            elif result.outcome == "failed":
                for diff in result.diffs:
                    line, column = diff_location(result, diff)
                    hints = "".join(f" (hint: {h})" for h in result.hints.get(diff.path, []))
                    log.add_result(
                        FIXTURE_MISMATCH,
                        "error",
                        f"{title}: {diff.text}{hints}",
                        case.file,
                        f"{case.id}\x1f{diff.path}",
                        line,
                        column,
                    )
            else:
                log.artifact_location(case.file)
            for finding in result.findings:
                log.add_result(
                    finding.rule,
                    LEVELS[finding.severity],
                    f"{title}: {finding.message}",
                    finding.file,
                    f"{case.id}\x1f{finding.message}",
                    finding.line,
                    finding.column,
                )
        for item in run.without_fixtures:
            log.add_result(
                DEFINITION_WITHOUT_FIXTURE,
                "error",
                f"definition {item.name} has no fixture (--require-fixtures)",
                item.path,
                item.name,
            )
        for cov in run.below_coverage:
            log.add_result(
                COVERAGE_BELOW_MINIMUM,
                "error",
                f"status-mapping coverage of {cov.definition.name} is {cov.percent:.0f}% (below --min-coverage "
                f"{run.min_coverage:g}%): never matched {', '.join(cov.unmatched)}",
                cov.definition.path,
                cov.definition.name,
            )
        if self.mutation is not None:
            mutants.sarif_results(log, self.mutation)
        self.stream.write(log.render())
