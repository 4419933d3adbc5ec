"""Run a definition's jq expressions on one input, each input handed to jq once.

All expressions that read the same input (the workload object, or one pod) are joined into one
program that returns, per expression, either its complete output stream (capped as upstream
caps it) or its error::

    [ (try {"ok": [limit(1000; (E1
    ))]} catch {"err": .}), ... ]

(``limit`` is left out for expressions whose outputs are certainly finite and bounded by the
input, ``jqlang.finite.finite_output``: it is the costliest part of the program, and a count at the
cap is the same error either way.)

The program text depends only on the definition, so the worker compiles it once and reuses it.
If the joined program cannot run (an expression does not compile, or the whole run exceeds the
timeout), every expression is run on its own so that the failure is attributed to its field.
"""

from __future__ import annotations

import functools
import itertools
import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from kartalint.jqlang import parse_cached
from kartalint.jqlang.finite import finite_output
from kartalint.jqlang.results import RunResult
from kartalint.jqlang.runner import MAX_RESULTS, BoundedRunner


class Outcome:
    """What one expression gave on one input: its outputs in order, or ``error`` (jq's message, or why
    it was not run) and no outputs. Made for every expression of every object: a plain class with
    slots (a dataclass took three times as long to make)."""

    __slots__ = ("error", "results")

    def __init__(self, results: list[Any] | None = None, error: str | None = None) -> None:
        """``results`` (none by default), or ``error``."""
        self.results: list[Any] = [] if results is None else results
        self.error = error

    def __eq__(self, other: object) -> bool:
        """Equal outputs and error."""
        if not isinstance(other, Outcome):
            return NotImplemented
        return self.results == other.results and self.error == other.error

    __hash__ = None  # type: ignore[assignment]  # compared by value, and its results list is mutable

    def __repr__(self) -> str:
        """``Outcome(results=[...], error=None)``."""
        return f"Outcome(results={self.results!r}, error={self.error!r})"


def _error_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return f"{json.dumps(value, sort_keys=True)} (not a string)"


def results_of(outcomes: dict[str, Outcome], expression: str, error: type) -> list[Any]:
    """The results of ``expression`` in a batch (none when it was not run); its jq error is
    raised as ``error`` (the caller's exception type)."""
    outcome = outcomes.get(expression)
    if outcome is None:
        return []
    if outcome.error is not None:
        raise error(outcome.error)
    return outcome.results


class JqSession:
    """Evaluates batches of expressions through one ``BoundedRunner``."""

    def __init__(self, runner: BoundedRunner, batch: bool = True) -> None:
        """Runs through ``runner`` (which the caller owns and closes); ``batch`` False runs every
        expression on its own instead of in one joined program (kept for the benchmark's comparison)."""
        self.runner = runner
        self.batch = batch  # False: one jq run per expression (kept for the benchmark's comparison)
        self._programs: dict[tuple, str] = {}
        self._finite: dict[tuple, tuple[bool, ...]] = {}  # per expression tuple: each one's finite_output

    def _program(self, expressions: tuple) -> str:
        program = self._programs.get(expressions)
        if program is None:
            parts = [self._part(expr) for expr in expressions]
            program = "[" + ",\n".join(parts) + "]"
            if len(self._programs) > 256:
                self._programs.clear()
            self._programs[expressions] = program
        return program

    def _part(self, expression: str) -> str:
        if _finite(expression):  # its outputs are collected whole; a count at the cap is an error below
            return f'(try {{"ok": [({expression}\n)]}} catch {{"err": .}})'
        return f'(try {{"ok": [limit({self.runner.max_results}; ({expression}\n))]}} catch {{"err": .}})'

    def run(self, expressions: Sequence[str], value: Any = None, text: str | None = None) -> dict[str, Outcome]:
        """``{expression: Outcome}`` for the distinct expressions, evaluated on ``value``."""
        unique = _unique(expressions)
        if not unique:
            return {}
        if text is None:
            text = json.dumps(value)
        if not self.batch:
            return {expr: self._alone(expr, text) for expr in unique}
        if len(unique) > _JOINED_AT_MOST:  # libjq's compile time grows faster than the program
            outcomes: dict[str, Outcome] = {}
            for start in range(0, len(unique), _JOINED_AT_MOST):
                outcomes.update(self.run(unique[start : start + _JOINED_AT_MOST], text=text))
            return outcomes
        joined = self._joined(unique, self.runner.run_text(self._program(unique), text))
        return joined if joined is not None else self._each(unique, text)

    def run_many(self, expressions: Sequence[str], texts: Iterable[str]) -> Iterator[tuple[int, dict[str, Outcome]]]:
        """``(index, outcomes)`` for each text, as ``run`` would give them; the texts stream through
        the worker in batches (an iterator's texts are made as the worker needs them). Texts whose
        joined run fails come last (each expression is then run alone on them, which needs the
        worker to itself)."""
        unique = _unique(expressions)
        if not unique or not self.batch:
            for index, text in enumerate(texts):
                yield index, self.run(unique, text=text)
            return
        made: list[str] = texts if isinstance(texts, list) else []  # the texts read, for the ones run again alone
        source = texts if isinstance(texts, list) else _kept(texts, made)
        again = []
        for index, joined in self.runner.run_many(self._program(unique), source):
            outcomes = self._joined(unique, joined)
            if outcomes is None:
                again.append(index)
            else:
                yield index, outcomes
        for index in again:
            yield index, self._each(unique, made[index])

    def run_stream(self, items: Iterable[tuple[tuple, str]]) -> Iterator[tuple[int, dict[str, Outcome] | None]]:
        """``(index, outcomes)`` for each ``(expressions, text)`` item (``expressions`` as ``unique``
        makes them: distinct and non-empty), the items of any number of definitions streamed through
        the worker together, in order (out of order only after a worker was stopped). ``None``
        instead of the outcomes: the joined run cannot be read (``_joined``), the text is to be run
        again expression by expression (``run_alone``) once the stream is over."""
        if not self.batch:  # one jq run per expression, each on the worker to itself
            for index, (unique, text) in enumerate(items):
                yield index, self._each(unique, text)
            return
        waiting: dict[int, tuple] = {}  # the expressions of each item sent, until its result is read
        counter = itertools.count()

        def pairs() -> Iterator[tuple[str, str]]:
            for unique, text in items:
                waiting[next(counter)] = unique
                yield self._program(unique), text

        for index, joined in self.runner.run_pairs(pairs()):
            yield index, self._joined(waiting.pop(index), joined)

    def run_alone(self, unique: tuple, text: str) -> dict[str, Outcome]:
        """Each expression of ``unique`` run on its own on ``text`` (the worker to itself)."""
        return self._each(unique, text)

    def _joined(self, unique: tuple, joined: RunResult) -> dict[str, Outcome] | None:
        """The outcomes of a joined run, or None when it cannot be read as one (the run failed as a
        whole, or an expression collected whole raised an error: upstream might have stopped at the
        cap first, so it runs alone)."""
        if not (
            joined.ok
            and len(joined.results) == 1
            and isinstance(joined.results[0], list)
            and len(joined.results[0]) == len(unique)
        ):
            return None
        finite = self._finite.get(unique)
        if finite is None:
            if len(self._finite) > 256:
                self._finite.clear()
            finite = self._finite[unique] = tuple(_finite(expr) for expr in unique)
        outcomes = {}
        cap = self.runner.max_results
        for expr, item, collected_whole in zip(unique, joined.results[0], finite, strict=False):
            if isinstance(item, dict) and "ok" in item:
                results = item["ok"]
                outcomes[expr] = (
                    Outcome(results)
                    if len(results) < cap
                    else Outcome(None, f"query results exceed the allowed number {cap}")
                )
            elif collected_whole:
                return None
            else:
                outcomes[expr] = self._outcome(item)
        return outcomes

    def _each(self, unique: tuple, text: str) -> dict[str, Outcome]:
        return {expr: self._alone(expr, text) for expr in unique}

    def _outcome(self, item: Any) -> Outcome:
        if isinstance(item, dict) and "ok" in item:
            results = item["ok"]
            if len(results) >= self.runner.max_results:
                return Outcome(error=f"query results exceed the allowed number {self.runner.max_results}")
            return Outcome(results=results)
        return Outcome(error=_error_text(item.get("err") if isinstance(item, dict) else item))

    def _alone(self, expression: str, text: str) -> Outcome:
        result = self.runner.run_text(expression, text)
        if result.ok:
            return Outcome(results=result.results)
        return Outcome(error=result.error)


# at most this many expressions in one joined program: libjq's compile time grows faster than the
# program (800 take 0.17 s, 200 0.01 s), and it refuses one over 100 kB of bytecode (a definition of
# hundreds of components)
_JOINED_AT_MOST = 128


def _kept(texts: Iterable[str], made: list[str]) -> Iterator[str]:
    """``texts``, each also appended to ``made`` as it is read."""
    for text in texts:
        made.append(text)
        yield text


def unique_expressions(expressions: Sequence[str]) -> tuple:
    """The distinct non-empty string expressions, in order (what ``run_stream`` takes)."""
    return _unique(expressions)


def _unique(expressions: Sequence[str]) -> tuple:
    return tuple(dict.fromkeys(e for e in expressions if isinstance(e, str) and e))


@functools.lru_cache(maxsize=4096)
def _finite(expression: str) -> bool:
    tree, _ = parse_cached(expression)
    return tree is not None and finite_output(tree)


__all__ = ["MAX_RESULTS", "JqSession", "Outcome", "results_of", "unique_expressions"]
