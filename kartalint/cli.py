"""Command line: parse options, build the pipeline, run it, return an exit code.

Exit codes (all commands): 0 success; 1 findings at error level (or warnings with ``--strict``)
or failures; 2 usage or configuration error, missing path, or nothing to check.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import List, Optional, Sequence

from . import __version__, rules
from .config import ConfigError, load_config
from .report import REPORTERS, make_reporter

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
    lint.add_argument("paths", nargs="+", metavar="PATH", help="files or directories ('-' for stdin)")
    lint.add_argument("-f", "--format", choices=["auto"] + sorted(REPORTERS), default="auto",
                      help="output format (default: github inside GitHub Actions, else text)")
    lint.add_argument("--strict", action="store_true", help="exit 1 on warnings too")
    lint.add_argument("-c", "--config", help="configuration file (default: .kartalint.yaml or pyproject.toml, searched upwards)")
    lint.add_argument("--disable", action="append", default=[], metavar="RULE", help="disable a rule (repeatable)")
    lint.add_argument("-o", "--output", help="write the report to a file instead of stdout")
    lint.add_argument("--color", choices=["auto", "always", "never"], default="auto", help="colour in text output")
    lint.add_argument("-q", "--quiet", action="store_true", help="no summary line on stderr")

    describe = sub.add_parser("describe", help="what a definition makes of a workload object (roles, replicas, GPUs, status)")
    describe.add_argument("object", metavar="OBJECT", help="workload manifest (YAML/JSON; a List or several documents describe each; '-' for stdin)")
    describe.add_argument("-d", "--definition", help="definition to apply (default: chosen by the object's group/version/kind)")
    describe.add_argument("--pods", help="pods of the workload (a PodList, several documents, or one Pod)")
    describe.add_argument("--catalog", action="append", default=[], metavar="DIR",
                          help="more definitions to choose from, searched before the bundled catalog (repeatable)")
    describe.add_argument("-o", "--output", choices=["tree", "json", "yaml"], default="tree", help="output format (default: tree)")
    describe.add_argument("--timeout", type=float, default=10.0, help="seconds allowed per jq evaluation (default: 10, as upstream)")

    rules_cmd = sub.add_parser("rules", help="list every rule")
    rules_cmd.add_argument("-f", "--format", choices=["text", "json", "markdown"], default="text")

    schema_cmd = sub.add_parser("schema", help="print the Karta JSON Schema (for editors)")
    schema_cmd.add_argument("--check", action="store_true", help="exit 1 if the shipped schema differs from the vendored CRD")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        handler = {"lint": _lint, "describe": _describe, "rules": _rules, "schema": _schema}[args.command]
        return handler(args)
    except ConfigError as exc:
        sys.stderr.write(f"kartalint: error: {exc}\n")
        return EXIT_USAGE
    except BrokenPipeError:  # pragma: no cover - e.g. piped into head
        return EXIT_OK
    except KeyboardInterrupt:  # pragma: no cover
        return 130


def _use_color(choice: str, stream: object) -> bool:
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


def _lint(args: argparse.Namespace) -> int:
    from .lint import lint_paths

    config = load_config(args.config)
    for rule_id in args.disable:
        if rule_id not in rules.RULES:
            raise ConfigError(f"unknown rule '{rule_id}' (see `kartalint rules`)")
        config.severities[rule_id] = None
    result = lint_paths(args.paths, config)
    for path in result.missing:
        sys.stderr.write(f"kartalint: error: {path}: no such file or directory\n")
    stream = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout
    try:
        reporter = make_reporter(args.format, stream, color=_use_color(args.color, stream) if not args.output else False)
        reporter.report(result)
    finally:
        if args.output:
            stream.close()
    if not args.quiet:
        counts = result.counts
        skipped = f", {result.skipped_documents} other document(s) skipped" if result.skipped_documents else ""
        suppressed = f", {result.suppressed} suppressed" if result.suppressed else ""
        sys.stderr.write(
            f"kartalint: {len(result.checked)} file(s), {result.karta_documents} Karta definition(s){skipped}: "
            f"{counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} info{suppressed}\n"
        )
    if result.karta_documents == 0 and not result.missing:
        sys.stderr.write("kartalint: error: no Karta definition found in the given paths (nothing was checked)\n")
    return result.exit_code(strict=args.strict)


def _describe(args: argparse.Namespace) -> int:
    from .definitions import DefinitionIndex, default_index, format_gvk, object_gvk
    from .describe import render_tree
    from .evaluation import Evaluator
    from .load import load_objects

    if args.timeout <= 0:
        raise ConfigError("--timeout must be positive")
    objects, errors = load_objects(args.object)
    for error in errors:
        sys.stderr.write(f"kartalint: error: {error}\n")
    if errors and not objects:
        return EXIT_USAGE
    if not objects:
        sys.stderr.write(f"kartalint: error: {args.object}: no Kubernetes object found\n")
        return EXIT_USAGE
    pods = None
    if args.pods:
        pod_objects, pod_errors = load_objects(args.pods)
        for error in pod_errors:
            sys.stderr.write(f"kartalint: error: {error}\n")
        if pod_errors:
            return EXIT_USAGE
        pods = [p.data for p in pod_objects]
    fixed = None
    if args.definition:
        fixed_index = DefinitionIndex.from_paths([args.definition])
        for problem in fixed_index.problems:
            sys.stderr.write(f"kartalint: error: {problem}\n")
        candidates = list(fixed_index.by_basename.values())
        if not candidates:
            sys.stderr.write(f"kartalint: error: {args.definition}: no Karta definition found\n")
            return EXIT_USAGE
        fixed = candidates[0]
        index = fixed_index
    else:
        index = default_index(args.catalog)
        for problem in index.problems:
            sys.stderr.write(f"kartalint: warning: {problem}\n")
    documents, exit_code = [], EXIT_OK
    with Evaluator(timeout=args.timeout) as evaluator:
        for item in objects:
            gvk = object_gvk(item.data)
            entry = fixed or index.find(gvk)
            if entry is None:
                sys.stderr.write(f"kartalint: error: {item.origin}: no definition for {format_gvk(gvk)}; {index.describe_search()}\n")
                exit_code = EXIT_USAGE
                continue
            view = evaluator.evaluate(entry.data, item.data, pods)
            if view.all_errors and exit_code == EXIT_OK:
                exit_code = EXIT_FAIL
            documents.append((item, entry, view))
    if not documents:
        return exit_code
    if args.output == "tree":
        sys.stdout.write("\n".join(render_tree(view, entry.path) for _, entry, view in documents))
    else:
        data = [view.to_dict() for _, _, view in documents]
        payload = data[0] if len(objects) == 1 and len(data) == 1 else data
        if args.output == "json":
            sys.stdout.write(json.dumps(payload, indent=2) + "\n")
        else:
            import yaml

            sys.stdout.write(yaml.safe_dump(payload, sort_keys=False, default_flow_style=False))
    return exit_code


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
    }
    for category in rules.CATEGORIES:
        lines += [f"## {titles[category]}", "", "| rule | severity | what it means | fix |", "|---|---|---|---|"]
        for rule in rules.iter_rules([category]):
            summary = rule.summary.replace("|", "\\|")
            hint = rule.hint.replace("|", "\\|")
            lines.append(f"| <a id=\"{rule.id}\"></a>`{rule.id}` | {rule.severity} | {summary} | {hint} |")
        lines.append("")
    return "\n".join(lines)


def _schema(args: argparse.Namespace) -> int:
    from . import schema

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


