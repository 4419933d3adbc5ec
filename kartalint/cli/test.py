"""`kartalint test`."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

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
    say_index,
    usage_reports,
    use_color,
)
from kartalint.errors import ConfigError, UsageError
from kartalint.report import format_choices

HELP = "run definitions against fixtures, recordings and predictions; diff statuses, roles, replicas, GPUs"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="fixture files, recordings or directories (default: the project's fixtures, docs/fixtures.md)",
    )
    parser.add_argument(
        "--definitions",
        action="append",
        default=[],
        metavar="DIR",
        help="definitions to resolve fixtures and recordings against, before the project's and the bundled catalog (repeatable)",
    )
    add_config_option(parser)
    parser.add_argument(
        "-f",
        "--format",
        choices=format_choices("test"),
        default="text",
        help="output format (github: one annotation per differing field, at its line in the fixture; "
        "sarif: code scanning results at the same places)",
    )
    parser.add_argument("-o", "--output", help="write the report to a file instead of stdout")
    parser.add_argument(
        "--junit-xml", metavar="FILE", help="also write a JUnit XML report to FILE (whatever --format is)"
    )
    parser.add_argument("--sarif", metavar="FILE", help="also write a SARIF report to FILE (whatever --format is)")
    parser.add_argument(
        "-k",
        dest="pattern",
        metavar="PATTERN",
        help="run only cases whose id or name contains PATTERN (or matches it, with * ? [)",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="show every case with its details")
    add_quiet_option(parser, "only failures, errors and the summary (text format)")
    add_color_option(parser)
    parser.add_argument(
        "--update",
        nargs="?",
        const="failed",
        metavar="all",
        help="write observed values into the expect blocks of failing fixtures (`--update=all`: every fixture)",
    )
    parser.add_argument(
        "--force", action="store_true", help="let --update write when CI=true (otherwise it runs as --check)"
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="with --update: write nothing, fail on every fixture --update would rewrite",
    )
    parser.add_argument(
        "--require-fixtures",
        action="store_true",
        help="fail for every definition that no case exercises (without it, a project with no fixture yet passes with a note)",
    )
    parser.add_argument(
        "--allow-empty",
        action="store_true",
        help="exit 0 when the given paths hold no test case (as `lint --allow-empty`)",
    )
    parser.add_argument(
        "--catalog",
        action="store_true",
        help="run the bundled catalog's own fixtures against the bundled catalog (what ships in the package)",
    )
    parser.add_argument(
        "--min-coverage",
        type=float,
        metavar="PERCENT",
        help="fail when a definition's status-mapping coverage is below PERCENT",
    )
    parser.add_argument(
        "--mutants",
        action="store_true",
        help="after the cases, mutation testing: change each project definition in small ways and report the "
        "changes no case notices (mutant-survived) and the mutation score (docs/fixtures.md)",
    )
    parser.add_argument(
        "--mutants-limit", type=_positive, metavar="N", help="with --mutants: at most N mutants per definition"
    )
    parser.add_argument(
        "--mutants-seed",
        type=int,
        metavar="SEED",
        help="with --mutants-limit: a random sample drawn with SEED (default: evenly spaced, no randomness)",
    )
    parser.add_argument(
        "--min-mutation-score",
        type=_share,
        metavar="SCORE",
        help="fail when a definition's mutation score (0 to 1) is below SCORE (implies --mutants; "
        "default: `mutants: {min-score}` of the configuration)",
    )
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds allowed per jq evaluation (default: 10)")
    add_allow_outside_option(parser)
    parser.add_argument(
        "--known-failures",
        metavar="FILE",
        help="YAML list of {id, reason}: cases (id suffix) expected to fail, e.g. upstream definitions on recordings",
    )


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number from 1 up, not {text!r}")
    return value


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be a number from 0 to 1 (a share of killed mutants), not {text!r}")
    return value


def run(args: argparse.Namespace) -> int:
    from kartalint.load.discovery import missing_reason
    from kartalint.report.output import open_report
    from kartalint.testing.cases import discover
    from kartalint.testing.run import mark_known_failures, select

    paths = list(args.paths)
    if args.update not in (None, "failed", "all"):  # `--update PATH`: the path belongs to the paths
        paths.insert(0, args.update)
        args.update = "failed"
    if args.update and not args.check and os.environ.get("CI", "").lower() in ("true", "1") and not args.force:
        sys.stderr.write(
            "kartalint: note: CI=true: --update runs as --check and writes nothing (add --force to write)\n"
        )
        args.check = True
    check_timeout(args.timeout)
    project = project_of(args)
    defaults = not paths and not args.catalog  # the project's fixtures, not paths given
    if args.catalog:
        from kartalint.load.definitions import DefinitionIndex, bundled_catalog, bundled_fixtures

        catalog, fixtures = bundled_catalog(), bundled_fixtures()
        if catalog is None or fixtures is None:
            raise UsageError("this installation of kartalint holds no catalog fixtures")
        paths = paths or [fixtures]
        index = DefinitionIndex.from_paths([catalog], origin="bundled")
    else:
        if not paths:
            paths = project.fixture_paths()
            if not project.in_project and not args.allow_empty:
                raise UsageError(
                    "no PATH given and not inside a project (no .kartalint.yaml, not a git work tree): "
                    "give the fixtures to run"
                )
        index = project.index(args.definitions)
    say_index(index, project=project, verbose=args.verbose)
    found = discover(
        paths,
        index,
        project.fixture_roots(),
        project.confinement(paths, args.allow_outside),
        excluded=project.excluded,
    )
    for path in found.missing:
        sys.stderr.write(f"kartalint: error: {missing_reason(path)}\n")
    for message in found.skipped:
        sys.stderr.write(f"kartalint: warning: {message}\n")
    for message in found.notes:
        sys.stderr.write(f"kartalint: note: {message}\n")
    if found.missing:
        usage_reports(args, project.root, [missing_reason(path) for path in found.missing])
        return EXIT_USAGE
    cases = select(found.cases, args.pattern)
    if args.known_failures:
        try:
            mark_known_failures(cases, args.known_failures)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
    # the first day of a project: definitions, no fixture yet (a note, not a failure, unless --require-fixtures)
    first_day = defaults and not found.cases
    if not cases and not first_day and not args.allow_empty:
        what = f" matching -k {args.pattern!r}" if args.pattern and found.cases else ""
        message = (
            f"no test case found in {', '.join(paths)}{what} "
            f"({found.files} file(s) searched; fixtures have kind: KartaFixture)"
        )
        sys.stderr.write(f"kartalint: error: {message}\n")
        usage_reports(args, project.root, [message])
        return EXIT_USAGE
    if not cases:
        judged_count = len(index.of_origin("explicit", "project"))
        where = f"the project at {project.root}" if first_day else ", ".join(paths) or "the given paths"
        sys.stderr.write(
            f"kartalint: note: no fixture found in {where}: nothing was tested"
            + (f"; {judged_count} definition(s) have no fixture (definition-without-fixture)" if judged_count else "")
            + ("" if args.require_fixtures else " (--require-fixtures makes that a failure; docs/fixtures.md)")
            + "\n"
        )
    # every report whole or not at all, its lines safe to show (report.output)
    colour = use_color(args.color, None if args.output else sys.stdout)
    main_report = open_report(args.output, commands=args.format == "github", colour=colour)
    extra = [(name, open_report(path)) for name, path in (("junit", args.junit_xml), ("sarif", args.sarif)) if path]
    try:
        return _run_and_report(args, project, index, cases, main_report, extra, colour)
    finally:
        for _, output in [("", main_report), *extra]:
            output.abandon()  # (nothing left to do for a report already committed)


def _run_and_report(
    args: argparse.Namespace, project: Any, index: Any, cases: list, main_report: Any, extra: list, colour: bool
) -> int:
    from kartalint.evaluation import Evaluator
    from kartalint.report import test_reporter_class
    from kartalint.testing.run import LintCache, run_cases
    from kartalint.testing.update import update_fixtures

    lint_cache = LintCache(project.config)
    judged = index.of_origin("explicit", "project")  # never the bundled catalog: the user's definitions
    mutation = None
    with Evaluator(timeout=args.timeout) as evaluator:
        report = run_cases(cases, evaluator, lint_cache)
        if args.mutants or args.min_mutation_score is not None:
            mutation = _mutants(args, project, judged, report, evaluator)
    if (args.require_fixtures or args.min_coverage is not None) and not judged:
        sys.stderr.write(
            f"kartalint: note: the project at {project.root} has no definitions of its own: "
            "--require-fixtures and --min-coverage have nothing to judge\n"
        )
    report.judge(judged, args.require_fixtures, args.min_coverage)
    update_problems: list[str] = []
    if args.update and not args.check:  # rewrite first, so the report shows the rewritten cases as updated
        outcome = update_fixtures(report, args.update, lint_cache)
        report.mark_updated(outcome.updated_files)
        sys.stderr.write(f"kartalint: updated {outcome.updated} fixture(s) in {outcome.files} file(s)\n")
        update_problems = outcome.problems
    elif args.update:
        pending = [r for r in report.results if r.outcome == "failed" and r.case.kind == "fixture"]
        sys.stderr.write(f"kartalint: --check: {len(pending)} fixture(s) would be updated; nothing was written\n")
    for name, output in extra:  # files first: a closed stdout (`| head`) must not leave them unwritten
        test_reporter_class(name)(output.stream, project_root=project.root, mutation=mutation).report(report)
        output.commit()
    test_reporter_class(args.format)(
        main_report.stream,
        verbose=args.verbose,
        project_root=project.root,
        mutation=mutation,
        color=colour,
        quiet=args.quiet,
    ).report(report)
    main_report.commit()
    for problem in update_problems:
        sys.stderr.write(f"kartalint: error: {problem}\n")
    if update_problems:
        return EXIT_USAGE
    return EXIT_OK if report.ok and (mutation is None or mutation.ok) else EXIT_FAIL


def _mutants(args: argparse.Namespace, project: Any, judged: list, report: Any, evaluator: Any) -> Any:
    """``--mutants``: the mutation results of the project's definitions (never the bundled catalog)."""
    from kartalint.mutation.run import MutationOptions, run_mutants

    config = project.config
    options = MutationOptions(
        limit=args.mutants_limit,
        seed=args.mutants_seed,
        min_score=args.min_mutation_score if args.min_mutation_score is not None else config.mutants_min_score,
        equivalent=dict(config.mutants_equivalent),
    )
    if not judged:
        sys.stderr.write(
            f"kartalint: note: the project at {project.root} has no definitions of its own: --mutants has nothing to mutate\n"
        )
    mutation = run_mutants(report, evaluator, judged, options)
    for item in mutation.definitions:
        for mutant_id in item.stale:
            sys.stderr.write(
                f"kartalint: warning: {project.config.source}: the equivalent mutant {mutant_id!r} of {item.definition.name} "
                "is no longer a surviving mutant: remove the entry\n"
            )
    return mutation
