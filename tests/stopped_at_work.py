"""``kartalint ARGV`` that stops itself (SIGSTOP) where the kill test of tests/test_lifetime.py
kills it: at work, whatever the speed of the machine and however long the test takes to look.

- A jq worker that starts on an expression that never ends (``RUNAWAY``) stops the command first:
  the worker is in that expression for good, and the command, stopped, can neither stop it at its
  time limit (10 s for ``describe``, 2 s for a hover) nor end.
- A ``lint -j`` worker stops the command as it starts (its pool may have started only it).

Only the first worker of a command stops it: it creates the file named by
``KARTALINT_TEST_STOP_MARK`` and writes its PID there, then stops its parent (a worker started
later, after the test continued the command, leaves it running). The test waits for the mark and
the command's stopped state, lists its descendants, sends the signal and continues it (SIGCONT).

Run it as ``python -c CODE ARGV`` where CODE puts this folder on ``sys.path`` and calls ``main``
(tests/test_lifetime.py): a worker started by spawn (the language server's) imports this module
again from there, since ``multiprocessing`` pickles ``jq_worker`` by name and passes ``sys.path`` on.
"""

from __future__ import annotations

import multiprocessing.pool
import os
import signal
from typing import Any

from kartalint.jqlang import runner

RUNAWAY = "last(repeat(1))"  # an expression that never ends (in the test's definition)
# read now: the jq worker empties its environment before it runs anything
MARK = os.environ.get("KARTALINT_TEST_STOP_MARK", "")

_jq_worker, _run_one = runner._worker, runner._run_one
_pool_worker = multiprocessing.pool.worker  # type: ignore[attr-defined]  # (not in typeshed)


def stop_parent_once() -> None:
    """Stop the command this worker works for, unless one of its workers did already."""
    try:
        mark = os.open(MARK, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    os.write(mark, str(os.getpid()).encode())
    os.close(mark)
    os.kill(os.getppid(), signal.SIGSTOP)


def run_one(program: Any, text: str, cap: int) -> Any:
    if RUNAWAY in program.program_string:
        stop_parent_once()
    return _run_one(program, text, cap)


def jq_worker(*args: Any, **kwargs: Any) -> Any:
    runner._run_one = run_one  # in the worker, forked or spawned
    return _jq_worker(*args, **kwargs)


def pool_worker(*args: Any, **kwargs: Any) -> Any:
    stop_parent_once()
    return _pool_worker(*args, **kwargs)


def main(argv: list[str]) -> int:
    runner._worker = jq_worker
    multiprocessing.pool.worker = pool_worker  # type: ignore[attr-defined]
    from kartalint.cli import main as kartalint

    return kartalint(argv)
