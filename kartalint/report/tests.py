"""Output of ``kartalint test``: text, JSON (``schemaVersion`` 1) and JUnit XML.

Same lifecycle as the lint reporters: ``start`` -> ``case`` for each result -> ``finish`` with
the whole run (summary and coverage).
"""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET
from collections import Counter, OrderedDict
from typing import IO, Any, Dict, List, Optional

from kartalint.rules import outcomes

SCHEMA_VERSION = 1
LABELS = {"passed": "PASS", "updated": "UPDATED", "failed": "FAIL", "error": "ERROR", "xfailed": "XFAIL", "xpassed": "XPASS"}


class TestReporter:
    name = ""

    def __init__(self, stream: IO[str], verbose: bool = False, root: Optional[str] = None) -> None:
        self.stream = stream
        self.verbose = verbose
        self.root = root  # the project root: where SARIF locations start

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
        up = f", {s['updated']} updated" if s["updated"] else ""
        self.stream.write(f"\n{s['passed']} passed{up}, {s['failed']} failed, {s['errors']} error(s){xf} "
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


_XML_FORBIDDEN = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(value: Any) -> str:
    """``value`` as text XML 1.0 can hold: each forbidden character (control characters such as an
    ANSI escape, lone surrogates, U+FFFE/U+FFFF) is written visibly as ``\\xNN`` / ``\\uNNNN``."""
    text = str(value)
    return _XML_FORBIDDEN.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}", text)


def _element(parent: Any, tag: str, text: Optional[str] = None, **attributes: Any) -> Any:
    element = ET.SubElement(parent, tag, {k: xml_text(v) for k, v in attributes.items()})
    if text is not None:
        element.text = xml_text(text)
    return element


class JUnitTestReporter(TestReporter):
    """JUnit XML as junitparser, pytest, GitLab and Jenkins read it: one ``testsuite`` per
    definition (``tests``, ``failures``, ``errors``, ``skipped``, ``time``, ``timestamp``), one
    ``testcase`` per case (``classname`` the definition, ``name``, ``file``, ``line``, ``time``);
    an expected failure is ``skipped`` with its reason; ``--require-fixtures`` and
    ``--min-coverage`` failures are ``error`` cases of their definition's suite."""

    name = "junit"

    def finish(self, run: Any) -> None:
        import datetime

        timestamp = datetime.datetime.fromtimestamp(run.started or 0, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
        grouped: Dict[str, Dict[str, Any]] = OrderedDict()

        def suite_of(name: str, path: Optional[str]) -> Dict[str, Any]:
            return grouped.setdefault(path or name, {"name": name, "file": path, "cases": []})

        for result in run.results:
            definition = result.case.definition
            group = suite_of(definition.name or definition.path, definition.path) if definition else suite_of("(no definition)", None)
            group["cases"].append(("case", result))
        for item in run.without_fixtures:
            suite_of(item.name or item.path, item.path)["cases"].append(("without-fixture", item))
        for cov in run.below_coverage:
            suite_of(cov.definition.name or cov.definition.path, cov.definition.path)["cases"].append(("below-coverage", cov))

        names = Counter(group["name"] for group in grouped.values())
        for group in grouped.values():  # two definitions of one name: each suite says which file
            if names[group["name"]] > 1 and group["file"]:
                group["name"] = f"{group['name']} ({group['file']})"
        totals = Counter()
        suites = ET.Element("testsuites")
        for group in grouped.values():
            counts = Counter()
            suite = _element(suites, "testsuite", name=group["name"], timestamp=timestamp)
            if group["file"]:
                suite.set("file", xml_text(group["file"]))
            for kind, item in group["cases"]:
                counts["tests"] += 1
                if kind == "case":
                    self._case(suite, item, counts)
                elif kind == "without-fixture":
                    case = _element(suite, "testcase", classname=item.name or item.path, name="--require-fixtures",
                                    file=item.path, line=1, time="0.000")
                    _element(case, "error", f"{item.path}: no test case exercises definition {item.name}",
                             message=f"definition {item.name} has no fixture", type="definition-without-fixture")
                    counts["errors"] += 1
                else:
                    case = _element(suite, "testcase", classname=item.definition.name or item.definition.path,
                                    name="--min-coverage", file=item.definition.path, line=1, time="0.000")
                    _element(case, "error", "never matched: " + ", ".join(item.unmatched),
                             message=f"status-mapping coverage {item.percent:.0f}% is below {run.min_coverage:g}%",
                             type="coverage-below-minimum")
                    counts["errors"] += 1
            for key in ("tests", "failures", "errors", "skipped"):
                suite.set(key, str(counts[key]))
            suite.set("time", f"{counts['time_ms'] / 1000:.3f}")
            totals.update(counts)
        for key in ("tests", "failures", "errors", "skipped"):
            suites.set(key, str(totals[key]))
        suites.set("name", "kartalint")
        suites.set("time", f"{run.seconds:.3f}")
        ET.indent(suites)
        self.stream.write('<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n")

    @staticmethod
    def _case(suite: Any, result: Any, counts: Counter) -> None:
        case_ = result.case
        classname = case_.definition.name or case_.definition.path if case_.definition else os.path.splitext(case_.file)[0].replace(os.sep, ".")
        counts["time_ms"] += round(result.seconds * 1000)
        case = _element(suite, "testcase", classname=classname, name=case_.name or case_.id, file=case_.file,
                        line=case_.line, time=f"{result.seconds:.3f}")
        detail = "\n".join(line.strip() for line in _detail_lines(result))
        first = result.diffs[0].text if result.diffs else (result.messages[0] if result.messages else result.outcome)
        if result.outcome in ("failed", "xpassed"):
            _element(case, "failure", detail, message=first, type="fixture-mismatch")
            counts["failures"] += 1
        elif result.outcome == "error":
            _element(case, "error", detail, message=first, type=outcomes.case_rule("error", case_.refused))
            counts["errors"] += 1
        elif result.outcome == "xfailed":
            _element(case, "skipped", detail, message=f"xfail: {case_.xfail}")
            counts["skipped"] += 1
        elif detail:
            _element(case, "system-out", detail)


def usage_junit(problems: List[str]) -> str:
    """JUnit for a run that could not start: one ``error`` case per problem."""
    suites = ET.Element("testsuites", name="kartalint", tests=str(len(problems)), failures="0", errors=str(len(problems)),
                        skipped="0", time="0.000")
    suite = _element(suites, "testsuite", name="kartalint test", tests=len(problems), failures=0, errors=len(problems),
                     skipped=0, time="0.000")
    for problem in problems:
        case = _element(suite, "testcase", classname="kartalint", name="usage", time="0.000")
        _element(case, "error", problem, message=problem, type="usage")
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def diff_location(result: Any, diff: Any) -> tuple:
    """(line, column) of the expectation behind ``diff`` in the case's file (the case's line when
    the file cannot say more)."""
    from kartalint.testing.compare import expect_path
    from kartalint.load.documents import load_file

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
        from kartalint.report.github import escape_data, escape_property

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


class SarifTestReporter(TestReporter):
    """``kartalint test --format sarif`` (or ``--sarif FILE``): each differing field a
    ``fixture-mismatch`` result at its line in the fixture, each case that cannot run a
    ``fixture-error`` (``fixture-path-outside`` when a file was refused), test-time findings
    under their own rules, ``--require-fixtures`` / ``--min-coverage`` failures at the definition."""

    name = "sarif"

    def finish(self, run: Any) -> None:
        from kartalint.report.sarif import LEVELS, SarifLog

        log = SarifLog("test", self.root)
        for result in run.results:
            case = result.case
            title = case.name or case.id
            if result.outcome == "error":
                log.add_result(outcomes.case_rule(result.outcome, case.refused), "error", f"{title}: " + ("; ".join(result.messages) or "the case could not run"),
                               case.file, case.id, case.line)
            elif result.outcome == "xpassed":
                log.add_result(outcomes.case_rule(result.outcome, case.refused), "error", f"{title}: " + "; ".join(result.messages), case.file, case.id, case.line)
            elif result.outcome == "failed":
                for diff in result.diffs:
                    line, column = diff_location(result, diff)
                    hints = "".join(f" (hint: {h})" for h in result.hints.get(diff.path, []))
                    log.add_result("fixture-mismatch", "error", f"{title}: {diff.text}{hints}", case.file,
                                   f"{case.id}\x1f{diff.path}", line, column)
            else:
                log.artifact_location(case.file)
            for finding in result.findings:
                log.add_result(finding.rule, LEVELS[finding.severity], f"{title}: {finding.message}", finding.file,
                               f"{case.id}\x1f{finding.message}", finding.line, finding.column)
        for item in run.without_fixtures:
            log.add_result("definition-without-fixture", "error", f"definition {item.name} has no fixture (--require-fixtures)",
                           item.path, item.name)
        for cov in run.below_coverage:
            log.add_result("coverage-below-minimum", "error",
                           f"status-mapping coverage of {cov.definition.name} is {cov.percent:.0f}% (below --min-coverage "
                           f"{run.min_coverage:g}%): never matched {', '.join(cov.unmatched)}", cov.definition.path, cov.definition.name)
        self.stream.write(log.render())


TEST_REPORTERS = {r.name: r for r in (TextTestReporter, JsonTestReporter, JUnitTestReporter, GithubTestReporter, SarifTestReporter)}
