"""``kartalint ARGV`` that stops itself (SIGSTOP) where the kill test of tests/test_lifetime.py
kills it: at work, whatever the speed of the machine and however long the test takes to look.

- The command stops itself as soon as it has handed an expression that never ends (``RUNAWAY``)
  to its jq worker: stopped, it can neither stop the worker at its time limit (10 s for
  ``describe``, 2 s for a language server's hover, counted from the hand-over and, for a worker
  started by spawn, including the worker's start) nor end. The worker, left running, starts on
  the expression and never comes back: it writes its PID to the file named by
  ``KARTALINT_TEST_STOP_MARK`` as it starts on it.
- A ``lint -j`` worker writes the mark and stops the command as it starts (its pool may have
  started only it; a worker of a pool waits for more work).

Only the first worker writes the mark, and the first hand-over or pool worker stops the command
(a worker started after the test continued the command leaves it running). The test waits for the
mark and the command's stopped state, lists its descendants, sends the signal and continues the
command (SIGCONT).

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

_jq_worker, _run_one, _send = runner._worker, runner._run_one, runner.BoundedRunner._send
_pool_worker = multiprocessing.pool.worker  # type: ignore[attr-defined]  # (not in typeshed)
_stopped = False  # whether this command has stopped itself


def write_mark() -> bool:
    """Write this worker's PID to the mark, unless a worker of the same command did already."""
    try:
        mark = os.open(MARK, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    os.write(mark, str(os.getpid()).encode())
    os.close(mark)
    return True


def send(self: runner.BoundedRunner, message: tuple) -> bool:
    """``BoundedRunner._send`` in the command: the runaway handed over, the command stops."""
    global _stopped
    sent = _send(self, message)
    if sent and RUNAWAY in message[0] and not _stopped:
        _stopped = True
        os.kill(os.getpid(), signal.SIGSTOP)
    return sent


def run_one(program: Any, text: str, cap: int) -> Any:
    """``_run_one`` in a jq worker: the runaway started."""
    if RUNAWAY in program.program_string:
        write_mark()
    return _run_one(program, text, cap)


def jq_worker(*args: Any, **kwargs: Any) -> Any:
    runner._run_one = run_one  # in the worker, forked or spawned
    return _jq_worker(*args, **kwargs)


def pool_worker(*args: Any, **kwargs: Any) -> Any:
    if write_mark():
        os.kill(os.getppid(), signal.SIGSTOP)
    return _pool_worker(*args, **kwargs)


def main(argv: list[str]) -> int:
    runner._worker = jq_worker
    runner.BoundedRunner._send = send  # type: ignore[method-assign]
    multiprocessing.pool.worker = pool_worker  # type: ignore[attr-defined]
    from kartalint.cli import main as kartalint

    return kartalint(argv)
