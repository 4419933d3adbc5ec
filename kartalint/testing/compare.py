"""Stage 4: compare what a definition makes of an object with what a fixture expects.

``compare(expect, view, lint_rules)`` returns ``Diff`` records for the parts of ``expect`` that do
not hold (partial expectations: only what ``expect`` states is compared; extraction errors are
always compared, and none are expected unless ``expect.errors`` lists them). ``observe(expect,
view, lint_rules)`` returns ``expect`` with every stated value replaced by the observed one (for
``kartalint test --update``); ``snapshot(view)`` is a full expectation for a new fixture.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence

from kartalint.evaluation.view import Component, FieldError, WorkloadView


@dataclass(frozen=True)
class Diff:
    path: str  # e.g. "replicatedjob[worker].replicas"
    expected: Any
    actual: Any
    note: str = ""  # e.g. "jq: number (1) and null (null) cannot be multiplied"

    @property
    def text(self) -> str:
        note = f" ({self.note})" if self.note else ""
        return f"{self.path}: expected {_show(self.expected)}, got {_show(self.actual)}{note}"

    def to_dict(self) -> Dict[str, Any]:
        return {"path": self.path, "expected": self.expected, "actual": self.actual, "note": self.note or None,
                "text": self.text}


def expect_path(diff_path: str, kind: str = "fixture") -> tuple:
    """Where in a fixture (or prediction) file the expectation behind a diff is written, as a key
    path (``Document.span`` finds the nearest existing ancestor)."""
    import re

    if kind == "prediction":
        match = re.match(r"^components\[(.*?)\]", diff_path)
        return ("components",) if match else (diff_path.split(".")[0],)
    if diff_path.startswith("errors["):
        return ("expect", "errors")
    head, _, rest = diff_path.partition(".")
    if head in ("statuses", "phase", "lint", "unmatchedPods", "gang") or head in RESOURCE_KEYS:
        return ("expect", head) + ((rest,) if rest else ())
    match = re.match(r"^(.*)\[(.*)\]$", head)
    if match:  # NAME[ID].key
        return ("expect", "components", match.group(1), "instances", match.group(2)) + ((rest,) if rest else ())
    return ("expect", "components", head) + ((rest,) if rest else ())


def _show(value: Any) -> str:
    if isinstance(value, (list, dict)):
        return json.dumps(value, sort_keys=False)
    if value is None:
        return "null"
    return str(value) if not isinstance(value, str) else value


RESOURCE_KEYS = {"gpus": "gpus", "cpuMillis": "cpu_millis", "memoryBytes": "memory_bytes"}
SCALE_KEYS = {"replicas": "desired", "min": "min", "max": "max"}


def _component_desired(comp: Component) -> Optional[int]:
    values = [i.desired for i in comp.instances]
    return None if any(v is None for v in values) else sum(values)  # type: ignore[arg-type]


def _errors_note(comp: Optional[Component], *fields: str) -> str:
    if comp is None:
        return ""
    for error in comp.errors:
        if not fields or any(error.field.startswith(f) for f in fields):
            return f"jq: {error.message}" if "Path" in error.field or error.field == "instanceIdPath" else error.message
    return ""


def _instance_value(instance: Any, key: str) -> Any:
    if key == "replicas":
        return instance.desired
    if key == "pods":
        return sorted(p.name for p in instance.pods or [])
    if key in ("min", "max"):
        return getattr(instance.scale, key) if instance.scale else None
    total = instance.resources
    return None if total is None else getattr(total, RESOURCE_KEYS[key])


def _error_dicts(view: WorkloadView) -> List[Dict[str, Any]]:
    return [{"component": comp, "field": e.field, "message": e.message} for comp, e in view.all_errors]


def observed(key: str, stated: Any, view: WorkloadView, lint_rules: Optional[Sequence[str]]) -> Any:
    """The observed value of top-level expectation ``key``, shaped like ``stated``."""
    if key == "statuses":
        return list(view.statuses)
    if key == "phase":
        return view.phase
    if key in RESOURCE_KEYS:
        return getattr(view.resources, RESOURCE_KEYS[key])
    if key == "errors":
        return _error_dicts(view)
    if key == "lint":
        return sorted(lint_rules or [])
    if key == "unmatchedPods":
        return list(view.unmatched_pods)
    if key == "gang":
        return _observed_gang(stated if isinstance(stated, dict) else {}, view)
    if key == "components":
        out = {}
        for name, fields in (stated or {}).items():
            comp = view.component(name)
            if comp is not None:
                out[name] = _observed_component(comp, fields if isinstance(fields, dict) else {})
        return out
    return stated


def _observed_component(comp: Component, fields: Dict[str, Any]) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for key in fields or {"replicas": None, "gpus": None}:
        if key == "replicas":
            out[key] = _component_desired(comp)
        elif key in RESOURCE_KEYS:
            out[key] = getattr(comp.resources, RESOURCE_KEYS[key])
        elif key == "pods":
            out[key] = [p.name for p in comp.pods]
        elif key == "instances":
            shape = fields.get("instances") or {}
            sample = next(iter(shape.values()), None) if isinstance(shape, dict) else None
            keys = list(sample) if isinstance(sample, dict) and sample else ["replicas", "gpus"]
            out[key] = {str(i.id if i.id is not None else ""): {k: _instance_value(i, k) for k in keys} for i in comp.instances}
    return out


def _observed_gang(stated: Dict[str, Any], view: WorkloadView) -> Dict[str, Any]:
    gang = view.gang or {}
    out: Dict[str, Any] = {}
    for key in stated or {"minAvailable": None, "minSubGroup": None, "subGroups": None}:
        if key == "subGroups":
            out[key] = {s["name"]: s["minAvailable"] for s in gang.get("subGroups", []) or []}
        elif key == "name":
            out[key] = gang.get("nameSuffix")
        else:
            out[key] = gang.get(key)
    return out


def snapshot(view: WorkloadView, lint_rules: Optional[Sequence[str]] = None) -> Dict[str, Any]:
    """A full expectation of what the view shows now (new fixtures, ``--update`` of an empty expect)."""
    out: Dict[str, Any] = {"statuses": list(view.statuses)}
    if view.phase is not None:
        out["phase"] = view.phase
    components: Dict[str, Any] = {}
    pinned = view.pods_given  # with pods, the snapshot pins where each pod goes (a selector regression fails)
    for comp in view.components:
        if comp.multi_instance:
            instances = {}
            for i in comp.instances:
                instances[i.id] = {"replicas": i.desired, "gpus": _instance_value(i, "gpus")}
                if pinned:
                    instances[i.id]["pods"] = _instance_value(i, "pods")
            components[comp.name] = {"instances": instances}
        elif comp.has_pod_definition:
            components[comp.name] = {"replicas": _component_desired(comp), "gpus": comp.resources.gpus}
        else:
            if not (pinned and comp.pods):
                continue
            components[comp.name] = {}
        if pinned:
            components[comp.name]["pods"] = sorted(p.name for p in comp.pods)
    if components:
        out["components"] = components
    out["gpus"] = view.resources.gpus
    if view.gang and view.gang.get("format") == "podGroup":
        out["gang"] = _observed_gang({}, view)
    errors = _error_dicts(view)
    if errors:
        out["errors"] = errors
    if lint_rules:
        out["lint"] = sorted(lint_rules)
    if pinned:
        out["unmatchedPods"] = sorted(view.unmatched_pods)
    return out


# -- comparison ----------------------------------------------------------------------------------

def compare(expect: Dict[str, Any], view: WorkloadView, lint_rules: Optional[Sequence[str]] = None) -> List[Diff]:
    diffs: List[Diff] = []
    for key, stated in expect.items():
        if key == "statuses":
            if sorted(set(stated or [])) != sorted(set(view.statuses)):
                diffs.append(Diff("statuses", list(stated or []), list(view.statuses), _errors_note(view.root, "statusDefinition")))
        elif key == "phase":
            if stated != view.phase:
                diffs.append(Diff("phase", stated, view.phase, _errors_note(view.root, "statusDefinition.phaseDefinition")))
        elif key in RESOURCE_KEYS:
            actual = getattr(view.resources, RESOURCE_KEYS[key])
            if stated != actual:
                diffs.append(Diff(key, stated, actual))
        elif key == "components":
            for name, fields in (stated or {}).items():
                diffs.extend(_compare_component(name, fields if isinstance(fields, dict) else {}, view))
        elif key == "gang":
            diffs.extend(_compare_gang(stated or {}, view))
        elif key == "lint":
            if lint_rules is not None and sorted(set(stated or [])) != sorted(set(lint_rules)):
                diffs.append(Diff("lint", sorted(set(stated or [])), sorted(set(lint_rules))))
        elif key == "unmatchedPods":
            if sorted(stated or []) != sorted(view.unmatched_pods):
                diffs.append(Diff("unmatchedPods", sorted(stated or []), sorted(view.unmatched_pods)))
    diffs.extend(_compare_errors(expect.get("errors"), "errors" in expect, view))
    return diffs


def _compare_component(name: str, fields: Dict[str, Any], view: WorkloadView) -> List[Diff]:
    comp = view.component(name)
    if comp is None:
        return [Diff(name, "a component", "no such component in the definition")]
    diffs = []
    for key, stated in fields.items():
        if key == "replicas":
            actual = _component_desired(comp)
            if stated != actual:
                diffs.append(Diff(f"{name}.replicas", stated, actual, _errors_note(comp, "scaleDefinition", "instanceIdPath")))
        elif key in RESOURCE_KEYS:
            actual = getattr(comp.resources, RESOURCE_KEYS[key])
            if stated != actual:
                diffs.append(Diff(f"{name}.{key}", stated, actual, _errors_note(comp, "specDefinition")))
        elif key == "pods":
            actual = sorted(p.name for p in comp.pods)
            if sorted(stated or []) != actual:
                diffs.append(Diff(f"{name}.pods", sorted(stated or []), actual))
        elif key == "instances":
            diffs.extend(_compare_instances(name, comp, stated or {}))
    return diffs


def _compare_instances(name: str, comp: Component, stated: Dict[str, Any]) -> List[Diff]:
    by_id = {str(i.id if i.id is not None else ""): i for i in comp.instances}
    diffs = []
    if sorted(map(str, stated)) != sorted(by_id):
        diffs.append(Diff(f"{name}.instances", sorted(map(str, stated)), sorted(by_id), _errors_note(comp, "instanceIdPath")))
    for instance_id, fields in stated.items():
        instance = by_id.get(str(instance_id))
        if instance is None or not isinstance(fields, dict):
            continue
        for key, value in fields.items():
            actual = _instance_value(instance, key) if key in ("replicas", "min", "max", "pods") or key in RESOURCE_KEYS else None
            if key == "pods" and isinstance(value, list):
                value = sorted(value)  # a set of pod names
            if value != actual:
                where = "scaleDefinition" if key in SCALE_KEYS else "specDefinition"
                diffs.append(Diff(f"{name}[{instance_id}].{key}", value, actual, _errors_note(comp, where)))
    return diffs


def _compare_gang(stated: Dict[str, Any], view: WorkloadView) -> List[Diff]:
    observed_gang = _observed_gang(stated, view)
    return [Diff(f"gang.{key}", value, observed_gang.get(key)) for key, value in stated.items() if observed_gang.get(key) != value]


def _compare_errors(stated: Any, was_stated: bool, view: WorkloadView) -> List[Diff]:
    actual = _error_dicts(view)
    expected = stated if isinstance(stated, list) else []
    unmatched_actual = list(actual)
    missing = []
    for item in expected:
        item = item if isinstance(item, dict) else {}
        hit = next((a for a in unmatched_actual if _error_matches(item, a)), None)
        if hit is None:
            missing.append(item)
        else:
            unmatched_actual.remove(hit)
    diffs = [Diff(f"errors[{_where(m)}]", m.get("message", "an error"), "no such error") for m in missing]
    for extra in unmatched_actual:
        label = "unexpected extraction error" if not was_stated else "error not listed in expect.errors"
        diffs.append(Diff(f"errors[{_where(extra)}]", "no error", extra["message"], label))
    return diffs


def _where(item: Dict[str, Any]) -> str:
    comp = item.get("component")
    return f"{comp}.{item.get('field')}" if comp else str(item.get("field"))


def _error_matches(expected: Dict[str, Any], actual: Dict[str, Any]) -> bool:
    if expected.get("component", actual["component"]) != actual["component"]:
        return False
    if expected.get("field", actual["field"]) != actual["field"]:
        return False
    message = expected.get("message")
    return message is None or str(message) in actual["message"]


__all__ = ["Diff", "compare", "observed", "snapshot", "FieldError"]


# -- karta-verify predictions (spec §5) --------------------------------------------------------------

def verify_observation(view: WorkloadView) -> Dict[str, Any]:
    """karta-verify's observation: ``status`` and one entry per component instance, keyed
    ``parent/child[instance]`` from the root's children down."""
    entries: List[Dict[str, Any]] = []

    def walk(comp: Component, prefix: str, depth: int) -> None:
        if depth > 32:
            return
        for instance in comp.instances:
            key = prefix + comp.name + (f"[{instance.id}]" if instance.id is not None else "")
            entry: Dict[str, Any] = {"key": key}
            if instance.scale is not None:
                for name, attr in (("replicas", "replicas"), ("minReplicas", "min"), ("maxReplicas", "max")):
                    if getattr(instance.scale, attr) is not None:
                        entry[name] = getattr(instance.scale, attr)
            if comp.has_pod_definition:
                spec = instance.effective_pod_spec
                containers = list((spec or {}).get("containers") or []) if spec is not None else []
                if instance.fragments is not None:
                    containers = list(instance.fragments.get("containers") or [])
                    if instance.fragments.get("container"):
                        containers.append(instance.fragments["container"])
                entry["podSpec"] = spec is not None or instance.fragments is not None
                entry["containers"] = [c.get("name") for c in containers if isinstance(c, dict)]
            entries.append(entry)
            for child in comp.children:
                walk(child, key + "/", depth + 1)

    if view.root is not None:
        for child in view.root.children:
            walk(child, "", 0)
    return {"status": list(view.statuses), "components": entries}


def compare_prediction(prediction: Dict[str, Any], view: WorkloadView) -> List[Diff]:
    observation = verify_observation(view)
    diffs = []
    if "status" in prediction:
        expected = sorted(prediction.get("status") or [])
        if expected != sorted(observation["status"]):
            diffs.append(Diff("status", expected, sorted(observation["status"])))
    by_key = {e["key"]: e for e in observation["components"]}
    for item in prediction.get("components") or []:
        item = item if isinstance(item, dict) else {}
        key = item.get("key")
        got = by_key.get(key)
        if got is None:
            diffs.append(Diff(f"components[{key}]", "a component instance", f"not extracted (extracted: {', '.join(by_key) or 'none'})"))
            continue
        for name, value in item.items():
            if name == "key":
                continue
            actual = got.get(name)
            if name == "containers":
                if sorted(value or []) != sorted(actual or []):
                    diffs.append(Diff(f"components[{key}].containers", sorted(value or []), sorted(actual or [])))
            elif value != actual:
                diffs.append(Diff(f"components[{key}].{name}", value, actual))
    return diffs
