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
import stat
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Tuple

import yaml

from .model import Finding, Path, Severity, Span
from .scalars import scalar_offsets

try:  # pragma: no cover - the C loader ships with PyYAML wheels
    _BaseLoader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _BaseLoader = yaml.SafeLoader

MAX_FILE_BYTES = 5 * 1024 * 1024
MAX_EXPANDED_NODES = 500_000  # nodes added by alias expansion (billion laughs)
MAX_DEPTH = 256
MAX_INT_BITS = 14_000  # about 4,200 decimal digits: Python prints (and JSON encodes) no longer integers


def _short(value: Any) -> str:
    text = repr(str(value))
    return text if len(text) <= 60 else text[:40] + f"...' ({len(str(value))} characters)"


class BadValue(yaml.constructor.ConstructorError):
    """A scalar that cannot become a JSON value (reported as ``yaml-bad-value``)."""


class _Loader(_BaseLoader):  # type: ignore[misc, valid-type]
    """Safe loader whose data is JSON: timestamps stay strings, as in Kubernetes' YAML-to-JSON;
    values that JSON cannot hold (binary, sets, NaN, huge integers, mistagged scalars) are errors."""

    def _bad(self, node: Any, message: str) -> "BadValue":
        return BadValue(None, None, message, node.start_mark)

    def construct_yaml_int(self, node: Any) -> int:
        try:
            value = super().construct_yaml_int(node)
        except (ValueError, TypeError):
            raise self._bad(node, f"{_short(node.value)} is not an integer ({node.tag.rsplit(':', 1)[-1]})") from None
        if abs(value).bit_length() > MAX_INT_BITS:
            raise self._bad(node, f"integer of {len(str(node.value))} characters is too large for JSON")
        return value

    def construct_yaml_float(self, node: Any) -> float:
        try:
            value = super().construct_yaml_float(node)
        except (ValueError, TypeError):
            raise self._bad(node, f"{_short(node.value)} is not a number") from None
        if value != value or value in (float("inf"), float("-inf")):
            raise self._bad(node, f"{node.value!r} (NaN or infinity) is not a JSON number")
        return value

    def construct_yaml_bool(self, node: Any) -> bool:
        try:
            return super().construct_yaml_bool(node)
        except (KeyError, ValueError, TypeError):
            raise self._bad(node, f"{_short(node.value)} is not a boolean") from None

    def construct_yaml_timestamp(self, node: Any) -> str:
        try:
            super().construct_yaml_timestamp(node)
        except (ValueError, TypeError, AttributeError, OverflowError):
            raise self._bad(node, f"{_short(node.value)} is not a timestamp") from None
        return str(node.value)  # kept as the string Kubernetes sees

    def _not_json(self, node: Any) -> Any:
        raise self._bad(node, f"{node.tag.rsplit(':', 1)[-1]} values are not allowed (Kubernetes objects are JSON)")


for _tag in ("binary", "set", "omap", "pairs"):
    _Loader.add_constructor(f"tag:yaml.org,2002:{_tag}", _Loader._not_json)
for _tag, _method in (("int", _Loader.construct_yaml_int), ("float", _Loader.construct_yaml_float),
                      ("bool", _Loader.construct_yaml_bool), ("timestamp", _Loader.construct_yaml_timestamp)):
    _Loader.add_constructor(f"tag:yaml.org,2002:{_tag}", _method)


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in _BaseLoader.yaml_implicit_resolvers.items()
}


@dataclass
class Document:
    """One YAML document of a file: its data and the node tree that locates it."""

    source: "SourceFile"
    index: int
    data: Any
    node: Any

    @property
    def is_karta(self) -> bool:
        return is_karta(self.data)

    def node_at(self, path: Path) -> Tuple[Any, Any, int]:
        """(node, key node, depth reached) for ``path``; stops at the deepest existing node."""
        node, key_node = self.node, None
        depth = 0
        for element in path:
            if isinstance(node, yaml.MappingNode):
                for k, v in node.value:
                    if isinstance(k, yaml.ScalarNode) and _key_text(k) == str(element):
                        node, key_node = v, k
                        break
                else:
                    return node, key_node, depth
            elif isinstance(node, yaml.SequenceNode) and isinstance(element, int):
                if 0 <= element < len(node.value):
                    node, key_node = node.value[element], None
                else:
                    return node, key_node, depth
            else:
                return node, key_node, depth
            depth += 1
        return node, key_node, depth

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
        return self.source.span_of_marks(target.start_mark.index, _end_index(target))

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


@dataclass
class SourceFile:
    """A file (or stdin) as read: its text, documents and load findings."""

    path: str
    text: str = ""
    documents: List[Document] = field(default_factory=list)
    findings: List[Finding] = field(default_factory=list)
    _line_starts: Optional[List[int]] = None
    _offsets: Dict[int, Optional[List[int]]] = field(default_factory=dict)

    @property
    def karta_documents(self) -> List[Document]:
        return [d for d in self.documents if d.is_karta]

    def position(self, index: int) -> Tuple[int, int]:
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
        line, col = self.position(start)
        end_line, end_col = self.position(max(start + 1, end))
        return Span(line, col, end_line, end_col)

    def offsets_for(self, node: Any) -> Optional[List[int]]:
        key = id(node)
        if key not in self._offsets:
            self._offsets[key] = scalar_offsets(
                self.text, node.start_mark.index, node.end_mark.index, node.style, str(node.value)
            )
        return self._offsets[key]

    def finding(self, rule: str, severity: Severity, message: str, span: Span, path: Path = (), hint: str = "") -> Finding:
        return Finding(self.path, span.line, span.column, span.end_line, span.end_column, rule, severity, message, tuple(path), hint)


def is_karta(data: Any) -> bool:
    """A Karta document: ``kind: Karta``, or no kind but a Karta-shaped spec."""
    if not isinstance(data, dict):
        return False
    if data.get("kind") == "Karta":
        return True
    spec = data.get("spec")
    return "kind" not in data and isinstance(spec, dict) and "structureDefinition" in spec


def _key_text(node: Any) -> str:
    return str(node.value)


def _end_index(node: Any) -> int:
    end = node.end_mark.index
    if isinstance(node, yaml.ScalarNode) and node.style in ("|", ">"):
        return node.start_mark.index + 1  # the indicator; block content spans following lines
    return end


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


def read_text(path: str, max_bytes: int = MAX_FILE_BYTES) -> Tuple[Optional[str], Optional[Tuple[str, str, int]]]:
    """Text of a file, or (rule, message, byte offset) describing why it cannot be read."""
    try:
        if path == "-":
            import sys

            raw = sys.stdin.buffer.read(max_bytes + 1)
        else:
            if not _regular(path):
                return None, ("file-unreadable", missing_reason(path).split(": ", 1)[1], 0)
            size = os.path.getsize(path)
            if size > max_bytes:
                return None, ("yaml-too-large", f"file is {size} bytes, over the {max_bytes}-byte limit", 0)
            with open(path, "rb") as handle:
                raw = handle.read(max_bytes + 1)
    except OSError as exc:
        return None, ("file-unreadable", f"cannot read file: {exc.strerror or exc}", 0)
    if len(raw) > max_bytes:
        return None, ("yaml-too-large", f"input is over the {max_bytes}-byte limit", 0)
    try:
        text = raw.decode("utf-8-sig" if raw.startswith(b"\xef\xbb\xbf") else "utf-8")
    except UnicodeDecodeError as exc:
        return raw[: exc.start].decode("utf-8", "replace"), (
            "yaml-encoding",
            f"file is not valid UTF-8: byte 0x{raw[exc.start]:02x} at offset {exc.start}",
            exc.start,
        )
    return text, None


def load_file(path: str, max_bytes: int = MAX_FILE_BYTES, display_name: Optional[str] = None) -> SourceFile:
    """Read and parse one file; problems become findings of the returned ``SourceFile``."""
    name = display_name or ("<stdin>" if path == "-" else path)
    text, problem = read_text(path, max_bytes)
    if problem is not None:
        rule, message, byte_offset = problem
        source = SourceFile(name, text or "")
        if rule == "yaml-encoding" and text is not None:
            line, col = source.position(len(text))
            span = Span.point(line, col)
        else:
            span = Span.point(1, 1)
        source.findings.append(source.finding(rule, Severity.ERROR, message, span))
        return source
    return load_text(text or "", name)


def load_text(text: str, name: str) -> SourceFile:
    """Parse YAML text (possibly several ``---`` documents) with positions."""
    source = SourceFile(name, text)
    if not text.strip() or all(not line.strip() or line.lstrip().startswith("#") for line in text.splitlines()):
        source.findings.append(source.finding("yaml-empty", Severity.WARNING, "file has no YAML document", Span.point(1, 1)))
        return source
    loader = _Loader(text)
    try:
        index = 0
        while loader.check_node():
            node = loader.get_node()
            if node is None:
                continue
            problems = list(_node_problems(source, node))
            source.findings.extend(problems)
            if any(f.rule in ("yaml-alias-bomb", "yaml-too-deep") for f in problems):
                index += 1
                continue
            data = loader.construct_document(node)
            if problems and any(f.rule == "yaml-non-string-key" for f in problems):
                data = _stringify_keys(data)
            source.documents.append(Document(source, index, data, node))
            index += 1
    except BadValue as exc:
        mark = exc.problem_mark
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        source.findings.append(source.finding("yaml-bad-value", Severity.ERROR, f"YAML value error: {exc.problem}", Span.point(line, col),
                                              hint="write the value as a plain string or number"))
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
        source.findings.append(source.finding("yaml-syntax-error", Severity.ERROR, message, Span.point(line, col), hint=hint))
    except yaml.YAMLError as exc:  # reader errors (control characters) carry a position in their text
        text_of = " ".join(str(exc).split())
        match = _READER_POSITION.search(text_of)
        line, col = (int(match.group(1)), int(match.group(2))) if match else (1, 1)
        source.findings.append(source.finding("yaml-syntax-error", Severity.ERROR, f"YAML error: {text_of}", Span.point(line, col)))
    except RecursionError:
        source.findings.append(
            source.finding("yaml-syntax-error", Severity.ERROR, "YAML nesting is too deep to process", Span.point(1, 1))
        )
    finally:
        loader.dispose()
    return source


_READER_POSITION = __import__("re").compile(r"line (\d+), column (\d+)")


def _node_problems(source: SourceFile, root: Any) -> Iterable[Finding]:
    """Duplicate keys, non-string keys, too deep nesting and alias bombs, found in one walk of the
    node tree. Only the nodes that aliases add count against the expansion limit."""
    sizes: Dict[int, int] = {}
    distinct = 0
    depth_of: Dict[int, int] = {id(root): 1}
    stack: List[Tuple[Any, bool]] = [(root, False)]
    seen_mappings = set()
    in_progress = set()
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            if isinstance(node, yaml.MappingNode):
                total = 1 + sum(sizes.get(id(k), 1) + sizes.get(id(v), 1) for k, v in node.value)
            elif isinstance(node, yaml.SequenceNode):
                total = 1 + sum(sizes.get(id(v), 1) for v in node.value)
            else:
                total = 1
            sizes[key] = total
            if total - distinct > MAX_EXPANDED_NODES:
                yield source.finding(
                    "yaml-alias-bomb",
                    Severity.ERROR,
                    f"document expands to more than {MAX_EXPANDED_NODES} nodes through aliases; refused",
                    source.span_of_marks(node.start_mark.index, node.start_mark.index + 1),
                    hint="remove the anchors and aliases that multiply this document",
                )
                return
            continue
        if key in sizes:
            continue
        if key in in_progress:
            yield source.finding(
                "yaml-alias-bomb",
                Severity.ERROR,
                "document contains a recursive alias (a node that contains itself); refused",
                source.span_of_marks(node.start_mark.index, node.start_mark.index + 1),
                hint="remove the recursive anchor",
            )
            return
        in_progress.add(key)
        distinct += 1
        depth = depth_of.get(key, 1)
        if depth > MAX_DEPTH:
            yield source.finding("yaml-too-deep", Severity.ERROR, f"document is nested deeper than {MAX_DEPTH} levels; refused",
                                 source.span_of_marks(node.start_mark.index, node.start_mark.index + 1), hint="flatten the document")
            return
        stack.append((node, True))
        if isinstance(node, yaml.MappingNode):
            if key not in seen_mappings:
                seen_mappings.add(key)
                first: Dict[str, Any] = {}
                for k, _ in node.value:
                    if not isinstance(k, yaml.ScalarNode):
                        continue
                    if k.tag != "tag:yaml.org,2002:str" and k.tag != "tag:yaml.org,2002:merge":
                        yield source.finding(
                            "yaml-non-string-key",
                            Severity.WARNING,
                            f"key {k.value!r} is not a string; Kubernetes converts it to the string {k.value!r}",
                            source.span_of_marks(k.start_mark.index, k.end_mark.index),
                            hint="quote the key",
                        )
                    text = _key_text(k)
                    if text in first:
                        prev = first[text]
                        line, _ = source.position(prev.start_mark.index)
                        yield source.finding(
                            "yaml-duplicate-key",
                            Severity.ERROR,
                            f"duplicate key {text!r} (first defined on line {line}); the last one wins silently",
                            source.span_of_marks(k.start_mark.index, k.end_mark.index),
                            hint="remove or merge the duplicate key",
                        )
                    else:
                        first[text] = k
            for k, v in node.value:
                depth_of.setdefault(id(v), depth + 1)
                stack.append((k, False))
                stack.append((v, False))
        elif isinstance(node, yaml.SequenceNode):
            for v in node.value:
                depth_of.setdefault(id(v), depth + 1)
                stack.append((v, False))


def _stringify_keys(data: Any) -> Any:
    if isinstance(data, dict):
        return {str(k) if not isinstance(k, str) else k: _stringify_keys(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_stringify_keys(v) for v in data]
    return data


def iter_yaml_files(paths: Iterable[str], skipped: Optional[List[str]] = None) -> Tuple[List[str], List[str]]:
    """Expand paths: directories are walked for ``*.yaml``/``*.yml`` regular files; returns (files,
    missing). A path given that is not a regular file or folder counts as missing
    (``missing_reason`` says why); FIFOs, devices and unreadable folders met in a walk are
    described in ``skipped`` (when given), never read."""
    files: List[str] = []
    missing: List[str] = []

    def note(message: str) -> None:
        if skipped is not None:
            skipped.append(message)

    for path in paths:
        if path == "-":
            files.append(path)
        elif os.path.isdir(path):
            def walk_error(exc: OSError) -> None:
                note(f"{exc.filename}: cannot read folder ({exc.strerror}): skipped")

            for root, dirs, names in os.walk(path, onerror=walk_error):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(names):
                    if name.endswith((".yaml", ".yml")):
                        full = os.path.join(root, name)
                        if _regular(full):
                            files.append(full)
                        else:
                            note(f"{full}: not a regular file: skipped")
        elif _regular(path):
            files.append(path)
        else:
            missing.append(path)
    return files, missing


def _regular(path: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def missing_reason(path: str) -> str:
    """Why ``iter_yaml_files`` could not use a path given to it."""
    try:
        os.stat(path)
    except FileNotFoundError:
        return f"{path}: no such file or directory"
    except OSError as exc:
        return f"{path}: cannot read ({exc.strerror})"
    return f"{path}: not a regular file or folder (a FIFO or device is never read)"


@dataclass
class LoadedObject:
    """A workload object (or pod) read from a file: where it came from and its data."""

    origin: str  # "file.yaml", "file.yaml#2" (document), "file.yaml#2.items[3]"
    data: Dict[str, Any]


def load_objects(path: str, text: Optional[str] = None) -> Tuple[List[LoadedObject], List[str]]:
    """Kubernetes objects from a YAML/JSON file (``-`` with ``text`` for stdin): multi-document
    streams and ``List`` kinds are expanded. Returns (objects, error messages with positions)."""
    name = "<stdin>" if path == "-" else path
    source = load_text(text, name) if text is not None else load_file(path)
    errors = [f"{f.file}:{f.line}:{f.column}: {f.message}" for f in source.findings if f.severity == Severity.ERROR]
    objects: List[LoadedObject] = []
    many = len(source.documents) > 1
    for document in source.documents:
        origin = f"{name}#{document.index + 1}" if many else name
        data = document.data
        if data is None:
            continue
        if not isinstance(data, dict):
            line = document.node.start_mark.line + 1
            errors.append(f"{name}:{line}:1: expected a Kubernetes object (a mapping), got {type(data).__name__}")
            continue
        if isinstance(data.get("kind"), str) and data["kind"].endswith("List") and isinstance(data.get("items"), list):
            for i, item in enumerate(data["items"]):
                if isinstance(item, dict):
                    objects.append(LoadedObject(f"{origin}.items[{i}]", item))
                else:
                    errors.append(f"{name}: items[{i}] is not a Kubernetes object")
            continue
        objects.append(LoadedObject(origin, data))
    return objects, errors
