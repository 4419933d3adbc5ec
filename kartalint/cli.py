"""Command line: parse options, build the pipeline, run it, return an exit code.

Exit codes (all commands): 0 success; 1 findings at error level (or warnings with ``--strict``)
or failures; 2 usage or configuration error, missing path, or nothing to check.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import IO, TYPE_CHECKING, Any, List, Optional, Sequence

from . import __version__, rules
from .config import ConfigError, load_config
from .report import REPORTERS, make_reporter

if TYPE_CHECKING:
    from .definitions import DefinitionIndex
    from .project import Project

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # usage errors exit 2 with a one-line message
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"kartalint: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="kartalint", description="Lint, evaluate and test Karta (Workload-Map) definitions.")
    parser.add_argument("--version", action="version", version=f"kartalint {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    lint = sub.add_parser("lint", help="check definitions (schema, upstream validator, jq, best practices)")
    lint.add_argument("paths", nargs="*", metavar="PATH",
                      help="files or directories ('-' for stdin; default: the project's definitions and fixtures)")
    lint.add_argument("-f", "--format", choices=["auto"] + sorted(REPORTERS), default="auto",
                      help="output format (default: github inside GitHub Actions, else text)")
    lint.add_argument("--strict", action="store_true", help="exit 1 on warnings too")
    lint.add_argument("-c", "--config", help="configuration file (default: .kartalint.yaml or pyproject.toml, searched upwards)")
    lint.add_argument("--disable", action="append", default=[], metavar="RULE", help="disable a rule (repeatable)")
    lint.add_argument("-o", "--output", help="write the report to a file instead of stdout")
    lint.add_argument("--color", choices=["auto", "always", "never"], default="auto", help="colour in text output")
    lint.add_argument("-q", "--quiet", action="store_true", help="no summary line on stderr")
    lint.add_argument("--crd", action="append", default=[], metavar="FILE",
                      help="CRD files or directories: check the paths expressions read against the root kind's schema (repeatable)")
    lint.add_argument("-j", "--jobs", type=int, metavar="N",
                      help="worker processes (default: every CPU for more than 50 files, else 1); the output is the same")
    lint.add_argument("--allow-empty", action="store_true",
                      help="exit 0 when the files hold no Karta definition or fixture (for hooks that pass every YAML file)")
    lint.add_argument("--strict-files", action="store_true",
                      help="report load problems of every file; by default files that hold neither a Karta nor a fixture "
                           "document (and do not mention kind: Karta) are skipped and counted")

    describe = sub.add_parser("describe", help="what a definition makes of a workload object (roles, replicas, GPUs, status)")
    describe.add_argument("object", metavar="OBJECT", help="workload manifest (YAML/JSON; a List or several documents describe each; '-' for stdin)")
    describe.add_argument("-d", "--definition", help="definition to apply (default: chosen by the object's group/version/kind)")
    describe.add_argument("--pods", help="pods of the workload (a PodList, several documents, or one Pod)")
    describe.add_argument("--catalog", action="append", default=[], metavar="DIR",
                          help="more definitions to choose from, searched before the project's and the bundled catalog (repeatable)")
    describe.add_argument("-c", "--config", help="configuration file (default: .kartalint.yaml or pyproject.toml, searched upwards)")
    describe.add_argument("-f", "--format", choices=["tree", "json", "yaml"], help="output format (default: tree)")
    describe.add_argument("-o", "--output", metavar="FILE",
                          help="write to FILE instead of stdout (the old `-o tree|json|yaml` still selects a format, deprecated)")
    describe.add_argument("--timeout", type=float, default=10.0, help="seconds allowed per jq evaluation (default: 10, as upstream)")
    describe.add_argument("--force", action="store_true",
                          help="evaluate a definition that breaks the Karta schema or upstream's validator (as far as it can be)")

    test = sub.add_parser("test", help="run definitions against fixtures, recordings and predictions; diff statuses, roles, replicas, GPUs")
    test.add_argument("paths", nargs="*", metavar="PATH",
                      help="fixture files, recordings or directories (default: the project's fixtures, docs/fixtures.md)")
    test.add_argument("--definitions", action="append", default=[], metavar="DIR",
                      help="definitions to resolve fixtures and recordings against, before the project's and the bundled catalog (repeatable)")
    test.add_argument("-c", "--config", help="configuration file (default: .kartalint.yaml or pyproject.toml, searched upwards)")
    test.add_argument("-f", "--format", choices=["text", "json", "junit", "github", "sarif"], default="text",
                      help="output format (github: one annotation per differing field, at its line in the fixture; "
                           "sarif: code scanning results at the same places)")
    test.add_argument("-o", "--output", help="write the report to a file instead of stdout")
    test.add_argument("--junit-xml", metavar="FILE", help="also write a JUnit XML report to FILE (whatever --format is)")
    test.add_argument("--sarif", metavar="FILE", help="also write a SARIF report to FILE (whatever --format is)")
    test.add_argument("-k", dest="pattern", metavar="PATTERN", help="run only cases whose id or name contains PATTERN (or matches it, with * ? [)")
    test.add_argument("-v", "--verbose", action="store_true", help="show every case with its details")
    test.add_argument("--update", nargs="?", const="failed", metavar="all",
                      help="write observed values into the expect blocks of failing fixtures (`--update=all`: every fixture)")
    test.add_argument("--force", action="store_true", help="let --update write when CI=true (otherwise it runs as --check)")
    test.add_argument("--check", action="store_true",
                      help="with --update: write nothing, fail on every fixture --update would rewrite")
    test.add_argument("--require-fixtures", action="store_true", help="fail for every definition that no case exercises")
    test.add_argument("--min-coverage", type=float, metavar="PERCENT", help="fail when a definition's status-mapping coverage is below PERCENT")
    test.add_argument("--timeout", type=float, default=10.0, help="seconds allowed per jq evaluation (default: 10)")
    test.add_argument("--allow-outside", action="append", default=[], metavar="DIR",
                      help="let fixtures read files (objectFile, podsFile, definition) under DIR, outside the project (repeatable)")
    test.add_argument("--known-failures", metavar="FILE",
                      help="YAML list of {id, reason}: cases (id suffix) expected to fail, e.g. upstream definitions on recordings")

    diff = sub.add_parser("diff", help="what a definition change does to every fixture and recording (base vs head revision)")
    diff.add_argument("paths", nargs="*", metavar="PATH", help="fixtures and recordings to evaluate (default: the project's fixtures)")
    diff.add_argument("-c", "--config", help="configuration file (default: .kartalint.yaml or pyproject.toml, searched upwards)")
    diff.add_argument("--base", required=True, metavar="REF", help="git revision with the definitions before the change (e.g. origin/main)")
    diff.add_argument("--head", metavar="REF", help="git revision after the change (default: the working tree)")
    diff.add_argument("-f", "--format", choices=["text", "json", "markdown"], default="text")
    diff.add_argument("-o", "--output", help="write the report to a file instead of stdout")
    diff.add_argument("--fail-on-change", action="store_true", help="exit 1 when any workload or definition changed")
    diff.add_argument("--timeout", type=float, default=10.0, help="seconds allowed per jq evaluation (default: 10)")
    diff.add_argument("--allow-outside", action="append", default=[], metavar="DIR",
                      help="let fixtures read files (objectFile, podsFile, definition) under DIR, outside the project (repeatable)")

    new = sub.add_parser("new", help="draft a fixture from an object (`new fixture OBJECT`) or a definition from a CRD (`new --crd CRD`)")
    new.add_argument("target", nargs="*", metavar="fixture OBJECT",
                     help="`fixture OBJECT.yaml` (or `-` for stdin): a fixture with expect filled from the current evaluation")
    new.add_argument("--crd", metavar="CRD", help="draft a definition from this CustomResourceDefinition file (several CRDs in a stream: one draft each)")
    new.add_argument("--version", dest="crd_version", metavar="V", help="CRD version to draft (default: the stored version)")
    new.add_argument("--fixture", metavar="FILE", help="with --crd: where to write the fixture skeleton (default: next to -o as NAME.fixture.yaml)")
    new.add_argument("-f", "--format", choices=["text", "json"], default="text",
                     help="with --crd: `json` prints the review (roles, paths, replicas, confidence, problems) as JSON on stdout")
    new.add_argument("-d", "--definition", help="definition to apply (default: chosen by the object's group/version/kind)")
    new.add_argument("--catalog", action="append", default=[], metavar="DIR",
                     help="more definitions to choose from, before the project's and the bundled catalog (repeatable)")
    new.add_argument("-c", "--config", help="configuration file (default: .kartalint.yaml or pyproject.toml, searched upwards)")
    new.add_argument("--pods", help="pods to include in the fixture")
    new.add_argument("--name", help="fixture name (default: the object's name)")
    new.add_argument("--source", help="where the object comes from (default: the object file)")
    new.add_argument("-o", "--output", help="write to this file instead of stdout")

    init = sub.add_parser("init", help="set a repository up: .kartalint.yaml, pre-commit hooks, GitHub workflow, drafts from CRDs")
    init.add_argument("--crd", action="append", default=[], metavar="CRD",
                      help="draft a definition and a fixture skeleton from this CRD file (repeatable)")
    init.add_argument("--layout", choices=["definitions", "catalog"], default="definitions",
                      help="definitions/NAME.yaml with fixtures in definitions/NAME/ (default), or catalog/ + fixtures/NAME/")
    init.add_argument("--root", default=".", metavar="DIR", help="the repository to set up (default: the current folder)")
    init.add_argument("--hooks-repo", metavar="URL", help="repository of the pre-commit hooks (default: kartalint's)")
    init.add_argument("--action", metavar="OWNER/REPO", help="the GitHub Action to use (default: kartalint's)")
    init.add_argument("--rev", metavar="REV", help="revision to pin hooks and Action to (default: the installed kartalint's)")

    catalog = sub.add_parser("catalog", help="list the bundled definitions (types, roles, status mappings, fixtures, coverage)")
    catalog.add_argument("--definitions", action="append", default=[], metavar="DIR",
                         help="list these definitions (default: the project's definitions, else the bundled catalog)")
    catalog.add_argument("--fixtures", metavar="DIR", help="fixtures to count and run for coverage (default: the project's fixtures)")
    catalog.add_argument("-c", "--config", help="configuration file (default: .kartalint.yaml or pyproject.toml, searched upwards)")
    catalog.add_argument("-f", "--format", choices=["text", "json", "markdown"], default="text")

    rules_cmd = sub.add_parser("rules", help="list every rule")
    rules_cmd.add_argument("-f", "--format", choices=["text", "json", "markdown"], default="text")

    schema_cmd = sub.add_parser("schema", help="print the Karta JSON Schema (for editors)")
    schema_cmd.add_argument("--check", action="store_true", help="exit 1 if the shipped schema differs from the vendored CRD")
    schema_cmd.add_argument("--fixture", action="store_true", help="print the JSON Schema of fixture files instead")
    schema_cmd.add_argument("--regenerate", action="store_true",
                            help="rewrite the shipped schema from the vendored CRD (for contributors, after updating the CRD)")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        handler = {"lint": _lint, "describe": _describe, "test": _test, "diff": _diff, "new": _new, "init": _init, "catalog": _catalog, "rules": _rules, "schema": _schema}[args.command]
        return handler(args)
    except ConfigError as exc:
        sys.stderr.write(f"kartalint: error: {exc}\n")
        return EXIT_USAGE
    except BrokenPipeError:  # pragma: no cover - e.g. piped into head
        return EXIT_OK
    except KeyboardInterrupt:  # pragma: no cover
        return 130


def open_output(path: str) -> IO[str]:
    """Open an output file, creating missing parent folders; a path that cannot be written is a
    usage error (one line, exit 2)."""
    try:
        parent = os.path.dirname(os.path.abspath(path))
        os.makedirs(parent, exist_ok=True)
        return open(path, "w", encoding="utf-8", newline="")
    except OSError as exc:
        raise ConfigError(f"cannot write {path}: {exc.strerror or exc}") from None


def _emit(text: str, output: Optional[str], note: str = "") -> None:
    """Write a command's document to ``output`` (saying so on stderr when ``note``), or to stdout."""
    if not output:
        sys.stdout.write(text)
        return
    with open_output(output) as handle:
        handle.write(text)
    if note:
        sys.stderr.write(f"kartalint: wrote {output}: {note}\n")


def _project(args: argparse.Namespace) -> "Project":
    from .project import load_project

    return load_project(getattr(args, "config", None))


def _say_index(index: "DefinitionIndex", level: str = "warning", project: Optional["Project"] = None) -> None:
    for note in project.notes if project is not None else ():
        sys.stderr.write(f"kartalint: note: {note}\n")
    for problem in index.problems:
        sys.stderr.write(f"kartalint: {level}: {problem}\n")
    for note in index.notes:
        sys.stderr.write(f"kartalint: note: {note}\n")


def _use_color(choice: str, stream: object) -> bool:
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


def _lint(args: argparse.Namespace) -> int:
    from .lint import lint_paths
    from .load import missing_reason

    config = load_config(args.config)
    for rule_id in args.disable:
        if rule_id not in rules.RULES:
            raise ConfigError(f"unknown rule '{rule_id}' (see `kartalint rules`)")
        config.severities[rule_id] = None
    for path in args.crd:
        if not os.path.exists(path):
            raise ConfigError(f"--crd {path}: no such file or directory")
    config.crds = list(config.crds) + list(args.crd)
    if config.crds:
        from .lint import crd_index

        problems = crd_index(config.crds).problems
        for problem in problems:
            sys.stderr.write(f"kartalint: error: CRD {problem}\n")
        if problems:
            return EXIT_USAGE
    paths = list(args.paths)
    if not paths:
        project = _project(args)
        paths = project.definition_paths() + [p for p in project.fixture_paths() if p not in project.definition_paths()]
        if not paths:
            raise ConfigError(f"no PATH given and no Karta definition found in the project at {project.root}")
    stream = open_output(args.output) if args.output else sys.stdout
    if args.jobs is not None and args.jobs < 1:
        raise ConfigError("--jobs must be 1 or more")
    result = lint_paths(paths, config, strict_files=args.strict_files, jobs=args.jobs)
    for path in result.missing:
        sys.stderr.write(f"kartalint: error: {missing_reason(path)}\n")
    for message in result.skipped_paths:
        sys.stderr.write(f"kartalint: warning: {message}\n")
    try:
        root = _project(args).root if args.format == "sarif" else None  # SARIF locations start at the project root
        reporter = make_reporter(args.format, stream, color=_use_color(args.color, stream) if not args.output else False, root=root)
        reporter.report(result)
    finally:
        if args.output:
            stream.close()
    if not args.quiet:
        counts = result.counts
        skipped = f", {result.skipped_documents} other document(s) skipped" if result.skipped_documents else ""
        if result.skipped_files:
            skipped += f", {len(result.skipped_files)} file(s) without Karta skipped"
        suppressed = f", {result.suppressed} suppressed" if result.suppressed else ""
        fixtures = f", {result.fixture_documents} fixture(s)" if result.fixture_documents else ""
        sys.stderr.write(
            f"kartalint: {len(result.checked)} file(s), {result.karta_documents} Karta definition(s){fixtures}{skipped}: "
            f"{counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} info{suppressed}\n"
        )
    if result.karta_documents == 0 and result.fixture_documents == 0 and not result.missing:
        if result.exit_code(strict=args.strict) == EXIT_FAIL:  # the findings already say why nothing was checked
            return result.exit_code(strict=args.strict)
        if args.allow_empty:
            return EXIT_FAIL if result.exit_code(strict=args.strict) == EXIT_FAIL else EXIT_OK
        sys.stderr.write("kartalint: error: no Karta definition or fixture found in the given paths (nothing was checked)\n")
    return result.exit_code(strict=args.strict)


def _read_pods(path: Optional[str]) -> Optional[List[dict]]:
    """Pods from a file (a PodList such as `kubectl get pods -o yaml` prints, several documents, or
    one Pod); a problem is a usage error."""
    from .load import load_objects

    if not path:
        return None
    pod_objects, pod_errors = load_objects(path)
    if pod_errors:
        raise ConfigError("; ".join(pod_errors))
    return [p.data for p in pod_objects]


def _describe(args: argparse.Namespace) -> int:
    import functools

    from .definitions import DefinitionIndex, field_location, format_gvk, object_gvk
    from .describe import render_tree
    from .evaluation import Evaluator
    from .load import load_objects

    fmt, output = args.format, args.output
    if output in ("tree", "json", "yaml") and not fmt:
        sys.stderr.write(f"kartalint: warning: `describe -o {output}` is deprecated: use `-f {output}` (-o names an output file)\n")
        fmt, output = output, None
    fmt = fmt or "tree"
    _check_timeout(args.timeout)
    if args.object == "-" and args.pods == "-":
        raise ConfigError("OBJECT and --pods cannot both be read from stdin")
    objects, errors = load_objects(args.object)
    for error in errors:
        sys.stderr.write(f"kartalint: error: {error}\n")
    if errors and not objects:
        return EXIT_USAGE
    if not objects:
        sys.stderr.write(f"kartalint: error: {args.object}: no Kubernetes object found\n")
        return EXIT_USAGE
    pods = _read_pods(args.pods)
    fixed = None
    if args.definition:
        index = DefinitionIndex.from_paths([args.definition])
        _say_index(index, "error")
        candidates = list(index.by_basename.values())
        if not candidates:
            if not index.problems:  # a file that cannot be read is reported once, above
                sys.stderr.write(f"kartalint: error: {args.definition}: no Karta definition found\n")
            return EXIT_USAGE
        fixed = candidates[0]
    else:
        project = _project(args)
        index = project.index(args.catalog)
        _say_index(index, project=project)
    documents, exit_code = [], EXIT_FAIL if errors else EXIT_OK
    refused: set = set()
    with Evaluator(timeout=args.timeout, force=args.force) as evaluator:
        for item in objects:
            gvk = object_gvk(item.data)
            entry = fixed or index.find(gvk)
            if entry is None:
                sys.stderr.write(f"kartalint: error: {item.origin}: no definition for {format_gvk(gvk)}; {index.describe_search(gvk)}\n")
                exit_code = EXIT_USAGE
                continue
            if not args.force and evaluator.prepare(entry.data).invalid:
                if entry.path not in refused:  # say it once per definition, at its places
                    refused.add(entry.path)
                    for line in _invalid_definition_lines(entry):
                        sys.stderr.write(f"kartalint: error: {line}\n")
                exit_code = EXIT_FAIL
                continue
            view = evaluator.evaluate(entry.data, item.data, pods)
            if view.all_errors and exit_code == EXIT_OK:
                exit_code = EXIT_FAIL
            documents.append((item, entry, view))
    if not documents:
        return exit_code
    if fmt == "tree":
        text = "\n".join(render_tree(view, entry.path, functools.partial(field_location, entry)) for _, entry, view in documents)
    else:
        data = [view.to_dict() for _, _, view in documents]
        payload = data[0] if len(objects) == 1 and len(data) == 1 else data
        if fmt == "json":
            text = json.dumps(payload, indent=2) + "\n"
        else:
            import yaml

            text = yaml.safe_dump(payload, sort_keys=False, default_flow_style=False)
    _emit(text, output)
    return exit_code


def _invalid_definition_lines(entry: "Any") -> List[str]:
    """Why a definition is refused, each problem at its place, and what to do."""
    from .testrun import LintCache, invalid_definition_problems

    return invalid_definition_problems(entry, LintCache()) + [
        f"{entry.path}: the definition is invalid (upstream refuses it): nothing was evaluated; "
        "fix it, or add --force to see what it makes of the object anyway"]


def _check_timeout(value: float) -> None:
    import math

    if not (math.isfinite(value) and 0 < value <= 3600):
        raise ConfigError(f"--timeout must be a number of seconds above 0 and at most 3600 (got {value})")


def _usage_reports(args: argparse.Namespace, root: str, problems: List[str]) -> None:
    """A run that stops before any case (a missing path, nothing found) still writes the reports
    CI waits for: JUnit with one error case per problem, SARIF with an unsuccessful invocation."""
    if args.junit_xml:
        from .report.tests import usage_junit

        with open_output(args.junit_xml) as handle:
            handle.write(usage_junit(problems))
    if args.sarif:
        from .report.sarif import SarifLog

        log = SarifLog("test", root)
        for problem in problems:
            log.notify("error", problem)
        with open_output(args.sarif) as handle:
            handle.write(log.render())


def fixture_confinement(project: Any, paths: List[str], allow_outside: List[str]) -> Any:
    """Where fixtures may read files: the project, the folders given on the command line (and the
    folders of files given by name), and each ``--allow-outside`` folder."""
    from .cases import Confinement

    for folder in allow_outside:
        if not os.path.isdir(folder):
            raise ConfigError(f"--allow-outside {folder}: not a folder")
    given = [p if os.path.isdir(p) else os.path.dirname(os.path.abspath(p)) for p in paths if p != "-"]
    return Confinement([project.root, *given, *allow_outside])


def _test(args: argparse.Namespace) -> int:
    from .cases import discover
    from .evaluation import Evaluator
    from .load import missing_reason
    from .report.tests import TEST_REPORTERS
    from .testrun import LintCache, mark_known_failures, run, select
    from .update import update_fixtures

    paths = list(args.paths)
    if args.update not in (None, "failed", "all"):  # `--update PATH`: the path belongs to the paths
        paths.insert(0, args.update)
        args.update = "failed"
    if args.update and not args.check and os.environ.get("CI", "").lower() in ("true", "1") and not args.force:
        sys.stderr.write("kartalint: note: CI=true: --update runs as --check and writes nothing (add --force to write)\n")
        args.check = True
    _check_timeout(args.timeout)
    project = _project(args)
    if not paths:
        paths = project.fixture_paths()
        if not paths:
            raise ConfigError(f"no PATH given and no fixture found in the project at {project.root} "
                              "(set `fixtures:` in .kartalint.yaml, see docs/fixtures.md)")
    index = project.index(args.definitions)
    _say_index(index, project=project)
    found = discover(paths, index, project.fixture_roots(), fixture_confinement(project, paths, args.allow_outside))
    for path in found.missing:
        sys.stderr.write(f"kartalint: error: {missing_reason(path)}\n")
    for message in found.skipped:
        sys.stderr.write(f"kartalint: warning: {message}\n")
    if found.missing:
        _usage_reports(args, project.root, [missing_reason(path) for path in found.missing])
        return EXIT_USAGE
    cases = select(found.cases, args.pattern)
    if args.known_failures:
        try:
            mark_known_failures(cases, args.known_failures)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
    if not cases:
        what = f" matching -k {args.pattern!r}" if args.pattern and found.cases else ""
        message = (f"no test case found in {', '.join(paths)}{what} "
                   f"({found.files} file(s) searched; fixtures have kind: KartaFixture)")
        sys.stderr.write(f"kartalint: error: {message}\n")
        _usage_reports(args, project.root, [message])
        return EXIT_USAGE
    stream = open_output(args.output) if args.output else sys.stdout
    extra = [(name, open_output(path)) for name, path in (("junit", args.junit_xml), ("sarif", args.sarif)) if path]
    lint_cache = LintCache()
    with Evaluator(timeout=args.timeout) as evaluator:
        report = run(cases, evaluator, lint_cache)
    judged = index.of_origin("explicit", "project")  # never the bundled catalog: the user's definitions
    if (args.require_fixtures or args.min_coverage is not None) and not judged:
        sys.stderr.write(f"kartalint: note: the project at {project.root} has no definitions of its own: "
                         "--require-fixtures and --min-coverage have nothing to judge\n")
    report.judge(judged, args.require_fixtures, args.min_coverage)
    update_problems: List[str] = []
    if args.update and not args.check:  # rewrite first, so the report shows the rewritten cases as updated
        outcome = update_fixtures(report, args.update, lint_cache)
        report.mark_updated(outcome.updated_files)
        sys.stderr.write(f"kartalint: updated {outcome.updated} fixture(s) in {outcome.files} file(s)\n")
        update_problems = outcome.problems
    elif args.update:
        pending = [r for r in report.results if r.outcome == "failed" and r.case.kind == "fixture"]
        sys.stderr.write(f"kartalint: --check: {len(pending)} fixture(s) would be updated; nothing was written\n")
    for name, extra_stream in extra:  # files first: a closed stdout (`| head`) must not leave them empty
        with extra_stream:
            TEST_REPORTERS[name](extra_stream, root=project.root).report(report)
    try:
        TEST_REPORTERS[args.format](stream, verbose=args.verbose, root=project.root).report(report)
    finally:
        if args.output:
            stream.close()
    for problem in update_problems:
        sys.stderr.write(f"kartalint: error: {problem}\n")
    if update_problems:
        return EXIT_USAGE
    return EXIT_OK if report.ok else EXIT_FAIL


def _diff(args: argparse.Namespace) -> int:
    from .changes import run_diff
    from .gitrev import GitError, repo_root
    from .report.changes import DIFF_RENDERERS

    _check_timeout(args.timeout)
    project = _project(args)
    paths = args.paths or project.fixture_paths()
    if not paths:
        sys.stderr.write(f"kartalint: note: no fixture in the project at {project.root}: only definition changes are shown\n")
    output = open_output(args.output) if args.output else None
    try:
        root = repo_root()
        report = run_diff(root, args.base, args.head, paths, args.timeout, project,
                          fixture_confinement(project, paths, args.allow_outside))
    except GitError as exc:
        sys.stderr.write(f"kartalint: error: {exc}\n")
        return EXIT_USAGE
    text = DIFF_RENDERERS[args.format](report)
    if output is not None:
        with output:
            output.write(text)
    else:
        sys.stdout.write(text)
    for warning in report.warnings:
        sys.stderr.write(f"kartalint: warning: {warning}\n")
    for problem in report.problems:
        sys.stderr.write(f"kartalint: error: {problem}\n")
    if report.problems:
        return EXIT_USAGE
    if args.fail_on_change and (report.changes or report.definitions):
        return EXIT_FAIL
    return EXIT_OK


def _new(args: argparse.Namespace) -> int:
    if args.crd and not args.target:
        return _new_from_crd(args)
    if len(args.target) == 2 and args.target[0] == "fixture" and not args.crd:
        return _new_fixture(args, args.target[1])
    raise ConfigError("usage: kartalint new --crd CRD.yaml [--version V] [-o FILE] | kartalint new fixture OBJECT.yaml [--definition DEF] [-o FILE]")


def _new_from_crd(args: argparse.Namespace) -> int:
    from .evaluation import Evaluator
    from .scaffold import ScaffoldError, drafts_from_crd, fixture_text

    if not os.path.isfile(args.crd):
        raise ConfigError(f"--crd {args.crd}: no such file")
    try:
        drafts = drafts_from_crd(args.crd, args.crd_version)
    except ScaffoldError as exc:
        sys.stderr.write(f"kartalint: error: {exc}\n")
        return EXIT_USAGE
    if args.format == "json":
        sys.stdout.write(json.dumps(_review_document(drafts), indent=2) + "\n")
        if not args.output:
            args.output = None
    else:
        _review_report(drafts, args.crd)
    invalid = [d for d in drafts if d.problems]
    for draft in invalid:  # the skeleton must be an object the API server would accept
        for problem in draft.problems:
            sys.stderr.write(f"kartalint: error: the skeleton {draft.fixture_object.get('kind')} object is not valid for its CRD: {problem}\n")
    fixture_path = args.fixture or (os.path.splitext(args.output)[0] + ".fixture.yaml" if args.output and len(drafts) == 1 else None)
    if invalid:
        fixture_path = None  # never write a fixture of an object the CRD refuses
    fixture_handle = open_output(fixture_path) if fixture_path else None
    if args.format != "json" or args.output:
        _emit("---\n".join(d.text for d in drafts), args.output, "a draft, review every TODO")
    if fixture_path and fixture_handle is not None:
        draft = drafts[0]
        with Evaluator() as evaluator:
            view = evaluator.evaluate(draft.data, draft.fixture_object)
        definition_ref = os.path.relpath(os.path.abspath(args.output), os.path.dirname(os.path.abspath(fixture_path))) if args.output else None
        with fixture_handle as handle:
            handle.write(fixture_text(draft.fixture_object, view, name=f"minimal {draft.name}",
                                      source=f"minimal object built from the CRD schema of {os.path.basename(args.crd)} (required fields and defaults)",
                                      definition=definition_ref))
        sys.stderr.write(f"kartalint: wrote {fixture_path}: a minimal object of the CRD with its current evaluation\n")
    return EXIT_FAIL if invalid else EXIT_OK


def _review_document(drafts: "Any") -> dict:
    """``new --crd --format json``: what each draft found (``schemaVersion`` 1)."""
    from .scaffold import review

    return {"schemaVersion": 1, "drafts": [review(d) for d in drafts]}


def _review_report(drafts: "Any", crd_path: str) -> None:
    """What the drafts found and how sure each guess is, on stderr (the draft goes to stdout or -o)."""
    from .scaffold import review

    for draft in drafts:
        sys.stderr.write(f"kartalint: {draft.name}: {len(draft.roles)} role(s) found in {crd_path}\n")
        for role in review(draft)["roles"]:
            sys.stderr.write(f"kartalint:   {role['name']:<16} {role['path']:<44} {role['confidence']:<26} replicas: {role['replicas']}\n")


def _new_fixture(args: argparse.Namespace, object_path: str) -> int:
    from .definitions import DefinitionIndex, format_gvk, object_gvk
    from .evaluation import Evaluator
    from .load import load_objects
    from .scaffold import fixture_text
    from .testrun import LintCache

    if object_path == "-" and args.pods == "-":
        raise ConfigError("OBJECT and --pods cannot both be read from stdin")
    objects, errors = load_objects(object_path)
    for error in errors:
        sys.stderr.write(f"kartalint: error: {error}\n")
    if errors or len(objects) != 1:
        if not errors:
            sys.stderr.write(f"kartalint: error: {object_path}: a fixture holds exactly one object (found {len(objects)})\n")
        return EXIT_USAGE
    obj = objects[0].data
    pods = _read_pods(args.pods)
    if args.definition:
        index = DefinitionIndex.from_paths([args.definition])
        entry = index.definitions[0] if index.definitions else None
    else:
        index = _project(args).index(args.catalog)
        entry = index.find(object_gvk(obj))
    _say_index(index)
    if entry is None:
        sys.stderr.write(f"kartalint: error: no definition for {format_gvk(object_gvk(obj))}; {index.describe_search(object_gvk(obj))}\n")
        return EXIT_USAGE
    with Evaluator() as evaluator:
        view = evaluator.evaluate(entry.data, obj, pods)
    base = os.path.dirname(os.path.abspath(args.output)) if args.output else os.getcwd()
    definition_ref = None
    if entry.origin != "bundled" and os.path.basename(base) != entry.name:
        definition_ref = os.path.relpath(os.path.abspath(entry.path), base)  # the folder does not name it: say which
    default_name = "stdin" if object_path == "-" else os.path.splitext(os.path.basename(object_path))[0]
    name = args.name or str((obj.get("metadata") or {}).get("name") or default_name)
    source = args.source or ("kubectl output on stdin" if object_path == "-" else f"object file {object_path}")
    text = fixture_text(obj, view, name=name, source=source, definition=definition_ref,
                        pods=pods, lint_rules=LintCache().rule_ids(entry) or None)
    _emit(text, args.output, f"review the expect block before committing (definition: {entry.path})")
    return EXIT_OK


def _init(args: argparse.Namespace) -> int:
    from .init import InitError, next_steps, plan, write

    try:
        result = plan(args.root, args.layout, args.crd, args.hooks_repo, args.action, args.rev)
        written = write(result)
    except InitError as exc:
        sys.stderr.write(f"kartalint: error: {exc}\n")
        return EXIT_USAGE
    except OSError as exc:
        sys.stderr.write(f"kartalint: error: cannot write in {args.root}: {exc.strerror or exc}\n")
        return EXIT_USAGE
    for path in written:
        sys.stdout.write(f"wrote {os.path.join(args.root, path) if args.root != '.' else path}\n")
    for note in result.notes:
        sys.stdout.write(f"note: {note}\n")
    sys.stdout.write(next_steps(result, args.layout))
    return EXIT_OK


def _catalog(args: argparse.Namespace) -> int:
    from .catalogdoc import render_json, render_markdown, render_text, rows
    from .definitions import DefinitionIndex

    project = _project(args)
    if args.definitions:
        index = DefinitionIndex.from_paths(args.definitions)
    else:
        index = project.index()
        own = index.of_origin("project")
        if own:  # the project's definitions; the bundled catalog only when it has none
            index = DefinitionIndex.from_paths([d.path for d in own], origin="project")
    _say_index(index)
    if not index.definitions:
        sys.stderr.write(f"kartalint: error: no definition found; {index.describe_search()}\n")
        return EXIT_USAGE
    fixtures = args.fixtures
    if fixtures is None:
        found = project.fixture_paths()
        fixtures = found[0] if len(found) == 1 and os.path.isdir(found[0]) else "fixtures"
    table = rows(index, fixtures)
    render = {"text": render_text, "json": render_json, "markdown": render_markdown}[args.format]
    sys.stdout.write(render(table))
    return EXIT_OK


def _rules(args: argparse.Namespace) -> int:
    all_rules = rules.iter_rules()
    if args.format == "json":
        data = [{"id": r.id, "severity": str(r.severity), "category": r.category, "summary": r.summary, "hint": r.hint} for r in all_rules]
        sys.stdout.write(json.dumps({"schemaVersion": 1, "rules": data}, indent=2) + "\n")
    elif args.format == "markdown":
        sys.stdout.write(rules_markdown())
    else:
        width = max(len(r.id) for r in all_rules)
        for r in all_rules:
            sys.stdout.write(f"{r.id:<{width}}  {str(r.severity):<7}  {r.category:<8}  {r.summary}\n")
    return EXIT_OK


def rules_markdown() -> str:
    """docs/rules.md, generated from the registry (a test keeps the file in sync)."""
    lines: List[str] = [
        "# Rules",
        "",
        "<!-- Generated by `kartalint rules --format markdown`; do not edit by hand. -->",
        "",
        "Every finding names one of these rules. Severities are defaults: change them, or turn a",
        "rule off, in `.kartalint.yaml` (`rules: {rule-id: off|error|warning|info}`), or silence",
        "one line with `# kartalint: disable=rule-id`. Rules in the `parity` category are the",
        "upstream validator's: upstream rejects a definition when one of them fires.",
        "",
    ]
    titles = {
        "yaml": "Reading files", "schema": "Schema (from the Karta CRD)", "parity": "Upstream validator parity",
        "jq": "jq expressions", "practice": "Best practices", "gang": "Gang scheduling (KAI Scheduler)",
        "crd": "CRD-aware (with `--crd` or `crds:`)", "fixture": "Fixture files", "test": "Test-time rules (reported by `kartalint test`)",
        "outcome": "Outcomes of `kartalint test` (named in SARIF, JUnit and annotations)",
    }
    for category in rules.CATEGORIES:
        lines += [f"## {titles[category]}", "", "| rule | severity | what it means | fix |", "|---|---|---|---|"]
        for rule in rules.iter_rules([category]):
            summary = rule.summary.replace("|", "\\|")
            hint = rule.hint.replace("|", "\\|")
            lines.append(f"| <a id=\"{rule.id}\"></a>`{rule.id}` | {rule.severity} | {summary} | {hint} |")
        lines.append("")
        for rule in rules.iter_rules([category]):
            example = rules.EXAMPLES.get(rule.id)
            if example is None:
                continue
            lines += [f"### `{rule.id}`: why and examples", "", f"Why: {example.why}", "", "Bad:", "", "```yaml",
                      example.bad, "```", "", "Good:", "", "```yaml", example.good, "```", ""]
    return "\n".join(lines)


def _schema(args: argparse.Namespace) -> int:
    from . import schema

    if args.fixture:
        from .check.fixture import SCHEMA_FILE as FIXTURE_SCHEMA

        with open(FIXTURE_SCHEMA, encoding="utf-8") as handle:
            sys.stdout.write(handle.read())
        return EXIT_OK
    if args.regenerate:
        with open_output(schema.SCHEMA_FILE) as handle:
            handle.write(schema.render(schema.generate()))
        sys.stderr.write(f"kartalint: wrote {schema.SCHEMA_FILE} from {schema.CRD_FILE}\n")
        return EXIT_OK
    if args.check:
        fresh = schema.render(schema.generate())
        with open(schema.SCHEMA_FILE, encoding="utf-8") as handle:
            shipped = handle.read()
        if fresh != shipped:
            sys.stderr.write("kartalint: the shipped schema differs from the one generated from the vendored CRD\n")
            return EXIT_FAIL
        sys.stderr.write("kartalint: the shipped schema matches the vendored CRD\n")
        return EXIT_OK
    sys.stdout.write(schema.render(schema.karta_schema()))
    return EXIT_OK


