"""`kartalint rules [RULE]`: every rule, or one rule explained (why, bad and good example, fix)."""

from __future__ import annotations

import argparse
import sys

from kartalint.cli.common import EXIT_OK, EXIT_USAGE
from kartalint.report import format_choices, render_document
from kartalint.report.rules_doc import RuleList
from kartalint.rules import registry

HELP = "list every rule, or explain one (`kartalint rules RULE`)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "rule", nargs="?", metavar="RULE", help="explain this rule: why it exists, a bad and a good example, the fix"
    )
    parser.add_argument("-f", "--format", choices=format_choices("rules"), default="text")


def run(args: argparse.Namespace) -> int:
    listing = RuleList(registry.iter_rules())
    if args.rule is not None:
        if args.rule not in registry.RULES:
            import difflib

            near = difflib.get_close_matches(args.rule, registry.RULES, n=1)
            guess = f"did you mean {near[0]}? " if near else ""
            sys.stderr.write(f"kartalint: error: unknown rule '{args.rule}' ({guess}see `kartalint rules`)\n")
            return EXIT_USAGE
        listing = RuleList([registry.get(args.rule)], explain=True)
    sys.stdout.write(render_document("rules", args.format, listing))
    return EXIT_OK
