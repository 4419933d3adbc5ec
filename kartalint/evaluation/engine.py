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
from kartalint.evaluation.components import ComponentPlan, build_components, plan_components
from kartalint.evaluation.jqexec import JqSession, Outcome
from kartalint.evaluation.status import StatusPlan, match_status
from kartalint.evaluation.status import plan as plan_status
from kartalint.evaluation.view import FieldError, PodLists, ReadTexts, WorkloadView
from kartalint.jqlang import parse_cached
from kartalint.jqlang.runner import BATCH, DEFAULT_TIMEOUT, BoundedRunner
from kartalint.karta import as_dict
from kartalint.load.nodes import MAX_DEPTH
from kartalint.rules._copies import unmultiplied_by_parent
from kartalint.rules.document import parity_messages


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
    # what the views need, worked out once (the per-object work depends on the object alone)
    component_plans: list[ComponentPlan] = field(default_factory=list)
    parents: list[int | None] = field(default_factory=list)  # the component each one is a child of
    status_plan: StatusPlan | None = None
    gang_plan: Any = None  # gang.PodGroupPlan, the podGroups list, or None


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
    plans, parents = plan_components(comps)
    prepared = PreparedDefinition(
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
        component_plans=plans,
        parents=parents,
        status_plan=plan_status(comps),
    )
    prepared.gang_plan = gang.plan(prepared)
    return prepared


def _module_directive(expression: str) -> str | None:
    """Why an expression is refused before it runs: it reads jq modules from files (jq-unsafe)."""
    tree, _ = parse_cached(expression)
    if tree is None:
        return None
    for node in tree.walk():
        if node.kind == "directive":
            return f"'{node.value}' reads jq modules from files; refused (jq-unsafe)"
    return None


def _parity(definition: dict[str, Any]) -> list[str]:
    try:
        return parity_messages(definition)
    except RecursionError:  # pragma: no cover - depth is bounded before; kept as the last guard
        return ["the definition is nested too deeply to check"]


def _workload_meta(obj: Any) -> dict[str, str | None]:
    obj = as_dict(obj)
    meta = as_dict(obj.get("metadata"))
    return {
        "apiVersion": _text(obj.get("apiVersion")),
        "kind": _text(obj.get("kind")),
        "name": _text(meta.get("name")),
        "namespace": _text(meta.get("namespace")),
    }


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


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
        streamed: list[int] = []  # the object of each text streamed, by position
        general: list[int] = []  # the objects the general path says what is wrong with (or that have pods)

        def texts() -> Iterator[str]:  # made as the worker needs them (it runs while they are made)
            for index, obj in enumerate(objects):
                text = (
                    None
                    if prepared.unreadable or prepared.invalid or (pods and pods[index] is not None)
                    else read[index]
                    if read is not None and read[index] is not None
                    else to_json(obj)
                )
                if text is None:
                    general.append(index)
                else:
                    streamed.append(index)
                    yield text

        # a few objects are sent in one message (their texts made first); many stream, their texts
        # made while the worker runs the chunk before
        stream = texts() if len(objects) > BATCH else list(texts())
        runnable = [e for e in prepared.workload_expressions if e not in prepared.refused]
        refused = {e: Outcome(error=m) for e, m in prepared.refused.items()}
        with _collector_paused():
            for position, outcomes in self.session.run_many(runnable, stream):
                index = streamed[position]
                if refused:
                    outcomes.update(refused)
                views[index] = self._view(prepared, objects[index], outcomes)
        for index in general:
            views[index] = self.evaluate(definition, objects[index], pods[index] if pods else None)
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

    def _view(
        self, prepared: PreparedDefinition, obj: Any, outcomes: dict[str, Outcome], gang: bool = True
    ) -> WorkloadView:
        """The view of a valid definition on an object without pods, from its jq outcomes (without
        its gang part when ``gang`` is False: ``view.gang`` None, the rest the same)."""
        view = WorkloadView(_workload_meta(obj), prepared.name)
        return self._fill(view, prepared, obj, outcomes, None, gang)

    def _fill(
        self,
        view: WorkloadView,
        prepared: PreparedDefinition,
        obj: Any,
        outcomes: dict[str, Outcome],
        pods: Sequence[Any] | None,
        gang_part: bool = True,
    ) -> WorkloadView:
        """Components, statuses, pods (when given) and gang groups (unless ``gang_part`` is False) of
        ``view`` from the outcomes."""
        view.components = build_components(prepared.component_plans, prepared.parents, outcomes)
        if prepared.unmultiplied:  # parent-scale-not-multiplied's pairs, for describe's note
            for comp in view.components:
                comp.unmultiplied = prepared.unmultiplied.get(comp.name, [])
        match_status(view, prepared.status_plan, outcomes)
        records = podmap.assign(view, prepared, list(pods), self.session) if pods is not None else None
        if gang_part:  # read-only on the rest of the view: its problems stay in the gang part
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


# what json.dumps(value, default=str, allow_nan=False) makes, without an encoder made per call
_ENCODER = json.JSONEncoder(default=str, allow_nan=False)


def to_json(value: Any) -> str | None:
    """JSON text of a decoded object (YAML timestamps and other scalars become strings), or None."""
    return json_text(value)[0]


def json_text(value: Any) -> tuple[str | None, str]:
    """(JSON text, "") of data (non-string keys become strings, as in Kubernetes), or (None, why not)."""
    text: str | None = None
    try:
        text = _ENCODER.encode(value)
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
