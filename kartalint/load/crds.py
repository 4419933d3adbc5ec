"""CustomResourceDefinitions: read them, index their schemas by group/version/kind, and walk
a field path through a version's openAPIV3Schema.

Used by CRD-aware lint (``path-not-in-crd``, ``crd-optional-arithmetic``), ``explore`` and
``kartalint new --crd`` / ``init --crd``, each after the one validation of ``crd_validation``. Subtrees with ``x-kubernetes-preserve-unknown-fields`` or without a
declared structure (``metadata``, plain ``type: object``) accept any path.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kartalint.karta import as_dict, as_list
from kartalint.load.crd_validation import CrdError, dotted, schema_problem
from kartalint.load.discovery import iter_yaml_files, missing_reason
from kartalint.load.documents import Document, load_file, read_text
from kartalint.load.filecache import FileCache
from kartalint.load.plain import load_plain
from kartalint.model import Severity

GVK = tuple[str, str, str]


@dataclass
class CrdVersion:
    """One served version of a CRD: its group/version/kind, plural, the OpenAPI schema, whether it is served and
    stored, the file it came from and its printer columns."""

    group: str
    version: str
    kind: str
    plural: str
    schema: dict[str, Any]
    served: bool
    storage: bool
    source: str
    printer_details: tuple[tuple[str, str, str], ...] = ()  # (name, jsonPath, description) of each

    @property
    def gvk(self) -> GVK:
        """Its group, version and kind."""
        return (self.group, self.version, self.kind)


@dataclass
class CrdIndex:
    """The CRDs read, by group/version/kind, with what could not be used and each CRD document as loaded."""

    versions: dict[GVK, CrdVersion] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    documents: list[dict[str, Any]] = field(default_factory=list)  # each CRD document read, as loaded

    @classmethod
    def from_paths(cls, paths: Iterable[str]) -> CrdIndex:
        """The CRDs of the files and folders ``paths`` (the first version of a group/version/kind
        wins); what cannot be used is a problem naming the file and place."""
        index = cls()
        files, missing = iter_yaml_files(list(paths))
        index.problems.extend(missing_reason(p) for p in missing)
        for path in files:
            problems, versions, documents = _read_crd_file(path)
            index.problems.extend(problems)
            index.documents.extend(documents)
            for version in versions:
                index.versions.setdefault(version.gvk, version)
        if files and not index.versions and not index.problems:
            index.problems.append(f"no CustomResourceDefinition found in {', '.join(files)}")
        return index

    def get(self, gvk: GVK | None) -> CrdVersion | None:
        """The CRD version of ``gvk``, or None when no CRD read declares it."""
        return self.versions.get(gvk) if gvk else None


_CrdFile = tuple[list[str], list[CrdVersion], list[dict[str, Any]]]
_CRD_FILES: FileCache[_CrdFile] = FileCache(64)  # a CRD can be megabytes of YAML


def _read_crd_file(path: str) -> _CrdFile:
    """(problems, versions, CRD documents) of one file, parsed once per process while the file is
    unchanged (the language server, ``new --crd`` and the tests ask again for the same CRDs)."""
    return _CRD_FILES.get(path, _parse_crd_file)


def _parse_crd_file(path: str) -> _CrdFile:
    text, unreadable = read_text(path)
    plain = load_plain(text) if unreadable is None and text is not None else None
    if plain is not None:  # plain YAML, read without a node tree (6 times faster on megabytes of CRDs)
        try:
            return _index_documents(path, plain, [])
        except CrdError:
            pass  # read again with positions, to say where
    return _parse_crd_file_with_positions(path)


def _parse_crd_file_with_positions(path: str) -> _CrdFile:
    source = load_file(path)
    problems = [f"{path}:{f.line}:{f.column}: {f.message}" for f in source.findings if f.severity == Severity.ERROR]
    return _index_documents(path, source.documents, problems)


def _index_documents(path: str, documents: Sequence[Any], problems: list[str]) -> _CrdFile:
    """(problems, versions, CRD documents) of a file's documents: ``Document`` objects, whose CRD
    errors become problems at their place, or plain data, whose first CRD error is raised."""
    found: list[CrdVersion] = []
    kept = []
    for document in documents:
        data = document.data if isinstance(document, Document) else document
        try:
            versions = crd_versions(data, path)
        except CrdError as exc:
            if not isinstance(document, Document):
                raise
            node, key_node, _ = document.node_at(exc.path)
            mark = (key_node or node).start_mark if (key_node or node) is not None else None
            where = f"{mark.line + 1}:{mark.column + 1}" if mark else "1:1"
            problems.append(f"{path}:{where}: {exc}")
            continue
        if versions:
            kept.append(data)
        found.extend(versions)
    return problems, found, kept


def crd_versions(data: Any, source: str = "") -> list[CrdVersion]:
    """The versions of a CRD document ([] for any other document); ``CrdError`` when it is a CRD
    of the wrong shape (``crd_validation``: every version's schema is checked before any use)."""
    data = as_dict(data)
    if data.get("kind") != "CustomResourceDefinition":
        return []
    spec = as_dict(data.get("spec"))
    names = as_dict(spec.get("names"))
    for path, value in ((("spec", "group"), spec.get("group")), (("spec", "names", "kind"), names.get("kind"))):
        if not isinstance(value, str) or not value:
            raise CrdError(f"{dotted(path)}: must be a non-empty string", path)
    if not isinstance(spec.get("versions"), list):
        raise CrdError("spec.versions: must be a list", ("spec", "versions"))
    group, kind = spec["group"], names["kind"]
    out = []
    for i, version in enumerate(spec["versions"]):
        if not isinstance(version, dict) or not isinstance(version.get("name"), str) or not version.get("name"):
            raise CrdError(f"spec.versions[{i}]: must be a map with a string name", ("spec", "versions", i))
        raw = as_dict(version.get("schema")).get("openAPIV3Schema")
        if raw is not None:
            problem = schema_problem(raw, ("spec", "versions", i, "schema", "openAPIV3Schema"))
            if problem:
                raise problem
        details = tuple(
            (
                str(as_dict(c).get("name") or ""),
                str(as_dict(c).get("jsonPath") or ""),
                str(as_dict(c).get("description") or ""),
            )
            for c in as_list(version.get("additionalPrinterColumns"))
        )
        out.append(
            CrdVersion(
                group,
                version["name"],
                kind,
                str(names.get("plural") or ""),
                as_dict(raw),
                bool(version.get("served", True)),
                bool(version.get("storage", False)),
                source,
                details,
            )
        )
    return out


@dataclass(frozen=True)
class Lookup:
    """What a CRD schema says of a path: whether it exists, its schema, the first key that does not (with
    suggestions), whether the last key is required, its default, and the free-form subtree it entered."""

    found: bool
    schema: dict[str, Any] | None  # None: territory without declared structure (anything goes)
    missing: str | None = None  # the first key that does not exist
    at: tuple[str, ...] = ()  # path of the parent of the missing key
    suggestions: tuple[str, ...] = ()
    required: bool = False  # the last key is required by its parent
    default: Any = None
    free_form: tuple[str, ...] | None = None  # the free-form subtree the path entered (not checked further)


def _open(schema: dict[str, Any]) -> bool:
    """True when the schema does not constrain its keys. A subtree marked
    ``x-kubernetes-preserve-unknown-fields`` that declares ``properties`` is checked against them
    (its authors wrote the fields down); only a truly free-form one is open."""
    if schema.get("x-kubernetes-preserve-unknown-fields"):
        if isinstance(schema.get("items"), dict):  # a list whose items are declared (RoleBasedGroup's roles)
            return False
        return not isinstance(schema.get("properties"), dict) or not schema.get("properties")
    if schema.get("x-kubernetes-embedded-resource") and not schema.get("properties"):
        return True
    return (
        schema.get("type") in (None, "object")
        and "properties" not in schema
        and "additionalProperties" not in schema
        and "items" not in schema
    )


def lookup(root: dict[str, Any], path: tuple[str, ...]) -> Lookup:
    """What the schema ``root`` says of ``path``: followed key by key through properties, items and additional
    properties; what is under ``metadata``, and territory without declared structure, takes anything."""
    node: dict[str, Any] | None = root
    required = False
    default = None
    for i, part in enumerate(path):
        if node is None or (i == 1 and path[0] == "metadata"):
            return Lookup(True, None)
        if _open(node):
            return Lookup(
                True, None, free_form=path[:i] if node.get("x-kubernetes-preserve-unknown-fields") or i else None
            )
        if part.startswith("["):
            if "items" in node:
                node = as_dict(node.get("items"))
            elif isinstance(node.get("additionalProperties"), dict):
                node = node["additionalProperties"]
            elif part == "[?]" and "properties" in node:
                return Lookup(True, None)  # a computed key into a fixed object: cannot tell
            else:
                return Lookup(True, None)
            required, default = False, None
            continue
        props = as_dict(node.get("properties"))
        if part in props:
            required = part in as_list(node.get("required"))
            node = as_dict(props[part])
            default = node.get("default")
            continue
        if isinstance(node.get("additionalProperties"), dict):
            node = node["additionalProperties"]
            required, default = False, None
            continue
        if node.get("additionalProperties") is True:
            return Lookup(True, None)
        if path[:1] == ("metadata",) and i == 0:
            return Lookup(True, None)
        suggestions = tuple(difflib.get_close_matches(part, list(props), n=3, cutoff=0.6))
        return Lookup(False, None, part, path[:i], suggestions)
    return Lookup(True, node, required=required, default=default)


_STATED_DEFAULT = re.compile(
    r"\bdefaults?\s*(?:to|is|value is|:|=|equal to|equals)?\s*(\d+|zero|one)\b"
    r"|\b(\d+|zero|one)\s+(?:by default|if (?:not set|unset|unspecified|omitted))\b",
    re.I,
)


def stated_default(schema: dict[str, Any]) -> int | None:
    """The count a field's description says it defaults to ("Number of replicas - default 1",
    "If unspecified, defaults to 1"), for a field whose schema declares no ``default``."""
    description = schema.get("description")
    stated = _STATED_DEFAULT.search(" ".join(description.split())) if isinstance(description, str) else None
    if stated is None:
        return None
    word = (stated.group(1) or stated.group(2)).lower()
    return {"zero": 0, "one": 1}.get(word, int(word) if word.isdigit() else None)


def may_be_absent(schema: dict[str, Any], path: tuple[str, ...], known: int = 0) -> tuple[str, ...] | None:
    """The first key of ``path`` an object valid for the CRD may omit (optional in its parent), or
    None when the CRD requires every one (or cannot tell). Only keys after the last list element or
    map value the path takes (which exists when it is read) and after the first ``known`` segments
    (tested non-null by the expression) count; ``metadata`` is never absent, nor is ``spec`` (a
    workload always has one, though CRDs rarely say so; ``status`` is absent until the operator
    writes it)."""
    if not path or path[0] == "metadata":
        return None
    start = max(known, 1 if path[0] == "spec" else 0)
    for index, part in enumerate(path):
        if part.startswith("["):
            start = max(start, index + 1)
    for index in range(start + 1, len(path) + 1):
        result = lookup(schema, path[:index])
        if not result.found or result.schema is None:
            return None
        if not result.required:
            return path[:index]
    return None


def declared_condition_types(version: CrdVersion, conditions_path: tuple[str, ...] | None) -> list[str]:
    """Condition types the CRD declares with an enum on the conditions' ``type`` field; [] when it
    declares none (then nothing can be said). Printer columns (``@.type=="Ready"``) name only the
    types worth a column, never all of them (JobSet shows Completed, and writes Failed and
    Suspended too), so they prove nothing."""
    if conditions_path is None:
        return []
    found = lookup(version.schema, (*conditions_path, "[]", "type"))
    if not found.found or found.schema is None:
        return []
    return list(dict.fromkeys(str(v) for v in as_list(found.schema.get("enum"))))
