"""`kartalint new`."""

from __future__ import annotations

import argparse
import os
import sys

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
    parser.add_argument("--name", help="fixture name (default: the object's name)")
    parser.add_argument("--source", help="where the object comes from (default: the object file)")
    parser.add_argument("-o", "--output", help="write to this file instead of stdout")
    add_verbose_option(parser)


def run(args: argparse.Namespace) -> int:
    if args.crd and not args.target:
        return _new_from_crd(args)
    if len(args.target) == 2 and args.target[0] == "fixture" and not args.crd:
        return _new_fixture(args, args.target[1])
    raise ConfigError(
        "usage: kartalint new --crd CRD.yaml [--version V] [-o FILE] | kartalint new fixture OBJECT.yaml [--definition DEF] [-o FILE]"
    )


def _new_from_crd(args: argparse.Namespace) -> int:
    from kartalint.evaluation import Evaluator
    from kartalint.report import make_document_reporter
    from kartalint.report.drafts import DraftReview
    from kartalint.report.output import open_report, write_report
    from kartalint.scaffold.drafts import ScaffoldError, drafts_from_crd
    from kartalint.scaffold.skeleton import skeleton_fixture, skeleton_source

    if not os.path.isfile(args.crd):
        raise ConfigError(f"--crd {args.crd}: no such file")
    try:
        drafts = drafts_from_crd(args.crd, args.crd_version)
    except ScaffoldError as exc:
        sys.stderr.write(f"kartalint: error: {exc}\n")
        return EXIT_USAGE
    fixture_path = args.fixture or (
        os.path.splitext(args.output)[0] + ".fixture.yaml" if args.output and len(drafts) == 1 else None
    )
    definition_ref = (
        os.path.relpath(os.path.abspath(args.output), os.path.dirname(os.path.abspath(fixture_path)))
        if args.output and fixture_path
        else None
    )
    source = skeleton_source(args.crd)
    with Evaluator() as evaluator:  # the same skeleton, checks and fixture as `init --crd`
        skeletons = [skeleton_fixture(d, evaluator, source=source, definition=definition_ref) for d in drafts]
    for draft, skeleton in zip(drafts, skeletons, strict=True):
        if skeleton.text is not None:  # evaluated: its extraction errors are problems of the draft
            draft.problems = list(draft.problems) + skeleton.errors
    review_stream = sys.stdout if args.format == "json" else sys.stderr  # text: notes beside the draft
    make_document_reporter("new", args.format, review_stream).report(DraftReview(drafts, args.crd))
    failed = False
    for skeleton in skeletons:
        for error in skeleton.errors:
            failed = True
            sys.stderr.write(f"kartalint: error: {error}\n")
    first = skeletons[0] if fixture_path else None
    fixture_text = first.text if fixture_path and first is not None else None
    if fixture_path and fixture_text is not None:
        open_report(fixture_path).abandon()  # an unwritable path is said now, before anything is written
    if args.format != "json" or args.output:
        emit("---\n".join(d.text for d in drafts), args.output, "a draft, review every TODO")
    if fixture_path and first is not None and fixture_text is not None:
        write_report(fixture_path, fixture_text)  # whole or not at all (report.output)
        what = "its current evaluation" if not first.errors else "an empty expect (nothing pinned)"
        sys.stderr.write(f"kartalint: wrote {fixture_path}: a minimal object of the CRD with {what}\n")
    return EXIT_FAIL if failed else EXIT_OK


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
        lint_rules=LintCache(project.config).rule_ids(entry) or None,
    )
    emit(text, args.output, f"review the expect block before committing (definition: {entry.path})")
    return EXIT_OK
