"""`kartalint describe`: what a definition makes of a workload object, from a file or, with
``--kubectl``, from the cluster (the object and its pods, as ``kli describe`` shows them live).

``run`` parses the command line into a ``DescribeRequest``, then hands it to the summary
(``describe_summary``, with ``--summary``) or describes the objects here.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
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
from kartalint.cli.describe_summary import SummaryRequest, add_summary_arguments, parse_summary
from kartalint.errors import ConfigError
from kartalint.report import format_choices

if TYPE_CHECKING:
    from kartalint.evaluation import Evaluator
    from kartalint.load.definitions import DefinitionFile, DefinitionIndex
    from kartalint.load.kubectl import Cluster
    from kartalint.load.objects import LoadedObject
    from kartalint.project import Project

HELP = "what a definition makes of a workload object (roles, replicas, GPUs, status), from a file or the cluster"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "object",
        nargs="?",
        metavar="OBJECT",
        help="workload manifest (YAML/JSON; a List or several documents describe each; '-' for stdin); "
        "with --kubectl: KIND/NAME (or KIND NAME)",
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
    cluster = parser.add_argument_group("the cluster, through your kubectl (docs/kubectl.md)")
    cluster.add_argument(
        "--kubectl",
        action="store_true",
        help="read from the cluster with `kubectl get ... -o json`: OBJECT is KIND/NAME (its pods are "
        "fetched too); with --summary, every kind the definitions cover",
    )
    cluster.add_argument("-n", "--namespace", help="with --kubectl: the namespace (kubectl's default: the context's)")
    cluster.add_argument(
        "-A", "--all-namespaces", action="store_true", help="with --kubectl --summary: every namespace"
    )
    cluster.add_argument("--context", help="with --kubectl: the kubeconfig context kubectl uses")
    cluster.add_argument("--kubeconfig", help="with --kubectl: the kubeconfig file kubectl reads")
    add_summary_arguments(parser)


@dataclass(frozen=True)
class DescribeRequest:
    """What ``describe`` was asked: the objects (files, or KIND/NAME words with ``cluster``), the
    format and output file, where definitions and pods come from, and the summary, if any."""

    objects: tuple[str, ...]
    fmt: str | None
    output: str | None
    definition: str | None
    pods: str | None
    catalogs: tuple[str, ...]
    timeout: float
    force: bool
    verbose: bool
    cluster: Cluster | None
    summary: SummaryRequest | None


def _cluster(args: argparse.Namespace) -> Cluster | None:
    """The cluster of ``--kubectl`` (None without it; the options that need it are refused)."""
    from kartalint.load.kubectl import Cluster

    given = [name for name, value in (("-n", args.namespace), ("-A", args.all_namespaces), ("--context", args.context),
                                      ("--kubeconfig", args.kubeconfig)) if value]  # fmt: skip
    if not args.kubectl:
        if given:
            raise ConfigError(f"{', '.join(given)} go with --kubectl (the cluster through your kubectl)")
        return None
    if args.pods:
        raise ConfigError("--pods and --kubectl: with --kubectl the pods come from the cluster")
    if args.namespace and args.all_namespaces:
        raise ConfigError("-n and -A: choose one namespace, or every one")
    return Cluster.find(args.context, args.kubeconfig, args.namespace, args.all_namespaces)


def parse_request(args: argparse.Namespace) -> DescribeRequest:
    """The request of a ``describe`` command line; ``ConfigError`` for a combination that cannot run."""
    fmt, output = args.format, args.output
    if output in ("tree", "json", "yaml") and not fmt:
        sys.stderr.write(
            f"kartalint: warning: `describe -o {output}` is deprecated: use `-f {output}` (-o names an output file)\n"
        )
        fmt, output = output, None
    objects = tuple(o for o in (args.object, *args.more) if o is not None)
    summary = parse_summary(args, objects)
    if not objects and not (summary and args.kubectl):
        raise ConfigError("give the OBJECT to describe (a file, '-' for stdin), or --kubectl KIND/NAME")
    if args.kubectl and not summary and len(objects) > 2:
        raise ConfigError("--kubectl describes one object: KIND/NAME, or KIND NAME (--summary for many)")
    if args.kubectl and summary and objects:
        raise ConfigError("--summary --kubectl reads every kind the definitions cover: give no OBJECT")
    return DescribeRequest(objects, fmt, output, args.definition, args.pods, tuple(args.catalog), args.timeout,
                           args.force, args.verbose, _cluster(args), summary)  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from kartalint.evaluation import Evaluator

    request = parse_request(args)
    check_timeout(request.timeout)
    project = project_of(args)  # its max-file-size applies to the objects read too
    if request.summary is not None:
        from kartalint.cli.describe_summary import run_summary

        return run_summary(request, project)
    fmt = request.fmt or "tree"
    if fmt not in ("tree", "json", "yaml"):
        raise ConfigError(f"-f {fmt} is a format of --summary (describe of an object: tree, json or yaml)")
    if request.objects[:1] == ("-",) and request.pods == "-":
        raise ConfigError("OBJECT and --pods cannot both be read from stdin")
    with Evaluator(timeout=request.timeout, force=request.force).start() as evaluator:  # forked while small
        loaded = _live(request.cluster, request.objects, project) if request.cluster else _from_file(request, project)
        for error in loaded.errors:
            sys.stderr.write(f"kartalint: error: {error}\n")
        if not loaded.objects:
            if not loaded.errors:
                sys.stderr.write(f"kartalint: error: {loaded.source}: no Kubernetes object found\n")
            return EXIT_USAGE
        definitions = _definitions(request, project)
        if definitions is None:
            return EXIT_USAGE
        chosen, code = _chosen(request, project, evaluator, loaded, definitions)
        return _described(request, fmt, evaluator, loaded, chosen, code)


@dataclass
class Loaded:
    """The objects to describe, the problems met reading them, their pods (None: none given)."""

    source: str
    objects: list[LoadedObject]
    errors: list[str]
    pods: list[dict[str, object]] | None


def _from_file(request: DescribeRequest, project: Project) -> Loaded:
    from kartalint.load.objects import load_objects

    objects, errors = load_objects(request.objects[0], max_bytes=project.config.max_file_size)
    return Loaded(request.objects[0], objects, errors, read_pods(request.pods))


def _live(cluster: Cluster, words: tuple[str, ...], project: Project) -> Loaded:
    """The object ``kubectl get WORDS`` gives and its pods (found as kli's live mode finds them:
    the pods of its namespace whose owners lead to it); what kubectl refuses is a warning."""
    from kartalint.evaluation.owners import PodIndex
    from kartalint.karta import as_dict
    from kartalint.load.kubectl import ClusterProblem, pods_and_owners
    from kartalint.load.objects import LoadedObject

    limit = project.config.max_file_size
    obj = cluster.get(list(words), limit)
    namespace = as_dict(obj.get("metadata")).get("namespace")
    problems: list[ClusterProblem] = []
    pods, owners = pods_and_owners(cluster, limit, problems, namespace if isinstance(namespace, str) else None)
    for problem in problems:
        sys.stderr.write(f"kartalint: warning: {problem.line}\n")
    source = f"kubectl:{'/'.join(words)}"
    return Loaded(source, [LoadedObject(source, obj)], [], PodIndex(pods + owners).of(obj))


def _definitions(request: DescribeRequest, project: Project) -> tuple[DefinitionIndex, DefinitionFile | None] | None:
    """Where definitions are chosen from, and the one ``--definition`` fixes (None without it);
    None when ``--definition`` holds none (said)."""
    from kartalint.load.definitions import DefinitionIndex

    if not request.definition:
        index = project.index(request.catalogs)
        say_index(index, project=project, verbose=request.verbose, problems=False)
        return index, None
    index = DefinitionIndex.from_paths([request.definition])
    say_index(index, "error")
    candidates = list(index.by_basename.values())
    if not candidates:
        if not index.problems:  # a file that cannot be read is said once, above
            sys.stderr.write(f"kartalint: error: {request.definition}: no Karta definition found\n")
        return None
    return index, candidates[0]


def _chosen(
    request: DescribeRequest,
    project: Project,
    evaluator: Evaluator,
    loaded: Loaded,
    definitions: tuple[DefinitionIndex, DefinitionFile | None],
) -> tuple[list[tuple[LoadedObject, DefinitionFile]], int]:
    """Each object with its definition, and the exit code so far (2: an object without one, 1: a
    definition upstream refuses or a place that could not be read), each problem said."""
    from kartalint.load.definitions import format_gvk, object_gvk

    index, fixed = definitions
    chosen, code = [], EXIT_FAIL if loaded.errors else EXIT_OK
    refused: set[str] = set()
    for item in loaded.objects:
        gvk = object_gvk(item.data)
        entry = fixed or index.find(gvk)
        if entry is None:
            others = len(index.problems) - len(index.explicit_problems)
            unread = (
                f"; {others} other file(s) could not be read (-v lists them)" if others and not request.verbose else ""
            )
            sys.stderr.write(
                f"kartalint: error: {item.origin}: no definition for {format_gvk(gvk)}; "
                f"{index.describe_search(gvk)}{unread}\n"
            )
            code = EXIT_USAGE
            continue
        if not request.force and evaluator.prepare(entry.data).invalid:
            if entry.path not in refused:  # say it once per definition, at its places
                refused.add(entry.path)
                for line in invalid_definition_lines(entry, project):
                    sys.stderr.write(f"kartalint: error: {line}\n")
            code = EXIT_FAIL
            continue
        chosen.append((item, entry))
    return chosen, code


def _described(
    request: DescribeRequest,
    fmt: str,
    evaluator: Evaluator,
    loaded: Loaded,
    chosen: list[tuple[LoadedObject, DefinitionFile]],
    code: int,
) -> int:
    """Evaluate the chosen objects with their pods and write the trees (or documents)."""
    from kartalint.report import render_document
    from kartalint.report.describe import Described

    views = evaluator.evaluate_all([(entry.data, item.data, loaded.pods) for item, entry in chosen])
    if any(view.all_errors for view in views) and code == EXIT_OK:
        code = EXIT_FAIL
    if not views:
        return code
    described = Described([(entry, view) for (_, entry), view in zip(chosen, views, strict=True)],
                          single=len(loaded.objects) == 1)  # fmt: skip
    emit(render_document("describe", fmt, described), request.output)
    return code
