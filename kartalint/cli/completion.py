"""`kartalint completion SHELL`: a completion script for bash, zsh or fish, generated from the
command-line parser itself with shtab (imported only here: completion costs nothing at start-up):
commands, options, files and folders, and the rule ids wherever a rule is named (``RULE``:
``kartalint rules RULE``, ``lint --disable RULE``).

    kartalint completion bash > ~/.local/share/bash-completion/completions/kartalint
    kartalint completion zsh > "${fpath[1]}/_kartalint"
    kartalint completion fish > ~/.config/fish/completions/kartalint.fish
"""

from __future__ import annotations

import argparse
import sys

import shtab

from kartalint.cli import EXIT_OK
from kartalint.cli.parser import build_parser
from kartalint.rules import registry

SHELLS = ("bash", "zsh", "fish")

# options and positionals that name files or folders, completed as such by the shell
_FILE_DESTS = {
    "paths",
    "path",
    "object",
    "objects",
    "definition",
    "definitions",
    "pods",
    "config",
    "output",
    "crd",
    "sarif",
    "junit_xml",
    "baseline",
    "write_baseline",
    "compare",
    "fixtures",
}
_DIR_DESTS = {"catalog", "save", "root", "allow_outside"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``kartalint completion``: a shell completion script."""
    parser.add_argument("shell", choices=SHELLS, metavar="SHELL", help="bash, zsh or fish")


def _mark_paths(parser: argparse.ArgumentParser, shtab: object, rule_ids: list[str]) -> None:
    """Tell shtab which arguments are files or folders, and which name rules (``RULE``: the rule
    ids are their choices, completed by the shell), in every sub-command."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                _mark_paths(sub, shtab, rule_ids)
        elif action.metavar == "RULE":
            action.choices = rule_ids
        elif action.choices is None and action.nargs != 0:
            if action.dest in _FILE_DESTS:
                action.complete = shtab.FILE  # type: ignore[attr-defined]
            elif action.dest in _DIR_DESTS:
                action.complete = shtab.DIRECTORY  # type: ignore[attr-defined]


def run(args: argparse.Namespace) -> int:
    """``kartalint completion`` with parsed ``args``: a shell completion script; its exit code."""
    parser = build_parser()
    _mark_paths(parser, shtab, sorted(registry.RULES))
    sys.stdout.write(shtab.complete(parser, shell=args.shell))
    if not sys.stdout.isatty():
        sys.stdout.write("\n")
    return EXIT_OK
