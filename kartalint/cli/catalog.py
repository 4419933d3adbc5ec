"""`kartalint catalog`."""

from __future__ import annotations

import argparse
import functools
import sys
from typing import TYPE_CHECKING, NamedTuple

from kartalint.cli import EXIT_OK, EXIT_USAGE
from kartalint.cli.common import add_allow_outside_option, add_config_option, add_verbose_option, project_of, say_index
from kartalint.load.definitions import DefinitionIndex, bundled_fixtures
from kartalint.mutation.run import MutationOptions, scores_by_definition
from kartalint.report import format_choices, render_document
from kartalint.testing.catalog import catalog_rows
from kartalint.testing.run import LintCache

if TYPE_CHECKING:
    from kartalint.load.definitions import DefinitionIndex
    from kartalint.project import Project
    from kartalint.testing.catalog import MutationScores


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``kartalint catalog``: the catalog's table (definitions, fixtures, modes, mutation scores)."""
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


class CatalogRequest(NamedTuple):
    """What ``kartalint catalog`` was asked to do."""

    definitions: tuple[str, ...]
    fixtures: str | None
    format: str
    mutants: bool
    allow_outside: tuple[str, ...]
    verbose: bool

    @classmethod
    def parse(cls, args: argparse.Namespace) -> CatalogRequest:
        """The request of the parsed command line."""
        return cls(
            definitions=tuple(args.definitions),
            fixtures=args.fixtures,
            format=args.format,
            mutants=args.mutants,
            allow_outside=tuple(args.allow_outside),
            verbose=args.verbose,
        )


def run(args: argparse.Namespace) -> int:
    """``kartalint catalog`` with parsed ``args``: the catalog's table (definitions, fixtures, modes, mutation scores); its exit code."""
    request = CatalogRequest.parse(args)
    project = project_of(args)
    index, bundled = _definitions(request, project)
    say_index(index, project=project, verbose=request.verbose)
    if not index.definitions:
        sys.stderr.write(f"kartalint: error: no definition found; {index.describe_search()}\n")
        return EXIT_USAGE
    fixtures, given = _fixtures(request, project, bundled)
    confinement = project.confinement(given, request.allow_outside)
    scores = _mutation_scores(project, index) if request.mutants else None
    table = catalog_rows(index, fixtures, confinement, LintCache(project.config), scores)
    sys.stdout.write(render_document("catalog", request.format, table))
    return EXIT_OK


def _mutation_scores(project: Project, index: DefinitionIndex) -> MutationScores:
    """``--mutants``: each definition's mutation score, its equivalent mutants from the configuration."""
    options = MutationOptions(equivalent=dict(project.config.mutants_equivalent))
    return functools.partial(scores_by_definition, definitions=index.definitions, options=options)


def _definitions(request: CatalogRequest, project: Project) -> tuple[DefinitionIndex, bool]:
    """The definitions listed (``--definitions``, else the project's, else the bundled catalog)
    and whether they are the bundled catalog."""
    if request.definitions:
        return DefinitionIndex.from_paths(list(request.definitions)), False
    index = project.index()
    own = index.of_origin("project")
    if own:  # the project's definitions; the bundled catalog only when it has none
        return DefinitionIndex.from_paths([d.path for d in own], origin="project"), False
    return index, True


def _fixtures(request: CatalogRequest, project: Project, bundled: bool) -> tuple[list[str], list[str]]:
    """(the fixtures run for coverage, those given on the command line: read wherever they are)."""
    if request.fixtures is not None:
        return [request.fixtures], [request.fixtures]
    fixtures = project.fixture_paths()
    if bundled and not fixtures:  # the bundled catalog with its own fixtures
        shipped = bundled_fixtures()
        return ([shipped], [shipped]) if shipped else ([], [])
    return fixtures, []
