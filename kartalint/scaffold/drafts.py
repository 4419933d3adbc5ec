"""``kartalint new --crd``: drafts of definitions from CRDs.

``drafts_from_crd(path, version)`` drafts one definition per kind of a CRD file (see docs/crd.md
for the rules); ``review(draft)`` is what it found and how sure each guess is. The skeleton
object and its fixture are in ``skeleton``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import Any

import yaml

from kartalint.karta import as_dict
from kartalint.load.crds import CrdIndex, CrdVersion
from kartalint.load.kinds import KARTA_KIND
from kartalint.scaffold.crd_roles import (
    PodBearingFields,
    fragments,
    pod_bearing_fields,
    pod_set_paths,
    status_pod_sets,
)
from kartalint.scaffold.crd_schema import (
    Role,
    comment_text,
    count_default,
    count_factors,
    identifier_field,
    jq_path,
    required_of,
    role_name,
    schema_at,
    text_of,
)
from kartalint.scaffold.crd_status import PrinterColumn, StatusDraft, draft_status, suspend_fields
from kartalint.scaffold.fixture import QuotingDumper
from kartalint.scaffold.skeleton import minimal_object, skeleton_problems

Comments = dict[tuple[str, str | None], list[str]]  # (component, field or None) -> comment lines
SUPPRESS_BUILT = (
    "kartalint: disable=not-assignable-path -- built from the role's fields: consumers read it; "
    "a write-back goes to the fields themselves"
)


@dataclass
class Draft:
    name: str
    text: str
    data: dict[str, Any]
    fixture_object: dict[str, Any]
    roles: list[Role] = dc_field(default_factory=list)
    problems: list[str] = dc_field(default_factory=list)  # why the skeleton object is not valid for its CRD
    todo: list[str] = dc_field(default_factory=list)  # the status TODOs written inside statusMappings


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


def _component(
    schema: dict[str, Any],
    role: Role,
    roles: list[Role],
    root_name: str,
    comments: Comments,
    suspends: list[tuple[str, str]],
) -> dict[str, Any]:
    comp: dict[str, Any] = {
        "name": role.name,
        "kind": {"group": "", "version": "v1", "kind": "Pod"},
        "ownerRef": root_name,
    }
    what = {"template": "pod template", "podspec": "pod spec", "podsets": "pod sets of a wrapped resource"}
    notes = [f"{what.get(role.shape, 'pod fields')} found at {jq_path(role.path)}"]
    if role.shape in ("template", "podspec", "fields"):
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
            scale = {"replicasPath": f"{prefix}{' * '.join(factors)}" if iters else " * ".join(factors)}
            scale.update({k: (f"{prefix}{v}" if iters else v) for k, v in bounds.items()})
            comp["scaleDefinition"] = scale
            notes.append(
                "replicas: "
                + " * ".join(factors)
                + " (an absent count: the CRD's default, else its description's, else 1)"
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


def draft_definition(version: CrdVersion) -> Draft:
    """A definition drafted from one CRD version: its roles become components, its status the
    root's statusDefinition; every guess is commented in the text."""
    schema = version.schema
    fields = pod_bearing_fields(schema)
    root_name = version.kind.lower()
    _name_roles(fields.roles, root_name)
    comments: Comments = {}
    suspends = suspend_fields(schema)  # once: a walk of the whole schema
    children = [_component(schema, role, fields.roles, root_name, comments, suspends) for role in fields.roles]
    status = _root_status(version, root_name, comments)
    data = _definition_data(version, root_name, status.definition, children, fields.roles)
    text = "\n".join(comment_text(line) for line in _header(version, fields, status.notes)) + "\n---\n"
    text += render(data, comments)
    todo = [f"Status: {line}" for line in status.todo if "TODO" in line]
    return Draft(data["metadata"]["name"], text, data, minimal_object(version, fields.roles), fields.roles, todo=todo)


def _name_roles(roles: list[Role], root_name: str) -> None:
    used = {root_name}
    for role in roles:
        role.name = role_name(role.path, used)


def _root_status(version: CrdVersion, root_name: str, comments: Comments) -> StatusDraft:
    """The root's drafted status (from the schema and the printer columns), its reasons commented."""
    status = draft_status(version.schema, [PrinterColumn(*details) for details in version.printer_details])
    for key, why in status.why.items():
        comments[(root_name, key)] = why
    if status.todo:
        comments[(root_name, "statusMappings")] = status.todo
    return status


def _definition_data(
    version: CrdVersion, root_name: str, status: dict[str, Any], children: list[dict[str, Any]], roles: list[Role]
) -> dict[str, Any]:
    """The Karta document: the root with its status, the children, and a podGroup when there is
    more than one pod role (or instances)."""
    name = f"{(version.group or 'core').replace('.', '-')}-{version.kind.lower()}-{version.version}"
    root: dict[str, Any] = {
        "name": root_name,
        "kind": {"group": version.group, "version": version.version, "kind": version.kind},
        "statusDefinition": status,
    }
    data: dict[str, Any] = {
        "apiVersion": "run.ai/v1alpha1",
        "kind": KARTA_KIND,
        "metadata": {"name": name},
        "spec": {"structureDefinition": {"rootComponent": root}},
    }
    if children:
        data["spec"]["structureDefinition"]["childComponents"] = children
    data["spec"]["optimizationInstructions"] = (
        {"gangScheduling": {"podGroup": {"name": root_name}}}
        if (len(roles) > 1 or any("instanceIdPath" in c for c in children))
        else {}
    )
    return data


def _header(version: CrdVersion, fields: PodBearingFields, status_notes: list[str]) -> list[str]:
    """The draft's opening comment: where it comes from, its roles and what it reads, then the
    status notes and each pod-bearing field that is not a role, and why."""
    roles = fields.roles
    header = [
        f"# Draft generated by `kartalint new --crd` from {os.path.basename(version.source)} ({version.kind} {version.group}/{version.version}).",
        "# Every guess is commented; TODO marks what must be confirmed against the operator and real objects.",
        f"# Roles: {', '.join(r.name for r in roles) or 'none found (TODO: no pod template or pod spec in the CRD schema)'}.",
        f"# Reads: {', '.join(sorted({jq_path(r.path[:2]) for r in roles} | {'.status'}))}.",
    ]
    header += [f"# Status: {n}" for n in status_notes]
    header += [
        f"# Skipped {jq_path(r.path)}: templates nested in two lists or maps are not modelled (TODO if they are pods of this workload)."
        for r in fields.skipped
    ]
    header += [
        f"# Not a role: {jq_path(r.path)} is a wrapped resource (x-kubernetes-embedded-resource), not a pod template; "
        "TODO: the CRD does not say where its pods are (no pod sets): add components for them by hand."
        for r in fields.wrapped
    ]
    header += [
        f"# Not a role: {jq_path(r.path)} is a template library (entries referenced by name from the roles)."
        for r in fields.libraries
    ]
    header += [
        f"# Not a role: {jq_path(r.path)} is a base template beside the role templates (the operator merges it into them; "
        "TODO: read it with `*` where a role's own template leaves fields out)."
        for r in fields.bases
    ]
    if not roles:
        header.append("# TODO: no pod-bearing field was found; add components by hand.")
    return header


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
                if role.note and role.shape in ("template", "podspec")
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
        ]
        + draft.todo,
        "problems": list(draft.problems),
    }


def review_lines(draft: Draft, crd_path: str) -> list[str]:
    """The review report of `new --crd` and `init --crd`: the roles found, where, how sure, and replicas."""
    lines = [f"{draft.name}: {len(draft.roles)} role(s) found in {crd_path}"]
    for role in review(draft)["roles"]:
        lines.append(f"  {role['name']:<16} {role['path']:<44} {role['confidence']:<26} replicas: {role['replicas']}")
    return lines


_CHILD = "      - name: "  # an entry of childComponents (sequences are indented under their key)


def render(data: dict[str, Any], comments: Comments) -> str:
    """The definition as YAML (expressions on one line each) with ``comments`` above the lines
    they explain: a component's first line, or a field inside its block."""
    text = yaml.dump(
        data, Dumper=QuotingDumper, sort_keys=False, default_flow_style=False, allow_unicode=True, width=4096
    )
    lines = text.splitlines(keepends=True)
    blocks: dict[str, tuple[int, int]] = {}
    starts = []
    for i, line in enumerate(lines):
        if line.startswith("    rootComponent:"):
            starts.append((i, str(as_dict(data["spec"]["structureDefinition"]["rootComponent"]).get("name"))))
        elif line.startswith(_CHILD):
            starts.append((i, line[len(_CHILD) :].strip().strip("'\"")))
        elif not line.startswith("    ") and starts:
            starts.append((i, ""))
    for (start, name), (end, _) in zip(starts, [*starts[1:], (len(lines), "")], strict=True):
        if name:
            blocks.setdefault(name, (start, end))
    inserts = []
    for (name, key), notes in comments.items():
        if name not in blocks or not notes:
            continue
        start, end = blocks[name]
        index, indent = (start, _CHILD[: -len("- name: ")]) if key is None else (None, "")
        for i in range(start, end) if key is not None else ():
            stripped = lines[i].lstrip(" ")
            if stripped.startswith((f"{key}:", f"- {key}:")):
                index, indent = i, lines[i][: len(lines[i]) - len(stripped)]
                break
        if index is not None:
            inserts.append((index, indent, notes))
    above: dict[int, list[str]] = {}  # line index -> the comment lines above it, in one pass (linear)
    for index, indent, notes in inserts:  # at one line, the last given comes first
        above[index] = [f"{indent}# {comment_text(note)}\n" for note in notes] + above.get(index, [])
    return "".join(part for i, line in enumerate(lines) for part in (*above.get(i, ()), line))


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
    documents = index.documents  # read once: a CRD can be megabytes of YAML
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
