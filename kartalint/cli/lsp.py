"""`kartalint lsp`."""

from __future__ import annotations

import argparse
import sys

from kartalint.cli.common import EXIT_USAGE

HELP = "language server for editors (stdio; docs/editor.md)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--stdio", action="store_true", help="talk LSP on stdin/stdout (the default and only transport)"
    )


def run(args: argparse.Namespace) -> int:
    try:
        from kartalint.lsp.server import run_stdio
    except ImportError as exc:  # the lsp extra is not installed
        sys.stderr.write(
            f"kartalint: error: `kartalint lsp` needs pygls and lsprotocol ({exc}): "
            "python3 -m pip install 'kartalint[lsp]'\n"
        )
        return EXIT_USAGE
    return run_stdio()
