"""`kartalint lint`: the options as one ``LintRequest``, the project and its CRDs, ``lint_paths``,
the report; the summary line and the exit code are the ``LintResult``'s."""

from __future__ import annotations

import os
import sys

from kartalint.cli import EXIT_OK, EXIT_USAGE
from kartalint.cli.common import add_color_option, add_config_option, project_of, use_color
from kartalint.errors import ConfigError, UsageError
from kartalint.lint import lint_paths
from kartalint.lint.baseline import apply, read, render
from kartalint.lint.paths import exclusion_notes
from kartalint.lint.pipeline import crd_index
from kartalint.load.discovery import missing_reason
from kartalint.load.documents import display_path
from kartalint.report import format_choices, format_name, make_reporter
from kartalint.report.output import report_output, write_report

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from kartalint.lint.baseline import Baseline
    from kartalint.lint.result import LintResult
    from kartalint.project import Config, Project


# What the parser gives each option of ``kartalint lint`` when the command line leaves it out, and
# the switches a plain command line may hold (``plain_arguments``); tests/test_plain_arguments.py
# holds both equal to the parser's.
DEFAULTS = {
    "paths": [],
    "format": "auto",
    "strict": False,
    "config": None,
    "disable": [],
    "output": None,
    "color": "auto",
    "quiet": False,
    "crd": [],
    "jobs": None,
    "allow_empty": False,
    "strict_files": False,
    "baseline": None,
    "no_baseline": False,
    "write_baseline": None,
}
SWITCHES = {
    "--strict": "strict",
    "-q": "quiet",
    "--quiet": "quiet",
    "--allow-empty": "allow_empty",
    "--strict-files": "strict_files",
    "--no-baseline": "no_baseline",
}


def plain_arguments(argv: list[str]) -> dict[str, object] | None:
    """The arguments of a plain ``kartalint lint`` command line (after ``lint``), as the parser
    reads them, without the parser: switches (``SWITCHES``), then paths (none starting with ``-``
    but ``-`` itself), or ``--`` and then paths (any: the pre-commit hook's ``args: ["--"]``).
    None for any other (an option with a value, ``--help``, a path before a switch): the parser
    reads it, and says what is wrong with it."""
    values = {name: list(value) if isinstance(value, list) else value for name, value in DEFAULTS.items()}
    index = 0
    while index < len(argv) and argv[index] in SWITCHES:
        values[SWITCHES[argv[index]]] = True
        index += 1
    paths = argv[index:]
    if paths[:1] == ["--"]:
        paths = paths[1:]
        if "--" in paths:  # (argparse's reading of a second one is its own)
            return None
    elif any(path.startswith("-") and path != "-" for path in paths):
        return None
    values["paths"] = list(paths)
    return values


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``kartalint lint``: the findings of the definitions."""
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
    parser.add_argument("-o", "--output", metavar="FILE", help="write the report to a file instead of stdout")
    add_color_option(parser)
    parser.add_argument("-q", "--quiet", action="store_true", help="no summary line on stderr")
    _add_input_options(parser)
    _add_baseline_options(parser)


def _add_input_options(parser: argparse.ArgumentParser) -> None:
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


def _add_baseline_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--baseline",
        metavar="FILE",
        help="report only findings that are not in this baseline (--write-baseline writes one; default: "
        "KARTALINT_BASELINE, else `baseline:` of the configuration)",
    )
    parser.add_argument(
        "--no-baseline", action="store_true", help="report every finding, whatever baseline is configured"
    )
    parser.add_argument(
        "--write-baseline",
        metavar="FILE",
        help="record today's findings in FILE (by fingerprint, positions left out) and exit 0",
    )


class LintRequest:
    """What ``kartalint lint`` was asked to do. (A plain class: a NamedTuple or a dataclass is built
    at import, and this module is on the path of every one-file lint, the pre-commit hook's.)"""

    __slots__ = (
        "allow_empty",
        "baseline",
        "color",
        "crds",
        "format",
        "jobs",
        "no_baseline",
        "output",
        "paths",
        "quiet",
        "strict",
        "strict_files",
        "write_baseline",
    )

    def __init__(self, args: argparse.Namespace) -> None:
        """The request of the parsed command line (a usage error for options that exclude each other)."""
        if args.baseline and (args.write_baseline or args.no_baseline):
            raise UsageError(
                f"--baseline and {'--write-baseline' if args.write_baseline else '--no-baseline'}: give one"
            )
        self.paths: tuple[str, ...] = tuple(args.paths)
        self.format: str = format_name(args.format)  # a registered lint format ("auto" resolved)
        self.output: str | None = args.output
        self.color: str = args.color
        self.quiet: bool = args.quiet
        self.strict: bool = args.strict
        self.strict_files: bool = args.strict_files
        self.allow_empty: bool = args.allow_empty
        self.crds: tuple[str, ...] = tuple(args.crd)
        self.jobs: int | None = args.jobs
        self.baseline: str | None = args.baseline
        self.write_baseline: str | None = args.write_baseline
        self.no_baseline: bool = args.no_baseline


def run(args: argparse.Namespace) -> int:
    """``kartalint lint`` with parsed ``args``: the findings of the definitions; its exit code."""
    request = LintRequest(args)
    project = project_of(args)
    config = _with_crds(project.config, request.crds)
    if not _crds_usable(config):
        return EXIT_USAGE
    paths = list(request.paths) or _project_paths(project, request.allow_empty)
    if not paths:
        return EXIT_OK  # nothing to lint, and --allow-empty says that is fine (noted)
    baseline = _read_baseline(request, project)
    if request.jobs is not None and request.jobs < 0:
        raise ConfigError(f"--jobs must be 0 (automatic) or more (got {request.jobs})")
    result = _lint_and_report(request, project, config, paths, baseline)
    if not request.quiet:
        sys.stderr.write(f"kartalint: {result.summary()}\n")
    if result.wrote_baseline is not None:
        sys.stderr.write(f"kartalint: wrote {result.wrote_baseline}: {len(result.findings)} finding(s) recorded\n")
    for problem in result.problems(request.strict, request.allow_empty):
        sys.stderr.write(f"kartalint: error: {problem}\n")
    return result.exit_code(request.strict, request.allow_empty)


def _with_crds(config: Config, crds: tuple[str, ...]) -> Config:
    """The configuration with the CRDs of ``--crd`` added to its ``crds:``."""
    for path in crds:
        if not os.path.exists(path):
            raise ConfigError(f"--crd {path}: no such file or directory")
    return config.replace(crds=[*config.crds, *crds])


def _crds_usable(config: Config) -> bool:
    """Whether every configured CRD can be read (each problem said on stderr)."""
    problems = crd_index(config.crds).problems if config.crds else []
    for problem in problems:
        sys.stderr.write(f"kartalint: error: CRD {problem}\n")
    return not problems


def _project_paths(project: Project, allow_empty: bool) -> list[str]:
    """Without a PATH: the project's definitions and fixtures (none, with ``allow_empty``, is a
    note; without it, an error)."""
    definitions = project.definition_paths()
    paths = definitions + [p for p in project.fixture_paths() if p not in definitions]
    # the templates that mention a Karta, met while searching: linted as a file named is, each with its
    # `yaml-template` note among the findings (SARIF, annotations), not only a line on stderr
    paths += [p for p in project.templates if p not in paths]
    for note in project.notes:  # (-q leaves every note out: cli.main)
        if not (project.templates and "Go/Helm template(s) skipped" in note):
            sys.stderr.write(f"kartalint: note: {note}\n")
    if paths:
        return paths
    where = (
        f"in the project at {project.root}"
        if project.in_project
        else "here: not inside a project (no .kartalint.yaml, not a git work tree), so nothing is searched"
    )
    if not allow_empty:
        raise ConfigError(f"no PATH given and no Karta definition found {where}")
    sys.stderr.write(f"kartalint: note: no PATH given and no Karta definition found {where}\n")
    return []


def _read_baseline(request: LintRequest, project: Project) -> Baseline | None:
    """The baseline to apply: ``--baseline``, else ``KARTALINT_BASELINE``, else the configuration's
    ``baseline:``; none with ``--no-baseline`` or ``--write-baseline`` (every finding is recorded)."""
    if request.no_baseline or request.write_baseline:
        return None
    variable = os.environ.get("KARTALINT_BASELINE", "")
    given_as: str | None
    if request.baseline:
        path, given_as = request.baseline, None
    elif variable:
        path, given_as = variable, f"KARTALINT_BASELINE={variable}"
    elif configured := project.config.baseline:
        path, given_as = configured, f"baseline: {configured} (configured in {project.config.baseline_from})"
    else:
        return None

    return read(path, project.root, given_as)


def _baseline(request: LintRequest, project: Project, result: LintResult, baseline: Baseline | None) -> None:
    """``--baseline``: the findings it holds left out; ``--write-baseline``: the findings recorded."""
    if baseline is not None:
        apply(result, baseline, project.root)
    if request.write_baseline:
        write_report(request.write_baseline, render(result.findings, project.root))
        result.wrote_baseline = request.write_baseline


def _lint_and_report(
    request: LintRequest, project: Project, config: Config, paths: list[str], baseline: Baseline | None
) -> LintResult:
    """Lint ``paths`` and write the report (whole or not at all, its lines safe to show:
    report.output); the baseline applied or written first."""
    colour = use_color(request.color, None if request.output else sys.stdout)
    with report_output(request.output, commands=request.format == "github", colour=colour) as stream:
        result = lint_paths(paths, config, strict_files=request.strict_files, jobs=request.jobs)
        if baseline is not None or request.write_baseline:
            _baseline(request, project, result, baseline)
        configured = (
            "" if request.paths or not project.config_file else f" (named in {display_path(project.config_file)})"
        )
        for path in result.missing:  # (a folder the configuration names: said so, e.g. right after `kartalint init`)
            sys.stderr.write(f"kartalint: error: {missing_reason(path)}{configured}\n")
        for message in result.skipped_paths:
            sys.stderr.write(f"kartalint: warning: {message}\n")
        for note in exclusion_notes(result.excluded, config):  # (-q leaves notes out: cli.main)
            sys.stderr.write(f"kartalint: note: {note}\n")
        root = project.root if request.format == "sarif" else None  # SARIF locations start at the project root
        make_reporter(request.format, stream, color=colour, project_root=root).report(result)
    return result
