"""GitHub Actions workflow commands (``::error file=...,line=...::message``)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from kartalint.model import Finding, Severity
from kartalint.report.base import Reporter

if TYPE_CHECKING:  # the whole a reporter is given, for the type checker only
    from kartalint.lint.result import LintResult

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    """Text as the message of a workflow command may hold it: ``%``, CR and LF percent-encoded."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Text as a property value of a workflow command may hold it: ``escape_data``, and ``:`` and ``,`` encoded."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workspace_root() -> str | None:
    """The repository root GitHub Actions checked out (``GITHUB_WORKSPACE``), when running there."""
    workspace = os.environ.get("GITHUB_WORKSPACE")
    return os.path.realpath(workspace) if workspace and os.path.isdir(workspace) else None


def workflow_file(path: str) -> str:
    """A file as annotations must name it: relative to the repository root (``GITHUB_WORKSPACE``)
    when it is inside it, so that a project in a sub-folder of a monorepo (the Action's
    ``working-directory``) annotates the right file; else as given."""
    workspace = workspace_root()
    if not workspace or path in ("-", "<stdin>"):
        return path
    real = os.path.realpath(path)
    if real.startswith(workspace.rstrip(os.sep) + os.sep):
        return os.path.relpath(real, workspace).replace(os.sep, "/")
    return path


class GithubReporter(Reporter):
    """``--format github``: one workflow command per finding (``::error``, ``::warning`` or
    ``::notice`` by severity) annotating its file and range, titled ``kartalint <rule>``, its hint on a
    second line of the message."""

    name = "github"

    def finding(self, finding: Finding) -> None:
        """Write the finding's workflow command."""
        props = [
            f"file={escape_property(workflow_file(finding.file))}",
            f"line={finding.line}",
            f"col={finding.column}",
            f"endLine={finding.end_line}",
            f"endColumn={finding.end_column}",
            f"title={escape_property('kartalint ' + finding.rule)}",
        ]
        message = finding.message + (f"\nhint: {finding.hint}" if finding.hint else "")
        self.write(f"::{_LEVEL[finding.severity]} {','.join(props)}::{escape_data(message)}\n")

    def finish(self, result: LintResult) -> None:
        """Stale baseline entries, when there are any, as one notice without a file."""
        if result.stale:
            self.write(f"::notice title={escape_property('kartalint baseline')}::{escape_data(result.stale_note())}\n")
