"""What a workload holds now, for a quota or cost report: GPUs in use, per role (``describe --summary``).

Three GPU figures, from the desired one down to what the cluster has handed out:

- ``gpus``: the desired GPUs, what ``kli describe`` shows (per pod x desired replicas, per role);
- ``activeGpus``: the desired GPUs of a workload that holds its pods now, 0 for one that holds
  none (``activity``: a finished, failed, suspended or deleted workload, a CronJob between runs);
- ``allocatedGpus`` (only with pods): the GPUs the workload's pods hold, a pod counting when it is
  bound to a node (``spec.nodeName``) and not finished (its phase is not Succeeded nor Failed).

``activity(obj, statuses)`` says whether a workload is active and why, in this order: an object
being deleted (``metadata.deletionTimestamp``) is not; a ``batch`` CronJob is active only while
``.status.active`` lists a Job; a workload with any of ``INACTIVE_STATUSES`` is not; every other
one is (``ACTIVE_STATUSES``, ``Undefined`` included: a workload no status mapping matches yet,
such as one just created, is pending). docs/fleet.md shows the mapping, and ``--explain`` prints it.

``roles_of(view)`` gives one ``RoleFigures`` per role of describe's Resources table (a component
with a pod definition or a replica count; one per instance for a component with instances).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kartalint.evaluation import resources
from kartalint.evaluation.resources import ZERO, Resources
from kartalint.evaluation.view import Component, PodView, WorkloadView
from kartalint.karta import as_dict, as_list

ACTIVE_STATUSES = ("Initializing", "Running", "Degraded", "Resuming", "Undefined")
INACTIVE_STATUSES = ("Completed", "Failed", "Suspended", "Suspending")
FINISHED_PHASES = ("Succeeded", "Failed")
DELETING = "being deleted (metadata.deletionTimestamp)"
IDLE_CRONJOB = "a CronJob with no active Job (.status.active is empty)"


def activity_lines() -> list[str]:
    """The mapping, one line each, as ``--explain`` prints it and docs/fleet.md states it."""
    return [
        f"active (activeGpus = gpus): statuses {', '.join(ACTIVE_STATUSES)} "
        "(Undefined: no status mapping matches yet, as for a workload just created)",
        f"not active (activeGpus = 0): statuses {', '.join(INACTIVE_STATUSES)}, whatever else matches",
        f"not active (activeGpus = 0): an object {DELETING}, whatever its status",
        f"not active (activeGpus = 0): {IDLE_CRONJOB}",
        "allocatedGpus (with pods): the GPUs of the workload's pods bound to a node and not finished "
        f"(phase not {' nor '.join(FINISHED_PHASES)})",
    ]


def activity(obj: Any, statuses: Sequence[str]) -> tuple[bool, str]:
    """(whether the workload holds its pods now, why), by the rules of the module's docstring."""
    obj = as_dict(obj)
    meta = as_dict(obj.get("metadata"))
    if meta.get("deletionTimestamp"):
        return False, DELETING
    api_version = obj.get("apiVersion")
    cronjob = obj.get("kind") == "CronJob" and isinstance(api_version, str) and api_version.startswith("batch/")
    if cronjob and not as_list(as_dict(obj.get("status")).get("active")):
        return False, IDLE_CRONJOB
    shown = list(statuses) or ["Undefined"]
    for status in shown:
        if status in INACTIVE_STATUSES:
            return False, f"status {status}"
    return True, f"status {','.join(shown)}"


def bound_and_running(phase: str | None, node: Any) -> bool:
    """Whether a pod holds its resources: bound to a node and not finished."""
    return bool(node) and phase not in FINISHED_PHASES


def allocated_gpus(pods: Sequence[Any]) -> int:
    """The GPUs the given pod objects hold (``bound_and_running``); a pod whose quantities do not
    parse counts nothing (the view says why)."""
    total = 0
    for pod in pods:
        pod = as_dict(pod)
        spec = as_dict(pod.get("spec"))
        if not bound_and_running(as_dict(pod.get("status")).get("phase"), spec.get("nodeName")):
            continue
        try:
            total += resources.pod_spec(spec).gpus
        except resources.ResourceError:
            continue
    return total


@dataclass(frozen=True)
class RoleFigures:
    """One role of a workload, as describe's Resources table counts it: the component, the instance
    (None for a component without instances), desired replicas, ready pods (None without pods), the
    GPUs of one pod, the role's resources (per pod x desired) and, with pods, the GPUs its pods hold."""

    role: str
    instance: str | None
    replicas: int
    ready: int | None
    gpus_per_pod: int
    resources: Resources
    allocated_gpus: int | None


def _held(pods: Sequence[PodView]) -> int:
    return sum(p.resources.gpus for p in pods if bound_and_running(p.phase, p.node))


def roles_of(
    view: WorkloadView, own: dict[int, Resources] | None = None, table: list[Component] | None = None
) -> list[RoleFigures]:
    """The roles of describe's Resources table, one per instance of a component with instances
    (a component with none is one row of 0 replicas); ``own``: each component's own resources by
    ``id``, and ``table``: ``view.table_components``, when known already."""
    given = view.pods_given
    out = []
    for comp in view.table_components if table is None else table:
        if comp.multi_instance and comp.instances:
            for instance in comp.instances:
                out.append(
                    RoleFigures(
                        comp.name,
                        str(instance.id) if instance.id is not None else "",
                        instance.desired or 0,
                        sum(1 for p in instance.pods if p.ready) if given else None,
                        instance.per_replica.gpus,
                        instance.resources or ZERO,
                        _held(instance.pods) if given else None,
                    )
                )
            continue
        per_pod = comp.instances[0].per_replica.gpus if comp.instances else 0
        out.append(
            RoleFigures(
                comp.name,
                None,
                comp.desired,
                sum(1 for p in comp.pods if p.ready) if given else None,
                per_pod,
                own[id(comp)] if own is not None else comp.own_resources,
                _held(comp.pods) if given else None,
            )
        )
    return out


def _own(comp: Component) -> Resources:
    """``comp.own_resources``, added up as integers (one ``Resources`` made, not two per instance)."""
    gpus = cpu = memory = 0
    for instance in comp.instances:
        desired = instance.desired
        if desired is not None:
            per = instance.per_replica
            gpus += per.gpus * desired
            cpu += per.cpu_millis * desired
            memory += per.memory_bytes * desired
    return Resources(gpus, cpu, memory) if gpus or cpu or memory else ZERO


def workload_figures(view: WorkloadView) -> tuple[Resources, int, list[RoleFigures]]:
    """(``view.resources``, ``view.replicas``, ``roles_of(view)``) in one pass: each component's own
    resources are counted once, and the table's components chosen once (the summary's time per
    object is mostly this and reading it)."""
    own = {id(comp): _own(comp) for comp in view.components}

    def total(comp: Component, depth: int = 0) -> Resources:
        found = own.get(id(comp), ZERO)
        for child in comp.children if depth < 64 else ():
            found = found + total(child, depth + 1)
        return found

    root = view.root
    table = view.table_components
    return (total(root) if root is not None else ZERO), sum(c.desired for c in table), roles_of(view, own, table)
