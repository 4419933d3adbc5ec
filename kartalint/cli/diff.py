"""`kartalint diff`."""

from __future__ import annotations

import argparse
import sys

from kartalint.cli.common import (
    EXIT_FAIL,
    EXIT_OK,
    EXIT_USAGE,
    add_allow_outside_option,
    add_color_option,
    add_config_option,
    add_quiet_option,
    check_timeout,
    project_of,
    use_color,
)
from kartalint.errors import UsageError
from kartalint.report import format_choices

HELP = "what a definition change does to every fixture and recording (base vs head revision)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
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
    parser.add_argument("-o", "--output", help="write the report to a file instead of stdout")
    parser.add_argument("--fail-on-change", action="store_true", help="exit 1 when any workload or definition changed")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds allowed per jq evaluation (default: 10)")
    add_allow_outside_option(parser)
    add_quiet_option(parser, "the report only")
    add_color_option(parser)


def run(args: argparse.Namespace) -> int:
    from kartalint.diff.changes import run_diff
    from kartalint.load.git import GitError, repo_root
    from kartalint.report import render_document
    from kartalint.report.diff import render_text
    from kartalint.report.output import report_output

    check_timeout(args.timeout)
    project = project_of(args)
    paths = args.paths or project.fixture_paths()
    if not paths:
        sys.stderr.write(
            f"kartalint: note: no fixture in the project at {project.root}: only definition changes are shown\n"
        )
    colour = args.format == "text" and use_color(args.color, None if args.output else sys.stdout)
    with report_output(args.output, colour=colour) as output:  # the report whole or not at all (report.output)
        try:
            root = repo_root()
            report = run_diff(
                root,
                args.base,
                args.head,
                paths,
                project,
                timeout=args.timeout,
                confinement=project.confinement(args.paths, args.allow_outside),
            )
        except GitError as exc:  # (raised: the report file is not written)
            raise UsageError(str(exc)) from None
        output.write(render_text(report, colour=True) if colour else render_document("diff", args.format, report))
    for note in report.notes:
        sys.stderr.write(f"kartalint: note: {note}\n")
    for warning in report.warnings:
        sys.stderr.write(f"kartalint: warning: {warning}\n")
    for problem in report.problems:
        sys.stderr.write(f"kartalint: error: {problem}\n")
    if report.problems:
        return EXIT_USAGE
    if args.fail_on_change and (report.changes or report.definitions):
        return EXIT_FAIL
    return EXIT_OK
