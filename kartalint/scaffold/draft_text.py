"""The text of a draft (`kartalint new --crd`): the definition as YAML with its comments above the
lines they explain, and the review of what each draft found."""

from __future__ import annotations

import re
import textwrap
from typing import Any

import yaml

from kartalint.karta import as_dict
from kartalint.rules.suppress import DIRECTIVE
from kartalint.scaffold.crd_schema import comment_text, jq_path
from kartalint.scaffold.draft_model import Comments, Draft
from kartalint.scaffold.fixture import LINE_WIDTH, FoldingDumper


def review(draft: Draft) -> dict[str, Any]:
    """What a draft found and how sure each guess is (for the review report and its JSON)."""
    children = {c.get("name"): c for c in draft.data["spec"]["structureDefinition"].get("childComponents", [])}
    roles = []
    for role in draft.roles:
        component = children.get(role.name, {})
        scale = component.get("scaleDefinition") or {}
        roles.append(
            {
                "name": role.name,
                "path": jq_path(role.path),
                "shape": role.shape,
                "confidence": "seen"
                if role.name in draft.evidence
                else "guessed by name"
                if role.note and role.shape in ("template", "podspec", "container")
                else f"schema shape ({role.shape})",
                "evidence": draft.evidence.get(role.name, "the CRD alone"),
                "instanceIdPath": component.get("instanceIdPath"),
                "replicas": scale.get("replicasPath", "1"),
            }
        )
    kind = draft.fixture_object.get("kind")
    return {
        "name": draft.name,
        "kind": kind,
        "apiVersion": draft.fixture_object.get("apiVersion"),
        "roles": roles,
        "notes": [
            line for line in header_notes(draft.text)[2:] if "Not a role" in line or "Skipped" in line or "TODO" in line
        ]
        + draft.todo,
        "evidence": list(draft.notes),
        "problems": list(draft.problems),
    }


def review_lines(draft: Draft, crd_path: str) -> list[str]:
    """The review report of `new --crd` and `init --crd`: the roles found, where, how sure, and replicas."""
    lines = [f"{draft.name}: {len(draft.roles)} role(s) found in {crd_path}"]
    for role in review(draft)["roles"]:
        lines.append(
            f"  {role['name']:<16} {role['path']:<44} {role['confidence']:<26} evidence: {role['evidence']:<24} "
            f"replicas: {role['replicas']}"
        )
    lines += [f"  {note}" for note in draft.notes]
    return lines


CONTINUED = "    "  # the indentation of a comment's continuation lines


def comment_lines(text: str, indent: str = "") -> list[str]:
    """``text`` (made safe by ``comment_text``) as comment lines at ``indent`` that fit in
    ``LINE_WIDTH`` columns, the lines after the first indented by ``CONTINUED`` more than it
    (``header_notes`` joins them again; a note of its own may be indented less). A word longer
    than a line stays whole, alone on its line without that indentation. A suppression directive
    stays whole on the last line (it silences the line below it), its reason (`` -- why``) on
    the lines above."""
    text = comment_text(text)
    if re.match(DIRECTIVE, f"# {text.strip()}") and " -- " in text:
        command, reason = text.split(" -- ", 1)
        return [*comment_lines(reason, indent), f"{indent}# {command.strip()}"]
    width = max(20, LINE_WIDTH - len(indent) - 2)
    lead = text[: len(text) - len(text.lstrip(" "))]
    lines = textwrap.wrap(
        text, width, subsequent_indent=lead + CONTINUED, break_long_words=False, break_on_hyphens=False
    )
    # a word too long for any line stands alone without the hanging indentation (yamllint lets a
    # comment of one word run past the width)
    lines = [
        line.lstrip(" ") if i and len(line) > width and " " not in line.strip() else line
        for i, line in enumerate(lines)
    ]
    return [f"{indent}# {line}".rstrip() for line in lines or [""]]


def header_text(lines: list[str]) -> str:
    """A draft's header: each line (``# ...``) a comment, wrapped (``comment_lines``), then the
    document start."""
    texts = [line[2:] if line.startswith("# ") else line.lstrip("#") for line in lines]
    return "".join(f"{line}\n" for text in texts for line in comment_lines(text)) + "---\n"


def header_notes(text: str) -> list[str]:
    """The notes of a draft's header (its comment lines before ``---``), each wrapped one joined again."""
    notes: list[str] = []
    for line in text.split("\n---\n", 1)[0].splitlines():
        if line.startswith("# " + CONTINUED) and notes:
            notes[-1] += " " + line[2 + len(CONTINUED) :]
        elif line.startswith("# "):
            notes.append(line[2:])
    return notes


_CHILD = "      - name: "  # an entry of childComponents (sequences are indented under their key)


def render(data: dict[str, Any], comments: Comments) -> str:
    """The definition as YAML (an expression that would run past ``LINE_WIDTH`` folded, ``>-``)
    with ``comments`` above the lines they explain: a component's first line, or a field inside
    its block."""
    text = yaml.dump(
        data, Dumper=FoldingDumper, sort_keys=False, default_flow_style=False, allow_unicode=True, width=LINE_WIDTH
    )
    lines = text.splitlines(keepends=True)
    blocks: dict[str, tuple[int, int]] = {}
    starts = []
    for i, line in enumerate(lines):
        if line.startswith("    rootComponent:"):
            starts.append((i, str(as_dict(data["spec"]["structureDefinition"]["rootComponent"]).get("name"))))
        elif line.startswith(_CHILD):
            starts.append((i, line[len(_CHILD) :].strip().strip("'\"")))
        elif not line.startswith("    ") and starts:
            starts.append((i, ""))
    for (start, name), (end, _) in zip(starts, [*starts[1:], (len(lines), "")], strict=True):
        if name:
            blocks.setdefault(name, (start, end))
    inserts = []
    for (name, key), notes in comments.items():
        if name not in blocks or not notes:
            continue
        start, end = blocks[name]
        index, indent = (start, _CHILD[: -len("- name: ")]) if key is None else (None, "")
        for i in range(start, end) if key is not None else ():
            stripped = lines[i].lstrip(" ")
            if stripped.startswith((f"{key}:", f"- {key}:")):
                index, indent = i, lines[i][: len(lines[i]) - len(stripped)]
                break
        if index is not None:
            inserts.append((index, indent, notes))
    above: dict[int, list[str]] = {}  # line index -> the comment lines above it, in one pass (linear)
    for index, indent, notes in inserts:  # at one line, the last given comes first
        above[index] = [f"{line}\n" for note in notes for line in comment_lines(note, indent)] + above.get(index, [])
    return "".join(part for i, line in enumerate(lines) for part in (*above.get(i, ()), line))
