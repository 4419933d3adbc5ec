"""Gang scheduling as KAI Scheduler's Karta grouper computes it (spec §3.8).

``subtree_scale`` is upstream's ``CalculateSubtreeScale``. ``describe`` returns the gang part of
the view: for ``podGroup`` (preferred when both shapes are set) the group name, minAvailable,
minSubGroup, topology and sub-groups; for the deprecated ``podGroups`` every member's
minAvailable and, when pods are given, each pod's group.
"""

from __future__ import annotations

import re
from typing import Any

from kartalint.evaluation import values as convert
from kartalint.evaluation.gang_view import POD_GROUP, POD_GROUPS, GangView, Group, Member, PodAssignment, SubGroup
from kartalint.evaluation.pods import (
    PodRecord,
    SelectorError,
    infer_component,
    infer_instance,
    pod_results,
    type_selector_matches,
)
from kartalint.evaluation.view import Component, WorkloadView
from kartalint.karta import as_dict, as_list, gang_scheduling

PREFIX = "pg"
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


class GangError(Exception):
    """A gang minimum that cannot be computed: the component tree is too deep or cyclic, or an instance
    id does not exist."""


def subtree_scale(
    view: WorkloadView, any_scale: bool, comp: Component, instance: str | None = None, depth: int = 0
) -> int:
    """Upstream's ``CalculateSubtreeScale``: how many pods the subtree of ``comp`` (of its
    ``instance``, when given) needs at least. When any component has a ``scaleDefinition``
    (``any_scale``): the component's own gang minimum (``Scale.gang_minimum``, summed over its
    instances) times its children's sum, or whichever of the two is not 0; otherwise 1 per named
    instance of a pod-bearing component (at least 1), else the children's sum. ``GangError`` past 64
    levels or for an unknown instance."""
    if depth > 64:
        raise GangError("component tree is too deep or cyclic")
    if any_scale:
        if instance is not None:
            match = [i for i in comp.instances if i.id == instance]
            if not match:
                raise GangError(f"instance id {instance} not found")
            own = match[0].scale.gang_minimum if match[0].scale else 0
        else:
            own = sum(i.scale.gang_minimum if i.scale else 0 for i in comp.instances)
        if not comp.children:
            return own
        children = sum(subtree_scale(view, any_scale, c, None, depth + 1) for c in comp.children)
        if children == 0:
            return own
        if own == 0:
            return children
        return own * children
    if comp.has_pod_definition:
        if instance is not None:
            return 1
        return len([i for i in comp.instances if i.id]) or 1
    return sum(subtree_scale(view, any_scale, c, None, depth + 1) for c in comp.children)


def _uid(obj: Any) -> str:
    uid = as_dict(as_dict(obj).get("metadata")).get("uid")
    return uid if isinstance(uid, str) and uid else "<uid>"


def _descendants(comp: Component, depth: int = 0) -> list[Component]:
    out = [comp]
    if depth < 64:
        for child in comp.children:
            out.extend(_descendants(child, depth + 1))
    return out


class PodGroupPlan:
    """A ``podGroup`` (v2) as the definition writes it, read once: the name suffix, the topologies
    (a copy goes into each view) with the problem each has, and per sub-group the index of the
    component it names (None when no component has that name)."""

    __slots__ = ("data_by_name", "entries", "suffix", "topology", "topology_error")

    def __init__(self, group: dict[str, Any], prepared: Any) -> None:
        """The plan of ``group`` for the definition ``prepared`` (its components)."""
        suffix = group.get("name")
        self.suffix: str = suffix if isinstance(suffix, str) else ""
        self.topology, self.topology_error = _topology(group.get("topology"), "podGroup")
        first: dict[str, int] = {}
        for index, ref in enumerate(prepared.components):
            name = ref.data.get("name")
            first.setdefault(name if isinstance(name, str) else "", index)
        self.entries: list[tuple[Any, dict[str, Any] | None, str | None, int | None]] = []
        for entry in as_list(group.get("subGroups")):
            entry = as_dict(entry)
            name = entry.get("componentName")
            topology, problem = _topology(entry.get("topology"), f"subGroup {name}")
            self.entries.append((name, topology, problem, first.get(name) if isinstance(name, str) and name else None))
        # the components' data by name, for placing pods (only a string name is ever looked up)
        self.data_by_name = {
            name: ref.data for ref in prepared.components if isinstance(name := ref.data.get("name"), str)
        }


def plan(prepared: Any) -> PodGroupPlan | list[Any] | None:
    """What the definition's ``gangScheduling`` asks for: a ``PodGroupPlan`` for its ``podGroup``
    (preferred when both are set), else its ``podGroups`` list, else None (no gang)."""
    gs = gang_scheduling(prepared.data)
    if isinstance(gs.get("podGroup"), dict):
        return PodGroupPlan(gs["podGroup"], prepared)
    return as_list(gs.get("podGroups")) or None


def describe(view: WorkloadView, prepared: Any, obj: Any, records: list[PodRecord] | None = None) -> GangView | None:
    """The gang part of ``view``, or None when the definition schedules no gang: its ``podGroup`` when
    set (even when ``podGroups`` is set too), else its ``podGroups``. ``obj``'s uid is part of the
    PodGroup's name; ``records`` (when pods were given) place each pod in a sub-group or group."""
    gang_plan = prepared.gang_plan
    if gang_plan is None:
        return None
    if isinstance(gang_plan, PodGroupPlan):
        return _pod_group(view, prepared, obj, gang_plan, records)
    return _pod_groups(view, prepared, obj, gang_plan, records)


def _topology(value: Any, where: str) -> tuple[dict[str, Any] | None, str | None]:
    """A topology as the view shows it (None when not set), and what is wrong with it."""
    if value is None:
        return None, None
    topology = as_dict(value)
    if not topology.get("topologyName") or not (
        topology.get("preferredTopologyLevel") or topology.get("requiredTopologyLevel")
    ):
        return dict(topology), (
            f"{where}: topology needs a topologyName and at least one of preferredTopologyLevel/requiredTopologyLevel"
        )
    return dict(topology), None


def _pod_group(
    view: WorkloadView, prepared: Any, obj: Any, group: PodGroupPlan, records: list[PodRecord] | None
) -> GangView:
    errors: list[str] = [group.topology_error] if group.topology_error else []
    result = GangView(
        POD_GROUP,
        errors,
        f"{PREFIX}-{_uid(obj)}-{group.suffix}",
        group.suffix,
        None if group.topology is None else dict(group.topology),
    )
    sub_groups = []
    for name, topology, problem, index in group.entries:
        item = SubGroup(name, None, None if topology is None else dict(topology))
        if problem:
            errors.append(problem)
        comp = view.components[index] if index is not None and index < len(view.components) else None
        if comp is None:
            errors.append(f"subGroup component {name!r} does not exist")
        else:
            try:
                item.min_available = subtree_scale(view, prepared.any_scale, comp)
                if item.min_available <= 0:
                    errors.append(f"component {name} must expose a replica scale definition")
            except GangError as exc:
                errors.append(f"subGroup {name}: {exc}")
            if records is not None:
                members = _descendants(comp)
                data_by_name = group.data_by_name
                item.pods = [r.name for r in records if any(_matches(data_by_name.get(c.name, {}), r) for c in members)]
        sub_groups.append(item)
    if sub_groups:
        result.min_available, result.min_sub_group, result.sub_groups = 0, len(sub_groups), sub_groups
    else:
        try:
            result.min_available = subtree_scale(view, prepared.any_scale, view.root) if view.root else 0
        except GangError as exc:
            errors.append(str(exc))
    return result


def _matches(data: dict[str, Any], record: PodRecord) -> bool:
    try:
        return bool(type_selector_matches(data, record))
    except SelectorError:
        return False


def _ancestors(view: WorkloadView, name: str) -> list[str]:
    out, seen = [], set()
    comp = view.component(name)
    while comp is not None and comp.owner and comp.owner not in seen:
        seen.add(comp.owner)
        out.append(comp.owner)
        comp = view.component(comp.owner)
    return out


def _pod_groups(
    view: WorkloadView, prepared: Any, obj: Any, groups: list[Any], records: list[PodRecord] | None
) -> GangView:
    errors: list[str] = []
    out_groups: list[Group] = []
    members_by_component: dict[str, list[dict[str, Any]]] = {}
    for group in groups:
        group = as_dict(group)
        members: list[Member] = []
        for member in as_list(group.get("members")):
            member = as_dict(member)
            name = member.get("componentName")
            comp = view.component(name) if isinstance(name, str) else None
            entry = Member(name)
            if comp is None:
                errors.append(f"member component {name!r} does not exist")
            else:
                try:
                    entry.min_available = subtree_scale(view, prepared.any_scale, comp)
                    if comp.multi_instance:
                        entry.instances = {
                            i.id: subtree_scale(view, prepared.any_scale, comp, i.id) for i in comp.instances
                        }
                except GangError as exc:
                    errors.append(f"member {name}: {exc}")
            members.append(entry)
            if isinstance(name, str):
                members_by_component.setdefault(name, []).append({"group": group.get("name"), "member": member})
        out_groups.append(Group(group.get("name"), members))
    result = GangView(POD_GROUPS, errors, groups=out_groups)
    if records is not None:
        result.pods = [_alpha_pod(view, prepared, obj, r, members_by_component) for r in records]
    return result


def _alpha_pod(
    view: WorkloadView,
    prepared: Any,
    obj: Any,
    record: PodRecord,
    members_by_component: dict[str, list[dict[str, Any]]],
) -> PodAssignment:
    out = PodAssignment(record.name)
    try:
        component = infer_component(prepared, record)
        candidates = [(component, m) for m in members_by_component.get(component, [])]
        for ancestor in _ancestors(view, component):
            candidates.extend((ancestor, m) for m in members_by_component.get(ancestor, []))
        chosen = None
        for owner, candidate in candidates:
            filters = as_list(candidate["member"].get("filters"))
            if all(_filter_true(f, record) for f in filters):
                chosen = (owner, candidate)
                break
        if chosen is None:
            raise SelectorError(f"pod {record.name} does not match any Karta pod group member definition")
        owner, candidate = chosen
        comp = view.component(owner)
        data: dict[str, Any] = next((ref.data for ref in prepared.components if ref.data.get("name") == owner), {})
        instance = infer_instance(comp, data, record) if owner == component and comp is not None else None
        keys = [_single(record, k) for k in as_list(candidate["member"].get("groupByKeyPaths"))]
        name = f"{PREFIX}-{_uid(obj)}" + ("-" + "-".join(keys) if keys else "")
        if keys and not _DNS_SUBDOMAIN.match(name):
            raise SelectorError(f"pod group name {name!r} is not a valid DNS-1123 subdomain")
        minimum = subtree_scale(view, prepared.any_scale, comp, instance) if comp else None
        return PodAssignment(record.name, component, owner, candidate["group"], instance, name, minimum)
    except (SelectorError, GangError, convert.ConversionError) as exc:
        out.error = str(exc)
    return out


def _single(record: PodRecord, expression: Any) -> str:
    if not isinstance(expression, str) or not expression:
        raise SelectorError("empty jq expression")
    return convert.single_result(pod_results(record, expression))


def _filter_true(expression: Any, record: PodRecord) -> bool:
    """A member filter holds when it yields exactly one value, ``true`` (errors: it does not)."""
    if not isinstance(expression, str):
        return False
    try:
        results = pod_results(record, expression)
    except SelectorError:
        return False
    return len(results) == 1 and results[0] is True
