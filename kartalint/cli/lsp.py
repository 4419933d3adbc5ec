"""`kartalint lsp`."""

from __future__ import annotations

import argparse
import sys

from kartalint.cli import EXIT_USAGE

try:  # the lsp extra (pygls, lsprotocol): without it, `kartalint lsp` says what to install
    from kartalint.lsp.server import run_stdio
except ImportError as exc:
    MISSING: str | None = str(exc)
else:
    MISSING = None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``kartalint lsp``: the language server on standard input and output."""
    parser.add_argument(
        "--stdio", action="store_true", help="talk LSP on stdin/stdout (the default and only transport)"
    )


def run(args: argparse.Namespace) -> int:
    """``kartalint lsp`` with parsed ``args``: the language server on standard input and output; its exit code."""
    if MISSING is not None:
        sys.stderr.write(
            f"kartalint: error: `kartalint lsp` needs pygls and lsprotocol ({MISSING}): "
            "python3 -m pip install 'kartalint[lsp]'\n"
        )
        return EXIT_USAGE
    return run_stdio()
