"""The one reporter lifecycle every output format follows.

``start`` -> ``item`` for each item of the whole (the findings of a lint run, sorted; the case
results of a test run; nothing for documents rendered whole) -> ``finish`` with the whole.
``report(whole)`` runs it. Lint formats (``Reporter``), test formats (``TestReporter``) and the
document formats of ``diff``, ``describe``, ``catalog`` and ``rules`` (``DocumentReporter``, a
render function per format, registered in ``kartalint.report.DOCUMENTS``) are all lifecycles.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import IO, Any

from kartalint.model import Finding
from kartalint.report.escape import visible


class Lifecycle:
    name = ""

    def start(self) -> None:
        """Called once before any item."""

    def items(self, whole: Any) -> Iterable[Any]:
        """The items of the whole, in reporting order."""
        return ()

    def item(self, item: Any) -> None:
        """Called for each item."""

    def finish(self, whole: Any) -> None:
        """Called once with the whole."""

    def report(self, whole: Any) -> None:
        self.start()
        for item in self.items(whole):
            self.item(item)
        self.finish(whole)


class Reporter(Lifecycle):
    """Lint formats: the items are the findings, sorted by file, line, column and rule."""

    def __init__(self, stream: IO[str], color: bool = False, root: str | None = None) -> None:
        self.stream = stream
        self.color = color
        self.root = root  # the project root: where relative locations start (SARIF)

    def finding(self, finding: Finding) -> None:
        """Called for each finding."""

    def items(self, whole: Any) -> Iterable[Any]:
        return sorted(whole.findings, key=lambda f: (f.file, f.line, f.column, f.rule))

    def item(self, item: Any) -> None:
        self.finding(item)

    def write(self, text: str) -> None:
        self.stream.write(text)


class DocumentReporter(Lifecycle):
    """A document rendered whole at ``finish`` (a diff report, described workloads, the catalog
    table, the rules reference) by the render function of its format."""

    def __init__(self, stream: IO[str], render: Callable[[Any], str], name: str = "") -> None:
        self.stream = stream
        self.render = render
        self.name = name

    def finish(self, whole: Any) -> None:
        self.stream.write(self.render(whole))


LABELS = {
    "passed": "PASS",
    "updated": "UPDATED",
    "failed": "FAIL",
    "error": "ERROR",
    "xfailed": "XFAIL",
    "xpassed": "XPASS",
}


class TestReporter(Lifecycle):
    """Test formats: the items are the case results of a run, in order; ``mutation`` holds the
    results of ``--mutants`` (``kartalint.mutation.score.MutationRun``), reported after the cases."""

    def __init__(
        self,
        stream: IO[str],
        verbose: bool = False,
        root: str | None = None,
        mutation: Any = None,
        color: bool = False,
        quiet: bool = False,
    ) -> None:
        self.stream = stream
        self.verbose = verbose
        self.color = color  # the text format only (report.colour)
        self.quiet = quiet  # the text format only: failures and the summary
        self.root = root  # the project root: where SARIF locations start
        self.mutation = mutation

    def case(self, result: Any) -> None:
        """Called for each case result."""

    def items(self, whole: Any) -> Iterable[Any]:
        return whole.results

    def item(self, item: Any) -> None:
        self.case(item)


def detail_lines(result: Any) -> list[str]:
    lines = [f"    {m}" for m in result.messages]
    for diff in result.diffs:
        lines.append(f"    {diff.text}")
        for hint in result.hints.get(diff.path, []):
            lines.append(f"      hint: {hint}")
    for finding in result.findings:
        lines.append(f"    {finding.severity} {finding.rule}: {finding.message}")
    return [visible(line) for line in lines]  # values from the fixture stay on their line
