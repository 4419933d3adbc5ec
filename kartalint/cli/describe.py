"""`kartalint describe`."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from kartalint.cli.common import (
    EXIT_FAIL,
    EXIT_OK,
    EXIT_USAGE,
    add_config_option,
    add_quiet_option,
    add_verbose_option,
    check_timeout,
    emit,
    invalid_definition_lines,
    project_of,
    read_pods,
    say_index,
)
from kartalint.errors import ConfigError
from kartalint.report import format_choices

if TYPE_CHECKING:
    from kartalint.evaluation import Evaluator
    from kartalint.project import Project

HELP = "what a definition makes of a workload object (roles, replicas, GPUs, status)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "object",
        metavar="OBJECT",
        help="workload manifest (YAML/JSON; a List or several documents describe each; '-' for stdin)",
    )
    parser.add_argument("more", nargs="*", metavar="OBJECT", help="more manifests (with --summary)")
    parser.add_argument(
        "-d", "--definition", help="definition to apply (default: chosen by the object's group/version/kind)"
    )
    parser.add_argument("--pods", help="pods of the workload (a PodList, several documents, or one Pod)")
    parser.add_argument(
        "--catalog",
        action="append",
        default=[],
        metavar="DIR",
        help="more definitions to choose from, searched before the project's and the bundled catalog (repeatable)",
    )
    add_config_option(parser)
    parser.add_argument(
        "-f",
        "--format",
        choices=format_choices("describe"),
        help="output format (default: tree; with --summary: table, csv, json or markdown, default table)",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write to FILE instead of stdout (the old `-o tree|json|yaml` still selects a format, deprecated)",
    )
    parser.add_argument(
        "--timeout", type=float, default=10.0, help="seconds allowed per jq evaluation (default: 10, as upstream)"
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="evaluate a definition that breaks the Karta schema or upstream's validator (as far as it can be)",
    )
    add_verbose_option(parser)
    add_quiet_option(parser, "the view and the errors only")
    from kartalint.cli.describe_summary import add_summary_arguments

    add_summary_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from kartalint.evaluation import Evaluator

    fmt, output = args.format, args.output
    if output in ("tree", "json", "yaml") and not fmt:
        sys.stderr.write(
            f"kartalint: warning: `describe -o {output}` is deprecated: use `-f {output}` (-o names an output file)\n"
        )
        fmt, output = output, None
    if args.summary or args.more or args.group_by or args.compare:
        from kartalint.cli.describe_summary import run_summary

        return run_summary(args, fmt, output)
    fmt = fmt or "tree"
    if fmt not in ("tree", "json", "yaml"):
        raise ConfigError(f"-f {fmt} is a format of --summary (describe of an object: tree, json or yaml)")
    check_timeout(args.timeout)
    if args.object == "-" and args.pods == "-":
        raise ConfigError("OBJECT and --pods cannot both be read from stdin")
    project = project_of(args)  # its max-file-size applies to the objects read too
    with Evaluator(timeout=args.timeout, force=args.force).start() as evaluator:  # forked while small
        return _describe(args, fmt, output, project, evaluator)


def _describe(args: argparse.Namespace, fmt: str, output: str | None, project: Project, evaluator: Evaluator) -> int:
    from kartalint.load.definitions import DefinitionIndex, format_gvk, object_gvk
    from kartalint.load.objects import load_objects
    from kartalint.report import render_document
    from kartalint.report.describe import Described

    objects, errors = load_objects(args.object, max_bytes=project.config.max_file_size)
    for error in errors:
        sys.stderr.write(f"kartalint: error: {error}\n")
    if errors and not objects:
        return EXIT_USAGE
    if not objects:
        sys.stderr.write(f"kartalint: error: {args.object}: no Kubernetes object found\n")
        return EXIT_USAGE
    pods = read_pods(args.pods)
    fixed = None
    if args.definition:
        index = DefinitionIndex.from_paths([args.definition])
        say_index(index, "error")
        candidates = list(index.by_basename.values())
        if not candidates:
            if not index.problems:  # a file that cannot be read is reported once, above
                sys.stderr.write(f"kartalint: error: {args.definition}: no Karta definition found\n")
            return EXIT_USAGE
        fixed = candidates[0]
    else:
        index = project.index(args.catalog)
        say_index(index, project=project, verbose=args.verbose, problems=False)
    chosen, exit_code = [], EXIT_FAIL if errors else EXIT_OK
    refused: set = set()
    for item in objects:
        gvk = object_gvk(item.data)
        entry = fixed or index.find(gvk)
        if entry is None:
            unread = (
                f"; {len(index.problems) - len(index.explicit_problems)} other file(s) could not be read (-v lists them)"
                if len(index.problems) > len(index.explicit_problems) and not args.verbose and not fixed
                else ""
            )
            sys.stderr.write(
                f"kartalint: error: {item.origin}: no definition for {format_gvk(gvk)}; "
                f"{index.describe_search(gvk)}{unread}\n"
            )
            exit_code = EXIT_USAGE
            continue
        if not args.force and evaluator.prepare(entry.data).invalid:
            if entry.path not in refused:  # say it once per definition, at its places
                refused.add(entry.path)
                for line in invalid_definition_lines(entry, project):
                    sys.stderr.write(f"kartalint: error: {line}\n")
            exit_code = EXIT_FAIL
            continue
        chosen.append((item, entry))
    views = evaluator.evaluate_all([(entry.data, item.data, pods) for item, entry in chosen])
    documents = [(item, entry, view) for (item, entry), view in zip(chosen, views, strict=True)]
    if any(view.all_errors for view in views) and exit_code == EXIT_OK:
        exit_code = EXIT_FAIL
    if not documents:
        return exit_code
    described = Described([(entry, view) for _, entry, view in documents], single=len(objects) == 1)
    emit(render_document("describe", fmt, described), output)
    return exit_code
