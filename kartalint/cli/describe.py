"""`kartalint describe`: what a definition makes of a workload object, from a file or, with
``--kubectl``, from the cluster (the object and its pods, as ``kli describe`` shows them live).

``run`` parses the command line into a ``DescribeRequest``, then hands it to the summary
(``describe_summary``, with ``--summary``) or reads the objects and has ``evaluation.described``
choose their definitions and evaluate them; its ``Description`` holds the exit code.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kartalint.cli import EXIT_USAGE
from kartalint.cli.common import (
    add_config_option,
    add_quiet_option,
    add_verbose_option,
    check_timeout,
    emit,
    given_once,
    project_of,
    say_index,
)
from kartalint.cli.describe_summary import SummaryRequest, add_summary_arguments, parse_summary, run_summary
from kartalint.errors import ConfigError
from kartalint.evaluation import Evaluator
from kartalint.evaluation.described import Description, Subject, describe, live_subject
from kartalint.load.definitions import DefinitionIndex, format_gvk, object_gvk
from kartalint.load.kubectl import Cluster
from kartalint.load.objects import load_objects, read_pods_and_owners
from kartalint.report import format_choices, render_document
from kartalint.report.describe import Described
from kartalint.testing.run import LintCache, invalid_definition_problems

if TYPE_CHECKING:
    from kartalint.load.definitions import DefinitionFile
    from kartalint.project import Project


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``kartalint describe``: the tree of what a definition finds in workload objects."""
    parser.add_argument(
        "object",
        nargs="?",
        metavar="OBJECT",
        help="workload manifest (YAML/JSON; a List or several documents describe each; '-' for stdin); "
        "with --kubectl: KIND/NAME (or KIND NAME)",
    )
    parser.add_argument("more", nargs="*", metavar="OBJECT", help="more manifests (with --summary)")
    _add_input_options(parser)
    _add_output_options(parser)
    _add_cluster_options(parser)
    add_summary_arguments(parser)


def _add_input_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-d", "--definition", help="definition to apply (default: chosen by the object's group/version/kind)"
    )
    parser.add_argument(
        "--pods",
        action="append",
        metavar="FILE",
        help="pods (a PodList, several documents, or one Pod), and their owners (kubectl get pods,jobs -o yaml): "
        "with several objects or with owners, each object gets the pods whose owner references lead to it",
    )
    parser.add_argument(
        "--catalog",
        action="append",
        default=[],
        metavar="DIR",
        help="more definitions to choose from, searched before the project's and the bundled catalog (repeatable)",
    )
    add_config_option(parser)


def _add_output_options(parser: argparse.ArgumentParser) -> None:
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


def _add_cluster_options(parser: argparse.ArgumentParser) -> None:
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

    @classmethod
    def parse(cls, args: argparse.Namespace) -> DescribeRequest:
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
        request = cls(objects, fmt, output, args.definition, given_once("--pods", args.pods), tuple(args.catalog), args.timeout,
                      args.force, args.verbose, _cluster(args), summary)  # fmt: skip
        check_timeout(request.timeout)
        return request

    def object_format(self) -> str:
        """The format of describe of an object (a usage error for one of ``--summary``, or for
        stdin read twice)."""
        fmt = self.fmt or "tree"
        if fmt not in ("tree", "json", "yaml"):
            raise ConfigError(f"-f {fmt} is a format of --summary (describe of an object: tree, json or yaml)")
        if self.objects[:1] == ("-",) and self.pods == "-":
            raise ConfigError("OBJECT and --pods cannot both be read from stdin")
        return fmt


def _cluster(args: argparse.Namespace) -> Cluster | None:
    """The cluster of ``--kubectl`` (None without it; the options that need it are refused)."""
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


def run(args: argparse.Namespace) -> int:
    """``kartalint describe`` with parsed ``args``: the tree of what a definition finds in workload objects; its exit code."""
    request = DescribeRequest.parse(args)
    project = project_of(args)  # its max-file-size applies to the objects read too
    if request.summary is not None:
        return run_summary(request, project)
    fmt = request.object_format()
    with Evaluator(timeout=request.timeout, force=request.force).start() as evaluator:  # forked while small
        subject = _live(request.cluster, request.objects, project) if request.cluster else _from_file(request, project)
        for error in subject.errors:
            sys.stderr.write(f"kartalint: error: {error}\n")
        if not subject.objects:
            if not subject.errors:
                sys.stderr.write(f"kartalint: error: {subject.source}: no Kubernetes object found\n")
            return EXIT_USAGE
        definitions = _definitions(request, project)
        if definitions is None:
            return EXIT_USAGE
        description = describe(subject, *definitions, evaluator)
    _say_left_out(request, project, description, definitions[0])
    for note in description.pods_notes():
        sys.stderr.write(f"kartalint: note: {note}\n")
    _write(description, fmt, request.output)
    return description.exit_code()


def _write(description: Description, fmt: str, output: str | None) -> None:
    """The trees (or documents) of the objects described, if any."""
    if description.views:
        described = Described(list(description.views), single=len(description.subject.objects) == 1)
        emit(render_document("describe", fmt, described), output)


def _from_file(request: DescribeRequest, project: Project) -> Subject:
    objects, errors = load_objects(request.objects[0], max_bytes=project.config.max_file_size)
    given = read_pods_and_owners(request.pods)
    pods, owners = given if given is not None else (None, [])
    if pods == [] and not owners:  # an empty List: what kubectl prints when no pod matches
        sys.stderr.write(f"kartalint: note: {request.pods}: no pod in it: every object is shown without pods\n")
    return Subject(request.objects[0], objects, errors, pods, owners)


def _live(cluster: Cluster, words: tuple[str, ...], project: Project) -> Subject:
    """The object of the cluster and its pods; what kubectl refused on the way is a warning."""
    subject, problems = live_subject(cluster, words, project.config.max_file_size)
    for problem in problems:
        sys.stderr.write(f"kartalint: warning: {problem.line}\n")
    return subject


def _definitions(request: DescribeRequest, project: Project) -> tuple[DefinitionIndex, DefinitionFile | None] | None:
    """Where definitions are chosen from, and the one ``--definition`` fixes (None without it);
    None when ``--definition`` holds none (said)."""
    if not request.definition:
        index = project.index(request.catalogs)
        # the tree names the definition file used: a project one shadowing a bundled one is said with -v
        say_index(index, project=project, verbose=request.verbose, problems=False, shadowing=False)
        return index, None
    index = DefinitionIndex.from_paths([request.definition])
    say_index(index, "error")
    candidates = list(index.by_basename.values())
    if not candidates:
        if not index.problems:  # a file that cannot be read is said once, above
            sys.stderr.write(f"kartalint: error: {request.definition}: no Karta definition found\n")
        return None
    return index, candidates[0]


def _say_left_out(request: DescribeRequest, project: Project, description: Description, index: DefinitionIndex) -> None:
    """Each object left out, in order: no definition for it (where it was searched), or its
    definition refused by upstream (why, at its places: once per definition)."""
    refused: set[str] = set()
    for choice in description.choices:
        if choice.outcome == "uncovered":
            gvk = object_gvk(choice.item.data)
            others = len(index.problems) - len(index.explicit_problems)
            unread = (
                f"; {others} other file(s) could not be read (-v lists them)" if others and not request.verbose else ""
            )
            sys.stderr.write(
                f"kartalint: error: {choice.item.origin}: no definition for {format_gvk(gvk)}; "
                f"{index.describe_search(gvk)}{unread}\n"
            )
        elif choice.outcome == "refused" and choice.definition is not None and choice.definition.path not in refused:
            refused.add(choice.definition.path)  # say it once per definition, at its places
            for line in invalid_definition_lines(choice.definition, project):
                sys.stderr.write(f"kartalint: error: {line}\n")


def invalid_definition_lines(entry: DefinitionFile, project: Project) -> list[str]:
    """Why a definition is refused, each problem at its place, and what to do."""
    return [
        *invalid_definition_problems(entry, LintCache(project.config)),
        f"{entry.path}: the definition is invalid (upstream refuses it): nothing was evaluated; "
        "fix it, or add --force to see what it makes of the object anyway",
    ]
