"""The reporter lifecycle shared by every output format."""

from __future__ import annotations

from typing import IO, Any, Optional

from kartalint.model import Finding


class Reporter:
    """``start`` -> ``finding`` for each finding (sorted by file, line, column) -> ``finish``."""

    name = ""

    def __init__(self, stream: IO[str], color: bool = False, root: Optional[str] = None) -> None:
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
