"""Stage 1: read YAML files into documents that remember where every node came from.

The fast path uses libyaml (PyYAML's C composer) for the node tree, which carries line and column
marks for every node, and PyYAML's safe constructor for the data. Positions are looked up from the
node tree only when a finding needs one. Everything that can go wrong with an input file becomes a
finding with a position, never an exception: unreadable files, non-UTF-8 bytes, syntax errors
(tabs included), duplicate keys, alias bombs, oversized and empty files.
"""

from __future__ import annotations

import bisect
import os
import re
import sys
from collections.abc import Iterator

import yaml

from kartalint.load.discovery import is_regular_file, missing_reason
from kartalint.load.kinds import is_karta
from kartalint.load.loader import BadValue, BaseLoader, Loader
from kartalint.load.nodes import READER_POSITION, end_index, key_text, node_problems
from kartalint.load.plain import NotPlain, iter_documents
from kartalint.load.scalars import scalar_offsets
from kartalint.load.yaml_rules import (
    FILE_UNREADABLE,
    RULES,
    YAML_ALIAS_BOMB,
    YAML_BAD_VALUE,
    YAML_EMPTY,
    YAML_ENCODING,
    YAML_NON_STRING_KEY,
    YAML_SYNTAX_ERROR,
    YAML_TOO_DEEP,
    YAML_TOO_LARGE,
)
from kartalint.model import Finding, Path, Record, Span

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_SEVERITY = {rule.id: rule.severity for rule in RULES}
_HINT = {rule.id: rule.hint for rule in RULES}  # a finding's fix hint, when its place says none of its own
MAX_FILE_BYTES = 5 * 1024 * 1024


for _tag in ("binary", "set", "omap", "pairs"):
    Loader.add_constructor(f"tag:yaml.org,2002:{_tag}", Loader._not_json)
for _tag, _method in (
    ("int", Loader.construct_yaml_int),
    ("float", Loader.construct_yaml_float),
    ("bool", Loader.construct_yaml_bool),
    ("timestamp", Loader.construct_yaml_timestamp),
):
    Loader.add_constructor(f"tag:yaml.org,2002:{_tag}", _method)


Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in BaseLoader.yaml_implicit_resolvers.items()
}


_INDEXED_MAPPING = 16  # mappings with more keys than this are looked up through an index


class Document(Record):
    """One YAML document of a file: its data and the node tree that locates it (composed when a
    position is first asked for, where the document was read without one: ``SourceFile.stream``)."""

    __slots__ = ("_composed", "_indexes", "data", "index", "source")
    source: SourceFile
    index: int
    data: Any
    _composed: Any  # the node tree, or None until it is needed
    _indexes: dict[int, dict[str, tuple[Any, Any]]]  # large mappings' keys, by the mapping's id

    def __init__(self, source: SourceFile, index: int, data: Any, composed: Any) -> None:
        """Document ``index`` (0-based) of ``source``, its ``data`` and its node tree (None: not yet composed)."""
        self.source = source
        self.index = index
        self.data = data
        self._composed = composed
        self._indexes = {}

    @property
    def node(self) -> Any:
        """The document's node tree (libyaml's, with the marks of every node)."""
        if self._composed is None:
            self._composed = self.source.node_of(self.index)
        return self._composed

    @property
    def is_karta(self) -> bool:
        """Whether the document is a Karta."""
        return is_karta(self.data)

    def node_at(self, path: Path) -> tuple[Any, Any, int]:
        """(node, key node, depth reached) for ``path``; stops at the deepest existing node. A
        large mapping is indexed once, so that placing a finding on each of its keys stays
        linear (40,000 unknown keys)."""
        node, key_node = self.node, None
        depth = 0
        for element in path:
            if isinstance(node, yaml.MappingNode):
                found = self._entry(node, str(element))
                if found is None:
                    return node, key_node, depth
                key_node, node = found
            elif isinstance(node, yaml.SequenceNode) and isinstance(element, int):
                if 0 <= element < len(node.value):
                    node, key_node = node.value[element], None
                else:
                    return node, key_node, depth
            else:
                return node, key_node, depth
            depth += 1
        return node, key_node, depth

    def _entry(self, mapping: Any, key: str) -> tuple[Any, Any] | None:
        """(key node, value node) of the first ``key`` of a mapping node."""
        if len(mapping.value) <= _INDEXED_MAPPING:
            return next(
                ((k, v) for k, v in mapping.value if isinstance(k, yaml.ScalarNode) and key_text(k) == key), None
            )
        index = self._indexes.get(id(mapping))
        if index is None:
            index = self._indexes[id(mapping)] = {}
            for k, v in mapping.value:
                if isinstance(k, yaml.ScalarNode):
                    index.setdefault(key_text(k), (k, v))
        found: tuple[Any, Any] | None = index.get(key)
        return found

    def span(self, path: Path, key: bool = False) -> Span:
        """Span of the value at ``path`` (or of its key with ``key=True``); nearest ancestor if absent."""
        node, key_node, depth = self.node_at(path)
        if depth < len(path) and key_node is not None:
            target = key_node  # point at the key of the deepest existing ancestor
        elif key and key_node is not None:
            target = key_node
        else:
            target = node
        if target is None:
            return Span.point(1, 1)
        return self.source.span_of_marks(target.start_mark.index, end_index(target))

    def scalar_span(self, path: Path, start: int, end: int) -> Span:
        """Span of characters ``start:end`` of the string scalar at ``path``."""
        node, _, depth = self.node_at(path)
        if depth < len(path) or not isinstance(node, yaml.ScalarNode):
            return self.span(path)
        offsets = self.source.offsets_for(node)
        if offsets is None:
            return self.span(path)
        start = max(0, min(start, len(offsets) - 1))
        end = max(start + 1, min(end, len(offsets) - 1))
        return self.source.span_of_marks(offsets[start], offsets[end - 1] + 1)


class SourceFile(Record):
    """A file (or stdin) as read: its text, documents and load findings."""

    __slots__ = ("_composer", "_line_starts", "_offsets", "documents", "findings", "path", "streamed", "text")
    path: str
    text: str
    documents: list[Document]
    findings: list[Finding]
    _line_starts: list[int] | None
    _offsets: dict[int, list[int] | None]
    streamed: bool  # the documents were parsed (by ``stream()``, or ``load_*(keep=True)``)
    _composer: list[Any] | None  # [loader, next index]

    def __init__(
        self,
        path: str,
        text: str = "",
        documents: list[Document] | None = None,
        findings: list[Finding] | None = None,
        _line_starts: list[int] | None = None,
        _offsets: dict[int, list[int] | None] | None = None,
        streamed: bool = False,
        _composer: list[Any] | None = None,
    ) -> None:
        """The file at ``path`` (``<stdin>``), its ``text``; its documents and findings as found."""
        self.path = path
        self.text = text
        self.documents = [] if documents is None else documents
        self.findings = [] if findings is None else findings
        self._line_starts = _line_starts
        self._offsets = {} if _offsets is None else _offsets
        self.streamed = streamed
        self._composer = _composer

    @property
    def karta_documents(self) -> list[Document]:
        """The documents of the file that are Kartas."""
        return [d for d in self.documents if d.is_karta]

    def stream(self) -> Iterator[Document]:
        """The documents, parsed one at a time (once); load problems join ``findings`` as found.
        Plain YAML (most definitions: no anchor, tag, duplicate key, ...) is read straight from
        libyaml's events (``load.plain``), without a node tree: a document composes its tree again
        when a finding first asks for a position (``Document.node``); from the first document
        that is not plain on, the full loader reads the rest. Node positions cached for a document
        are dropped when the next one is parsed."""
        if self.streamed:
            yield from self.documents
            return
        self.streamed = True
        for document in _streamed_documents(self):
            yield document
            self._offsets.clear()  # keyed by node identity: the next document's nodes may reuse them

    def node_of(self, index: int) -> Any:
        """The node tree of document ``index`` (0-based, as ``stream`` counts them), composed from the
        text: one loader moves forward through the documents (a finding's document follows the last
        one asked for, as a rule); asking for an earlier one starts again."""
        cursor = self._composer
        if cursor is None or cursor[1] > index:
            if cursor is not None:
                cursor[0].dispose()
            cursor = self._composer = [Loader(self.text), 0]
        loader = cursor[0]
        while loader.check_node():
            node = loader.get_node()
            if node is None:
                continue
            cursor[1] += 1
            if cursor[1] - 1 == index:
                return node
        return None

    def position(self, index: int) -> tuple[int, int]:
        """1-based (line, column) of a character index."""
        if self._line_starts is None:
            starts = [0]
            find = self.text.find
            pos = find("\n")
            while pos != -1:
                starts.append(pos + 1)
                pos = find("\n", pos + 1)
            self._line_starts = starts
        line = bisect.bisect_right(self._line_starts, index) - 1
        return line + 1, index - self._line_starts[line] + 1

    def span_of_marks(self, start: int, end: int) -> Span:
        """The span between the character offsets ``start`` and ``end`` (at least one character)."""
        line, col = self.position(start)
        end_line, end_col = self.position(max(start + 1, end))
        return Span(line, col, end_line, end_col)

    def offsets_for(self, node: Any) -> list[int] | None:
        """The offset in the file of each character of the scalar ``node`` (escapes and folding undone), or None
        when they cannot be told; computed once per node."""
        key = id(node)
        if key not in self._offsets:
            self._offsets[key] = scalar_offsets(
                self.text, node.start_mark.index, node.end_mark.index, node.style, str(node.value)
            )
        return self._offsets[key]

    def finding(self, rule: str, message: str, span: Span, path: Path = (), hint: str = "") -> Finding:
        """A finding of one of this module's rules (``RULES``: its severity is declared there)."""
        return Finding(
            self.path,
            span.line,
            span.column,
            span.end_line,
            span.end_column,
            rule,
            _SEVERITY[rule],
            message,
            tuple(path),
            hint or _HINT[rule],
        )


def display_path(path: str) -> str:
    """``path`` relative to the current folder when it lies under it, else absolute: what a
    terminal or an editor opens from where the command ran."""
    if path in ("-", "<stdin>") or not path:
        return path
    absolute = os.path.abspath(path)
    cwd = os.getcwd()
    if absolute == cwd or absolute.startswith(cwd.rstrip(os.sep) + os.sep):
        return os.path.relpath(absolute, cwd)
    return absolute


def read_text(path: str, max_bytes: int = MAX_FILE_BYTES) -> tuple[str | None, tuple[str, str, int] | None]:
    """Text of a file, or (rule, message, byte offset) describing why it cannot be read. A file that
    is not UTF-8 still gives its whole text, bad bytes replaced by U+FFFD (so it can be recognised
    as a Karta file and the first bad byte located)."""
    try:
        if path == "-":
            raw = sys.stdin.buffer.read(max_bytes + 1)
        else:
            if not is_regular_file(path):
                return None, (FILE_UNREADABLE, missing_reason(path).split(": ", 1)[1], 0)
            size = os.path.getsize(path)
            if size > max_bytes:
                return None, (YAML_TOO_LARGE, f"file is {size} bytes, over the {max_bytes}-byte limit", 0)
            with open(path, "rb") as handle:
                raw = handle.read(max_bytes + 1)
    except OSError as exc:
        return None, (FILE_UNREADABLE, f"cannot read file: {exc.strerror or exc}", 0)
    if len(raw) > max_bytes:
        return None, (YAML_TOO_LARGE, f"input is over the {max_bytes}-byte limit", 0)
    try:
        text = raw.decode("utf-8-sig" if raw.startswith(b"\xef\xbb\xbf") else "utf-8")
    except UnicodeDecodeError as exc:
        return raw.decode("utf-8", "replace"), (
            YAML_ENCODING,
            f"file is not valid UTF-8: byte 0x{raw[exc.start]:02x} at offset {exc.start}",
            exc.start,
        )
    return text, None


def load_file(
    path: str, max_bytes: int = MAX_FILE_BYTES, display_name: str | None = None, keep: bool = True
) -> SourceFile:
    """Read and parse one file; problems become findings of the returned ``SourceFile``. With
    ``keep=False`` the documents are not parsed yet: ``SourceFile.stream()`` yields them one at a
    time (what lint does, so a large stream never holds every node tree at once)."""
    name = display_name or ("<stdin>" if path == "-" else path)
    text, problem = read_text(path, max_bytes)
    if problem is not None:
        return unreadable_source(name, text, problem)
    return load_text(text or "", name, keep)


def unreadable_source(name: str, text: str | None, problem: tuple[str, str, int]) -> SourceFile:
    """The ``SourceFile`` of a file ``read_text`` could not read (its ``text`` and ``problem``): no
    document, and the problem as a finding, at the first bad byte of a file that is not UTF-8."""
    rule, message, _byte_offset = problem
    source = SourceFile(name, text or "")
    if rule == YAML_ENCODING and text is not None:
        line, col = source.position(text.find("\ufffd"))  # the first bad byte
        span = Span.point(line, col)
    else:
        span = Span.point(1, 1)
    source.findings.append(source.finding(rule, message, span))
    source.streamed = True  # nothing to read
    return source


def load_text(text: str, name: str, keep: bool = True) -> SourceFile:
    """Parse YAML text (possibly several ``---`` documents) with positions; see ``load_file``."""
    source = SourceFile(name, text)
    if keep:
        source.documents = list(_documents(source))
        source.streamed = True
    return source


def _is_empty(text: str) -> bool:
    return not text.strip() or all(not line.strip() or line.lstrip().startswith("#") for line in text.splitlines())


def _streamed_documents(source: SourceFile) -> Iterator[Document]:
    """The documents of ``stream``: plain ones without a node tree, the rest by ``_documents``."""
    index = 0
    if not _is_empty(source.text):
        try:
            for data in iter_documents(source.text):
                yield Document(source, index, data, None)
                index += 1
            return
        except NotPlain:
            pass
    yield from _documents(source, index)


def _documents(source: SourceFile, skip: int = 0) -> Iterator[Document]:
    """The documents of the source with their node trees (after the first ``skip`` of them, read
    already)."""
    text = source.text
    if _is_empty(text):
        source.findings.append(source.finding(YAML_EMPTY, "file has no YAML document", Span.point(1, 1)))
        return
    loader = Loader(text)
    try:
        index = 0
        while loader.check_node():
            node = loader.get_node()
            if node is None:
                continue
            if index < skip:
                index += 1
                continue
            problems = list(node_problems(source, node))
            source.findings.extend(problems)
            if any(f.rule in (YAML_ALIAS_BOMB, YAML_TOO_DEEP) for f in problems):
                index += 1
                continue
            data = loader.construct_document(node)
            if problems and any(f.rule == YAML_NON_STRING_KEY for f in problems):
                data = _stringify_keys(data)
            yield Document(source, index, data, node)
            index += 1
    except BadValue as exc:
        mark = exc.problem_mark
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        source.findings.append(
            source.finding(
                YAML_BAD_VALUE,
                f"YAML value error: {exc.problem}",
                Span.point(line, col),
                hint="write the value as a plain string or number",
            )
        )
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        problem = exc.problem or "invalid YAML"
        hint = ""
        if mark is not None and 0 <= mark.index < len(text) and text[mark.index] == "\t":
            hint = "YAML does not allow tabs for indentation: use spaces"
        message = f"YAML syntax error: {problem}"
        if exc.context:
            message += f" ({exc.context})"
        source.findings.append(source.finding(YAML_SYNTAX_ERROR, message, Span.point(line, col), hint=hint))
    except yaml.YAMLError as exc:  # reader errors (control characters) carry a position in their text
        text_of = " ".join(str(exc).split())
        match = re.search(READER_POSITION, text_of)
        line, col = (int(match.group(1)), int(match.group(2))) if match else (1, 1)
        source.findings.append(source.finding(YAML_SYNTAX_ERROR, f"YAML error: {text_of}", Span.point(line, col)))
    except RecursionError:
        source.findings.append(
            source.finding(YAML_SYNTAX_ERROR, "YAML nesting is too deep to process", Span.point(1, 1))
        )
    finally:
        loader.dispose()


def _stringify_keys(data: Any) -> Any:
    if isinstance(data, dict):
        return {str(k) if not isinstance(k, str) else k: _stringify_keys(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_stringify_keys(v) for v in data]
    return data
