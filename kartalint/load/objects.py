"""Kubernetes objects from a file: a List, several documents or one object, for describe, fixtures and pods."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kartalint.load.documents import MAX_FILE_BYTES, load_file, load_text, read_text
from kartalint.load.plain import load_plain
from kartalint.model import Severity


@dataclass
class LoadedObject:
    """A workload object (or pod) read from a file: where it came from and its data."""

    origin: str  # "file.yaml", "file.yaml#2" (document), "file.yaml#2.items[3]"
    data: dict[str, Any]


def load_objects(
    path: str, text: str | None = None, max_bytes: int = MAX_FILE_BYTES
) -> tuple[list[LoadedObject], list[str]]:
    """Kubernetes objects from a YAML/JSON file (``-`` with ``text`` for stdin): multi-document
    streams and ``List`` kinds are expanded. Returns (objects, error messages with positions).
    Plain YAML is read without a node tree (``plain``); the rest, and every error, through
    ``documents`` with positions."""
    name = "<stdin>" if path == "-" else path
    if text is None:
        text, problem = read_text(path, max_bytes)
        if problem is not None:
            text = None
    plain = load_plain(text) if text is not None else None
    if plain is not None and all(data is None or isinstance(data, dict) for data in plain):
        return _objects(name, list(enumerate(plain)), [])
    source = load_text(text, name) if text is not None else load_file(path, max_bytes)
    errors = [f"{f.file}:{f.line}:{f.column}: {f.message}" for f in source.findings if f.severity == Severity.ERROR]
    for document in source.documents:
        if document.data is not None and not isinstance(document.data, dict):
            line = document.node.start_mark.line + 1
            errors.append(
                f"{name}:{line}:1: expected a Kubernetes object (a mapping), got {type(document.data).__name__}"
            )
    readable = [(d.index, d.data) for d in source.documents if isinstance(d.data, dict)]
    return _objects(name, readable, errors, many=len(source.documents) > 1)


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
