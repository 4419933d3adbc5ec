"""`kartalint rules [RULE]`: every rule, or one rule explained (why, bad and good example, fix)."""

from __future__ import annotations

import argparse
import json
import sys

from kartalint.cli.common import EXIT_OK, EXIT_USAGE
from kartalint.report.rules_doc import rule_section, rules_markdown
from kartalint.rules import registry as rules

HELP = "list every rule, or explain one (`kartalint rules RULE`)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "rule", nargs="?", metavar="RULE", help="explain this rule: why it exists, a bad and a good example, the fix"
    )
    parser.add_argument("-f", "--format", choices=["text", "json", "markdown"], default="text")


def run(args: argparse.Namespace) -> int:
    all_rules = rules.iter_rules()
    if args.rule is not None:
        if args.rule not in rules.RULES:
            sys.stderr.write(f"kartalint: error: unknown rule '{args.rule}' (see `kartalint rules`)\n")
            return EXIT_USAGE
        all_rules = [rules.get(args.rule)]
    if args.format == "json":
        data = [
            {
                "id": r.id,
                "severity": str(r.severity),
                "category": r.category,
                "summary": r.summary,
                "hint": r.hint,
                "why": r.why,
            }
            for r in all_rules
        ]
        sys.stdout.write(json.dumps({"schemaVersion": 1, "rules": data}, indent=2) + "\n")
    elif args.rule is not None:
        sys.stdout.write("\n".join(rule_section(all_rules[0])))
    elif args.format == "markdown":
        sys.stdout.write(rules_markdown())
    else:
        width = max(len(r.id) for r in all_rules)
        for r in all_rules:
            sys.stdout.write(f"{r.id:<{width}}  {r.severity!s:<7}  {r.category:<8}  {r.summary}\n")
    return EXIT_OK
