"""`kartalint new`: the options as a ``DraftRequest`` (``new --crd``: the drafts and their fixtures
made by ``scaffold.drafted``, reviewed and written; the exit code is theirs) or a ``FixtureRequest``
(``new fixture``: the object, its definition, the fixture of its evaluation)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, NamedTuple

from kartalint.cli import EXIT_OK, EXIT_USAGE
from kartalint.cli.common import add_config_option, add_verbose_option, emit, given_once, project_of, say_index
from kartalint.errors import ConfigError
from kartalint.evaluation import Evaluator
from kartalint.evaluation.described import pods_of_one
from kartalint.load.confinement import why_not_a_file
from kartalint.load.definitions import DefinitionIndex, format_gvk, object_gvk
from kartalint.load.objects import load_objects, read_pods_and_owners
from kartalint.load.observed import read_observed
from kartalint.report import format_choices, make_document_reporter
from kartalint.report.drafts import DraftReview
from kartalint.report.output import open_report, write_report
from kartalint.scaffold.drafted import Drafted, draft_crd
from kartalint.scaffold.drafts import ScaffoldError
from kartalint.scaffold.fixture import object_fixture
from kartalint.testing.run import LintCache

if TYPE_CHECKING:
    from kartalint.load.definitions import DefinitionFile
    from kartalint.project import Project


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``kartalint new``: a drafted definition or fixture."""
    parser.add_argument(
        "target",
        nargs="*",
        metavar="fixture OBJECT",
        help="`fixture OBJECT.yaml` (or `-` for stdin): a fixture with expect filled from the current evaluation",
    )
    _add_draft_options(parser)
    _add_fixture_options(parser)
    parser.add_argument("-o", "--output", metavar="FILE", help="write to this file instead of stdout")
    add_verbose_option(parser)


def _add_draft_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--crd",
        metavar="CRD",
        help="draft a definition from this CustomResourceDefinition file (several CRDs in a stream: one draft each)",
    )
    parser.add_argument(
        "--from",
        dest="sources",
        action="append",
        default=[],
        metavar="PATH",
        help="with --crd: draft from real objects and their pods (a file or folder of YAML or JSON: "
        "`kubectl get KIND -A -o yaml`, `kubectl get pods -A -o yaml`; repeatable)",
    )
    parser.add_argument(
        "--version", dest="crd_version", metavar="V", help="CRD version to draft (default: the stored version)"
    )
    parser.add_argument(
        "--fixture",
        metavar="FILE",
        help="with --crd: where to write the fixture skeleton (default: next to -o as NAME.fixture.yaml)",
    )
    parser.add_argument(
        "-f",
        "--format",
        choices=format_choices("new"),
        default="text",
        help="with --crd: `json` prints the review (roles, paths, replicas, confidence, problems) as JSON on stdout",
    )


def _add_fixture_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-d", "--definition", help="definition to apply (default: chosen by the object's group/version/kind)"
    )
    parser.add_argument(
        "--catalog",
        action="append",
        default=[],
        metavar="DIR",
        help="more definitions to choose from, before the project's and the bundled catalog (repeatable)",
    )
    add_config_option(parser)
    parser.add_argument(
        "--pods",
        action="append",
        metavar="FILE",
        help="pods (and their owners) to take the object's from, as describe takes them: the fixture holds those",
    )
    parser.add_argument(
        "--pin-lint",
        action="store_true",
        help="with `fixture`: also pin the definition's lint findings (expect.lint; lint's verdict is lint's job)",
    )
    parser.add_argument("--name", help="fixture name (default: the object's name)")
    parser.add_argument("--source", help="where the object comes from (default: the object file)")


class DraftRequest(NamedTuple):
    """`new --crd CRD [--from PATH ...]`: what to draft from and where its outputs go."""

    crd: str
    version: str | None
    sources: tuple[str, ...]
    output: str | None
    fixture: str | None
    format: str


class FixtureRequest(NamedTuple):
    """`new fixture OBJECT`: the object (``-``: stdin) and its pods, where its definition is found,
    what the fixture says and where it goes."""

    object: str
    pods: str | None
    definition: str | None
    catalogs: tuple[str, ...]
    name: str | None
    source: str | None
    pin_lint: bool
    output: str | None
    verbose: bool


def parse_request(args: argparse.Namespace) -> DraftRequest | FixtureRequest:
    """The request of ``new --crd`` or of ``new fixture OBJECT``; ``ConfigError`` for a command line
    that is neither."""
    if args.crd and not args.target:
        if args.sources and args.fixture:
            raise ConfigError(
                "--fixture names the skeleton's file; with --from the fixtures go beside -o, one per state"
            )
        if not os.path.isfile(args.crd):
            raise ConfigError(f"--crd {args.crd}: {why_not_a_file(args.crd)}")
        return DraftRequest(args.crd, args.crd_version, tuple(args.sources), args.output, args.fixture, args.format)
    if args.sources:
        raise ConfigError("--from drafts a definition: kartalint new --crd CRD.yaml --from PATH [-o FILE]")
    if len(args.target) == 2 and args.target[0] == "fixture" and not args.crd:
        pods = given_once("--pods", args.pods)
        if args.target[1] == "-" and pods == "-":
            raise ConfigError("OBJECT and --pods cannot both be read from stdin")
        return FixtureRequest(str(args.target[1]), pods, args.definition, tuple(args.catalog), args.name,
                              args.source, args.pin_lint, args.output, args.verbose)  # fmt: skip
    raise ConfigError(
        "usage: kartalint new --crd CRD.yaml [--from PATH ...] [--version V] [-o FILE] | "
        "kartalint new fixture OBJECT.yaml [--definition DEF] [-o FILE]"
    )


def run(args: argparse.Namespace) -> int:
    """``kartalint new`` with parsed ``args``: a drafted definition or fixture; its exit code."""
    request = parse_request(args)
    if isinstance(request, DraftRequest):
        return _new_draft(request)
    obj = _one_object(request.object)
    if obj is None:
        return EXIT_USAGE
    pods = _pods_of(obj, request.pods)
    project = project_of(args)
    entry = _definition(request, project, obj)
    if entry is None:
        return EXIT_USAGE
    _new_fixture(request, project, obj, pods, entry)
    return EXIT_OK


def _pods_of(obj: dict[str, object], path: str | None) -> list[dict[str, object]] | None:
    """The pods of ``--pods`` (and their owners) that the object gets, as ``describe`` gives them;
    the others said in a note (None without ``--pods``)."""
    given = read_pods_and_owners(path)
    if given is None:
        return None
    mine, notes = pods_of_one(obj, *given)
    for note in notes:
        sys.stderr.write(f"kartalint: note: {note}\n")
    return mine


def _new_draft(request: DraftRequest) -> int:
    """``new --crd``: the drafts (and their fixtures) made, reviewed and written."""
    observed = read_observed(request.sources) if request.sources else None
    if observed is not None and observed.problems:
        for problem in observed.problems:
            sys.stderr.write(f"kartalint: error: {problem}\n")
        return EXIT_USAGE
    try:
        with Evaluator() as evaluator:  # the same skeleton, checks and fixtures as `init --crd`
            outcome = draft_crd(request.crd, request.version, observed, evaluator, request.output, request.fixture)
    except ScaffoldError as exc:
        sys.stderr.write(f"kartalint: error: {exc}\n")
        return EXIT_USAGE
    _review(request, outcome)
    for error in outcome.errors:
        sys.stderr.write(f"kartalint: error: {error}\n")
    _write(request, outcome)
    return outcome.exit_code()


def _review(request: DraftRequest, outcome: Drafted) -> None:
    review_stream = sys.stdout if request.format == "json" else sys.stderr  # text: notes beside the draft
    make_document_reporter("new", request.format, review_stream).report(DraftReview(outcome.drafts, request.crd))


def _write(request: DraftRequest, outcome: Drafted) -> None:
    """The draft (to -o or stdout) and its fixtures, each whole or not at all (report.output)."""
    for path, _, _ in outcome.fixtures:  # an unwritable path is said now, before anything is written
        open_report(path).abandon()  # (its folder made as every report's: never through a link out)
    if request.format != "json" or request.output:
        emit("---\n".join(d.text for d in outcome.drafts), request.output, "a draft, review every TODO")
    for path, text, what in outcome.fixtures:
        write_report(path, text)
        sys.stderr.write(f"kartalint: wrote {path}: {what}\n")
    if request.sources and not request.output:
        sys.stderr.write("kartalint: note: with -o FILE the fixtures of each observed state are written beside it\n")


def _one_object(path: str) -> dict[str, object] | None:
    """The one object of the file (None when it cannot be read or holds another number: said)."""
    objects, errors = load_objects(path)
    for error in errors:
        sys.stderr.write(f"kartalint: error: {error}\n")
    if errors or len(objects) != 1:
        if not errors:
            sys.stderr.write(f"kartalint: error: {path}: a fixture holds exactly one object (found {len(objects)})\n")
        return None
    return objects[0].data


def _definition(request: FixtureRequest, project: Project, obj: dict[str, object]) -> DefinitionFile | None:
    """The definition of ``--definition``, else the one the project's search finds for the object
    (None when there is none: said)."""
    if request.definition:
        index = DefinitionIndex.from_paths([request.definition])
        entry = index.definitions[0] if index.definitions else None
    else:
        index = project.index(request.catalogs)
        entry = index.find(object_gvk(obj))
    say_index(index, project=project, verbose=request.verbose, problems=entry is None)
    if entry is None:
        sys.stderr.write(
            f"kartalint: error: no definition for {format_gvk(object_gvk(obj))}; {index.describe_search(object_gvk(obj))}\n"
        )
    return entry


def _new_fixture(
    request: FixtureRequest,
    project: Project,
    obj: dict[str, object],
    pods: list[dict[str, object]] | None,
    entry: DefinitionFile,
) -> None:
    """The fixture of the object with the expect block of its current evaluation, written."""
    with Evaluator() as evaluator:
        view = evaluator.evaluate(entry.data, obj, pods)
    lint_rules = (LintCache(project.config).rule_ids(entry) or None) if request.pin_lint else None
    text = object_fixture(obj, view, entry, request.object, request.output, name=request.name, source=request.source,
                          pods=pods, lint_rules=lint_rules)  # fmt: skip
    emit(text, request.output, f"review the expect block before committing (definition: {entry.path})")
