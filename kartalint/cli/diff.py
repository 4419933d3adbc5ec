"""`kartalint diff`."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, NamedTuple

from kartalint.cli.common import (
    add_allow_outside_option,
    add_color_option,
    add_config_option,
    add_quiet_option,
    check_timeout,
    project_of,
    use_color,
)
from kartalint.diff.changes import run_diff
from kartalint.errors import UsageError
from kartalint.load.git import GitError, repo_root
from kartalint.report import format_choices, render_document
from kartalint.report.diff import render_text
from kartalint.report.output import report_output

if TYPE_CHECKING:
    from kartalint.diff.changes import DiffReport
    from kartalint.project import Project


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``kartalint diff``: what a definition change does to every fixture, base against head."""
    parser.add_argument(
        "paths", nargs="*", metavar="PATH", help="fixtures and recordings to evaluate (default: the project's fixtures)"
    )
    add_config_option(parser)
    parser.add_argument(
        "--base",
        required=True,
        metavar="REF",
        help="git revision with the definitions before the change (e.g. origin/main)",
    )
    parser.add_argument("--head", metavar="REF", help="git revision after the change (default: the working tree)")
    parser.add_argument("-f", "--format", choices=format_choices("diff"), default="text")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the report to a file instead of stdout")
    parser.add_argument("--fail-on-change", action="store_true", help="exit 1 when any workload or definition changed")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds allowed per jq evaluation (default: 10)")
    add_allow_outside_option(parser)
    add_quiet_option(parser, "the report only")
    add_color_option(parser)


class DiffRequest(NamedTuple):
    """What ``kartalint diff`` was asked to do."""

    paths: tuple[str, ...]
    base: str
    head: str | None
    format: str
    output: str | None
    color: str
    fail_on_change: bool
    timeout: float
    allow_outside: tuple[str, ...]

    @classmethod
    def parse(cls, args: argparse.Namespace) -> DiffRequest:
        """The request of the parsed command line."""
        check_timeout(args.timeout)
        return cls(
            paths=tuple(args.paths),
            base=args.base,
            head=args.head,
            format=args.format,
            output=args.output,
            color=args.color,
            fail_on_change=args.fail_on_change,
            timeout=args.timeout,
            allow_outside=tuple(args.allow_outside),
        )


def run(args: argparse.Namespace) -> int:
    """``kartalint diff`` with parsed ``args``: what a definition change does to every fixture, base against head; its exit code."""
    request = DiffRequest.parse(args)
    project = project_of(args)
    paths = list(request.paths) or project.fixture_paths()
    if not paths:
        sys.stderr.write(
            f"kartalint: note: no fixture in the project at {project.root}: only definition changes are shown\n"
        )
    report = _diff_and_report(request, project, paths)
    for note in report.notes:
        sys.stderr.write(f"kartalint: note: {note}\n")
    for warning in report.warnings:
        sys.stderr.write(f"kartalint: warning: {warning}\n")
    for problem in report.problems:
        sys.stderr.write(f"kartalint: error: {problem}\n")
    return report.exit_code(request.fail_on_change)


def _diff_and_report(request: DiffRequest, project: Project, paths: list[str]) -> DiffReport:
    """The cases under ``paths`` evaluated at both revisions, the report written (whole or not at
    all: report.output; not at all when git fails)."""
    colour = request.format == "text" and use_color(request.color, None if request.output else sys.stdout)
    confinement = project.confinement(request.paths, request.allow_outside)
    with report_output(request.output, colour=colour) as output:
        try:
            report = run_diff(
                repo_root(),
                request.base,
                request.head,
                paths,
                project,
                timeout=request.timeout,
                confinement=confinement,
            )
        except GitError as exc:  # (raised: the report file is not written)
            raise UsageError(str(exc)) from None
        output.write(render_text(report, colour=True) if colour else render_document("diff", request.format, report))
    return report
