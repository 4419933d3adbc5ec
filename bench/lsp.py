"""Benchmark: how long after a change the language server's diagnostics arrive.

    python3 bench/lsp.py [--changes 20]

Starts ``kartalint lsp`` as an editor does (stdio), opens a catalog definition, then sends
whole-document changes one at a time (alternating a misspelt and a correct field name) and times
each change until the ``publishDiagnostics`` of that version arrives: the debounce (0.15 s of
quiet typing) is included. The peer in the same run: ``kartalint lint`` of the same file as a
command (what a save hook would cost). Target: under 300 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFINITION = os.path.join(ROOT, "catalog", "jobset-x-k8s-io-jobset-v1alpha2.yaml")


class Client:
    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kartalint", "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT
        )
        self.next_id = 0

    def send(self, method: str, params: dict, request: bool = False) -> int | None:
        message: dict = {"jsonrpc": "2.0", "method": method, "params": params}
        if request:
            self.next_id += 1
            message["id"] = self.next_id
        body = json.dumps(message).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()
        return message.get("id")

    def receive(self) -> dict:
        assert self.proc.stdout is not None
        length = 0
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise SystemExit("the language server exited")
            if line in (b"\r\n", b"\n"):
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return json.loads(self.proc.stdout.read(length))

    def wait(self, predicate) -> dict:
        while True:
            message = self.receive()
            if predicate(message):
                return message

    def close(self) -> None:
        request = self.send("shutdown", {}, request=True)
        self.wait(lambda m: m.get("id") == request)
        self.send("exit", {})
        self.proc.wait(10)


def measure(changes: int = 20) -> dict:
    with open(DEFINITION, encoding="utf-8") as handle:
        text = handle.read()
    uri = "file://" + DEFINITION
    client = Client()
    request = client.send(
        "initialize", {"processId": os.getpid(), "rootUri": "file://" + ROOT, "capabilities": {}}, request=True
    )
    client.wait(lambda m: m.get("id") == request)
    client.send("initialized", {})
    started = time.perf_counter()
    client.send(
        "textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}}
    )
    client.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics")
    first = time.perf_counter() - started
    times = []
    for version in range(2, changes + 2):
        changed = text.replace("statusDefinition:", "statusDefiniton:", 1) if version % 2 else text
        started = time.perf_counter()
        client.send(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": changed}]},
        )
        message = client.wait(
            lambda m, v=version: (
                m.get("method") == "textDocument/publishDiagnostics" and m["params"].get("version") == v
            )
        )
        times.append(time.perf_counter() - started)
        assert bool(message["params"]["diagnostics"]) == bool(version % 2)
    client.close()
    peer = []
    for _ in range(5):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "kartalint", "lint", "-q", DEFINITION], cwd=ROOT, check=False)
        peer.append(time.perf_counter() - started)
    return {"open": first, "change": statistics.median(times), "worst": max(times), "cli": statistics.median(peer)}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--changes", type=int, default=20)
    args = parser.parse_args()
    m = measure(args.changes)
    print(f"diagnostics after opening the file: {m['open'] * 1000:.0f} ms (server running)")
    print(
        f"diagnostics after a change: median {m['change'] * 1000:.0f} ms, worst {m['worst'] * 1000:.0f} ms (target < 300 ms; 150 ms of it is the debounce)"
    )
    print(
        f"peer: `kartalint lint FILE` as a command: {m['cli'] * 1000:.0f} ms (ratio change / command {m['change'] / m['cli']:.2f})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
