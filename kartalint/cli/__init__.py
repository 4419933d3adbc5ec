"""Command line: parse options, build the pipeline, run it, return an exit code.

One module per command, each with ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``;
what they share is in ``common``.

Exit codes (all commands): 0 success; 1 findings at error level (or warnings with ``--strict``)
or failures; 2 usage or configuration error, missing path, or nothing to check.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Any

from kartalint.cli.common import EXIT_OK, EXIT_USAGE, Parser
from kartalint.errors import UsageError

COMMAND_NAMES = (
    "lint",
    "describe",
    "test",
    "diff",
    "explore",
    "new",
    "init",
    "catalog",
    "rules",
    "schema",
    "lsp",
    "completion",
)


def command(name: str) -> Any:
    """The module of a command (imported when used: a one-file lint imports no other command)."""
    return importlib.import_module(f"kartalint.cli.{name}")


class _Version(argparse.Action):
    """``--version``: computed when asked (the commit and libjq lookups cost a few milliseconds)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: Any, **__: Any) -> None:
        from kartalint.scaffold.release import version_report

        sys.stdout.write(version_report())
        parser.exit(EXIT_OK)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of ``only`` alone (``main`` passes the command being run:
    building the others' parsers is most of a one-file lint's time after imports)."""
    parser = Parser(prog="kartalint", description="Lint, evaluate and test Karta (Workload-Map) definitions.")
    parser.add_argument(
        "--version", action=_Version, nargs=0, help="show the version, commit, Python and libjq versions and exit"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name in COMMAND_NAMES if only is None else (only,):
        module = command(name)
        module.add_arguments(sub.add_parser(name, help=module.HELP))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv[0] if argv and argv[0] in COMMAND_NAMES else None)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return int(command(args.command).run(args))
    except UsageError as exc:
        sys.stderr.write(f"kartalint: error: {exc}\n")
        return EXIT_USAGE
    except BrokenPipeError:  # pragma: no cover - e.g. piped into head
        return EXIT_OK
    except KeyboardInterrupt:  # pragma: no cover
        return 130
