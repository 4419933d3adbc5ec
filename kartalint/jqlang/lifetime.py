"""Child processes that die with their parent.

kartalint's worker processes (the jq worker, ``lint -j`` workers) must not outlive kartalint: a
CI step's timeout or an editor restarting the language server kills kartalint, and a worker left
running an expression that never ends would burn a CPU forever, reparented to init.

``die_with_parent`` is called first thing in a worker. On Linux the kernel does it:
``prctl(PR_SET_PDEATHSIG, SIGKILL)`` kills the worker when the thread that started it exits (the
parent's main thread or a thread that lives as long as the parent; the language server starts
workers from one long-lived thread). Elsewhere a watchdog process polls the parent and kills the
worker when the parent is gone (libjq holds the interpreter lock while it runs, so a thread in
the worker could not do it).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import time

PR_SET_PDEATHSIG = 1
WATCH_INTERVAL = 0.25  # seconds between two looks of the watchdog at the parent


def _prctl_death_signal() -> bool:
    """Ask the kernel to SIGKILL this process when its parent exits; whether it was done."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)) == 0
    except (OSError, AttributeError, TypeError):
        return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, someone else's (the pid was reused: treat as gone)
        return False
    return True


def _start_watchdog(parent: int) -> bool:
    """A process that kills this one when ``parent`` is gone, and ends when this one does."""
    watched = os.getpid()
    try:
        pid = os.fork()
    except (OSError, AttributeError):
        return False
    if pid:
        return True
    try:  # pragma: no cover - the watchdog process
        while True:
            time.sleep(WATCH_INTERVAL)
            if os.getppid() != watched:  # the worker is gone: nothing to watch
                break
            if not _alive(parent):
                os.kill(watched, signal.SIGKILL)
                break
    finally:
        os._exit(0)
    return True  # pragma: no cover - never reached


def die_with_parent(parent: int | None = None, watchdog: bool | None = None) -> None:
    """Make this (worker) process die when ``parent``, the process that started it (default: the
    current parent), does. ``watchdog``: force (True) or forbid (False) the portable watchdog
    instead of ``prctl``."""
    parent = os.getppid() if parent is None else parent
    with contextlib.suppress(ValueError):  # (ValueError: not the main thread)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the parent's handler: SIGTERM ends a worker
    if watchdog is not True and _prctl_death_signal():
        if os.getppid() != parent:  # the parent died before the request took effect
            os._exit(1)
        return
    if watchdog is False:
        return
    if os.getppid() != parent:
        os._exit(1)
    _start_watchdog(parent)
