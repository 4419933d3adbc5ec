"""The one reporter lifecycle every output format follows.

``start`` -> ``item`` for each item of the whole (the findings of a lint run, sorted; the case
results of a test run; nothing for documents rendered whole) -> ``finish`` with the whole.
``report(whole)`` runs it. Lint formats (``Reporter``), test formats (``TestReporter``) and the
document formats of ``diff``, ``describe``, ``catalog``, ``rules``, ``explore`` and ``new --crd``
(``DocumentReporter``, a render function per format, registered in
``kartalint.report.DOCUMENTS``) are all lifecycles.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from kartalint.model import Finding, Generic
from kartalint.report.escape import visible

TYPE_CHECKING = False
if TYPE_CHECKING:  # what the reporters are given, imported only for the type checker
    from typing import IO, Any, TypeVar

    from kartalint.lint.result import LintResult
    from kartalint.testing.run import TestRun

    Whole = TypeVar("Whole")


class Lifecycle(Generic["Whole"]):
    """``start`` -> ``item`` for each of ``items(whole)`` -> ``finish(whole)``; ``report`` runs it."""

    name = ""

    def start(self) -> None:
        """Called once before any item."""

    def items(self, whole: Whole) -> Iterable[Any]:
        """The items of the whole, in reporting order."""
        return ()

    def item(self, item: Any) -> None:
        """Called for each item."""

    def finish(self, whole: Whole) -> None:
        """Called once with the whole."""

    def report(self, whole: Whole) -> None:
        """Run the lifecycle over ``whole``."""
        self.start()
        for item in self.items(whole):
            self.item(item)
        self.finish(whole)


class Reporter(Lifecycle["LintResult"]):
    """Lint formats: the items are the findings, sorted by file, line, column and rule."""

    def __init__(self, stream: IO[str], color: bool = False, project_root: str | None = None) -> None:
        """Writes to ``stream``; ``color``: ANSI colour in the text format (the command decided it is
        on); ``project_root``: where SARIF's relative locations start (None: the current folder)."""
        self.stream = stream
        self.color = color
        self.project_root = project_root  # where relative locations start (SARIF)

    def finding(self, finding: Finding) -> None:
        """Called for each finding."""

    def items(self, whole: LintResult) -> Iterable[Any]:
        """The findings of the run, sorted by file, line, column and rule."""
        return sorted(whole.findings, key=lambda f: (f.file, f.line, f.column, f.rule))

    def item(self, item: Any) -> None:
        """Hand the finding to ``finding``."""
        self.finding(item)

    def write(self, text: str) -> None:
        """Write ``text`` to the report's stream."""
        self.stream.write(text)


class DocumentReporter(Lifecycle["Any"]):
    """A document rendered whole at ``finish`` (a diff report, described workloads, the catalog
    table, the rules reference, what explore found, new --crd's review) by the render function of
    its format."""

    def __init__(self, stream: IO[str], render: Callable[[Any], str], name: str = "") -> None:
        """Writes ``render(whole)`` to ``stream`` at ``finish``; ``name`` is the format's name."""
        self.stream = stream
        self.render = render
        self.name = name

    def finish(self, whole: Any) -> None:
        """Write the whole document, rendered by the format's function."""
        self.stream.write(self.render(whole))


LABELS = {
    "passed": "PASS",
    "updated": "UPDATED",
    "failed": "FAIL",
    "error": "ERROR",
    "xfailed": "XFAIL",
    "xpassed": "XPASS",
}


class TestReporter(Lifecycle["TestRun"]):
    """Test formats: the items are the case results of a run, in order; ``mutation`` holds the
    results of ``--mutants`` (``kartalint.mutation.score.MutationRun``), reported after the cases."""

    def __init__(
        self,
        stream: IO[str],
        verbose: bool = False,
        project_root: str | None = None,
        mutation: Any = None,
        color: bool = False,
        quiet: bool = False,
    ) -> None:
        """Writes to ``stream``; ``verbose`` (``-v``): every case and mutant in full, not only the
        failures; ``project_root``: where SARIF locations start (None: the current folder);
        ``mutation``: the ``MutationRun`` of ``--mutants``, or None; ``color`` and ``quiet`` (``-q``:
        the failures and the summary only) concern the text format."""
        self.stream = stream
        self.verbose = verbose
        self.color = color  # the text format only (report.colour)
        self.quiet = quiet  # the text format only: failures and the summary
        self.project_root = project_root  # where SARIF locations start
        self.mutation = mutation

    def case(self, result: Any) -> None:
        """Called for each case result."""

    def items(self, whole: TestRun) -> Iterable[Any]:
        """The case results of the run, in order."""
        return whole.results

    def item(self, item: Any) -> None:
        """Hand the case result to ``case``."""
        self.case(item)


def detail_lines(result: Any) -> list[str]:
    """The detail lines of a case result (messages, differences with their hints, findings), each
    kept on its line."""
    lines = [f"    {m}" for m in result.messages]
    for diff in result.diffs:
        lines.append(f"    {diff.text}")
        for hint in result.hints.get(diff.path, []):
            lines.append(f"      hint: {hint}")
    for finding in result.findings:
        lines.append(f"    {finding.severity} {finding.rule}: {finding.message}")
    return [visible(line) for line in lines]  # values from the fixture stay on their line
