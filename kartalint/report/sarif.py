"""SARIF 2.1.0 for GitHub code scanning and other SARIF consumers, for ``lint`` and ``test``.

One ``SarifLog`` builds one run: artifact URIs relative to the project root (``%SRCROOT%``),
percent-encoded (RFC 3986); each artifact listed once; results with ``partialFingerprints``
that do not depend on line numbers (rule, file, the finding's place in the document and its
message), so code scanning follows an alert across commits; ``automationDetails.id`` per
command; ``invocations`` with ``executionSuccessful`` and a notification for every file that was
skipped or could not be read; the rules of the registry with their docs, levels and, for the
security rules, ``security-severity``.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import sys
import urllib.parse
from collections import Counter
from typing import TYPE_CHECKING, Any

from kartalint import __version__
from kartalint.load.bounded import ParseError, json_loads
from kartalint.model import Finding, Severity, format_path
from kartalint.report.base import Reporter
from kartalint.report.github import workspace_root
from kartalint.report.output import OutputError, write_report
from kartalint.rules import registry
from kartalint.scaffold.release import semantic_version

if TYPE_CHECKING:  # the whole a reporter is given, for the type checker only
    from kartalint.lint.result import LintResult

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"
REPOSITORY = "https://github.com/kartalint/kartalint"
RULES_DOC = f"{REPOSITORY}/blob/main/docs/rules.md"
FINGERPRINT = "kartalint/v1"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def rule_descriptor(rule: registry.Rule) -> dict[str, Any]:
    """``reportingDescriptor`` of a rule: kartalint's (documented in docs/rules.md), or one of the
    configuration's house rules or a plugin's (``origin``: its why, its fix and where it is
    declared, no link to kartalint's documentation)."""
    if rule.origin:
        return _own_descriptor(rule)
    fix = f"\n\nFix: {rule.hint}." if rule.hint else ""
    properties: dict[str, Any] = {"category": rule.category, "tags": [rule.category], "precision": "very-high"}
    if rule.security_severity:
        properties["tags"] = [rule.category, "security"]
        properties["precision"] = "high"
        properties["security-severity"] = rule.security_severity
    return {
        "id": rule.id,
        "name": "".join(part.capitalize() for part in rule.id.split("-")),
        "shortDescription": {"text": rule.summary.split(". ")[0].rstrip(".") + "."},
        "fullDescription": {"text": rule.summary},
        "help": {
            "text": f"{rule.summary}{fix}\n\nSee {RULES_DOC}#{rule.id}",
            "markdown": f"**{rule.id}** ({rule.category}, {rule.severity}): {rule.summary}{fix}\n\n"
            f"[Rule documentation]({RULES_DOC}#{rule.id})",
        },
        "helpUri": f"{RULES_DOC}#{rule.id}",
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
        "properties": properties,
    }


def _own_descriptor(rule: registry.Rule) -> dict[str, Any]:
    """``reportingDescriptor`` of a house rule or a plugin's rule."""
    why = f"\n\nWhy: {rule.why}" if rule.why else ""
    fix = f"\n\nFix: {rule.hint}" if rule.hint else ""
    where = f"\n\nDeclared in {rule.origin}."
    return {
        "id": rule.id,
        "name": "".join(part.capitalize() for part in rule.id.split("-")),
        "shortDescription": {"text": rule.summary.split(". ")[0].rstrip(".") + "."},
        "fullDescription": {"text": f"{rule.summary}{why}".replace("\n\n", " ")},
        "help": {
            "text": f"{rule.summary}{why}{fix}{where}",
            "markdown": f"**{rule.id}** ({rule.category}, {rule.severity}): {rule.summary}{why}{fix}{where}",
        },
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
        "properties": {"category": rule.category, "tags": [rule.category], "precision": "high"},
    }


class SarifLog:
    """Collects one run of one command (``lint`` or ``test``) and renders the SARIF document."""

    def __init__(self, command: str, root: str | None = None) -> None:
        """``command``: ``lint`` or ``test`` (the run's ``automationDetails.id``); ``root``: where
        relative artifact URIs start (None: the current folder), the repository root
        (``GITHUB_WORKSPACE``) instead when the root is inside it."""

        self.command = command
        self.root = os.path.realpath(root or os.getcwd())
        workspace = workspace_root()  # code scanning reads locations relative to the repository root
        if workspace and self.root.startswith(workspace.rstrip(os.sep) + os.sep):
            self.root = workspace
        self.artifacts: dict[str, dict[str, Any]] = {}  # uri -> artifact (insertion order = index)
        self._index: dict[str, int] = {}
        self.results: list[dict[str, Any]] = []
        self.notifications: list[dict[str, Any]] = []
        self.successful = True
        self.properties: dict[str, Any] = {}  # the run's property bag (the baseline's counts)
        self._seen: Counter = Counter()
        self._own: list[dict[str, Any]] = []  # descriptors of the house rules (add_rules)

    def add_rules(self, rules: list[registry.Rule]) -> None:
        """Describe ``rules`` too (the configuration's house rules), after kartalint's."""
        known = {d["id"] for d in (*_DESCRIPTORS, *self._own)}
        self._own.extend(rule_descriptor(rule) for rule in rules if rule.id not in known)

    # -- locations ----------------------------------------------------------------------------------
    def artifact_location(self, path: str) -> dict[str, Any]:
        """``artifactLocation`` of a file: relative to ``%SRCROOT%`` inside the project, an
        absolute ``file:`` URI outside it; the artifact is listed once."""
        if path in ("-", "<stdin>"):
            location: dict[str, Any] = {"uri": "stdin"}
        else:
            real = os.path.realpath(path)
            if real == self.root or real.startswith(self.root.rstrip(os.sep) + os.sep):
                relative = os.path.relpath(real, self.root).replace(os.sep, "/")
                location = {"uri": urllib.parse.quote(relative, safe="/"), "uriBaseId": SRCROOT}
            else:
                location = {"uri": pathlib.Path(real).as_uri()}
        uri = location["uri"]
        if uri not in self.artifacts:
            self._index[uri] = len(self.artifacts)
            self.artifacts[uri] = {"location": dict(location)}
        return dict(location, index=self._index[uri])

    def location(
        self, path: str, line: int = 1, column: int = 1, end_line: int = 0, end_column: int = 0
    ) -> dict[str, Any]:
        """A result's ``location``: the file's ``artifactLocation`` and its region, start at least 1:1;
        the end only when it is given and not before the start."""
        region = {"startLine": max(1, line), "startColumn": max(1, column)}
        if end_line >= line and end_column > 0 and (end_line, end_column) >= (line, column):
            region.update(endLine=end_line, endColumn=end_column)
        return {"physicalLocation": {"artifactLocation": self.artifact_location(path), "region": region}}

    # -- content ------------------------------------------------------------------------------------
    def add_result(
        self,
        rule_id: str,
        level: str,
        message: str,
        path: str,
        context: str,
        line: int = 1,
        column: int = 1,
        end_line: int = 0,
        end_column: int = 0,
    ) -> None:
        """One result; ``context`` is what identifies it without line numbers (a path in the
        document, a field of the fixture, a case id)."""
        location = self.location(path, line, column, end_line, end_column)
        uri = location["physicalLocation"]["artifactLocation"]["uri"]
        key = f"{rule_id}\x1f{uri}\x1f{context}\x1f{message}"
        self._seen[key] += 1  # the same finding twice in a file: the second gets its own print
        digest = hashlib.sha256(f"{key}\x1f{self._seen[key]}".encode("utf-8", "surrogatepass")).hexdigest()[:32]
        entry: dict[str, Any] = {
            "ruleId": rule_id,
            "level": level,
            "message": {"text": message},
            "locations": [location],
            "partialFingerprints": {FINGERPRINT: digest},
        }
        if rule_id in _RULE_INDEX:
            entry["ruleIndex"] = _RULE_INDEX[rule_id]
        self.results.append(entry)

    def add_finding(self, finding: Finding) -> None:
        """A lint finding as a result: its rule, level, message (with the hint), range, and its path in
        the document as what identifies it across commits."""
        message = finding.message + (f" (hint: {finding.hint})" if finding.hint else "")
        self.add_result(
            finding.rule,
            LEVELS[finding.severity],
            message,
            finding.file,
            format_path(finding.path),
            finding.line,
            finding.column,
            finding.end_line,
            finding.end_column,
        )

    def notify(self, level: str, message: str, path: str | None = None) -> None:
        """A tool notification (a file skipped or unreadable); ``error`` marks the run unsuccessful."""
        note: dict[str, Any] = {"level": level, "message": {"text": message}}
        if path is not None:
            note["locations"] = [{"physicalLocation": {"artifactLocation": self.artifact_location(path)}}]
        self.notifications.append(note)
        if level == "error":
            self.successful = False

    def document(self) -> dict[str, Any]:
        """The SARIF log as data: ``$schema``, ``version`` 2.1.0 and one run (the tool with every rule
        of the registry and the house rules added, ``automationDetails``, ``originalUriBaseIds``,
        ``invocations``, ``artifacts``, ``results``)."""
        own = {d["id"]: len(_DESCRIPTORS) + i for i, d in enumerate(self._own)}
        for result in self.results:
            if "ruleIndex" not in result and result["ruleId"] in own:
                result["ruleIndex"] = own[result["ruleId"]]
        run: dict[str, Any] = {
            "tool": {
                "driver": {
                    "name": "kartalint",
                    "version": __version__,
                    "semanticVersion": semantic_version(__version__),
                    "informationUri": REPOSITORY,
                    "rules": [*_DESCRIPTORS, *self._own],
                }
            },
            "automationDetails": {"id": f"kartalint/{self.command}/"},
            "originalUriBaseIds": {SRCROOT: {"uri": pathlib.Path(self.root).as_uri().rstrip("/") + "/"}},
            "invocations": [{"executionSuccessful": self.successful, "toolExecutionNotifications": self.notifications}],
            "artifacts": list(self.artifacts.values()),
            "results": self.results,
            "columnKind": "unicodeCodePoints",
        }
        if self.properties:
            run["properties"] = self.properties
        return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}

    def render(self) -> str:
        """The SARIF log as indented JSON text (non-ASCII characters kept), ending in a newline."""
        return json.dumps(self.document(), indent=2, ensure_ascii=False) + "\n"


_DESCRIPTORS = [rule_descriptor(rule) for rule in registry.RULES.values()]
_RULE_INDEX = {rule.id: i for i, rule in enumerate(registry.RULES.values())}


class SarifReporter(Reporter):
    """``kartalint lint --format sarif``."""

    name = "sarif"

    def start(self) -> None:
        """Begin a ``lint`` run whose locations are relative to ``project_root``."""
        self.log = SarifLog("lint", self.project_root)

    def finding(self, finding: Finding) -> None:
        """Add the finding as a result."""
        self.log.add_finding(finding)

    def finish(self, result: LintResult) -> None:
        """List every checked file as an artifact; describe the house rules; notify each missing
        path (an error: the run is unsuccessful), skipped path (warning) and skipped file (note);
        write the log."""
        self.log.add_rules(result.house_rules)
        for path in result.checked:
            self.log.artifact_location(path)
        for path in result.missing:
            self.log.notify("error", f"{path}: no such file or directory", None)
        for message in result.skipped_paths:
            self.log.notify("warning", message)
        for path in result.skipped_files:
            self.log.notify("note", "skipped: the file holds no Karta definition or fixture", path)
        counts = result.baseline_counts
        if counts is not None:  # the baselined findings are no results: code scanning opens no alert
            self.log.properties["baseline"] = counts
            if result.stale:
                self.log.notify("note", result.stale_note())
        self.write(self.log.render())


MAX_LOG_BYTES = 256 * 1024 * 1024


def merge_logs(paths: list[str]) -> dict[str, Any]:
    """One SARIF log holding the runs of several (``lint`` and ``test`` of one CI job; each run
    has its own ``automationDetails.id``, so code scanning keeps them apart). Missing files are
    left out."""

    runs: list[Any] = []
    for path in paths:
        if os.path.isfile(path):
            try:
                with open(path, encoding="utf-8") as handle:
                    log = json_loads(handle.read(MAX_LOG_BYTES + 1))
            except (OSError, UnicodeDecodeError, ParseError):
                continue  # (not a log kartalint wrote: as a missing one)
            found = log.get("runs") if isinstance(log, dict) else None
            runs.extend(found if isinstance(found, list) else [])
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": runs}


def failed_run_log(messages: list[str], root: str | None = None) -> dict[str, Any]:
    """A log with one unsuccessful run whose notifications say why kartalint wrote no results (a
    configuration error): code scanning accepts it, where a log with ``"runs": []`` is refused."""
    log = SarifLog("lint", root)
    for message in messages or ["kartalint wrote no SARIF run (see the job's log)"]:
        log.notify("error", message)
    return log.document()


def _main(argv: list[str]) -> int:
    """``python -m kartalint.report.sarif OUT IN... [--notify FILE]...``: merge SARIF logs (used by
    the Action). When no input holds a run, the lines of the ``--notify`` files (the commands'
    stderr) become the error notifications of one unsuccessful run."""
    notify: list[str] = []
    paths: list[str] = []
    args = iter(argv)
    for arg in args:
        if arg == "--notify":
            notify.append(next(args, ""))
        else:
            paths.append(arg)
    if len(paths) < 2:
        print("usage: python -m kartalint.report.sarif OUT IN... [--notify FILE]...")
        return 2
    merged = merge_logs(paths[1:])
    if not merged["runs"]:
        messages = []
        for path in notify:
            if os.path.isfile(path):
                with open(path, encoding="utf-8", errors="replace") as handle:
                    messages += [line.strip() for line in handle if line.strip()]
        merged = failed_run_log(messages, os.getcwd())

    try:  # (the guarded writer: never through a symbolic link out of the project; ASCII, so its guard changes nothing)
        write_report(paths[0], json.dumps(merged, indent=2) + "\n")
    except OutputError as exc:
        sys.stderr.write(f"kartalint: error: {exc}\n")
        return 2
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(_main(sys.argv[1:]))
