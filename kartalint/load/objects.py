"""Kubernetes objects from a file: a List, several documents or one object, for describe, fixtures and pods.

``load_objects`` reads a file whole; ``stream_objects`` hands out one object at a time
(``describe --summary`` over a cluster dump), holding only the object being read.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Any, cast

import yaml

from kartalint.errors import UsageError
from kartalint.load.discovery import is_regular_file, missing_reason
from kartalint.load.documents import MAX_FILE_BYTES, SourceFile, load_text, read_text, unreadable_source
from kartalint.load.kinds import FIXTURE_KIND, KARTA_KIND
from kartalint.load.pipe import NoObjectEnds, Replayable
from kartalint.load.plain import TOO_LARGE, NotPlain, Piece, iter_plain, load_plain
from kartalint.load.plain_json import iter_json
from kartalint.load.yaml_rules import FILE_UNREADABLE
from kartalint.model import Severity


@dataclass
class LoadedObject:
    """A workload object (or pod) read from a file: where it came from and its data."""

    origin: str  # "file.yaml", "file.yaml#2" (document), "file.yaml#2.items[3]"
    data: dict[str, Any]
    text: str | None = None  # its JSON text as read, when jq may be handed it as it is (plain_json.reusable)


def load_objects(
    path: str, text: str | None = None, max_bytes: int = MAX_FILE_BYTES
) -> tuple[list[LoadedObject], list[str]]:
    """Kubernetes objects from a YAML/JSON file (``-`` with ``text`` for stdin): multi-document
    streams and ``List`` kinds are expanded. Returns (objects, error messages with positions).
    Plain YAML is read without a node tree (``plain``); the rest, and every error, through
    ``documents`` with positions."""
    name = "<stdin>" if path == "-" else path
    if text is None:
        read, problem = read_text(path, max_bytes)  # (standard input is read once: its problem is kept)
        if problem is not None or read is None:
            return [], _errors(unreadable_source(name, read, problem or (FILE_UNREADABLE, "cannot read file", 0)))
        text = read
    plain = load_plain(text)
    if plain is not None and all(data is None or isinstance(data, dict) for data in plain):
        return _objects(name, list(enumerate(plain)), [])
    source = load_text(text, name)
    errors = _errors(source)
    for document in source.documents:
        if document.data is not None and not isinstance(document.data, dict):
            line = document.node.start_mark.line + 1
            errors.append(
                f"{name}:{line}:1: expected a Kubernetes object (a mapping), got {type(document.data).__name__}"
            )
    readable = [(d.index, d.data) for d in source.documents if isinstance(d.data, dict)]
    return _objects(name, readable, errors, many=len(source.documents) > 1)


def _errors(source: SourceFile) -> list[str]:
    """The errors of a file read, each at its place."""
    return [f"{f.file}:{f.line}:{f.column}: {f.message}" for f in source.findings if f.severity == Severity.ERROR]


def _objects(
    name: str, documents: list[tuple[int, Any]], errors: list[str], many: bool | None = None
) -> tuple[list[LoadedObject], list[str]]:
    objects: list[LoadedObject] = []
    many = len(documents) > 1 if many is None else many
    for index, data in documents:
        if data is None:
            continue
        origin = f"{name}#{index + 1}" if many else name
        if isinstance(data.get("kind"), str) and data["kind"].endswith("List") and isinstance(data.get("items"), list):
            for i, item in enumerate(data["items"]):
                if isinstance(item, dict):
                    objects.append(LoadedObject(f"{origin}.items[{i}]", item))
                else:
                    errors.append(f"{name}: items[{i}] is not a Kubernetes object")
            continue
        objects.append(LoadedObject(origin, data))
    return objects, errors


def read_pods_and_owners(path: str | None) -> tuple[list[dict[str, Any]], list[Any]] | None:
    """(the pods, the other objects: their owners) of a file such as `kubectl get pods,jobs -o yaml`
    prints (None without a file). A problem is a usage error naming the document: a definition or
    fixture, a file without a pod."""
    if not path:
        return None
    pod_objects, pod_errors = load_objects(path)
    if pod_errors:
        raise UsageError("; ".join(pod_errors))
    pods, others = [], []
    for pod in pod_objects:
        kind = pod.data.get("kind")
        if kind is None or kind == "Pod":
            pods.append(pod.data)
        elif kind not in (KARTA_KIND, FIXTURE_KIND):
            others.append(pod.data)
        else:
            raise UsageError(
                f"{pod.origin}: a {str(kind)[:80]!r} is not a Pod (--pods reads a PodList, Pods or one Pod and their owners)"
            )
    if pod_objects and not pods:
        raise UsageError(f"{path}: no Pod in it (--pods reads a PodList, Pods or one Pod and their owners)")
    return pods, others


@dataclass
class LoadProblem:
    """Why an object (or the rest of a file) could not be read, with its place."""

    message: str


def stream_objects(path: str, max_bytes: int = MAX_FILE_BYTES) -> Iterator[LoadedObject | LoadProblem]:
    """The objects of a YAML/JSON file (``-``: stdin) one at a time, as ``load_objects`` finds them
    (Lists and multi-document streams expanded), each with its origin ``file:line``. The file may
    be of any size: ``max_bytes`` limits each object instead. What the plain reader does not take
    (anchors, tags, repeated keys, a syntax error) is read by the full loader, which reports it
    with its position, when the file is within ``max_bytes``. Standard input is read as it comes
    (``stream_pipe``), never copied."""
    name = "<stdin>" if path == "-" else path
    if path == "-":
        yield from stream_pipe(sys.stdin.buffer, name, max_bytes)
        return
    with _opened(path) as (handle, problem):
        if handle is None:
            yield LoadProblem(f"{name}: {problem}")
            return
        yield from _stream(handle, name, max_bytes)


def stream_pipe(raw: IO[bytes], name: str, max_bytes: int = MAX_FILE_BYTES) -> Iterator[LoadedObject | LoadProblem]:
    """``stream_objects`` of a stream that cannot seek (stdin, a command's output), read as it comes
    (``load.pipe``: its first ``max_bytes`` kept to be read again, nothing written anywhere); more
    than ``4 x max_bytes`` plus 1 MiB without an object ending stops the reading, said as a problem."""
    handle = Replayable(raw, max_bytes, 4 * max_bytes + (1 << 20))
    try:
        yield from _stream(cast(IO[bytes], handle), name, max_bytes, handle.mark)
    except NoObjectEnds as exc:
        yield LoadProblem(
            f"{name}: no object ends within {exc.span} bytes (byte {handle.pos}; an object is at most "
            f"{max_bytes} bytes, max-file-size): nothing from here on is read"
        )
    except OSError as exc:
        yield LoadProblem(f"{name}: cannot read: {exc.strerror or exc}; nothing from here on is read")


def _stream(
    handle: IO[bytes], name: str, max_bytes: int, read_whole: Callable[[], None] | None = None
) -> Iterator[LoadedObject | LoadProblem]:
    given: tuple[int, int] = (0, 0)  # (document, items of it handed out) where the reading is
    pieces = iter_json if _starts_json(handle) else iter_plain
    try:
        for piece in pieces(handle, max_bytes):
            if read_whole is not None:
                read_whole()
            given = (piece.document + 1, 0) if piece.item is None else (piece.document, piece.item + 1)
            yield from _from_piece(name, piece, max_bytes)
    except (NotPlain, yaml.YAMLError) as exc:
        yield from _rest(handle, name, max_bytes, given, exc)


def _starts_json(handle: IO[bytes]) -> bool:
    """Whether the stream starts with ``{``: JSON (``kubectl get -o json``), read by the json module
    (a repeated key keeps its last value, as in Kubernetes' JSON decoding); what is not JSON there
    goes to the full loader."""
    first = handle.read(64).lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    handle.seek(0)
    return first == b"{"


@contextlib.contextmanager
def _opened(path: str) -> Iterator[tuple[IO[bytes] | None, str]]:
    """A seekable binary handle on the file."""
    if os.path.isdir(path):
        yield None, "a folder: give the files in it (e.g. folder/*.yaml)"
        return
    if not is_regular_file(path):
        yield None, missing_reason(path).split(": ", 1)[-1]
        return
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed below
    except OSError as exc:
        yield None, f"cannot read file: {exc.strerror or exc}"
        return
    with handle:
        yield handle, ""


def _from_piece(name: str, piece: Piece, max_bytes: int) -> Iterator[LoadedObject | LoadProblem]:
    where = f"{name}:{piece.line}"
    data = piece.data
    if data is TOO_LARGE:
        yield LoadProblem(
            f"{where}:{piece.column}: object is over the {max_bytes}-byte limit (max-file-size): not read"
        )
    elif piece.item is not None:
        if isinstance(data, dict):
            yield LoadedObject(where, data, piece.text)
        else:
            yield LoadProblem(f"{where}:{piece.column}: items[{piece.item}] is not a Kubernetes object")
    elif isinstance(data, dict):
        kind = data.get("kind")
        is_list = isinstance(kind, str) and kind.endswith("List")
        if piece.streamed_items is None or (piece.streamed_items == 0 and not is_list):
            if piece.streamed_items == 0:
                data["items"] = []
            yield LoadedObject(where, data)
        elif not is_list:
            yield LoadProblem(
                f"{where}:{piece.column}: a document of kind {kind!r} with a top-level items list: "
                "its entries were read as objects of a List"
            )
    elif data is not None:
        yield LoadProblem(
            f"{where}:{piece.column}: expected a Kubernetes object (a mapping), got {type(data).__name__}"
        )


def _rest(
    handle: IO[bytes], name: str, max_bytes: int, given: tuple[int, int], exc: Exception
) -> Iterator[LoadedObject | LoadProblem]:
    """The objects after ``given`` and the problems, read by the full loader (which says where and
    what), or, in a file over ``max_bytes``, what stopped the reading."""
    handle.seek(0)
    raw = _read_up_to(handle, max_bytes + 1)
    if len(raw) > max_bytes:
        yield LoadProblem(_stopped(name, max_bytes, exc))
        return
    try:
        text = raw.decode("utf-8-sig" if raw.startswith(b"\xef\xbb\xbf") else "utf-8")
    except UnicodeDecodeError as bad:
        line = raw.count(b"\n", 0, bad.start) + 1
        yield LoadProblem(f"{name}:{line}: file is not valid UTF-8: byte 0x{raw[bad.start]:02x} at offset {bad.start}")
        return
    source = load_text(text, name)
    document, skip = given
    for found in source.findings:
        if found.severity == Severity.ERROR:
            yield LoadProblem(f"{found.file}:{found.line}:{found.column}: {found.message}")
    for doc in source.documents:
        if doc.index < document or doc.data is None:
            continue
        line = doc.node.start_mark.line + 1
        if not isinstance(doc.data, dict):
            yield LoadProblem(
                f"{name}:{line}:1: expected a Kubernetes object (a mapping), got {type(doc.data).__name__}"
            )
            continue
        kind, items = doc.data.get("kind"), doc.data.get("items")
        if not (isinstance(kind, str) and kind.endswith("List") and isinstance(items, list)):
            yield LoadedObject(f"{name}:{line}", doc.data)
            continue
        for i, item in enumerate(items):
            if doc.index == document and i < skip:
                continue
            item_line = doc.span(("items", i)).line
            if isinstance(item, dict):
                yield LoadedObject(f"{name}:{item_line}", item)
            else:
                yield LoadProblem(f"{name}:{item_line}: items[{i}] is not a Kubernetes object")


def _read_up_to(handle: IO[bytes], size: int) -> bytes:
    """The first ``size`` bytes of ``handle`` (fewer at its end): a pipe's read gives what it holds
    (a ``Replayable``, the bytes it kept so far), so it is read until full."""
    chunks, got = [], 0
    while got < size:
        chunk = handle.read(size - got)
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _stopped(name: str, max_bytes: int, exc: Exception) -> str:
    if isinstance(exc, NotPlain):
        return (
            f"{name}:{exc.line}:{exc.column}: this document uses anchors, aliases, merge keys, explicit tags or "
            f"repeated keys, which are read only in files up to max-file-size ({max_bytes} bytes); "
            "nothing from here on is read"
        )
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    where = f"{mark.line + 1}:{mark.column + 1}" if mark is not None else "1:1"
    problem = getattr(exc, "problem", None) or " ".join(str(exc).split())
    return f"{name}:{where}: YAML syntax error: {problem}; nothing from here on is read"
