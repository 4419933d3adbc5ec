"""SARIF 2.1.0 (code scanning): rule metadata from the registry, regions from spans."""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List

from .. import __version__, rules
from ..model import Finding, Severity
from .base import Reporter

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _uri(path: str) -> str:
    if path in ("<stdin>", "-"):
        return "stdin"
    return os.path.relpath(path).replace(os.sep, "/") if os.path.isabs(path) else path.replace(os.sep, "/")


class SarifReporter(Reporter):
    name = "sarif"

    def start(self) -> None:
        self.items: List[Finding] = []

    def finding(self, finding: Finding) -> None:
        self.items.append(finding)

    def finish(self, result: Any) -> None:
        all_rules = list(rules.RULES.values())
        index = {rule.id: i for i, rule in enumerate(all_rules)}
        descriptors = [
            {
                "id": rule.id,
                "name": "".join(part.capitalize() for part in rule.id.split("-")),
                "shortDescription": {"text": rule.summary},
                "fullDescription": {"text": rule.summary},
                "help": {"text": f"{rule.summary} Fix: {rule.hint}." if rule.hint else rule.summary,
                         "markdown": f"**{rule.id}** ({rule.category}): {rule.summary}\n\nFix: {rule.hint}"},
                "helpUri": f"https://github.com/kartalint/kartalint/blob/main/docs/rules.md#{rule.id}",
                "defaultConfiguration": {"level": _LEVEL[rule.severity]},
                "properties": {"category": rule.category, "tags": [rule.category]},
            }
            for rule in all_rules
        ]
        results: List[Dict[str, Any]] = []
        for f in self.items:
            entry: Dict[str, Any] = {
                "ruleId": f.rule,
                "level": _LEVEL[f.severity],
                "message": {"text": f.message + (f" (hint: {f.hint})" if f.hint else "")},
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(f.file)},
                        "region": {"startLine": f.line, "startColumn": f.column,
                                   "endLine": f.end_line, "endColumn": f.end_column},
                    }
                }],
            }
            if f.rule in index:
                entry["ruleIndex"] = index[f.rule]
            results.append(entry)
        document = {
            "$schema": SARIF_SCHEMA,
            "version": "2.1.0",
            "runs": [{
                "tool": {"driver": {"name": "kartalint", "version": __version__,
                                    "informationUri": "https://github.com/kartalint/kartalint",
                                    "rules": descriptors}},
                "artifacts": [{"location": {"uri": _uri(p)}} for p in result.checked],
                "results": results,
                "columnKind": "unicodeCodePoints",
            }],
        }
        self.write(json.dumps(document, indent=2) + "\n")
