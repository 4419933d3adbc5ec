"""`kartalint explore`: objects valid for the CRD that a definition gets wrong (docs/explore.md)."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

import yaml

from kartalint import karta
from kartalint.cli import EXIT_FAIL, EXIT_OK, EXIT_USAGE
from kartalint.cli.common import add_color_option, add_config_option, add_quiet_option, emit, project_of, use_color
from kartalint.errors import ConfigError
from kartalint.evaluation import Evaluator
from kartalint.explore.assume import AssumeError, parse_assumptions
from kartalint.explore.properties import DEFAULT_PROPERTIES, PROPERTIES
from kartalint.lint import lint_source
from kartalint.lint.pipeline import crd_index
from kartalint.load.definitions import DefinitionIndex, format_gvk
from kartalint.load.documents import display_path, load_file
from kartalint.load.kinds import FIXTURE_API_VERSION, FIXTURE_KIND
from kartalint.report import format_choices, render_document
from kartalint.report.explore import Explored
from kartalint.report.explore_ci import field_segments
from kartalint.report.output import make_folders, write_report

try:  # the explore extra: without hypothesis, `kartalint explore` says what to install (_require_hypothesis)
    import hypothesis  # noqa: F401
except ImportError:
    HAS_HYPOTHESIS = False
else:
    HAS_HYPOTHESIS = True
    from kartalint.explore.generate import TooLarge
    from kartalint.explore.search import NothingDrawn, explore

if TYPE_CHECKING:
    from kartalint.explore.assume import Assumptions
    from kartalint.explore.search import Exploration, Failure
    from kartalint.load.crds import CrdIndex
    from kartalint.load.definitions import GVK, DefinitionFile, DefinitionIndex
    from kartalint.model import Finding
    from kartalint.project import Config, Project


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``kartalint explore``: generated objects run through a definition."""
    parser.add_argument(
        "definitions",
        nargs="*",
        metavar="DEFINITION",
        help="definition files or folders (default: the project's definitions)",
    )
    parser.add_argument(
        "--crd",
        action="append",
        default=[],
        metavar="CRD",
        help="CRD files or folders with the root kinds' schemas (default: `crds:` of the configuration)",
    )
    parser.add_argument(
        "--examples", type=int, default=200, metavar="N", help="objects to try per definition (default: 200)"
    )
    parser.add_argument(
        "--seed", type=int, default=0, metavar="S", help="random seed: the same seed finds the same objects"
    )
    parser.add_argument(
        "--max-time", type=float, default=60.0, metavar="SECONDS", help="time budget per definition (default: 60)"
    )
    parser.add_argument(
        "--property",
        action="append",
        default=[],
        metavar="NAME",
        help="check these properties only (repeatable; default: all but statuses-agree)",
    )
    parser.add_argument("--save", metavar="DIR", help="write each failure as a fixture (kind: KartaFixture) in DIR")
    _add_coverage_option(parser)
    parser.add_argument("-f", "--format", choices=format_choices("explore"), default="text")
    add_config_option(parser)
    parser.add_argument("-o", "--output", metavar="FILE", help="write the report to a file instead of stdout")
    add_quiet_option(parser, "only the definitions with failures, and a summary line (text format)")
    add_color_option(parser)


def _add_coverage_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--min-path-coverage",
        type=float,
        metavar="PERCENT",
        help="fail when the objects tried reach fewer of the paths a definition reads (default: "
        "explore.min-path-coverage of the configuration, else no minimum)",
    )


class ExploreRequest(NamedTuple):
    """What ``kartalint explore`` was asked to do."""

    definitions: tuple[str, ...]
    crds: tuple[str, ...]
    examples: int
    seed: int
    max_time: float
    properties: tuple[str, ...]
    save: str | None
    min_path_coverage: float | None
    format: str
    output: str | None
    quiet: bool
    color: str

    @classmethod
    def parse(cls, args: argparse.Namespace) -> ExploreRequest:
        """The request of the parsed command line (the properties checked, and the limits)."""
        if args.examples < 1 or args.max_time <= 0:
            raise ConfigError("--examples must be 1 or more and --max-time above 0")
        if args.min_path_coverage is not None and not 0 <= args.min_path_coverage <= 100:
            raise ConfigError("--min-path-coverage must be a percentage from 0 to 100")
        unknown = [p for p in args.property if p not in PROPERTIES]
        if unknown:
            raise ConfigError(f"unknown property {unknown[0]!r} (known: {', '.join(PROPERTIES)})")
        return cls(
            definitions=tuple(args.definitions),
            crds=tuple(args.crd),
            examples=args.examples,
            seed=args.seed,
            max_time=args.max_time,
            properties=tuple(args.property) or DEFAULT_PROPERTIES,
            save=args.save,
            min_path_coverage=args.min_path_coverage,
            format=args.format,
            output=args.output,
            quiet=args.quiet,
            color=args.color,
        )


def run(args: argparse.Namespace) -> int:
    """``kartalint explore`` with parsed ``args``: generated objects run through a definition; its exit code."""
    _require_hypothesis()
    request = ExploreRequest.parse(args)
    project = project_of(args)
    assume = _assumptions(project)
    _require_paths([*request.definitions, *request.crds])
    crd_paths = list(request.crds) or [os.path.join(project.root, p) for p in project.config.crds]
    crds = _crd_index(crd_paths)
    index = _definition_index(request, project)
    lint_config = project.config.replace(crds=crd_paths)  # lint's hints: with these CRDs
    if request.min_path_coverage is None:
        request = request._replace(min_path_coverage=project.config.explore_min_path_coverage)
    exploration = _explore_definitions(request, index, crds, lint_config, assume)
    if not exploration.reports:
        if exploration.unexplored:
            raise ConfigError("nothing was explored")
        raise ConfigError("no definition has a CRD among those given: nothing was explored")
    _write_reports(exploration.reports, request)
    return exploration.exit_code()


@dataclass
class Explorations:
    """What exploring every definition gave: one report per explored definition, whether any has a
    failure, and whether one could not be explored (a schema too large, nothing drawn)."""

    reports: list[dict[str, object]] = field(default_factory=list)
    failed: bool = False
    unexplored: bool = False

    def exit_code(self) -> int:
        """2 when a definition could not be explored, 1 for a failure, else 0."""
        if self.unexplored:
            return EXIT_USAGE
        return EXIT_FAIL if self.failed else EXIT_OK


def _require_hypothesis() -> None:
    if not HAS_HYPOTHESIS:
        raise ConfigError("explore needs hypothesis: python3 -m pip install 'kartalint[explore]'") from None


def _assumptions(project: Project) -> Assumptions:
    """The configuration's ``explore.assume``, parsed."""
    try:
        return parse_assumptions(project.config.explore_assume)
    except AssumeError as exc:
        raise ConfigError(f"{project.config.source}: explore.assume: {exc}") from None


def _require_paths(paths: list[str]) -> None:
    for path in paths:
        if not os.path.exists(path):
            raise ConfigError(f"{path}: no such file or directory")


def _crd_index(crd_paths: list[str]) -> CrdIndex:
    """The CRDs of ``--crd``, else of the configuration's ``crds:`` (``crd_paths``)."""
    if not crd_paths:
        raise ConfigError("no CRD given: pass --crd CRD (or list crds: in .kartalint.yaml)")
    crds = crd_index(crd_paths)
    if crds.problems:
        raise ConfigError("; ".join(f"CRD {p}" for p in crds.problems))
    return crds


def _definition_index(request: ExploreRequest, project: Project) -> DefinitionIndex:
    """The definitions named on the command line, else the project's own."""
    if request.definitions:
        index = DefinitionIndex.from_paths(list(request.definitions))
    else:
        index = DefinitionIndex.from_paths([d.path for d in project.index().of_origin("project")], origin="project")
    if not index.definitions:
        raise ConfigError(f"no definition found; {index.describe_search()}")
    return index


def _explore_definitions(
    request: ExploreRequest, index: DefinitionIndex, crds: CrdIndex, config: Config, assume: Assumptions
) -> Explorations:
    """Explore each definition whose root kind has a CRD; a note for the others on stderr."""
    explorations = Explorations()
    with Evaluator() as evaluator:
        for definition in index.definitions:
            gvk = object_gvk_of(definition)
            version = crds.get(gvk)
            if version is None:
                sys.stderr.write(
                    f"kartalint: note: {display_path(definition.path)}: no CRD for {format_gvk(gvk)}, not explored\n"
                )
                continue
            try:
                found = explore(
                    definition.data,
                    version,
                    examples=request.examples,
                    seed=request.seed,
                    max_time=request.max_time,
                    properties=request.properties,
                    evaluator=evaluator,
                    assume=assume,
                )
            except (TooLarge, NothingDrawn) as exc:
                where = f"{display_path(version.source)}: {format_gvk(gvk)}"
                sys.stderr.write(f"kartalint: error: {where}: {exc}; {display_path(definition.path)} not explored\n")
                explorations.unexplored = True
                continue
            report = _report(request, definition, display_path(version.source), found, config)
            explorations.failed = explorations.failed or bool(found.failures) or _below(report)
            explorations.reports.append(report)
    return explorations


def _report(
    request: ExploreRequest, definition: DefinitionFile, crd: str, found: Exploration, config: Config
) -> dict[str, object]:
    """One definition's report: its failures with lint's hint, saved as fixtures with ``--save``."""
    findings = _lint_findings(definition, config) if found.failures else []
    for failure in found.failures:
        failure.hint = _hint(definition, findings, failure.to_dict()["field"])
    paths = found.paths_document()
    if request.min_path_coverage is not None:
        paths.update(minimum=request.min_path_coverage, belowMinimum=_percent(paths) < request.min_path_coverage)
    report: dict[str, object] = {
        "definition": display_path(definition.path),
        "crd": crd,
        "examples": found.examples,
        "failures": [f.to_dict() for f in found.failures],
        "paths": paths,
    }
    if found.out_of_time:
        report["outOfTime"] = True
    if request.save:
        report["saved"] = _save(request.save, definition, found.failures, request.seed)
    return report


def _percent(paths: dict[str, object]) -> float:
    """The share of the paths a definition reads that the objects tried reached, in percent."""
    read, exercised = paths["read"], paths["exercised"]
    assert isinstance(read, int) and isinstance(exercised, int)
    return 100.0 if not read else 100.0 * exercised / read


def _below(report: dict[str, object]) -> bool:
    paths = report["paths"]
    return isinstance(paths, dict) and bool(paths.get("belowMinimum"))


def _write_reports(reports: list[dict[str, object]], request: ExploreRequest) -> None:
    """The reports in the chosen format (``report.explore``): text in colour when it is on."""
    colour = request.format == "text" and use_color(request.color, None if request.output else sys.stdout)
    document = render_document("explore", request.format, Explored(reports, request.quiet, colour, request.properties))
    emit(document, request.output, colour=colour)


def object_gvk_of(definition: DefinitionFile) -> GVK | None:
    """The group/version/kind of the workload a definition describes (its root component's kind)."""
    refs = karta.components(definition.data)
    return karta.gvk_of(refs[0].data.get("kind")) if refs and refs[0].is_root else None


def _lint_findings(definition: DefinitionFile, config: Config) -> list[Finding]:
    """What ``kartalint lint`` reports on the definition as the user sees it (``config``: the
    project's configuration with explore's CRDs): configured, with the CRD rules, and without the
    findings its file's suppression comments silence."""
    source = load_file(definition.path, config.max_file_size)
    findings = lint_source(source, config, strict_files=True).findings
    for document in source.documents:
        if document.is_karta and document.data == definition.data:  # its own document of the file
            first, last = document.node.start_mark.line + 1, document.node.end_mark.line + 1
            return [f for f in findings if first <= f.line <= last]
    return findings


def _hint(definition: DefinitionFile, findings: list[Finding], field_path: str) -> str:
    """The lint hint for the failing field, when lint reports one there."""
    component, _, rest = field_path.partition(".")
    refs = {str(ref.data.get("name")): ref.path for ref in karta.components(definition.data)}
    if component not in refs:
        return ""
    where = (*refs[component], *field_segments(rest))  # statusMappings.failed[0]: ("failed", 0)
    for finding in findings:
        if tuple(finding.path[: len(where)]) == where and finding.hint:
            return f"{finding.hint} ({finding.rule})"
    return ""


def _save(folder: str, definition: DefinitionFile, failures: list[Failure], seed: int) -> list[str]:
    """Each failure with an expectation that states the property as a fixture: extraction errors
    (``expect.errors: []``) and GPU totals; the others are not saved (nothing states them)."""
    make_folders(folder)  # (as every report's folder: never through a symbolic link out of the project)
    written = []
    for number, failure in enumerate(failures, 1):
        item = failure.to_dict()
        if item["property"] != "no-extraction-error":
            continue
        name = f"{definition.name or 'definition'}-explore-{number}.yaml"
        path = os.path.join(folder, name)
        fixture = {
            "apiVersion": FIXTURE_API_VERSION,
            "kind": FIXTURE_KIND,
            "name": f"explore: {item['field']}",
            "description": f"{item['property']}: {item['message']}",
            "source": f"kartalint explore --seed {seed}",
            "definition": os.path.relpath(definition.path, folder),
            "xfail": f"{item['field']}: {item['message']}",
            "object": item["object"],
            "expect": {"errors": []},
        }
        write_report(path, yaml.safe_dump(fixture, sort_keys=False, width=120))  # whole or not at all
        written.append(display_path(path))
    return written
