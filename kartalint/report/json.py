"""The versioned JSON document (docs/output.md)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from kartalint.model import Finding
from kartalint.report.base import Reporter

if TYPE_CHECKING:  # the whole a reporter is given, for the type checker only
    from kartalint.lint.result import LintResult

SCHEMA_VERSION = 1


class JsonReporter(Reporter):
    """``--format json``: one document written at ``finish`` (``schemaVersion`` 1, docs/output.md)."""

    name = "json"

    def start(self) -> None:
        """Begin with no finding collected."""
        self.collected: list[Finding] = []

    def finding(self, finding: Finding) -> None:
        """Collect the finding (they come sorted)."""
        self.collected.append(finding)

    def finish(self, result: LintResult) -> None:
        """Write the document: ``checked`` files, ``findings``, ``counts`` per severity,
        ``kartaDocuments``, ``skippedDocuments``, ``skippedFiles``, ``suppressed`` and ``baseline``
        (``{"absorbed", "stale"}``, null without a baseline)."""
        document = {
            "schemaVersion": SCHEMA_VERSION,
            "checked": list(result.checked),
            "findings": [f.to_dict() for f in self.collected],
            "counts": result.counts,
            "kartaDocuments": result.karta_documents,
            "skippedDocuments": result.skipped_documents,
            "skippedFiles": list(result.skipped_files),
            "suppressed": result.suppressed,
            "baseline": result.baseline_counts,
        }
        self.write(json.dumps(document, indent=2) + "\n")
