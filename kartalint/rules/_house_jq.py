"""Running house rules: one jq program for the rules that apply to a definition, run on it in the
bounded jq worker (``jqlang.runner``: sandboxed, time-limited, memory-limited), as definitions run.

The program's input is the definition and the paths of its units (``{"d": definition, "u":
{"component": [path, ...], ...}}``, and ``"e"``: per kind, the indexes of the units sent, when
some of that kind are remembered, ``_house_memo``). It walks the units of each kind once and runs on each unit
(``$path`` bound to its path) the ``when`` of every rule of that kind: a rule keeps ``true``, fails
on anything but ``true``, ``false``, ``null`` or no output, and interpolates ``message`` where it
holds (a rule alone catches its errors; joined, an error stops the program and each rule then runs
alone to say which one failed). Its output is one list of entries ``[rule, unit, message]`` (a finding) and ``[rule, unit,
null, part, error]`` (the rule failed there)::

    .d as $definition | .u as $__kl_u | .e as $__kl_e | [
      ($__kl_u["component"] | range(0; length) as $__kl_i | .[$__kl_i] as $path
       | $definition | getpath($path) | (RULE_0), (RULE_3)),
      ...]

The program depends only on the rules, so the worker compiles it once. When the joined run cannot
be read (a rule ran out of time, failed, killed the worker, or does not compile), each rule runs
alone to say which one failed (a rule that never ends costs its time limit twice, once: the joined
run, the rule alone; in a batch, ``queue``, the batch, then each rule alone on each definition). A rule that fails is remembered for the run and not run again
(``HouseEngine.failed``): it is reported once, where it is written.

``start`` sends a definition to the worker and returns; ``finish`` collects what it gave: the
caller runs kartalint's own checks in between, while the worker computes.

``lint_paths`` queues its definitions instead (``queue``): they go to the worker in batches (one
message and one jq input for up to ``BATCH_DEFINITIONS`` definitions, ``map`` over them), one batch
computing while kartalint checks the files of the next, so that a run makes a few dozen round trips
to the worker instead of one per definition (each a wait for the worker to be scheduled, long on a
busy machine). What a batch gives is read in order, as if each definition had run alone: a batch
that fails (a rule errs or runs out of time on one of its definitions, the worker dies) is run
again one definition at a time, through ``run``, so a rule fails where it fails when run alone.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence

from kartalint.jqlang.results import RunResult
from kartalint.jqlang.runner import DEFAULT_TIMEOUT, BoundedRunner
from kartalint.load.house_rules import MESSAGE_CAP, Failure, HouseRule, StaticProblem, message_program, static_problem
from kartalint.rules._house_filter import One, compile_when
from kartalint.rules._house_memo import KINDS, Hits, by_path, pure, settle
from kartalint.rules._house_records import Outcome, Pending, Queued

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# (kind of unit, its rules, the findings remembered for them, whether the path is part of the key)
Memo = tuple[str, tuple[HouseRule, ...], dict[object, Hits], bool]

HOUSE_TIMEOUT = DEFAULT_TIMEOUT  # seconds for one definition's house rules (upstream's limit of one query)
RULES_PER_PROGRAM = 64  # libjq's compile time grows faster than the program
BATCH_DEFINITIONS = 16  # definitions sent to the worker in one message by ``queue``,
BATCH_CHARS = 512 * 1024  # or fewer, when their JSON is this long

_CHECK = (
    'if . == true then true elif . == false or . == null then false else error("gave \\(tojson | .[:80]), '
    'not true, false or null") end'
)


def rule_part(index: int, rule: HouseRule, safe: bool = True) -> str:
    """The part of the program that runs ``rule`` (the ``index``-th of the program) on one unit.
    ``safe``: its errors are caught and said as its failure (a rule run alone); else an error stops
    the whole program (a joined run: a fifth cheaper, and errors are rare: each rule then runs alone
    to say which one failed)."""
    message = f'((first({message_program(rule.message)}\n) // "") | tostring | .[:{MESSAGE_CAP}])'
    if not safe:
        return (  # (false and null first, by truthiness: what nearly every unit gives)
            f"({rule.when}\n) as $__kl_o | if $__kl_o then (if $__kl_o == true then [{index}, $__kl_i, {message}] "
            'else error("gave \\($__kl_o | tojson | .[:80]), not true, false or null") end) else empty end'
        )
    return (
        f"try (if reduce (({rule.when}\n) | {_CHECK}) as $__kl_o (false; . or $__kl_o) then "
        f"(try [{index}, $__kl_i, {message}] "
        f'catch [{index}, $__kl_i, null, "message", (if type == "string" then . else tojson end)]) '
        f'else empty end) catch [{index}, $__kl_i, null, "when", (if type == "string" then . else tojson end)]'
    )


def program(rules: Sequence[HouseRule]) -> str:
    """The jq program that runs ``rules`` on one definition, each kind's units walked once: one rule
    run safe, several joined."""
    kinds: dict[str, list[str]] = {}
    for index, rule in enumerate(rules):
        kinds.setdefault(rule.for_each, []).append(f"({rule_part(index, rule, safe=len(rules) == 1)})")
    # (a unit whose findings are remembered comes as null, and the input's "e" lists the indexes of
    # the others of its kind: only they are walked, ``_house_memo``)
    walk = {
        kind: f"(if $__kl_e[{json.dumps(kind)}] then $__kl_e[{json.dumps(kind)}][] else range(0; length) end)"
        " as $__kl_i | .[$__kl_i] | values"
        for kind in KINDS
    }
    blocks = [
        f"($__kl_u[{json.dumps(kind)}] | {walk.get(kind, 'range(0; length) as $__kl_i | .[$__kl_i]')} as $path"
        f" | $definition | getpath($path) | {', '.join(parts)})"
        for kind, parts in kinds.items()
    ]
    return ".d as $definition | .u as $__kl_u | .e as $__kl_e | [" + ",\n".join(blocks) + "]"


def batch_program(programs: Sequence[str]) -> str:
    """The jq program that runs a batch: a list of ``{"p": program index, "x": definition input}``
    in, the list of each one's result out."""
    if len(programs) == 1:
        return f"map(.x | ({programs[0]}\n))"
    cases = " ".join(f"elif $__kl_p == {index} then ({text}\n)" for index, text in enumerate(programs))
    return f'map(.p as $__kl_p | .x | if false then null {cases} else error("no program") end)'


class HouseEngine:
    """The house rules of one process: one jq worker, the programs built, and the rules that
    failed (never run again in a run). Safe to use from several threads (the language server)."""

    def __init__(self) -> None:
        self._runner: BoundedRunner | None = None
        self._lock = threading.Lock()
        self._programs: dict[tuple[HouseRule, ...], str] = {}
        self._sound: dict[int, HouseRule] = {}  # rules found runnable without running them, by identity
        self.failed: dict[HouseRule, Failure] = {}
        self._last_runnable: tuple[Sequence[HouseRule], int, list[HouseRule]] | None = None
        self._batching = threading.RLock()  # the queue and the batch in flight (``lint_paths`` in threads)
        self._queued: list[Queued] = []  # not sent yet
        self._count = self._chars = 0  # the definitions queued, their JSON's length
        self._flying: list[Queued] | None = None  # the batch the worker computes (the engine is held)
        self._memo: dict[tuple[HouseRule, ...], dict[object, Hits]] = {}  # by group of rules of one kind
        self._last_memo: tuple[Sequence[HouseRule], list[Memo]] = ((), [])
        self._last_filters: tuple[Sequence[HouseRule], dict[str, list[One]] | None] = ((), None)

    def new_run(self) -> None:
        """Forget which rules failed: a new run (``lint_paths``, one lint in the editor) tries them
        again (a definition fixed since may no longer make one fail)."""
        with self._lock:
            self.failed.clear()
            self._sound.clear()
            self._last_runnable = None
            self._memo.clear()
            self._last_memo = ((), [])
            self._last_filters = ((), None)

    def memo_for(self, rules: Sequence[HouseRule]) -> list[Memo]:
        """For a definition's runnable ``rules``: per kind of unit remembered (``_house_memo.KINDS``)
        whose rules are all pure, its rules, the findings remembered for them and whether a unit's
        path is part of its key (none: a rule not pure in every kind, or rules for more than one
        program)."""
        last = self._last_memo
        if last[0] is rules:
            return last[1]
        found: list[Memo] = []
        if len(rules) <= RULES_PER_PROGRAM:
            for kind in KINDS:
                group = tuple(rule for rule in rules if rule.for_each == kind)
                if group and all(pure(rule) for rule in group):
                    found.append((kind, group, self._memo.setdefault(group, {}), by_path(group)))
        self._last_memo = (rules, found)
        return found

    def filters_for(self, rules: Sequence[HouseRule]) -> dict[str, list[One]] | None:
        """For a definition's runnable ``rules``: each one's ``when`` compiled to Python, by kind of
        unit (``_house_filter``), or None when one of them is written with more than it copies."""
        last = self._last_filters
        if last[0] is rules:
            return last[1]
        found: dict[str, list[One]] | None = {}
        for rule in rules:
            part = compile_when(rule.when)
            if part is None or found is None:
                found = None
                break
            found.setdefault(rule.for_each, []).append(part)
        self._last_filters = (rules, found)
        return found

    def runnable(self, rules: Sequence[HouseRule]) -> list[HouseRule]:
        """The rules of ``rules`` that can run (the others are marked failed, once)."""
        last = self._last_runnable
        if last is not None and last[0] is rules and last[1] == len(self.failed):
            return last[2]  # (the same rules as for the last definition, none failed since)
        out = []
        for rule in rules:
            if self.failed and rule in self.failed:
                continue
            if id(rule) not in self._sound:  # (checked once per rule object: a rule is seen on every definition)
                problem: StaticProblem | None = static_problem(rule, compiled=False)  # (the worker compiles)
                if problem is not None:
                    self.failed[rule] = Failure(problem.part, problem.message, static=True)
                    continue
                self._sound[id(rule)] = rule
            out.append(rule)
        self._last_runnable = (rules, len(self.failed), out)
        return out

    def start(self, rules: Sequence[HouseRule], text: str) -> Pending:
        """Send one definition's input ``text`` for ``rules`` (runnable ones) when they can run
        joined, and return at once; ``finish`` must follow."""
        pending = Pending(list(rules), text)
        if rules and len(rules) <= RULES_PER_PROGRAM:
            self._lock.acquire()  # released by finish: the worker's reply belongs to this definition
            pending.sent = True
            if not self._runner_here().submit(self._program(tuple(rules)), text):
                self._lock.release()
                pending.sent = False
        return pending

    def finish(self, pending: Pending) -> Outcome:
        """What ``rules`` gave on the definition ``start`` sent (or, when it could not be sent
        joined, on running them now)."""
        if not pending.sent:
            return self.run(pending.rules, pending.text)
        outcome = Outcome()
        try:
            chunk = tuple(pending.rules)
            self._read_joined(outcome, chunk, self._runner_here().collect(HOUSE_TIMEOUT), pending.text)
        finally:
            self._lock.release()
        self.failed.update(outcome.failed)
        return outcome

    def run(self, rules: Sequence[HouseRule], text: str) -> Outcome:
        """Run ``rules`` (runnable ones) on one definition's input ``text``, joined."""
        with self._lock:
            outcome = self._run_here(rules, text)
        self.failed.update(outcome.failed)
        return outcome

    def _run_here(self, rules: Sequence[HouseRule], text: str) -> Outcome:
        outcome = Outcome()
        for start in range(0, len(rules), RULES_PER_PROGRAM):
            chunk = tuple(rules[start : start + RULES_PER_PROGRAM])
            self._read_joined(outcome, chunk, self._run(self._program(chunk), text), text)
        return outcome

    def queue(self, item: Queued) -> None:
        """Queue a definition (``text`` and ``rules``, runnable ones) or a file's end; a full batch
        is sent (after the batch in flight is read). ``Queued.done`` says when it has been read;
        ``drain`` reads everything."""
        with self._batching:
            self._queued.append(item)
            if item.text is not None:
                self._count += 1
                self._chars += len(item.text)
                if self._count >= BATCH_DEFINITIONS or self._chars >= BATCH_CHARS:
                    self.flush()

    def flush(self) -> None:
        """Read the batch in flight, then send what is queued (a file's end alone is read at once)."""
        with self._batching:
            self._flush()

    def _flush(self) -> None:
        self._land()
        batch, self._queued, self._count, self._chars = self._queued, [], 0, 0
        for item in batch:  # the rules that failed on the definitions read meanwhile are not run
            if item.text is not None and self.failed:
                item.rules = [rule for rule in item.rules if rule not in self.failed]
        runs = [item for item in batch if item.text is not None and item.rules]
        self._flying = batch
        if not runs or any(len(item.rules) > RULES_PER_PROGRAM for item in runs):
            self._land(sent=False)  # (nothing to send, or rules for more than one program: one by one)
            return
        programs: dict[tuple[int, ...], tuple[int, list[HouseRule]]] = {}  # by the rules' identities
        numbers = [programs.setdefault(tuple(map(id, item.rules)), (len(programs), item.rules))[0] for item in runs]
        text = (
            "["
            + ",".join(f'{{"p":{number},"x":{item.text}}}' for number, item in zip(numbers, runs, strict=True))
            + "]"
        )
        source = batch_program([self._program(tuple(rules)) for _, rules in programs.values()])
        self._lock.acquire()  # released by _land: the worker's reply belongs to this batch
        if not self._runner_here().submit(source, text):
            self._lock.release()
            self._land(sent=False)

    def drain(self) -> None:
        """Read everything queued."""
        with self._batching:
            while self._queued or self._flying is not None:
                self._flush()

    def _land(self, sent: bool = True) -> None:
        """Read the batch in flight (``sent``: from the worker, else each definition run now)."""
        batch, self._flying = self._flying, None
        if batch is None:
            return
        try:
            results = self._runner_here().collect(HOUSE_TIMEOUT) if sent else None
        finally:
            if sent:
                self._lock.release()
        runs = {id(item): index for index, item in enumerate(i for i in batch if i.text is not None and i.rules)}
        joined = _batch_parts(results, len(runs))
        # a batch out of time: a rule never ends on one of its definitions. Each rule then runs alone on
        # each definition (it would run out of time again on that definition's joined run: the time
        # limit spent three times, not twice)
        alone = results is not None and results.timed_out
        with self._lock:
            for item in batch:
                index = runs.get(id(item))
                self._read_queued(item, joined[index] if joined is not None and index is not None else None, alone)

    def _read_queued(self, item: Queued, result: list[Any] | None, alone: bool = False) -> None:
        """One definition of a batch read (``result``: its list, when the batch could be read),
        in order, as if it ran alone (the engine is held; ``alone``: each rule runs alone, when
        the batch could not be read)."""
        if item.text is None:
            item.outcome = Outcome()
            item.failed = dict(self.failed)
            return
        rules = [rule for rule in item.rules if rule not in self.failed] if self.failed else item.rules
        if result is not None and len(rules) == len(item.rules):
            outcome = Outcome()
            if result:  # (else the common case: nothing found, nothing failed)
                self._read_joined(outcome, tuple(rules), RunResult(results=[result]), item.text)
        elif alone:
            outcome = Outcome()
            for rule in rules:
                _read(outcome, rule, self._alone(rule, item.text))
        else:
            outcome = self._run_here(rules, item.text) if rules else Outcome()
        for memo in item.memo:
            settle(outcome, memo, rules)
        for rule, failure in outcome.failed.items():
            self.failed[rule] = item.locate(rule, failure) if item.locate is not None else failure
        item.outcome = outcome

    def _read_joined(self, outcome: Outcome, chunk: tuple[HouseRule, ...], result: RunResult, text: str) -> None:
        """The results of a joined run into ``outcome``; when it cannot be read as one, each rule
        alone says which one failed (the engine is held)."""
        if result.error is None and result.results == [[]]:  # (the common case: nothing found, nothing failed)
            return
        parts = _parts(chunk, result)
        for index, rule in enumerate(chunk):
            _read(outcome, rule, parts[index] if parts is not None else self._alone(rule, text))

    def _alone(self, rule: HouseRule, text: str) -> Any:
        """One rule's results on ``text``, or its ``Failure``."""
        result = self._run(self._program((rule,)), text)
        parts = _parts((rule,), result)
        if parts is not None:
            return parts[0]
        if result.error and result.error.startswith("failed to compile"):  # libjq says which part, where
            problem = static_problem(rule, compiled=True)
            if problem is not None:
                return Failure(problem.part, problem.message, static=True)
        return Failure("when", _run_error(result))

    def _program(self, rules: tuple[HouseRule, ...]) -> str:
        found = self._programs.get(rules)
        if found is None:
            if len(self._programs) > 256:
                self._programs.clear()
            found = self._programs[rules] = program(rules)
        return found

    def _runner_here(self) -> BoundedRunner:
        if self._runner is None:
            # a process that runs threads (the language server) starts a fresh interpreter: a fork
            # could copy a lock another thread holds
            threaded = threading.current_thread() is not threading.main_thread()
            self._runner = BoundedRunner(timeout=HOUSE_TIMEOUT, threaded=threaded)
        return self._runner

    def _run(self, text_program: str, text: str) -> RunResult:
        return self._runner_here().run_text(text_program, text, HOUSE_TIMEOUT)

    def close(self) -> None:
        """Stop the jq worker."""
        if self._runner is not None:
            self._runner.close()
            self._runner = None


def _parts(rules: tuple[HouseRule, ...], result: RunResult) -> list[list[Any]] | None:
    """Each rule's entries of a run, or None when the run cannot be read as one."""
    if not (result.ok and len(result.results) == 1 and isinstance(result.results[0], list)):
        return None
    parts: list[list[Any]] = [[] for _ in rules]
    for entry in result.results[0]:
        if not (
            isinstance(entry, list) and len(entry) >= 3 and isinstance(entry[0], int) and 0 <= entry[0] < len(rules)
        ):
            return None
        parts[entry[0]].append(entry[1:])
    return parts


def _batch_parts(result: RunResult | None, size: int) -> list[list[Any]] | None:
    """Each definition's list of a batch's run, or None when the run cannot be read as one."""
    if result is None or not (result.ok and len(result.results) == 1 and isinstance(result.results[0], list)):
        return None
    found = result.results[0]
    if len(found) != size or not all(isinstance(part, list) for part in found):
        return None
    return found


def _run_error(result: RunResult) -> str:
    if result.timed_out:
        return f"did not finish within {HOUSE_TIMEOUT:g} s and was stopped"
    return result.error or "the program gave no result"


def _read(outcome: Outcome, rule: HouseRule, part: Any) -> None:
    """One rule's entries (``[unit, message]`` or ``[unit, None, part, error]``) into ``outcome``:
    its hits, or its first failure."""
    if isinstance(part, Failure):
        outcome.failed[rule] = part
        return
    if not part:  # (the common case: nothing found; a rule without hits has no entry)
        return
    hits: dict[int, str] = {}  # (a joined `when` giving `true` twice finds once)
    for entry in part:
        if entry[1] is None and len(entry) >= 4:
            outcome.failed[rule] = Failure(str(entry[2]), str(entry[3]), entry[0])
            return
        hits.setdefault(entry[0], str(entry[1]))
    outcome.hits[rule] = list(hits.items())


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
