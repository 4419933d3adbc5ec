"""JUnit XML of `kartalint test` (`--format junit`, `--junit-xml FILE`): a suite per definition, a case per fixture, failures and errors named by their outcome rule.

Valid against Jenkins' junit-10.xsd (the xunit plugin's schema, which the other CI servers' readers
accept too) with the attributes the Ant schema requires of a suite (``hostname``, ``timestamp``):
``testsuites`` carries ``name``, ``tests``, ``failures``, ``errors`` and ``time`` only, a
``testcase`` ``classname``, ``name`` and ``time`` only (where a case's fixture is, is the first
line of its failure, error or skip: ``at FILE:LINE``)."""

from __future__ import annotations

import datetime
import os
import socket
import time
import xml.etree.ElementTree as ET
from collections import Counter, OrderedDict
from typing import TYPE_CHECKING, Any

from kartalint.report.base import TestReporter, detail_lines
from kartalint.report.mutants import junit_detail, score_text
from kartalint.report.xml_escape import xml_element, xml_text
from kartalint.rules import outcomes
from kartalint.rules.outcomes import (
    COVERAGE_BELOW_MINIMUM,
    DEFINITION_WITHOUT_FIXTURE,
    FIXTURE_MISMATCH,
    MUTATION_SCORE_BELOW_MINIMUM,
)

if TYPE_CHECKING:  # the whole a reporter is given, for the type checker only
    from kartalint.testing.run import TestRun


class JUnitTestReporter(TestReporter):
    """JUnit XML as junitparser, pytest, GitLab and Jenkins read it: one ``testsuite`` per
    definition (``tests``, ``failures``, ``errors``, ``skipped``, ``time``, ``timestamp``,
    ``hostname``, ``file``), one ``testcase`` per case (``classname`` the definition, ``name``,
    ``time``); an expected failure is ``skipped`` with its reason; ``--require-fixtures`` and
    ``--min-coverage`` failures are ``error`` cases of their definition's suite."""

    name = "junit"

    def finish(self, run: TestRun) -> None:
        """Write the XML: the cases grouped by definition (those without one in ``(no definition)``),
        suites of one name told apart by their file; the ``--require-fixtures``, ``--min-coverage`` and
        mutation-score cases in their definition's suite; counts and times per suite and on
        ``testsuites``."""
        timestamp = _timestamp(run.started or 0)
        grouped: dict[str, dict[str, Any]] = OrderedDict()

        def suite_of(name: str, path: str | None) -> dict[str, Any]:
            return grouped.setdefault(path or name, {"name": name, "file": path, "cases": []})

        for result in run.results:
            definition = result.case.definition
            group = (
                suite_of(definition.name or definition.path, definition.path)
                if definition
                else suite_of("(no definition)", None)
            )
            group["cases"].append(("case", result))
        for item in run.without_fixtures:
            suite_of(item.name or item.path, item.path)["cases"].append(("without-fixture", item))
        for cov in run.below_coverage:
            suite_of(cov.definition.name or cov.definition.path, cov.definition.path)["cases"].append(
                ("below-coverage", cov)
            )
        for item in self.mutation.definitions if self.mutation is not None else ():
            suite_of(item.definition.name, item.definition.path)["cases"].append(("mutants", item))

        names = Counter(group["name"] for group in grouped.values())
        for group in grouped.values():  # two definitions of one name: each suite says which file
            if names[group["name"]] > 1 and group["file"]:
                group["name"] = f"{group['name']} ({group['file']})"
        totals: Counter[str] = Counter()
        suites = ET.Element("testsuites")
        for group in grouped.values():
            counts: Counter[str] = Counter()
            suite = xml_element(suites, "testsuite", name=group["name"], timestamp=timestamp, hostname=_hostname())
            if group["file"]:
                suite.set("file", xml_text(group["file"]))
            for kind, item in group["cases"]:
                counts["tests"] += 1
                if kind == "case":
                    self._case(suite, item, counts)
                elif kind == "mutants":
                    self._mutants(suite, item, counts)
                elif kind == "without-fixture":
                    case = xml_element(
                        suite,
                        "testcase",
                        classname=item.name or item.path,
                        name="--require-fixtures",
                        time="0.000",
                    )
                    xml_element(
                        case,
                        "error",
                        f"at {item.path}:1\nno test case exercises definition {item.name}",
                        message=f"definition {item.name} has no fixture",
                        type=DEFINITION_WITHOUT_FIXTURE,
                    )
                    counts["errors"] += 1
                else:
                    case = xml_element(
                        suite,
                        "testcase",
                        classname=item.definition.name or item.definition.path,
                        name="--min-coverage",
                        time="0.000",
                    )
                    xml_element(
                        case,
                        "error",
                        f"at {item.definition.path}:1\nnever matched: " + ", ".join(item.unmatched),
                        message=f"status-mapping coverage {item.percent:.0f}% is below {run.min_coverage:g}%",
                        type=COVERAGE_BELOW_MINIMUM,
                    )
                    counts["errors"] += 1
            for key in ("tests", "failures", "errors", "skipped"):
                suite.set(key, str(counts[key]))
            suite.set("time", f"{counts['time_ms'] / 1000:.3f}")
            totals.update(counts)
        for key in ("tests", "failures", "errors"):  # (junit-10.xsd has no `skipped` here)
            suites.set(key, str(totals[key]))
        suites.set("name", "kartalint")
        suites.set("time", f"{run.seconds:.3f}")
        ET.indent(suites)
        self.stream.write('<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n")

    def _mutants(self, suite: Any, item: Any, counts: Counter) -> None:
        """The definition's ``mutation score`` case: a failure below the minimum score."""

        case = xml_element(suite, "testcase", classname=item.definition.name, name="mutation score", time="0.000")
        detail = junit_detail(item)
        if item in self.mutation.below_minimum:
            message = f"mutation score {score_text(item.score)} is below {self.mutation.min_score:g}"
            located = f"at {item.definition.path}:1\n{detail}"
            xml_element(case, "failure", located, message=message, type=MUTATION_SCORE_BELOW_MINIMUM)
            counts["failures"] += 1
        else:
            xml_element(case, "system-out", detail)

    @staticmethod
    def _case(suite: Any, result: Any, counts: Counter) -> None:
        case_ = result.case
        classname = (
            case_.definition.name or case_.definition.path
            if case_.definition
            else os.path.splitext(case_.file)[0].replace(os.sep, ".")
        )
        counts["time_ms"] += round(result.seconds * 1000)
        case = xml_element(
            suite,
            "testcase",
            classname=classname,
            name=case_.name or case_.id,
            time=f"{result.seconds:.3f}",
        )
        detail = "\n".join(line.strip() for line in detail_lines(result))
        located = "\n".join(filter(None, [f"at {case_.file}:{case_.line}", detail]))
        first = result.diffs[0].text if result.diffs else (result.messages[0] if result.messages else result.outcome)
        if result.outcome in ("failed", "xpassed"):
            xml_element(case, "failure", located, message=first, type=FIXTURE_MISMATCH)
            counts["failures"] += 1
        elif result.outcome == "error":
            xml_element(case, "error", located, message=first, type=outcomes.case_rule("error", case_.refused))
            counts["errors"] += 1
        elif result.outcome == "xfailed":
            xml_element(case, "skipped", located, message=f"xfail: {case_.xfail}")
            counts["skipped"] += 1
        elif detail:
            xml_element(case, "system-out", detail)


def usage_junit(problems: list[str]) -> str:
    """JUnit for a run that could not start: one ``error`` case per problem."""

    suites = ET.Element(
        "testsuites", name="kartalint", tests=str(len(problems)), failures="0", errors=str(len(problems)), time="0.000"
    )
    suite = xml_element(
        suites,
        "testsuite",
        name="kartalint test",
        tests=len(problems),
        failures=0,
        errors=len(problems),
        skipped=0,
        time="0.000",
        timestamp=_timestamp(time.time()),
        hostname=_hostname(),
    )
    for problem in problems:
        case = xml_element(suite, "testcase", classname="kartalint", name="usage", time="0.000")
        xml_element(case, "error", problem, message=problem, type="usage")
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def _timestamp(seconds: float) -> str:
    """When the run started, as the Ant schema writes it (ISO 8601, UTC, no zone)."""

    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")


def _hostname() -> str:
    """The machine the run ran on (``localhost`` when it has no name), as the Ant schema asks."""

    return socket.gethostname() or "localhost"
