"""What a CRD's schema says about roles, counts, identifiers and status, for drafting a definition (`kartalint new --crd`)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import Any

from kartalint.load.crds import stated_default
from kartalint.scaffold.crd_status import text_of

COUNT_FIELDS = (
    "replicas",
    "parallelism",
    "size",
    "numOfHosts",
    "numNodes",
    "instances",
    "count",
    "podGroupSize",
    "groupSize",
)


GENERIC_KEYS = {"template", "spec", "podTemplate", "podSpec"}


@dataclass
class Role:
    """A place of a CRD's schema that holds pods: its role's name, its schema path, its shape (template, pod spec,
    fragments, fields, pod sets, a wrapped resource), notes on how sure the guess is, and the list entry it
    lives in."""

    name: str
    path: tuple  # schema path of the template (or fragment holder), "[]" / "{}" for iteration
    # "template", "podspec", "fragments" (a resources object), "fields" (cores, memory, gpu, ...),
    # "podsets" (pod sets of a wrapped resource) or "wrapped" (a wrapped resource, not a role)
    shape: str
    note: list[str] = dc_field(default_factory=list)
    pattern: str | None = None  # the optional object of a list entry this alternative lives in
    fields: dict[str, str] = dc_field(default_factory=dict)  # "fields" and "podsets": what each field is


_PROPERTIES: dict[int, tuple[dict[Any, Any], dict[str, Any]]] = {}  # id -> (properties, with string keys only)


def properties_of(node: Any) -> dict[str, Any]:
    """A schema node's ``properties`` with string keys only (a YAML key such as ``1:`` is left
    out); filtered once per node, so that walks over a schema of thousands of roles stay linear."""
    props = node.get("properties") if isinstance(node, dict) else None
    if not isinstance(props, dict):
        return {}
    cached = _PROPERTIES.get(id(props))
    if cached is not None and cached[0] is props:
        return cached[1]
    if len(_PROPERTIES) > 100_000:
        _PROPERTIES.clear()
    filtered = {k: v for k, v in props.items() if isinstance(k, str)}
    _PROPERTIES[id(props)] = (props, filtered)
    return filtered


def type_of(node: Any) -> Any:
    """A schema node's ``type``, or None."""
    return node.get("type") if isinstance(node, dict) else None


def embedded(node: Any) -> bool:
    """A wrapped Kubernetes object (``x-kubernetes-embedded-resource``): a Job, a JobSet, ..., never a pod template."""
    return isinstance(node, dict) and node.get("x-kubernetes-embedded-resource") is True


_DERIVED = re.compile(
    r"\b(derived?|computed?|calculated?|inferred|if not (set|specified)|when (not set|unset|omitted))\b", re.I
)


TEMPLATE_NAME = re.compile(r"^(template|podTemplate|.*Template)$")


LIBRARY_NAME = re.compile(r"^.+Templates$")  # reusable fragments referenced by name (`roleTemplates`)


def free_form(node: Any) -> bool:
    """Whether a schema node takes any object (no properties of its own, unknown fields kept, no items, no typed
    additional properties)."""
    return (
        isinstance(node, dict)
        and not properties_of(node)
        and (bool(node.get("x-kubernetes-preserve-unknown-fields")) or node.get("type") in (None, "object"))
        and "items" not in node
        and not isinstance(node.get("additionalProperties"), dict)
    )


def is_base(role: Role, found: list[Role], below: set[tuple[tuple, Any]] | None = None) -> bool:
    """A template whose parent also holds role templates of the same name one level down
    (Flink's ``spec.podTemplate`` beside ``spec.jobManager.podTemplate`` and
    ``spec.taskManager.podTemplate``): a base the operator merges into them, not a role."""
    below = role_templates_below(found) if below is None else below
    return role.shape == "template" and (role.path[:-1], role.path[-1]) in below


def role_templates_below(found: list[Role]) -> set[tuple[tuple, Any]]:
    """(grandparent path, name) of every template: a template at ``P + (name,)`` is a base when
    ``(P, name)`` is in it (one set for all roles, not a scan per role)."""
    return {(other.path[:-2], other.path[-1]) for other in found if other.shape == "template" and len(other.path) > 1}


def schema_at(schema: dict[str, Any], path: tuple) -> dict[str, Any]:
    """The schema node at ``path`` (``[]`` for a list's items, ``{}`` for a map's values), {} when there is none."""
    node: Any = schema
    for part in path:
        if not isinstance(node, dict):
            return {}
        if part == "[]":
            node = node.get("items")
        elif part == "{}":
            node = node.get("additionalProperties")
        else:
            node = properties_of(node).get(part)
    return node if isinstance(node, dict) else {}


def jq_path(parts: tuple) -> str:
    """The jq path of schema path ``parts``: a key that is not an identifier is a quoted jq string
    (JSON's escapes: a quote, a backslash or a line break in a CRD's property name stays inside it)."""
    out = ""
    for part in parts:
        if part in ("[]", "{}"):
            out += "[]"
        elif isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if _IDENTIFIER.match(part) else f"[{json.dumps(part)}]"
    return out or "."


_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\Z")
# what ends a YAML comment or rewrites a terminal: C0 (TAB too), DEL, C1 (NEL is a YAML 1.1 line
# break), the Unicode line and paragraph separators, bidirectional embeddings, overrides, isolates
_NOT_IN_COMMENT = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def comment_text(text: str) -> str:
    """``text`` made safe for one line of a YAML comment: every character that would end the
    comment (and so start YAML of a CRD author's choosing) or hide text is written as an escape
    (``\\n``, ``\\x85``, ``\\u2028``). Every comment a draft writes goes through it."""
    return _NOT_IN_COMMENT.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    named = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(char)
    if named:
        return named
    return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"


def role_name(path: tuple, used: set) -> str:
    """A component name for the pods at ``path`` (from the key that holds them: ``workerGroupSpecs`` is
    ``workerGroup``, plural made singular), not in ``used``; it is added there."""
    iters = [i for i, p in enumerate(path) if p in ("[]", "{}")]
    # a path of generic keys only (Notebook's .spec.template.spec) names no role: its pods are "pod"
    base = path[iters[0] - 1] if iters else next((p for p in reversed(path) if p not in GENERIC_KEYS), "pod")
    name = (
        "replica"
        if base.endswith("ReplicaSpecs")
        else (re.sub(r"(GroupSpecs?|PodTemplate|Template|Specs?)$", "", base) or base)
    )
    name = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "role"  # a component name, from any key
    if iters and name.endswith("s") and not name.endswith("ss"):
        name = name[:-1]
    candidate, n = name, 2
    while candidate in used:
        candidate, n = f"{name}{n}", n + 1
    used.add(candidate)
    return candidate


def identifier_field(item: dict[str, Any]) -> str | None:
    """The key that names a list entry: ``name`` when it is a string, else a required string key ending in "name"."""
    props = properties_of(item)
    if type_of(props.get("name")) == "string":
        return "name"
    for key in required_of(item):
        if key.lower().endswith("name") and type_of(props.get(key)) == "string":
            return key
    return None


def required_of(node: Any) -> list[str]:
    """The keys a schema node requires."""
    required = node.get("required") if isinstance(node, dict) else None
    return [r for r in required if isinstance(r, str)] if isinstance(required, list) else []


def count_default(spec: dict[str, Any], key: str) -> tuple[int, str | None]:
    """The count an absent field stands for, and a note when the CRD does not say it: the CRD's
    ``default``, else the default its description states ("If unspecified, defaults to 1"),
    else 1 with a TODO (an int32 the operator leaves unset means 0 pods: only its code tells)."""
    default = spec.get("default")
    if isinstance(default, int) and not isinstance(default, bool):
        return default, None
    stated = stated_default(spec)
    if stated is not None:
        return stated, None
    return 1, (
        f"TODO: the CRD states no default for {key}: an absent {key} is read as 1; write // 0 if the operator "
        "creates no pod without it (an int32 left unset)"
    )


def count_factors(
    schema: dict[str, Any], role: Role, siblings: list[Role]
) -> tuple[list[str], dict[str, str], list[str]]:
    """(multiplicative factors, min/max paths, notes) along the role's path, relative to the
    iterated item (or to the object when the role is not iterated). A count above the role's list
    (RoleBasedGroupSet's ``.spec.replicas`` over its roles) reads the object through ``$o``: the
    caller binds it (``. as $o | ...``) when a factor starts with ``($o``."""
    path = role.path
    iters = [i for i, p in enumerate(path) if p in ("[]", "{}")]
    start = iters[0] + 1 if iters else 0
    factors, bounds, notes = [], {}, []
    stop = len(path) + 1 if role.shape in ("fragments", "fields") else len(path)
    for depth in range(1, iters[0]) if iters else ():  # counts above the list: they multiply too
        for key in COUNT_FIELDS:
            spec = properties_of(schema_at(schema, path[:depth])).get(key)
            if isinstance(spec, dict) and type_of(spec) == "integer":
                default, unstated = count_default(spec, key)
                notes.extend([unstated] if unstated else [])
                factors.append(f"($o{jq_path((*path[:depth], key))} // {default})")
    for depth in range(start, stop):
        level = path[start:depth]
        node = schema_at(schema, path[:depth])
        props = properties_of(node)
        for key in COUNT_FIELDS:
            spec = props.get(key)
            if not isinstance(spec, dict) or type_of(spec) != "integer":
                continue
            default, unstated = count_default(spec, key)
            if unstated:
                notes.append(unstated)
            description = text_of(spec)
            if _DERIVED.search(description):  # the operator computes it when it is left out
                notes.append(
                    f'TODO: the operator may derive {key} when it is not set; the CRD says: "{description[:160]}"'
                )
            expr = f"({jq_path((*level, key)) if level or iters else jq_path((*path[:depth], key))} // {default})"
            group = (
                [s for s in siblings if s.path[:depth] == path[:depth] and len(s.path) > depth] if key == "size" else []
            )
            if len(group) > 1 and any("leader" in str(s.path[depth]).lower() for s in group):
                if "leader" in path[depth].lower():
                    notes.append(f"`{key}` counts the group; this is its leader (1 per group)")
                    continue
                expr = f"({expr} - 1)"
                notes.append(f"`{key}` counts the group including its leader: workers are {key} - 1 per group")
            factors.append(expr)
            if key == "replicas":
                for bound, names in (
                    ("minReplicasPath", ("minReplicas", "minAvailable")),
                    ("maxReplicasPath", ("maxReplicas",)),
                ):
                    found = next((n for n in names if type_of(props.get(n)) == "integer"), None)
                    if found:
                        bound_default = props[found].get("default")
                        bound_default = bound_default if isinstance(bound_default, int) else None
                        ref = jq_path((*level, found)) if level or iters else jq_path((*path[:depth], found))
                        bounds[bound] = f"{ref} // {bound_default}" if bound_default is not None else ref
    return factors, bounds, notes
