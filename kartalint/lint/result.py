"""What a lint run found (``LintResult``), for the reporters and the exit code."""

from __future__ import annotations

from dataclasses import dataclass, field

from kartalint.model import Finding, Severity


@dataclass
class LintResult:
    """What a lint run found: files checked, findings, missing paths, skipped files and documents."""

    checked: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    karta_documents: int = 0
    fixture_documents: int = 0
    skipped_documents: int = 0
    skipped_files: list[str] = field(default_factory=list)  # neither Karta nor fixture (not with --strict-files)
    skipped_paths: list[str] = field(default_factory=list)  # FIFOs, devices, unreadable folders met in a walk
    templates: list[str] = field(default_factory=list)  # Go/Helm templates skipped (a yaml-template note each)
    suppressed: int = 0

    def count(self, severity: Severity) -> int:
        """How many findings have ``severity``."""
        return sum(1 for f in self.findings if f.severity == severity)

    @property
    def counts(self) -> dict[str, int]:
        """The number of findings per severity name."""
        return {
            "error": self.count(Severity.ERROR),
            "warning": self.count(Severity.WARNING),
            "info": self.count(Severity.INFO),
        }

    def exit_code(self, strict: bool = False) -> int:
        """The exit code of ``kartalint lint``: 2 for a missing path, 1 for an error (or a warning when ``strict``), else 0."""
        if self.missing:
            return 2
        if self.count(Severity.ERROR) or (strict and self.count(Severity.WARNING)):
            return 1
        if self.karta_documents == 0 and self.fixture_documents == 0:
            return 2
        return 0
