"""`kartalint new`."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kartalint.cli.common import (
    EXIT_FAIL,
    EXIT_OK,
    EXIT_USAGE,
    add_config_option,
    add_verbose_option,
    emit,
    project_of,
    read_pods,
    say_index,
)
from kartalint.errors import ConfigError
from kartalint.report import format_choices

if TYPE_CHECKING:
    from kartalint.evaluation import Evaluator
    from kartalint.load.observed import ObservedInput
    from kartalint.scaffold.draft_model import Draft

HELP = "draft a fixture from an object (`new fixture OBJECT`) or a definition from a CRD (`new --crd CRD`)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "target",
        nargs="*",
        metavar="fixture OBJECT",
        help="`fixture OBJECT.yaml` (or `-` for stdin): a fixture with expect filled from the current evaluation",
    )
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
    parser.add_argument("--pods", help="pods to include in the fixture")
    parser.add_argument(
        "--pin-lint",
        action="store_true",
        help="with `fixture`: also pin the definition's lint findings (expect.lint; lint's verdict is lint's job)",
    )
    parser.add_argument("--name", help="fixture name (default: the object's name)")
    parser.add_argument("--source", help="where the object comes from (default: the object file)")
    parser.add_argument("-o", "--output", help="write to this file instead of stdout")
    add_verbose_option(parser)


@dataclass(frozen=True)
class DraftRequest:
    """`new --crd CRD [--from PATH ...]`: what to draft from and where its outputs go."""

    crd: str
    version: str | None
    sources: tuple[str, ...]
    output: str | None
    fixture: str | None
    format: str


def _request(args: argparse.Namespace) -> DraftRequest | str:
    """The draft request of ``--crd``, or the object file of ``new fixture OBJECT``."""
    if args.crd and not args.target:
        if args.sources and args.fixture:
            raise ConfigError(
                "--fixture names the skeleton's file; with --from the fixtures go beside -o, one per state"
            )
        if not os.path.isfile(args.crd):
            raise ConfigError(f"--crd {args.crd}: no such file")
        return DraftRequest(args.crd, args.crd_version, tuple(args.sources), args.output, args.fixture, args.format)
    if args.sources:
        raise ConfigError("--from drafts a definition: kartalint new --crd CRD.yaml --from PATH [-o FILE]")
    if len(args.target) == 2 and args.target[0] == "fixture" and not args.crd:
        return str(args.target[1])
    raise ConfigError(
        "usage: kartalint new --crd CRD.yaml [--from PATH ...] [--version V] [-o FILE] | "
        "kartalint new fixture OBJECT.yaml [--definition DEF] [-o FILE]"
    )


def run(args: argparse.Namespace) -> int:
    from kartalint.evaluation import Evaluator
    from kartalint.scaffold.drafts import ScaffoldError

    request = _request(args)
    if isinstance(request, str):
        return _new_fixture(args, request)
    observed = _observed(request.sources)
    if observed is not None and observed.problems:
        for problem in observed.problems:
            sys.stderr.write(f"kartalint: error: {problem}\n")
        return EXIT_USAGE
    try:
        with Evaluator() as evaluator:  # the same skeleton, checks and fixtures as `init --crd`
            outcome = _drafted(request, observed, evaluator)
    except ScaffoldError as exc:
        sys.stderr.write(f"kartalint: error: {exc}\n")
        return EXIT_USAGE
    _review(request, outcome)
    for error in outcome.errors:
        sys.stderr.write(f"kartalint: error: {error}\n")
    _write(request, outcome)
    return EXIT_FAIL if outcome.errors else EXIT_OK


@dataclass
class Drafted:
    """The drafts of a request, the fixtures to write (path, text, what it is) and the errors."""

    drafts: list[Draft]
    fixtures: list[tuple[str, str, str]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def _observed(sources: tuple[str, ...]) -> ObservedInput | None:
    from kartalint.load.observed import read_observed

    return read_observed(sources) if sources else None


def _drafted(request: DraftRequest, observed: ObservedInput | None, evaluator: Evaluator) -> Drafted:
    """The drafts, and their fixtures: one per observed state (``--from``), else the skeleton."""
    from kartalint.scaffold.drafts import drafts_from_crd
    from kartalint.scaffold.observed_draft import drafts_from_objects

    if observed is None:
        result = Drafted(drafts_from_crd(request.crd, request.version))
        _skeleton(request, result, evaluator)
        return result
    result = Drafted(drafts_from_objects(request.crd, observed, evaluator, request.version))
    if request.output:
        _observed_fixtures(request.output, result, evaluator)
    return result


def _observed_fixtures(output: str, result: Drafted, evaluator: Evaluator) -> None:
    """One fixture per state seen, in a folder named after the definition beside ``output``."""
    from kartalint.scaffold.observed_checks import case_fixture

    for draft in result.drafts:
        folder = os.path.join(os.path.dirname(output), draft.name)  # relative when -o is: said as given
        reference = os.path.relpath(os.path.abspath(output), os.path.abspath(folder))
        for case in draft.cases:
            text = case_fixture(case, draft.data, evaluator, reference)
            result.fixtures.append((os.path.join(folder, f"{case.slug}.yaml"), text, f"the {case.slug} state seen"))


def _skeleton(request: DraftRequest, result: Drafted, evaluator: Evaluator) -> None:
    """The skeleton fixture (a minimal object of the CRD) of a single draft, beside -o or at --fixture."""
    from kartalint.scaffold.skeleton import skeleton_fixture, skeleton_source

    drafts = result.drafts
    fixture_path = request.fixture or (
        os.path.splitext(request.output)[0] + ".fixture.yaml" if request.output and len(drafts) == 1 else None
    )
    reference = (
        os.path.relpath(os.path.abspath(request.output), os.path.dirname(os.path.abspath(fixture_path)))
        if request.output and fixture_path
        else None
    )
    source = skeleton_source(request.crd)
    skeletons = [skeleton_fixture(d, evaluator, source=source, definition=reference) for d in drafts]
    for draft, skeleton in zip(drafts, skeletons, strict=True):
        if skeleton.text is not None:  # evaluated: its extraction errors are problems of the draft
            draft.problems = list(draft.problems) + skeleton.errors
        result.errors.extend(skeleton.errors)
    first = skeletons[0]
    if fixture_path and first.text is not None:
        what = "a minimal object of the CRD with " + (
            "its current evaluation" if not first.errors else "an empty expect (nothing pinned)"
        )
        result.fixtures.append((fixture_path, first.text, what))


def _review(request: DraftRequest, outcome: Drafted) -> None:
    from kartalint.report import make_document_reporter
    from kartalint.report.drafts import DraftReview

    review_stream = sys.stdout if request.format == "json" else sys.stderr  # text: notes beside the draft
    make_document_reporter("new", request.format, review_stream).report(DraftReview(outcome.drafts, request.crd))


def _write(request: DraftRequest, outcome: Drafted) -> None:
    """The draft (to -o or stdout) and its fixtures, each whole or not at all (report.output)."""
    from kartalint.report.output import open_report, write_report

    for path, _, _ in outcome.fixtures:  # an unwritable path is said now, before anything is written
        open_report(path).abandon()  # (its folder made as every report's: never through a link out)
    if request.format != "json" or request.output:
        emit("---\n".join(d.text for d in outcome.drafts), request.output, "a draft, review every TODO")
    for path, text, what in outcome.fixtures:
        write_report(path, text)
        sys.stderr.write(f"kartalint: wrote {path}: {what}\n")
    if request.sources and not request.output:
        sys.stderr.write("kartalint: note: with -o FILE the fixtures of each observed state are written beside it\n")


def _new_fixture(args: argparse.Namespace, object_path: str) -> int:
    from kartalint.evaluation import Evaluator
    from kartalint.load.definitions import DefinitionIndex, format_gvk, object_gvk
    from kartalint.load.objects import load_objects
    from kartalint.scaffold.fixture import fixture_text
    from kartalint.testing.run import LintCache

    if object_path == "-" and args.pods == "-":
        raise ConfigError("OBJECT and --pods cannot both be read from stdin")
    objects, errors = load_objects(object_path)
    for error in errors:
        sys.stderr.write(f"kartalint: error: {error}\n")
    if errors or len(objects) != 1:
        if not errors:
            sys.stderr.write(
                f"kartalint: error: {object_path}: a fixture holds exactly one object (found {len(objects)})\n"
            )
        return EXIT_USAGE
    obj = objects[0].data
    pods = read_pods(args.pods)
    project = project_of(args)
    if args.definition:
        index = DefinitionIndex.from_paths([args.definition])
        entry = index.definitions[0] if index.definitions else None
    else:
        index = project.index(args.catalog)
        entry = index.find(object_gvk(obj))
    say_index(index, project=project, verbose=args.verbose, problems=entry is None)
    if entry is None:
        sys.stderr.write(
            f"kartalint: error: no definition for {format_gvk(object_gvk(obj))}; {index.describe_search(object_gvk(obj))}\n"
        )
        return EXIT_USAGE
    with Evaluator() as evaluator:
        view = evaluator.evaluate(entry.data, obj, pods)
    base = os.path.dirname(os.path.abspath(args.output)) if args.output else os.getcwd()
    definition_ref = None
    if entry.origin != "bundled" and os.path.basename(base) != entry.name:
        definition_ref = os.path.relpath(os.path.abspath(entry.path), base)  # the folder does not name it: say which
    default_name = "stdin" if object_path == "-" else os.path.splitext(os.path.basename(object_path))[0]
    name = args.name or str((obj.get("metadata") or {}).get("name") or default_name)
    source = args.source or ("kubectl output on stdin" if object_path == "-" else f"object file {object_path}")
    text = fixture_text(
        obj,
        view,
        name=name,
        source=source,
        definition=definition_ref,
        pods=pods,
        lint_rules=(LintCache(project.config).rule_ids(entry) or None) if args.pin_lint else None,
    )
    emit(text, args.output, f"review the expect block before committing (definition: {entry.path})")
    return EXIT_OK
