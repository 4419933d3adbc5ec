"""A minimal JSON-RPC client for ``kartalint lsp`` over stdio, for the fuzz campaign.

pytest-lsp's client validates what it sends (it cannot send malformed params or an unknown
method) and lives in an event loop hypothesis does not drive; this one writes raw messages,
reads every message the server sends on a thread, answers the server's own requests
(``workspace/codeLens/refresh``...) with ``null``, and waits for each response with a timeout.

The server runs with a Python audit hook (``AUDIT_HOOK``) that writes every path it opens (or
lists) under a watched folder to a log file: what the server *read*, not only what it showed.
"""

from __future__ import annotations

import contextlib
import json
import queue
import subprocess
import sys
import threading
import time
from typing import Any

# run as `python -c AUDIT_HOOK`: env KARTALINT_AUDIT_WATCH (a folder), KARTALINT_AUDIT_LOG (a file)
AUDIT_HOOK = """\
import os, sys
_watch = os.path.realpath(os.environ["KARTALINT_AUDIT_WATCH"]) + os.sep
_log = os.open(os.environ["KARTALINT_AUDIT_LOG"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

def _hook(event, args):
    if event not in ("open", "os.listdir", "os.scandir") or not args:
        return
    path = args[0]
    if isinstance(path, int) or path is None:
        return
    try:
        path = os.fsdecode(path)
        real = os.path.realpath(path)
    except Exception:
        return
    if real.startswith(_watch) or path.startswith(_watch):
        os.write(_log, f"{os.getpid()} {event} {path} -> {real}\\n".encode("utf-8", "replace"))

sys.addaudithook(_hook)
from kartalint.cli import main
sys.exit(main(["lsp"]))
"""


class StdioClient:
    """``kartalint lsp`` started in ``cwd``; ``request`` returns an id, ``response(id, timeout)``
    its answer (a dict with ``result`` or ``error``), ``received`` every message the server sent."""

    def __init__(self, cwd: str, env: dict[str, str], audit_log: str, watch: str) -> None:
        env = dict(env, KARTALINT_AUDIT_LOG=audit_log, KARTALINT_AUDIT_WATCH=watch)
        self.process = subprocess.Popen(
            [sys.executable, "-c", AUDIT_HOOK],
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.received: list[dict[str, Any]] = []
        self.raw: list[bytes] = []  # every message body as sent (what an editor would see)
        self.stderr: list[bytes] = []
        self._responses: dict[Any, dict[str, Any]] = {}
        self._arrived: queue.Queue[None] = queue.Queue()
        self._lock = threading.Lock()
        self._next = 0
        self._write_lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()
        self._stderr_reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._stderr_reader.start()

    # -- sending ---------------------------------------------------------------------------------

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps(message, ensure_ascii=True).encode("ascii")  # lone surrogates as \\ud800 escapes
        assert self.process.stdin is not None
        with self._write_lock:
            self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.process.stdin.flush()

    def request(self, method: str, params: Any = None) -> int:
        with self._lock:
            self._next += 1
            number = self._next
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": number, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return number

    def notify(self, method: str, params: Any = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def call(self, method: str, params: Any = None, timeout: float = 60.0) -> dict[str, Any]:
        return self.response(self.request(method, params), timeout)

    def response(self, number: int, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                if number in self._responses:
                    return self._responses[number]
            left = deadline - time.monotonic()
            if left <= 0 or self.process.poll() is not None:
                raise AssertionError(
                    f"request {number}: no response within {timeout} s (server "
                    f"{'exited ' + str(self.process.returncode) if self.process.poll() is not None else 'alive'}); "
                    f"stderr: {b''.join(self.stderr)[-2000:]!r}"
                )
            with contextlib.suppress(queue.Empty):
                self._arrived.get(timeout=min(left, 0.2))

    # -- receiving -------------------------------------------------------------------------------

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii", "replace").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            if length is None:
                continue
            body = stream.read(length)
            self.raw.append(body)
            message = json.loads(body)
            with self._lock:
                self.received.append(message)
                if "id" in message and "method" not in message:
                    self._responses[message["id"]] = message
            if "id" in message and "method" in message:  # the server asks: say nothing useful, at once
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            self._arrived.put(None)

    def _read_stderr(self) -> None:
        stream = self.process.stderr
        assert stream is not None
        for line in iter(stream.readline, b""):
            self.stderr.append(line)

    def notifications(self, method: str) -> list[dict[str, Any]]:
        with self._lock:
            return [m for m in self.received if m.get("method") == method and "id" not in m]

    def close(self, timeout: float = 20.0) -> int | None:
        """Shut the server down; its exit code (None: it had to be killed). ``stderr`` then holds
        everything it wrote there."""
        try:
            self.call("shutdown", None, timeout)
            self.notify("exit")
            return self.process.wait(timeout)
        except Exception:
            self.process.kill()
            self.process.wait()
            return None
        finally:
            self._stderr_reader.join(timeout)  # the process is gone: its stderr ends
