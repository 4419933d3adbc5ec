"""``file:line:col: severity rule-id message`` (yamllint style), hint on the next line."""

from __future__ import annotations

from kartalint.model import Finding, Severity
from kartalint.report.base import Reporter
from kartalint.report.colour import CYAN, DIM, RED, YELLOW, paint
from kartalint.report.escape import visible

_COLOURS = {Severity.ERROR: RED, Severity.WARNING: YELLOW, Severity.INFO: CYAN}


class TextReporter(Reporter):
    """``kartalint lint``'s default format: ``file:line:col: severity rule-id message`` per finding,
    its hint indented on the next line; text from the inputs made visible, colour when on."""

    name = "text"

    def finding(self, finding: Finding) -> None:
        """Write the finding's line and, when it has one, its hint line."""
        severity = paint(str(finding.severity), _COLOURS[finding.severity], self.color)
        where = f"{visible(finding.file)}:{finding.line}:{finding.column}"
        self.write(f"{where}: {severity} {finding.rule} {visible(finding.message)}\n")
        if finding.hint:
            hint = f"    hint: {visible(finding.hint)}"
            self.write(paint(hint, DIM, self.color) + "\n")
