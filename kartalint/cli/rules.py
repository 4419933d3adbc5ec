"""`kartalint rules [RULE]`: every rule (the configuration's house rules and the plugins' included),
or one rule explained (why, bad and good example, fix); `--check`: each house rule on its examples."""

from __future__ import annotations

import argparse
import difflib
import sys
from typing import TYPE_CHECKING

from kartalint.cli import EXIT_OK, EXIT_USAGE
from kartalint.cli.common import add_config_option, add_quiet_option, project_of, say_plugin_problems
from kartalint.errors import ConfigError, UsageError
from kartalint.lint.house_check import check_rules
from kartalint.report import DOCUMENTS, format_choices, render_document
from kartalint.report.output import report_output
from kartalint.report.rules_doc import RuleList
from kartalint.rules import registry

if TYPE_CHECKING:
    from kartalint.project import Config


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``kartalint rules``: the rule registry (and the house rules' examples checked)."""
    parser.add_argument(
        "rule", nargs="?", metavar="RULE", help="explain this rule: why it exists, a bad and a good example, the fix"
    )
    parser.add_argument(
        "-f",
        "--format",
        choices=format_choices("rules"),
        default="text",
        help="text, json or markdown (the rules); text, json or github (--check)",
    )
    parser.add_argument(
        "--markdown", dest="format", action="store_const", const="markdown", help="the same as --format markdown"
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="run each house rule on its examples (the bad one must raise it, the good one must not); "
        "exit 1 when one fails",
    )
    add_quiet_option(parser, "with --check: the rules that did not pass and the summary only")
    add_config_option(parser)


class RulesRequest:
    """What ``kartalint rules`` was asked to do."""

    __slots__ = ("check", "format", "quiet", "rule")

    def __init__(self, args: argparse.Namespace) -> None:
        """The request of the parsed command line (a usage error for a format the mode has not)."""
        self.rule: str | None = args.rule
        self.check: bool = args.check
        self.quiet: bool = args.quiet
        self.format: str = args.format
        mode = "rules-check" if self.check else "rules"
        if self.format not in DOCUMENTS[mode]:
            raise UsageError(
                f"--format {self.format}: {'rules --check' if self.check else 'rules'} writes "
                f"{', '.join(DOCUMENTS[mode])}"
            )
        if self.check and self.rule is not None:
            raise UsageError("--check checks every house rule: give no RULE")


def run(args: argparse.Namespace) -> int:
    """``kartalint rules`` with parsed ``args``: the rule registry (and the house rules' examples checked); its exit code."""
    request = RulesRequest(args)
    if request.check:
        checked = check_rules(project_of(args).config)
        checked.quiet = request.quiet
        with report_output(None, commands=request.format == "github") as stream:  # workflow commands let through
            stream.write(render_document("rules-check", request.format, checked))
        if request.format != "text":
            sys.stderr.write(f"kartalint: {checked.summary()}\n")
        return checked.exit_code()
    house = _house_rules(args)
    listing = RuleList(
        registry.iter_rules(), house=tuple(house.house_rules.values()) if house else (), plugins=tuple(registry.PLUGINS)
    )
    if request.rule is not None:
        explained = listing.explained(request.rule)
        if explained is None:
            sys.stderr.write(
                f"kartalint: error: unknown rule '{request.rule}' ({_near(request.rule, listing)}see `kartalint rules`)\n"
            )
            return EXIT_USAGE
        listing = explained
    sys.stdout.write(render_document("rules", request.format, listing))
    return EXIT_OK


def _house_rules(args: argparse.Namespace) -> Config | None:
    """The configuration whose house rules are listed; one that cannot be read is a warning (the
    rules of kartalint are listed all the same: they are what one looks up to fix it)."""
    try:
        return project_of(args).config
    except ConfigError as exc:
        say_plugin_problems()
        sys.stderr.write(f"kartalint: warning: {exc} (its house rules are not listed)\n")
        return None


def _near(rule: str, listing: RuleList) -> str:
    """``did you mean ID? `` for a misspelt rule id, when one of the rules listed is close."""
    known = [r.id for r in listing.rules] + [r.id for r in listing.house]
    near = difflib.get_close_matches(rule, known, n=1)
    return f"did you mean {near[0]}? " if near else ""
