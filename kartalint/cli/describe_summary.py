"""`kartalint describe --summary`: the fleet summary's options and its run (docs/fleet.md).

The work is elsewhere: objects stream from ``load.objects.stream_objects`` (or, with
``--kubectl``, from ``kubectl get`` through ``load.kubectl``), as ``evaluation.fleet_sources``
reads them, are evaluated by ``evaluation.fleet``, added up by ``evaluation.fleet_totals`` (whose
``FleetSummary`` says what could not be counted and gives the exit code), compared with the user's
figures by ``diff.figures_compare`` and written by the summary formats of ``report``
(``SUMMARIES``, ``COMPARISONS``).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kartalint.cli.common import say_index
from kartalint.diff.figures import FiguresError, read_expected
from kartalint.diff.figures_compare import Comparison
from kartalint.errors import ConfigError, UsageError
from kartalint.evaluation import Evaluator
from kartalint.evaluation.fleet import summarise
from kartalint.evaluation.fleet_sources import ClusterSource, FileSource, chooser
from kartalint.evaluation.fleet_totals import DEFAULT_GROUP_BY, FleetSummary, status_filter
from kartalint.load.definitions import DefinitionIndex
from kartalint.report import SUMMARIES, make_summary_reporter
from kartalint.report.output import open_report
from kartalint.report.summary_rows import problem_lines

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import IO

    from kartalint.cli.describe import DescribeRequest
    from kartalint.evaluation.fleet import Choose
    from kartalint.evaluation.fleet_sources import Covered
    from kartalint.project import Project
    from kartalint.report.summary import SummaryReporter

GROUP_KEYS = (
    "namespace",
    "kind",
    "definition",
    "status",
)  # evaluation.fleet_totals.GROUP_KEYS (a test keeps them equal)
ROW_KINDS = ("workload", "role")  # evaluation.fleet_totals.ROW_KINDS


def add_summary_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``kartalint describe --summary``: the fleet's rows, totals and comparison."""
    group = parser.add_argument_group("a whole fleet: --summary (docs/fleet.md)")
    group.add_argument(
        "--summary",
        action="store_true",
        help="one row per workload of OBJECT... (a cluster dump of any size), then totals (docs/fleet.md)",
    )
    group.add_argument(
        "--rows",
        choices=ROW_KINDS,
        help="with --summary: one row per workload (the default) or per role of each workload (its components, "
        "as describe's Resources table)",
    )
    _add_selection_options(group)
    group.add_argument(
        "--compare",
        metavar="FILE",
        help="with --summary: a CSV of your own figures (namespace,kind,name,gpus...); print only what differs, "
        "and why; exit 1 if anything does",
    )
    group.add_argument(
        "--explain",
        action="store_true",
        help="with --summary: say which workloads count as active (activeGpus) and why the others do not",
    )


def _add_selection_options(group: argparse._ArgumentGroup) -> None:
    group.add_argument(
        "--status",
        action="append",
        default=[],
        metavar="STATUS",
        help="with --summary: keep only the workloads with this status (Running, Completed, Undefined...; "
        "repeatable, comma-separated)",
    )
    group.add_argument(
        "--group-by",
        action="append",
        default=[],
        choices=GROUP_KEYS,
        metavar="KEY",
        help=f"with --summary: add the totals up by KEY ({', '.join(GROUP_KEYS)}; repeatable; default namespace and kind)",
    )


@dataclass(frozen=True)
class SummaryRequest:
    """What ``--summary`` was asked: totals' keys, rows per workload or role, the statuses kept (empty:
    all), the user's figures to compare with, and whether to explain the active GPUs."""

    group_by: tuple[str, ...]
    rows: str
    statuses: frozenset[str]
    compare: str | None
    explain: bool


def parse_summary(args: argparse.Namespace, objects: tuple[str, ...]) -> SummaryRequest | None:
    """The summary part of a ``describe`` command line (None without ``--summary``); ``ConfigError``
    for a summary option without it."""
    if not args.summary:
        used = [name for name, value in (("several OBJECTs", len(objects) > 1 and not args.kubectl),
                                         ("--group-by", args.group_by), ("--compare", args.compare),
                                         ("--rows", args.rows), ("--status", args.status),
                                         ("--explain", args.explain)) if value]  # fmt: skip
        if used:
            raise ConfigError(f"{', '.join(used)} go with --summary")
        return None
    try:
        statuses = status_filter(args.status)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    group_by = tuple(args.group_by) or DEFAULT_GROUP_BY
    return SummaryRequest(group_by, args.rows or "workload", statuses, args.compare, args.explain)


def run_summary(request: DescribeRequest, project: Project) -> int:
    """``kartalint describe --summary``: the fleet summary of the request's objects in ``project``; its exit code."""
    summary = request.summary
    assert summary is not None
    fmt = _summary_format(request)
    comparison = _comparison(summary.compare)
    choose, covered = _chooser(request, project)
    limit = project.config.max_file_size
    with Evaluator(timeout=request.timeout, force=request.force).start() as evaluator:  # forked while small
        if request.cluster is not None:
            source: FileSource = ClusterSource(request.cluster, covered, limit)
        else:
            source = FileSource(request.objects, request.pods, limit)
        if comparison is not None and "allocatedGpus" in comparison.expected.columns and source.pods is None:
            raise ConfigError(f"{summary.compare}: allocatedGpus needs pods: give --pods, or use --kubectl")
        entries = summarise(source.items(), choose, evaluator, source.pods, owned=source.owned)
        fleet = FleetSummary(entries, summary.group_by, source.pods is not None, [comparison] if comparison else [],
                             summary.statuses, summary.rows)  # fmt: skip
        _report(fleet, request.output, lambda stream: make_summary_reporter(fmt, stream, comparison, summary.explain),
                 source)  # fmt: skip
    return _finish(fleet, comparison, fmt, source)


def _report(fleet: FleetSummary, output: str | None, reporter_on: Callable[[IO[str]], SummaryReporter],
            source: FileSource) -> None:  # fmt: skip
    """Walk the fleet with the reporter made on the report's stream, and write the report, unless no
    object could be read (every input missing, unreadable or empty: exit 2, said on stderr): then
    only a format that says so (JSON, with ``unreadable``) is written, the others are left unwritten
    (an ``-o`` file stays as it was), so nothing reads as an empty fleet."""
    report = open_report(output)
    try:
        reporter = reporter_on(report.stream)
        reporter.walk(fleet)
        if fleet.nothing_read(source.failed) and not reporter.written_when_nothing_read:
            report.abandon()
            return
        reporter.finish(fleet)
    except BaseException:
        report.abandon()
        raise
    report.commit()


def _summary_format(request: DescribeRequest) -> str:
    """The summary's format (a usage error for one of describe of an object), once stdin is known
    to be read once."""
    fmt = request.fmt or "table"
    if fmt not in SUMMARIES:
        raise ConfigError(f"--summary writes {', '.join(SUMMARIES)}, not {fmt} (a format of describe of an object)")
    if request.objects.count("-") + (request.pods == "-") > 1:
        raise ConfigError("stdin ('-') can be read once: give the other inputs as files")
    return fmt


def _comparison(path: str | None) -> Comparison | None:
    if path is None:
        return None
    try:
        return Comparison(read_expected(path))
    except FiguresError as exc:
        raise ConfigError(str(exc)) from None


def _chooser(request: DescribeRequest, project: Project) -> tuple[Choose, Covered]:
    """The definition of an object: ``--definition`` for the objects of its group/version/kind, then
    ``--catalog``, the project's definitions and the bundled catalog (their problems said); and
    every (group, kind) they cover, with its versions."""
    indexes = []
    if request.definition:
        fixed = DefinitionIndex.from_paths([request.definition])
        say_index(fixed, "error")
        if not fixed.by_gvk:
            raise UsageError(f"{request.definition}: no Karta definition with a root kind found")
        indexes.append(fixed)
    index = project.index(request.catalogs)
    # a project definition that shadows a bundled one is said: the DEFINITION column names no file
    say_index(index, project=project, verbose=request.verbose)
    return chooser([*indexes, index])


def _finish(fleet: FleetSummary, comparison: Comparison | None, fmt: str, source: FileSource) -> int:
    """Say what the summary could not count (what kubectl refused, the places that could not be
    read, with csv what its records do not hold, a summary with nothing to say); its exit code."""
    notes, errors = source.refusals()
    for note in notes:
        sys.stderr.write(f"kartalint: note: {note}\n")
    for line in [*errors, *fleet.unreadable_lines()]:
        sys.stderr.write(f"kartalint: error: {line}\n")
    if fmt == "csv":  # what the records do not hold, said where a reader of the terminal sees it
        for line in problem_lines(fleet.totals, unreadable=False):
            sys.stderr.write(f"kartalint: note: {line.strip()}\n")
    problem = fleet.empty_problem(source.what(), source.failed)
    if problem is not None:
        sys.stderr.write(f"kartalint: error: {problem}\n")
    differs = comparison is not None and bool(comparison.differences() or comparison.total_differences())
    return fleet.exit_code(source.failed, differs)
