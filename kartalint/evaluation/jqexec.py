"""Run a definition's jq expressions on one input, each input handed to jq once.

All expressions that read the same input (the workload object, or one pod) are joined into one
program that returns, per expression, either its complete output stream (capped as upstream
caps it) or its error::

    [ (try {"ok": [limit(1000; (E1
    ))]} catch {"err": .}), ... ]

The program text depends only on the definition, so the worker compiles it once and reuses it.
If the joined program cannot run (an expression does not compile, or the whole run exceeds the
timeout), every expression is run on its own so that the failure is attributed to its field.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kartalint.jqlang.runner import MAX_RESULTS, BoundedRunner


@dataclass(frozen=True)
class Outcome:
    results: list[Any] = field(default_factory=list)
    error: str | None = None


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
        self.runner = runner
        self.batch = batch  # False: one jq run per expression (kept for the benchmark's comparison)
        self._programs: dict[tuple, str] = {}

    def _program(self, expressions: tuple) -> str:
        program = self._programs.get(expressions)
        if program is None:
            cap = self.runner.max_results
            parts = [f'(try {{"ok": [limit({cap}; ({expr}\n))]}} catch {{"err": .}})' for expr in expressions]
            program = "[" + ",\n".join(parts) + "]"
            if len(self._programs) > 256:
                self._programs.clear()
            self._programs[expressions] = program
        return program

    def run(self, expressions: Sequence[str], value: Any = None, text: str | None = None) -> dict[str, Outcome]:
        """``{expression: Outcome}`` for the distinct expressions, evaluated on ``value``."""
        unique = tuple(dict.fromkeys(e for e in expressions if isinstance(e, str) and e))
        if not unique:
            return {}
        if text is None:
            text = json.dumps(value)
        if not self.batch:
            return {expr: self._alone(expr, text) for expr in unique}
        joined = self.runner.run_text(self._program(unique), text)
        if (
            joined.ok
            and len(joined.results) == 1
            and isinstance(joined.results[0], list)
            and len(joined.results[0]) == len(unique)
        ):
            return {expr: self._outcome(item) for expr, item in zip(unique, joined.results[0], strict=False)}
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


__all__ = ["MAX_RESULTS", "JqSession", "Outcome", "results_of"]
