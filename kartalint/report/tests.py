"""Output of ``kartalint test``: text, JSON (``schemaVersion`` 1) and JUnit XML.

Same lifecycle as the lint reporters: ``start`` -> ``case`` for each result -> ``finish`` with
the whole run (summary and coverage).
"""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from collections import OrderedDict
from typing import IO, Any, Dict, List

SCHEMA_VERSION = 1
LABELS = {"passed": "PASS", "failed": "FAIL", "error": "ERROR", "xfailed": "XFAIL", "xpassed": "XPASS"}


class TestReporter:
    name = ""

    def __init__(self, stream: IO[str], verbose: bool = False) -> None:
        self.stream = stream
        self.verbose = verbose

    def start(self) -> None:
        pass

    def case(self, result: Any) -> None:
        pass

    def finish(self, run: Any) -> None:
        pass

    def report(self, run: Any) -> None:
        self.start()
        for result in run.results:
            self.case(result)
        self.finish(run)


def _detail_lines(result: Any) -> List[str]:
    lines = [f"    {m}" for m in result.messages]
    for diff in result.diffs:
        lines.append(f"    {diff.text}")
        for hint in result.hints.get(diff.path, []):
            lines.append(f"      hint: {hint}")
    for finding in result.findings:
        lines.append(f"    {finding.severity} {finding.rule}: {finding.message}")
    return lines


class TextTestReporter(TestReporter):
    """Fixtures one line each; recordings one line per file unless a frame fails or ``-v``."""

    name = "text"

    def start(self) -> None:
        self._groups: "OrderedDict[str, List[Any]]" = OrderedDict()

    def case(self, result: Any) -> None:
        self._groups.setdefault(result.case.file, []).append(result)

    def finish(self, run: Any) -> None:
        for file, results in self._groups.items():
            recording = results[0].case.kind == "recording"
            if recording and not self.verbose and all(r.outcome == "passed" and not r.findings for r in results):
                used = f"  [{results[0].case.definition.path}]" if results[0].case.definition is not None else ""
                self.stream.write(f"PASS  {file} ({len(results)} frames){used}\n")
                continue
            for result in results:
                if recording and result.outcome == "passed" and not result.findings and not self.verbose:
                    continue
                used = f"  [{result.case.definition.path}]" if result.case.definition is not None else ""
                self.stream.write(f"{LABELS[result.outcome]:<5} {result.case.id}{used}\n")
                if result.outcome != "passed" or self.verbose or result.findings:
                    for line in _detail_lines(result):
                        self.stream.write(line + "\n")
        for item in run.without_fixtures:
            self.stream.write(f"ERROR {item.path}: definition {item.name} has no fixture (--require-fixtures)\n")
        for cov in run.below_coverage:
            self.stream.write(f"ERROR {cov.definition.path}: status-mapping coverage of {cov.definition.name} is {cov.percent:.0f}% "
                              f"(below --min-coverage {run.min_coverage:g}%): never matched {', '.join(cov.unmatched)}\n")
        if run.coverage:
            self.stream.write("\nCoverage:\n")
            for cov in run.coverage.values():
                matched = len(cov.matched & set(cov.mappings))
                never = f"; never matched: {', '.join(cov.unmatched)}" if cov.unmatched else ""
                comps = ", ".join(f"{n} [{', '.join(sorted(i for i in ids if i)) or '-'}]" if any(ids) else n
                                  for n, ids in cov.components.items() if ids)
                self.stream.write(f"  {cov.definition.name}: {cov.cases} case(s), status mappings {matched}/{len(cov.mappings)}{never}\n")
                if comps:
                    self.stream.write(f"    exercised: {comps}\n")
        s = run.summary
        xf = f", {s['expectedFailures']} expected failure(s)" if s["expectedFailures"] else ""
        self.stream.write(f"\n{s['passed']} passed, {s['failed']} failed, {s['errors']} error(s){xf} "
                          f"in {run.seconds:.2f} s\n")


class JsonTestReporter(TestReporter):
    name = "json"

    def finish(self, run: Any) -> None:
        doc = {
            "schemaVersion": SCHEMA_VERSION,
            "cases": [r.to_dict() for r in run.results],
            "summary": run.summary,
            "coverage": [c.to_dict() for c in run.coverage.values()],
            "definitionsWithoutFixtures": [d.path for d in run.without_fixtures],
            "belowCoverage": [dict(c.to_dict(), minimum=run.min_coverage) for c in run.below_coverage],
        }
        self.stream.write(json.dumps(doc, indent=2) + "\n")


class JUnitTestReporter(TestReporter):
    """JUnit XML as GitHub, GitLab and Jenkins read it: one testsuite per file."""

    name = "junit"

    def finish(self, run: Any) -> None:
        suites = ET.Element("testsuites", name="kartalint", tests=str(len(run.results)),
                            failures=str(run.summary["failed"]), errors=str(run.summary["errors"]), time=f"{run.seconds:.3f}")
        grouped: Dict[str, List[Any]] = OrderedDict()
        for result in run.results:
            grouped.setdefault(result.case.file, []).append(result)
        for file, results in grouped.items():
            suite = ET.SubElement(suites, "testsuite", name=file, tests=str(len(results)),
                                  failures=str(sum(r.outcome in ("failed", "xpassed") for r in results)),
                                  errors=str(sum(r.outcome == "error" for r in results)))
            for result in results:
                case = ET.SubElement(suite, "testcase", classname=os.path.splitext(file)[0].replace(os.sep, "."),
                                     name=result.case.name or result.case.id, file=file, line=str(result.case.line))
                detail = "\n".join(line.strip() for line in _detail_lines(result))
                first = (result.diffs[0].text if result.diffs else (result.messages[0] if result.messages else result.outcome))
                if result.outcome in ("failed", "xpassed"):
                    ET.SubElement(case, "failure", message=first, type=result.outcome).text = detail
                elif result.outcome == "error":
                    ET.SubElement(case, "error", message=first, type="error").text = detail
                elif detail:
                    ET.SubElement(case, "system-out").text = detail
        for item in run.without_fixtures:
            suite = ET.SubElement(suites, "testsuite", name=item.path, tests="1", failures="0", errors="1")
            case = ET.SubElement(suite, "testcase", classname="require-fixtures", name=item.name)
            ET.SubElement(case, "error", message=f"definition {item.name} has no fixture", type="error")
        for cov in run.below_coverage:
            suite = ET.SubElement(suites, "testsuite", name=cov.definition.path, tests="1", failures="0", errors="1")
            case = ET.SubElement(suite, "testcase", classname="min-coverage", name=cov.definition.name)
            ET.SubElement(case, "error", message=f"status-mapping coverage {cov.percent:.0f}% is below {run.min_coverage:g}%",
                          type="error").text = "never matched: " + ", ".join(cov.unmatched)
        ET.indent(suites)
        self.stream.write('<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n")


def diff_location(result: Any, diff: Any) -> tuple:
    """(line, column) of the expectation behind ``diff`` in the case's file (the case's line when
    the file cannot say more)."""
    from ..compare import expect_path
    from ..load import load_file

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


_SOURCES: Dict[str, Any] = {}


class GithubTestReporter(TestReporter):
    """One ``::error`` workflow command per differing field, at the fixture line of that field,
    titled with the case; a case that cannot run is one ``::error`` at the case."""

    name = "github"

    def finish(self, run: Any) -> None:
        from .github import escape_data, escape_property

        def emit(file: str, line: int, col: int, title: str, message: str) -> None:
            props = f"file={escape_property(file)},line={line},col={col},title={escape_property(title)}"
            self.stream.write(f"::error {props}::{escape_data(message)}\n")

        for result in run.results:
            title = f"kartalint test: {result.case.name or result.case.id}"
            if result.outcome == "error":
                emit(result.case.file, result.case.line, 1, title, "\n".join(result.messages) or "the case could not run")
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
            emit(cov.definition.path, 1, 1, "kartalint test: --min-coverage",
                 f"status-mapping coverage of {cov.definition.name} is {cov.percent:.0f}% (below {run.min_coverage:g}%): "
                 f"never matched {', '.join(cov.unmatched)}")
        s = run.summary
        self.stream.write(f"{s['passed']} passed, {s['failed']} failed, {s['errors']} error(s) in {run.seconds:.2f} s\n")


TEST_REPORTERS = {r.name: r for r in (TextTestReporter, JsonTestReporter, JUnitTestReporter, GithubTestReporter)}
