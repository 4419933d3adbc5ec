"""No process of kartalint's outlives it (issue 34, item 6): every command that starts processes
(the jq worker, ``lint -j`` workers, the language server's worker) is killed while its children
run (the jq worker in the middle of an expression that never ends), with SIGKILL and with
SIGTERM, and every descendant listed by PID before the kill must be gone 5 s later."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import time

import pytest
import yaml
from conftest import BASE_DEFINITION, ROOT, git, trainer_object

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc"), reason="lists processes through /proc")

RUNAWAY = "last(repeat(1))"  # an expression that never ends
OBJECT = trainer_object("w")


def stat_of(pid: str) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name (state, parent, ..., start time)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
            return handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return None


def descendants(pid: int) -> set[tuple[str, str]]:
    """Every process below ``pid``: (PID, start time), so that a PID reused later is not taken for
    the same process."""
    children: dict[str, list[tuple[str, str]]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = stat_of(entry)
            if fields is not None:
                children.setdefault(fields[1], []).append((entry, fields[19]))
    found: set[tuple[str, str]] = set()
    stack = [str(pid)]
    while stack:
        for child in children.get(stack.pop(), []):
            if child not in found:
                found.add(child)
                stack.append(child[0])
    return found


def alive(process: tuple[str, str]) -> bool:
    """Whether the process runs (a zombie nobody reaps is dead: init in a container may not reap)."""
    fields = stat_of(process[0])
    return fields is not None and fields[19] == process[1] and fields[0] != "Z"


def still_alive_after(processes: set[tuple[str, str]], seconds: float = 5.0) -> list[tuple[str, str]]:
    """The processes still running ``seconds`` from now (polled: returns once none is)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(alive(p) for p in processes):
        time.sleep(0.1)
    return sorted(p for p in processes if alive(p))


def exit_code_after(how: signal.Signals) -> int:
    """What kartalint exits with when killed with ``how``: 143 after SIGTERM (it stops its
    children first, docs/security.md), the signal itself after SIGKILL."""
    return 128 + signal.SIGTERM if how == signal.SIGTERM else -how


def kill_leftovers(proc: subprocess.Popen, processes: set[tuple[str, str]]) -> None:
    """What a failed test left running: the processes listed, then the one it started."""
    for process in processes:
        if alive(process):
            os.kill(int(process[0]), signal.SIGKILL)
    if proc.poll() is None:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> pathlib.Path:
    root = tmp_path_factory.mktemp("lifetime")
    (root / "definitions").mkdir()
    (root / "definitions" / "trainer.yaml").write_text(
        BASE_DEFINITION.replace("replicasPath: .spec.roles[] | (.replicas // 1)", f"replicasPath: '{RUNAWAY}'")
    )
    (root / "fixtures" / "example-com-trainer-v1").mkdir(parents=True)
    fixture = {"apiVersion": "kartalint/v1", "kind": "KartaFixture", "name": "case", "source": "test"}
    fixture.update(object=OBJECT, expect={"statuses": ["Running"]})
    (root / "fixtures" / "example-com-trainer-v1" / "case.yaml").write_text(yaml.safe_dump(fixture))
    (root / "object.yaml").write_text(yaml.safe_dump(OBJECT))
    (root / "crds").mkdir()
    shutil.copyfile(os.path.join(ROOT, "tests", "data", "crds", "example.com_trainers.yaml"), root / "crds" / "t.yaml")
    (root / ".kartalint.yaml").write_text("definitions: [definitions]\nfixtures: [fixtures]\n")
    many = root / "many"  # enough files that `lint -j 2` has its workers for a while (FROZEN)
    many.mkdir()
    catalog = pathlib.Path(ROOT, "catalog")
    for number, path in enumerate(sorted(catalog.glob("*.yaml")) * 8):
        (many / f"{number}.yaml").write_text(path.read_text(encoding="utf-8"))
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "-m", "base")
    return root


COMMANDS = {
    "test": ["test", "--timeout", "600"],
    "describe": ["describe", "object.yaml", "--definition", "definitions/trainer.yaml"],
    "new-fixture": ["new", "fixture", "object.yaml", "--definition", "definitions/trainer.yaml"],
    "catalog": ["catalog"],
    "explore": ["explore", "definitions/trainer.yaml", "--crd", "crds/t.yaml", "--max-time", "600"],
    "diff": ["diff", "--base", "HEAD", "--timeout", "600"],
    "lint-j": ["lint", "-j", "2", "many"],
}
# Commands without a runaway expression, which would end before the kill: each is stopped
# (SIGSTOP) as soon as its workers are seen, so that they are alive when it is killed (a worker
# whose work is done waits for more), and continued after the signal. Before, `lint -j 2` had
# often ended on its own by then, and the test asserted nothing about it.
FROZEN = {"lint-j"}


def lsp_messages(project: pathlib.Path) -> bytes:
    """initialize, open the runaway definition, hover on its jq field: the hover runs it."""
    path = project / "definitions" / "trainer.yaml"
    text = path.read_text()
    line = next(i for i, row in enumerate(text.split("\n")) if RUNAWAY in row)
    character = text.split("\n")[line].index(RUNAWAY) + 2
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"capabilities": {}, "rootUri": project.as_uri()},
        },
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {
            "jsonrpc": "2.0",
            "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": path.as_uri(), "languageId": "yaml", "version": 1, "text": text}},
        },
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "textDocument/hover",
            "params": {"textDocument": {"uri": path.as_uri()}, "position": {"line": line, "character": character}},
        },
    ]
    out = b""
    for message in messages:
        body = json.dumps(message).encode()
        out += b"Content-Length: %d\r\n\r\n" % len(body) + body
    return out


def start(project: pathlib.Path, name: str) -> subprocess.Popen:
    argv = ["lsp"] if name == "lsp" else COMMANDS[name]
    proc = subprocess.Popen(
        [sys.executable, "-m", "kartalint", *argv],
        cwd=project,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    if name == "lsp":
        assert proc.stdin is not None
        proc.stdin.write(lsp_messages(project))
        proc.stdin.flush()  # stdin stays open, as an editor keeps it
    return proc


@pytest.mark.slow  # every command started and killed: ~18 s each on two cores
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_no_process_outlives_a_killed_kartalint(project, how):
    names = [*COMMANDS, "lsp"]
    procs = {name: start(project, name) for name in names}
    seen: dict[str, set[tuple[str, str]]] = {name: set() for name in names}
    try:
        deadline = time.monotonic() + 60
        busy = {name: 0.0 for name in names}  # since when each has had a child
        while time.monotonic() < deadline and not all(busy[n] and time.monotonic() - busy[n] > 1.5 for n in names):
            for name, proc in procs.items():
                found = descendants(proc.pid)
                seen[name] |= found
                if found and not busy[name]:
                    busy[name] = time.monotonic()
                    if name in FROZEN:
                        os.kill(proc.pid, signal.SIGSTOP)
            time.sleep(0.05)
        assert all(busy.values()), f"no child process seen for {[n for n in names if not busy[n]]}"
        for name, proc in procs.items():
            seen[name] |= descendants(proc.pid)
            assert proc.poll() is None, f"{name} ended before it was killed: nothing tested"
            proc.send_signal(how)
            if name in FROZEN:
                os.kill(proc.pid, signal.SIGCONT)  # a stopped process takes SIGTERM when it goes on
        for name, proc in procs.items():
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                raise AssertionError(f"{name} still running 30 s after {how.name}") from None
        codes = {name: proc.returncode for name, proc in procs.items()}
        assert {name: code for name, code in codes.items() if code != exit_code_after(how)} == {}
        left = still_alive_after(set().union(*seen.values()))
        by_command = {name: sorted(pids & set(left)) for name, pids in seen.items() if pids & set(left)}
        assert left == [], f"alive 5 s after their parent was killed ({how.name}): {by_command}"
    finally:
        for name, proc in procs.items():
            kill_leftovers(proc, seen[name])


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_lint_workers_at_work_die_with_a_killed_lint(tmp_path, how):
    """`lint -j 2` killed while both workers are in the middle of their files (here each sleeps
    in its chunk, as a worker on a long file is busy in it): no worker outlives it, and SIGTERM
    exits 143. The kill test above catches `lint -j` only between files, where a worker whose
    parent is gone also ends on its own (its task pipe closes)."""
    for number in range(4):
        (tmp_path / f"{number}.yaml").write_text(BASE_DEFINITION)
    code = (
        "import sys, time\n"
        "import kartalint.lint.paths as lint\n"
        "def at_work(chunk):\n"
        "    time.sleep(600)\n"
        "lint._lint_chunk = at_work\n"
        "from kartalint.cli import main\n"
        "sys.exit(main(['lint', '-j', '2', *sys.argv[1:]]))\n"
    )
    files = sorted(str(path) for path in tmp_path.glob("*.yaml"))
    proc = subprocess.Popen([sys.executable, "-c", code, *files], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers: set[tuple[str, str]] = set()
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(workers) < 2:
            workers = descendants(proc.pid)
            time.sleep(0.05)
        assert len(workers) == 2, workers
        proc.send_signal(how)
        proc.wait(30)
        assert proc.returncode == exit_code_after(how)
        assert still_alive_after(workers) == [], f"alive 5 s after lint got {how.name}"
    finally:
        kill_leftovers(proc, workers)


def test_the_portable_watchdog_kills_a_worker_whose_parent_died():
    """Where ``prctl`` is missing (macOS), a watchdog process ends the worker: forced here."""
    code = (
        "import os, sys, time\n"
        "from kartalint.jqlang.lifetime import die_with_parent\n"
        "parent = os.getpid()\n"
        "if os.fork() == 0:\n"
        "    die_with_parent(parent, watchdog=True)\n"
        "    print(os.getpid(), flush=True)\n"
        "    while True:\n"
        "        pass\n"  # busy, as libjq on an expression that never ends
        "time.sleep(600)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    processes: set[tuple[str, str]] = set()
    try:
        assert proc.stdout is not None
        worker = proc.stdout.readline().strip()
        processes = descendants(proc.pid)
        assert worker in {pid for pid, _ in processes} and len(processes) == 2  # the worker and its watchdog
        proc.kill()
        proc.wait()
        assert still_alive_after(processes) == []
    finally:
        kill_leftovers(proc, processes)


def test_lint_jobs_is_capped_by_the_files_and_the_cpus(capsys, monkeypatch):
    """`lint -j 500` on 3 files starts 3 workers at most (item 7); 0 means automatic; below 0 is a
    usage error."""
    import multiprocessing.context

    from kartalint.cli import main
    from kartalint.lint.paths import worker_count

    started: list[int] = []
    real_pool = multiprocessing.context.BaseContext.Pool

    def counting_pool(self, processes=None, *args, **kwargs):
        started.append(processes)
        return real_pool(self, processes, *args, **kwargs)

    monkeypatch.setattr(multiprocessing.context.BaseContext, "Pool", counting_pool)
    files = [str(p) for p in sorted(pathlib.Path(ROOT, "catalog").glob("*.yaml"))[:3]]
    assert main(["lint", "-j", "500", "-q", *files]) == 0
    assert started == [3]
    assert worker_count(500, 100) == 2 * (os.cpu_count() or 1)
    assert worker_count(0, 3) == worker_count(None, 3) == 1
    capsys.readouterr()
    assert main(["lint", "-j", "0", "-q", *files]) == 0
    assert main(["lint", "-j", "-1", *files]) == 2
    assert "--jobs must be 0 (automatic) or more (got -1)" in capsys.readouterr().err
