"""The components of a draft drafted from the CRD alone (`kartalint new --crd`): where a role's pods
are, its instances, replicas, suspend TODOs and selector placeholders."""

from __future__ import annotations

import re
from typing import Any

from kartalint.karta import as_dict
from kartalint.scaffold.crd_roles import fragments, pod_set_paths, status_pod_sets
from kartalint.scaffold.crd_schema import (
    Role,
    count_default,
    count_factors,
    identifier_field,
    jq_path,
    required_of,
    schema_at,
    text_of,
)
from kartalint.scaffold.draft_model import Comments

SUPPRESS_BUILT = (
    "kartalint: disable=not-assignable-path -- built from the role's fields: consumers read it; "
    "a write-back goes to the fields themselves"
)


def _may_be_empty(node: dict[str, Any]) -> bool:
    """Whether the CRD lets a string field be "" (no minLength, no pattern refusing it)."""
    minimum = node.get("minLength")
    if isinstance(minimum, int) and minimum >= 1:
        return False
    pattern = node.get("pattern")
    if isinstance(pattern, str):
        try:
            return re.search(pattern, "") is not None
        except re.error:
            return True
    return True


def _instances(schema: dict[str, Any], role: Role, roles: list[Role], notes: list[str]) -> tuple[str, str]:
    """(instanceIdPath, the prefix of every other path) of a role inside one list or map."""
    iters = [i for i, p in enumerate(role.path) if p in ("[]", "{}")]
    coll = jq_path(role.path[: iters[0]])
    if role.path[iters[0]] == "{}":
        notes.append(f"one instance per key of the map {coll} (walked in `keys` order so that every path lines up)")
        return f"{coll} | keys[]", f"{coll} | keys[] as $key | .[$key] | "
    item = schema_at(schema, (*role.path[: iters[0]], "[]"))
    rel = role.path[iters[0] + 1 :]
    guard = ""
    pattern = rel[0] if len(rel) > 1 else None
    prefix_len = iters[0] + 1
    others = {
        r.path[prefix_len]
        for r in roles
        if r is not role and r.path[:prefix_len] == role.path[:prefix_len] and len(r.path) > prefix_len + 1
    }
    if pattern and pattern not in required_of(item) and others - {pattern}:
        # alternatives (RoleBasedGroup's leaderWorkerPattern / standalonePattern): an entry is an
        # instance of this component only when it uses this pattern
        guard = f"select(.{pattern} != null) | "
        role.pattern = pattern
        stem = re.sub(r"\d+$", "", role.name)
        role.name = f"{stem}-{re.sub(r'Pattern$', '', pattern).lower() or pattern.lower()}"
        notes.append(f"only entries that set .{pattern} (the entry's other patterns are other components)")
    prefix = f"{coll}[]? | {guard}"
    id_field = identifier_field(item)
    if id_field and id_field in required_of(item):
        notes.append(f"one instance per entry of {coll}, identified by .{id_field}")
        return f"{prefix}.{id_field}", prefix
    entries = f"({coll} // []) | to_entries[] | " + (f"select(.value.{pattern} != null) | " if guard else "")
    if id_field is None:
        notes.append(f"one instance per entry of {coll}; entries have no name: identified by their index")
        return f'{entries}"{role.name}-\\(.key)"', prefix
    name = f".value.{id_field}"
    notes.append(
        f"one instance per entry of {coll}, identified by .{id_field}; the CRD lets it be absent, so an entry "
        f'without it is "default<index>" (TODO: confirm how the operator names such entries; an empty id is an '
        "extraction error)"
    )
    if _may_be_empty(as_dict(as_dict(item.get("properties")).get(id_field))):
        return f'{entries}({name} // "") as $name | if $name == "" then "default\\(.key)" else $name end', prefix
    return f'{entries}{name} // "default\\(.key)"', prefix


def crd_component(
    schema: dict[str, Any],
    role: Role,
    roles: list[Role],
    root_name: str,
    comments: Comments,
    suspends: list[tuple[str, str]],
) -> dict[str, Any]:
    """The component of ``role`` in a draft: its kind, owner, the paths of its pods (templates, pod specs,
    fragments or pod sets), its scale and instance ids, with the comments that say what was found and how sure
    the guess is."""
    comp: dict[str, Any] = {
        "name": role.name,
        "kind": {"group": "", "version": "v1", "kind": "Pod"},
        "ownerRef": root_name,
    }
    what = {
        "template": "pod template",
        "podspec": "pod spec",
        "podsets": "pod sets of a wrapped resource",
        "container": "a container",
    }
    notes = [f"{what.get(role.shape, 'pod fields')} found at {jq_path(role.path)}"]
    if role.shape in ("template", "podspec", "fields", "container"):
        notes.extend(role.note)  # how sure the guess is, what else makes the pod
    scale_notes: list[str] = []
    iters = [i for i, p in enumerate(role.path) if p in ("[]", "{}")]
    prefix = ""
    if role.shape == "podsets":
        default, unstated = 1, None
        if "count" in role.fields:
            count = as_dict(schema_at(schema, role.path).get("properties")).get(role.fields["count"])
            default, unstated = count_default(as_dict(count), role.fields["count"])
        mirror = status_pod_sets(schema, role.fields) if "[]" in role.path[:-2] else None
        paths = pod_set_paths(role.path, role.fields, default, mirror)
        comp["instanceIdPath"] = paths["instanceIdPath"]
        comp["specDefinition"] = {"podTemplateSpecPath": paths["podTemplateSpecPath"]}
        comp["scaleDefinition"] = {"replicasPath": paths["replicasPath"]}
        notes.append(
            f"one instance per entry of {jq_path(role.path[:-1])}: its .{role.fields['path']} is parsed and read with "
            f"getpath from the entry (or from .{role.fields['embedded']} when it does not start with it)"
        )
        comments[(role.name, "podTemplateSpecPath")] = [
            *(
                [
                    f"pod sets from {mirror}[].{role.fields['list']} first (the status keeps them per entry of the "
                    f"spec: the sets the operator validated or inferred), else from {jq_path(role.path[:-1])}"
                ]
                if mirror
                else []
            ),
            f"TODO: entries with no pod set{' in either' if mirror else ''} get no pod here (the CRD says of "
            f'{jq_path(role.path[:-1])}: "{text_of(schema_at(schema, role.path[:-1]))[:120]}")',
        ]
        if unstated:
            scale_notes.append(unstated)
        iters = [0]
    else:
        if iters:
            comp["instanceIdPath"], prefix = _instances(schema, role, roles, notes)
            comp["name"] = role.name
            rel = role.path[iters[0] + 1 :]
            spec_path = f"{prefix}{jq_path(rel)}" if rel else prefix.rstrip(" |")
        else:
            spec_path = jq_path(role.path)
        if role.shape == "template":
            comp["specDefinition"] = {"podTemplateSpecPath": spec_path}
        elif role.shape == "podspec":
            comp["specDefinition"] = {"podSpecPath": spec_path}
        elif role.shape == "container":
            comp["specDefinition"] = {"fragmentedPodSpecDefinition": {"containerPath": spec_path}}
        elif role.shape == "fragments":
            comp["specDefinition"] = {
                "fragmentedPodSpecDefinition": {
                    "resourcesPath": f"{spec_path}.{role.note[0]}",
                    "imagePath": f"{spec_path}.image",
                }
            }
        else:
            definition, resource_notes = fragments(spec_path, role.fields)
            comp["specDefinition"] = {"fragmentedPodSpecDefinition": definition}
            comments[(role.name, "resourcesPath")] = [
                "resources built from the role's fields, so that consumers count its GPUs and CPU:",
                *(f"  {n}" for n in resource_notes),
                SUPPRESS_BUILT,
            ]
        factors, bounds, count_notes = count_factors(schema, role, roles)
        scale_notes.extend(count_notes)
        if factors:
            bind = ". as $o | " if any(f.startswith("($o") for f in factors) else ""
            scale = {"replicasPath": f"{bind}{prefix}{' * '.join(factors)}" if iters else " * ".join(factors)}
            scale.update({k: (f"{prefix}{v}" if iters else v) for k, v in bounds.items()})
            comp["scaleDefinition"] = scale
            notes.append(
                "replicas: "
                + " * ".join(factors)
                + " (an absent count: the CRD's default, else its description's, else 1)"
            )
            if len(factors) > 1:
                scale_notes.append(
                    "every count on the way multiplies (the entries' counts, the counts above them, group sizes): "
                    "Karta's consumers do not multiply a parent's scale (docs/parity.md)"
                )
        elif len(roles) > 1 or iters:
            # one result per instance (the zip rule): a constant after the entries' iteration
            comp["scaleDefinition"] = {"replicasPath": f"{prefix}1" if iters else "1"}
            scale_notes.append("no count field next to this role: 1 pod per instance (TODO: confirm)")
    for stopper, when in suspends:
        scale_notes.append(
            f"TODO: {stopper} suspends the workload (the CRD has it): {when} the operator runs no pod, "
            "which these replicas do not show"
        )
    label = f'.metadata.labels["TODO/{role.name}"]'
    comp["podSelector"] = {"componentTypeSelector": {"keyPath": label}}
    if iters:
        comp["podSelector"]["componentInstanceSelector"] = {"idPath": label}
    comments[(role.name, "podSelector")] = [
        "TODO: the pod label that carries this role (and its instance) is not in the CRD; replace TODO/... with it"
    ]
    if scale_notes:
        key = (role.name, "replicasPath") if "scaleDefinition" in comp else (role.name, None)
        comments.setdefault(key, []).extend(scale_notes)
    comments[(role.name, None)] = notes + comments.get((role.name, None), [])
    return comp
