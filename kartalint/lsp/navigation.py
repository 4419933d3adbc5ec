"""Navigation: from a component named by ``ownerRef`` or a gang member to the component, the
component tree as document symbols, and a code lens above the root with the fixtures' results
(of the definition as the editor holds it, saved or not)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from lsprotocol import types

from kartalint import karta
from kartalint.evaluation import Evaluator
from kartalint.lsp.document import OpenFile
from kartalint.lsp.project import LspProject
from kartalint.testing.run import LintCache, run_cases


def _range(open_file: OpenFile, node: Any) -> types.Range:
    start, end = open_file.node_span(node)
    return types.Range(types.Position(*start), types.Position(*end))


def definition(open_file: OpenFile, uri: str, position: tuple[int, int]) -> types.Location | None:
    """Where the component named at ``position`` (an ``ownerRef`` or ``componentName`` value) is declared, or None."""
    place = open_file.place(position)
    if place is None or not place.document.is_karta or not place.path:
        return None
    if place.path[-1] not in ("ownerRef", "componentName") or not isinstance(place.node.value, str):
        return None
    for component in karta.components(place.document.data):
        if component.name == place.node.value:
            node, _, depth = place.document.node_at((*component.path, "name"))
            if depth == len(component.path) + 1:
                return types.Location(uri, _range(open_file, node))
    return None


def symbols(open_file: OpenFile) -> list[types.DocumentSymbol]:
    """The outline of each definition: its components, nested under their owners."""
    out = []
    for document in open_file.definitions:
        refs = karta.components(document.data)
        built: dict[str, types.DocumentSymbol] = {}
        children: dict[int, list[types.DocumentSymbol]] = {}
        roots: list[types.DocumentSymbol] = []
        for ref in refs:
            node, _, _ = document.node_at(ref.path)
            name_node, _, depth = document.node_at((*ref.path, "name"))
            kind = karta.as_dict(ref.data.get("kind"))
            symbol = types.DocumentSymbol(
                name=str(ref.name) if ref.name else "(unnamed component)",
                detail=f"{kind.get('kind', '')} {kind.get('group', '')}/{kind.get('version', '')}".strip(),
                kind=types.SymbolKind.Class if ref.is_root else types.SymbolKind.Field,
                range=_range(open_file, node),
                selection_range=_range(open_file, name_node if depth == len(ref.path) + 1 else node),
                children=[],
            )
            owner = ref.data.get("ownerRef")
            parent = built.get(owner) if isinstance(owner, str) and not ref.is_root else None
            children[id(symbol)] = []
            (children[id(parent)] if parent is not None else roots).append(symbol)
            symbol.children = children[id(symbol)]
            if isinstance(ref.name, str):
                built.setdefault(ref.name, symbol)
        out.extend(roots)
    return out


def code_lenses(
    open_file: OpenFile, project: LspProject, title: Callable[[int, Any], str] | None = None
) -> list[types.CodeLens]:
    """Above each root component: how many of this definition's fixtures pass (``title(index,
    definition)`` gives the text: the server's comes from its jq thread)."""
    lenses = []
    for index, document in enumerate(open_file.definitions):
        root = [c for c in karta.components(document.data) if c.is_root]
        if not root:
            continue
        node, key, _ = document.node_at(root[0].path)
        anchor = key if key is not None else node
        start, _ = open_file.node_span(anchor)
        where = types.Range(types.Position(*start), types.Position(*start))
        lenses.append(
            types.CodeLens(
                range=where,
                command=types.Command(
                    title=title(index, document.data) if title else fixture_summary(open_file, project, document.data),
                    command="",
                ),
            )
        )
    return lenses


def fixture_summary(open_file: OpenFile, project: LspProject, definition: Any, runner: Any = None) -> str:
    """The outcomes of this definition's fixtures, evaluated with ``definition`` as the editor
    holds it (saved or not); ``runner``: the project's, or a view of it with a time budget."""

    cases = [
        dataclasses.replace(case, definition=case.definition.replace(data=definition))
        for case in project.cases_for(open_file.path)
    ]
    if not cases:
        return "no fixture uses this definition"

    with Evaluator(runner=runner or project.runner()) as evaluator:  # the project's worker, bounded
        test_run = run_cases(cases, evaluator, LintCache(project.config))
    counts: dict[str, int] = {}
    for result in test_run.results:
        counts[result.outcome] = counts.get(result.outcome, 0) + 1
    shown = ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items()))
    spent = getattr(getattr(runner, "budget", None), "over", False)
    return f"fixtures: {shown}" + ("; stopped: this version's jq time budget is spent" if spent else "")
