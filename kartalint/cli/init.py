"""`kartalint init`: the options as one ``InitRequest``, the plan of what to write (``scaffold.init``),
written all or nothing; the exit code is the plan's."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, NamedTuple

from kartalint.cli import EXIT_USAGE
from kartalint.errors import UsageError
from kartalint.scaffold.init import InitError, next_steps, plan, write

if TYPE_CHECKING:
    from kartalint.scaffold.init import Plan


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``kartalint init``: a project's skeleton (configuration, hooks, workflow, drafts)."""
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


class InitRequest(NamedTuple):
    """What ``kartalint init`` was asked to do."""

    crds: tuple[str, ...]
    sources: tuple[str, ...]
    layout: str
    root: str
    hooks_repo: str | None
    action: str | None
    rev: str | None

    @classmethod
    def parse(cls, args: argparse.Namespace) -> InitRequest:
        """The request of the parsed command line (``--from`` needs ``--crd``)."""
        if args.sources and not args.crd:
            raise UsageError("--from drafts from real objects: give the CRD with --crd")
        return cls(
            crds=tuple(args.crd),
            sources=tuple(args.sources),
            layout=args.layout,
            root=args.root,
            hooks_repo=args.hooks_repo,
            action=args.action,
            rev=args.rev,
        )


def run(args: argparse.Namespace) -> int:
    """``kartalint init`` with parsed ``args``: a project's skeleton (configuration, hooks, workflow, drafts); its exit code."""
    request = InitRequest.parse(args)
    try:
        result = plan(request.root, request.layout, request.crds, request.hooks_repo, request.action, request.rev,
                      request.sources)  # fmt: skip
        written = write(result)
    except InitError as exc:
        sys.stderr.write(f"kartalint: error: {exc}\n")
        return EXIT_USAGE
    except OSError as exc:
        sys.stderr.write(f"kartalint: error: cannot write in {request.root}: {exc.strerror or exc}\n")
        return EXIT_USAGE
    _say(request, result, written)
    return result.exit_code()


def _say(request: InitRequest, result: Plan, written: list[str]) -> None:
    """The drafts' review and errors on stderr; what was written, the notes and the next steps on stdout."""
    for line in result.review:  # the same review as `new --crd`
        sys.stderr.write(f"kartalint: {line}\n")
    for error in result.errors:
        sys.stderr.write(f"kartalint: error: {error}\n")
    for path in written:
        sys.stdout.write(f"wrote {os.path.join(request.root, path) if request.root != '.' else path}\n")
    for note in result.notes:
        sys.stdout.write(f"note: {note}\n")
    sys.stdout.write(next_steps(result, request.layout))
