"""``kartalint new``: drafts of fixtures and, from CRDs, of definitions.

``fixture_text(obj, view, ...)`` renders a fixture whose ``expect`` block is what the definition
makes of the object now: a snapshot to review, not a truth. ``drafts_from_crd(path, version)``
drafts one definition per kind of a CRD file (see docs/crd.md for the heuristics).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import Any

from kartalint.karta import as_dict
from kartalint.load.crds import CrdIndex, CrdVersion
from kartalint.load.documents import load_file
from kartalint.scaffold.crd_schema import (
    LIBRARY_NAME,
    Role,
    count_factors,
    find_roles,
    identifier_field,
    is_base,
    jq_path,
    properties_of,
    role_name,
    schema_at,
    status_mappings,
)
from kartalint.scaffold.fixture import dump

# -- drafts from CRDs (`kartalint new --crd`) -------------------------------------------------------


@dataclass
class Draft:
    name: str
    text: str
    data: dict[str, Any]
    fixture_object: dict[str, Any]
    roles: list[Role] = dc_field(default_factory=list)
    problems: list[str] = dc_field(default_factory=list)  # why the skeleton object is not valid for its CRD


def draft_definition(version: CrdVersion) -> Draft:
    schema = version.schema
    name = f"{(version.group or 'core').replace('.', '-')}-{version.kind.lower()}-{version.version}"
    found: list[Role] = []
    for key, child in properties_of(schema).items():  # roles may live outside spec (KAITO's `inference`, `tuning`)
        if key not in ("apiVersion", "kind", "metadata", "status"):
            find_roles(child, (key,), found)
    skipped = [r for r in found if sum(p in ("[]", "{}") for p in r.path) > 1]
    libraries = [r for r in found if r not in skipped and any(LIBRARY_NAME.match(str(p)) for p in r.path)]
    bases = [r for r in found if r not in skipped and r not in libraries and is_base(r, found)]
    roles = [r for r in found if r not in skipped and r not in libraries and r not in bases]
    root_name = version.kind.lower()
    used = {root_name}
    for role in roles:
        role.name = role_name(role.path, used)
    comments: dict[str, list[str]] = {}
    children = []
    pod_roles = len(roles)
    for role in roles:
        iters = [i for i, p in enumerate(role.path) if p in ("[]", "{}")]
        comp: dict[str, Any] = {
            "name": role.name,
            "kind": {"group": "", "version": "v1", "kind": "Pod"},
            "ownerRef": root_name,
        }
        notes = [
            f"pod {'template' if role.shape == 'template' else 'spec' if role.shape == 'podspec' else 'fields'} found at {jq_path(role.path)}"
        ]
        if role.shape != "fragments":
            notes.extend(role.note)  # how sure the guess is
        prefix = ""
        if iters:
            coll = role.path[: iters[0]]
            rel = role.path[iters[0] + 1 :]
            if role.path[iters[0]] == "[]":
                item = schema_at(schema, (*coll, "[]"))
                id_field = identifier_field(item) or "name"
                guard = ""
                pattern = rel[0] if len(rel) > 1 else None
                others = {
                    r.path[len(coll) + 1]
                    for r in roles
                    if r is not role and r.path[: len(coll) + 1] == (*coll, "[]") and len(r.path) > len(coll) + 2
                }
                if pattern and pattern not in (item.get("required") or []) and others - {pattern}:
                    # alternatives (RoleBasedGroup's leaderWorkerPattern / standalonePattern): an entry is an
                    # instance of this component only when it uses this pattern
                    guard = f"select(.{pattern} != null) | "
                    role.pattern = pattern
                    stem = re.sub(r"\d+$", "", role.name)
                    role.name = comp["name"] = f"{stem}-{re.sub(r'Pattern$', '', pattern).lower() or pattern.lower()}"
                    notes.append(f"only entries that set .{pattern} (the entry's other patterns are other components)")
                comp["instanceIdPath"] = f"{jq_path(coll)}[]? | {guard}.{id_field}"
                prefix = f"{jq_path(coll)}[]? | {guard}"
                notes.append(f"one instance per entry of {jq_path(coll)}, identified by .{id_field}")
            else:
                comp["instanceIdPath"] = f"{jq_path(coll)} | keys[]"
                prefix = f"{jq_path(coll)} | keys[] as $key | .[$key] | "
                notes.append(
                    f"one instance per key of the map {jq_path(coll)} (walked in `keys` order so that every path lines up)"
                )
            spec_path = f"{prefix}{jq_path(rel)}" if rel else prefix.rstrip(" |")
        else:
            spec_path = jq_path(role.path)
        if role.shape == "template":
            comp["specDefinition"] = {"podTemplateSpecPath": spec_path}
        elif role.shape == "podspec":
            comp["specDefinition"] = {"podSpecPath": spec_path}
        else:
            base = spec_path
            comp["specDefinition"] = {
                "fragmentedPodSpecDefinition": {"resourcesPath": f"{base}.{role.note[0]}", "imagePath": f"{base}.image"}
            }
        factors, bounds, count_notes = count_factors(schema, role, roles)
        notes.extend(count_notes)
        if factors:
            scale = {"replicasPath": f"{prefix}{' * '.join(factors)}" if iters else " * ".join(factors)}
            scale.update({k: (f"{prefix}{v}" if iters else v) for k, v in bounds.items()})
            comp["scaleDefinition"] = scale
            notes.append("replicas: " + " * ".join(factors) + " (defaults: the CRD's, else 1)")
        elif pod_roles > 1 or iters:
            comp["scaleDefinition"] = {"replicasPath": "1"}
            notes.append("no count field next to this template: 1 pod (TODO: confirm)")
        if pod_roles > 1 or iters:
            label = f'.metadata.labels["TODO/{role.name}"]'
            comp["podSelector"] = {"componentTypeSelector": {"keyPath": label}}
            if iters:
                comp["podSelector"]["componentInstanceSelector"] = {"idPath": label}
            notes.append(
                "TODO: podSelector: the pod label that carries this role is not in the CRD; replace TODO/... with it"
            )
        comments[role.name] = notes
        children.append(comp)
    from kartalint.load.crds import printer_condition_types

    status, status_notes = status_mappings(schema, printer_condition_types(version))
    root: dict[str, Any] = {
        "name": root_name,
        "kind": {"group": version.group, "version": version.version, "kind": version.kind},
        "statusDefinition": status,
    }
    data: dict[str, Any] = {
        "apiVersion": "run.ai/v1alpha1",
        "kind": "Karta",
        "metadata": {"name": name},
        "spec": {"structureDefinition": {"rootComponent": root}},
    }
    if children:
        data["spec"]["structureDefinition"]["childComponents"] = children
    data["spec"]["optimizationInstructions"] = (
        {"gangScheduling": {"podGroup": {"name": root_name}}}
        if (pod_roles > 1 or any("instanceIdPath" in c for c in children))
        else {}
    )
    header = [
        f"# Draft generated by `kartalint new --crd` from {os.path.basename(version.source)} ({version.kind} {version.group}/{version.version}).",
        "# Every guess is commented; TODO marks what must be confirmed against the operator and real objects.",
        f"# Roles: {', '.join(r.name for r in roles) or 'none found (TODO: no pod template or pod spec in the CRD schema)'}.",
        f"# Reads: {', '.join(sorted({jq_path(r.path[:2]) for r in roles} | {'.status'}))}.",
    ]
    header += [f"# Status: {n}" for n in status_notes]
    header += [
        f"# Skipped {jq_path(r.path)}: templates nested in two lists or maps are not modelled (TODO if they are pods of this workload)."
        for r in skipped
    ]
    header += [
        f"# Not a role: {jq_path(r.path)} is a template library (entries referenced by name from the roles)."
        for r in libraries
    ]
    header += [
        f"# Not a role: {jq_path(r.path)} is a base template beside the role templates (the operator merges it into them; "
        "TODO: read it with `*` where a role's own template leaves fields out)."
        for r in bases
    ]
    if not roles:
        header.append("# TODO: no pod-bearing field was found; add components by hand.")
    text = "\n".join(header) + "\n" + _render(data, comments)
    return Draft(name, text, data, minimal_object(version, roles), roles)


def review(draft: Draft) -> dict[str, Any]:
    """What a draft found and how sure each guess is (for the review report and its JSON)."""
    children = {c.get("name"): c for c in draft.data["spec"]["structureDefinition"].get("childComponents", [])}
    roles = []
    for role in draft.roles:
        component = children.get(role.name, {})
        scale = component.get("scaleDefinition") or {}
        roles.append(
            {
                "name": role.name,
                "path": jq_path(role.path),
                "shape": role.shape,
                "confidence": "guessed by name"
                if role.note and role.shape != "fragments"
                else f"schema shape ({role.shape})",
                "instanceIdPath": component.get("instanceIdPath"),
                "replicas": scale.get("replicasPath", "1"),
            }
        )
    kind = draft.fixture_object.get("kind")
    return {
        "name": draft.name,
        "kind": kind,
        "apiVersion": draft.fixture_object.get("apiVersion"),
        "roles": roles,
        "notes": [
            line[2:]
            for line in draft.text.splitlines()[2:]
            if line.startswith("# ") and ("Not a role" in line or "Skipped" in line or "TODO" in line)
        ],
        "problems": list(draft.problems),
    }


def skeleton_problems(crd: dict[str, Any], version: str, obj: dict[str, Any]) -> list[str]:
    """Why ``obj`` is not valid for the CRD's schema (with the CEL rules kartalint translates)."""
    import jsonschema

    from kartalint.schema.convert import crd_to_json_schema

    schema = crd_to_json_schema(crd, version)
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(obj), key=lambda e: [str(p) for p in e.path])
    return [f"{'.'.join(str(p) for p in e.path) or '.'}: {e.message}" for e in errors]


def _render(data: dict[str, Any], comments: dict[str, list[str]]) -> str:
    text = dump(data)
    for name, notes in comments.items():
        marker = f"    - name: {name}\n"
        if marker in text:
            block = "".join(f"    # {n}\n" for n in notes)
            text = text.replace(marker, block + marker, 1)
    return text


def _minimal(node: dict[str, Any], depth: int = 0) -> Any:
    if depth > 12:
        return None
    if "default" in node:
        return node["default"]
    kind = node.get("type")
    if node.get("x-kubernetes-int-or-string"):
        return 1
    if kind == "object" or "properties" in node:
        out = {}
        for key in node.get("required") or []:
            child = properties_of(node).get(key)
            if child is not None:
                out[key] = _minimal(child, depth + 1)
        return out
    if kind == "array":
        return []
    if kind == "integer":
        return max(1, int(node.get("minimum", 1)))
    if kind == "number":
        return 1
    if kind == "boolean":
        return False
    if kind == "string":
        enum = node.get("enum")
        return enum[0] if enum else "example"
    return None


def minimal_object(version: CrdVersion, roles: list[Role]) -> dict[str, Any]:
    """A minimal object of the CRD: required fields and defaults, plus one entry on every path
    that leads to a pod template, with one container."""
    schema = version.schema
    obj: dict[str, Any] = {
        "apiVersion": f"{version.group}/{version.version}" if version.group else version.version,
        "kind": version.kind,
        "metadata": {"name": f"example-{version.kind.lower()}", "namespace": "default"},
    }
    for key in schema.get("required") or []:  # required top-level fields (KAITO's `resource`)
        if key not in ("apiVersion", "kind", "metadata", "status") and key in properties_of(schema):
            obj[key] = _minimal(properties_of(schema)[key])
    if "spec" in properties_of(schema):  # only when the CRD has one (KAITO's Workspace has none)
        spec = _minimal(properties_of(schema).get("spec") or {})
        obj["spec"] = spec if isinstance(spec, dict) else {}
    for role in roles:
        node_schema: dict[str, Any] = schema
        cursor: Any = obj
        parts = role.path
        for i, part in enumerate(parts):
            child_schema = schema_at(node_schema, (part,))
            if part == "[]":
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
                if not cursor:
                    cursor["Example"] = _minimal(child_schema) or {}
                cursor = next(iter(cursor.values()))
            else:
                if not isinstance(cursor.get(part), (dict, list)):
                    value = _minimal(child_schema)
                    cursor[part] = value if isinstance(value, (dict, list)) else {}
                cursor = cursor[part]
            node_schema = child_schema
        container = {"name": "main", "image": "registry.example.com/TODO:latest"}
        if role.shape == "template":
            cursor.setdefault("spec", {}).setdefault("containers", [container])
        elif role.shape == "podspec":
            cursor.setdefault("containers", [container])
        else:
            cursor.setdefault("image", container["image"])
    return obj


class ScaffoldError(Exception):
    pass


def drafts_from_crd(path: str, version: str | None = None) -> list[Draft]:
    """One draft per kind in the CRD file: the stored version, or ``version``."""
    index = CrdIndex.from_paths([path])
    if index.problems:
        raise ScaffoldError("; ".join(index.problems))
    kinds: dict[tuple[str, str], list[CrdVersion]] = {}
    for found in index.versions.values():
        kinds.setdefault((found.group, found.kind), []).append(found)
    if not kinds:
        raise ScaffoldError(f"{path}: no CustomResourceDefinition with a schema found")
    documents = [
        d.data
        for d in load_file(path).documents
        if isinstance(d.data, dict) and d.data.get("kind") == "CustomResourceDefinition"
    ]
    drafts = []
    for (group, kind), versions in sorted(kinds.items()):
        if version:
            chosen = [v for v in versions if v.version == version]
            if not chosen:
                raise ScaffoldError(
                    f"{kind}.{group} has no version {version} (versions: {', '.join(v.version for v in versions)})"
                )
        else:
            chosen = [v for v in versions if v.storage] or versions[:1]
        draft = draft_definition(chosen[0])
        crd = next(
            (
                d
                for d in documents
                if as_dict(as_dict(d.get("spec")).get("names")).get("kind") == kind
                and as_dict(d.get("spec")).get("group") == group
            ),
            None,
        )
        if crd is not None and chosen[0].schema:  # a version without a schema has nothing to validate against
            draft.problems = skeleton_problems(crd, chosen[0].version, draft.fixture_object)
        drafts.append(draft)
    return drafts
