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
    "lint",
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
    assert too_long == {}, (
        "a module is kept under 450 lines: split it along its seams (one module per thing it does); "
        "a rule that does not fit its family's module starts a family of its own, a new module in "
        "kartalint/rules/ (the registry finds it: no list to edit; CONTRIBUTING.md, Add a rule)"
    )
    root = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(root) <= 6, root
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert packages == STAGES


# The modules at the package root, ranked among the stages: the shared records below every stage,
# the project (configuration, files) after load and schema and before the rules, the entry points
# at the top (``kartalint``'s lazy Python API imports the evaluation; its ``__version__`` is a
# constant anyone may read).
ROOT_BELOW = {"kartalint.model": "jqlang", "kartalint.errors": "jqlang", "kartalint.karta": "jqlang"}
ROOT_AFTER = {"kartalint.project": "schema", "kartalint": "cli", "kartalint.__main__": "cli"}


def _rank(name: str) -> float | None:
    """The place of a module in the pipeline (its stage's, or its own for a root module)."""
    rank = {stage: i for i, stage in enumerate(STAGE_ORDER)}
    if name in ROOT_BELOW:
        return rank[ROOT_BELOW[name]] - 0.5
    if name in ROOT_AFTER:
        return rank[ROOT_AFTER[name]] + 0.5
    stage = name.split(".")[1] if name.count(".") else ""
    return rank.get(stage)


def _upward_imports() -> list[str]:
    modules = _modules()
    upward = []
    for name, path in modules.items():
        here = _rank(name)
        assert here is not None, f"{name}: a module of the package root needs a rank (ROOT_BELOW, ROOT_AFTER)"
        version_only = ("kartalint", "__version__") in _imported_names(path, name) or _reads_only_version(path)
        for target in _runtime_imports(path, name, modules):
            if target == "kartalint" and version_only:
                continue
            there = _rank(target)
            if there is not None and there > here:
                upward.append(f"{name} -> {target}")
    return upward


def test_stage_packages_do_not_reach_upwards():
    """The pipeline runs one way: load -> rules -> lint -> evaluation -> testing, diff, scaffold,
    explore -> mutation -> report -> cli, and the root modules have their place in it (``model``,
    ``errors``, ``karta`` below every stage; ``project`` after load and schema).
    A lower stage never imports a higher one (the CLI imports everything; nothing imports it)."""
    assert _upward_imports() == []


def test_no_module_imports_the_rule_registry_from_below():
    """The rules that exist are handed down (``load_project(rules=...)``, ``read_config``), never
    imported by a module below the rules: the configuration reader, the loaders, the schemas."""
    modules = _modules()
    below = [
        name
        for name, path in modules.items()
        if (_rank(name) or 0) < STAGE_ORDER.index("rules")
        and "kartalint.rules.registry" in _runtime_imports(path, name, modules)
    ]
    assert below == []
    assert _rank("kartalint.project") < STAGE_ORDER.index("rules")


def test_every_output_format_is_a_lifecycle_and_registered():
    """One reporter lifecycle (start -> item -> finish) for lint, test and the documents of diff,
    describe, catalog, rules, explore and new --crd, registered in one place
    (``kartalint.report``); every command's --format choices are exactly its registered formats."""
    import argparse
    import io

    from kartalint.cli.parser import build_parser
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
    registered["rules"] |= registered.pop("rules-check")  # rules --check's formats
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
    for module in registry.FAMILIES:
        for rule in module.RULES:
            if rule.category in document_categories:
                assert module.__name__ in checked.get(rule.id, set()), rule.id
    for family in ("kartalint.rules.components", "kartalint.rules.status_matchers"):
        checks = [check for check in registry.CHECKS if check.run.__module__ == family]
        assert checks and all(len(check.rules) == 1 for check in checks)  # one function per rule


def test_the_registry_finds_the_families_itself():
    """Every module of kartalint/rules/ but the registry's machinery is a family (it declares
    ``RULES``), found by the registry: a new module is a new family, with no list to edit. Their
    checks run by module name, a family after those its ``AFTER`` names."""
    from kartalint.rules import registry

    modules = {p.stem for p in (PACKAGE / "rules").glob("*.py") if not p.stem.startswith("_")}
    families = [m.__name__ for m in registry.FAMILIES]
    assert {m.rpartition(".")[2] for m in families if m.startswith("kartalint.rules.")} == modules - set(
        registry.MACHINERY
    )
    assert all(m.RULES for m in registry.FAMILIES)
    # the CRD checks settle null-safety questions before the jq checks ask them
    assert families.index("kartalint.rules.crd_paths") < families.index("kartalint.rules.expressions")
    from kartalint.rules import expressions

    assert expressions.AFTER == ("crd_paths",)


def test_a_new_module_is_a_new_family_in_a_deterministic_order(tmp_path, monkeypatch):
    """A family module dropped into a rules package is found, ordered by name, after the families
    its ``AFTER`` names; the machinery and private helpers are not families."""
    from kartalint.rules.registry import find_families

    package = tmp_path / "houserules"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, after in (("alpha", ("zulu",)), ("beta", ()), ("zulu", ()), ("registry", ()), ("_helpers", ())):
        (package / f"{name}.py").write_text(f"RULES = ({name!r},)\nAFTER = {after!r}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    found = find_families(str(package), "houserules")
    assert [m.__name__ for m in found] == ["houserules.beta", "houserules.zulu", "houserules.alpha"]


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

    from kartalint.rules import registry

    families = {m.__name__ for m in registry.FAMILIES if getattr(m, "__name__", "").startswith("kartalint.rules.")}
    page = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    rows = {m.group(1): m.group(0) for m in re.finditer(r"^\|[^|]*\| `kartalint/(\w+)/` \|.*$", page, re.M)}
    root = page[page.index("At the root:") :]
    missing = []
    for name, path in _modules().items():
        parts = name.split(".")[1:] or ["__init__"]
        if path.name == "__init__.py" and name != "kartalint":
            continue  # a package: its row
        if name in families:
            continue  # a family of rules: found by the registry, its rules listed in docs/rules.md
        where = rows.get(parts[0], "") if len(parts) > 1 else root
        if f"`{parts[-1]}" not in where:
            missing.append(name)
    assert missing == []


def _reads_only_version(path: pathlib.Path) -> bool:
    """Whether the module does ``import kartalint`` only to read ``kartalint.__version__`` when it
    needs it (the version is looked up when first read: git in a checkout, so not at import)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = any(
        isinstance(node, ast.Import) and any(alias.name == "kartalint" and not alias.asname for alias in node.names)
        for node in ast.walk(tree)
    )
    uses = [
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "kartalint"
    ]
    bare = [node for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id == "kartalint"]
    return imported and bool(uses) and set(uses) == {"__version__"} and len(bare) == len(uses)


def _imported_names(path: pathlib.Path, name: str) -> set[tuple[str, str]]:
    """(module, name) of every ``from module import name`` in the module (relative imports
    resolved), and (module, "*") of every ``import module``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    return _imports_in(path.read_text(encoding="utf-8"), package)


def _imports_in(text: str, package: str) -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            found.update((alias.name, "*") for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            found.update((base, alias.name) for alias in node.names)
    return found


# What only the lint stage runs: the checks of a file's documents and the steps of its lint
# (configure, suppress). Everything else lints through kartalint.lint (lint_source, lint_file,
# lint_paths), so every command and the editor report what `kartalint lint` reports.
PER_FILE_CHECKS = {
    ("kartalint.rules.document", "check_document"),
    ("kartalint.rules.fixture_schema", "check_fixture"),
    ("kartalint.rules", "suppress"),
    ("kartalint.rules.suppress", "apply"),
    ("kartalint.rules.suppress", "split"),
    ("kartalint.lint.pipeline", "configure"),
}
# A fixture's schema is the condition of running it: ``test`` refuses an invalid fixture (no lint)
NOT_A_LINT = {"kartalint.testing.cases": {("kartalint.rules.fixture_schema", "check_fixture")}}
# The five places that lint, and what they call
LINT_ENTRY = {
    "kartalint.cli.lint": "lint_paths",
    "kartalint.lsp.document": "lint_source",
    "kartalint.cli.explore": "lint_source",
    "kartalint.diff.changes": "lint_source",
    "kartalint.testing.run": "lint_file",
}


def test_one_lint_entry_point():
    """The CLI, the language server, explore, diff and test lint through the lint stage's entry
    points (``lint_paths`` -> ``lint_files`` -> ``lint_file`` -> ``lint_source``, the one lint of a loaded file); no
    other module runs the checks of a file or applies configuration and suppressions itself."""
    from kartalint.lint import lint_file, lint_paths, lint_source

    modules = _modules()
    callers = []
    for name, path in modules.items():
        imported = _imported_names(path, name)
        if name.startswith("kartalint.lint."):
            continue
        reached = (imported & PER_FILE_CHECKS) - NOT_A_LINT.get(name, set())
        if name == "kartalint.rules.registry":
            reached.discard(("kartalint.rules", "suppress"))  # it collects the module's rules
        if reached:
            callers.append(f"{name}: {sorted(reached)}")
    assert callers == [], "lint through kartalint.lint (lint_source, lint_file, lint_paths)"
    for name, entry in LINT_ENTRY.items():
        assert ("kartalint.lint", entry) in _imported_names(modules[name], name), name
    # the entry points are one pipeline: lint_paths reads the files with lint_files, which is
    # lint_file on each (lint_source on the file read) or, with house rules, the same reading of
    # each file (``_read``) with the house rules queued
    pipeline = ast.parse(modules["kartalint.lint.pipeline"].read_text(encoding="utf-8"))
    functions = {n.name: ast.unparse(n) for n in ast.walk(pipeline) if isinstance(n, ast.FunctionDef)}
    assert "lint_source(" in functions["lint_file"]
    assert "_read(" in functions["lint_source"]
    assert "lint_file(" in functions["lint_files"] and "_read(" in functions["lint_files"]
    assert {lint_file.__module__, lint_source.__module__} == {"kartalint.lint.pipeline"}
    paths = modules["kartalint.lint.paths"].read_text(encoding="utf-8")
    assert lint_paths.__module__ == "kartalint.lint.paths" and "lint_files(" in paths


def test_the_lint_entry_check_sees_a_stray_caller():
    text = "from kartalint.rules.document import check_document\nfrom . import suppress\nimport yaml\n"
    assert _imports_in(text, "kartalint.rules") & PER_FILE_CHECKS == {
        ("kartalint.rules.document", "check_document"),
        ("kartalint.rules", "suppress"),
    }


MAX_CLI_FUNCTION_LINES = 40


def _cli_functions() -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    found = []
    for path in sorted((PACKAGE / "cli").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append((f"cli/{path.name}:{node.lineno} {node.name}", node))
    return found


def _annotations(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.expr]:
    arguments = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs, node.args.vararg, node.args.kwarg]
    found = [a.annotation for a in arguments if a is not None and a.annotation is not None]
    return found + ([node.returns] if node.returns is not None else [])


def _says_any(annotation: ast.expr) -> bool:
    """Whether an annotation is or holds ``Any`` (``typing.Any``, or in a string annotation)."""
    for node in ast.walk(annotation):
        if (isinstance(node, ast.Name) and node.id == "Any") or (
            isinstance(node, ast.Attribute) and node.attr == "Any"
        ):
            return True
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and _says_any(ast.parse(node.value, mode="eval").body)
        ):
            return True
    return False


def test_commands_are_thin():
    """A command parses its options into one typed request, builds its collaborators and runs the
    stage (check-jsonschema's shape): no function of ``cli/`` over 40 lines, and no ``Any`` in
    their signatures (what a command hands on has a type)."""
    long = [
        f"{name} ({n.end_lineno - n.lineno + 1} lines)"
        for name, n in _cli_functions()
        if (n.end_lineno or 0) - n.lineno + 1 > MAX_CLI_FUNCTION_LINES
    ]
    assert long == [], "split the command into a request, its collaborators and the stage's call"
    untyped = [name for name, node in _cli_functions() if any(_says_any(a) for a in _annotations(node))]
    assert untyped == [], "give what a command hands on its type (no Any in cli/ signatures)"
    # every module of cli/ is looked at (each has functions: its command's add_arguments and run)
    assert {name.split(":")[0] for name, _ in _cli_functions()} == {
        f"cli/{p.name}" for p in (PACKAGE / "cli").glob("*.py")
    }
    assert _says_any(ast.parse("dict[str, Any]", mode="eval").body) and _says_any(
        ast.parse("'t.Any | None'", mode="eval").body
    )
    assert not _says_any(ast.parse("dict[str, object]", mode="eval").body)


DISPATCH = "__init__.py"  # kartalint/cli/__init__.py: imports a command's module when it is run
# kartalint/cli/parser.py, the dispatch's parser: imports what --version and --help say when asked
DISPATCH_PARSER = "parser.py"


def _function_imports(text: str) -> list[str]:
    """Each import made inside a function of a module's text (line and what it imports), in order."""
    inside: dict[int, ast.Import | ast.ImportFrom] = {}
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inside.update({id(n): n for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom))})
    found = []
    for node in sorted(inside.values(), key=lambda n: (n.lineno, n.col_offset)):
        if isinstance(node, ast.Import):
            found += [f"{node.lineno} {alias.name}" for alias in node.names]
        else:
            found.append(f"{node.lineno} {'.' * node.level}{node.module or ''}")
    return found


def test_command_modules_import_at_their_top():
    """The one lazy boundary of ``cli/`` is the dispatch (``kartalint.cli`` imports a command's
    module when that command is run, and its help when it is shown): every other module of
    ``cli/`` imports at its top (``if TYPE_CHECKING:`` for what only annotations name; an optional
    extra in a ``try`` at the top)."""
    inside = {
        path.name: found
        for path in sorted((PACKAGE / "cli").glob("*.py"))
        if path.name not in (DISPATCH, DISPATCH_PARSER)
        and (found := _function_imports(path.read_text(encoding="utf-8")))
    }
    assert inside == {}, "move these imports to the module's top (the dispatch in cli/__init__.py is the lazy one)"
    assert _function_imports((PACKAGE / "cli" / DISPATCH_PARSER).read_text(encoding="utf-8"))  # (the check sees them)


def test_the_function_import_check_sees_one_in_a_method_and_a_nested_function():
    text = (
        "import os\nclass A:\n    def f(self):\n        from kartalint import model\n"
        "def g():\n    def h():\n        import json, re\n    if True:\n        from . import x\n"
    )
    assert _function_imports(text) == ["4 kartalint", "7 json", "7 re", "9 ."]


def test_a_one_file_lint_imports_no_other_command_and_no_heavy_extra(tmp_path):
    """A one-file ``kartalint lint`` (a pre-commit hook call) imports its own command only: no
    other command's module, and none of what they need (the language server, hypothesis, the
    mutation and testing stages, ruamel, shtab); ``--help`` and ``--version`` import no command."""
    import subprocess
    import sys

    definition = PACKAGE.parent / "catalog" / "batch-job-v1.yaml"
    others = {f"kartalint.cli.{p.stem}" for p in (PACKAGE / "cli").glob("*.py")} - {
        "kartalint.cli.__init__",
        "kartalint.cli.common",
        "kartalint.cli.lint",
        "kartalint.cli.parser",
    }
    heavy = ("pygls", "lsprotocol", "hypothesis", "ruamel", "shtab", "kartalint.lsp", "kartalint.explore",
             "kartalint.mutation", "kartalint.testing", "kartalint.cli.manual")  # fmt: skip
    script = (
        "import sys\nfrom kartalint.cli import main\ntry:\n    code = main(sys.argv[1:])\n"
        "except SystemExit as stop:\n    code = stop.code\n"
        "sys.stderr.write('\\n'.join(sorted(sys.modules)))\nsys.exit(code)\n"
    )
    for argv, own in ((["lint", str(definition)], {"kartalint.cli.lint"}), (["--version"], set()), (["--help"], set())):
        proc = subprocess.run(
            [sys.executable, "-c", script, *argv], capture_output=True, text=True, cwd=tmp_path, check=False
        )
        assert proc.returncode == 0, proc.stderr
        modules = set(proc.stderr.splitlines())
        assert modules & (others | {"kartalint.cli.lint"}) == own, argv
        assert not [m for m in modules if m.startswith(heavy)], argv
        assert ("kartalint.cli.parser" in modules) == (argv[0] != "lint"), argv  # (the hook's line is plain)


def test_no_dead_code():
    """vulture finds nothing unused in kartalint/ (the whitelist names what registrations, the
    language server's handlers, libraries and the tests use); .ci/run runs it too."""
    import subprocess
    import sys

    import pytest

    pytest.importorskip("vulture")
    whitelist = PACKAGE.parent / ".ci" / "vulture-whitelist.py"
    proc = subprocess.run(
        [sys.executable, "-m", "vulture", str(PACKAGE), str(whitelist)], capture_output=True, text=True, check=False
    )
    assert proc.stdout == "" and proc.returncode == 0, proc.stdout + proc.stderr
