"""Running house rules: one jq program for the rules that apply to a definition, run on it in the
bounded jq worker (``jqlang.runner``: sandboxed, time-limited, memory-limited), as definitions run.

The program's input is the definition and the paths of its units (``{"d": definition, "u":
{"component": [path, ...], ...}}``); for each rule it gives the units its ``when`` holds for, each
with its message, or the first unit it failed on::

    .d as $definition | .u as $__kl_u | [ RULE_0, RULE_1, ... ]

where a rule's part evaluates ``when`` on each unit (``$path`` bound to the unit's path), keeps
``true`` and fails on anything but ``true``, ``false``, ``null`` or no output, and interpolates
``message`` where it holds. The program depends only on the rules, so the worker compiles it once.
When the joined run cannot be read (a rule ran out of time, killed the worker, or does not
compile), each rule runs alone to say which one failed. A rule that fails is remembered for the
run and not run again (``HouseEngine.failed``): it is reported once, where it is written.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kartalint.jqlang.runner import DEFAULT_TIMEOUT, BoundedRunner, RunResult
from kartalint.load.house_rules import MESSAGE_CAP, Failure, HouseRule, StaticProblem, message_program, static_problem

HOUSE_TIMEOUT = DEFAULT_TIMEOUT  # seconds for one definition's house rules (upstream's limit of one query)
RULES_PER_PROGRAM = 64  # libjq's compile time grows faster than the program

_PART = r"""[$__kl_u[KIND] | range(0; length) as $__kl_i | $__kl_u[KIND][$__kl_i] as $path | $definition | getpath($path)
| (try (first((WHEN
) | if . == true then true elif . == false or . == null then empty
    else error("gave \(tojson | .[:80]), not true, false or null") end) // false) catch {"__kl_when": .}) as $__kl_hit
| if ($__kl_hit | type) == "object" then [$__kl_i, null, "when", ($__kl_hit.__kl_when | if type == "string" then . else tojson end)]
  elif $__kl_hit then (try [$__kl_i, ((first(MESSAGE
) // "") | tostring | .[:CAP])] catch [$__kl_i, null, "message", (if type == "string" then . else tojson end)])
  else empty end]"""


def rule_part(rule: HouseRule) -> str:
    """The part of the program that runs ``rule`` on every unit of its kind."""
    return (
        _PART.replace("KIND", json.dumps(rule.for_each))
        .replace("CAP", str(MESSAGE_CAP))
        .replace("MESSAGE", message_program(rule.message))
        .replace("WHEN", rule.when)
    )


def program(rules: Sequence[HouseRule]) -> str:
    """The jq program that runs ``rules`` on one definition."""
    return ".d as $definition | .u as $__kl_u | [" + ",\n".join(rule_part(rule) for rule in rules) + "]"


@dataclass
class Outcome:
    """What the house rules gave on one definition: per rule, its findings (unit index, message),
    and the rules that failed on it."""

    hits: dict[HouseRule, list[tuple[int, str]]] = field(default_factory=dict)
    failed: dict[HouseRule, Failure] = field(default_factory=dict)


class HouseEngine:
    """The house rules of one process: one jq worker, the programs built, and the rules that
    failed (never run again). Safe to use from several threads (the language server)."""

    def __init__(self) -> None:
        self._runner: BoundedRunner | None = None
        self._lock = threading.Lock()
        self._programs: dict[tuple[HouseRule, ...], str] = {}
        self._proven: set[HouseRule] = set()  # rules that ran alone once
        self.failed: dict[HouseRule, Failure] = {}

    def new_run(self) -> None:
        """Forget which rules failed: a new run (``lint_paths``, one lint in the editor) tries them
        again (a definition fixed since may no longer make one fail)."""
        with self._lock:
            self.failed.clear()

    def runnable(self, rules: Sequence[HouseRule]) -> list[HouseRule]:
        """The rules of ``rules`` that can run (the others are marked failed, once)."""
        out = []
        for rule in rules:
            if rule in self.failed:
                continue
            problem: StaticProblem | None = static_problem(rule)
            if problem is not None:
                self.failed[rule] = Failure(problem.part, problem.message, static=True)
                continue
            out.append(rule)
        return out

    def run(self, rules: Sequence[HouseRule], text: str) -> Outcome:
        """Run ``rules`` (runnable ones) on one definition's input ``text``. A rule runs alone the
        first time (so a rule that never ends costs its time limit once, not once more to find it
        among the others), then joined with the others."""
        outcome = Outcome()
        with self._lock:
            for rule in [r for r in rules if r not in self._proven]:
                _read(outcome, rule, self._alone(rule, text))
                self._proven.add(rule)
            joined = [r for r in rules if r not in outcome.hits and r not in outcome.failed]
            for start in range(0, len(joined), RULES_PER_PROGRAM):
                chunk = tuple(joined[start : start + RULES_PER_PROGRAM])
                parts = self._parts(chunk, self._run(self._program(chunk), text))
                for index, rule in enumerate(chunk):  # unreadable as one: each alone says which failed
                    _read(outcome, rule, parts[index] if parts is not None else self._alone(rule, text))
        self.failed.update(outcome.failed)
        return outcome

    def _alone(self, rule: HouseRule, text: str) -> Any:
        """One rule's results on ``text``, or its ``Failure``."""
        result = self._run(self._program((rule,)), text)
        parts = self._parts((rule,), result)
        return parts[0] if parts is not None else Failure("when", _run_error(result))

    def _program(self, rules: tuple[HouseRule, ...]) -> str:
        found = self._programs.get(rules)
        if found is None:
            if len(self._programs) > 256:
                self._programs.clear()
            found = self._programs[rules] = program(rules)
        return found

    def _run(self, text_program: str, text: str) -> RunResult:
        if self._runner is None:
            # a process that runs threads (the language server) starts a fresh interpreter: a fork
            # could copy a lock another thread holds
            threaded = threading.current_thread() is not threading.main_thread()
            self._runner = BoundedRunner(timeout=HOUSE_TIMEOUT, threaded=threaded)
        return self._runner.run_text(text_program, text, HOUSE_TIMEOUT)

    def _parts(self, rules: tuple[HouseRule, ...], result: RunResult) -> list[Any] | None:
        """Each rule's list of results, or None when the run cannot be read as one."""
        if result.ok and len(result.results) == 1 and isinstance(result.results[0], list):
            parts = result.results[0]
            if len(parts) == len(rules) and all(isinstance(p, list) for p in parts):
                return parts
        return None

    def close(self) -> None:
        if self._runner is not None:
            self._runner.close()
            self._runner = None


def _run_error(result: RunResult) -> str:
    error = result.error or "the program gave no result"
    if result.timed_out:
        return f"did not finish within {HOUSE_TIMEOUT:g} s and was stopped"
    return error


def _read(outcome: Outcome, rule: HouseRule, part: Any) -> None:
    """One rule's results into ``outcome``: its hits, or its first failure."""
    if isinstance(part, Failure):
        outcome.failed[rule] = part
        return
    hits = []
    for entry in part or ():
        if not (isinstance(entry, list) and entry and isinstance(entry[0], int)):
            continue
        if len(entry) >= 4 and entry[1] is None:
            outcome.failed[rule] = Failure(str(entry[2]), str(entry[3]), entry[0])
            return
        hits.append((entry[0], str(entry[1]) if len(entry) > 1 else ""))
    outcome.hits[rule] = hits


_ENGINES: dict[int, HouseEngine] = {}


def engine() -> HouseEngine:
    """This process's engine (a forked process, a ``lint -j`` worker, gets its own: a jq worker
    belongs to the process that started it)."""
    pid = os.getpid()
    found = _ENGINES.get(pid)
    if found is None:
        _ENGINES.clear()  # the parent's, copied by a fork: not this process's to use
        found = _ENGINES[pid] = HouseEngine()
    return found
