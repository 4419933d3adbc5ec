"""Apply a Karta definition to a workload object (spec §3): the evaluation engine.

``Evaluator`` keeps one jq worker and per-definition preparation (validation, expression list)
across calls; ``evaluate(definition, obj, pods)`` builds a ``WorkloadView``. Every workload
expression of the definition is evaluated in one jq run on the object (``jqexec``); pods get one
run each. Extraction problems are recorded on their component and field and the rest of the view
is still computed.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .. import karta
from ..errors import ArgumentError
from ..load import MAX_DEPTH
from ..jqlang.runner import DEFAULT_TIMEOUT, BoundedRunner
from ..karta import CONDITION_FIELD_DEFAULTS, FRAGMENTED_PATHS, SCALE_PATHS, STATUS_ORDER, as_dict, as_list
from . import convert, gang, pods as podmap, resources
from .jqexec import JqSession, Outcome, results_of
from .view import Component, FieldError, Instance, Scale, WorkloadView

SPEC_PATHS = (("podTemplateSpecPath", "v1.PodTemplateSpec"), ("podSpecPath", "v1.PodSpec"), ("metadataPath", "v1.ObjectMeta"))
_FRAGMENT_TYPES = {
    "schedulerNamePath": "string", "labelsPath": "map", "annotationsPath": "map", "resourcesPath": "v1.ResourceRequirements",
    "resourceClaimsPath": "[]v1.PodResourceClaim", "podAffinityPath": "v1.PodAffinity", "nodeAffinityPath": "v1.NodeAffinity",
    "containersPath": "[]v1.Container", "containerPath": "v1.Container", "priorityClassNamePath": "string", "imagePath": "string",
}
_FRAGMENT_KEYS = {
    "schedulerNamePath": "schedulerName", "labelsPath": "labels", "annotationsPath": "annotations", "resourcesPath": "resources",
    "resourceClaimsPath": "resourceClaims", "podAffinityPath": "podAffinity", "nodeAffinityPath": "nodeAffinity",
    "containersPath": "containers", "containerPath": "container", "priorityClassNamePath": "priorityClassName", "imagePath": "image",
}


class ExtractionError(Exception):
    pass


@dataclass
class PreparedDefinition:
    """What does not depend on the object: components, expressions, validation messages."""

    data: Dict[str, Any]
    name: Optional[str]
    components: List[karta.ComponentRef]
    workload_expressions: List[str]
    pod_expressions: List[str]
    invalid: List[str] = field(default_factory=list)
    any_scale: bool = False
    unreadable: Optional[str] = None  # the definition is not JSON data (too deep, NaN, ...)
    refused: Dict[str, str] = field(default_factory=dict)  # expression -> why it is never run (jq modules)


def prepare(definition: Dict[str, Any]) -> PreparedDefinition:
    comps = karta.components(definition)
    workload, pod = [], []
    for jq_field in karta.jq_fields(definition):
        if jq_field.kind == "actionPath":
            continue
        (pod if jq_field.target == "pod" else workload).append(jq_field.expression)
    name = as_dict(as_dict(definition).get("metadata")).get("name")
    refused = {e: m for e in dict.fromkeys(workload + pod) for m in [_module_directive(e)] if m}
    return PreparedDefinition(
        refused=refused,
        data=definition, name=name if isinstance(name, str) else None, components=comps,
        workload_expressions=list(dict.fromkeys(workload)), pod_expressions=list(dict.fromkeys(pod)),
        invalid=_parity(definition) or ([] if any(c.is_root for c in comps) else
                                        ["spec.structureDefinition.rootComponent is required (a component map)"]),
        any_scale=any(isinstance(c.data.get("scaleDefinition"), dict) for c in comps),
    )


def _module_directive(expression: str) -> Optional[str]:
    """Why an expression is refused before it runs: it reads jq modules from files (jq-unsafe)."""
    from ..jqlang import parse_cached

    tree, _ = parse_cached(expression)
    if tree is None:
        return None
    for node in tree.walk():
        if node.kind == "directive":
            return f"'{node.value}' reads jq modules from files; refused (jq-unsafe)"
    return None


def _parity(definition: Dict[str, Any]) -> List[str]:
    from ..check import parity_messages

    try:
        return parity_messages(definition)
    except RecursionError:  # pragma: no cover - depth is bounded before; kept as the last guard
        return ["the definition is nested too deeply to check"]


def _workload_meta(obj: Any) -> Dict[str, Optional[str]]:
    obj = as_dict(obj)
    meta = as_dict(obj.get("metadata"))

    def text(value: Any) -> Optional[str]:
        return value if isinstance(value, str) else None

    return {"apiVersion": text(obj.get("apiVersion")), "kind": text(obj.get("kind")), "name": text(meta.get("name")),
            "namespace": text(meta.get("namespace"))}


class Evaluator:
    """Reusable evaluation context (one jq worker process). Use as a context manager."""

    def __init__(self, timeout: float = DEFAULT_TIMEOUT, runner: Optional[BoundedRunner] = None, batch: bool = True,
                 force: bool = False) -> None:
        check_timeout(timeout)
        self.force = force  # evaluate invalid definitions too (their "invalid karta" errors stay in the view)
        self._own_runner = runner is None
        self.runner = runner or BoundedRunner(timeout=timeout)
        self.session = JqSession(self.runner, batch=batch)
        self._prepared: Dict[str, PreparedDefinition] = {}

    def close(self) -> None:
        if self._own_runner:
            self.runner.close()

    def __enter__(self) -> "Evaluator":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def prepare(self, definition: Dict[str, Any]) -> PreparedDefinition:
        if not isinstance(definition, dict):
            raise ArgumentError(f"definition must be a dict (a Karta document), not {type(definition).__name__}")
        key, problem = json_text(definition)
        if key is None:
            return PreparedDefinition(data={}, name=None, components=[], workload_expressions=[], pod_expressions=[],
                                      invalid=[], any_scale=False, unreadable=f"the definition cannot be read: {problem}")
        prepared = self._prepared.get(key)
        if prepared is None:
            if len(self._prepared) > 512:
                self._prepared.clear()
            prepared = self._prepared[key] = prepare(json.loads(key))  # a private copy, keys as strings
        return prepared

    def evaluate(self, definition: Dict[str, Any], obj: Any, pods: Optional[Sequence[Any]] = None) -> WorkloadView:
        """What ``definition`` makes of ``obj`` (and ``pods``). Bad data becomes errors of the view;
        arguments of the wrong type raise ``ArgumentError``."""
        if pods is not None and not isinstance(pods, (list, tuple)):
            raise ArgumentError(f"pods must be a list of pod objects or None, not {type(pods).__name__}")
        prepared = self.prepare(definition)
        view = WorkloadView(workload=_workload_meta(obj), definition=prepared.name, pods_given=pods is not None)
        if prepared.unreadable:
            view.errors.append(FieldError("definition", prepared.unreadable))
            return view
        if prepared.invalid:  # upstream builds no tree from an invalid definition ("invalid karta: ...")
            view.errors.extend(FieldError("definition", f"invalid karta: {m}") for m in prepared.invalid)
            if not self.force or not prepared.components:
                return view
        if pods is not None:
            pods, pod_problems = _readable_pods(pods)
            view.errors.extend(FieldError("pods", m) for m in pod_problems)
        outcomes = self._run(prepared.workload_expressions, obj, view, prepared.refused)
        view.components = _build_components(prepared, outcomes)
        _status(view, prepared, outcomes)
        records = None
        if pods is not None:
            records = podmap.assign(view, prepared, list(pods), self.session)
        view.gang = gang.describe(view, prepared, obj, records)
        return view


    def _run(self, expressions: List[str], obj: Any, view: WorkloadView, refused: Dict[str, str]) -> Dict[str, Outcome]:
        text, problem = json_text(obj)
        if text is None:
            message = f"the object cannot be handed to jq ({problem})"
            view.errors.append(FieldError("object", message))
            return {e: Outcome(error=message) for e in expressions}
        outcomes = self.session.run([e for e in expressions if e not in refused], text=text)
        outcomes.update({e: Outcome(error=refused[e]) for e in expressions if e in refused})
        return outcomes


def to_json(value: Any) -> Optional[str]:
    """JSON text of a decoded object (YAML timestamps and other scalars become strings), or None."""
    return json_text(value)[0]


def json_text(value: Any) -> Tuple[Optional[str], str]:
    """(JSON text, "") of data (non-string keys become strings, as in Kubernetes), or (None, why not)."""
    if _too_deep(value, MAX_DEPTH):
        return None, f"nested deeper than {MAX_DEPTH} levels"
    try:
        return json.dumps(value, default=str, allow_nan=False), ""
    except (RecursionError, ValueError, TypeError) as exc:
        return None, f"not JSON data ({exc})"


def _too_deep(value: Any, limit: int) -> bool:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values() if isinstance(v, (dict, list)))
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item if isinstance(v, (dict, list)))
    return False


def _readable_pods(pods: Sequence[Any]) -> Tuple[List[Dict[str, Any]], List[str]]:
    out, problems = [], []
    for index, pod in enumerate(pods):
        text, problem = json_text(pod) if isinstance(pod, dict) else (None, f"a {type(pod).__name__}, not a pod object")
        if text is None:
            problems.append(f"pods[{index}] is left out: {problem}")
        else:
            out.append(json.loads(text))
    return out, problems


def check_timeout(timeout: Any) -> None:
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not math.isfinite(timeout) or not 0 < timeout <= 3600:
        raise ArgumentError(f"timeout must be a number of seconds above 0 and at most 3600, not {timeout!r}")


def evaluate(definition: Dict[str, Any], obj: Any, pods: Optional[Sequence[Any]] = None, *,
             timeout: float = DEFAULT_TIMEOUT) -> WorkloadView:
    """Apply ``definition`` (a Karta as a dict) to ``obj`` (a workload object as a dict), with
    optional ``pods``; returns a ``WorkloadView`` (``to_dict()`` = ``describe -o json``)."""
    with Evaluator(timeout=timeout) as evaluator:
        return evaluator.evaluate(definition, obj, pods)


# -- components and instances ------------------------------------------------------------------

def _results(outcomes: Dict[str, Outcome], expression: str) -> List[Any]:
    return results_of(outcomes, expression, ExtractionError)


def _has_pod_definition(comp: Dict[str, Any]) -> bool:
    spec = as_dict(comp.get("specDefinition"))
    return any(key in spec and spec[key] is not None for key in ("podTemplateSpecPath", "podSpecPath", "fragmentedPodSpecDefinition"))


def _instance_ids(comp: Dict[str, Any], outcomes: Dict[str, Outcome]) -> List[str]:
    expr = comp.get("instanceIdPath")
    if not isinstance(expr, str) or expr == "":
        return [""]
    ids = [convert.to_string(value, i) for i, value in enumerate(_results(outcomes, expr))]
    if any(i == "" for i in ids):
        raise ExtractionError(f"instance id path contained empty string values {json.dumps(ids)}")
    return ids


def _zip_check(ids: List[str], count: int) -> None:
    if count != len(ids):
        raise ExtractionError(f"instance ids count ({len(ids)}) does not match results count ({count})")


def _build_components(prepared: PreparedDefinition, outcomes: Dict[str, Outcome]) -> List[Component]:
    built: List[Component] = []
    by_name: Dict[str, Component] = {}
    for ref in prepared.components:
        comp = _component(ref, outcomes)
        built.append(comp)
        by_name.setdefault(comp.name, comp)
    for comp in built[1:]:
        parent = by_name.get(comp.owner or "")
        if parent is not None and parent is not comp and not _is_ancestor(comp, parent, by_name):
            parent.children.append(comp)
    return built


def _is_ancestor(candidate: Component, node: Component, by_name: Dict[str, Component]) -> bool:
    seen = set()
    while node is not None and node.name not in seen:
        if node is candidate:
            return True
        seen.add(node.name)
        node = by_name.get(node.owner or "")
    return False


def _component(ref: karta.ComponentRef, outcomes: Dict[str, Outcome]) -> Component:
    data = ref.data
    name = data.get("name") if isinstance(data.get("name"), str) else ""
    kind = data.get("kind") if isinstance(data.get("kind"), dict) else None
    owner = data.get("ownerRef") if isinstance(data.get("ownerRef"), str) and not ref.is_root else None
    multi = isinstance(data.get("instanceIdPath"), str) and data.get("instanceIdPath") != ""
    comp = Component(name=name, kind={k: str(kind.get(k, "")) for k in ("group", "version", "kind")} if kind else None,
                     owner=owner, has_pod_definition=_has_pod_definition(data), multi_instance=multi)
    try:
        ids = _instance_ids(data, outcomes)
    except (ExtractionError, convert.ConversionError) as exc:
        comp.errors.append(FieldError("instanceIdPath", str(exc)))
        return comp
    records: Dict[str, Instance] = {i: Instance(id=i if multi else None) for i in ids}
    ordered = [records[i] for i in ids]  # aligned by index; duplicates share (last wins) below
    _extract_specs(data, ids, ordered, outcomes, comp)
    _extract_scale(data, ids, ordered, outcomes, comp)
    _extract_fragments(data, ids, ordered, outcomes, comp)
    final: Dict[str, Instance] = {}
    for index, instance_id in enumerate(ids):
        if instance_id in final and instance_id not in comp.duplicate_ids:
            comp.duplicate_ids.append(instance_id)
        final[instance_id] = ordered[index]
    comp.instances = [final[i] for i in sorted(final)]
    for instance in comp.instances:
        _account(instance, comp)
    return comp


def _field_results(comp: Component, field_name: str, expression: Any, outcomes: Dict[str, Outcome]) -> Optional[List[Any]]:
    if not isinstance(expression, str) or expression == "":
        return None
    try:
        return _results(outcomes, expression)
    except ExtractionError as exc:
        comp.errors.append(FieldError(field_name, str(exc)))
        return None


def _extract_specs(data: Dict[str, Any], ids: List[str], ordered: List[Instance], outcomes: Dict[str, Outcome], comp: Component) -> None:
    spec = as_dict(data.get("specDefinition"))
    for key, type_name in SPEC_PATHS:
        field_name = f"specDefinition.{key}"
        results = _field_results(comp, field_name, spec.get(key), outcomes)
        if results is None:
            continue
        try:
            values = [convert.to_object(v, i, type_name) for i, v in enumerate(results)]
            _zip_check(ids, len(values))
        except (ExtractionError, convert.ConversionError) as exc:
            comp.errors.append(FieldError(field_name, str(exc)))
            continue
        attr = {"podTemplateSpecPath": "pod_template", "podSpecPath": "pod_spec", "metadataPath": "metadata"}[key]
        for instance, value in zip(ordered, values):
            setattr(instance, attr, value)


def _extract_scale(data: Dict[str, Any], ids: List[str], ordered: List[Instance], outcomes: Dict[str, Outcome], comp: Component) -> None:
    scale_def = data.get("scaleDefinition")
    if not isinstance(scale_def, dict):
        return
    columns: Dict[str, List[Optional[int]]] = {}
    failed = False
    for key in SCALE_PATHS:
        field_name = f"scaleDefinition.{key}"
        expression = scale_def.get(key)
        if not isinstance(expression, str) or expression == "":
            columns[key] = []
            continue
        results = _field_results(comp, field_name, expression, outcomes)
        if results is None:
            failed = True
            continue
        try:
            columns[key] = [convert.to_replicas(v, i) for i, v in enumerate(results)]
        except convert.ConversionError as exc:
            comp.errors.append(FieldError(field_name, str(exc)))
            failed = True
    if failed:
        for instance in ordered:
            instance.scale_failed = True
        return
    count = max(len(column) for column in columns.values())
    try:
        _zip_check(ids, count)
    except ExtractionError as exc:
        comp.errors.append(FieldError("scaleDefinition", str(exc)))
        for instance in ordered:
            instance.scale_failed = True
        return
    for index, instance in enumerate(ordered):
        def at(key: str) -> Optional[int]:
            column = columns.get(key, [])
            return column[index] if index < len(column) else None

        instance.scale = Scale(replicas=at("replicasPath"), min=at("minReplicasPath"), max=at("maxReplicasPath"))


def _fragment_value(key: str, value: Any, index: int) -> Any:
    kind = _FRAGMENT_TYPES[key]
    if kind == "string":
        return convert.to_string(value, index)
    if kind == "map":
        return convert.to_string_map(value, index)
    if kind.startswith("[]"):
        return convert.to_object_list(value, index, kind)
    return convert.to_object(value, index, kind) if value is not None else None


def _extract_fragments(data: Dict[str, Any], ids: List[str], ordered: List[Instance], outcomes: Dict[str, Outcome], comp: Component) -> None:
    frag = as_dict(data.get("specDefinition")).get("fragmentedPodSpecDefinition")
    if not isinstance(frag, dict):
        return
    columns: Dict[str, List[Any]] = {}
    failed = False
    for key in FRAGMENTED_PATHS:
        field_name = f"specDefinition.fragmentedPodSpecDefinition.{key}"
        results = _field_results(comp, field_name, frag.get(key), outcomes)
        if results is None:
            failed = failed or (isinstance(frag.get(key), str) and frag.get(key) != "")
            continue
        try:
            columns[key] = [_fragment_value(key, v, i) for i, v in enumerate(results)]
        except convert.ConversionError as exc:
            comp.errors.append(FieldError(field_name, str(exc)))
            failed = True
    if failed:
        return
    count = max((len(c) for c in columns.values()), default=0)
    try:
        _zip_check(ids, count)
    except ExtractionError as exc:
        comp.errors.append(FieldError("specDefinition.fragmentedPodSpecDefinition", str(exc)))
        return
    for index, instance in enumerate(ordered):
        instance.fragments = {_FRAGMENT_KEYS[key]: column[index] for key, column in columns.items() if index < len(column)}


def _account(instance: Instance, comp: Component) -> None:
    label = "" if instance.id is None else f"[{instance.id}]"
    try:
        if instance.pod_template is not None or instance.pod_spec is not None:
            instance.per_replica = resources.pod_spec(instance.effective_pod_spec)
        elif instance.fragments is not None:
            instance.per_replica = resources.fragments(instance.fragments)
    except resources.ResourceError as exc:
        comp.errors.append(FieldError("specDefinition", f"instance{label}: {exc}"))


# -- status ------------------------------------------------------------------------------------

def _status(view: WorkloadView, prepared: PreparedDefinition, outcomes: Dict[str, Outcome]) -> None:
    root = prepared.components[0].data if prepared.components and prepared.components[0].is_root else None
    if not root or not isinstance(as_dict(root).get("statusDefinition"), dict):
        view.statuses = []  # no status definition at all
        return
    status_def = as_dict(root).get("statusDefinition")  # present, even empty: no match gives [Undefined]
    errors = view.root.errors if view.root else view.errors
    phase: Optional[str] = None
    phase_def = as_dict(status_def.get("phaseDefinition"))
    if phase_def:
        try:
            results = _results(outcomes, phase_def.get("path")) if isinstance(phase_def.get("path"), str) else []
            phase = convert.to_string(results[0], 0) if results else ""
        except (ExtractionError, convert.ConversionError) as exc:
            errors.append(FieldError("statusDefinition.phaseDefinition.path", str(exc)))
    view.phase = phase
    conditions = _conditions(as_dict(status_def.get("conditionsDefinition")), outcomes, errors)
    view.conditions = list(conditions.values())
    mappings = as_dict(status_def.get("statusMappings"))
    matched = []
    for status in STATUS_ORDER:
        key = status[0].lower() + status[1:]
        for index, matcher in enumerate(as_list(mappings.get(key))):
            try:
                hit = isinstance(matcher, dict) and _matches(matcher, phase, conditions, outcomes)  # a string matcher never matches
            except ExtractionError as exc:
                errors.append(FieldError(f"statusDefinition.statusMappings.{key}[{index}]",
                                         f"failed to match status: failed to evaluate matcher: {exc}"))
                continue
            if hit:
                matched.append(status)
                view.matched_matchers.append((key, index))
                break
    view.statuses = matched or ["Undefined"]


def _conditions(cond_def: Dict[str, Any], outcomes: Dict[str, Outcome], errors: List[FieldError]) -> Dict[str, Dict[str, str]]:
    if not cond_def or not isinstance(cond_def.get("path"), str):
        return {}
    names = {key: cond_def.get(key) if isinstance(cond_def.get(key), str) else default
             for key, default in CONDITION_FIELD_DEFAULTS.items()}
    try:
        results = _results(outcomes, cond_def["path"])
    except ExtractionError as exc:
        errors.append(FieldError("statusDefinition.conditionsDefinition.path", str(exc)))
        return {}
    out: Dict[str, Dict[str, str]] = {}
    for index, value in enumerate(results):
        if value is None:
            continue
        if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
            errors.append(FieldError("statusDefinition.conditionsDefinition.path",
                                     f"failed to convert object at index {index} to type []map[string]interface {{}}"))
            continue
        for item in value:
            def read(key: str) -> str:
                name = names[key]
                got = item.get(name) if name else None
                return got if isinstance(got, str) else ""

            ctype = read("typeFieldName")
            out[ctype] = {"type": ctype, "status": read("statusFieldName"), "reason": read("reasonFieldName"),
                          "message": read("messageFieldName")}
    return out


def _matches(matcher: Dict[str, Any], phase: Optional[str], conditions: Dict[str, Dict[str, str]], outcomes: Dict[str, Outcome]) -> bool:
    for key, kind in (("byPhase", str), ("byConditions", list), ("byExpression", dict)):
        if matcher.get(key) is not None and not isinstance(matcher.get(key), kind):
            return False  # a criterion of the wrong type (a string byExpression) never matches
    by_phase = matcher.get("byPhase")
    if isinstance(by_phase, str) and by_phase != "":
        if phase is None or phase != by_phase:
            return False
    for entry in as_list(matcher.get("byConditions")):
        entry = as_dict(entry)
        actual = conditions.get(entry.get("type")) if isinstance(entry.get("type"), str) else None
        if actual is None:
            return False
        for key in ("status", "reason"):
            expected = entry.get(key)
            if isinstance(expected, str) and expected != "" and actual[key] != expected:
                return False
    by_expression = as_dict(matcher.get("byExpression"))
    if by_expression:
        expression = by_expression.get("expression")
        results = _results(outcomes, expression) if isinstance(expression, str) and expression else []
        if not results:
            return False
        expected = by_expression.get("expectedResult")
        if convert.tostring(results[0]) != (expected if isinstance(expected, str) else str(expected)):
            return False
    return True
