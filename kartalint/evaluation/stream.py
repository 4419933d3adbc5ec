"""A stream of objects of any definitions evaluated in input order, the jq worker kept busy (``evaluate_stream``).

``Evaluator.evaluate_many`` takes one definition's objects, all known at once. A fleet summary reads
objects of several definitions one at a time and turns each view into a row: done one batch at a
time, the jq worker waits while a batch is read and its rows are made, and this process waits while
the worker runs. Here the objects of every definition go to the worker in one stream
(``JqSession.run_stream``: each text with its own program, up to ``runner.BATCH`` texts a message),
and the jobs are read one chunk ahead of the worker: while it runs a chunk, this process reads the
next one and makes the views (and the caller its rows) of the one before.

What needs the worker to itself comes in order all the same: at such a job (pods given, a definition
that is invalid or cannot be read, an object jq cannot be handed) or after a text whose joined run
cannot be read (each of its expressions is run again alone), no more jobs are read; once the texts
in flight are done, the waiting ones are run, the views yielded in order and the stream resumed.
At most ``hold`` jobs wait to be yielded (two chunks of texts in flight, and jobs without
evaluation between them): memory is bounded whatever the input.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from kartalint.evaluation.jqexec import Outcome, unique_expressions
from kartalint.evaluation.view import WorkloadView

if TYPE_CHECKING:
    from kartalint.evaluation.engine import Evaluator, PreparedDefinition

Tag = TypeVar("Tag")
# (definition or None: not evaluated, the object, its pods or None, the JSON text it was read from or None, the caller's tag)
Job = tuple[dict[str, Any] | None, Any, Sequence[Any] | None, str | None, Tag]
HOLD = 1024  # jobs waiting to be yielded at most (texts in flight: two chunks of runner.BATCH)


class _Plan:
    """A definition as the stream runs it: prepared once, its runnable expressions and refused outcomes."""

    __slots__ = ("definition", "prepared", "refused", "unique")

    def __init__(self, evaluator: Evaluator, definition: dict[str, Any]) -> None:
        self.definition = definition  # held: the plans are keyed by its id
        self.prepared: PreparedDefinition = evaluator.prepare(definition)
        refused = self.prepared.refused
        self.unique = unique_expressions([e for e in self.prepared.workload_expressions if e not in refused])
        self.refused = {e: Outcome(error=m) for e, m in refused.items()}


class _Waiting(Generic[Tag]):
    """A job read and not yet yielded: its tag, and what its view is made of."""

    __slots__ = ("obj", "outcomes", "plan", "tag", "text")

    def __init__(self, tag: Tag, plan: _Plan | None = None, obj: Any = None, text: str | None = None) -> None:
        self.tag = tag
        self.plan = plan  # None: not evaluated (its view is None)
        self.obj = obj
        self.text = text
        self.outcomes: dict[str, Outcome] | None = None  # when its results are in


class _Segment(Generic[Tag]):
    """The jobs read in one go of the stream: until one needs the worker to itself, a joined run
    cannot be read, ``hold`` jobs wait, or the jobs run out."""

    def __init__(
        self, evaluator: Evaluator, source: Iterator[Job[Tag]], plans: dict[int, _Plan], hold: int, gang: bool
    ) -> None:
        self.evaluator, self.source, self.plans, self.hold, self.gang = evaluator, source, plans, hold, gang
        self.queue: deque[_Waiting[Tag]] = deque()  # read, not yet yielded, in order
        self.sent: dict[int, _Waiting[Tag]] = {}  # by position in the stream, until its results are in
        self.again: list[_Waiting[Tag]] = []  # to run again alone, once the stream is over
        self.blocked: Job[Tag] | None = None  # the job that needs the worker to itself
        self.stop = False  # no more jobs: a text is to run again alone
        self.exhausted = False

    def texts(self) -> Iterator[tuple[tuple, str]]:
        """The expressions and text of each job read, as the worker needs them."""
        positions = itertools.count()
        for job in self.source:
            definition, obj, pods, text, tag = job
            if definition is None:
                self.queue.append(_Waiting(tag))
            else:
                plan = self.plans.get(id(definition))
                if plan is None:
                    plan = self.plans[id(definition)] = _Plan(self.evaluator, definition)
                prepared = plan.prepared
                general = bool(prepared.unreadable or prepared.invalid) or pods is not None
                text = None if general else text if text is not None else _to_json(obj)
                if text is None:
                    self.blocked = job
                    return
                waiting = _Waiting(tag, plan, obj, text)
                self.queue.append(waiting)
                self.sent[next(positions)] = waiting
                yield plan.unique, text
            if self.stop or len(self.queue) >= self.hold:
                return
        self.exhausted = True

    def views(self) -> Iterator[tuple[Tag, WorkloadView | None]]:
        """The jobs of the segment, in order (see the module's docstring)."""
        evaluator, queue = self.evaluator, self.queue
        for position, outcomes in evaluator.session.run_stream(self.texts()):
            waiting = self.sent.pop(position)
            if outcomes is None:
                self.stop = True
                self.again.append(waiting)
                continue
            waiting.outcomes = outcomes
            while queue and (queue[0].outcomes is not None or queue[0].plan is None):
                yield _done(evaluator, queue.popleft(), self.gang)
        for waiting in self.again:  # the worker is free now
            if waiting.plan is not None and waiting.text is not None:
                waiting.outcomes = evaluator.session.run_alone(waiting.plan.unique, waiting.text)
        while queue:
            yield _done(evaluator, queue.popleft(), self.gang)
        if self.blocked is not None:
            definition, obj, pods, _text, tag = self.blocked
            yield tag, evaluator.evaluate(definition or {}, obj, pods)


def evaluate_stream(
    evaluator: Evaluator, jobs: Iterable[Job[Tag]], hold: int = HOLD, gang: bool = True
) -> Iterator[tuple[Tag, WorkloadView | None]]:
    """``(tag, view)`` for each job, in order: ``evaluator.evaluate(definition, obj, pods)``'s view
    (the text, when given, handed to jq as it is, as ``evaluate_many``'s ``read``), or None for a job
    without a definition. ``gang`` False: the views of objects without pods have no gang part
    (``view.gang`` None; the gang part reads the rest of the view and changes nothing in it). See
    the module's docstring."""
    source = iter(jobs)
    plans: dict[int, _Plan] = {}
    while True:
        segment = _Segment(evaluator, source, plans, hold, gang)
        yield from segment.views()
        if segment.exhausted:
            return


def _done(evaluator: Evaluator, waiting: _Waiting[Tag], gang: bool) -> tuple[Tag, WorkloadView | None]:
    plan = waiting.plan
    if plan is None:
        return waiting.tag, None
    outcomes = waiting.outcomes if waiting.outcomes is not None else {}
    if plan.refused:
        outcomes.update(plan.refused)
    view = evaluator._view(plan.prepared, waiting.obj, outcomes, gang)
    waiting.obj = waiting.text = waiting.outcomes = None  # let go as soon as it is yielded
    return waiting.tag, view


def _to_json(obj: Any) -> str | None:
    from kartalint.evaluation.engine import to_json  # lazy: engine imports this module

    return to_json(obj)
