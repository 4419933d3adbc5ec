"""Fixture drafts (`kartalint new fixture`): a trimmed object and an ``expect`` block filled from the evaluation."""

from __future__ import annotations

import copy
import os
import re
from typing import TYPE_CHECKING, Any

import yaml

from kartalint.evaluation.view import WorkloadView
from kartalint.load.kinds import FIXTURE_API_VERSION, FIXTURE_KIND
from kartalint.testing.compare import snapshot

if TYPE_CHECKING:
    from kartalint.load.definitions import DefinitionFile

_NOISE_ANNOTATIONS = ("kubectl.kubernetes.io/last-applied-configuration",)


def trim_object(obj: dict[str, Any]) -> dict[str, Any]:
    """The object without server-side noise (managedFields, last-applied annotation)."""
    out = copy.deepcopy(obj)
    meta = out.get("metadata")
    if isinstance(meta, dict):
        meta.pop("managedFields", None)
        annotations = meta.get("annotations")
        if isinstance(annotations, dict):
            for key in _NOISE_ANNOTATIONS:
                annotations.pop(key, None)
            if not annotations:
                meta.pop("annotations", None)
    return out


class QuotingDumper(yaml.SafeDumper):
    """What ``init`` and ``new`` write: block style, multi-line strings as literal blocks, and
    sequences indented under their key (yamllint's default ``indentation`` rule)."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        """Indent a sequence under its key (PyYAML writes it indentless)."""
        return super().increase_indent(flow, False)


# what the report writer escapes on every line it writes (report.escape.guard_line) and YAML 1.1 reads
# as a line break: written raw, such a character would not read back as itself
_ESCAPED_ON_WRITE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def represent_str(dumper: yaml.SafeDumper, value: str) -> Any:
    """Multi-line strings as literal blocks; a string with a control character, NEL, a line or
    paragraph separator or a bidirectional mark double-quoted, so YAML's own escapes write it (it
    reads back as itself through the report writer's escaping)."""
    style = '"' if _ESCAPED_ON_WRITE.search(value) else "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


QuotingDumper.add_representer(str, represent_str)

LINE_WIDTH = 80  # yamllint's default line-length: what kartalint writes passes it


class FoldingDumper(QuotingDumper):
    """``QuotingDumper`` whose lines fit in ``LINE_WIDTH`` columns: a one-line string that would
    run past it is written folded (``>-``), broken at single spaces before the word that would
    cross the width, so it reads back as itself (a string that cannot be folded so, with leading,
    trailing or repeated spaces, stays as PyYAML writes it; a word longer than a line stays whole,
    alone on its line)."""

    def choose_scalar_style(self) -> str:
        """Folded (``>``) for a plain or single-quoted string that would cross the line width; else PyYAML's choice."""
        style = super().choose_scalar_style()
        event, analysis = self.event, self.analysis
        if (
            style in ("", "'")
            and isinstance(event, yaml.ScalarEvent)
            and analysis is not None
            and analysis.allow_block
            and not self.simple_key_context
            and not self.flow_level
            and self.column + 1 + len(event.value) + (2 + event.value.count("'") if style else 0) > LINE_WIDTH
            and _FOLDABLE.fullmatch(event.value)
        ):
            return ">"
        return str(style)

    def write_folded(self, text: str) -> None:
        """Write a foldable string as ``>-`` folded at the line width (PyYAML's own otherwise)."""
        if not _FOLDABLE.fullmatch(text):
            super().write_folded(text)
            return
        self.write_indicator(">-", True)
        self.write_line_break()
        self.write_indent()
        for index, word in enumerate(text.split(" ")):
            if index and self.column + 1 + len(word) > LINE_WIDTH:
                self.write_indent()
            elif index:
                word = " " + word
            self.column += len(word)
            self.stream.write(word)
        self.write_line_break()


# one line of words separated by single spaces (what a folded scalar reads back exactly); a long
# single word is written on a line of its own below its key (yamllint lets a line of one word run)
_FOLDABLE = re.compile(r"[^\s]+(?: [^\s]+)*")


def dump(data: Any) -> str:
    """``data`` as YAML that passes yamllint's default rules, line length included."""
    return yaml.dump(
        data, Dumper=FoldingDumper, sort_keys=False, default_flow_style=False, allow_unicode=True, width=LINE_WIDTH
    )


def fixture_text(
    obj: dict[str, Any],
    view: WorkloadView,
    *,
    name: str,
    source: str,
    definition: str | None = None,
    pods: list[Any] | None = None,
    lint_rules: list[str] | None = None,
    description: str | None = None,
    expect: bool = True,
) -> str:
    """The fixture document; ``expect=False`` leaves ``expect`` empty (`kartalint test` reports
    the case as needing expectations) for an evaluation that must not be pinned."""
    doc: dict[str, Any] = {"apiVersion": FIXTURE_API_VERSION, "kind": FIXTURE_KIND, "name": name}
    if description:
        doc["description"] = description
    doc["source"] = source
    if definition:
        doc["definition"] = definition
    doc["object"] = trim_object(obj)
    if pods is not None:
        doc["pods"] = [trim_object(p) for p in pods]
    doc["expect"] = snapshot(view, lint_rules) if expect else {}
    header = (
        "# kartalint fixture (docs/fixtures.md). The expect block was generated from\n"
        "# what the definition computed: review every value against the object before\n"
        "# committing.\n"
        if expect
        else "# kartalint fixture (docs/fixtures.md). expect is empty: the definition could\n"
        "# not evaluate the object without errors, so nothing was pinned. Fix the\n"
        "# definition, then `kartalint test --update`.\n"
    )
    return header + "---\n" + dump(doc)


def object_fixture(
    obj: dict[str, Any],
    view: WorkloadView,
    definition: DefinitionFile,
    object_path: str,
    output: str | None,
    *,
    name: str | None = None,
    source: str | None = None,
    pods: list[Any] | None = None,
    lint_rules: list[str] | None = None,
) -> str:
    """``kartalint new fixture``'s document of ``obj`` read from ``object_path`` (``-``: stdin) and
    written to ``output`` (None: stdout): named after the object (else its file), its source the
    object file, and the definition named, relative to the fixture's folder, unless the folder
    names it or it is bundled."""
    base = os.path.dirname(os.path.abspath(output)) if output else os.getcwd()
    reference = None
    if definition.origin != "bundled" and os.path.basename(base) != definition.name:
        reference = os.path.relpath(os.path.abspath(definition.path), base)  # the folder does not name it: say which
    default_name = "stdin" if object_path == "-" else os.path.splitext(os.path.basename(object_path))[0]
    name = name or str((obj.get("metadata") or {}).get("name") or default_name)
    source = source or ("kubectl output on stdin" if object_path == "-" else f"object file {object_path}")
    return fixture_text(obj, view, name=name, source=source, definition=reference, pods=pods, lint_rules=lint_rules)
