"""KAI Scheduler readiness of ``optimizationInstructions.gangScheduling.podGroup`` (v2 shape).

Upstream's validator does not check ``podGroup`` at all; KAI fails or silently degrades to
MinAvailable=1 on the problems below (spec §3.8, toolkit notes §3).
"""

from __future__ import annotations

from kartalint import karta
from kartalint.karta import as_dict
from kartalint.model import Rule, Severity
from kartalint.rules.context import Check, Context

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The ids of the rules this module reports (constants: a misspelt id is an import error).
GANG_UNKNOWN_SUBGROUP_COMPONENT = "gang-unknown-subgroup-component"
GANG_SUBGROUP_WITHOUT_SCALE = "gang-subgroup-without-scale"
GANG_SUBGROUP_WITHOUT_SELECTOR = "gang-subgroup-without-selector"
GANG_TOPOLOGY_INCOMPLETE = "gang-topology-incomplete"


# The rules this module reports (collected by kartalint.rules.registry; docs/rules.md renders them).
RULES = (
    Rule(
        GANG_UNKNOWN_SUBGROUP_COMPONENT,
        Severity.ERROR,
        "gang",
        "podGroup.subGroups names a component that does not exist (upstream does not check; KAI fails).",
        "name an existing component",
        why="KAI Scheduler builds a sub-group per named component; a name that is not a component makes the pod group fail (upstream does not check it).",
    ),
    Rule(
        GANG_SUBGROUP_WITHOUT_SCALE,
        Severity.ERROR,
        "gang",
        "A podGroup sub-group component (and its subtree) has no scaleDefinition; KAI requires a minimum above 0.",
        "add scaleDefinition.replicasPath to the component",
        why="KAI needs each sub-group's minimum from the component's replicas; without a scaleDefinition in its subtree the minimum is 0 and KAI refuses the group.",
    ),
    Rule(
        GANG_SUBGROUP_WITHOUT_SELECTOR,
        Severity.WARNING,
        "gang",
        "A podGroup sub-group component and its descendants have no componentTypeSelector, so no pod is ever placed in the sub-group.",
        "add podSelector.componentTypeSelector",
        why="Pods join a sub-group through their component's selector; without one no pod ever joins and the gang waits forever.",
    ),
    Rule(
        GANG_TOPOLOGY_INCOMPLETE,
        Severity.ERROR,
        "gang",
        "A topology constraint needs a topologyName and at least one of preferredTopologyLevel and requiredTopologyLevel.",
        "set topologyName and a topology level",
        why="KAI needs a topology name and a level to place a gang; with either missing the constraint is ignored or the group fails.",
    ),
)


def check(ctx: Context) -> None:
    """The gang rules on the definition's gangScheduling (pod groups, subgroups, topology)."""
    gang = karta.gang_scheduling(ctx.data)
    group = gang.get("podGroup")
    if not isinstance(group, dict):
        return
    base = ("spec", "optimizationInstructions", "gangScheduling", "podGroup")
    comps = {c.name: c for c in karta.components(ctx.data) if isinstance(c.name, str)}
    children: dict[str, list[str]] = {}
    for comp in comps.values():
        owner = comp.data.get("ownerRef")
        if not comp.is_root and isinstance(owner, str):
            children.setdefault(owner, []).append(comp.name)
    any_scale = any(isinstance(c.data.get("scaleDefinition"), dict) for c in comps.values())
    _topology(ctx, group.get("topology"), (*base, "topology"))
    subgroups = group.get("subGroups")
    for i, sub in enumerate(subgroups if isinstance(subgroups, list) else []):
        if not isinstance(sub, dict):
            continue
        spath = (*base, "subGroups", i)
        name = sub.get("componentName")
        _topology(ctx, sub.get("topology"), (*spath, "topology"))
        if isinstance(name, (list, dict)):
            continue  # not a name at all: the schema's type finding says so
        if name not in comps:
            ctx.report(
                GANG_UNKNOWN_SUBGROUP_COMPONENT,
                (*spath, "componentName"),
                f"sub-group component '{name}' is not defined (KAI: the pod group cannot be built)",
            )
            continue
        subtree = _subtree(name, children)
        if not _may_have_minimum(subtree, comps, any_scale):
            ctx.report(
                GANG_SUBGROUP_WITHOUT_SCALE,
                (*spath, "componentName"),
                f"component {name} must expose a replica scale definition: its sub-group minimum is always 0",
            )
        if not any(as_dict(as_dict(comps[n].data.get("podSelector")).get("componentTypeSelector")) for n in subtree):
            ctx.report(
                GANG_SUBGROUP_WITHOUT_SELECTOR,
                (*spath, "componentName"),
                f"neither '{name}' nor its descendants have podSelector.componentTypeSelector: no pod joins this sub-group",
            )


def _subtree(name: str, children: dict[str, list[str]]) -> list[str]:
    out, stack = [], [name]
    while stack:
        current = stack.pop()
        if current in out:
            continue
        out.append(current)
        stack.extend(children.get(current, []))
    return out


def _may_have_minimum(subtree: list[str], comps: dict[str, Any], any_scale: bool) -> bool:
    if any_scale:
        return any(
            any(as_dict(comps[n].data.get("scaleDefinition")).get(k) for k in ("replicasPath", "minReplicasPath"))
            for n in subtree
        )
    # Without any scale definition, the minimum counts pod-defining leaves.
    return any(
        any(
            as_dict(comps[n].data.get("specDefinition")).get(k) is not None
            for k in ("podTemplateSpecPath", "podSpecPath", "fragmentedPodSpecDefinition")
        )
        for n in subtree
    )


def _topology(ctx: Context, topology: Any, path: tuple) -> None:
    if not isinstance(topology, dict):
        return
    if not topology.get("topologyName"):
        ctx.report(GANG_TOPOLOGY_INCOMPLETE, path, "topology has no topologyName", key=True)
    if not topology.get("preferredTopologyLevel") and not topology.get("requiredTopologyLevel"):
        ctx.report(
            GANG_TOPOLOGY_INCOMPLETE, path, "topology needs preferredTopologyLevel or requiredTopologyLevel", key=True
        )


CHECKS = (Check(tuple(rule.id for rule in RULES), check),)
