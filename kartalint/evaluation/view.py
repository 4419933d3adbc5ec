"""What a definition makes of a workload: the evaluation result and its JSON document.

``WorkloadView.to_dict()`` is the ``kartalint describe -o json`` document (``schemaVersion`` 1,
see docs/api.md). Everything here is plain data; the engine fills it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kartalint.evaluation.gang_view import GangView
from kartalint.evaluation.resources import ZERO, Resources
from kartalint.karta import FIELD_ERROR

SCHEMA_VERSION = 1
PodLists = Sequence[Sequence[Any] | None] | None  # what Evaluator.evaluate_many takes: per object, its pods or None
ReadTexts = Sequence[str | None] | None  # and per object, the JSON text it was read from or None


@dataclass(slots=True)
class FieldError:
    """A problem met while evaluating, and where: ``field`` is a definition field
    (``scaleDefinition.replicasPath``) or ``definition``, ``object``, ``pods``. The rest of the view is
    still computed."""

    field: str  # e.g. "scaleDefinition.replicasPath" or "statusDefinition.statusMappings.running[0]"
    message: str
    code: str = FIELD_ERROR  # kartalint.karta's codes; not part of the JSON document (schemaVersion 1)

    def to_dict(self) -> dict[str, str]:
        """``{"field", "message"}``, an entry of ``errors`` in ``describe -o json`` (the ``code`` is not part of it)."""
        return {"field": self.field, "message": self.message}


@dataclass(slots=True)
class Scale:
    """An instance's replica counts from its ``scaleDefinition``; None where a path is not set or gave null."""

    replicas: int | None = None
    min: int | None = None
    max: int | None = None

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


@dataclass(slots=True)
class PodView:
    """One given pod as describe shows it: its phase (``Unknown`` when it has none), whether its
    ``Ready`` condition is ``True``, its node, a reason (of a ``PodScheduled`` condition that is
    ``False``, else of the pod's status, else of a ``Ready`` condition that is ``False``; None without
    one), the resources it requests, and the instance it was placed under (None outside a
    multi-instance component)."""

    name: str
    namespace: str | None
    phase: str
    ready: bool
    node: str | None
    reason: str | None
    resources: Resources
    instance: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The pod in ``pods.items`` of ``describe -o json`` (without its namespace)."""
        return {
            "name": self.name,
            "phase": self.phase,
            "ready": self.ready,
            "node": self.node,
            "reason": self.reason,
            "instance": self.instance,
            "resources": self.resources.to_dict(),
        }


@dataclass(slots=True)
class Instance:
    """One instance of a component (a value of its ``instanceIdPath``; a single one with ``id`` None
    without it): its scale, pod template or spec or fragments, per-replica resources and pods."""

    id: str | None  # None for a single-instance component
    scale: Scale | None = None  # None: no scaleDefinition
    scale_failed: bool = False
    pod_template: dict[str, Any] | None = None
    pod_spec: dict[str, Any] | None = None
    metadata: dict[str, Any] | None = None
    fragments: dict[str, Any] | None = None
    per_replica: Resources = ZERO
    pods: list[PodView] = field(default_factory=list)

    @property
    def desired(self) -> int | None:
        """Desired replicas (``Scale.desired``; 1 without a scaleDefinition), or None when the scale
        failed to evaluate."""
        if self.scale_failed:
            return None
        return 1 if self.scale is None else self.scale.desired

    @property
    def resources(self) -> Resources | None:
        """``per_replica`` times ``desired``, or None when ``desired`` is unknown."""
        desired = self.desired
        return None if desired is None else self.per_replica.times(desired)

    def to_dict(self) -> dict[str, Any]:
        """The instance in ``instances`` of ``describe -o json``: ``id``, ``replicas`` (desired,
        replicas, min, max), ``resources`` (None when desired is unknown) and ``perReplica``."""
        scale = self.scale or Scale()
        total = self.resources
        return {
            "id": self.id,
            "replicas": {"desired": self.desired, "replicas": scale.replicas, "min": scale.min, "max": scale.max},
            "resources": None if total is None else total.to_dict(),
            "perReplica": self.per_replica.to_dict(),
        }

    @property
    def effective_pod_spec(self) -> dict[str, Any] | None:
        """The PodSpec of the instance's pods: its template's ``spec`` (``{}`` when the template has
        none), else its ``podSpecPath`` value, else None (fragments only, or nothing)."""
        if self.pod_template is not None:
            spec = self.pod_template.get("spec")
            return spec if isinstance(spec, dict) else {}
        return self.pod_spec


@dataclass(slots=True)
class Component:
    """A component of the definition as evaluated on the object: its kind (None for a grouping
    component), owner, instances, children, field errors, and with pods given the pods it selects."""

    name: str
    kind: dict[str, str] | None
    owner: str | None
    has_pod_definition: bool
    multi_instance: bool
    instances: list[Instance] = field(default_factory=list)
    children: list[Component] = field(default_factory=list)
    errors: list[FieldError] = field(default_factory=list)
    pods: list[PodView] = field(default_factory=list)
    pods_given: bool = False
    duplicate_ids: list[str] = field(default_factory=list)  # collapsed silently (last wins), as upstream
    unmultiplied: list[str] = field(default_factory=list)  # descendants whose totals ignore this one's count

    @property
    def own_resources(self) -> Resources:
        """The component's own request, without its children: its instances' ``resources`` summed (an
        instance whose desired replicas are unknown counts nothing)."""
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

    # The replicas vocabulary: every report reads a component's replicas from these properties.

    @property
    def desired(self) -> int:
        """The component's own desired replicas, summed over its instances; an instance whose
        replica count failed to evaluate counts 0 (describe's table and TOTAL, ``replicas.own``)."""
        return sum(i.desired or 0 for i in self.instances)

    @property
    def desired_if_known(self) -> int | None:
        """``desired``, or None when an instance's replica count failed to evaluate (describe's
        tree shows ``?``, a fixture's ``replicas`` expectation compares with it)."""
        values = [i.desired for i in self.instances]
        if any(value is None for value in values):
            return None
        return sum(value for value in values if value is not None)

    @property
    def has_replicas(self) -> bool:
        """Whether the scaleDefinition gave an instance a replica count (evaluated without error)."""
        return any(i.scale is not None for i in self.instances)

    @property
    def scaled_desired(self) -> int:
        """The desired replicas of the instances that have a replica count: unlike ``desired``, an
        instance without a scaleDefinition counts 0, not 1 (the gang minimum's way of counting)."""
        return sum(i.desired or 0 for i in self.instances if i.scale is not None)

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

    def to_dict(self) -> dict[str, Any]:
        """The component in ``components`` of ``describe -o json`` (docs/api.md): replicas ``own`` and
        ``row``, instances, ``resources`` with children and ``ownResources`` without, ``pods`` (None
        when no pods were given) and ``errors``."""
        pods = None
        if self.pods_given:
            pods = {
                "current": len(self.pods),
                "ready": sum(1 for p in self.pods if p.ready),
                "nodes": sorted({p.node for p in self.pods if p.node}),
                "items": [p.to_dict() for p in self.pods],
            }
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


@dataclass(slots=True)
class WorkloadView:
    """What a definition makes of one workload object (and its pods): the workload's identity, the
    statuses matched, phase and conditions, the components (the root first), the gang part and every
    problem met."""

    workload: dict[str, str | None]
    definition: str | None
    statuses: list[str] = field(default_factory=list)
    phase: str | None = None
    conditions: list[dict[str, str]] = field(default_factory=list)
    components: list[Component] = field(default_factory=list)
    gang: GangView | None = None
    errors: list[FieldError] = field(default_factory=list)  # definition- or status-level problems
    unmatched_pods: list[str] = field(default_factory=list)
    pods_given: bool = False
    matched_matchers: list[tuple] = field(default_factory=list)  # (mapping key, matcher index), first hit per status

    @property
    def root(self) -> Component | None:
        """The root component (the first one), or None when there are no components."""
        return self.components[0] if self.components else None

    def component(self, name: str) -> Component | None:
        """The first component called ``name``, or None."""
        for comp in self.components:
            if comp.name == name:
                return comp
        return None

    @property
    def resources(self) -> Resources:
        """The workload's whole request: the root's ``resources`` (its tree), zero without a root."""
        return self.root.resources if self.root else ZERO

    @property
    def table_components(self) -> list[Component]:
        """The components of describe's Resources table, as kli lists them: every non-grouping
        component with a pod definition or a replica count."""
        return [c for c in self.components if not c.logical and (c.has_pod_definition or c.has_replicas)]

    @property
    def replicas(self) -> int:
        """The REPLICAS of describe's TOTAL row: the desired replicas of ``table_components``."""
        return sum(c.desired for c in self.table_components)

    @property
    def ready_pods(self) -> int | None:
        """How many distinct pods placed under a component are ready (None when no pods were given)."""
        if not self.pods_given:
            return None
        return len({p.name for c in self.components for p in c.pods if p.ready})

    @property
    def all_errors(self) -> list[tuple]:
        """(component or None, FieldError) for every problem in the view."""
        out: list[tuple[str | None, FieldError]] = [(None, e) for e in self.errors]
        for comp in self.components:
            out.extend((comp.name, e) for e in comp.errors)
        return out

    def to_dict(self) -> dict[str, Any]:
        """The ``kartalint describe -o json`` document (``schemaVersion`` 1, docs/api.md)."""
        return {
            "schemaVersion": SCHEMA_VERSION,
            "workload": dict(self.workload),
            "definition": self.definition,
            "statuses": list(self.statuses),
            "phase": self.phase,
            "conditions": [dict(c) for c in self.conditions],
            "components": [c.to_dict() for c in self.components],
            "resources": self.resources.to_dict(),
            "gang": self.gang.to_dict() if self.gang is not None else None,
            "unmatchedPods": list(self.unmatched_pods) if self.pods_given else None,
            "errors": [e.to_dict() for e in self.errors],
        }
