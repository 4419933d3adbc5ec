"""jq for hovers and code lenses, off the request path.

One thread runs every jq evaluation of the server (the values a hover shows, the fixtures' outcome
a code lens shows), one job at a time; requests wait for their job asynchronously and only as long
as they choose, so a runaway expression never keeps another request (document symbols, completion,
diagnostics) waiting. Each version of a document has a jq time budget (``DOCUMENT_BUDGET``): once
its jobs have spent it, further runs on that version fail at once. A change or a close of the
document cancels its jobs: those waiting are dropped, and the one running has its jq worker
stopped. Results are kept per document version, so asking again is free.

The thread is also the one that starts the jq worker (through the project's runner), so the worker
dies with the server (``jqlang.lifetime``: the kernel watches the thread that started it).
"""

from __future__ import annotations

import concurrent.futures
import json
import queue
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from kartalint.jqlang.results import RunResult
from kartalint.jqlang.runner import BATCH, BoundedRunner

DOCUMENT_BUDGET = 20.0  # seconds of jq per version of a document, for all its hovers and lenses


@dataclass
class Budget:
    """The jq time left to one version of a document, and whether that version is gone."""

    seconds: float = DOCUMENT_BUDGET
    spent: float = 0.0
    cancelled: bool = False

    def left(self) -> float:
        """Seconds of the budget left."""
        return self.seconds - self.spent

    @property
    def over(self) -> bool:
        """Whether the budget is spent or its document's version is gone."""
        return self.cancelled or self.left() <= 0


class BudgetedRunner:
    """The project's runner, as one document's job sees it: each run's time limit is at most what
    is left of the budget, time spent is counted, and once the budget is spent (or the document
    changed) every run fails at once. Quacks like ``BoundedRunner`` for ``Evaluator``."""

    def __init__(self, runner: BoundedRunner, budget: Budget) -> None:
        """``runner``, each run bounded by what is left of ``budget`` (and its own timeout)."""
        self.runner = runner
        self.budget = budget
        self.timeout = runner.timeout
        self.max_results = runner.max_results

    def _refusal(self) -> RunResult:
        if self.budget.cancelled:
            return RunResult(error="not run: the document changed")
        return RunResult(
            error=f"not run: this version of the document spent its jq time budget ({self.budget.seconds:g} s)",
            timed_out=True,
        )

    def run_many(
        self, expression: str, texts: Sequence[str], timeout: float | None = None, batch: int = BATCH
    ) -> Iterator[tuple[int, RunResult]]:
        """``BoundedRunner.run_many`` within the budget: the time spent is charged to it; once it is over, every
        run fails at once."""
        done: set[int] = set()
        if not self.budget.over:
            limit = min(self.timeout if timeout is None else timeout, max(0.05, self.budget.left()))
            self.runner.start()  # (a worker's start is not the document's jq time)
            started = time.monotonic()
            try:
                for index, result in self.runner.run_many(expression, texts, limit, batch):
                    done.add(index)
                    yield index, result
                    if self.budget.over:
                        break
            finally:
                self.budget.spent += time.monotonic() - started
        for index in range(len(texts)):
            if index not in done:
                yield index, self._refusal()

    def run_text(self, expression: str, text: str, timeout: float | None = None) -> RunResult:
        """Run ``expression`` on the JSON ``text`` within the budget."""
        ((_, result),) = self.run_many(expression, [text], timeout)
        return result

    def run(self, expression: str, value: Any, timeout: float | None = None) -> RunResult:
        """Run ``expression`` on ``value`` (sent as JSON) within the budget."""
        return self.run_text(expression, json.dumps(value), timeout)

    def start(self) -> None:
        """Start the jq worker (its start is not charged to the budget)."""
        self.runner.start()

    def close(self) -> None:
        """The project's runner outlives the job."""


@dataclass
class _Job:
    uri: str
    generation: int
    key: Any
    work: Callable[[Budget], Any]
    future: concurrent.futures.Future = field(default_factory=concurrent.futures.Future)
    runner: BoundedRunner | None = None


class JqWork:
    """The server's jq thread: ``submit`` a job for a document, ``invalidate`` on change or close."""

    def __init__(self, budget: float = DOCUMENT_BUDGET) -> None:
        """The jq thread's queue of jobs, each document version with ``budget`` seconds of jq."""
        self.budget_seconds = budget
        self._queue: queue.Queue[_Job | None] = queue.Queue()
        self._lock = threading.Lock()
        self._generation: dict[str, int] = {}
        self._budgets: dict[tuple[str, int], Budget] = {}
        self._results: dict[tuple[str, int, Any], concurrent.futures.Future] = {}
        self._current: _Job | None = None
        self._thread: threading.Thread | None = None

    def _started(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="kartalint-jq", daemon=True)
            self._thread.start()

    def budget(self, uri: str) -> Budget:
        """The jq budget of the current version of the document ``uri``."""
        with self._lock:
            generation = self._generation.get(uri, 0)
            return self._budgets.setdefault((uri, generation), Budget(self.budget_seconds))

    def submit(
        self, uri: str, key: Any, work: Callable[[Budget], Any], runner: BoundedRunner | None = None
    ) -> concurrent.futures.Future:
        """The result of ``work(budget)`` run in the jq thread for the current version of ``uri``
        (the same job's result when it was asked for already). ``runner``: the jq worker the job
        uses, stopped if the document changes while the job runs."""
        with self._lock:
            generation = self._generation.get(uri, 0)
            cached = self._results.get((uri, generation, key))
            if cached is not None:
                return cached
            job = _Job(uri, generation, key, work, runner=runner)
            self._results[(uri, generation, key)] = job.future
        self._started()
        self._queue.put(job)
        return job.future

    def invalidate(self, uri: str | None = None) -> None:
        """A document changed or closed (``None``: every document, as when a file is saved): its
        results are forgotten, its waiting jobs dropped, and its running job's worker stopped."""
        with self._lock:
            uris = {uri} if uri is not None else {key[0] for key in self._budgets} | set(self._generation)
            for name in uris:
                old = self._generation.get(name, 0)
                self._generation[name] = old + 1
                budget = self._budgets.pop((name, old), None)
                if budget is not None:
                    budget.cancelled = True
            self._results = {k: v for k, v in self._results.items() if k[0] not in uris}
            current = self._current
        if current is not None and current.uri in uris and current.runner is not None:
            current.runner.interrupt()

    def _loop(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                return
            with self._lock:
                stale = self._generation.get(job.uri, 0) != job.generation
                budget = self._budgets.setdefault((job.uri, job.generation), Budget(self.budget_seconds))
                self._current = None if stale else job
            if stale or not job.future.set_running_or_notify_cancel():
                job.future.cancel()
                continue
            try:
                job.future.set_result(job.work(budget))
            except BaseException as exc:  # (the request that waits says what went wrong)
                job.future.set_exception(exc)
            finally:
                with self._lock:
                    self._current = None

    def stop(self) -> None:
        """Stop the thread once the jobs queued before are done."""
        self._queue.put(None)
