"""What a definition makes of a workload: the evaluation result and its JSON document.

``WorkloadView.to_dict()`` is the ``kartalint describe -o json`` document (``schemaVersion`` 1,
see docs/api.md). Everything here is plain data; the engine fills it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from kartalint.evaluation.resources import ZERO, Resources
from kartalint.karta import FIELD_ERROR

SCHEMA_VERSION = 1


@dataclass
class FieldError:
    field: str  # e.g. "scaleDefinition.replicasPath" or "statusDefinition.statusMappings.running[0]"
    message: str
    code: str = FIELD_ERROR  # kartalint.karta's codes; not part of the JSON document (schemaVersion 1)

    def to_dict(self) -> Dict[str, str]:
        return {"field": self.field, "message": self.message}


@dataclass
class Scale:
    replicas: Optional[int] = None
    min: Optional[int] = None
    max: Optional[int] = None

    @property
    def desired(self) -> int:
        """CLI desired replicas (spec §3.6): replicas if set (0 allowed), else min, else 1."""
        if self.replicas is not None:
            return self.replicas
        if self.min is not None:
            return self.min
        return 1

    @property
    def gang_minimum(self) -> int:
        """Gang minimum (spec §3.8): minReplicas if > 0, else replicas if > 0, else 0."""
        if self.min is not None and self.min > 0:
            return self.min
        if self.replicas is not None and self.replicas > 0:
            return self.replicas
        return 0


@dataclass
class PodView:
    name: str
    namespace: Optional[str]
    phase: str
    ready: bool
    node: Optional[str]
    reason: Optional[str]
    resources: Resources
    instance: Optional[str] = None

    def to_dict(self) -> Dict[str, Any]:
        return {"name": self.name, "phase": self.phase, "ready": self.ready, "node": self.node,
                "reason": self.reason, "instance": self.instance, "resources": self.resources.to_dict()}


@dataclass
class Instance:
    id: Optional[str]  # None for a single-instance component
    scale: Optional[Scale] = None  # None: no scaleDefinition
    scale_failed: bool = False
    pod_template: Optional[Dict[str, Any]] = None
    pod_spec: Optional[Dict[str, Any]] = None
    metadata: Optional[Dict[str, Any]] = None
    fragments: Optional[Dict[str, Any]] = None
    per_replica: Resources = ZERO
    pods: List[PodView] = field(default_factory=list)

    @property
    def desired(self) -> Optional[int]:
        if self.scale_failed:
            return None
        return 1 if self.scale is None else self.scale.desired

    @property
    def resources(self) -> Optional[Resources]:
        desired = self.desired
        return None if desired is None else self.per_replica.times(desired)

    def to_dict(self) -> Dict[str, Any]:
        scale = self.scale or Scale()
        total = self.resources
        return {
            "id": self.id,
            "replicas": {"desired": self.desired, "replicas": scale.replicas, "min": scale.min, "max": scale.max},
            "resources": None if total is None else total.to_dict(),
            "perReplica": self.per_replica.to_dict(),
        }

    @property
    def effective_pod_spec(self) -> Optional[Dict[str, Any]]:
        if self.pod_template is not None:
            spec = self.pod_template.get("spec")
            return spec if isinstance(spec, dict) else {}
        return self.pod_spec


@dataclass
class Component:
    name: str
    kind: Optional[Dict[str, str]]
    owner: Optional[str]
    has_pod_definition: bool
    multi_instance: bool
    instances: List[Instance] = field(default_factory=list)
    children: List["Component"] = field(default_factory=list)
    errors: List[FieldError] = field(default_factory=list)
    pods: List[PodView] = field(default_factory=list)
    pods_given: bool = False
    duplicate_ids: List[str] = field(default_factory=list)  # collapsed silently (last wins), as upstream

    @property
    def own_resources(self) -> Resources:
        total = ZERO
        for instance in self.instances:
            if instance.resources is not None:
                total = total + instance.resources
        return total

    @property
    def resources(self) -> Resources:
        """Own request (per replica x desired, over instances) plus the children's totals."""
        total = self.own_resources
        for child in self.children:
            total = total + child.resources
        return total

    @property
    def desired(self) -> int:
        """The component's own desired replicas, summed over its instances."""
        return sum(i.desired or 0 for i in self.instances)

    @property
    def logical(self) -> bool:
        """A grouping component (no kind, e.g. a LeaderWorkerSet group): it creates nothing itself."""
        return not self.kind

    @property
    def row_replicas(self) -> int:
        """The replicas ``kli describe`` shows on this component's row: its own desired replicas, or
        for a logical component the sum over its children (leader 2 + workers 6 = 8, not the group
        size 4)."""
        if self.logical and self.children:
            return sum(child.row_replicas for child in self.children)
        return self.desired

    def to_dict(self) -> Dict[str, Any]:
        pods = None
        if self.pods_given:
            pods = {"current": len(self.pods), "ready": sum(1 for p in self.pods if p.ready),
                    "nodes": sorted({p.node for p in self.pods if p.node}),
                    "items": [p.to_dict() for p in self.pods]}
        return {
            "name": self.name,
            "kind": self.kind,
            "owner": self.owner,
            "hasPodDefinition": self.has_pod_definition,
            "replicas": {"own": self.desired, "row": self.row_replicas},
            "instances": [i.to_dict() for i in self.instances],
            "resources": self.resources.to_dict(),
            "ownResources": self.own_resources.to_dict(),
            "pods": pods,
            "errors": [e.to_dict() for e in self.errors],
        }


@dataclass
class WorkloadView:
    workload: Dict[str, Optional[str]]
    definition: Optional[str]
    statuses: List[str] = field(default_factory=list)
    phase: Optional[str] = None
    conditions: List[Dict[str, str]] = field(default_factory=list)
    components: List[Component] = field(default_factory=list)
    gang: Optional[Dict[str, Any]] = None
    errors: List[FieldError] = field(default_factory=list)  # definition- or status-level problems
    unmatched_pods: List[str] = field(default_factory=list)
    pods_given: bool = False
    matched_matchers: List[tuple] = field(default_factory=list)  # (mapping key, matcher index), first hit per status

    @property
    def root(self) -> Optional[Component]:
        return self.components[0] if self.components else None

    def component(self, name: str) -> Optional[Component]:
        for comp in self.components:
            if comp.name == name:
                return comp
        return None

    @property
    def resources(self) -> Resources:
        return self.root.resources if self.root else ZERO

    @property
    def all_errors(self) -> List[tuple]:
        """(component or None, FieldError) for every problem in the view."""
        out = [(None, e) for e in self.errors]
        for comp in self.components:
            out.extend((comp.name, e) for e in comp.errors)
        return out

    def to_dict(self) -> Dict[str, Any]:
        return {
            "schemaVersion": SCHEMA_VERSION,
            "workload": dict(self.workload),
            "definition": self.definition,
            "statuses": list(self.statuses),
            "phase": self.phase,
            "conditions": [dict(c) for c in self.conditions],
            "components": [c.to_dict() for c in self.components],
            "resources": self.resources.to_dict(),
            "gang": self.gang,
            "unmatchedPods": list(self.unmatched_pods) if self.pods_given else None,
            "errors": [e.to_dict() for e in self.errors],
        }
