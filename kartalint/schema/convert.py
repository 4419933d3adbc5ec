"""Convert a CRD's ``openAPIV3Schema`` into a strict JSON Schema (draft 2020-12).

Rules, following Kubernetes' structural-schema semantics:

* ``properties`` without ``x-kubernetes-preserve-unknown-fields`` get ``additionalProperties:
  false`` (the API server prunes unknown fields silently; a linter must report them);
* ``nullable: true`` adds ``"null"`` to the type;
* ``x-kubernetes-int-or-string`` becomes ``anyOf`` integer/string;
* ``x-kubernetes-embedded-resource`` requires ``apiVersion``, ``kind`` and ``metadata``;
* ``x-kubernetes-list-type: set`` becomes ``uniqueItems``; ``map`` lists keep their
  ``x-kubernetes-list-map-keys`` (checked by kartalint's validator, see ``__init__``);
* the CEL rules of the form ``has(self.a) || has(self.b)`` and ``!has(self.a) || has(self.b)``
  become ``anyOf``/``dependentRequired``; other CEL rules are kept as annotations and listed in
  ``x-kartalint-unchecked``;
* ``default`` values are kept (editors show them), ``description`` is kept.
"""

from __future__ import annotations

import copy
import re
from typing import Any

DIALECT = "https://json-schema.org/draft/2020-12/schema"

_HAS_OR_HAS = re.compile(r"^\s*has\(self\.(\w+)\)\s*\|\|\s*has\(self\.(\w+)\)\s*$")
_NOT_HAS_OR_HAS = re.compile(r"^\s*!has\(self\.(\w+)\)\s*\|\|\s*has\(self\.(\w+)\)\s*$")

# Keywords of OpenAPI v3 schemas that mean the same in JSON Schema and are copied as they are.
_COPIED = (
    "description",
    "default",
    "enum",
    "format",
    "pattern",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "multipleOf",
    "required",
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
)


def crd_version_schema(crd: dict[str, Any], version: str | None = None) -> dict[str, Any]:
    """The ``openAPIV3Schema`` of ``version`` (default: the storage version) of a CRD."""
    versions = crd.get("spec", {}).get("versions") or []
    chosen = None
    for entry in versions:
        if (version is not None and entry.get("name") == version) or (version is None and entry.get("storage")):
            chosen = entry
    if chosen is None and version is None and versions:
        chosen = versions[0]
    if chosen is None:
        raise ValueError(f"CRD {crd.get('metadata', {}).get('name')} has no version {version!r}")
    return chosen["schema"]["openAPIV3Schema"]


def convert(openapi: dict[str, Any], strict: bool = True) -> dict[str, Any]:
    """JSON Schema for one ``openAPIV3Schema`` node (recursively)."""
    unchecked: list[str] = []
    result = _convert(openapi, strict, unchecked, "")
    return result if not unchecked else dict(result, **{"x-kartalint-unchecked": unchecked})


def crd_to_json_schema(crd: dict[str, Any], version: str | None = None, strict: bool = True) -> dict[str, Any]:
    """A complete, self-describing JSON Schema document for a CRD version."""
    openapi = crd_version_schema(crd, version)
    spec = crd.get("spec", {})
    names = spec.get("names", {})
    served = version or next(
        (v["name"] for v in spec.get("versions", []) if v.get("storage")), spec.get("versions", [{}])[0].get("name")
    )
    schema: dict[str, Any] = {"$schema": DIALECT, "title": f"{names.get('kind')} ({spec.get('group')}/{served})"}
    schema.update(convert(openapi, strict))
    # apiVersion and kind are fixed for a custom resource of this version.
    props = schema.setdefault("properties", {})
    props["apiVersion"] = dict(props.get("apiVersion", {}), enum=[f"{spec.get('group')}/{served}"])
    props["kind"] = dict(props.get("kind", {}), enum=[names.get("kind")])
    props.setdefault("metadata", {"type": "object"})  # every object has one, declared or not
    schema["required"] = sorted(set(schema.get("required", [])) | {"apiVersion", "kind"})
    return schema


def _convert(node: dict[str, Any], strict: bool, unchecked: list[str], where: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in _COPIED:
        if key in node:
            out[key] = copy.deepcopy(node[key])
    kind = node.get("type")
    if node.get("x-kubernetes-int-or-string"):
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
        kind = None
    if kind is not None:
        out["type"] = [kind, "null"] if node.get("nullable") else kind
    elif node.get("nullable") and "anyOf" in out:
        out["anyOf"].append({"type": "null"})
    preserve = bool(node.get("x-kubernetes-preserve-unknown-fields"))
    if "properties" in node:
        out["properties"] = {
            name: _convert(child, strict, unchecked, f"{where}.{name}") for name, child in node["properties"].items()
        }
        if strict and not preserve and "additionalProperties" not in node:
            out["additionalProperties"] = False
    if isinstance(node.get("additionalProperties"), dict):
        out["additionalProperties"] = _convert(node["additionalProperties"], strict, unchecked, f"{where}.*")
    elif node.get("additionalProperties") is False:
        out["additionalProperties"] = False
    if "items" in node:
        out["items"] = _convert(node["items"], strict, unchecked, f"{where}[]")
    if node.get("x-kubernetes-list-type") == "set":
        out["uniqueItems"] = True
    if node.get("x-kubernetes-embedded-resource"):
        out["required"] = sorted(set(out.get("required", [])) | {"apiVersion", "kind", "metadata"})
    for combinator in ("allOf", "anyOf", "oneOf"):
        if combinator in node:
            out.setdefault(combinator, [])
            out[combinator] = out[combinator] + [_convert(s, strict, unchecked, where) for s in node[combinator]]
    if "not" in node:
        out["not"] = _convert(node["not"], strict, unchecked, where)
    for rule in node.get("x-kubernetes-validations") or []:
        _convert_cel(rule, out, unchecked, where)
    return out


def _convert_cel(rule: dict[str, Any], out: dict[str, Any], unchecked: list[str], where: str) -> None:
    expression = rule.get("rule", "")
    message = rule.get("message", expression)
    match = _HAS_OR_HAS.match(expression)
    if match:
        first, second = match.groups()
        out.setdefault("allOf", []).append(
            {"anyOf": [{"required": [first]}, {"required": [second]}], "x-kartalint-cel": message}
        )
        return
    match = _NOT_HAS_OR_HAS.match(expression)
    if match:
        first, second = match.groups()
        out.setdefault("allOf", []).append({"dependentRequired": {first: [second]}, "x-kartalint-cel": message})
        return
    out.setdefault("x-kubernetes-validations", []).append(rule)
    unchecked.append(f"{where or '.'}: {expression}")
