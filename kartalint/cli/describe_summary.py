"""`kartalint describe --summary`: the fleet summary's options and its run (docs/fleet.md).

The work is elsewhere: objects stream from ``load.objects.stream_objects``, are evaluated and added
up by ``evaluation.fleet``, compared with the user's figures by ``diff.figures`` and written by the
summary formats of ``report`` (``SUMMARIES``, ``COMPARISONS``).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import IO, Any

from kartalint.cli.common import (
    EXIT_FAIL,
    EXIT_OK,
    EXIT_USAGE,
    check_timeout,
    project_of,
    say_index,
)
from kartalint.errors import ConfigError

GROUP_KEYS = ("namespace", "kind", "definition", "status")  # evaluation.fleet.GROUP_KEYS (a test keeps them equal)


def add_summary_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--summary",
        action="store_true",
        help="one row per workload of OBJECT... (a cluster dump of any size), then totals (docs/fleet.md)",
    )
    parser.add_argument(
        "--group-by",
        action="append",
        default=[],
        choices=GROUP_KEYS,
        metavar="KEY",
        help=f"with --summary: add the totals up by KEY ({', '.join(GROUP_KEYS)}; repeatable; default namespace and kind)",
    )
    parser.add_argument(
        "--compare",
        metavar="FILE",
        help="with --summary: a CSV of your own figures (namespace,kind,name,gpus...); print only what differs, exit 1 if anything does",
    )


def _stream(output: str | None) -> contextlib.AbstractContextManager[IO[str]]:
    """Where the summary goes: a file written whole or not at all, or stdout (report.output)."""
    from kartalint.report.output import report_output

    return report_output(output)


def run_summary(args: argparse.Namespace, fmt: str | None, output: str | None) -> int:
    from kartalint.diff.figures import Comparison, FiguresError, read_expected
    from kartalint.evaluation import Evaluator
    from kartalint.evaluation.fleet import DEFAULT_GROUP_BY, FleetSummary, PodIndex, summarise
    from kartalint.load.objects import stream_objects
    from kartalint.report import SUMMARIES, make_summary_reporter

    fmt = fmt or "table"
    if not args.summary:
        raise ConfigError("several OBJECTs, --group-by and --compare go with --summary")
    if fmt not in SUMMARIES:
        raise ConfigError(f"--summary writes {', '.join(SUMMARIES)}, not {fmt} (a format of describe of an object)")
    check_timeout(args.timeout)
    paths = [args.object, *args.more]
    if paths.count("-") + (args.pods == "-") > 1:
        raise ConfigError("stdin ('-') can be read once: give the other inputs as files")
    try:
        comparison = Comparison(read_expected(args.compare)) if args.compare else None
    except FiguresError as exc:
        raise ConfigError(str(exc)) from None
    project = project_of(args)
    choose = _chooser(args, project)
    if choose is None:
        return EXIT_USAGE
    with Evaluator(timeout=args.timeout, force=args.force).start() as evaluator:  # forked while small
        pods = PodIndex(_pods(args.pods, project.config.max_file_size)) if args.pods else None
        objects = (item for path in paths for item in stream_objects(path, project.config.max_file_size))
        summary = FleetSummary(
            summarise(objects, choose, evaluator, pods),
            group_by=args.group_by or DEFAULT_GROUP_BY,
            pods_given=pods is not None,
            observers=[comparison] if comparison is not None else [],
        )
        with _stream(output) as stream:
            make_summary_reporter(fmt, stream, comparison).report(summary)
    return _exit_code(summary.totals, comparison, fmt, paths)


def _pods(path: str, max_bytes: int) -> list[Any]:
    """The pods (and their owners) of a pods file of any size; a problem is a usage error."""
    from kartalint.load.objects import LoadedObject, stream_objects

    found, problems = [], []
    for item in stream_objects(path, max_bytes):
        if isinstance(item, LoadedObject):
            found.append(item.data)
        else:
            problems.append(item.message)
    if problems:
        raise ConfigError("; ".join(problems))
    return found


def _chooser(args: argparse.Namespace, project: Any) -> Any:
    """The definition of an object: ``--definition`` for the objects of its group/version/kind, then
    ``--catalog``, the project's definitions and the bundled catalog (None: a usage error, said)."""
    from kartalint.load.definitions import DefinitionIndex, object_gvk

    fixed = None
    if args.definition:
        fixed = DefinitionIndex.from_paths([args.definition])
        say_index(fixed, "error")
        if not fixed.by_gvk:
            if not fixed.problems:
                sys.stderr.write(f"kartalint: error: {args.definition}: no Karta definition with a root kind found\n")
            return None
    index = project.index(args.catalog)
    say_index(index, project=project)

    def choose(obj: dict[str, Any]) -> Any:
        gvk = object_gvk(obj)
        return (fixed.find(gvk) if fixed is not None else None) or index.find(gvk)

    return choose


def _exit_code(totals: Any, comparison: Any, fmt: str, paths: list[str]) -> int:
    """0: every object counted (and the same figures); 1: an object failed or could not be read, or
    figures differ; 2: nothing was read, or no object is covered by a definition."""
    from kartalint.report.summary import problem_lines

    for entry in totals.unreadable:
        sys.stderr.write(f"kartalint: error: {entry.errors[0]}\n")
    if fmt == "csv":  # what the records do not hold, said where a reader of the terminal sees it
        for line in problem_lines(totals, unreadable=False):
            sys.stderr.write(f"kartalint: note: {line.strip()}\n")
    if totals.objects == 0:
        if not totals.unreadable:
            sys.stderr.write(f"kartalint: error: {', '.join(paths)}: no Kubernetes object found\n")
        return EXIT_USAGE
    if not totals.all.workloads and not totals.failed:
        sys.stderr.write("kartalint: error: no object is covered by a definition (the summary counts them by kind)\n")
        return EXIT_USAGE
    code = EXIT_FAIL if totals.failed or totals.unreadable else EXIT_OK
    if comparison is not None and (comparison.differences() or comparison.total_differences()):
        code = EXIT_FAIL
    return code
