"""Upstream validator parity (spec §2.1): the rules ``KartaValidator.Validate`` enforces.

Unlike upstream, every problem is reported in one run (no short-circuit), each at its own place.
Messages follow upstream's wording so that they can be matched with ``kli validate`` output.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional

from .. import karta
from . import Context

_LABEL_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def _name(comp: Dict[str, Any]) -> Optional[str]:
    name = comp.get("name")
    return name if isinstance(name, str) else None


def _nonempty_str(value: Any) -> bool:
    return isinstance(value, str) and value != ""


def check(ctx: Context) -> None:
    comps = karta.components(ctx.data)
    _names(ctx, comps)
    names = {_name(c.data) for c in comps if _name(c.data)}
    for comp in comps:
        if comp.is_root:
            _root(ctx, comp)
        else:
            _child(ctx, comp, names)
        _component(ctx, comp)
    _cycles(ctx, comps)
    _gang_members(ctx, names)


def _names(ctx: Context, comps: List[karta.ComponentRef]) -> None:
    seen: Dict[str, bool] = {}
    # upstream gathers children first, then the root
    for comp in [c for c in comps if not c.is_root] + [c for c in comps if c.is_root]:
        name = _name(comp.data)
        if not name:
            continue
        if name in seen:
            ctx.report("duplicate-component-name", comp.path + ("name",), f"component name {name} is not unique")
        seen[name] = True


def _root(ctx: Context, comp: karta.ComponentRef) -> None:
    data = comp.data
    kind = data.get("kind")
    gvk = karta.gvk_of(kind)
    if gvk is None or not gvk[1] or not gvk[2] or (not gvk[0] and gvk[2] != "Pod"):
        missing = "kind" if gvk is None else ", ".join(
            n for n, v in zip(("group", "version", "kind"), gvk) if not v and not (n == "group" and gvk[2] == "Pod"))
        ctx.report("root-incomplete-kind", comp.path + ("kind",),
                   f"root component must have full kind (group, version, kind): missing {missing}", key=True)
    if "ownerRef" in data:
        ctx.report("root-has-owner-ref", comp.path + ("ownerRef",), "root component cannot have owner ref", key=True)
    if data.get("statusDefinition") is None:
        ctx.report("root-missing-status-definition", comp.path + ("statusDefinition",),
                   "root component must have status definition", key=True)


def _child(ctx: Context, comp: karta.ComponentRef, names: set) -> None:
    owner = comp.data.get("ownerRef")
    label = _name(comp.data) or ""
    if not _nonempty_str(owner):
        ctx.report("child-missing-owner-ref", comp.path + ("ownerRef",), f"child component '{label}' has no owner ref", key=True)
    elif owner not in names:
        ctx.report("unknown-owner-ref", comp.path + ("ownerRef",),
                   f"child component '{label}' has owner ref to non-existing component '{owner}'")


def _component(ctx: Context, comp: karta.ComponentRef) -> None:
    data = comp.data
    name = _name(data)
    label = name or ""
    if not name:
        ctx.report("empty-component-name", comp.path + ("name",), "component name is empty", key="name" not in data)
    spec = data.get("specDefinition")
    if isinstance(spec, dict):
        present = [k for k in ("podTemplateSpecPath", "podSpecPath") if _nonempty_str(spec.get(k))]
        if spec.get("fragmentedPodSpecDefinition") is not None:
            present.append("fragmentedPodSpecDefinition")
        if len(present) > 1:
            ctx.report("multiple-pod-spec-definitions", comp.path + ("specDefinition",),
                       f"component '{label}' has multiple pod spec definitions ({', '.join(present)})", key=True)
    selector = data.get("podSelector") if isinstance(data.get("podSelector"), dict) else {}
    _type_selector(ctx, comp, label, selector.get("componentTypeSelector"))
    instance_selector = selector.get("componentInstanceSelector")
    has_id_path = _nonempty_str(data.get("instanceIdPath"))
    if has_id_path and instance_selector is None:
        ctx.report("instance-id-without-instance-selector", comp.path + ("instanceIdPath",),
                   f"component '{label}' has instance id path but no pod component instance selector", key=True)
    elif instance_selector is not None and not has_id_path:
        ctx.report("instance-selector-without-instance-id", comp.path + ("podSelector", "componentInstanceSelector"),
                   f"component '{label}' has pod component instance selector but no instance id path", key=True)


def _type_selector(ctx: Context, comp: karta.ComponentRef, label: str, selector: Any) -> None:
    if not isinstance(selector, dict):
        return
    path = comp.path + ("podSelector", "componentTypeSelector")
    labels = selector.get("matchLabels")
    has_key = _nonempty_str(selector.get("keyPath"))
    if isinstance(labels, dict) and not labels:
        ctx.report("selector-empty-match-labels", path + ("matchLabels",),
                   f"component '{label}' has component type selector with empty matchLabels")
    elif not has_key and labels is None:
        ctx.report("selector-missing-key", path,
                   f"component '{label}' has component type selector with neither keyPath nor matchLabels", key=True)
    elif not has_key and selector.get("value") is not None:
        ctx.report("selector-value-without-key-path", path + ("value",),
                   f"component '{label}' has component type selector value without keyPath", key=True)
    elif isinstance(labels, dict):
        errors = sorted(_label_errors(labels))
        if errors:
            ctx.report("selector-invalid-match-labels", path + ("matchLabels",),
                       f"component '{label}' has invalid matchLabels: {'; '.join(errors)}")


def _label_errors(labels: Dict[Any, Any]) -> List[str]:
    errors = []
    for key, value in labels.items():
        key = str(key)
        prefix, _, name = key.rpartition("/")
        if "/" in key and (not prefix or len(prefix) > 253 or not _DNS_SUBDOMAIN.match(prefix)):
            errors.append(f"matchLabels: Invalid value: {key!r}: prefix part must be a DNS subdomain")
        if not name or len(name) > 63 or not _LABEL_NAME.match(name):
            errors.append(f"matchLabels: Invalid value: {key!r}: name part must consist of alphanumeric characters, '-', '_' or '.', start and end with an alphanumeric character, at most 63 characters")
        if not isinstance(value, str):
            errors.append(f"matchLabels[{key}]: Invalid value: {value!r}: must be a string")
        elif len(value) > 63 or not _LABEL_VALUE.match(value):
            errors.append(f"matchLabels[{key}]: Invalid value: {value!r}: a valid label value must be at most 63 characters, alphanumeric, '-', '_' or '.', starting and ending with an alphanumeric character")
    return errors


def _cycles(ctx: Context, comps: List[karta.ComponentRef]) -> None:
    owner_of = {}
    path_of = {}
    for comp in comps:
        name = _name(comp.data)
        if name and name not in path_of:
            path_of[name] = comp.path
        if name and not comp.is_root and _nonempty_str(comp.data.get("ownerRef")):
            owner_of.setdefault(name, comp.data["ownerRef"])
    reported = set()
    for comp in comps:
        start = _name(comp.data)
        if comp.is_root or not start:
            continue
        seen = []
        current: Optional[str] = start
        while current is not None and current in owner_of:
            if current in seen:
                cycle = frozenset(seen[seen.index(current):])
                if cycle not in reported:
                    reported.add(cycle)
                    ctx.report("ownership-cycle", path_of[current] + ("ownerRef",),
                               f"ownership cycle detected involving component {current} "
                               f"({' -> '.join(seen[seen.index(current):] + [current])})")
                break
            seen.append(current)
            current = owner_of.get(current)


def _gang_members(ctx: Context, names: set) -> None:
    gang = karta.gang_scheduling(ctx.data)
    groups = gang.get("podGroups")
    if not isinstance(groups, list):
        return
    for gi, group in enumerate(groups):
        members = group.get("members") if isinstance(group, dict) else None
        for mi, member in enumerate(members if isinstance(members, list) else []):
            if not isinstance(member, dict):
                continue
            name = member.get("componentName")
            if name not in names:
                ctx.report("unknown-gang-member",
                           ("spec", "optimizationInstructions", "gangScheduling", "podGroups", gi, "members", mi, "componentName"),
                           f"pod-group member component '{name}' is not defined (should be a root or child component)")
