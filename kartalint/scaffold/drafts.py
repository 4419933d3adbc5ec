"""``kartalint new --crd``: drafts of definitions from CRDs.

``drafts_from_crd(path, version)`` drafts one definition per kind of a CRD file (see docs/crd.md
for the rules); ``review(draft)`` is what it found and how sure each guess is. The skeleton
object and its fixture are in ``skeleton``.
"""

from __future__ import annotations

import os
from typing import Any

from kartalint.karta import as_dict
from kartalint.load.crds import CrdIndex, CrdVersion
from kartalint.load.kinds import KARTA_KIND
from kartalint.scaffold.crd_components import crd_component
from kartalint.scaffold.crd_roles import PodBearingFields, pod_bearing_fields
from kartalint.scaffold.crd_schema import Role, jq_path, role_name
from kartalint.scaffold.crd_status import PrinterColumn, StatusDraft, draft_status
from kartalint.scaffold.crd_workload import gang_reason, status_counters, suspend_fields, undocumented_suspends
from kartalint.scaffold.draft_model import Comments, Draft
from kartalint.scaffold.draft_text import header_text, render, review, review_lines
from kartalint.scaffold.skeleton import minimal_object, skeleton_problems

__all__ = ["Draft", "ScaffoldError", "draft_definition", "drafts_from_crd", "render", "review", "review_lines"]


def draft_definition(version: CrdVersion) -> Draft:
    """A definition drafted from one CRD version: its roles become components, its status the
    root's statusDefinition; every guess is commented in the text."""
    schema = version.schema
    fields = pod_bearing_fields(schema)
    root_name = version.kind.lower()
    _name_roles(fields.roles, root_name)
    comments: Comments = {}
    suspends = suspend_fields(schema, version.kind)  # once: a walk of the whole schema
    children = [crd_component(schema, role, fields.roles, root_name, comments, suspends) for role in fields.roles]
    status = root_status(version, root_name, comments, suspends)
    gang = gang_reason(schema, printer_columns(version))
    data = definition_data(version, root_name, status.definition, children, fields.roles, gang)
    text = header_text(header_lines(version, fields, status.notes, gang)) + render(data, comments)
    todo = [f"Status: {line}" for line in status.todo if "TODO" in line]
    return Draft(data["metadata"]["name"], text, data, minimal_object(version, fields.roles), fields.roles, todo=todo)


def _name_roles(roles: list[Role], root_name: str) -> None:
    used = {root_name}
    for role in roles:
        role.name = role_name(role.path, used)


def printer_columns(version: CrdVersion) -> list[PrinterColumn]:
    return [PrinterColumn(*details) for details in version.printer_details]


def root_status(
    version: CrdVersion, root_name: str, comments: Comments, suspends: list[tuple[str, str]]
) -> StatusDraft:
    """The root's drafted status (from the schema and the printer columns), its reasons commented."""
    ready, desired = status_counters(version.schema)
    counters = (ready, desired) if ready and desired else None
    status = draft_status(version.schema, printer_columns(version), suspends, counters)
    for key, why in status.why.items():
        comments[(root_name, key)] = why
    if status.todo:
        comments[(root_name, "statusMappings")] = status.todo
    return status


def definition_data(
    version: CrdVersion,
    root_name: str,
    status: dict[str, Any],
    children: list[dict[str, Any]],
    roles: list[Role],
    gang: str | None,
) -> dict[str, Any]:
    """The Karta document: the root with its status, the children, and a podGroup when the
    workload runs to completion or declares a minimum (``gang``: why) and has more than one pod
    role (or instances); a serving workload gets none."""
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
        if gang and (len(roles) > 1 or any("instanceIdPath" in c for c in children))
        else {}
    )
    return data


def schema_less(schema: dict[str, Any]) -> bool:
    """Whether the CRD declares nothing of its objects (x-kubernetes-preserve-unknown-fields at the
    root or on a ``spec`` without properties, or no schema at all)."""
    props = as_dict(schema.get("properties"))
    spec = as_dict(props.get("spec"))
    return not [k for k in props if k not in ("apiVersion", "kind", "metadata", "status", "spec")] and not as_dict(
        spec.get("properties")
    )


def header_lines(
    version: CrdVersion,
    fields: PodBearingFields,
    status_notes: list[str],
    gang: str | None,
    roles: list[Role] | None = None,
    evidence: list[str] = (),  # type: ignore[assignment]
) -> list[str]:
    """The draft's opening comment: where it comes from (and the objects and pods it was drafted
    from), its roles and what it reads, the status notes, the gang, and each pod-bearing field that
    is not a role, and why."""
    roles = fields.roles if roles is None else roles
    plural = version.kind.lower() + "s"
    header = [
        f"# Draft generated by `kartalint new --crd` from {os.path.basename(version.source)} ({version.kind} {version.group}/{version.version}).",
        "# Every guess is commented; TODO marks what must be confirmed against the operator and real objects.",
        *evidence,
        f"# Roles: {', '.join(r.name for r in roles) or 'none found (TODO: no pod template or pod spec in the CRD schema)'}.",
        f"# Reads: {', '.join(sorted({jq_path(r.path[:2]) for r in roles} | {'.status'}))}.",
    ]
    if schema_less(version.schema):
        header.append(
            "# The CRD has no schema (x-kubernetes-preserve-unknown-fields): it does not say where the pods are, "
            "how many there are or what the status means."
        )
        if not evidence:
            header.append(
                f"# TODO: draft it from real objects and their pods: kubectl get {plural} -A -o yaml > objects.yaml; "
                "kubectl get pods -A -o yaml > pods.yaml; "
                f"kartalint new --crd {os.path.basename(version.source)} --from objects.yaml --from pods.yaml"
            )
    header += [f"# Status: {n}" for n in status_notes]
    header += [
        f"# TODO: {path} is named like a suspend, but the CRD does not say it stops the pods: not drafted as one "
        "(a rollout pause stops none)"
        for path in undocumented_suspends(version.schema, version.kind)
    ]
    if roles and (len(roles) > 1 or any("[]" in r.path or "{}" in r.path for r in roles)):
        header.append(
            f"# Gang: a podGroup, because {gang}."
            if gang
            else "# Gang: none: the CRD shows no completion and declares no minimum (a serving workload is not gang-scheduled)."
        )
    modelled = {r.path for r in roles}
    header += [
        f"# Skipped {jq_path(r.path)}: templates nested in two lists or maps are not modelled (TODO if they are pods of this workload)."
        for r in fields.skipped
        if r.path not in modelled and not evidence
    ]
    header += [
        f"# Not a role: {jq_path(r.path)} is a wrapped resource (x-kubernetes-embedded-resource), not a pod template; "
        "TODO: the CRD does not say where its pods are (no pod sets): add components for them by hand."
        for r in fields.wrapped
        if not evidence
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


class ScaffoldError(Exception):
    """A CRD that cannot be drafted from: the message says why (exit 2)."""

    pass


def chosen_versions(path: str, version: str | None = None) -> list[tuple[CrdVersion, dict[str, Any] | None]]:
    """(the version to draft, its CRD document) per kind in the CRD file: the stored version, or ``version``."""
    index = CrdIndex.from_paths([path])
    if index.problems:
        raise ScaffoldError("; ".join(index.problems))
    kinds: dict[tuple[str, str], list[CrdVersion]] = {}
    for found in index.versions.values():
        kinds.setdefault((found.group, found.kind), []).append(found)
    if not kinds:
        raise ScaffoldError(f"{path}: no CustomResourceDefinition with a schema found")
    documents = index.documents  # read once: a CRD can be megabytes of YAML
    out = []
    for (group, kind), versions in sorted(kinds.items()):
        if version:
            chosen = [v for v in versions if v.version == version]
            if not chosen:
                raise ScaffoldError(
                    f"{kind}.{group} has no version {version} (versions: {', '.join(v.version for v in versions)})"
                )
        else:
            chosen = [v for v in versions if v.storage] or versions[:1]
        crd = next(
            (
                d
                for d in documents
                if as_dict(as_dict(d.get("spec")).get("names")).get("kind") == kind
                and as_dict(d.get("spec")).get("group") == group
            ),
            None,
        )
        out.append((chosen[0], crd))
    return out


def validate_skeleton(draft: Draft, version: CrdVersion, crd: dict[str, Any] | None) -> None:
    """The draft's problems: why its skeleton object is not valid for the CRD (when it has a schema)."""
    if crd is not None and version.schema:  # a version without a schema has nothing to validate against
        draft.problems = skeleton_problems(crd, version.version, draft.fixture_object)


def drafts_from_crd(path: str, version: str | None = None) -> list[Draft]:
    """One draft per kind in the CRD file: the stored version, or ``version``."""
    drafts = []
    for chosen, crd in chosen_versions(path, version):
        draft = draft_definition(chosen)
        validate_skeleton(draft, chosen, crd)
        drafts.append(draft)
    return drafts
