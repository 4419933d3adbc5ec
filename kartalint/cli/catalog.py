"""`kartalint catalog`."""

from __future__ import annotations

import argparse
import sys

from kartalint.cli.common import (
    EXIT_OK,
    EXIT_USAGE,
    add_allow_outside_option,
    add_config_option,
    add_verbose_option,
    project_of,
    say_index,
)
from kartalint.report import format_choices

HELP = "list the bundled definitions (types, roles, status mappings, fixtures, coverage)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--definitions",
        action="append",
        default=[],
        metavar="DIR",
        help="list these definitions (default: the project's definitions, else the bundled catalog)",
    )
    parser.add_argument(
        "--fixtures", metavar="DIR", help="fixtures to count and run for coverage (default: the project's fixtures)"
    )
    add_config_option(parser)
    parser.add_argument("-f", "--format", choices=format_choices("catalog"), default="text")
    parser.add_argument(
        "--mutants",
        action="store_true",
        help="also run each definition's mutants against its fixtures and show the mutation score (docs/fixtures.md)",
    )
    add_allow_outside_option(parser)
    add_verbose_option(parser)


def run(args: argparse.Namespace) -> int:
    from kartalint.load.definitions import DefinitionIndex, bundled_fixtures
    from kartalint.report import render_document
    from kartalint.report.catalog import rows
    from kartalint.testing.run import LintCache

    project = project_of(args)
    bundled = False
    if args.definitions:
        index = DefinitionIndex.from_paths(args.definitions)
    else:
        index = project.index()
        own = index.of_origin("project")
        if own:  # the project's definitions; the bundled catalog only when it has none
            index = DefinitionIndex.from_paths([d.path for d in own], origin="project")
        else:
            bundled = True
    say_index(index, project=project, verbose=args.verbose)
    if not index.definitions:
        sys.stderr.write(f"kartalint: error: no definition found; {index.describe_search()}\n")
        return EXIT_USAGE
    if args.fixtures is not None:
        fixtures = [args.fixtures]
        given = fixtures
    else:
        fixtures, given = project.fixture_paths(), []
        if bundled and not fixtures:  # the bundled catalog with its own fixtures
            shipped = bundled_fixtures()
            fixtures = given = [shipped] if shipped else []
    confinement = project.confinement(given, args.allow_outside)
    options = None
    if args.mutants:
        from kartalint.mutation.run import MutationOptions

        options = MutationOptions(equivalent=dict(project.config.mutants_equivalent))
    table = rows(index, fixtures, confinement, LintCache(project.config), options)
    sys.stdout.write(render_document("catalog", args.format, table))
    return EXIT_OK
