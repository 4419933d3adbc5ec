"""No process of kartalint's outlives it (issue 34, item 6): every command that starts processes
(the jq worker, ``lint -j`` workers, the language server's worker) is killed while its children
run (the jq worker in the middle of an expression that never ends), with SIGKILL and with
SIGTERM, and every descendant listed by PID before the kill must be gone 5 s later."""

from __future__ import annotations

import json
import os
import pathlib
import select
import shutil
import signal
import subprocess
import sys
import time

import pytest
import yaml
from conftest import BASE_DEFINITION, ROOT, git, trainer_object
from stopped_at_work import RUNAWAY

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc"), reason="lists processes through /proc")

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


def events(channel: int, count: int, bound: float = 300.0) -> bytes:
    """The next ``count`` bytes the processes under test write to ``channel`` (fewer when they
    all closed it); ``bound`` seconds only bound a failure (a process that never says it)."""
    got = b""
    deadline = time.monotonic() + bound
    while len(got) < count and time.monotonic() < deadline:
        ready, _, _ = select.select([channel], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        data = os.read(channel, count - len(got))
        if not data:
            break
        got += data
    return got


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
    many = root / "many"  # files for two workers (the first stops `lint -j 2` as it starts)
    shutil.copytree(pathlib.Path(ROOT, "catalog"), many)
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
# Each command runs through tests/stopped_at_work.py: it stops itself (SIGSTOP) as soon as it has
# handed the expression that never ends to its jq worker, which writes its PID to a mark as it
# starts on it (`lint -j`: its first worker writes the mark and stops it). So the kill lands while
# the workers run, the jq worker in the middle of that expression, however slow the machine.
# Before, the test waited until every command had had a child for 1.5 s: on a busy machine
# `describe` had ended at its 10 s limit by then ("nothing tested"); and a command stopped by its
# worker instead is too late for the language server, whose spawned worker's start counts in the
# hover's 2 s (with the whole suite and four busy loops beside it, it never got to the expression).
STOPPED_AT_WORK = (
    f"import sys\nsys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r})\n"
    "import stopped_at_work\nsys.exit(stopped_at_work.main(sys.argv[1:]))\n"
)
STOPPED_WITHIN = 300  # seconds: a bound for a failure only (the commands wait for nothing but a CPU)


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


def start(project: pathlib.Path, name: str, mark: pathlib.Path) -> subprocess.Popen:
    """``kartalint`` running command ``name`` in ``project``; it stops itself at work, and its
    worker at work writes its PID to ``mark`` (tests/stopped_at_work.py)."""
    argv = ["lsp"] if name == "lsp" else COMMANDS[name]
    proc = subprocess.Popen(
        [sys.executable, "-c", STOPPED_AT_WORK, *argv],
        cwd=project,
        env=dict(os.environ, KARTALINT_TEST_STOP_MARK=str(mark)),
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    if name == "lsp":
        assert proc.stdin is not None
        proc.stdin.write(lsp_messages(project))
        proc.stdin.flush()  # stdin stays open, as an editor keeps it
    return proc


def stopped_at_work(proc: subprocess.Popen, mark: pathlib.Path) -> bool:
    """Whether ``proc`` stopped at work: stopped, and its worker's mark written."""
    fields = stat_of(str(proc.pid))
    return fields is not None and fields[0] == "T" and mark.exists() and mark.read_text() != ""


@pytest.mark.slow  # eight commands started at once and killed: ~15 s of CPU each
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_no_process_outlives_a_killed_kartalint(project, tmp_path, how):
    names = [*COMMANDS, "lsp"]
    marks = {name: tmp_path / f"{name}.stopped" for name in names}
    procs = {name: start(project, name, marks[name]) for name in names}
    seen: dict[str, set[tuple[str, str]]] = {name: set() for name in names}
    try:
        deadline = time.monotonic() + STOPPED_WITHIN
        waiting = set(names)
        while waiting and time.monotonic() < deadline:
            for name in sorted(waiting):
                assert procs[name].poll() is None, f"{name} ended before it stopped at work: nothing tested"
                seen[name] |= descendants(procs[name].pid)
                if stopped_at_work(procs[name], marks[name]):
                    waiting.discard(name)
            time.sleep(0.05)
        assert not waiting, f"not stopped at work within {STOPPED_WITHIN} s: {sorted(waiting)}"
        for name, proc in procs.items():
            seen[name] |= descendants(proc.pid)
            worker = marks[name].read_text()
            assert any(alive(p) for p in seen[name] if p[0] == worker), f"{name}: its worker {worker} is not running"
        for proc in procs.values():
            proc.send_signal(how)
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
    in its chunk, as a worker on a long file is busy in it, and says so over a pipe first): no
    worker outlives it, and SIGTERM exits 143. The kill test above catches `lint -j` only between
    files, where a worker whose parent is gone also ends on its own (its task pipe closes)."""
    for number in range(4):
        (tmp_path / f"{number}.yaml").write_text(BASE_DEFINITION)
    code = (
        "import os, sys, time\n"
        "import kartalint.lint.paths as lint\n"
        "def at_work(chunk):\n"
        "    os.write(int(os.environ['KARTALINT_TEST_CHANNEL']), b'w')\n"
        "    time.sleep(600)\n"
        "lint._lint_chunk = at_work\n"
        "from kartalint.cli import main\n"
        "sys.exit(main(['lint', '-j', '2', *sys.argv[1:]]))\n"
    )
    files = sorted(str(path) for path in tmp_path.glob("*.yaml"))
    read, write = os.pipe()
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *files],
        env=dict(os.environ, KARTALINT_TEST_CHANNEL=str(write)),
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    workers: set[tuple[str, str]] = set()
    try:
        assert events(read, 2) == b"ww", "both workers at work"
        workers = descendants(proc.pid)
        assert len(workers) == 2, workers
        proc.send_signal(how)
        proc.wait(30)
        assert proc.returncode == exit_code_after(how)
        assert still_alive_after(workers) == [], f"alive 5 s after lint got {how.name}"
    finally:
        os.close(read)
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
