"""Stage 4: compare what a definition makes of an object with what a fixture expects.

``compare(expect, view, lint_rules)`` returns ``Diff`` records for the parts of ``expect`` that do
not hold (partial expectations: only what ``expect`` states is compared; extraction errors are
always compared, and none are expected unless ``expect.errors`` lists them). ``observe(expect,
view, lint_rules)`` returns ``expect`` with every stated value replaced by the observed one (for
``kartalint test --update``); ``snapshot(view)`` is a full expectation for a new fixture.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from kartalint.evaluation.gang_view import POD_GROUP
from kartalint.evaluation.view import Component, FieldError, WorkloadView


@dataclass(frozen=True)
class Diff:
    """A difference between what a case expects and what the definition gave: where, both values, and a note."""

    path: str  # e.g. "replicatedjob[worker].replicas"
    expected: Any
    actual: Any
    note: str = ""  # e.g. "jq: number (1) and null (null) cannot be multiplied"

    @property
    def text(self) -> str:
        """The difference in words: ``path: expected X, got Y (note)``."""
        note = f" ({self.note})" if self.note else ""
        return f"{self.path}: expected {_show(self.expected)}, got {_show(self.actual)}{note}"

    def to_dict(self) -> dict[str, Any]:
        """The difference as the JSON report writes it."""
        return {
            "path": self.path,
            "expected": self.expected,
            "actual": self.actual,
            "note": self.note or None,
            "text": self.text,
        }


def expect_path(diff_path: str, kind: str = "fixture") -> tuple:
    """Where in a fixture (or prediction) file the expectation behind a diff is written, as a key
    path (``Document.span`` finds the nearest existing ancestor)."""

    if kind == "prediction":
        match = re.match(r"^components\[(.*?)\]", diff_path)
        return ("components",) if match else (diff_path.split(".")[0],)
    if diff_path.startswith("errors["):
        return ("expect", "errors")
    head, _, rest = diff_path.partition(".")
    if head in LEAF_KEYS:
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


def _errors_note(comp: Component | None, *fields: str) -> str:
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


def component_scale(comp: Component, key: str) -> int | None:
    """A component's ``min`` or ``max``: its instances' summed (a one-instance component's own),
    None when no instance has one."""
    known = [getattr(i.scale, key) for i in comp.instances if i.scale and getattr(i.scale, key) is not None]
    return sum(known) if known else None


def _error_dicts(view: WorkloadView) -> list[dict[str, Any]]:
    return [{"component": comp, "field": e.field, "message": e.message} for comp, e in view.all_errors]


def observed(key: str, stated: Any, view: WorkloadView, lint_rules: Sequence[str] | None) -> Any:
    """The observed value of top-level expectation ``key``, shaped like ``stated``."""
    expectation = EXPECTATIONS.get(key)
    return expectation.observe(stated, view, lint_rules) if expectation is not None else stated


def _observed_components(stated: Any, view: WorkloadView) -> dict[str, Any]:
    out = {}
    for name, fields in (stated or {}).items():
        comp = view.component(name)
        if comp is not None:
            out[name] = _observed_component(comp, fields if isinstance(fields, dict) else {})
    return out


def _observed_component(comp: Component, fields: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in fields or {"replicas": None, "gpus": None}:
        if key == "replicas":
            out[key] = comp.desired_if_known
        elif key in ("min", "max"):
            out[key] = component_scale(comp, key)
        elif key in RESOURCE_KEYS:
            out[key] = getattr(comp.resources, RESOURCE_KEYS[key])
        elif key == "pods":
            out[key] = [p.name for p in comp.pods]
        elif key == "instances":
            shape = fields.get("instances") or {}
            sample = next(iter(shape.values()), None) if isinstance(shape, dict) else None
            keys = list(sample) if isinstance(sample, dict) and sample else ["replicas", "gpus"]
            out[key] = {
                str(i.id if i.id is not None else ""): {k: _instance_value(i, k) for k in keys} for i in comp.instances
            }
    return out


def _observed_gang(stated: dict[str, Any], view: WorkloadView) -> dict[str, Any]:
    gang = view.gang
    out: dict[str, Any] = {}
    for key in stated or {"minAvailable": None, "minSubGroup": None, "subGroups": None}:
        if gang is not None:
            out[key] = gang.expectation(key)
        else:
            out[key] = {} if key == "subGroups" else None
    return out


def _snapshot_components(view: WorkloadView) -> dict[str, Any] | None:
    components: dict[str, Any] = {}
    pinned = view.pods_given  # with pods, the snapshot pins where each pod goes (a selector regression fails)
    for comp in view.components:
        if comp.multi_instance:
            instances = {}
            for i in comp.instances:
                instances[i.id] = {"replicas": i.desired, **_bounds(i.scale), "gpus": _instance_value(i, "gpus")}
                if pinned:
                    instances[i.id]["pods"] = _instance_value(i, "pods")
            components[comp.name] = {"instances": instances}
        elif comp.has_pod_definition:
            bounds = _bounds(comp.instances[0].scale if len(comp.instances) == 1 else None)
            components[comp.name] = {"replicas": comp.desired_if_known, **bounds, "gpus": comp.resources.gpus}
        else:
            if not (pinned and comp.pods):
                continue
            components[comp.name] = {}
        if pinned:
            components[comp.name]["pods"] = sorted(p.name for p in comp.pods)
    return components or None


def _bounds(scale: Any) -> dict[str, int]:
    """``min`` and ``max`` of an instance's scale, where its definition gives them (a new fixture pins them)."""
    return {key: getattr(scale, key) for key in ("min", "max") if scale is not None and getattr(scale, key) is not None}


def snapshot(view: WorkloadView, lint_rules: Sequence[str] | None = None) -> dict[str, Any]:
    """A full expectation of what the view shows now (new fixtures, ``--update`` of an empty expect):
    every expectation that has something to say, in the table's order."""
    out: dict[str, Any] = {}
    for key, expectation in EXPECTATIONS.items():
        value = expectation.snapshot(view, lint_rules) if expectation.snapshot is not None else None
        if value is not None:
            out[key] = value
    return out


# -- comparison ----------------------------------------------------------------------------------


def compare(expect: dict[str, Any], view: WorkloadView, lint_rules: Sequence[str] | None = None) -> list[Diff]:
    """The differences between ``expect`` and ``view``, key by key (``lint_rules``: the rules lint reports on the
    definition, for ``expect.lint``)."""
    diffs: list[Diff] = []
    for key, stated in expect.items():
        expectation = EXPECTATIONS.get(key)
        if expectation is not None and expectation.compare is not None:
            diffs.extend(expectation.compare(stated, view, lint_rules))
    diffs.extend(_compare_errors(expect.get("errors"), "errors" in expect, view))
    return diffs


def _compare_statuses(stated: Any, view: WorkloadView, _lint: Sequence[str] | None) -> list[Diff]:
    if sorted(set(stated or [])) == sorted(set(view.statuses)):
        return []
    return [Diff("statuses", list(stated or []), list(view.statuses), _errors_note(view.root, "statusDefinition"))]


def _compare_phase(stated: Any, view: WorkloadView, _lint: Sequence[str] | None) -> list[Diff]:
    if stated == view.phase:
        return []
    return [Diff("phase", stated, view.phase, _errors_note(view.root, "statusDefinition.phaseDefinition"))]


def _compare_resource(key: str) -> Callable[[Any, WorkloadView, Sequence[str] | None], list[Diff]]:
    def compare_total(stated: Any, view: WorkloadView, _lint: Sequence[str] | None) -> list[Diff]:
        actual = getattr(view.resources, RESOURCE_KEYS[key])
        return [Diff(key, stated, actual)] if stated != actual else []

    return compare_total


def _compare_components(stated: Any, view: WorkloadView, _lint: Sequence[str] | None) -> list[Diff]:
    diffs: list[Diff] = []
    for name, fields in (stated or {}).items():
        diffs.extend(_compare_component(name, fields if isinstance(fields, dict) else {}, view))
    return diffs


def _compare_lint(stated: Any, view: WorkloadView, lint_rules: Sequence[str] | None) -> list[Diff]:
    if lint_rules is None or sorted(set(stated or [])) == sorted(set(lint_rules)):
        return []
    return [Diff("lint", sorted(set(stated or [])), sorted(set(lint_rules)))]


def _compare_unmatched(stated: Any, view: WorkloadView, _lint: Sequence[str] | None) -> list[Diff]:
    if sorted(stated or []) == sorted(view.unmatched_pods):
        return []
    return [Diff("unmatchedPods", sorted(stated or []), sorted(view.unmatched_pods))]


def _compare_component(name: str, fields: dict[str, Any], view: WorkloadView) -> list[Diff]:
    comp = view.component(name)
    if comp is None:
        return [Diff(name, "a component", "no such component in the definition")]
    diffs = []
    for key, stated in fields.items():
        if key in ("replicas", "min", "max"):
            actual = comp.desired_if_known if key == "replicas" else component_scale(comp, key)
            if stated != actual:
                diffs.append(
                    Diff(f"{name}.{key}", stated, actual, _errors_note(comp, "scaleDefinition", "instanceIdPath"))
                )
        elif key in RESOURCE_KEYS:
            actual = getattr(comp.resources, RESOURCE_KEYS[key])
            if stated != actual:
                diffs.append(Diff(f"{name}.{key}", stated, actual, _errors_note(comp, "specDefinition")))
        elif key == "pods":
            selected = sorted(p.name for p in comp.pods)
            if sorted(stated or []) != selected:
                diffs.append(Diff(f"{name}.pods", sorted(stated or []), selected))
        elif key == "instances":
            diffs.extend(_compare_instances(name, comp, stated or {}))
    return diffs


def _compare_instances(name: str, comp: Component, stated: dict[str, Any]) -> list[Diff]:
    by_id = {str(i.id if i.id is not None else ""): i for i in comp.instances}
    diffs = []
    if sorted(map(str, stated)) != sorted(by_id):
        diffs.append(
            Diff(f"{name}.instances", sorted(map(str, stated)), sorted(by_id), _errors_note(comp, "instanceIdPath"))
        )
    for instance_id, fields in stated.items():
        instance = by_id.get(str(instance_id))
        if instance is None or not isinstance(fields, dict):
            continue
        for key, value in fields.items():
            actual = (
                _instance_value(instance, key)
                if key in ("replicas", "min", "max", "pods") or key in RESOURCE_KEYS
                else None
            )
            if key == "pods" and isinstance(value, list):
                value = sorted(value)  # a set of pod names
            if value != actual:
                where = "scaleDefinition" if key in SCALE_KEYS else "specDefinition"
                diffs.append(Diff(f"{name}[{instance_id}].{key}", value, actual, _errors_note(comp, where)))
    return diffs


def _compare_gang(stated: Any, view: WorkloadView, _lint: Sequence[str] | None = None) -> list[Diff]:
    stated = stated or {}
    observed_gang = _observed_gang(stated, view)
    return [
        Diff(f"gang.{key}", value, observed_gang.get(key))
        for key, value in stated.items()
        if observed_gang.get(key) != value
    ]


def _compare_errors(stated: Any, was_stated: bool, view: WorkloadView) -> list[Diff]:
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


def _where(item: dict[str, Any]) -> str:
    comp = item.get("component")
    return f"{comp}.{item.get('field')}" if comp else str(item.get("field"))


def _error_matches(expected: dict[str, Any], actual: dict[str, Any]) -> bool:
    if expected.get("component", actual["component"]) != actual["component"]:
        return False
    if expected.get("field", actual["field"]) != actual["field"]:
        return False
    message = expected.get("message")
    return message is None or str(message) in actual["message"]


__all__ = ["Diff", "FieldError", "compare", "observed", "snapshot"]


# -- karta-verify predictions (spec §5) --------------------------------------------------------------


Observe = Callable[[Any, WorkloadView, Sequence[str] | None], Any]
Compare = Callable[[Any, WorkloadView, Sequence[str] | None], list[Diff]]
Snapshot = Callable[[WorkloadView, Sequence[str] | None], Any]


@dataclass(frozen=True)
class Expectation:
    """One top-level key of a fixture's ``expect`` block: what the view says for it (shaped like
    the stated value), how the two compare, what a new fixture pins (``None``: nothing), and
    whether a difference is written at ``expect.<key>`` itself (``leaf``) or deeper."""

    observe: Observe
    compare: Compare | None
    snapshot: Snapshot | None
    leaf: bool = True


def _resource(key: str, pinned: bool) -> Expectation:
    return Expectation(
        lambda _s, view, _l: getattr(view.resources, RESOURCE_KEYS[key]),
        _compare_resource(key),
        (lambda view, _l: getattr(view.resources, RESOURCE_KEYS[key])) if pinned else None,
    )


# The one table of expectations: comparing, snapshots (in this order) and --update read it; the
# fixture schema's ``expect`` properties are these keys (a test keeps them equal).
EXPECTATIONS: dict[str, Expectation] = {
    "statuses": Expectation(
        lambda _s, view, _l: list(view.statuses), _compare_statuses, lambda view, _l: list(view.statuses)
    ),
    "phase": Expectation(lambda _s, view, _l: view.phase, _compare_phase, lambda view, _l: view.phase),
    "components": Expectation(
        lambda stated, view, _l: _observed_components(stated, view),
        _compare_components,
        lambda view, _l: _snapshot_components(view),
        leaf=False,
    ),
    "gpus": _resource("gpus", pinned=True),
    "cpuMillis": _resource("cpuMillis", pinned=False),
    "memoryBytes": _resource("memoryBytes", pinned=False),
    "gang": Expectation(
        lambda stated, view, _l: _observed_gang(stated if isinstance(stated, dict) else {}, view),
        _compare_gang,
        lambda view, _l: _observed_gang({}, view) if view.gang is not None and view.gang.format == POD_GROUP else None,
    ),
    "errors": Expectation(
        lambda _s, view, _l: _error_dicts(view), None, lambda view, _l: _error_dicts(view) or None, leaf=False
    ),
    "lint": Expectation(
        lambda _s, _v, lint_rules: sorted(lint_rules or []),
        _compare_lint,
        lambda _v, lint_rules: sorted(lint_rules) if lint_rules else None,
    ),
    "unmatchedPods": Expectation(
        lambda _s, view, _l: list(view.unmatched_pods),
        _compare_unmatched,
        lambda view, _l: sorted(view.unmatched_pods) if view.pods_given else None,
    ),
}
LEAF_KEYS = frozenset(key for key, expectation in EXPECTATIONS.items() if expectation.leaf)
