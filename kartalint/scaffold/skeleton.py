"""The fixture skeleton of a draft (`kartalint new --crd`, `kartalint init --crd`): a minimal
object of the CRD, validated against it, and the fixture both commands write from it.

One path for both commands: an object the CRD refuses gets no fixture (an error naming the field);
an object the draft cannot evaluate (extraction errors) gets a fixture with an empty ``expect``
(`kartalint test` reports it as needing expectations), never one that pins the errors.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import jsonschema

from kartalint.scaffold.crd_roles import CPU_FIELDS, CPU_REQUEST_FIELDS, MEMORY_FIELDS
from kartalint.scaffold.crd_schema import Role, identifier_field, properties_of, required_of, schema_at
from kartalint.scaffold.fixture import fixture_text
from kartalint.schema.convert import crd_to_json_schema

if TYPE_CHECKING:
    from kartalint.evaluation import Evaluator
    from kartalint.load.crds import CrdVersion

EXAMPLE_IMAGE = "registry.example.com/TODO:latest"
QUANTITY_NAMES = {*CPU_REQUEST_FIELDS, *CPU_FIELDS, *MEMORY_FIELDS, "coreLimit", "cpuLimit", "memoryLimit"}


def _minimal(node: Any, depth: int = 0, name: str = "") -> Any:
    if depth > 12 or not isinstance(node, dict):
        return None
    if "default" in node:
        return node["default"]
    kind = node.get("type")
    if node.get("x-kubernetes-int-or-string"):
        return 1
    if kind == "object" or "properties" in node:
        out = {}
        for key in required_of(node):
            child = properties_of(node).get(key)
            if child is not None:
                out[key] = _minimal(child, depth + 1, key)
        return out
    if kind == "array":
        return []
    if kind == "integer":
        minimum = node.get("minimum", 1)
        return max(1, int(minimum) if isinstance(minimum, (int, float)) else 1)
    if kind == "number":
        return 1
    if kind == "boolean":
        return False
    if kind == "string":
        enum = node.get("enum")
        if isinstance(enum, list) and enum:
            return enum[0]
        return "1" if name in QUANTITY_NAMES else "example"  # a CPU or memory amount must parse
    return None


def _wrapped_job(container: dict[str, Any]) -> dict[str, Any]:
    """A small wrapped resource whose pod template is at ``spec.template`` (a batch/v1 Job)."""
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "example"},
        "spec": {"template": {"spec": {"containers": [container]}}},
    }


def minimal_object(version: CrdVersion, roles: list[Role]) -> dict[str, Any]:
    """A minimal object of the CRD: required fields and defaults, plus one entry on every path
    that leads to a pod template, with one container."""
    schema = version.schema
    obj: dict[str, Any] = {
        "apiVersion": f"{version.group}/{version.version}" if version.group else version.version,
        "kind": version.kind,
        "metadata": {"name": f"example-{version.kind.lower()}", "namespace": "default"},
    }
    for key in required_of(schema):  # required top-level fields (KAITO's `resource`)
        if key not in ("apiVersion", "kind", "metadata", "status") and key in properties_of(schema):
            obj[key] = _minimal(properties_of(schema)[key])
    if "spec" in properties_of(schema):  # only when the CRD has one (KAITO's Workspace has none)
        spec = _minimal(properties_of(schema).get("spec") or {})
        obj["spec"] = spec if isinstance(spec, dict) else {}
    for role in roles:
        _place(schema, obj, role)
    return obj


def _place(schema: dict[str, Any], obj: dict[str, Any], role: Role) -> None:
    """Fill ``obj`` along ``role.path`` (one entry per list or map) and put a pod at its end."""
    node_schema: dict[str, Any] = schema
    cursor: Any = obj
    holder: Any = None  # podsets: the object that holds the wrapped resource
    parts = role.path
    for i, part in enumerate(parts):
        child_schema = schema_at(node_schema, (part,))
        if role.shape == "podsets" and part == role.fields["list"] and i == len(parts) - 2:
            holder = cursor
        if part == "[]":
            if not isinstance(cursor, list):
                return
            if role.pattern and i == parts.index("[]"):
                # an alternative: an entry of its own that sets only this pattern (never two at once)
                entry = next((e for e in cursor if isinstance(e, dict) and role.pattern in e), None)
                if entry is None:
                    entry = _minimal(child_schema) or {}
                    id_field = identifier_field(child_schema)
                    if id_field:
                        entry[id_field] = f"example-{role.pattern.lower()}"
                    entry[role.pattern] = {}
                    cursor.append(entry)
                cursor = entry
            else:
                if not cursor:
                    item = _minimal(child_schema) or {}
                    id_field = identifier_field(child_schema)
                    if id_field:
                        item[id_field] = "example"
                    cursor.append(item)
                cursor = cursor[0]
        elif part == "{}":
            if not isinstance(cursor, dict):
                return
            if not cursor:
                cursor["Example"] = _minimal(child_schema) or {}
            cursor = next(iter(cursor.values()))
        else:
            if not isinstance(cursor, dict):
                return
            if not isinstance(cursor.get(part), (dict, list)):
                value = _minimal(child_schema)
                cursor[part] = value if isinstance(value, (dict, list)) else {}
            cursor = cursor[part]
        node_schema = child_schema
    if not isinstance(cursor, dict):
        return
    container = {"name": "main", "image": EXAMPLE_IMAGE}
    if role.shape == "template":
        cursor.setdefault("spec", {}).setdefault("containers", [container])
    elif role.shape == "podspec":
        cursor.setdefault("containers", [container])
    elif role.shape == "podsets" and isinstance(holder, dict):
        wrapped = role.fields["embedded"]
        holder[wrapped] = _wrapped_job(container)
        cursor[role.fields["path"]] = f"{wrapped}.spec.template"
    elif role.shape == "container":
        cursor.setdefault("name", container["name"])
        cursor.setdefault("image", container["image"])
    elif role.shape == "fragments" or "imagePath" in role.fields:
        cursor.setdefault(role.fields.get("imagePath", "image"), container["image"])


def skeleton_problems(crd: dict[str, Any], version: str, obj: dict[str, Any]) -> list[str]:
    """Why ``obj`` is not valid for the CRD's schema (with the CEL rules kartalint translates)."""

    schema = crd_to_json_schema(crd, version)
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(obj), key=lambda e: [str(p) for p in e.path])
    return [f"{'.'.join(str(p) for p in e.path) or '.'}: {e.message}" for e in errors]


def skeleton_source(crd_path: str) -> str:
    """The fixture's ``source:``."""

    return f"minimal object built from the CRD schema of {os.path.basename(crd_path)} (required fields and defaults)"


@dataclass
class Skeleton:
    """The fixture to write for a draft (None: none, the CRD refuses the object) and the errors to report."""

    text: str | None
    errors: list[str] = field(default_factory=list)


def skeleton_fixture(draft: Any, evaluator: Evaluator, *, source: str, definition: str | None = None) -> Skeleton:
    """The fixture of ``draft``'s skeleton object, the same for `new --crd` and `init --crd`."""

    kind = draft.fixture_object.get("kind")
    if draft.problems:
        return Skeleton(None, [f"the skeleton {kind} object is not valid for its CRD: {p}" for p in draft.problems])
    view = evaluator.evaluate(draft.data, draft.fixture_object)
    errors = [
        f"the draft cannot evaluate its skeleton {kind} object: {component or 'the object'}: {e.field}: {e.message}"
        for component, e in view.all_errors
    ]
    text = fixture_text(
        draft.fixture_object,
        view,
        name=f"minimal {draft.name}",
        source=source,
        definition=definition,
        expect=not errors,
    )
    return Skeleton(text, errors)
