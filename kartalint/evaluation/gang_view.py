"""The gang part of a ``WorkloadView``: KAI Scheduler's pod groups as a definition describes them.

Two shapes, as in the Karta CRD: ``podGroup`` (v2: one group, optional sub-groups per component)
and ``podGroups`` (alpha: groups of members, each pod assigned by its component and filters).
``to_dict()`` is the ``gang`` object of ``kartalint describe -o json`` (docs/api.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

POD_GROUP = "podGroup"
POD_GROUPS = "podGroups"


@dataclass(slots=True)
class SubGroup:
    """A v2 sub-group: one component (and its subtree) with its minimum."""

    name: Any  # the componentName as written (it may name no component: then an error says so)
    min_available: int | None = None
    topology: dict[str, Any] | None = None
    pods: list[str] | None = None  # with pods given: the pods that land in the sub-group

    def to_dict(self) -> dict[str, Any]:
        """``{"name", "minAvailable", "topology"}``, and ``pods`` when pods were given."""
        out: dict[str, Any] = {"name": self.name, "minAvailable": self.min_available, "topology": self.topology}
        if self.pods is not None:
            out["pods"] = list(self.pods)
        return out


@dataclass(slots=True)
class Member:
    """An alpha group member: a component with its minimum (per instance for multi-instance ones)."""

    component: Any
    min_available: int | None = None
    instances: dict[Any, int] | None = None  # instance id (None for an unnamed one) -> minimum

    def to_dict(self) -> dict[str, Any]:
        """``{"componentName", "minAvailable"}``, and ``instances`` (instance id -> minimum) for a
        multi-instance component."""
        out: dict[str, Any] = {"componentName": self.component, "minAvailable": self.min_available}
        if self.instances is not None:
            out["instances"] = dict(self.instances)
        return out


@dataclass(slots=True)
class Group:
    """An alpha group (a ``podGroups`` entry): its name as written and its members."""

    name: Any
    members: list[Member] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """``{"name", "members"}``."""
        return {"name": self.name, "members": [m.to_dict() for m in self.members]}


@dataclass(slots=True)
class PodAssignment:
    """Where an alpha gang puts one pod (or why it cannot)."""

    pod: str
    component: str | None = None
    member: str | None = None
    group: Any = None
    instance: str | None = None
    pod_group: str | None = None
    min_available: int | None = None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """``{"pod", "error"}`` when the pod cannot be placed; else ``pod``, ``component``, ``member``,
        ``group``, ``instance``, ``podGroup`` (the PodGroup's name) and its ``minAvailable``."""
        if self.error is not None:
            return {"pod": self.pod, "error": self.error}
        return {
            "pod": self.pod,
            "component": self.component,
            "member": self.member,
            "group": self.group,
            "instance": self.instance,
            "podGroup": self.pod_group,
            "minAvailable": self.min_available,
        }


@dataclass(slots=True)
class GangView:
    """KAI's pod groups for one workload: ``format`` (``POD_GROUP`` or ``POD_GROUPS``) says which shape
    the definition uses and so which fields are filled; ``errors`` are the problems the grouper would
    meet."""

    format: str  # POD_GROUP or POD_GROUPS
    errors: list[str] = field(default_factory=list)
    # podGroup (v2)
    name: str | None = None  # the full PodGroup name KAI creates
    name_suffix: str | None = None  # the name the definition gives
    topology: dict[str, Any] | None = None
    min_available: int | None = None
    min_sub_group: int | None = None
    sub_groups: list[SubGroup] = field(default_factory=list)
    # podGroups (alpha)
    groups: list[Group] = field(default_factory=list)
    pods: list[PodAssignment] | None = None

    def expectation(self, key: str) -> Any:
        """The value a fixture's ``expect.gang.<key>`` is compared with."""
        if key == "name":
            return self.name_suffix
        if key == "subGroups":
            return {s.name: s.min_available for s in self.sub_groups}
        return {"minAvailable": self.min_available, "minSubGroup": self.min_sub_group}.get(key)

    def to_dict(self) -> dict[str, Any]:
        """The ``gang`` object of ``describe -o json``: ``format``, then the podGroup fields (``name``,
        ``nameSuffix``, ``topology``, ``minAvailable``, ``minSubGroup``, ``subGroups``) or the
        podGroups ones (``groups``, and ``pods`` when pods were given), then ``errors``."""
        out: dict[str, Any]
        if self.format == POD_GROUP:
            out = {
                "format": POD_GROUP,
                "name": self.name,
                "nameSuffix": self.name_suffix,
                "topology": self.topology,
                "minAvailable": self.min_available,
                "minSubGroup": self.min_sub_group,
                "subGroups": [s.to_dict() for s in self.sub_groups],
            }
        else:
            out = {"format": POD_GROUPS, "groups": [g.to_dict() for g in self.groups]}
            if self.pods is not None:
                out["pods"] = [p.to_dict() for p in self.pods]
        out["errors"] = list(self.errors)
        return out
