"""A schema's references to its own ``$defs`` replaced by what they name, so that
``kartalint.schema.structural`` can check it (the fixture schema: ``kartalint.rules.fixture_schema``)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Unresolvable(ValueError):
    """A ``$ref`` that ``inline_refs`` cannot replace (not ``#/$defs/<name>``, or a cycle)."""


def inline_refs(schema: Any, root: dict[str, Any] | None = None, seen: tuple[str, ...] = ()) -> Any:
    """``schema`` with each ``$ref`` to one of its own ``$defs`` (``#/$defs/<name>``) replaced by
    the schema it names (beside other keywords: as one more ``allOf``), and ``$defs`` left out:
    a schema this module can check (``supports``) that accepts what the original accepts.
    ``Unresolvable`` for any other reference, or one that refers to itself."""
    root = schema if root is None else root
    if isinstance(schema, list):
        return [inline_refs(item, root, seen) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for keyword, value in schema.items():
        if keyword in ("$defs", "$ref"):
            continue
        if keyword in ("const", "enum", "default", "description", "title"):
            out[keyword] = value  # values, not schemas
        elif keyword == "properties":
            out[keyword] = {name: inline_refs(sub, root, seen) for name, sub in value.items()}
        else:
            out[keyword] = inline_refs(value, root, seen)
    reference = schema.get("$ref")
    if reference is None:
        return out
    name = reference[len("#/$defs/") :] if isinstance(reference, str) and reference.startswith("#/$defs/") else None
    target = root.get("$defs", {}).get(name) if name is not None and isinstance(root.get("$defs"), dict) else None
    if target is None or reference in seen:
        raise Unresolvable(f"$ref {reference!r}")
    resolved = inline_refs(target, root, (*seen, reference))
    if not out:
        return resolved
    out["allOf"] = [*out.get("allOf", []), resolved]
    return out
