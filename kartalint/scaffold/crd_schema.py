"""What a CRD's schema says about roles, counts, identifiers and status, for drafting a definition (`kartalint new --crd`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import Any

COUNT_FIELDS = ("replicas", "parallelism", "size", "numOfHosts", "numNodes", "instances", "count")


GENERIC_KEYS = {"template", "spec", "podTemplate", "podSpec"}


COND_GUESSES = (
    ("running", ("Running", "Ready", "Available")),
    ("completed", ("Succeeded", "Complete", "Completed")),
    ("failed", ("Failed",)),
    ("suspended", ("Suspended",)),
)


PHASE_WORDS = {
    "initializing": ("pending", "initializing", "creating", "starting", "provisioning", "new", "submitted"),
    "running": ("running", "ready", "healthy", "active", "available"),
    "completed": ("succeeded", "complete", "completed", "finished", "done"),
    "failed": ("failed", "error", "errored"),
    "suspended": ("suspended", "stopped"),
}


@dataclass
class Role:
    name: str
    path: tuple  # schema path of the template (or fragment holder), "[]" / "{}" for iteration
    shape: str  # "template", "podspec" or "fragments"
    note: list[str] = dc_field(default_factory=list)
    pattern: str | None = None  # the optional object of a list entry this alternative lives in


def properties_of(node: Any) -> dict[str, Any]:
    return (node or {}).get("properties") or {} if isinstance(node, dict) else {}


_DERIVED = re.compile(
    r"\b(derived?|computed?|calculated?|inferred|if not (set|specified)|when (not set|unset|omitted))\b", re.I
)


_TEMPLATE_NAME = re.compile(r"^(template|podTemplate|.*Template)$")


LIBRARY_NAME = re.compile(r"^.+Templates$")  # reusable fragments referenced by name (`roleTemplates`)


def _free_form(node: Any) -> bool:
    return (
        isinstance(node, dict)
        and not properties_of(node)
        and (bool(node.get("x-kubernetes-preserve-unknown-fields")) or node.get("type") in (None, "object"))
        and "items" not in node
        and not isinstance(node.get("additionalProperties"), dict)
    )


def find_roles(node: Any, path: tuple, out: list[Role]) -> None:
    props = properties_of(node)
    if "metadata" in props and "spec" in props and "containers" in properties_of(props["spec"]):
        out.append(Role("", path, "template"))
        return
    if path and _TEMPLATE_NAME.match(str(path[-1])) and _free_form(node):
        # a pod template the CRD does not describe (x-kubernetes-preserve-unknown-fields): by name
        out.append(
            Role("", path, "template", ["guessed by its name: the CRD does not declare its fields (TODO: confirm)"])
        )
        return
    if "containers" in props and (props["containers"] or {}).get("type") == "array":
        out.append(Role("", path, "podspec"))
        return
    resources = [
        k for k in props if k.startswith("resources") and {"limits", "requests"} & set(properties_of(props[k]))
    ]
    counted = any((props.get(k) or {}).get("type") == "integer" for k in COUNT_FIELDS)
    if resources and counted and (props.get("image") or {}).get("type") == "string":
        out.append(Role("", path, "fragments", [resources[0]]))
        return
    for key, child in props.items():
        find_roles(child, (*path, key), out)
    if isinstance((node or {}).get("items"), dict):
        find_roles(node["items"], (*path, "[]"), out)
    if isinstance((node or {}).get("additionalProperties"), dict):
        find_roles(node["additionalProperties"], (*path, "{}"), out)


def is_base(role: Role, found: list[Role]) -> bool:
    """A template whose parent also holds role templates of the same name one level down
    (Flink's ``spec.podTemplate`` beside ``spec.jobManager.podTemplate`` and
    ``spec.taskManager.podTemplate``): a base the operator merges into them, not a role."""
    if role.shape != "template":
        return False
    parent, name = role.path[:-1], role.path[-1]
    deeper = [
        other
        for other in found
        if other is not role
        and other.shape == "template"
        and other.path[-1] == name
        and other.path[: len(parent)] == parent
        and len(other.path) == len(role.path) + 1
    ]
    return len(deeper) >= 1


def schema_at(schema: dict[str, Any], path: tuple) -> dict[str, Any]:
    node = schema
    for part in path:
        if part == "[]":
            node = node.get("items") or {}
        elif part == "{}":
            node = node.get("additionalProperties") or {}
        else:
            node = properties_of(node).get(part) or {}
    return node


def jq_path(parts: tuple) -> str:
    out = ""
    for part in parts:
        if part in ("[]", "{}"):
            out += "[]"
        else:
            out += f".{part}" if re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", part) else f'["{part}"]'
    return out or "."


def role_name(path: tuple, used: set) -> str:
    iters = [i for i, p in enumerate(path) if p in ("[]", "{}")]
    base = path[iters[0] - 1] if iters else next((p for p in reversed(path) if p not in GENERIC_KEYS), path[-1])
    name = (
        "replica"
        if base.endswith("ReplicaSpecs")
        else (re.sub(r"(GroupSpecs?|PodTemplate|Template|Specs?)$", "", base) or base)
    )
    name = name.lower()
    if iters and name.endswith("s") and not name.endswith("ss"):
        name = name[:-1]
    candidate, n = name, 2
    while candidate in used:
        candidate, n = f"{name}{n}", n + 1
    used.add(candidate)
    return candidate


def identifier_field(item: dict[str, Any]) -> str | None:
    props = properties_of(item)
    if "name" in props:
        return "name"
    for key in item.get("required") or []:
        if key.lower().endswith("name") and (props.get(key) or {}).get("type") == "string":
            return key
    return None


def count_factors(
    schema: dict[str, Any], role: Role, siblings: list[Role]
) -> tuple[list[str], dict[str, str], list[str]]:
    """(multiplicative factors, min/max paths, notes) along the role's path, relative to the
    iterated item (or to the object when the role is not iterated)."""
    path = role.path
    iters = [i for i, p in enumerate(path) if p in ("[]", "{}")]
    start = iters[0] + 1 if iters else 0
    factors, bounds, notes = [], {}, []
    stop = len(path) if role.shape != "fragments" else len(path) + 1
    for depth in range(start, stop):
        level = path[start:depth]
        node = schema_at(schema, path[:depth])
        props = properties_of(node)
        for key in COUNT_FIELDS:
            spec = props.get(key)
            if not spec or spec.get("type") != "integer":
                continue
            default = spec.get("default", 1)
            description = " ".join(str(spec.get("description") or "").split())
            if _DERIVED.search(description):  # the operator computes it when it is left out
                notes.append(
                    f'TODO: the operator may derive {key} when it is not set; the CRD says: "{description[:160]}"'
                )
            expr = f"({jq_path((*level, key)) if level or iters else jq_path((*path[:depth], key))} // {default})"
            group = [s for s in siblings if s.path[:depth] == path[:depth] and len(s.path) > depth]
            if key == "size" and len(group) > 1 and any("leader" in s.path[depth].lower() for s in group):
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
                    found = next((n for n in names if (props.get(n) or {}).get("type") == "integer"), None)
                    if found:
                        bound_default = props[found].get("default")
                        ref = jq_path((*level, found)) if level or iters else jq_path((*path[:depth], found))
                        bounds[bound] = f"{ref} // {bound_default}" if bound_default is not None else ref
    return factors, bounds, notes


def status_mappings(schema: dict[str, Any], printer_types: Sequence[str] = ()) -> tuple[dict[str, Any], list[str]]:
    status = properties_of(schema).get("status") or {}
    props = properties_of(status)
    definition: dict[str, Any] = {}
    mappings: dict[str, Any] = {}
    notes = []
    if (props.get("conditions") or {}).get("type") == "array":
        definition["conditionsDefinition"] = {
            "path": ".status.conditions // []",
            "typeFieldName": "type",
            "statusFieldName": "status",
            "reasonFieldName": "reason",
            "messageFieldName": "message",
        }
        item = (props.get("conditions") or {}).get("items") or {}
        declared = [t for t in (properties_of(item).get("type") or {}).get("enum") or [] if isinstance(t, str)]
        declared += [t for t in printer_types if t not in declared]
        unmapped = []
        for kind in declared:  # only types the CRD names (an enum, printer columns): nothing invented
            key = next((k for k, types in COND_GUESSES if kind in types), None)
            if key is None:
                unmapped.append(kind)
            else:
                mappings.setdefault(key, []).append({"byConditions": [{"type": kind, "status": "True"}]})
        if declared:
            notes.append(
                f"condition types named by the CRD: {', '.join(declared)}"
                + (f"; TODO: map {', '.join(unmapped)} to a status if it means one" if unmapped else "")
            )
        else:
            notes.append(
                "TODO: the CRD does not name its condition types; add byConditions matchers for the ones the controller writes"
            )
    for name in ("phase", "state", "status"):
        spec = props.get(name) or {}
        if spec.get("type") == "string":
            definition["phaseDefinition"] = {"path": f".status.{name}"}
            values = [v for v in spec.get("enum") or [] if isinstance(v, str)]
            for key, words in PHASE_WORDS.items():
                hits = [v for v in values if v.lower() in words]
                if hits:
                    mappings.setdefault(key, []).extend({"byPhase": v} for v in hits)
            known = {w for words in PHASE_WORDS.values() for w in words}
            unmapped = [v for v in values if v.lower() not in known]
            notes.append(
                f".status.{name} read as the phase"
                + ("" if values else "; TODO: its values are not declared in the CRD, add byPhase matchers")
                + (f"; TODO: map {', '.join(unmapped)} to a status if it means one" if unmapped else "")
            )
            break
    if not definition:
        notes.append("TODO: the CRD declares no status conditions or phase; write byExpression matchers")
    definition["statusMappings"] = mappings
    return definition, notes
