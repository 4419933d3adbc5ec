"""kartalint's own rules on components: their scale (and a parent's count that its pod-bearing
children ignore), pod spec, kind and status definitions, and the workload's additional child kinds; definitions upstream accepts but that misbehave (spec §2.1
"NOT checked")."""

from __future__ import annotations

from collections.abc import Iterator

from kartalint import karta
from kartalint.karta import as_dict
from kartalint.model import Rule, Severity
from kartalint.rules._copies import unmultiplied
from kartalint.rules.context import Check, Context

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The ids of the rules this module reports (constants: a misspelt id is an import error).
EMPTY_SCALE_DEFINITION = "empty-scale-definition"
EMPTY_FRAGMENTED_SPEC = "empty-fragmented-spec"
METADATA_WITHOUT_POD_SPEC = "metadata-without-pod-spec"
DUPLICATE_ADDITIONAL_KIND = "duplicate-additional-kind"
ADDITIONAL_KIND_OVERLAPS_COMPONENT = "additional-kind-overlaps-component"
CHILD_STATUS_DEFINITION = "child-status-definition"
CHILD_INCOMPLETE_KIND = "child-incomplete-kind"
PARENT_SCALE_NOT_MULTIPLIED = "parent-scale-not-multiplied"


# The rules this module reports (the registry finds them; docs/rules.md renders them).
RULES = (
    Rule(
        EMPTY_SCALE_DEFINITION,
        Severity.ERROR,
        "practice",
        "scaleDefinition is empty, so replica extraction always fails (0 results for 1 instance).",
        "set replicasPath (or remove scaleDefinition)",
        why="An empty scaleDefinition yields no replica count, so replica extraction fails for every object.",
    ),
    Rule(
        EMPTY_FRAGMENTED_SPEC,
        Severity.ERROR,
        "practice",
        "fragmentedPodSpecDefinition is empty, so pod spec extraction always fails.",
        "set at least one fragmented path, or remove the block",
        why="An empty fragmentedPodSpecDefinition locates nothing, so pod spec extraction fails for every object.",
    ),
    Rule(
        METADATA_WITHOUT_POD_SPEC,
        Severity.WARNING,
        "practice",
        "metadataPath is meant to be used with podSpecPath only.",
        "use metadataPath together with podSpecPath",
        why="metadataPath completes a podSpecPath (a bare pod spec); a pod template already carries its metadata.",
    ),
    Rule(
        DUPLICATE_ADDITIONAL_KIND,
        Severity.WARNING,
        "practice",
        "additionalChildKinds repeats a group/version/kind.",
        "remove the duplicate entry",
        why="A repeated entry adds nothing and hides a missing one (usually a copy that was meant to be edited).",
    ),
    Rule(
        ADDITIONAL_KIND_OVERLAPS_COMPONENT,
        Severity.WARNING,
        "practice",
        "additionalChildKinds repeats a kind already used by a component.",
        "remove the entry; components' kinds are already known",
        why="Components' kinds are already part of the workload; listing one again as additional is noise that can hide a missing kind.",
    ),
    Rule(
        CHILD_STATUS_DEFINITION,
        Severity.WARNING,
        "practice",
        "statusDefinition on a child component is ignored by every consumer.",
        "move the status definition to the root component",
        why="Only the root's statusDefinition is read by consumers; a child's is ignored, so what it says never shows.",
    ),
    Rule(
        CHILD_INCOMPLETE_KIND,
        Severity.WARNING,
        "practice",
        "A child component's kind has an empty version or kind.",
        "fill in kind.version and kind.kind, or remove kind for a logical component",
        why="A child kind with an empty version or kind matches no object, so the component never finds its resources.",
    ),
    Rule(
        PARENT_SCALE_NOT_MULTIPLIED,
        Severity.WARNING,
        "practice",
        "A component whose scaleDefinition can give more than 1 replica (a whole template replicated) has pod-bearing descendants whose replicas do not read that count: consumers add the children's totals once and never multiply them by the parent's replicas.",
        "multiply in the child (its replicasPath reads the parent's count, as the catalog's LeaderWorkerSet does) and keep the count out of the parent's scaleDefinition",
        why="describe, kli and KAI add a parent's children once, whatever its replicas (docs/parity.md): a workload that runs 2 copies of a 5-pod template is shown as 5 pods with half its GPUs, and quotas, dashboards and the scheduler count that.",
    ),
)


def parent_scale_not_multiplied(ctx: Context) -> None:
    """A pod-bearing descendant whose replicas ignore its parent's count of copies."""
    for found in unmultiplied(ctx.data):
        child, parent = found.child, found.parent
        child_scale = as_dict(child.data.get("scaleDefinition"))
        where = (
            (*child.path, "scaleDefinition", "replicasPath")
            if isinstance(child_scale.get("replicasPath"), str)
            else (*child.path, "name")
        )
        own = child_scale.get("replicasPath") if isinstance(child_scale.get("replicasPath"), str) else "1"
        ctx.report(
            PARENT_SCALE_NOT_MULTIPLIED,
            where,
            f"'{parent.name}' can run several copies of '{child.name}' ({found.field}: {found.expression}), but the "
            f"replicas of '{child.name}' do not read {' or '.join(found.reads)}: consumers add '{child.name}' once, "
            f"never times the replicas of '{parent.name}', so describe, kli and the scheduler show the pods and GPUs of one copy",
            hint=f"multiply in the child: replicasPath: ({found.expression}) * ({own}), as the catalog's LeaderWorkerSet "
            f"does, and remove the scaleDefinition of '{parent.name}' (the gang minimum multiplies by it again)",
        )


def child_status_definition(ctx: Context) -> None:
    """A statusDefinition on a child component, which every consumer ignores."""
    for comp in karta.components(ctx.data):
        if not comp.is_root and comp.data.get("statusDefinition") is not None:
            ctx.report(
                CHILD_STATUS_DEFINITION,
                (*comp.path, "statusDefinition"),
                f"statusDefinition on child component '{comp.data.get('name')}' is ignored: only the root's is used",
                key=True,
            )


def child_incomplete_kind(ctx: Context) -> None:
    """A child component's kind with an empty version or kind."""
    for comp in karta.components(ctx.data):
        gvk = karta.gvk_of(comp.data["kind"]) if isinstance(comp.data.get("kind"), dict) else None
        if not comp.is_root and gvk is not None and (not gvk[1] or not gvk[2]):
            ctx.report(
                CHILD_INCOMPLETE_KIND,
                (*comp.path, "kind"),
                f"kind of child component '{comp.data.get('name')}' has an empty version or kind",
                key=True,
            )


def empty_scale_definition(ctx: Context) -> None:
    """A scaleDefinition without a path: replica extraction always fails."""
    for comp in karta.components(ctx.data):
        scale = comp.data.get("scaleDefinition")
        if isinstance(scale, dict) and not any(
            isinstance(scale.get(k), str) and scale.get(k) for k in karta.SCALE_PATHS
        ):
            ctx.report(
                EMPTY_SCALE_DEFINITION,
                (*comp.path, "scaleDefinition"),
                f"scaleDefinition of '{comp.data.get('name')}' has no path: replica extraction always fails "
                "(instance ids count (1) does not match results count (0))",
                key=True,
            )


def empty_fragmented_spec(ctx: Context) -> None:
    """A fragmentedPodSpecDefinition without a path: pod spec extraction always fails."""
    for comp in karta.components(ctx.data):
        frag = as_dict(comp.data.get("specDefinition")).get("fragmentedPodSpecDefinition")
        if isinstance(frag, dict) and not any(
            isinstance(frag.get(k), str) and frag.get(k) for k in karta.FRAGMENTED_PATHS
        ):
            ctx.report(
                EMPTY_FRAGMENTED_SPEC,
                (*comp.path, "specDefinition", "fragmentedPodSpecDefinition"),
                f"fragmentedPodSpecDefinition of '{comp.data.get('name')}' has no path: pod spec extraction always fails",
                key=True,
            )


def metadata_without_pod_spec(ctx: Context) -> None:
    """A metadataPath without the podSpecPath it completes."""
    for comp in karta.components(ctx.data):
        spec = as_dict(comp.data.get("specDefinition"))
        if spec.get("metadataPath") and not spec.get("podSpecPath"):
            ctx.report(
                METADATA_WITHOUT_POD_SPEC,
                (*comp.path, "specDefinition", "metadataPath"),
                "metadataPath is only meaningful together with podSpecPath",
                key=True,
            )


def _additional_kinds(ctx: Context) -> Iterator[tuple[tuple[str, str, str], tuple]]:
    """Each group/version/kind of additionalChildKinds, with its path."""
    kinds = karta.structure(ctx.data).get("additionalChildKinds")
    for i, entry in enumerate(kinds if isinstance(kinds, list) else []):
        gvk = karta.gvk_of(entry)
        if gvk is not None:
            yield gvk, ("spec", "structureDefinition", "additionalChildKinds", i)


def duplicate_additional_kind(ctx: Context) -> None:
    """An additionalChildKinds entry that repeats another."""
    seen: dict[tuple[str, str, str], int] = {}
    for gvk, path in _additional_kinds(ctx):
        if gvk in seen:
            ctx.report(
                DUPLICATE_ADDITIONAL_KIND,
                path,
                f"additionalChildKinds repeats {_show(gvk)} (also at index {seen[gvk]})",
            )
        else:
            seen[gvk] = path[-1]


def additional_kind_overlaps_component(ctx: Context) -> None:
    """An additionalChildKinds entry that is already a component's kind."""
    component_kinds: dict[tuple[str, str], Any] = {}
    for comp in karta.components(ctx.data):
        gvk = karta.gvk_of(comp.data.get("kind"))
        if gvk is not None:
            component_kinds.setdefault((gvk[0], gvk[2]), comp.data.get("name"))
    for gvk, path in _additional_kinds(ctx):
        owner = component_kinds.get((gvk[0], gvk[2]))
        if owner is not None:
            ctx.report(
                ADDITIONAL_KIND_OVERLAPS_COMPONENT,
                path,
                f"additionalChildKinds lists {_show(gvk)}, already the kind of component '{owner}'",
            )


def _show(gvk: tuple) -> str:
    group, version, kind = gvk
    return f"{group}/{version}/{kind}" if group else f"{version}/{kind}"


# One check per rule, in the order of RULES.
CHECKS = tuple(
    Check((rule_id,), run)
    for rule_id, run in (
        (EMPTY_SCALE_DEFINITION, empty_scale_definition),
        (EMPTY_FRAGMENTED_SPEC, empty_fragmented_spec),
        (METADATA_WITHOUT_POD_SPEC, metadata_without_pod_spec),
        (DUPLICATE_ADDITIONAL_KIND, duplicate_additional_kind),
        (ADDITIONAL_KIND_OVERLAPS_COMPONENT, additional_kind_overlaps_component),
        (CHILD_STATUS_DEFINITION, child_status_definition),
        (CHILD_INCOMPLETE_KIND, child_incomplete_kind),
        (PARENT_SCALE_NOT_MULTIPLIED, parent_scale_not_multiplied),
    )
)
