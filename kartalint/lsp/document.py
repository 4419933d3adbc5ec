"""One open file as the language server sees it: its text, its lint findings, and what is at a
position (the YAML path, the node, the character of a jq expression under the cursor).

Positions: LSP counts lines from 0 and characters in UTF-16 code units; kartalint's findings
count both from 1 in characters. ``Position`` below is LSP's (line, character).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from kartalint import karta
from kartalint.lint import lint_source
from kartalint.load.documents import Document, SourceFile, load_text
from kartalint.load.yaml_rules import YAML_ENCODING, YAML_TOO_LARGE
from kartalint.lsp.project import config_findings
from kartalint.model import Finding, Span
from kartalint.project import Config
from kartalint.rules._house_jq import engine

Position = tuple[int, int]  # (line from 0, UTF-16 character from 0)
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def utf16_length(text: str) -> int:
    """The length of ``text`` in UTF-16 code units, the editor's unit of columns."""
    return len(text.encode("utf-16-le")) // 2


@dataclass
class Place:
    """What the cursor is on."""

    document: Document
    path: tuple  # YAML path of the value (or of the key's value when on a key)
    node: Any
    on_key: bool = False
    scalar_index: int | None = None  # index into the scalar's value (a jq expression) under the cursor


@dataclass
class OpenFile:
    """A file being edited: its text parsed with positions and linted with the project's config."""

    path: str
    text: str
    config: Config = field(default_factory=Config)
    source: SourceFile = field(init=False)
    findings: list[Finding] = field(default_factory=list)
    excluded: bool = False
    too_large: Finding | None = None
    config_root: str | None = None  # set when the file is the project's configuration (its root)

    def __post_init__(self) -> None:
        """Parse the text (a lone surrogate becomes U+FFFD, and a finding); a file over the size limit is not
        parsed: one finding says so."""
        surrogate = _LONE_SURROGATE.search(self.text)
        if surrogate is not None:  # legal in JSON-RPC strings, not a character: shown as U+FFFD (same length)
            self.text = _LONE_SURROGATE.sub("\ufffd", self.text)
        self._lines = self.text.split("\n")
        size = len(self.text.encode("utf-8", "surrogatepass"))
        if size > self.config.max_file_size:  # as the commands refuse it: not parsed, one finding
            self.source = SourceFile(self.path, self.text)
            message = f"file is {size} bytes, over the {self.config.max_file_size}-byte limit"
            self.too_large = self.source.finding(YAML_TOO_LARGE, message, Span.point(1, 1))
            return
        self.source = load_text(self.text, self.path)
        if surrogate is not None:
            line = self.text.count("\n", 0, surrogate.start()) + 1
            column = surrogate.start() - (self.text.rfind("\n", 0, surrogate.start()) + 1) + 1
            count = len(_LONE_SURROGATE.findall(surrogate.string))
            self.source.findings.append(
                self.source.finding(
                    YAML_ENCODING,
                    f"the editor sent a lone UTF-16 surrogate U+{ord(surrogate.group(0)):04X} here"
                    + (f" (and {count - 1} more)" if count > 1 else "")
                    + ": it is no character and cannot be saved as UTF-8 (read as U+FFFD)",
                    Span(line, column, line, column + 1),
                )
            )

    # -- positions ---------------------------------------------------------------------------

    def clamp(self, position: Position) -> Position:
        """``position`` moved into the document: the last line at most, the end of its line at most
        (an editor may send any 32-bit number)."""
        line = max(0, min(position[0], len(self._lines) - 1))
        return line, max(0, min(position[1], utf16_length(self._lines[line])))

    @property
    def line_count(self) -> int:
        """The number of lines of the text."""
        return len(self._lines)

    def offset(self, position: Position) -> int:
        """Character offset in the text of an LSP position."""
        line, units = position
        line = max(0, min(line, len(self._lines) - 1))
        text = self._lines[line]
        count = 0
        for index, char in enumerate(text):
            if count >= units:
                return sum(len(x) + 1 for x in self._lines[:line]) + index
            count += 2 if ord(char) > 0xFFFF else 1
        return sum(len(x) + 1 for x in self._lines[:line]) + len(text)

    def position(self, line1: int, column1: int) -> Position:
        """LSP position of kartalint's 1-based (line, column)."""
        line = max(0, line1 - 1)
        text = self._lines[line] if line < len(self._lines) else ""
        return line, utf16_length(text[: max(0, column1 - 1)])

    def position_of_offset(self, offset: int) -> Position:
        """The editor's position of the character offset ``offset``."""
        line, column = self.source.position(offset)
        return self.position(line, column)

    def line_text(self, line: int) -> str:
        """The text of line ``line`` (0-based; "" past the end)."""
        return self._lines[line] if 0 <= line < len(self._lines) else ""

    # -- what is where ---------------------------------------------------------------------------

    @property
    def definitions(self) -> list[Document]:
        """The Karta documents of the file."""
        return [d for d in self.source.documents if d.is_karta]

    def place(self, position: Position) -> Place | None:
        """What is at the editor's ``position``: the document, the node and its path, whether on a key, the offset
        in a scalar; None outside every document."""
        offset = self.offset(position)
        for document in self.source.documents:
            node = document.node
            if node is not None and node.start_mark.index <= offset <= max(node.end_mark.index, node.start_mark.index):
                return _descend(self.source, document, node, offset, ())
        return None

    def node_span(self, node: Any) -> tuple[Position, Position]:
        """The editor's positions of the start and end of ``node``."""
        return self.position_of_offset(node.start_mark.index), self.position_of_offset(node.end_mark.index)

    def scalar_position(self, node: Any, index: int) -> Position:
        """LSP position of character ``index`` of a scalar's value."""
        offsets = self.source.offsets_for(node)
        if not offsets:
            return self.position_of_offset(node.start_mark.index)
        index = max(0, min(index, len(offsets) - 1))
        return self.position_of_offset(offsets[index] + (1 if index == len(offsets) - 1 and index > 0 else 0))


def _descend(source: SourceFile, document: Document, node: Any, offset: int, path: tuple) -> Place:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if key.start_mark.index <= offset <= key.end_mark.index:
                return Place(document, (*path, key.value), value, on_key=True)
            if value.start_mark.index <= offset <= value.end_mark.index and not (
                isinstance(value, yaml.ScalarNode)
                and value.value == ""
                and value.start_mark.index == value.end_mark.index
            ):
                return _descend(source, document, value, offset, (*path, key.value))
        return Place(document, path, node)
    if isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            if item.start_mark.index <= offset <= item.end_mark.index:
                return _descend(source, document, item, offset, (*path, index))
        return Place(document, path, node)
    place = Place(document, path, node)
    offsets = source.offsets_for(node) if isinstance(node, yaml.ScalarNode) else None
    if offsets:
        before = [i for i, at in enumerate(offsets) if at < offset]
        place.scalar_index = (before[-1] + 1) if before else 0
    return place


def jq_field_at(document: Document, path: tuple) -> karta.JqField | None:
    """The jq field of a definition at ``path``, if ``path`` holds one."""
    for jq_field in karta.jq_fields(document.data):
        if tuple(jq_field.path) == tuple(path):
            return jq_field
    return None


def lint(open_file: OpenFile) -> list[Finding]:
    """Lint findings of the file with its project's configuration, for the files ``kartalint lint``
    would judge, with the same selection (``kartalint.lint.lint_source``): none for a file the
    project excludes or one that holds neither a Karta nor a fixture document (CloudFormation, a
    workflow, Helm values), the ``yaml-template`` note for a Go/Helm template, the configuration's
    problems on the configuration file. A finding placed in another file (a house rule that cannot
    run, said where the configuration declares it) is shown at the top of this one, with its place."""

    if open_file.config_root is not None:
        open_file.findings = config_findings(open_file.path, open_file.text, open_file.config_root)
    elif open_file.excluded:  # the project's `exclude`
        open_file.findings = []
    elif open_file.too_large is not None:
        open_file.findings = [open_file.too_large]
    elif not open_file.text:  # nothing to judge (lint would read the file from disk to tell: never here)
        open_file.findings = []
    else:
        if open_file.config.house_rules:  # each lint a run of its own: a failed house rule is tried again
            engine().new_run()
        found = lint_source(open_file.source, open_file.config).findings  # the parse done on open
        open_file.findings = [_here(open_file, finding) for finding in found]
    return open_file.findings


def _here(open_file: OpenFile, finding: Finding) -> Finding:
    """``finding`` as a diagnostic of this file: unchanged, or at its first line when it is placed
    in another file (the message says where)."""
    if finding.file == open_file.source.path:
        return finding

    message = f"{finding.message} ({finding.file}:{finding.line}:{finding.column})"
    return finding.replace(file=open_file.source.path, line=1, column=1, end_line=1, end_column=2, message=message)
