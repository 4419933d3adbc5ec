"""`kartalint lint`."""

from __future__ import annotations

import argparse
import os
import sys

from kartalint.cli.common import (
    EXIT_FAIL,
    EXIT_OK,
    EXIT_USAGE,
    add_color_option,
    add_config_option,
    project_of,
    use_color,
)
from kartalint.errors import ConfigError, UsageError
from kartalint.report import format_choices, format_name, make_reporter

HELP = "check definitions (schema, upstream validator, jq, best practices)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="files or directories ('-' for stdin; default: the project's definitions and fixtures)",
    )
    parser.add_argument(
        "-f",
        "--format",
        choices=format_choices("lint"),
        default="auto",
        help="output format (default: github inside GitHub Actions, else text)",
    )
    parser.add_argument("--strict", action="store_true", help="exit 1 on warnings too")
    add_config_option(parser)
    parser.add_argument("--disable", action="append", default=[], metavar="RULE", help="disable a rule (repeatable)")
    parser.add_argument("-o", "--output", help="write the report to a file instead of stdout")
    add_color_option(parser)
    parser.add_argument("-q", "--quiet", action="store_true", help="no summary line on stderr")
    parser.add_argument(
        "--crd",
        action="append",
        default=[],
        metavar="FILE",
        help="CRD files or directories: check the paths expressions read against the root kind's schema (repeatable)",
    )
    parser.add_argument(
        "-j",
        "--jobs",
        type=int,
        metavar="N",
        help="worker processes (default or 0: every CPU for more than 50 files, else 1; at most the number of "
        "files and twice the CPUs); the output is the same",
    )
    parser.add_argument(
        "--allow-empty",
        action="store_true",
        help="exit 0 when the files hold no Karta definition or fixture (for hooks that pass every YAML file)",
    )
    parser.add_argument(
        "--strict-files",
        action="store_true",
        help="report load problems of every file; by default files that hold neither a Karta nor a fixture "
        "document (and do not mention kind: Karta), and Go/Helm templates, are skipped and counted",
    )
    parser.add_argument(
        "--baseline", metavar="FILE", help="report only findings that are not in this baseline (--write-baseline)"
    )
    parser.add_argument(
        "--write-baseline",
        metavar="FILE",
        help="record today's findings in FILE (by fingerprint, positions left out) and exit 0",
    )


def run(args: argparse.Namespace) -> int:
    from kartalint.lint import lint_paths
    from kartalint.load.discovery import missing_reason
    from kartalint.report.output import report_output

    if args.baseline and args.write_baseline:
        raise UsageError("--baseline and --write-baseline: give one")
    project = project_of(args)
    config = project.config
    for path in args.crd:
        if not os.path.exists(path):
            raise ConfigError(f"--crd {path}: no such file or directory")
    config.crds = list(config.crds) + list(args.crd)
    if config.crds:
        from kartalint.lint.crds import crd_index

        problems = crd_index(config.crds).problems
        for problem in problems:
            sys.stderr.write(f"kartalint: error: CRD {problem}\n")
        if problems:
            return EXIT_USAGE
    paths = list(args.paths)
    if not paths:
        paths = project.definition_paths() + [p for p in project.fixture_paths() if p not in project.definition_paths()]
        for note in project.notes:  # (-q leaves every note out: cli.main)
            sys.stderr.write(f"kartalint: note: {note}\n")
        if not paths:
            where = (
                f"in the project at {project.root}"
                if project.in_project
                else "here: not inside a project (no .kartalint.yaml, not a git work tree), so nothing is searched"
            )
            if args.allow_empty:
                sys.stderr.write(f"kartalint: note: no PATH given and no Karta definition found {where}\n")
                return EXIT_OK
            raise ConfigError(f"no PATH given and no Karta definition found {where}")
    baseline = None
    if args.baseline:
        from kartalint.lint.baseline import Baseline

        baseline = Baseline.read(args.baseline)
    if args.jobs is not None and args.jobs < 0:
        raise ConfigError(f"--jobs must be 0 (automatic) or more (got {args.jobs})")
    name = format_name(args.format)
    color = use_color(args.color, None if args.output else sys.stdout)
    # the report whole or not at all, its lines safe to show (report.output)
    with report_output(args.output, commands=name == "github", colour=color) as stream:
        result = lint_paths(paths, config, strict_files=args.strict_files, jobs=args.jobs)
        baselined = stale = 0
        if baseline is not None:
            result.findings, baselined, stale = baseline.filter(
                result.findings, project.root, [*result.checked, *result.templates]
            )
        if args.write_baseline:
            from kartalint.lint.baseline import render
            from kartalint.report.output import write_report

            write_report(args.write_baseline, render(result.findings, project.root))
        for path in result.missing:
            sys.stderr.write(f"kartalint: error: {missing_reason(path)}\n")
        for message in result.skipped_paths:
            sys.stderr.write(f"kartalint: warning: {message}\n")
        root = project.root if name == "sarif" else None  # SARIF locations start at the project root
        make_reporter(name, stream, color=color, project_root=root).report(result)
    if not args.quiet:
        counts = result.counts
        skipped = f", {result.skipped_documents} other document(s) skipped" if result.skipped_documents else ""
        if result.skipped_files:
            skipped += f", {len(result.skipped_files)} file(s) without Karta skipped"
        if result.templates:
            skipped += f", {len(result.templates)} template(s) skipped"
        suppressed = f", {result.suppressed} suppressed" if result.suppressed else ""
        if baseline is not None:
            suppressed += f", {baselined} in the baseline" + (
                f", {stale} stale baseline entr{'y' if stale == 1 else 'ies'} (fixed since: rewrite it with "
                "--write-baseline)"
                if stale
                else ""
            )
        fixtures = f", {result.fixture_documents} fixture(s)" if result.fixture_documents else ""
        sys.stderr.write(
            f"kartalint: {len(result.checked)} file(s), {result.karta_documents} Karta definition(s){fixtures}{skipped}: "
            f"{counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} info{suppressed}\n"
        )
    if args.write_baseline:
        sys.stderr.write(f"kartalint: wrote {args.write_baseline}: {len(result.findings)} finding(s) recorded\n")
        return EXIT_USAGE if result.missing else EXIT_OK
    if result.karta_documents == 0 and result.fixture_documents == 0 and not result.missing:
        if result.exit_code(strict=args.strict) == EXIT_FAIL:  # the findings already say why nothing was checked
            return result.exit_code(strict=args.strict)
        if args.allow_empty:
            return EXIT_FAIL if result.exit_code(strict=args.strict) == EXIT_FAIL else EXIT_OK
        sys.stderr.write(
            "kartalint: error: no Karta definition or fixture found in the given paths (nothing was checked)\n"
        )
    return result.exit_code(strict=args.strict)
