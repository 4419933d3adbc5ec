"""GitHub Actions workflow commands (``::error file=...,line=...::message``)."""

from __future__ import annotations

from kartalint.model import Finding, Severity
from kartalint.report.base import Reporter

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


class GithubReporter(Reporter):
    name = "github"

    def finding(self, finding: Finding) -> None:
        props = [
            f"file={escape_property(finding.file)}",
            f"line={finding.line}",
            f"col={finding.column}",
            f"endLine={finding.end_line}",
            f"endColumn={finding.end_column}",
            f"title={escape_property('kartalint ' + finding.rule)}",
        ]
        message = finding.message + (f"\nhint: {finding.hint}" if finding.hint else "")
        self.write(f"::{_LEVEL[finding.severity]} {','.join(props)}::{escape_data(message)}\n")
