"""What a workload is, reduced to what a reviewer compares (statuses, roles, replicas, resources, gang, errors, pod placement), and the changes between two such summaries."""

from __future__ import annotations

import json
from typing import Any

from kartalint.evaluation import WorkloadView, quantity


def summarize(view: WorkloadView | None) -> dict[str, Any] | None:
    """``view`` reduced to what a reviewer compares (statuses, components, replicas, resources, gang, errors), or
    None for no view."""
    if view is None:
        return None
    gang = view.gang
    summary: dict[str, Any] = {
        "statuses": sorted(view.statuses),
        "components": {
            c.name: {("" if i.id is None else i.id): i.desired for i in c.instances} for c in view.components
        },
        "resources": view.resources.to_dict(),
        "gang": {
            "minAvailable": gang.min_available,
            "minSubGroup": gang.min_sub_group,
            "subGroups": {s.name: s.min_available for s in gang.sub_groups},
        }
        if gang is not None
        else None,
        "errors": sorted(f"{comp + '.' if comp else ''}{e.field}: {e.message}" for comp, e in view.all_errors),
    }
    if view.pods_given:  # pod placement: which instance each pod lands in, and the pods nothing selects
        summary["pods"] = {
            c.name: {("" if i.id is None else i.id): sorted(p.name for p in i.pods) for i in c.instances}
            for c in view.components
            if c.pods
        }
        summary["unmatchedPods"] = sorted(view.unmatched_pods)
    return summary


def show(value: Any) -> str:
    """A value as a reviewer reads it: JSON scalars and compact JSON, never a Python repr."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


RESOURCE_LABELS = {"gpus": "GPUs", "cpuMillis": "CPU", "memoryBytes": "memory"}


def show_resource(key: str, base: int, head: int) -> tuple[str, str, str]:
    """(base, head, signed delta) in Kubernetes units, one unit for the three."""
    if key == "memoryBytes":
        texts = quantity.memory_column([base, head, head - base])
    elif key == "cpuMillis":
        texts = quantity.cpu_column([base, head, head - base])
    else:
        texts = [str(base), str(head), str(head - base)]
    return texts[0], texts[1], quantity.signed(texts[2])


def delta_text(before: Any, after: Any) -> str:
    """`` (+4)`` between two integers, else nothing."""
    if (
        isinstance(before, int)
        and isinstance(after, int)
        and not isinstance(before, bool)
        and not isinstance(after, bool)
    ):
        return f" ({quantity.signed(str(after - before))})"
    return ""


def _change(
    what: str,
    base: Any,
    head: Any,
    component: str | None = None,
    text: str = "",
    instance: str | None = None,
    field_name: str | None = None,
) -> dict[str, Any]:
    """One change; ``before``/``after`` (and the older ``base``/``head``) hold the values,
    ``component``, ``instance`` and ``field`` say where."""
    return {
        "what": what,
        "component": component,
        "instance": instance,
        "field": field_name or what,
        "before": base,
        "after": head,
        "base": base,
        "head": head,
        "text": text or f"{what}: {show(base)} -> {show(head)}",
    }


def compare_summaries(base: dict[str, Any] | None, head: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The changes from ``base`` to ``head`` (two ``summarize`` results), in the order a reviewer
    reads them: statuses, components (roles, replicas), resources, gang, pods, errors."""
    if base is None or head is None:
        return _definition_presence_change(base, head)
    return [
        *_status_changes(base["statuses"], head["statuses"]),
        *_component_changes(base["components"], head["components"]),
        *_resource_changes(base["resources"], head["resources"]),
        *_gang_changes(base["gang"], head["gang"]),
        *_pod_changes(base, head),
        *_error_changes(base["errors"], head["errors"]),
    ]


def _definition_presence_change(base: dict[str, Any] | None, head: dict[str, Any] | None) -> list[dict[str, Any]]:
    """A definition evaluated on one side only (nothing when on neither)."""
    if base is None and head is None:
        return []
    if base is None:
        return [_change("definition", None, "added", text="no definition at base; evaluated at head only")]
    return [_change("definition", "present", None, text="no definition at head (deleted or renamed away)")]


def _status_changes(base: list[str], head: list[str]) -> list[dict[str, Any]]:
    if base == head:
        return []
    gone = [s for s in base if s not in head]
    new = [s for s in head if s not in base]
    detail = "; ".join(
        x
        for x in (
            f"stops matching {', '.join(gone)}" if gone else "",
            f"now matches {', '.join(new)}" if new else "",
        )
        if x
    )
    return [_change("statuses", base, head, text=f"statuses: {show(base)} -> {show(head)} ({detail})")]


def _component_changes(base: dict[str, Any], head: dict[str, Any]) -> list[dict[str, Any]]:
    """Components added or removed, and in the others roles renamed, gone or new and replicas changed."""
    out = []
    for name in sorted(set(base) | set(head)):
        b, h = base.get(name), head.get(name)
        if b is None:
            out.append(_change("component-added", None, h, name, f"component {name} added", field_name="component"))
        elif h is None:
            out.append(_change("component-removed", b, None, name, f"component {name} removed", field_name="component"))
        else:
            out.extend(_role_changes(name, b, h))
            out.extend(_replica_changes(name, b, h))
    return out


def _role_changes(name: str, base: dict[str, Any], head: dict[str, Any]) -> list[dict[str, Any]]:
    """The instance ids of a component that changed: renamed when as many went as came, paired in
    order; else each one gone or new."""
    gone = [i for i in base if i not in head]
    new = [i for i in head if i not in base]
    if gone and len(gone) == len(new):  # same number of roles, other names: renamed, paired in order
        return [
            _change(
                "role-renamed",
                old_id,
                new_id,
                name,
                f"{name}: role {show(old_id)} renamed to {show(new_id)}",
                instance=new_id,
                field_name="instanceId",
            )
            for old_id, new_id in zip(sorted(gone), sorted(new), strict=False)
        ]
    out = [
        _change(
            "role-removed", i, None, name, f"{name}: role {show(i)} disappeared", instance=i, field_name="instanceId"
        )
        for i in gone
    ]
    out += [
        _change("role-added", None, i, name, f"{name}: role {show(i)} appeared", instance=i, field_name="instanceId")
        for i in new
    ]
    return out


def _replica_changes(name: str, base: dict[str, Any], head: dict[str, Any]) -> list[dict[str, Any]]:
    """The desired replicas of each instance present on both sides, where they differ."""
    out = []
    for i in sorted(set(base) & set(head)):
        if base[i] != head[i]:
            label = f"{name}[{i}]" if i else name
            out.append(
                _change(
                    "replicas",
                    base[i],
                    head[i],
                    name,
                    f"{label}.replicas: {show(base[i])} -> {show(head[i])}{delta_text(base[i], head[i])}",
                    instance=i or None,
                    field_name="replicas",
                )
            )
    return out


def _resource_changes(base: dict[str, int], head: dict[str, int]) -> list[dict[str, Any]]:
    """The workload's total GPUs, CPU and memory, where they differ."""
    out = []
    for key, label in RESOURCE_LABELS.items():
        before, after = base[key], head[key]
        if before != after:
            b_text, h_text, delta = show_resource(key, before, after)
            out.append(
                _change(key, before, after, text=f"total {label}: {b_text} -> {h_text} ({delta})", field_name=key)
            )
    return out


def _error_changes(base: list[str], head: list[str]) -> list[dict[str, Any]]:
    """Extraction errors that appeared at head, then those that went away."""
    appeared = [
        _change("error-appeared", None, error, text=f"extraction error appeared: {error}", field_name="errors")
        for error in head
        if error not in base
    ]
    fixed = [
        _change("error-fixed", error, None, text=f"extraction error went away: {error}", field_name="errors")
        for error in base
        if error not in head
    ]
    return appeared + fixed


def _gang_changes(base: dict[str, Any] | None, head: dict[str, Any] | None) -> list[dict[str, Any]]:
    if base == head:
        return []
    if base is None or head is None:
        return [_change("gang", base, head, text=f"gang: {show(base)} -> {show(head)}", field_name="gang")]
    out = []
    for key in ("minAvailable", "minSubGroup"):
        if base.get(key) != head.get(key):
            out.append(
                _change(
                    "gang",
                    base.get(key),
                    head.get(key),
                    text=f"gang.{key}: {show(base.get(key))} -> {show(head.get(key))}{delta_text(base.get(key), head.get(key))}",
                    field_name=f"gang.{key}",
                )
            )
    b_groups, h_groups = base.get("subGroups") or {}, head.get("subGroups") or {}
    for name in sorted(set(b_groups) | set(h_groups)):
        if b_groups.get(name) != h_groups.get(name):
            out.append(
                _change(
                    "gang",
                    b_groups.get(name),
                    h_groups.get(name),
                    name,
                    f"gang.subGroups[{show(name)}].minAvailable: {show(b_groups.get(name))} -> {show(h_groups.get(name))}"
                    f"{delta_text(b_groups.get(name), h_groups.get(name))}",
                    field_name="gang.subGroups.minAvailable",
                )
            )
    return out


def _pod_changes(base: dict[str, Any], head: dict[str, Any]) -> list[dict[str, Any]]:
    """Pods that move between components or instances, or that nothing selects any more."""
    if "pods" not in base or "pods" not in head:
        return []

    def placement(summary: dict[str, Any]) -> dict[str, str]:
        return {
            pod: f"{comp}[{inst}]" if inst else comp
            for comp, instances in summary["pods"].items()
            for inst, pods in instances.items()
            for pod in pods
        }

    b, h = placement(base), placement(head)
    out = []
    for pod in sorted(set(b) | set(h)):
        if b.get(pod) != h.get(pod):
            out.append(
                _change(
                    "pod-moved",
                    b.get(pod),
                    h.get(pod),
                    text=f"pod {show(pod)}: {show(b.get(pod))} -> {show(h.get(pod))}",
                    field_name=f"pods[{pod}]",
                )
            )
    return out
