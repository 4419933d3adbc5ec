"""The reporter lifecycle shared by every output format."""

from __future__ import annotations

from typing import IO, Any

from kartalint.model import Finding


class Reporter:
    """``start`` -> ``finding`` for each finding (sorted by file, line, column) -> ``finish``."""

    name = ""

    def __init__(self, stream: IO[str], color: bool = False, root: str | None = None) -> None:
        self.stream = stream
        self.color = color
        self.root = root  # the project root: where relative locations start (SARIF)

    def start(self) -> None:
        """Called once before any finding."""

    def finding(self, finding: Finding) -> None:
        """Called for each finding."""

    def finish(self, result: Any) -> None:
        """Called once with the whole result (a ``LintResult``)."""

    def write(self, text: str) -> None:
        self.stream.write(text)

    def report(self, result: Any) -> None:
        self.start()
        for finding in sorted(result.findings, key=lambda f: (f.file, f.line, f.column, f.rule)):
            self.finding(finding)
        self.finish(result)


LABELS = {
    "passed": "PASS",
    "updated": "UPDATED",
    "failed": "FAIL",
    "error": "ERROR",
    "xfailed": "XFAIL",
    "xpassed": "XPASS",
}


class TestReporter:
    name = ""

    def __init__(self, stream: IO[str], verbose: bool = False, root: str | None = None) -> None:
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


def detail_lines(result: Any) -> list[str]:
    lines = [f"    {m}" for m in result.messages]
    for diff in result.diffs:
        lines.append(f"    {diff.text}")
        for hint in result.hints.get(diff.path, []):
            lines.append(f"      hint: {hint}")
    for finding in result.findings:
        lines.append(f"    {finding.severity} {finding.rule}: {finding.message}")
    return lines
