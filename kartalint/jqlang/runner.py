"""Run jq expressions with upstream's limits, in a worker process that can be killed.

Upstream (spec §3.1) fails a query at 1,000 results and after 10 seconds. libjq cannot be
interrupted from a Python thread, so expressions run in a child process: the parent waits on a
pipe with a deadline, and on expiry kills the child and starts a fresh one. Many inputs can go
through one program in a stream (``run_many``): the child notes in shared memory which input it
is on and since when, so the deadline is each input's own and a runaway input is named. The child also has
an address-space limit so a runaway expression fails there instead of exhausting the machine.
Evaluation runs with an empty environment (``$ENV`` and ``env`` see nothing).

``BoundedRunner.run(expression, value)`` returns a ``RunResult``: the list of results, or an
error message (compile error, runtime error, result cap, timeout). The process stays healthy
after any of them.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import mmap
import multiprocessing
import os
import pickle
import struct
import time
from collections.abc import Iterable, Iterator

from kartalint.jqlang.results import RunResult

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_RESULTS = 1000
BATCH = 256  # texts sent to the worker in one message by run_many
FIRST_BATCH = 16  # the first message's (the next ones grow fourfold up to BATCH)
FLUSH_COUNT = 64  # the worker sends results in groups of at most this many,
FLUSH_SECONDS = 0.002  # or as soon as this long has passed since the last group
PROGRESS = struct.Struct("dd")  # shared with the worker: index of the text it is on, monotonic start
DEFAULT_TIMEOUT = 10.0
STARTUP_TIMEOUT = 120.0  # seconds a new worker may take to be ready (a fresh interpreter on a busy machine)
READY = ("ready",)  # what a worker sends once it can take expressions
WORKER_MEMORY_BYTES = 4 * 1024**3
# Every program runs after this prelude, as gojq runs with an empty environment: `env` and `$ENV`
# are `{}`, and a module directive (`import`, `include`) can only appear first, so after the
# prelude it is a syntax error: no file is ever read through a definition.
SANDBOX_PRELUDE = "def env: {}; {} as $ENV | "


def _worker(
    conn: Any, memory_limit: int, parent_end: Any = None, progress: Any = None, owner: int | None = None
) -> None:  # pragma: no cover - runs in the child
    # lazy, here and below: what only the worker process needs, imported in it after the fork
    from kartalint.jqlang.lifetime import die_with_parent

    die_with_parent(owner)  # a killed kartalint takes its worker with it, even mid-expression
    if parent_end is not None:  # else the worker keeps its own pipe open and outlives a killed parent
        parent_end.close()
    import faulthandler
    import gc

    faulthandler.disable()  # libjq aborts on allocation failure: an expected death, reported by the parent
    # What the fork inherited (the parent's objects, maybe thousands of workloads) is never garbage
    # here: out of the collector's sight, it is neither walked on every full collection nor copied
    # page by page when the walk touches it.
    gc.freeze()
    os.environ.clear()
    try:  # variables set at C level (not through os.environ) too
        import ctypes
        import ctypes.util

        ctypes.CDLL(ctypes.util.find_library("c") or None).clearenv()
    except (OSError, AttributeError, TypeError):
        pass
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
    except (ImportError, ValueError, OSError):
        pass
    import jq  # noqa: F401  # imported before READY: its import never counts in a text's time

    conn.send(READY)  # the parent's clock for the first expression starts now, not at the spawn
    programs: dict = {}
    while True:
        try:
            message = conn.recv()
        except EOFError:
            return
        # one reply per text, in order, sent in groups; ``expression``: the program of every text,
        # or a tuple of one program per text (a stream of several definitions' objects)
        expression, texts, cap = message
        each = None if isinstance(expression, str) else expression
        if each is None:
            program, problem = _compiled(programs, expression)
            if problem is not None:
                conn.send([("compile", problem)] * len(texts))
                continue
        replies: list = []
        flushed = time.monotonic()
        for index, text in enumerate(texts):
            if progress is not None:  # what the parent reads when a reply is late: which text, since when
                PROGRESS.pack_into(progress, 0, index, time.monotonic())
            if each is not None:  # compiling counts in the text's time, as the first text's does
                program, problem = _compiled(programs, each[index])
            replies.append(("compile", problem) if problem is not None else _run_one(program, text, cap))
            if (
                progress is None  # without the shared record, the parent learns progress from replies alone
                or len(replies) >= FLUSH_COUNT
                or time.monotonic() - flushed >= FLUSH_SECONDS
                or index == len(texts) - 1
            ):
                try:
                    conn.send(replies)
                except RecursionError:  # pickling a result nested thousands deep
                    conn.send([_picklable(reply) for reply in replies])
                replies = []
                flushed = time.monotonic()


def _compiled(programs: dict, expression: str) -> tuple[Any, str | None]:  # pragma: no cover - runs in the child
    """(the compiled program of ``expression``, kept in ``programs``, None), or (None, the compile error)."""
    program = programs.get(expression)
    if program is not None:
        return program, None
    import jq  # imported by the worker at its start

    try:
        program = jq.compile(SANDBOX_PRELUDE + expression)
    except ValueError as exc:
        message = str(exc).split("\njq: ")[0].replace("jq: error: ", "")
        return None, _unprelude(message)
    if len(programs) > 4096:
        programs.clear()
    programs[expression] = program
    return program, None


def _run_one(program: Any, text: str, cap: int) -> tuple[str, Any]:  # pragma: no cover - runs in the child
    results = []
    try:
        for value in program.input_text(text):
            results.append(value)
            if len(results) >= cap:
                return ("cap", f"query results exceed the allowed number {cap}")
        return ("ok", results)
    except ValueError as exc:
        return ("runtime", str(exc))
    except (MemoryError, RecursionError):
        return ("runtime", "out of memory")


def _picklable(reply: tuple[str, Any]) -> tuple[str, Any]:  # pragma: no cover - runs in the child
    try:
        pickle.dumps(reply)
        return reply
    except RecursionError:
        return ("runtime", "the result is nested too deeply to be read")


def _unprelude(message: str) -> str:
    """A compile message as if the prelude were not there: columns of line 1 shift back, and the
    line libjq quotes, with its caret line under it, loses the prelude (never shown to a user)."""
    import re  # lazy: only for a compile error's message

    message = re.sub(
        r"line 1, column (\d+)", lambda m: f"line 1, column {max(1, int(m.group(1)) - len(SANDBOX_PRELUDE))}", message
    )
    lines = message.split("\n")
    for i, line in enumerate(lines[:-1]):
        if line.strip().startswith(SANDBOX_PRELUDE.strip()):
            at = line.index(SANDBOX_PRELUDE.strip())
            lines[i] = line[:at] + line[at + len(SANDBOX_PRELUDE) :]
            caret = lines[i + 1]
            if caret.strip().startswith("^") and caret[: at + len(SANDBOX_PRELUDE)].strip() == "":
                lines[i + 1] = caret[:at] + caret[at + len(SANDBOX_PRELUDE) :]
    return "\n".join(lines)


def _result(kind: str, payload: Any) -> RunResult:
    if kind == "ok":
        return RunResult(results=payload)
    if kind == "compile":
        return RunResult(error=f"failed to compile JQ expression: {payload}")
    return RunResult(error=payload)


class BoundedRunner:
    """A reusable worker process; use as a context manager or call ``close()``."""

    def __init__(
        self,
        timeout: float = DEFAULT_TIMEOUT,
        max_results: int = MAX_RESULTS,
        memory_limit: int = WORKER_MEMORY_BYTES,
        threaded: bool = False,
    ) -> None:
        """``threaded``: the runner is used in a process that runs threads (the language server).
        Forking such a process can copy a lock another thread holds (the import lock, say) and
        leave the worker stuck, so workers are started as fresh interpreters instead (spawn). Either
        way the worker is a child of this process and dies with it (``lifetime.die_with_parent``);
        in a threaded process, start it from a thread that lives as long as the process."""
        self.timeout = timeout
        self.max_results = max_results
        self.memory_limit = memory_limit
        methods = multiprocessing.get_all_start_methods()
        method = "fork" if "fork" in methods else "spawn"
        if threaded:
            method = "spawn"
        self._ctx: Any = multiprocessing.get_context(method)
        self._process: Any = None
        self._conn: Any = None
        self._progress: Any = None
        self.restarts = 0

    def _start(self) -> bool:
        """Start a worker and wait until it is ready (at most ``STARTUP_TIMEOUT``): the time limit
        of an expression is the evaluation's, never the start of a fresh interpreter (spawned, as
        in the language server, on a busy machine that can take longer than the limit itself).
        False when it could not be started (or was stopped meanwhile: ``interrupt``)."""
        parent, child = self._ctx.Pipe()
        # an anonymous shared page (no file: works under a file-size limit or without /dev/shm),
        # inherited by a forked worker; a spawned one (no fork on the platform) reports every reply
        self._progress = mmap.mmap(-1, PROGRESS.size) if self._ctx.get_start_method() == "fork" else None
        self._process = self._ctx.Process(
            target=_worker, args=(child, self.memory_limit, parent, self._progress, os.getpid()), daemon=True
        )
        self._process.start()
        child.close()
        self._conn = parent
        try:
            if parent.poll(STARTUP_TIMEOUT) and parent.recv() == READY:
                return True
        except (EOFError, OSError):
            pass
        self._kill()
        return False

    def _kill(self) -> None:
        # taken first: another thread (a language server's signal handler, ``interrupt``) may be
        # stopping the same worker
        process, conn = self._process, self._conn
        self._process = None
        self._conn = None
        if process is not None:
            with contextlib.suppress(OSError, ValueError, AttributeError):
                process.kill()
                process.join(5)
        if conn is not None:
            with contextlib.suppress(OSError):
                conn.close()

    def start(self) -> None:
        """Start the worker now (it starts on first use otherwise). A forked worker shares this
        process's memory at the time of the fork: start it before reading large inputs."""
        if self._process is None or not self._process.is_alive():
            self._start()

    def run(self, expression: str, value: Any, timeout: float | None = None) -> RunResult:
        """Run ``expression`` on ``value`` (sent as JSON)."""
        return self.run_text(expression, json.dumps(value), timeout)

    def run_text(self, expression: str, text: str, timeout: float | None = None) -> RunResult:
        """Run ``expression`` on the JSON ``text``."""
        ((_, result),) = self.run_many(expression, [text], timeout)
        return result

    def run_many(
        self, expression: str, texts: Iterable[str], timeout: float | None = None, batch: int = BATCH
    ) -> Iterator[tuple[int, RunResult]]:
        """``(index, RunResult)`` for each JSON text. Texts go to the worker ``batch`` at a time
        (the first chunks smaller, so that it starts at once) and their results come back in small
        groups, so the caller works on them while the worker computes the next ones; ``texts`` is
        read one chunk ahead (an iterator's texts are made while the worker runs the chunk before),
        and the next chunk is sent as soon as the last results of a chunk arrive, before the caller
        reads them: the worker never waits on the caller. Each text has its own time limit, counted
        by the worker from when it starts on it; a text that runs over it, or kills the worker,
        gets the error and the worker is restarted for the others (results then come out of order).

        Consume the iterator to the end: a run abandoned half way stops the worker (its unread
        replies would otherwise answer the next run)."""
        # a few texts known at once go in one message (one round trip: what a fixture run or a mutant
        # sends); a stream starts small so that the worker starts at once
        size = batch if isinstance(texts, (list, tuple)) and len(texts) <= batch else min(batch, FIRST_BATCH)
        return self._stream(((expression, text) for text in texts), timeout, batch, size)

    def run_pairs(
        self, pairs: Iterable[tuple[str, str]], timeout: float | None = None, batch: int = BATCH
    ) -> Iterator[tuple[int, RunResult]]:
        """``run_many`` of ``(expression, JSON text)`` pairs, each text run by its own program (the
        objects of several definitions in one stream, in the order given): a message to the worker
        holds up to ``batch`` pairs whatever their programs, each compiled once by the worker."""
        return self._stream(pairs, timeout, batch, min(batch, FIRST_BATCH))

    def _stream(
        self, pairs: Iterable[tuple[str, str]], timeout: float | None, batch: int, size: int
    ) -> Iterator[tuple[int, RunResult]]:
        limit = self.timeout if timeout is None else timeout
        source, counter = iter(pairs), itertools.count()
        again: list[tuple[int, str, str]] = []  # texts whose worker was stopped, sent again first

        def take(count: int) -> list[tuple[int, str, str]]:
            chunk = again[:count]
            del again[:count]
            fresh = itertools.islice(source, count - len(chunk))
            chunk.extend((index, *pair) for pair, index in zip(fresh, counter, strict=False))  # counter: endless
            return chunk

        def send(chunk: list[tuple[int, str, str]]) -> bool:
            if not chunk:
                return False
            first = chunk[0][1]
            program: str | tuple[str, ...] = (
                first if all(e is first or e == first for _, e, _ in chunk) else tuple(e for _, e, _ in chunk)
            )
            return self._send((program, [text for _, _, text in chunk], self.max_results))

        finished = False
        try:
            chunk = take(size)
            sent = send(chunk)
            while chunk:
                if not sent:
                    for index, _, _ in chunk:
                        yield index, RunResult(error="the jq worker could not be started")
                    chunk = take(batch)
                    sent = send(chunk)
                    continue
                size = min(batch, size * 4)
                following, following_sent = take(size), False  # made while the worker runs this chunk
                done = 0
                while done < len(chunk):
                    replies, failure = self._receive(limit, done, len(chunk))
                    if failure is None and done + len(replies) == len(chunk):
                        following_sent = send(following)  # the worker goes on while these are read
                    for reply in replies:
                        yield chunk[done][0], reply
                        done += 1
                    if failure is not None:  # the worker was stopped on chunk[culprit]
                        culprit, result = failure
                        yield chunk[culprit][0], result
                        again[:0] = chunk[done:culprit] + chunk[culprit + 1 :] + following  # finished, unsent
                        following = take(batch)
                        following_sent = send(following)
                        break
                chunk, sent = following, following_sent
            finished = True
        finally:
            if not finished:
                self._kill()

    def submit(self, expression: str, text: str) -> bool:
        """Send one JSON text to the worker and return at once (whether it was sent): the caller
        works while the worker computes. ``collect`` must follow, before any other run."""
        return self._send((expression, [text], self.max_results))

    def collect(self, timeout: float | None = None) -> RunResult:
        """The result of the text ``submit`` sent, with its time limit counted from when the worker
        started on it (from now where the worker cannot say: a spawned worker)."""
        replies, failure = self._receive(self.timeout if timeout is None else timeout, 0, 1)
        if failure is not None:
            return failure[1]
        return replies[0]

    def _send(self, message: tuple) -> bool:
        for _attempt in range(2):  # a worker that died since the last run is replaced once
            if (self._process is None or not self._process.is_alive()) and not self._start():
                return False  # (not started, or stopped while starting: ``interrupt``)
            self._mark(0, time.monotonic())  # the first text's clock starts now (compiling counts)
            try:
                self._conn.send(message)
                return True
            except (OSError, BrokenPipeError):
                self._kill()
                self.restarts += 1
        return False

    def _mark(self, index: int, started: float) -> None:
        if self._progress is not None:
            PROGRESS.pack_into(self._progress, 0, index, started)

    def _where(self, done: int) -> tuple[int, float]:
        """(index in the chunk of the text the worker is on, when it started on it)."""
        if self._progress is None:
            return done, 0.0  # every reply is sent at once: the first one missing is the one running
        index, started = PROGRESS.unpack_from(self._progress, 0)
        return int(index), started

    def _receive(self, limit: float, done: int, size: int) -> tuple[list[RunResult], tuple[int, RunResult] | None]:
        """The next group of results, or ([], (index in the chunk, error)) when the worker had to
        be stopped (over the time limit) or died on that text."""
        wait = limit
        try:
            while not self._conn.poll(wait):
                index, started = self._where(done)
                left = started + limit - time.monotonic()
                if index >= done and left > 0:  # the text it is on now started less than `limit` ago
                    wait = left
                    continue
                self._kill()
                self.restarts += 1
                return [], (
                    min(max(index, done), size - 1),
                    RunResult(error=f"jq expression did not finish within {limit:g} s and was stopped", timed_out=True),
                )
            replies = self._conn.recv()
        except (EOFError, OSError, BrokenPipeError):
            index = min(max(self._where(done)[0], done), size - 1)
            self._kill()
            self.restarts += 1
            return [], (index, RunResult(error="jq worker died while evaluating the expression (out of memory?)"))
        return [_result(kind, payload) for kind, payload in replies], None

    def interrupt(self) -> None:
        """Stop the worker from another thread (the run waiting on it gets an error at once and the
        worker is started again for the next run). Only a signal is sent: the thread that uses the
        runner cleans up."""
        process = self._process
        if process is not None:
            with contextlib.suppress(OSError, ValueError, AttributeError):
                process.kill()

    def close(self) -> None:
        """Stop the worker process."""
        self._kill()

    def __enter__(self) -> BoundedRunner:
        """The runner itself; leaving the ``with`` block stops its worker."""
        return self

    def __exit__(self, *exc: Any) -> None:
        """Stop the worker (``close``)."""
        self.close()
