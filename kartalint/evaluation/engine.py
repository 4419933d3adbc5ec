"""Apply a Karta definition to a workload object (spec §3): the evaluation engine.

``Evaluator`` keeps one jq worker and per-definition preparation (validation, expression list)
across calls; ``evaluate(definition, obj, pods)`` builds a ``WorkloadView``. Every workload
expression of the definition is evaluated in one jq run on the object (``jqexec``); pods get one
run each. Extraction problems are recorded on their component and field and the rest of the view
is still computed.
"""

from __future__ import annotations

import contextlib
import gc
import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from kartalint import karta
from kartalint.errors import ArgumentError
from kartalint.evaluation import gang
from kartalint.evaluation import pods as podmap
from kartalint.evaluation import values as convert
from kartalint.evaluation.extract import (
    ExtractionError,
    account,
    expression_results,
    extract_fragments,
    extract_scale,
    extract_specs,
    field_error,
)
from kartalint.evaluation.jqexec import JqSession, Outcome
from kartalint.evaluation.status import match_status
from kartalint.evaluation.view import Component, FieldError, Instance, PodLists, ReadTexts, WorkloadView
from kartalint.jqlang.runner import DEFAULT_TIMEOUT, BoundedRunner
from kartalint.karta import as_dict
from kartalint.load.nodes import MAX_DEPTH
from kartalint.rules._copies import unmultiplied_by_parent


@dataclass
class PreparedDefinition:
    """What does not depend on the object: components, expressions, validation messages."""

    data: dict[str, Any]
    name: str | None
    components: list[karta.ComponentRef]
    workload_expressions: list[str]
    pod_expressions: list[str]
    invalid: list[str] = field(default_factory=list)
    any_scale: bool = False
    unreadable: str | None = None  # the definition is not JSON data (too deep, NaN, ...)
    refused: dict[str, str] = field(default_factory=dict)  # expression -> why it is never run (jq modules)
    unmultiplied: dict[str, list[str]] = field(default_factory=dict)  # parent-scale-not-multiplied's pairs


def prepare(definition: dict[str, Any]) -> PreparedDefinition:
    """What a definition gives before any object is seen: its components, its workload and pod
    expressions (each once, in order; ``actionPath`` left out), the expressions refused before they run
    (jq modules), and why upstream would refuse the definition (``invalid``, empty when it would not)."""
    comps = karta.components(definition)
    workload: list[str] = []
    pod: list[str] = []
    for jq_field in karta.jq_fields(definition):
        if jq_field.kind == "actionPath":
            continue
        (pod if jq_field.target == "pod" else workload).append(jq_field.expression)
    name = as_dict(as_dict(definition).get("metadata")).get("name")
    refused = {e: m for e in dict.fromkeys(workload + pod) for m in [_module_directive(e)] if m}
    return PreparedDefinition(
        refused=refused,
        data=definition,
        name=name if isinstance(name, str) else None,
        components=comps,
        workload_expressions=list(dict.fromkeys(workload)),
        pod_expressions=list(dict.fromkeys(pod)),
        invalid=_parity(definition)
        or (
            []
            if any(c.is_root for c in comps)
            else ["spec.structureDefinition.rootComponent is required (a component map)"]
        ),
        any_scale=any(isinstance(c.data.get("scaleDefinition"), dict) for c in comps),
        unmultiplied=unmultiplied_by_parent(definition),
    )


def _module_directive(expression: str) -> str | None:
    """Why an expression is refused before it runs: it reads jq modules from files (jq-unsafe)."""
    from kartalint.jqlang import parse_cached

    tree, _ = parse_cached(expression)
    if tree is None:
        return None
    for node in tree.walk():
        if node.kind == "directive":
            return f"'{node.value}' reads jq modules from files; refused (jq-unsafe)"
    return None


def _parity(definition: dict[str, Any]) -> list[str]:
    from kartalint.rules.document import parity_messages

    try:
        return parity_messages(definition)
    except RecursionError:  # pragma: no cover - depth is bounded before; kept as the last guard
        return ["the definition is nested too deeply to check"]


def _workload_meta(obj: Any) -> dict[str, str | None]:
    obj = as_dict(obj)
    meta = as_dict(obj.get("metadata"))

    def text(value: Any) -> str | None:
        return value if isinstance(value, str) else None

    return {
        "apiVersion": text(obj.get("apiVersion")),
        "kind": text(obj.get("kind")),
        "name": text(meta.get("name")),
        "namespace": text(meta.get("namespace")),
    }


class Evaluator:
    """Reusable evaluation context (one jq worker process). Use as a context manager."""

    def __init__(
        self,
        timeout: float = DEFAULT_TIMEOUT,
        runner: BoundedRunner | None = None,
        batch: bool = True,
        force: bool = False,
    ) -> None:
        """``timeout``: seconds each jq run may take (above 0, at most 3600; ``ArgumentError``
        otherwise). ``runner``: a jq worker to share, closed by whoever made it; without one the
        evaluator starts and closes its own. ``batch`` False runs every expression on its own (the
        benchmark's comparison). ``force`` evaluates invalid definitions too, their "invalid karta"
        errors kept in the view."""
        check_timeout(timeout)
        self.force = force  # evaluate invalid definitions too (their "invalid karta" errors stay in the view)
        self._own_runner = runner is None
        self.runner = runner or BoundedRunner(timeout=timeout)
        self.session = JqSession(self.runner, batch=batch)
        self._prepared: dict[str, PreparedDefinition] = {}

    def start(self) -> Evaluator:
        """Start the jq worker now, before large inputs are read (``BoundedRunner.start``)."""
        self.runner.start()
        return self

    def close(self) -> None:
        """Stop the jq worker, unless it was handed in (then its owner stops it)."""
        if self._own_runner:
            self.runner.close()

    def __enter__(self) -> Evaluator:
        """The evaluator itself; leaving the ``with`` block closes it."""
        return self

    def __exit__(self, *exc: Any) -> None:
        """Close the evaluator (``close``); an exception of the ``with`` block propagates."""
        self.close()

    def prepare(self, definition: dict[str, Any]) -> PreparedDefinition:
        """``prepare(definition)``, kept per definition text (at most 512, on a private copy with
        string keys). A definition that is not JSON data (too deep, NaN) is prepared with
        ``unreadable`` set; one that is not a dict raises ``ArgumentError``."""
        if not isinstance(definition, dict):
            raise ArgumentError(f"definition must be a dict (a Karta document), not {type(definition).__name__}")
        key, problem = json_text(definition)
        if key is None:
            return PreparedDefinition(
                data={},
                name=None,
                components=[],
                workload_expressions=[],
                pod_expressions=[],
                invalid=[],
                any_scale=False,
                unreadable=f"the definition cannot be read: {problem}",
            )
        prepared = self._prepared.get(key)
        if prepared is None:
            if len(self._prepared) > 512:
                self._prepared.clear()
            prepared = self._prepared[key] = prepare(json.loads(key))  # a private copy, keys as strings
        return prepared

    def evaluate(self, definition: dict[str, Any], obj: Any, pods: Sequence[Any] | None = None) -> WorkloadView:
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
        return self._fill(view, prepared, obj, outcomes, pods)

    def evaluate_many(
        self, definition: dict[str, Any], objects: Sequence[Any], pods: PodLists = None, read: ReadTexts = None
    ) -> list[WorkloadView]:
        """``[evaluate(definition, obj, pods) for each object]``, with the objects streamed through the jq
        worker in batches (each object keeps its own time limit and errors). ``pods``, ``read``: per object its
        pods (or None), the JSON text it was read from (or None), handed to jq as it is (plain_json.reusable)."""
        if pods is not None and (not isinstance(pods, (list, tuple)) or len(pods) != len(objects)):
            raise ArgumentError("pods must be None or hold one entry (a list of pods or None) per object")
        views: list[WorkloadView | None] = [None] * len(objects)
        prepared = self.prepare(definition)
        streamed, texts, read = [], [], read or [None] * len(objects)
        for index, obj in enumerate(objects):
            text = None if prepared.unreadable or prepared.invalid or (pods and pods[index] is not None) else ""
            text = text if text is None else read[index] or to_json(obj)
            if text is None:  # the general path says what is wrong (or evaluates the pods too)
                views[index] = self.evaluate(definition, obj, pods[index] if pods else None)
            else:
                streamed.append(index)
                texts.append(text)
        runnable = [e for e in prepared.workload_expressions if e not in prepared.refused]
        with _collector_paused():
            for position, outcomes in self.session.run_many(runnable, texts):
                index = streamed[position]
                outcomes.update({e: Outcome(error=m) for e, m in prepared.refused.items()})
                views[index] = self._view(prepared, objects[index], outcomes)
        return [view for view in views if view is not None]

    def evaluate_all(self, items: Sequence[tuple[dict[str, Any], Any, Sequence[Any] | None]]) -> list[WorkloadView]:
        """``[evaluate(definition, obj, pods) for definition, obj, pods in items]``, each definition's
        objects evaluated together by ``evaluate_many`` (``kartalint test``, ``diff``, ``describe``)."""
        groups: dict[int, list[int]] = {}
        for index, (definition, _obj, _pods) in enumerate(items):
            groups.setdefault(id(definition), []).append(index)
        views: list[WorkloadView | None] = [None] * len(items)
        for indexes in groups.values():
            definition = items[indexes[0]][0]
            objects = [items[i][1] for i in indexes]
            pods = [items[i][2] for i in indexes]
            for index, view in zip(indexes, self.evaluate_many(definition, objects, pods), strict=True):
                views[index] = view
        return [view for view in views if view is not None]

    def _view(self, prepared: PreparedDefinition, obj: Any, outcomes: dict[str, Outcome]) -> WorkloadView:
        """The view of a valid definition on an object without pods, from its jq outcomes."""
        view = WorkloadView(workload=_workload_meta(obj), definition=prepared.name, pods_given=False)
        return self._fill(view, prepared, obj, outcomes, None)

    def _fill(
        self,
        view: WorkloadView,
        prepared: PreparedDefinition,
        obj: Any,
        outcomes: dict[str, Outcome],
        pods: Sequence[Any] | None,
    ) -> WorkloadView:
        """Components, statuses, pods (when given) and gang groups of ``view`` from the outcomes."""
        view.components = _build_components(prepared, outcomes)
        match_status(view, prepared, outcomes)
        records = podmap.assign(view, prepared, list(pods), self.session) if pods is not None else None
        view.gang = gang.describe(view, prepared, obj, records)
        return view

    def _run(self, expressions: list[str], obj: Any, view: WorkloadView, refused: dict[str, str]) -> dict[str, Outcome]:
        text, problem = json_text(obj)
        if text is None:
            message = f"the object cannot be handed to jq ({problem})"
            view.errors.append(FieldError("object", message))
            return {e: Outcome(error=message) for e in expressions}
        outcomes = self.session.run([e for e in expressions if e not in refused], text=text)
        outcomes.update({e: Outcome(error=refused[e]) for e in expressions if e in refused})
        return outcomes


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """No cyclic garbage collection while a batch is evaluated: with many objects alive, each full
    collection walks all of them, and it took half the time of evaluate_many (views hold no cycles;
    what a batch leaves is collected afterwards)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def to_json(value: Any) -> str | None:
    """JSON text of a decoded object (YAML timestamps and other scalars become strings), or None."""
    return json_text(value)[0]


def json_text(value: Any) -> tuple[str | None, str]:
    """(JSON text, "") of data (non-string keys become strings, as in Kubernetes), or (None, why not)."""
    text: str | None = None
    try:
        text = json.dumps(value, default=str, allow_nan=False)
    except RecursionError:
        text = None
    except (ValueError, TypeError) as exc:
        if not _too_deep(value, MAX_DEPTH):
            return None, f"not JSON data ({exc})"
    # fewer opening brackets than the limit (strings' brackets count too) cannot nest deeper
    if text is None or text.count("{") + text.count("[") > MAX_DEPTH:
        if _too_deep(value, MAX_DEPTH):
            return None, f"nested deeper than {MAX_DEPTH} levels"
        if text is None:  # pragma: no cover - a depth Python's encoder cannot take is above MAX_DEPTH
            return None, "not JSON data (nested too deeply)"
    return text, ""


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


def _readable_pods(pods: Sequence[Any]) -> tuple[list[dict[str, Any]], list[str]]:
    out, problems = [], []
    for index, pod in enumerate(pods):
        text, problem = json_text(pod) if isinstance(pod, dict) else (None, f"a {type(pod).__name__}, not a pod object")
        if text is None:
            problems.append(f"pods[{index}] is left out: {problem}")
        else:
            out.append(json.loads(text))
    return out, problems


def check_timeout(timeout: Any) -> None:
    """Raise ``ArgumentError`` unless ``timeout`` is a number of seconds above 0 and at most 3600
    (booleans, NaN and infinity are refused)."""
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, (int, float))
        or not math.isfinite(timeout)
        or not 0 < timeout <= 3600
    ):
        raise ArgumentError(f"timeout must be a number of seconds above 0 and at most 3600, not {timeout!r}")


def evaluate(
    definition: dict[str, Any], obj: Any, pods: Sequence[Any] | None = None, *, timeout: float = DEFAULT_TIMEOUT
) -> WorkloadView:
    """Apply ``definition`` (a Karta as a dict) to ``obj`` (a workload object as a dict), with
    optional ``pods``; returns a ``WorkloadView`` (``to_dict()`` = ``describe -o json``)."""
    with Evaluator(timeout=timeout) as evaluator:
        return evaluator.evaluate(definition, obj, pods)


# -- components and instances ------------------------------------------------------------------


def _has_pod_definition(comp: dict[str, Any]) -> bool:
    spec = as_dict(comp.get("specDefinition"))
    return any(
        key in spec and spec[key] is not None
        for key in ("podTemplateSpecPath", "podSpecPath", "fragmentedPodSpecDefinition")
    )


def _instance_ids(comp: dict[str, Any], outcomes: dict[str, Outcome]) -> list[str]:
    expr = comp.get("instanceIdPath")
    if not isinstance(expr, str) or expr == "":
        return [""]
    ids = [convert.to_string(value, i) for i, value in enumerate(expression_results(outcomes, expr))]
    if any(i == "" for i in ids):
        raise ExtractionError(f"instance id path contained empty string values {json.dumps(ids)}")
    return ids


def _build_components(prepared: PreparedDefinition, outcomes: dict[str, Outcome]) -> list[Component]:
    built: list[Component] = []
    by_name: dict[str, Component] = {}
    for ref in prepared.components:
        comp = _component(ref, outcomes)
        comp.unmultiplied = prepared.unmultiplied.get(comp.name, [])
        built.append(comp)
        by_name.setdefault(comp.name, comp)
    for comp in built[1:]:
        parent = by_name.get(comp.owner or "")
        if parent is not None and parent is not comp and not _is_ancestor(comp, parent, by_name):
            parent.children.append(comp)
    return built


def _is_ancestor(candidate: Component, node: Component | None, by_name: dict[str, Component]) -> bool:
    seen: set[str] = set()
    while node is not None and node.name not in seen:
        if node is candidate:
            return True
        seen.add(node.name)
        node = by_name.get(node.owner or "")
    return False


def _component(ref: karta.ComponentRef, outcomes: dict[str, Outcome]) -> Component:
    data = ref.data
    raw_name = data.get("name")
    name = raw_name if isinstance(raw_name, str) else ""
    kind = data.get("kind") if isinstance(data.get("kind"), dict) else None
    owner = data.get("ownerRef") if isinstance(data.get("ownerRef"), str) and not ref.is_root else None
    multi = isinstance(data.get("instanceIdPath"), str) and data.get("instanceIdPath") != ""
    comp = Component(
        name=name,
        kind={k: str(kind.get(k, "")) for k in ("group", "version", "kind")} if kind else None,
        owner=owner,
        has_pod_definition=_has_pod_definition(data),
        multi_instance=multi,
    )
    try:
        ids = _instance_ids(data, outcomes)
    except (ExtractionError, convert.ConversionError) as exc:
        comp.errors.append(field_error("instanceIdPath", exc))
        return comp
    records: dict[str, Instance] = {i: Instance(id=i if multi else None) for i in ids}
    ordered = [records[i] for i in ids]  # aligned by index; duplicates share (last wins) below
    extract_specs(data, ids, ordered, outcomes, comp)
    extract_scale(data, ids, ordered, outcomes, comp)
    extract_fragments(data, ids, ordered, outcomes, comp)
    final: dict[str, Instance] = {}
    for index, instance_id in enumerate(ids):
        if instance_id in final and instance_id not in comp.duplicate_ids:
            comp.duplicate_ids.append(instance_id)
        final[instance_id] = ordered[index]
    comp.instances = [final[i] for i in sorted(final)]
    for instance in comp.instances:
        account(instance, comp)
    return comp


# -- status ------------------------------------------------------------------------------------
