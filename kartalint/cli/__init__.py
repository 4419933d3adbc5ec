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

from kartalint import __version__
from kartalint.cli.common import EXIT_OK, EXIT_USAGE, Parser
from kartalint.rules.config import ConfigError

COMMANDS = {
    name: importlib.import_module(f"kartalint.cli.{name}")
    for name in ("lint", "describe", "test", "diff", "explore", "new", "init", "catalog", "rules", "schema")
}


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="kartalint", description="Lint, evaluate and test Karta (Workload-Map) definitions.")
    parser.add_argument("--version", action="version", version=f"kartalint {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name, module in COMMANDS.items():
        module.add_arguments(sub.add_parser(name, help=module.HELP))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return int(COMMANDS[args.command].run(args))
    except ConfigError as exc:
        sys.stderr.write(f"kartalint: error: {exc}\n")
        return EXIT_USAGE
    except BrokenPipeError:  # pragma: no cover - e.g. piped into head
        return EXIT_OK
    except KeyboardInterrupt:  # pragma: no cover
        return 130
