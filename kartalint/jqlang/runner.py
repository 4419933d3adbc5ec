"""Run jq expressions with upstream's limits, in a worker process that can be killed.

Upstream (spec §3.1) fails a query at 1,000 results and after 10 seconds. libjq cannot be
interrupted from a Python thread, so expressions run in a child process: the parent waits on a
pipe with a deadline, and on expiry kills the child and starts a fresh one. The child also has
an address-space limit so a runaway expression fails there instead of exhausting the machine.
Evaluation runs with an empty environment (``$ENV`` and ``env`` see nothing).

``BoundedRunner.run(expression, value)`` returns a ``RunResult``: the list of results, or an
error message (compile error, runtime error, result cap, timeout). The process stays healthy
after any of them.
"""

from __future__ import annotations

import json
import multiprocessing
import os
from dataclasses import dataclass, field
from typing import Any

MAX_RESULTS = 1000
DEFAULT_TIMEOUT = 10.0
WORKER_MEMORY_BYTES = 4 * 1024**3
# Every program runs after this prelude, as gojq runs with an empty environment: `env` and `$ENV`
# are `{}`, and a module directive (`import`, `include`) can only appear first, so after the
# prelude it is a syntax error: no file is ever read through a definition.
SANDBOX_PRELUDE = "def env: {}; {} as $ENV | "


@dataclass
class RunResult:
    results: list[Any] = field(default_factory=list)
    error: str | None = None
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None


def _worker(conn: Any, memory_limit: int, parent_end: Any = None) -> None:  # pragma: no cover - runs in the child
    if parent_end is not None:  # else the worker keeps its own pipe open and outlives a killed parent
        parent_end.close()
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
    import jq

    programs: dict = {}
    while True:
        try:
            message = conn.recv()
        except EOFError:
            return
        expression, text, cap = message
        try:
            program = programs.get(expression)
            if program is None:
                program = jq.compile(SANDBOX_PRELUDE + expression)
                if len(programs) > 4096:
                    programs.clear()
                programs[expression] = program
        except ValueError as exc:
            message = str(exc).split("\njq: ")[0].replace("jq: error: ", "")
            conn.send(("compile", _unprelude(message)))
            continue
        results = []
        try:
            for value in program.input_text(text):
                results.append(value)
                if len(results) >= cap:
                    conn.send(("cap", f"query results exceed the allowed number {cap}"))
                    break
            else:
                try:
                    conn.send(("ok", results))
                except RecursionError:  # pickling a result nested thousands deep
                    conn.send(("runtime", "the result is nested too deeply to be read"))
        except ValueError as exc:
            conn.send(("runtime", str(exc)))
        except (MemoryError, RecursionError):
            conn.send(("runtime", "out of memory"))


def _unprelude(message: str) -> str:
    """A compile message as if the prelude were not there (columns of line 1 shift back)."""
    import re

    return re.sub(
        r"line 1, column (\d+)", lambda m: f"line 1, column {max(1, int(m.group(1)) - len(SANDBOX_PRELUDE))}", message
    )


class BoundedRunner:
    """A reusable worker process; use as a context manager or call ``close()``."""

    def __init__(
        self, timeout: float = DEFAULT_TIMEOUT, max_results: int = MAX_RESULTS, memory_limit: int = WORKER_MEMORY_BYTES
    ) -> None:
        self.timeout = timeout
        self.max_results = max_results
        self.memory_limit = memory_limit
        self._ctx: Any = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
        self._process: Any = None
        self._conn: Any = None
        self.restarts = 0

    def _start(self) -> None:
        parent, child = self._ctx.Pipe()
        self._process = self._ctx.Process(target=_worker, args=(child, self.memory_limit, parent), daemon=True)
        self._process.start()
        child.close()
        self._conn = parent

    def _kill(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.join(5)
            self._conn.close()
        self._process = None
        self._conn = None

    def run(self, expression: str, value: Any, timeout: float | None = None) -> RunResult:
        return self.run_text(expression, json.dumps(value), timeout)

    def run_text(self, expression: str, text: str, timeout: float | None = None) -> RunResult:
        if self._process is None or not self._process.is_alive():
            self._start()
        limit = self.timeout if timeout is None else timeout
        try:
            self._conn.send((expression, text, self.max_results))
            if not self._conn.poll(limit):
                self._kill()
                self.restarts += 1
                return RunResult(
                    error=f"jq expression did not finish within {limit:g} s and was stopped", timed_out=True
                )
            kind, payload = self._conn.recv()
        except (EOFError, OSError, BrokenPipeError):
            self._kill()
            self.restarts += 1
            return RunResult(error="jq worker died while evaluating the expression (out of memory?)")
        if kind == "ok":
            return RunResult(results=payload)
        if kind == "compile":
            return RunResult(error=f"failed to compile JQ expression: {payload}")
        return RunResult(error=payload)

    def close(self) -> None:
        self._kill()

    def __enter__(self) -> BoundedRunner:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
