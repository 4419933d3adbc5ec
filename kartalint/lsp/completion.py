"""Completion: Karta field names from the schema at the cursor, the next path segment of a jq
expression from the CRD of the definition's kind, component names where one is named, and rule
ids in a suppression comment (``# kartalint: disable=``)."""

from __future__ import annotations

import json
import re
from typing import Any

from lsprotocol import types

from kartalint import karta
from kartalint import schema as karta_schema
from kartalint.jqlang import paths
from kartalint.jqlang.lexer import JqSyntaxError
from kartalint.jqlang.parser import parse
from kartalint.load.crds import lookup
from kartalint.load.kinds import FIXTURE_KIND
from kartalint.lsp.document import OpenFile, jq_field_at, utf16_length
from kartalint.lsp.project import LspProject
from kartalint.rules import registry
from kartalint.rules.fixture_schema import SCHEMA_FILE

_PARTIAL = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)?$")
_CURSOR = "kartalint__cursor"
_KEY_LINE = re.compile(r"^(\s*)(-\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*:")


def complete(open_file: OpenFile, project: LspProject, position: tuple[int, int]) -> list[types.CompletionItem]:
    """What to offer at ``position``: rule ids in a suppression comment, component names after ``ownerRef`` or
    ``componentName``, the CRD's fields inside a jq expression, else the schema's keys."""
    suppressed = _suppression_rule_ids(open_file, position)
    if suppressed is not None:
        return suppressed
    place = open_file.place(position)
    if place is not None and place.document.is_karta and not place.on_key:
        path = place.path
        if path and (path[-1] == "ownerRef" or path[-1] == "componentName"):
            return _component_names(place.document.data)
        jq_field = jq_field_at(place.document, path)
        if jq_field is not None and place.scalar_index is not None:
            return _crd_segments(open_file, project, place, jq_field)
    return _schema_fields(open_file, position)


# a suppression comment up to the cursor: the rule ids given so far, and the one being typed
_SUPPRESSION = re.compile(r"#\s*kartalint:\s*disable(?:-file)?\s*=\s*((?:[A-Za-z0-9_-]+\s*,\s*)*)([A-Za-z0-9_-]*)$")


def _suppression_rule_ids(open_file: OpenFile, position: tuple[int, int]) -> list[types.CompletionItem] | None:
    """In ``# kartalint: disable=`` (or ``disable-file=``, after a comma too): every rule id not
    given yet, replacing what is typed of one; None elsewhere."""

    line, units = open_file.clamp(position)
    before = open_file.text[open_file.offset((line, 0)) : open_file.offset((line, units))]
    found = _SUPPRESSION.search(before)
    if found is None:
        return None
    given = {name.strip() for name in found.group(1).split(",")}
    typed = found.group(2)
    where = types.Range(types.Position(line, units - utf16_length(typed)), types.Position(line, units))
    return [
        types.CompletionItem(
            label=rule.id,
            kind=types.CompletionItemKind.EnumMember,
            detail=f"{rule.severity} {rule.category} rule",
            documentation=rule.summary,
            text_edit=types.TextEdit(range=where, new_text=rule.id),
        )
        for rule in registry.RULES.values()
        if rule.id not in given
    ]


def _component_names(definition: Any) -> list[types.CompletionItem]:
    names = [c.name for c in karta.components(definition) if isinstance(c.name, str) and c.name]
    return [
        types.CompletionItem(label=name, kind=types.CompletionItemKind.Reference, detail="component") for name in names
    ]


def _crd_segments(open_file: OpenFile, project: LspProject, place: Any, jq_field: Any) -> list[types.CompletionItem]:
    if jq_field.target != "workload":
        return []
    version = project.crd_version(place.document.data)
    if version is None:
        return []

    segments, partial = _context(jq_field.expression, place.scalar_index)
    if segments is None:
        return []
    result = lookup(version.schema, tuple(segments))
    if not result.found or result.schema is None:
        return []
    schema = result.schema
    properties = schema.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    start = open_file.scalar_position(place.node, place.scalar_index - len(partial))
    end = open_file.scalar_position(place.node, place.scalar_index)
    where = types.Range(types.Position(*start), types.Position(*end))
    items = []
    for name, sub in sorted(properties.items()):
        sub = sub if isinstance(sub, dict) else {}
        kind = sub.get("type") or ("int or string" if sub.get("x-kubernetes-int-or-string") else "")
        items.append(
            types.CompletionItem(
                label=name,
                kind=types.CompletionItemKind.Field,
                detail=f"{kind} ({version.kind} {version.group}/{version.version})".strip(),
                documentation=str(sub.get("description") or "") or None,
                text_edit=types.TextEdit(range=where, new_text=name),
            )
        )
    return items


def _context(expression: str, index: int) -> tuple[tuple[str, ...] | None, str]:
    """(the input path the field being typed belongs to, what is typed of it so far): the
    expression is read with a placeholder field at the cursor and followed through pipes,
    variables and functions like every other path read (``jqlang.paths``)."""

    match = _PARTIAL.search(expression[:index])
    if match is None:
        return None, ""
    partial = match.group(1) or ""
    probe = expression[: index - len(partial)] + _CURSOR + expression[index:]
    try:
        tree = parse(probe)
    except JqSyntaxError:
        return None, partial
    for read in paths.path_facts(tree).reads:
        if _CURSOR in read.path:
            return tuple(read.path[: read.path.index(_CURSOR)]), partial
    return None, partial


def _schema_fields(open_file: OpenFile, position: tuple[int, int]) -> list[types.CompletionItem]:
    """Karta fields that may go at the cursor's indentation, from the Karta schema."""

    path, siblings = _path_by_indent(open_file, position)
    if path is None:
        return []
    root: Any = _fixture_schema() if _document_kind(open_file, position[0]) == FIXTURE_KIND else None
    root = root or karta_schema.karta_schema()
    node: Any = _resolved(root, root)
    for part in path:
        if part == "[]":
            node = node.get("items") if isinstance(node, dict) else None
        else:
            props = node.get("properties") if isinstance(node, dict) else None
            node = props.get(part) if isinstance(props, dict) else None
        node = _resolved(root, node)
        if not isinstance(node, dict):
            return []
    properties = node.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    required = set(node.get("required") or [])
    items = []
    for name, sub in sorted(properties.items()):
        if name in siblings:
            continue
        sub = sub if isinstance(sub, dict) else {}
        kind = sub.get("type")
        kind = " or ".join(kind) if isinstance(kind, list) else kind or ""
        items.append(
            types.CompletionItem(
                label=name,
                kind=types.CompletionItemKind.Property,
                detail=f"{kind}{', required' if name in required else ''}",
                documentation=str(sub.get("description") or "") or None,
                insert_text=f"{name}: ",
            )
        )
    return items


def _fixture_schema() -> Any:
    with open(SCHEMA_FILE, encoding="utf-8") as handle:
        return json.load(handle)


def _resolved(root: Any, node: Any) -> Any:
    """``node`` with local ``$ref``s followed (the fixture schema uses them)."""
    for _ in range(16):
        ref = node.get("$ref") if isinstance(node, dict) else None
        if not isinstance(ref, str) or not ref.startswith("#/"):
            return node
        target: Any = root
        for part in ref[2:].split("/"):
            target = target.get(part) if isinstance(target, dict) else None
        node = target
    return node


def _document_kind(open_file: OpenFile, line: int) -> str | None:
    """The ``kind:`` at the top level of the YAML document that holds ``line``."""
    lines = open_file.text.split("\n")
    start = next((i + 1 for i in range(min(line, len(lines) - 1), -1, -1) if lines[i].strip() == "---"), 0)
    for text in lines[start:]:
        if text.strip() == "---":
            break
        match = re.match(r"^kind:\s*['\"]?([A-Za-z]+)", text)
        if match:
            return match.group(1)
    return None


def _path_by_indent(open_file: OpenFile, position: tuple[int, int]) -> tuple[tuple[str, ...] | None, set[str]]:
    """(the Karta path of the mapping a key typed at the cursor belongs to, the keys already
    there), read from indentation (the line being typed need not parse)."""
    line_no, _ = position
    current = open_file.line_text(line_no)
    indent = len(current) - len(current.lstrip(" "))
    stripped = current.strip()
    if stripped.startswith("- "):
        indent += 2
    path: list[str] = []
    level = indent
    siblings: set[str] = set()
    start_of_document = 0
    for back in range(line_no - 1, -1, -1):
        text = open_file.line_text(back)
        if text.strip() == "---":
            start_of_document = back + 1
            break
    # keys at the same level, above and below, until the level ends
    for step in (-1, 1):
        probe = line_no + step
        while start_of_document <= probe < open_file.line_count:
            text = open_file.line_text(probe)
            if text.strip() == "---":
                break
            if text.strip() and not text.lstrip().startswith("#"):
                key = _KEY_LINE.match(text)
                key_indent = len(text) - len(text.lstrip(" ")) + (len(key.group(2)) if key and key.group(2) else 0)
                if key_indent < level:
                    break
                if key and key_indent == level:
                    siblings.add(key.group(3))
            probe += step
    after_item = False  # the parent of a list item may sit at the item's own indentation
    for back in range(line_no - 1, start_of_document - 1, -1):
        text = open_file.line_text(back)
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        key = _KEY_LINE.match(text)
        text_indent = len(text) - len(text.lstrip(" "))
        if key and key.group(2):  # "- key: ..." starts a list item whose mapping is at text_indent + 2
            if text_indent + len(key.group(2)) <= level and text_indent < level:
                path.append("[]")
                level, after_item = text_indent, True
            continue
        is_parent = (key is not None and text[key.end() :].strip() in ("", "|", ">", "|-", ">-")) or (
            key is not None and text[key.end() :].strip().startswith("#")
        )
        if is_parent and key is not None and (text_indent < level or (after_item and text_indent <= level)):
            path.append(key.group(3))
            level, after_item = text_indent, False
        if level == 0 and not after_item:
            break
    if level != 0:
        return None, siblings
    return tuple(reversed(path)), siblings
