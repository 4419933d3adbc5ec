"""`kartalint describe --summary`: the fleet summary's options and its run (docs/fleet.md).

The work is elsewhere: objects stream from ``load.objects.stream_objects`` (or, with
``--kubectl``, from ``kubectl get`` through ``load.kubectl``), are evaluated by
``evaluation.fleet``, added up by ``evaluation.fleet_totals``, compared with the user's figures by
``diff.figures_compare`` and written by the summary formats of ``report`` (``SUMMARIES``,
``COMPARISONS``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kartalint.cli.common import EXIT_FAIL, EXIT_OK, EXIT_USAGE, say_index
from kartalint.errors import ConfigError

if TYPE_CHECKING:
    from kartalint.cli.describe import DescribeRequest
    from kartalint.diff.figures_compare import Comparison
    from kartalint.evaluation.fleet import Choose, Owned
    from kartalint.evaluation.fleet_totals import Totals
    from kartalint.evaluation.owners import PodIndex
    from kartalint.load.definitions import DefinitionFile, DefinitionIndex
    from kartalint.load.kubectl import ClusterProblem
    from kartalint.load.objects import LoadedObject, LoadProblem
    from kartalint.project import Project

GROUP_KEYS = (
    "namespace",
    "kind",
    "definition",
    "status",
)  # evaluation.fleet_totals.GROUP_KEYS (a test keeps them equal)
ROW_KINDS = ("workload", "role")  # evaluation.fleet_totals.ROW_KINDS


def add_summary_arguments(parser: argparse.ArgumentParser) -> None:
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
    from kartalint.evaluation.fleet_totals import DEFAULT_GROUP_BY, status_filter

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
    from kartalint.evaluation import Evaluator
    from kartalint.evaluation.fleet import summarise
    from kartalint.evaluation.fleet_totals import FleetSummary
    from kartalint.report import SUMMARIES, make_summary_reporter
    from kartalint.report.output import report_output

    summary = request.summary
    assert summary is not None
    fmt = request.fmt or "table"
    if fmt not in SUMMARIES:
        raise ConfigError(f"--summary writes {', '.join(SUMMARIES)}, not {fmt} (a format of describe of an object)")
    if request.objects.count("-") + (request.pods == "-") > 1:
        raise ConfigError("stdin ('-') can be read once: give the other inputs as files")
    comparison = _comparison(summary.compare)
    choose, covered = _chooser(request, project)
    with Evaluator(timeout=request.timeout, force=request.force).start() as evaluator:  # forked while small
        source = ClusterSource(request, project, covered) if request.cluster else FileSource(request, project)
        if comparison is not None and "allocatedGpus" in comparison.expected.columns and source.pods is None:
            raise ConfigError(f"{summary.compare}: allocatedGpus needs pods: give --pods, or use --kubectl")
        entries = summarise(source.items(), choose, evaluator, source.pods, owned=source.owned)
        fleet = FleetSummary(entries, summary.group_by, source.pods is not None, [comparison] if comparison else [],
                             summary.statuses, summary.rows)  # fmt: skip
        with report_output(request.output) as stream:
            make_summary_reporter(fmt, stream, comparison, summary.explain).report(fleet)
    return _exit_code(fleet.totals, comparison, fmt, source)


def _comparison(path: str | None) -> Comparison | None:
    from kartalint.diff.figures import FiguresError, read_expected
    from kartalint.diff.figures_compare import Comparison

    if path is None:
        return None
    try:
        return Comparison(read_expected(path))
    except FiguresError as exc:
        raise ConfigError(str(exc)) from None


class FileSource:
    """The objects of the files given (``-``: stdin, read as it comes) and the pods of ``--pods``."""

    def __init__(self, request: DescribeRequest, project: Project) -> None:
        from kartalint.evaluation.owners import PodIndex

        self.paths = list(request.objects)
        self.limit = project.config.max_file_size
        self.pods: PodIndex | None = PodIndex(self._pods(request.pods)) if request.pods else None
        self.owned: Owned | None = None
        self.failed = 0  # places kubectl could not read (none here)

    def _pods(self, path: str) -> list[dict[str, object]]:
        """The pods (and their owners) of a pods file of any size; a problem is a usage error."""
        from kartalint.load.objects import LoadedObject, stream_objects

        found, problems = [], []
        for item in stream_objects(path, self.limit):
            if isinstance(item, LoadedObject):
                found.append(item.data)
            else:
                problems.append(item.message)
        if problems:
            raise ConfigError(
                "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
            )
        return found

    def items(self) -> Iterator[LoadedObject | LoadProblem]:
        """Every object of every file, one at a time."""
        from kartalint.load.objects import stream_objects

        for path in self.paths:
            yield from stream_objects(path, self.limit)

    def what(self) -> str:
        """What was read, for a message."""
        return ", ".join(self.paths)

    def done(self) -> None:
        """Nothing to say after the run."""


class ClusterSource(FileSource):
    """Every kind the definitions cover, listed by the user's kubectl (``load.kubectl``), the pods of
    the scope and their owners; an object whose controller chain leads to a covered kind is counted
    under that owner."""

    def __init__(self, request: DescribeRequest, project: Project, covered: dict[tuple[str, str], list[str]]) -> None:
        from kartalint.evaluation.owners import PodIndex
        from kartalint.load.kubectl import pods_and_owners

        assert request.cluster is not None
        self.cluster = request.cluster
        self.limit = project.config.max_file_size
        self.covered = covered
        self.problems: list[ClusterProblem] = []
        pods, owners = pods_and_owners(self.cluster, self.limit, self.problems)
        refused = any(p.command.split()[2:3] == ["pods"] for p in self.problems)
        index = PodIndex(pods + owners)
        self.listed = None if refused else pods
        self.pods = None if refused else index
        self.owned = lambda obj: index.owners.covered_owner(obj, lambda group, kind: (group, kind) in covered)
        self.failed = 0

    def items(self) -> Iterator[LoadedObject | LoadProblem]:
        """The objects of each covered kind, at the most stable version the cluster serves."""
        from kartalint.load.kubectl import workloads

        yield from workloads(self.cluster, self.covered, self.limit, self.problems, self.listed)

    def what(self) -> str:
        """What was read, for a message."""
        return "the cluster (kubectl get)"

    def done(self) -> None:
        """Say what kubectl refused: a kind the cluster does not serve in one note, any other
        refusal one line each (and the run exits 1)."""
        unknown = [p for p in self.problems if p.kind == "unknown"]
        if unknown:
            kinds = ", ".join(p.command.split()[2] for p in unknown)
            sys.stderr.write(
                f"kartalint: note: not served by the cluster (no such resource): {len(unknown)} kind(s): {kinds}\n"
            )
        for problem in self.problems:
            if problem.kind != "unknown":
                sys.stderr.write(f"kartalint: error: {problem.line}\n")
                self.failed += 1


def _chooser(request: DescribeRequest, project: Project) -> tuple[Choose, dict[tuple[str, str], list[str]]]:
    """The definition of an object: ``--definition`` for the objects of its group/version/kind, then
    ``--catalog``, the project's definitions and the bundled catalog; and every (group, kind) they
    cover, with its versions."""
    from kartalint.errors import UsageError
    from kartalint.load.definitions import DefinitionIndex, object_gvk

    fixed: DefinitionIndex | None = None
    if request.definition:
        fixed = DefinitionIndex.from_paths([request.definition])
        say_index(fixed, "error")
        if not fixed.by_gvk:
            raise UsageError(f"{request.definition}: no Karta definition with a root kind found")
    index = project.index(request.catalogs)
    say_index(index, project=project)
    covered: dict[tuple[str, str], list[str]] = {}
    for group, version, kind in [*(fixed.by_gvk if fixed else ()), *index.by_gvk]:
        covered.setdefault((group, kind), []).append(version)

    def choose(obj: dict[str, object]) -> DefinitionFile | None:
        gvk = object_gvk(obj)
        return (fixed.find(gvk) if fixed is not None else None) or index.find(gvk)

    return choose, covered


def _exit_code(totals: Totals, comparison: Comparison | None, fmt: str, source: FileSource) -> int:
    """0: every object counted (and the same figures); 1: an object failed, a place could not be read,
    kubectl refused a kind, or figures differ; 2: nothing was read, or no object is covered."""
    from kartalint.report.summary_rows import problem_lines

    source.done()
    for entry in totals.unreadable:
        sys.stderr.write(f"kartalint: error: {entry.errors[0]}\n")
    if totals.unreadable_kept.more:
        sys.stderr.write(f"kartalint: error: and {totals.unreadable_kept.more} more places that could not be read\n")
    if fmt == "csv":  # what the records do not hold, said where a reader of the terminal sees it
        for line in problem_lines(totals, unreadable=False):
            sys.stderr.write(f"kartalint: note: {line.strip()}\n")
    if totals.objects == 0 and not source.failed:
        if not totals.unreadable_count:
            sys.stderr.write(f"kartalint: error: {source.what()}: no Kubernetes object found\n")
        return EXIT_USAGE
    if not totals.all.workloads and not totals.failed_count and not totals.filtered and not source.failed:
        sys.stderr.write("kartalint: error: no object is covered by a definition (the summary counts them by kind)\n")
        return EXIT_USAGE
    code = EXIT_FAIL if totals.failed_count or totals.unreadable_count or source.failed else EXIT_OK
    if comparison is not None and (comparison.differences() or comparison.total_differences()):
        code = EXIT_FAIL
    return code
