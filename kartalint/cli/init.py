"""`kartalint init`."""

from __future__ import annotations

import argparse
import os
import sys

from kartalint.cli.common import EXIT_FAIL, EXIT_OK, EXIT_USAGE

HELP = "set a repository up: .kartalint.yaml, pre-commit hooks, GitHub workflow, drafts from CRDs"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--crd",
        action="append",
        default=[],
        metavar="CRD",
        help="draft a definition and a fixture skeleton from this CRD file (repeatable)",
    )
    parser.add_argument(
        "--from",
        dest="sources",
        action="append",
        default=[],
        metavar="PATH",
        help="with --crd: draft from real objects and their pods (files or folders of YAML or JSON; repeatable), "
        "with one fixture per state seen",
    )
    parser.add_argument(
        "--layout",
        choices=["definitions", "catalog"],
        default="definitions",
        help="definitions/NAME.yaml with fixtures in definitions/NAME/ (default), or catalog/ + fixtures/NAME/",
    )
    parser.add_argument(
        "--root", default=".", metavar="DIR", help="the repository to set up (default: the current folder)"
    )
    parser.add_argument("--hooks-repo", metavar="URL", help="repository of the pre-commit hooks (default: kartalint's)")
    parser.add_argument("--action", metavar="OWNER/REPO", help="the GitHub Action to use (default: kartalint's)")
    parser.add_argument(
        "--rev", metavar="REV", help="revision to pin hooks and Action to (default: the installed kartalint's)"
    )


def run(args: argparse.Namespace) -> int:
    from kartalint.scaffold.init import InitError, next_steps, plan, write

    try:
        if args.sources and not args.crd:
            raise InitError("--from drafts from real objects: give the CRD with --crd")
        result = plan(args.root, args.layout, args.crd, args.hooks_repo, args.action, args.rev, args.sources)
        written = write(result)
    except InitError as exc:
        sys.stderr.write(f"kartalint: error: {exc}\n")
        return EXIT_USAGE
    except OSError as exc:
        sys.stderr.write(f"kartalint: error: cannot write in {args.root}: {exc.strerror or exc}\n")
        return EXIT_USAGE
    for line in result.review:  # the same review as `new --crd`
        sys.stderr.write(f"kartalint: {line}\n")
    for error in result.errors:
        sys.stderr.write(f"kartalint: error: {error}\n")
    for path in written:
        sys.stdout.write(f"wrote {os.path.join(args.root, path) if args.root != '.' else path}\n")
    for note in result.notes:
        sys.stdout.write(f"note: {note}\n")
    sys.stdout.write(next_steps(result, args.layout))
    return EXIT_FAIL if result.errors else EXIT_OK
