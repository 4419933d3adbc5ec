"""What a project assumes beyond its CRD: ``explore: {assume: {<jq path>: <JSON Schema>}}``.

Admission webhooks refuse objects the CRD allows (a Volcano task's ``minAvailable`` above its
``replicas``); a definition need not handle them. A project says so in ``.kartalint.yaml``: each
key is a plain jq path (``.spec.tasks[].minAvailable``, ``.spec.sparkConf["spark.x"]``), each
value a JSON Schema (draft 2020-12) for the values at that path. Generation merges the schema's
keywords into the CRD's (``minimum``, ``maximum``, ``enum``, ``const``, ``pattern``,
``required``...) so it draws what the project assumes, and every value drawn there must also
validate against the schema (keywords generation does not read, such as ``not`` or ``anyOf``,
filter what is drawn).
"""

from __future__ import annotations

from typing import Any

import jsonschema

from kartalint.jqlang import parse_cached, paths

Path = tuple[str, ...]
Assumptions = dict[Path, dict[str, Any]]  # what explore's generated values must also satisfy, by path


class AssumeError(ValueError):
    """An ``explore.assume`` entry that is not a plain jq path or not a JSON Schema."""


def parse_assumptions(raw: dict[str, Any]) -> Assumptions:
    """Paths (as explore's generator names them: ``[]`` for list entries) -> schemas."""

    out: dict[Path, dict[str, Any]] = {}
    for key, schema in raw.items():
        tree, error = parse_cached(key)
        path = paths.output_path(tree) if error is None and tree is not None else None
        if not path or any(part.startswith("[") and part != "[]" for part in path) or key.strip() in (".", ""):
            raise AssumeError(f"'{key}' is not a plain jq path such as .spec.tasks[].minAvailable")
        try:
            jsonschema.Draft202012Validator.check_schema(schema)
        except jsonschema.SchemaError as exc:
            where = "/".join(str(p) for p in exc.path)
            raise AssumeError(
                f"'{key}': not a JSON Schema: {exc.message}" + (f" (at {where})" if where else "")
            ) from None
        out[tuple(path)] = schema
    return out


def merged(node: dict[str, Any], assumed: dict[str, Any]) -> dict[str, Any]:
    """The CRD's schema node with the assumed keywords: the assumption wins; ``required`` adds
    up, ``properties`` merge one level (nested keys are assumed by their own paths)."""
    out = {**node, **assumed}
    if isinstance(node.get("required"), list) and isinstance(assumed.get("required"), list):
        out["required"] = list(dict.fromkeys([*node["required"], *assumed["required"]]))
    if isinstance(node.get("properties"), dict) and isinstance(assumed.get("properties"), dict):
        props = dict(node["properties"])
        for key, value in assumed["properties"].items():
            props[key] = merged(props.get(key) or {}, value) if isinstance(value, dict) else value
        out["properties"] = props
    if "const" in assumed:
        out["enum"] = [assumed["const"]]
    return out


def validator(schema: dict[str, Any]) -> Any:
    """A test: does a drawn value satisfy the assumed schema?"""

    check = jsonschema.Draft202012Validator(schema)
    return check.is_valid
