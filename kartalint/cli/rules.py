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
            sys.stderr.write(f"kartalint: error: unknown rule '{args.rule}' (see `kartalint rules`)\n")
            return EXIT_USAGE
        listing = RuleList([registry.get(args.rule)], explain=True)
    sys.stdout.write(render_document("rules", args.format, listing))
    return EXIT_OK
