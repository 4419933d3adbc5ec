"""Pods and components (spec §3.7): which pod belongs to which component and instance.

Two rules exist upstream and both are reproduced:

* ``assign`` is ``kli describe``'s walk: a pod-bearing component takes the pods its
  ``componentTypeSelector`` matches (with no selector, all pods when it is the only component with
  a ``specDefinition``); logical components pass every pod on to their children; multi-instance
  components narrow the pods to those whose ``componentInstanceSelector.idPath`` equals the
  instance id. A pod may so appear under several components, or under none.
* ``infer_component`` / ``infer_instance`` are the library's rule used by schedulers: the first
  leaf (component with a pod definition) whose selector matches; a sole leaf takes every pod.

Every pod is handed to jq once, with all pod expressions of the definition (``jqexec``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from kartalint.evaluation import resources
from kartalint.evaluation import values as convert
from kartalint.evaluation.jqexec import JqSession, Outcome, results_of
from kartalint.evaluation.view import Component, FieldError, PodView, WorkloadView
from kartalint.karta import as_dict, as_list


@dataclass
class PodRecord:
    """One given pod and what the evaluation knows of it: the pod object, its name, the outcomes of the
    definition's pod expressions on it and its ``PodView``."""

    pod: dict[str, Any]
    name: str
    outcomes: dict[str, Outcome]
    view: PodView
    problem: str | None = None  # why the pod's resources are not counted (a quantity that does not parse)


class SelectorError(Exception):
    """A pod selector that cannot be applied to a pod (a jq error, an id that is not one result, no
    ``componentInstanceSelector`` where one is needed, no component found)."""


def pod_results(record: PodRecord, expression: str) -> list[Any]:
    """The results of a pod expression on ``record``'s pod; its jq error raises ``SelectorError``."""
    return results_of(record.outcomes, expression, SelectorError)


def type_selector_matches(comp_data: dict[str, Any], record: PodRecord) -> bool | None:
    """None when the component has no ``componentTypeSelector``; else whether it matches."""
    selector = as_dict(as_dict(comp_data.get("podSelector")).get("componentTypeSelector"))
    if not selector:
        return None
    key_path = selector.get("keyPath")
    if isinstance(key_path, str) and key_path:
        results = pod_results(record, key_path)
        if "value" in selector and selector.get("value") is not None:
            if not any(r == selector.get("value") for r in results):
                return False
        elif not any(r is not None for r in results):
            return False
    labels = as_dict(as_dict(record.pod.get("metadata")).get("labels"))
    return all(labels.get(key) == value for key, value in as_dict(selector.get("matchLabels")).items())


def pod_instance_id(comp_data: dict[str, Any], record: PodRecord) -> str:
    """The instance id a pod carries: the single, non-empty result of the component's
    ``podSelector.componentInstanceSelector.idPath`` on it, formatted as Go's ``%v``; ``SelectorError``
    when the component has no idPath or the result is not exactly one value."""
    id_path = as_dict(as_dict(comp_data.get("podSelector")).get("componentInstanceSelector")).get("idPath")
    if not isinstance(id_path, str) or not id_path:
        raise SelectorError("component has instances but no podSelector.componentInstanceSelector")
    try:
        return convert.single_result(pod_results(record, id_path))
    except convert.ConversionError as exc:
        raise SelectorError(str(exc)) from None


def _pod_view(pod: dict[str, Any]) -> tuple[PodView, str | None]:
    meta = as_dict(pod.get("metadata"))
    status = as_dict(pod.get("status"))
    conditions = {
        c["type"]: c
        for c in as_list(status.get("conditions"))
        if isinstance(c, dict) and isinstance(c.get("type"), str)
    }
    ready = as_dict(conditions.get("Ready")).get("status") == "True"
    reason = None
    scheduled = as_dict(conditions.get("PodScheduled"))
    if scheduled.get("status") == "False" and scheduled.get("reason"):
        reason = scheduled.get("reason")
    elif isinstance(status.get("reason"), str) and status.get("reason"):
        reason = status.get("reason")
    elif as_dict(conditions.get("Ready")).get("status") == "False" and as_dict(conditions.get("Ready")).get("reason"):
        reason = as_dict(conditions.get("Ready")).get("reason")
    problem = None
    try:
        counted = resources.pod_spec(pod.get("spec"))
    except resources.ResourceError as exc:
        counted = resources.ZERO
        problem = f"pod {meta.get('name') or '<unnamed>'}: {exc} (its resources are not counted)"
    node = as_dict(pod.get("spec")).get("nodeName")
    view = PodView(
        name=str(meta.get("name") or "<unnamed>"),
        namespace=meta.get("namespace") if isinstance(meta.get("namespace"), str) else None,
        phase=str(status.get("phase") or "Unknown"),
        ready=ready,
        node=node if isinstance(node, str) and node else None,
        reason=reason if isinstance(reason, str) else None,
        resources=counted,
    )
    return view, problem


def evaluate_pods(
    pods: list[dict[str, Any]], expressions: list[str], session: JqSession, refused: dict[str, str] | None = None
) -> list[PodRecord]:
    """Every pod expression on every pod (pods are JSON data already); ``refused`` expressions
    never run and carry their reason as the error."""
    refused = refused or {}
    runnable = [e for e in expressions if e not in refused]
    records = []
    for pod in pods:
        view, problem = _pod_view(pod)
        outcomes = session.run(runnable, text=json.dumps(pod))
        outcomes.update({e: Outcome(error=refused[e]) for e in expressions if e in refused})
        records.append(PodRecord(pod, view.name, outcomes, view, problem))
    return records


def assign(view: WorkloadView, prepared: Any, pods: list[dict[str, Any]], session: JqSession) -> list[PodRecord]:
    """Fill ``pods`` of every component (kli's walk) and ``view.unmatched_pods``."""
    records = evaluate_pods(pods, prepared.pod_expressions, session, prepared.refused)
    view.errors.extend(FieldError("pods", record.problem) for record in records if record.problem)
    data_by_name = {ref.data.get("name"): ref.data for ref in prepared.components}
    with_spec = [ref for ref in prepared.components if isinstance(ref.data.get("specDefinition"), dict)]
    for comp in view.components:
        comp.pods_given = True
    seen: set[int] = set()  # ids of the pod records already placed

    def selected(comp: Component, record: PodRecord) -> bool:
        data = data_by_name.get(comp.name, {})
        try:
            match = type_selector_matches(data, record)
        except SelectorError as exc:
            comp.errors.append(FieldError("podSelector.componentTypeSelector.keyPath", f"pod {record.name}: {exc}"))
            return False
        if match is None:
            return len(with_spec) == 1 and with_spec[0].data is data
        return match

    def walk(comp: Component, received: list[PodRecord], depth: int = 0) -> None:
        if depth > 64:
            return
        data = data_by_name.get(comp.name, {})
        pool = [r for r in received if selected(comp, r)] if comp.has_pod_definition else received
        if comp.multi_instance:
            narrowed: list[tuple[PodRecord, str]] = []
            ids = {i.id: i for i in comp.instances}
            for record in pool:
                try:
                    pod_id = pod_instance_id(data, record)
                except SelectorError as exc:
                    comp.errors.append(
                        FieldError("podSelector.componentInstanceSelector.idPath", f"pod {record.name}: {exc}")
                    )
                    continue
                if pod_id in ids:
                    narrowed.append((record, pod_id))
            pool = [r for r, _ in narrowed]
            if comp.has_pod_definition:
                for record, pod_id in narrowed:
                    ids[pod_id].pods.append(_with_instance(record.view, pod_id))
        if comp.has_pod_definition:
            comp.pods = (
                [_with_instance(r.view, None) for r in pool]
                if not comp.multi_instance
                else [p for i in comp.instances for p in i.pods]
            )
            seen.update(id(r) for r in pool)
        for child in comp.children:
            walk(child, pool, depth + 1)

    if view.root is not None:
        walk(view.root, records)
    view.unmatched_pods = [r.name for r in records if id(r) not in seen]
    return records


def _with_instance(pod: PodView, instance: str | None) -> PodView:
    return PodView(pod.name, pod.namespace, pod.phase, pod.ready, pod.node, pod.reason, pod.resources, instance)


# -- the library's rule (used by gang scheduling) --------------------------------------------------


def infer_component(prepared: Any, record: PodRecord) -> str:
    """The library's rule: the name of the first leaf component (one with a pod definition) whose
    ``componentTypeSelector`` matches the pod; a sole leaf takes every pod. ``SelectorError`` when no
    leaf matches."""
    leaves = [ref.data for ref in prepared.components if _is_leaf(ref.data)]
    if len(leaves) == 1:
        return str(leaves[0].get("name"))
    for data in leaves:
        try:
            if type_selector_matches(data, record):
                return str(data.get("name"))
        except SelectorError:
            continue
    raise SelectorError(f"no component found for pod `{record.name}`")


def infer_instance(comp: Component, data: dict[str, Any], record: PodRecord) -> str | None:
    """The id of the instance of ``comp`` the pod belongs to, or None when the component has no named
    instances or no ``podSelector``; ``SelectorError`` when the pod's id is not one of the component's."""
    ids = [i.id for i in comp.instances if i.id]
    if not ids or not isinstance(data.get("podSelector"), dict):
        return None
    pod_id = pod_instance_id(data, record)
    if pod_id not in ids:
        raise SelectorError(
            f"could not match instance id {pod_id!r} of pod {record.name} to the ids of component {comp.name}"
        )
    return pod_id


def _is_leaf(data: dict[str, Any]) -> bool:
    spec = as_dict(data.get("specDefinition"))
    return any(spec.get(k) is not None for k in ("podTemplateSpecPath", "podSpecPath", "fragmentedPodSpecDefinition"))
