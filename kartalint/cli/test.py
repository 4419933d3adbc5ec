"""`kartalint test`: the options as one ``TestRequest``, the cases found and selected, the run (and
its mutants, its updates), the reports; the exit code is the outcome's."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from kartalint.cli import EXIT_FAIL, EXIT_OK, EXIT_USAGE
from kartalint.cli.common import (
    add_allow_outside_option,
    add_color_option,
    add_config_option,
    add_quiet_option,
    check_timeout,
    project_of,
    say_index,
    use_color,
)
from kartalint.errors import ConfigError, UsageError
from kartalint.evaluation import Evaluator
from kartalint.lint.paths import exclusion_notes
from kartalint.load.definitions import DefinitionIndex, bundled_catalog, bundled_fixtures
from kartalint.load.discovery import missing_reason
from kartalint.mutation.run import MutationOptions, run_mutants
from kartalint.report import format_choices, test_reporter_class
from kartalint.report.junit import usage_junit
from kartalint.report.output import open_report, write_report
from kartalint.report.sarif import SarifLog
from kartalint.testing.cases import discover
from kartalint.testing.run import LintCache, mark_known_failures, run_cases, select
from kartalint.testing.update import update_fixtures

if TYPE_CHECKING:
    from kartalint.evaluation import Evaluator
    from kartalint.load.definitions import DefinitionFile, DefinitionIndex
    from kartalint.mutation.run import MutationOptions
    from kartalint.mutation.score import MutationRun
    from kartalint.project import Config, Project
    from kartalint.testing.cases import Case, Discovery
    from kartalint.testing.run import LintCache, TestRun


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``kartalint test``: the fixtures' results."""
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
    _add_output_options(parser)
    _add_selection_options(parser)
    _add_update_options(parser)
    _add_verdict_options(parser)
    _add_mutation_options(parser)
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds allowed per jq evaluation (default: 10)")
    add_allow_outside_option(parser)
    parser.add_argument(
        "--known-failures",
        metavar="FILE",
        help="YAML list of {id, reason}: cases (id suffix) expected to fail, e.g. upstream definitions on recordings",
    )


def _add_output_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-f",
        "--format",
        choices=format_choices("test"),
        default="text",
        help="output format (github: one annotation per differing field, at its line in the fixture; "
        "sarif: code scanning results at the same places)",
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write the report to a file instead of stdout")
    parser.add_argument(
        "--junit-xml", metavar="FILE", help="also write a JUnit XML report to FILE (whatever --format is)"
    )
    parser.add_argument("--sarif", metavar="FILE", help="also write a SARIF report to FILE (whatever --format is)")


def _add_selection_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-k",
        dest="pattern",
        metavar="PATTERN",
        help="run only cases whose id or name contains PATTERN (or matches it, with * ? [)",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="show every case with its details")
    add_quiet_option(parser, "only failures, errors and the summary (text format)")
    add_color_option(parser)


def _add_update_options(parser: argparse.ArgumentParser) -> None:
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


def _add_verdict_options(parser: argparse.ArgumentParser) -> None:
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


def _add_mutation_options(parser: argparse.ArgumentParser) -> None:
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


class TestRequest(NamedTuple):
    """What ``kartalint test`` was asked to do."""

    paths: tuple[str, ...]
    definitions: tuple[str, ...]
    catalog: bool
    pattern: str | None
    known_failures: str | None
    allow_outside: tuple[str, ...]
    allow_empty: bool
    update: str | None  # "failed" or "all"
    check: bool
    require_fixtures: bool
    min_coverage: float | None
    mutants: bool
    mutants_limit: int | None
    mutants_seed: int | None
    min_mutation_score: float | None
    timeout: float
    format: str
    output: str | None
    junit_xml: str | None
    sarif: str | None
    verbose: bool
    quiet: bool
    color: str

    @classmethod
    def parse(cls, args: argparse.Namespace) -> TestRequest:
        """The request of the parsed command line."""
        paths, update, check = _update_mode(args)
        check_timeout(args.timeout)
        return cls(
            paths=paths,
            definitions=tuple(args.definitions),
            catalog=args.catalog,
            pattern=args.pattern,
            known_failures=args.known_failures,
            allow_outside=tuple(args.allow_outside),
            allow_empty=args.allow_empty,
            update=update,
            check=check,
            require_fixtures=args.require_fixtures,
            min_coverage=args.min_coverage,
            mutants=args.mutants or args.min_mutation_score is not None,
            mutants_limit=args.mutants_limit,
            mutants_seed=args.mutants_seed,
            min_mutation_score=args.min_mutation_score,
            timeout=args.timeout,
            format=args.format,
            output=args.output,
            junit_xml=args.junit_xml,
            sarif=args.sarif,
            verbose=args.verbose,
            quiet=args.quiet,
            color=args.color,
        )

    @property
    def defaults(self) -> bool:
        """No PATH and no ``--catalog``: the project's fixtures are run."""
        return not self.paths and not self.catalog

    def mutation_options(self, config: Config) -> MutationOptions:
        """The options of ``--mutants``: the command line's, then the configuration's ``mutants:``."""
        score = self.min_mutation_score if self.min_mutation_score is not None else config.mutants_min_score
        return MutationOptions(
            self.mutants_limit, self.mutants_seed, score, dict(config.mutants_equivalent), tuple(config.crds)
        )


def _update_mode(args: argparse.Namespace) -> tuple[tuple[str, ...], str | None, bool]:
    """(paths, ``--update`` mode, ``--check``): ``--update PATH`` gives PATH back to the paths;
    with ``CI=true``, ``--update`` only checks unless ``--force``."""
    paths, update, check = list(args.paths), args.update, args.check
    if update not in (None, "failed", "all"):  # `--update PATH`: the path belongs to the paths
        paths.insert(0, update)
        update = "failed"
    if update and not check and os.environ.get("CI", "").lower() in ("true", "1") and not args.force:
        sys.stderr.write(
            "kartalint: note: CI=true: --update runs as --check and writes nothing (add --force to write)\n"
        )
        check = True
    return tuple(paths), update, check


def run(args: argparse.Namespace) -> int:
    """``kartalint test`` with parsed ``args``: the fixtures' results; its exit code."""
    request = TestRequest.parse(args)
    project = project_of(args)
    paths, index = _paths_and_index(request, project)
    say_index(index, project=project, verbose=request.verbose)
    found = _discover(request, project, paths, index)
    if found.missing:
        usage_reports(request.junit_xml, request.sarif, project.root, [missing_reason(p) for p in found.missing])
        return EXIT_USAGE
    cases = _selected(request, found)
    problem = found.nothing_to_test(cases, paths, request.pattern, request.defaults, request.allow_empty)
    if problem is not None:
        sys.stderr.write(f"kartalint: error: {problem}\n")
        usage_reports(request.junit_xml, request.sarif, project.root, [problem])
        return EXIT_USAGE
    if not cases:
        definitions = len(index.of_origin("explicit", "project"))
        note = found.nothing_tested(paths, project.root, request.defaults, definitions, request.require_fixtures)
        sys.stderr.write(f"kartalint: note: {note}\n")
    return _run_and_report(request, project, index, cases)


def _paths_and_index(request: TestRequest, project: Project) -> tuple[list[str], DefinitionIndex]:
    """Where the cases are (the paths given, the project's fixtures, the bundled catalog's) and the
    definitions they resolve against."""
    paths = list(request.paths)
    if request.catalog:
        catalog, fixtures = bundled_catalog(), bundled_fixtures()
        if catalog is None or fixtures is None:
            raise UsageError("this installation of kartalint holds no catalog fixtures")
        return paths or [fixtures], DefinitionIndex.from_paths([catalog], origin="bundled")
    if not paths:
        paths = project.fixture_paths()
        if not project.in_project and not request.allow_empty:
            raise UsageError(
                "no PATH given and not inside a project (no .kartalint.yaml, not a git work tree): "
                "give the fixtures to run"
            )
    return paths, project.index(request.definitions)


def _discover(request: TestRequest, project: Project, paths: list[str], index: DefinitionIndex) -> Discovery:
    """The cases under ``paths`` (read inside the project and the folders allowed), what is missing
    and skipped said on stderr."""
    confinement = project.confinement(paths, request.allow_outside)
    found = discover(paths, index, project.fixture_roots(), confinement, excluded=project.excluded)
    for path in found.missing:
        sys.stderr.write(f"kartalint: error: {missing_reason(path)}\n")
    for message in found.skipped:
        sys.stderr.write(f"kartalint: warning: {message}\n")
    for message in found.notes + exclusion_notes(found.excluded, project.config):
        sys.stderr.write(f"kartalint: note: {message}\n")
    return found


def _selected(request: TestRequest, found: Discovery) -> list[Case]:
    """The cases ``-k`` selects, those of ``--known-failures`` expected to fail."""
    cases = select(found.cases, request.pattern)
    if request.known_failures:
        try:
            mark_known_failures(cases, request.known_failures)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
    return cases


def _run_and_report(request: TestRequest, project: Project, index: DefinitionIndex, cases: list[Case]) -> int:
    """Run the cases and write every report, each whole or not at all, its lines safe to show
    (report.output): the files of ``--junit-xml`` and ``--sarif`` first (a closed stdout, ``| head``,
    must not leave them unwritten), then the main one."""
    colour = use_color(request.color, None if request.output else sys.stdout)
    main_report = open_report(request.output, commands=request.format == "github", colour=colour)
    extra = [
        (name, open_report(path)) for name, path in (("junit", request.junit_xml), ("sarif", request.sarif)) if path
    ]
    try:
        outcome = _execute(request, project, index, cases)
        for name, output in extra:
            test_reporter_class(name)(output.stream, project_root=project.root, mutation=outcome.mutation).report(
                outcome.run
            )
            output.commit()
        reporter = test_reporter_class(request.format)
        options = {"verbose": request.verbose, "color": colour, "quiet": request.quiet}
        reporter(main_report.stream, project_root=project.root, mutation=outcome.mutation, **options).report(
            outcome.run
        )
        main_report.commit()
    finally:
        for output in [main_report, *(output for _, output in extra)]:
            output.abandon()  # (nothing left to do for a report already committed)
    for problem in outcome.update_problems:
        sys.stderr.write(f"kartalint: error: {problem}\n")
    return outcome.exit_code()


@dataclass
class Outcome:
    """A test run with its mutation run (``--mutants``) and what ``--update`` could not write."""

    run: TestRun
    mutation: MutationRun | None
    update_problems: list[str]

    def exit_code(self) -> int:
        """2 when ``--update`` could not write a fixture, 1 for a failure (a case, a mutant), else 0."""
        if self.update_problems:
            return EXIT_USAGE
        return EXIT_OK if self.run.ok and (self.mutation is None or self.mutation.ok) else EXIT_FAIL


def _execute(request: TestRequest, project: Project, index: DefinitionIndex, cases: list[Case]) -> Outcome:
    """Run the cases (and the mutants), judge the project's definitions, update the fixtures."""
    lint_cache = LintCache(project.config)
    judged = index.of_origin("explicit", "project")  # never the bundled catalog: the user's definitions
    mutation = None
    with Evaluator(timeout=request.timeout) as evaluator:
        test_run = run_cases(cases, evaluator, lint_cache)
        if request.mutants:
            mutation = _mutants(request, project, judged, test_run, evaluator)
    if (request.require_fixtures or request.min_coverage is not None) and not judged:
        sys.stderr.write(
            f"kartalint: note: the project at {project.root} has no definitions of its own: "
            "--require-fixtures and --min-coverage have nothing to judge\n"
        )
    test_run.judge(judged, request.require_fixtures, request.min_coverage)
    return Outcome(test_run, mutation, _update(request, test_run, lint_cache))


def _update(request: TestRequest, test_run: TestRun, lint_cache: LintCache) -> list[str]:
    """``--update``: rewrite the fixtures first, so the report shows the rewritten cases as updated
    (``--check``: only count them); what could not be written."""
    if request.update and not request.check:
        outcome = update_fixtures(test_run, request.update, lint_cache)
        test_run.mark_updated(outcome.updated_files)
        sys.stderr.write(f"kartalint: updated {outcome.updated} fixture(s) in {outcome.files} file(s)\n")
        return outcome.problems
    if request.update:
        pending = [r for r in test_run.results if r.outcome == "failed" and r.case.kind == "fixture"]
        sys.stderr.write(f"kartalint: --check: {len(pending)} fixture(s) would be updated; nothing was written\n")
    return []


def _mutants(
    request: TestRequest, project: Project, judged: list[DefinitionFile], test_run: TestRun, evaluator: Evaluator
) -> MutationRun:
    """``--mutants``: the mutation results of the project's definitions (never the bundled catalog)."""
    if not judged:
        sys.stderr.write(
            f"kartalint: note: the project at {project.root} has no definitions of its own: --mutants has nothing to mutate\n"
        )
    mutation = run_mutants(test_run, evaluator, judged, request.mutation_options(project.config))
    for item in mutation.definitions:
        for mutant_id in item.stale:
            sys.stderr.write(
                f"kartalint: warning: {project.config.source}: the equivalent mutant {mutant_id!r} of {item.definition.name} "
                "is no longer a surviving mutant: remove the entry\n"
            )
    return mutation


def usage_reports(junit_xml: str | None, sarif: str | None, root: str, problems: list[str]) -> None:
    """A run that stops before any case (a missing path, nothing found) still writes the reports
    CI waits for (``--junit-xml``, ``--sarif``): JUnit with one error case per problem, SARIF with
    an unsuccessful invocation."""
    if junit_xml:
        write_report(junit_xml, usage_junit(problems))
    if sarif:
        log = SarifLog("test", root)
        for problem in problems:
            log.notify("error", problem)
        write_report(sarif, log.render())
