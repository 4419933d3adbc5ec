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
    describe, catalog, rules, explore and new --crd, registered in one place
    (``kartalint.report``); every command's --format choices are exactly its registered formats."""
    import argparse
    import io

    from kartalint.cli import build_parser
    from kartalint.report import (
        COMPARISONS,
        DOCUMENTS,
        REPORTERS,
        SUMMARIES,
        TEST_REPORTERS,
        format_choices,
        make_document_reporter,
        make_summary_reporter,
        reporter_class,
        test_reporter_class,
    )
    from kartalint.report.base import Lifecycle, Reporter, TestReporter

    lint_reporters = [reporter_class(name) for name in REPORTERS]
    test_reporters = [test_reporter_class(name) for name in TEST_REPORTERS]
    assert all(issubclass(cls, Reporter) for cls in lint_reporters)
    assert all(issubclass(cls, TestReporter) for cls in test_reporters)
    assert [cls.name for cls in lint_reporters] == list(REPORTERS)
    assert [cls.name for cls in test_reporters] == list(TEST_REPORTERS)
    registered = {
        "lint": {"auto", *REPORTERS},
        "test": set(TEST_REPORTERS),
        **{kind: set(formats) for kind, formats in DOCUMENTS.items()},
    }
    registered["describe"] |= set(SUMMARIES)  # describe --summary's formats
    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    offered = {
        name: list(action.choices)
        for name, parser in commands.items()
        for action in parser._actions
        if action.dest == "format" and action.choices
    }
    # every command with a --format, and nothing else; in the registry's order (help and usage's)
    assert {name: set(choices) for name, choices in offered.items()} == registered
    assert offered == {name: format_choices(name) for name in registered}
    for kind, formats in DOCUMENTS.items():
        for fmt in formats:
            assert callable(make_document_reporter(kind, fmt, io.StringIO()).render)
    from kartalint.diff.figures import Expected
    from kartalint.diff.figures_compare import Comparison

    assert set(COMPARISONS) == set(SUMMARIES)
    for fmt in SUMMARIES:
        assert isinstance(make_summary_reporter(fmt, io.StringIO()), Lifecycle)
        comparison = Comparison(Expected("x.csv", ("name",), ("gpus",)))
        assert isinstance(make_summary_reporter(fmt, io.StringIO(), comparison), Lifecycle)


def _calls_rule_literal(node: ast.Call) -> ast.Constant | None:
    """The string literal a call passes where a rule id goes (``report(rule, ...)``,
    ``Rule(id, ...)``, ``Problem(rule, ...)``, ``Check((rule, ...), ...)``, ``Finding(..., rule, ...)``)."""
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    given = []
    if name in ("report", "Rule", "Problem") and node.args:
        given.append(node.args[0])
    if name == "Check" and node.args and isinstance(node.args[0], ast.Tuple):
        given.extend(node.args[0].elts)
    if name == "Finding":
        given.extend([*node.args[5:6], *(k.value for k in node.keywords if k.arg == "rule")])
    return next((g for g in given if isinstance(g, ast.Constant) and isinstance(g.value, str)), None)


def test_every_rule_id_in_code_is_a_declared_constant():
    """A rule id is written once, as a module constant (``NAME = "rule-id"``) next to the findings
    that carry it; code elsewhere imports the constant, so a misspelt id is an import error (and a
    ruff/mypy error), never a KeyError at run time. No other string literal is a rule id, and no
    call passes a literal where a rule id goes."""
    from kartalint.rules import registry

    ids = set(registry.RULES)
    declared: dict[str, list[str]] = {}
    stray = []
    for name, path in _modules().items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        constants = set()
        for node in tree.body:
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id.isupper()
                and isinstance(node.value, ast.Constant)
                and node.value.value in ids
            ):
                declared.setdefault(node.value.value, []).append(f"{name}.{node.targets[0].id}")
                constants.add(id(node.value))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value in ids and id(node) not in constants:
                stray.append(f"{name}:{node.lineno}: {node.value!r}")
            literal = _calls_rule_literal(node) if isinstance(node, ast.Call) else None
            if literal is not None and literal.value not in ids:
                stray.append(f"{name}:{literal.lineno}: {literal.value!r} is not a rule")
    assert stray == [], "rule ids written as strings: import the constant instead"
    assert {rule: places for rule, places in declared.items() if len(places) != 1} == {}
    assert set(declared) == ids


def test_the_rule_id_check_sees_a_literal_id():
    tree = ast.parse('ctx.report("unknown-feild", path, "message")\nProblem("jq-unsafe", "m", 0, 1)')
    literals = [_calls_rule_literal(node) for node in ast.walk(tree) if isinstance(node, ast.Call)]
    assert sorted(lit.value for lit in literals if lit is not None) == ["jq-unsafe", "unknown-feild"]


def test_a_rule_is_one_unit_with_its_check():
    """Every rule a Karta document can break is reported by a check (``CHECKS``) of the module that
    declares it; ``check_document`` runs the registry's checks, so a new rule needs no other list."""
    from kartalint.rules import registry

    document_categories = ("schema", "parity", "jq", "practice", "gang", "crd")
    checked: dict[str, set[str]] = {}
    for check in registry.CHECKS:
        assert set(check.rules) <= set(registry.RULES), check
        for rule_id in check.rules:
            checked.setdefault(rule_id, set()).add(check.run.__module__)
    for module in registry._DECLARING:
        for rule in module.RULES:
            if rule.category in document_categories:
                assert module.__name__ in checked.get(rule.id, set()), rule.id
    practice = [check for check in registry.CHECKS if check.run.__module__ == "kartalint.rules.practice"]
    assert all(len(check.rules) == 1 for check in practice)  # one function per rule


def test_document_kinds_are_known_in_one_place():
    """``load/kinds`` is the one place that knows the kinds of documents (``Karta``,
    ``KartaFixture``: is_karta, is_fixture, the text sniffs of discovery and the project scan);
    no other module spells them."""
    spelled = []
    for name, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in ("Karta", "KartaFixture", b"Karta"):
                spelled.append(f"{name}:{node.lineno}")
    assert spelled and all(place.startswith("kartalint.load.kinds:") for place in spelled), spelled


def test_the_architecture_page_names_every_module():
    """docs/architecture.md names each module in its package's row of the table (the root's
    modules in the paragraph after it), so the page keeps up with the tree."""
    import re

    page = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    rows = {m.group(1): m.group(0) for m in re.finditer(r"^\|[^|]*\| `kartalint/(\w+)/` \|.*$", page, re.M)}
    root = page[page.index("At the root:") :]
    missing = []
    for name, path in _modules().items():
        parts = name.split(".")[1:] or ["__init__"]
        if path.name == "__init__.py" and name != "kartalint":
            continue  # a package: its row
        where = rows.get(parts[0], "") if len(parts) > 1 else root
        if f"`{parts[-1]}" not in where:
            missing.append(name)
    assert missing == []
