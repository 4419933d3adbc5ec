"""The package's shape (docs/architecture.md): stage packages, small modules, no import cycle."""

from __future__ import annotations

import ast
import pathlib

import kartalint

PACKAGE = pathlib.Path(kartalint.__file__).parent
# the stages in pipeline order: each imports only those before it (the CLI imports everything)
STAGE_ORDER = [
    "jqlang",
    "load",
    "schema",
    "rules",
    "evaluation",
    "testing",
    "diff",
    "scaffold",
    "explore",
    "mutation",
    "report",
    "lsp",
    "cli",
]
STAGES = set(STAGE_ORDER)


def _modules() -> dict[str, pathlib.Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _runtime_imports(path: pathlib.Path, name: str, modules: dict[str, pathlib.Path]) -> set[str]:
    """Modules of the package that ``name`` imports when it runs (at the top or inside a function),
    leaving out ``if TYPE_CHECKING:`` blocks, which only type checkers read."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(n) for n in ast.walk(node))
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else [])
                )
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
    return {m for m in found if m in modules and m != name}


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        state[node] = 2
        stack.pop()
        return []

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return []


def test_no_import_cycle():
    modules = _modules()
    graph = {name: _runtime_imports(path, name, modules) for name, path in modules.items()}
    assert _cycle(graph) == []


def test_the_cycle_finder_finds_one():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) == []


def test_modules_are_small_and_the_root_holds_few():
    too_long = {
        name: n for name, path in _modules().items() if (n := len(path.read_text(encoding="utf-8").splitlines())) > 450
    }
    assert too_long == {}
    root = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(root) <= 6, root
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert packages == STAGES


def test_stage_packages_do_not_reach_upwards():
    """The pipeline runs one way: load -> rules -> evaluation -> testing, diff, scaffold, explore ->
    mutation -> report -> cli.
    A lower stage never imports a higher one (the CLI imports everything; nothing imports it)."""
    rank = {stage: i for i, stage in enumerate(STAGE_ORDER)}
    modules = _modules()
    upward = []
    for name, path in modules.items():
        stage = name.split(".")[1] if name.count(".") else ""
        for target in _runtime_imports(path, name, modules):
            target_stage = target.split(".")[1] if target.count(".") else ""
            if stage in rank and target_stage in rank and rank[target_stage] > rank[stage]:
                upward.append(f"{name} -> {target}")
    assert upward == []


def test_every_output_format_is_a_lifecycle_and_registered():
    """One reporter lifecycle (start -> item -> finish) for lint, test and the documents of diff,
    describe, catalog and rules; each command's --format choices are the registered formats."""
    import argparse
    import io

    from kartalint.cli import build_parser
    from kartalint.report import (
        COMPARISONS,
        DOCUMENTS,
        REPORTERS,
        SUMMARIES,
        make_document_reporter,
        make_summary_reporter,
        reporter_class,
    )
    from kartalint.report.base import Lifecycle
    from kartalint.report.tests import TEST_REPORTERS

    lint_reporters = [reporter_class(name) for name in REPORTERS]
    assert all(issubclass(cls, Lifecycle) for cls in [*lint_reporters, *TEST_REPORTERS.values()])
    assert [cls.name for cls in lint_reporters] == list(REPORTERS)
    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    for kind, formats in DOCUMENTS.items():
        for fmt in formats:
            assert callable(make_document_reporter(kind, fmt, io.StringIO()).render)
        offered = next(a for a in commands[kind]._actions if a.dest == "format").choices
        extra = set(SUMMARIES) if kind == "describe" else set()  # describe --summary's formats
        assert set(offered) == set(formats) | extra, kind
    from kartalint.diff.figures import Comparison, Expected

    assert set(COMPARISONS) == set(SUMMARIES)
    for fmt in SUMMARIES:
        assert isinstance(make_summary_reporter(fmt, io.StringIO()), Lifecycle)
        comparison = Comparison(Expected("x.csv", ("name",), ("gpus",)))
        assert isinstance(make_summary_reporter(fmt, io.StringIO(), comparison), Lifecycle)
