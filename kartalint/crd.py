"""CustomResourceDefinitions: read them, index their schemas by group/version/kind, and walk
a field path through a version's openAPIV3Schema.

Used by CRD-aware lint (``path-not-in-crd``, ``crd-optional-arithmetic``) and by
``kartalint new --crd``. Subtrees with ``x-kubernetes-preserve-unknown-fields`` or without a
declared structure (``metadata``, plain ``type: object``) accept any path.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Tuple

from .karta import as_dict, as_list
from .load import iter_yaml_files, load_file, missing_reason

GVK = Tuple[str, str, str]


@dataclass
class CrdVersion:
    group: str
    version: str
    kind: str
    plural: str
    schema: Dict[str, Any]
    served: bool
    storage: bool
    source: str

    @property
    def gvk(self) -> GVK:
        return (self.group, self.version, self.kind)


@dataclass
class CrdIndex:
    versions: Dict[GVK, CrdVersion] = field(default_factory=dict)
    problems: List[str] = field(default_factory=list)

    @classmethod
    def from_paths(cls, paths: Iterable[str]) -> "CrdIndex":
        index = cls()
        files, missing = iter_yaml_files(list(paths))
        index.problems.extend(missing_reason(p) for p in missing)
        for path in files:
            source = load_file(path)
            for document in source.documents:
                for version in crd_versions(document.data, path):
                    index.versions.setdefault(version.gvk, version)
        return index

    def get(self, gvk: Optional[GVK]) -> Optional[CrdVersion]:
        return self.versions.get(gvk) if gvk else None


def crd_versions(data: Any, source: str = "") -> List[CrdVersion]:
    data = as_dict(data)
    if data.get("kind") != "CustomResourceDefinition":
        return []
    spec = as_dict(data.get("spec"))
    names = as_dict(spec.get("names"))
    group, kind = str(spec.get("group") or ""), str(names.get("kind") or "")
    out = []
    for version in as_list(spec.get("versions")):
        version = as_dict(version)
        schema = as_dict(as_dict(version.get("schema")).get("openAPIV3Schema"))
        out.append(CrdVersion(group, str(version.get("name") or ""), kind, str(names.get("plural") or ""), schema,
                              bool(version.get("served", True)), bool(version.get("storage", False)), source))
    return out


@dataclass(frozen=True)
class Lookup:
    found: bool
    schema: Optional[Dict[str, Any]]  # None: territory without declared structure (anything goes)
    missing: Optional[str] = None  # the first key that does not exist
    at: Tuple[str, ...] = ()  # path of the parent of the missing key
    suggestions: Tuple[str, ...] = ()
    required: bool = False  # the last key is required by its parent
    default: Any = None


def _open(schema: Dict[str, Any]) -> bool:
    """True when the schema does not constrain its keys."""
    if schema.get("x-kubernetes-preserve-unknown-fields"):
        return True
    if schema.get("x-kubernetes-embedded-resource") and not schema.get("properties"):
        return True
    return schema.get("type") in (None, "object") and "properties" not in schema and "additionalProperties" not in schema and "items" not in schema


def lookup(root: Dict[str, Any], path: Tuple[str, ...]) -> Lookup:
    node: Optional[Dict[str, Any]] = root
    required = False
    default = None
    for i, part in enumerate(path):
        if node is None or _open(node) or (i == 1 and path[0] == "metadata"):
            return Lookup(True, None)
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
