"""`kartalint new`."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from kartalint.cli.common import (
    EXIT_FAIL,
    EXIT_OK,
    EXIT_USAGE,
    add_config_option,
    emit,
    project_of,
    read_pods,
    say_index,
)
from kartalint.rules.config import ConfigError

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
        choices=["text", "json"],
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
    from kartalint.report.output import open_report, write_report
    from kartalint.scaffold.drafts import ScaffoldError, drafts_from_crd
    from kartalint.scaffold.fixture import fixture_text

    if not os.path.isfile(args.crd):
        raise ConfigError(f"--crd {args.crd}: no such file")
    try:
        drafts = drafts_from_crd(args.crd, args.crd_version)
    except ScaffoldError as exc:
        sys.stderr.write(f"kartalint: error: {exc}\n")
        return EXIT_USAGE
    if args.format == "json":
        sys.stdout.write(json.dumps(_review_document(drafts), indent=2) + "\n")
        if not args.output:
            args.output = None
    else:
        _review_report(drafts, args.crd)
    invalid = [d for d in drafts if d.problems]
    for draft in invalid:  # the skeleton must be an object the API server would accept
        for problem in draft.problems:
            sys.stderr.write(
                f"kartalint: error: the skeleton {draft.fixture_object.get('kind')} object is not valid for its CRD: {problem}\n"
            )
    fixture_path = args.fixture or (
        os.path.splitext(args.output)[0] + ".fixture.yaml" if args.output and len(drafts) == 1 else None
    )
    if invalid:
        fixture_path = None  # never write a fixture of an object the CRD refuses
    if fixture_path:
        open_report(fixture_path).abandon()  # an unwritable path is said now, before anything is written
    if args.format != "json" or args.output:
        emit("---\n".join(d.text for d in drafts), args.output, "a draft, review every TODO")
    if fixture_path:
        draft = drafts[0]
        with Evaluator() as evaluator:
            view = evaluator.evaluate(draft.data, draft.fixture_object)
        definition_ref = (
            os.path.relpath(os.path.abspath(args.output), os.path.dirname(os.path.abspath(fixture_path)))
            if args.output
            else None
        )
        write_report(  # whole or not at all (report.output)
            fixture_path,
            fixture_text(
                draft.fixture_object,
                view,
                name=f"minimal {draft.name}",
                source=f"minimal object built from the CRD schema of {os.path.basename(args.crd)} (required fields and defaults)",
                definition=definition_ref,
            ),
        )
        sys.stderr.write(f"kartalint: wrote {fixture_path}: a minimal object of the CRD with its current evaluation\n")
    return EXIT_FAIL if invalid else EXIT_OK


def _review_document(drafts: Any) -> dict:
    """``new --crd --format json``: what each draft found (``schemaVersion`` 1)."""
    from kartalint.scaffold.drafts import review

    return {"schemaVersion": 1, "drafts": [review(d) for d in drafts]}


def _review_report(drafts: Any, crd_path: str) -> None:
    """What the drafts found and how sure each guess is, on stderr (the draft goes to stdout or -o)."""
    from kartalint.scaffold.drafts import review

    for draft in drafts:
        sys.stderr.write(f"kartalint: {draft.name}: {len(draft.roles)} role(s) found in {crd_path}\n")
        for role in review(draft)["roles"]:
            sys.stderr.write(
                f"kartalint:   {role['name']:<16} {role['path']:<44} {role['confidence']:<26} replicas: {role['replicas']}\n"
            )


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
    if args.definition:
        index = DefinitionIndex.from_paths([args.definition])
        entry = index.definitions[0] if index.definitions else None
    else:
        index = project_of(args).index(args.catalog)
        entry = index.find(object_gvk(obj))
    say_index(index)
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
        lint_rules=LintCache().rule_ids(entry) or None,
    )
    emit(text, args.output, f"review the expect block before committing (definition: {entry.path})")
    return EXIT_OK
