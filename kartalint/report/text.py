"""``file:line:col: severity rule-id message`` (yamllint style), hint on the next line."""

from __future__ import annotations

from kartalint.model import Finding, Severity
from kartalint.report.base import Reporter
from kartalint.report.escape import visible

_COLORS = {Severity.ERROR: "\033[31m", Severity.WARNING: "\033[33m", Severity.INFO: "\033[36m"}
_RESET, _DIM = "\033[0m", "\033[2m"


class TextReporter(Reporter):
    name = "text"

    def finding(self, finding: Finding) -> None:
        severity = str(finding.severity)
        if self.color:
            severity = f"{_COLORS[finding.severity]}{severity}{_RESET}"
        where = f"{visible(finding.file)}:{finding.line}:{finding.column}"
        self.write(f"{where}: {severity} {finding.rule} {visible(finding.message)}\n")
        if finding.hint:
            hint = f"    hint: {visible(finding.hint)}"
            self.write((f"{_DIM}{hint}{_RESET}" if self.color else hint) + "\n")
