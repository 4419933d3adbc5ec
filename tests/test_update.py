"""`kartalint test --update`: only `expect` changes, in every shape of fixture file, atomically,
under kills, write errors and concurrent runs."""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import sys

import pytest
import yaml
from conftest import BASE_DEFINITION, unmeasured_environment

from kartalint.cli import main
from kartalint.testing.update import TEMP_SUFFIX, rewrite_expect

OBJECT_FLOW = (
    "{apiVersion: example.com/v1, kind: Trainer, metadata: {name: t, uid: u}, spec: {roles: [{name: worker, "
    "replicas: 3, template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 2}}}]}}}]}, "
    "status: {phase: Running}}"
)
HEAD = "apiVersion: kartalint/v1\nkind: KartaFixture\nsource: test\n"
FRESH = {"statuses": ["Running"], "gpus": 6}


def doc(name: str, expect: str = "expect:\n  statuses: [Failed]\n  gpus: 1\n") -> str:
    return f"{HEAD}name: {name}\nobject: {OBJECT_FLOW}\n{expect}"


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CI", raising=False)
    (tmp_path / ".git").mkdir()  # a project (a git work tree): `test` without PATH runs its fixtures/
    (tmp_path / "defs").mkdir()
    (tmp_path / "defs" / "trainer.yaml").write_text(BASE_DEFINITION)
    (tmp_path / "fixtures" / "example-com-trainer-v1").mkdir(parents=True)
    return tmp_path


def update(capsys, *extra):
    code = main(["test", "--definitions", "defs", "--update=all", *extra])
    return code, capsys.readouterr().err


def expects(path):
    return [d["expect"] for d in yaml.safe_load_all(path.read_bytes().decode("utf-8-sig")) if d]


def outside_expect(text: str) -> str:
    """Every line of a block-style fixture that is not in a top-level ``expect`` block."""
    keep, inside = [], False
    for line in text.splitlines(keepends=True):
        if line.startswith(("expect:", '"expect":')):
            inside = True
            continue
        if inside and (line[:1] in (" ", "-") and not line.startswith("---")):
            continue
        inside = False
        keep.append(line)
    return "".join(keep)


# -- shapes of fixture files -------------------------------------------------------------------------


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_line_endings_are_kept(project, capsys, newline):
    path = project / "fixtures" / "example-com-trainer-v1" / "case.yaml"
    original = ("# header\n" + doc("crlf") + "# trailing\n").replace("\n", newline)
    path.write_bytes(original.encode())
    _code, err = update(capsys)
    assert "updated 1 fixture(s)" in err, err
    data = path.read_bytes().decode()
    assert (
        data.replace(newline, "") != data and "\n" not in data.replace("\r\n", "")
        if newline == "\r\n"
        else "\n" not in data
    )
    assert outside_expect(data.replace(newline, "\n")) == outside_expect(original.replace(newline, "\n"))
    assert expects(path) == [{"statuses": ["Running"], "gpus": 6}]
    assert main(["test", "--definitions", "defs"]) == 0


def test_bom_and_missing_final_newline_are_kept(project, capsys):
    path = project / "fixtures" / "example-com-trainer-v1" / "case.yaml"
    original = b"\xef\xbb\xbf" + doc("bom", "expect:\n  gpus: 1").encode()
    path.write_bytes(original)
    assert "updated 1" in update(capsys)[1]
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and not data.endswith(b"\n")
    assert data.decode("utf-8-sig").endswith("expect:\n  gpus: 6")


def test_quoted_expect_key_is_replaced_not_duplicated(project, capsys):
    path = project / "fixtures" / "example-com-trainer-v1" / "case.yaml"
    path.write_text(doc("quoted", '"expect":\n  statuses: [Failed]\n'))
    assert "updated 1" in update(capsys)[1]
    text = path.read_text()
    assert text.count("expect") == 1
    assert yaml.safe_load(text)["expect"] == {"statuses": ["Running"]}


def test_multi_document_file_updates_each_document(project, capsys):
    path = project / "fixtures" / "example-com-trainer-v1" / "many.yaml"
    original = (
        "# file comment\n---\n"
        + doc("one")
        + "---\n# between\n"
        + doc("two", "expect: {gpus: 2}\n")
        + "...\n---\n"
        + doc("three", "expect: {}\n")
        + "\n"
    )
    path.write_text(original)
    _code, err = update(capsys)
    assert "updated 3 fixture(s) in 1 file(s)" in err, err
    text = path.read_text()
    assert text.startswith("# file comment\n---\n") and "---\n# between\n" in text and "...\n---\n" in text
    assert expects(path)[:2] == [FRESH, {"gpus": 6}]
    assert expects(path)[2]["statuses"] == ["Running"]  # an empty expect gets a full snapshot
    assert "expect: {gpus: 6}" in text and "statuses: [Running]" in text  # flow stays flow
    assert main(["test", "--definitions", "defs"]) == 0


def test_flow_style_fixture_documents(project, capsys):
    folder = project / "fixtures" / "example-com-trainer-v1"
    with_expect = (
        "{apiVersion: kartalint/v1, kind: KartaFixture, source: test, object: "
        + OBJECT_FLOW
        + ", expect: {gpus: 1}, name: f}\n"
    )
    without = (
        "{apiVersion: kartalint/v1, kind: KartaFixture, source: test, expect: {\n },\n object: "
        + OBJECT_FLOW
        + "}  # comment kept\n"
    )
    (folder / "a.yaml").write_text(with_expect)
    (folder / "b.yaml").write_text(without)
    _code, err = update(capsys)
    assert "updated 2" in err, err
    a, b = (folder / "a.yaml").read_text(), (folder / "b.yaml").read_text()
    assert a.startswith("{apiVersion: kartalint/v1, kind: KartaFixture, source: test, object: ") and a.endswith(
        ", name: f}\n"
    )
    assert yaml.safe_load(a)["expect"] == {"gpus": 6}
    assert b.endswith("}  # comment kept\n") and yaml.safe_load(b)["expect"]["gpus"] == 6
    assert main(["test", "--definitions", "defs"]) == 0


def test_indented_block_document(project, capsys):
    path = project / "fixtures" / "example-com-trainer-v1" / "case.yaml"
    path.write_text("".join("  " + line + "\n" for line in doc("indented").splitlines()) + "  # end\n")
    assert "updated 1" in update(capsys)[1]
    text = path.read_text()
    assert yaml.safe_load(text)["expect"] == FRESH and text.endswith("  # end\n")


@pytest.mark.parametrize("dash", ["", "  "])
def test_a_block_document_keeps_its_indentation_of_sequences(project, capsys, dash):
    """Sequences written under their key (`key:` then `  - item`, as yamlfmt and prettier write
    them) or at its column (kubectl's `- item`): the rewritten `expect` indents as the file does
    (ruamel.yaml's own guess took the first for mappings indented by 4)."""
    path = project / "fixtures" / "example-com-trainer-v1" / "case.yaml"
    roles = (
        f"    roles:\n{dash}    - name: worker\n{dash}      replicas: 3\n{dash}      template:\n"
        f"{dash}        spec:\n{dash}          containers:\n{dash}{dash}            - name: c\n"
        f"{dash}{dash}              resources: {{limits: {{nvidia.com/gpu: 2}}}}\n"
    )
    path.write_text(
        f"{HEAD}name: styled\nobject:\n  apiVersion: example.com/v1\n  kind: Trainer\n"
        f"  metadata: {{name: t, uid: u}}\n  spec:\n{roles}  status:\n    phase: Running\n"
        f"expect:\n  statuses:\n{dash}  - Failed\n  gpus: 1\n"
    )
    before = path.read_text()
    assert "updated 1" in update(capsys)[1]
    text = path.read_text()
    assert yaml.safe_load(text)["expect"] == FRESH
    assert text == before.replace(f"{dash}  - Failed\n  gpus: 1", f"{dash}  - Running\n  gpus: 6"), text


def test_symlinked_fixture_is_not_replaced(project, capsys, tmp_path):
    real = project / "real.yaml"
    real.write_text(doc("linked"))
    (project / "fixtures" / "example-com-trainer-v1" / "link.yaml").symlink_to(real)
    code, err = update(capsys)
    assert code == 2 and "link.yaml: not updated: is a symbolic link" in err
    assert real.read_text() == doc("linked")


def test_expect_is_inserted_into_a_flow_document_without_one():
    assert rewrite_expect("{name: x, object: {}}  # c\n", [(1, {"gpus": 2})]) == (
        '{name: x, object: {}, "expect": {"gpus": 2}}  # c\n',
        1,
    )
    assert rewrite_expect("--- {}\n", [(1, {"gpus": 2})]) == ('--- {"expect": {"gpus": 2}}\n', 1)


def test_rewrite_expect_keeps_every_byte_outside_the_block():
    text = "# c\r\nname: x\r\nexpect:\r\n  gpus: 1 # inline\r\n\r\n# after\r\nobject: {}\r\n"
    fresh, changed = rewrite_expect(text, [(2, {"gpus": 2})])
    assert changed == 1
    assert fresh == "# c\r\nname: x\r\nexpect:\r\n  gpus: 2 # inline\r\n\r\n# after\r\nobject: {}\r\n"


# -- atomicity: kills, write errors, concurrency -----------------------------------------------------


def _folder(project, count=40):
    folder = project / "fixtures" / "example-com-trainer-v1"
    for index in range(count):
        (folder / f"case{index:02d}.yaml").write_text("# keep me\n" + doc(f"c{index}") + "# tail\n")
    return folder


def _snapshot(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _command():
    return [sys.executable, "-m", "kartalint", "test", "--definitions", "defs", "--update=all"]


def _env():
    env = dict(os.environ)
    env.pop("CI", None)
    return env


# The child runs `kartalint test --update` with every file-system call of kartalint.testing.update
# wrapped: before each call it writes "<step> <call> <names>" to the channel (a pipe from the test)
# and, at the step the test chose, blocks on its stdin; the test then kills it there. So the kill
# lands at a known point of the update, whatever the speed of the machine.
_PAUSABLE_UPDATE = r"""
import os, sys, tempfile, types
from kartalint.cli import main
from kartalint.testing import update

channel = os.fdopen(int(os.environ["KARTALINT_TEST_CHANNEL"]), "w", buffering=1)
pause_at = int(os.environ["KARTALINT_TEST_PAUSE_AT"])  # 0: run to the end
steps = 0

def step(name, function):
    def call(*args, **kwargs):
        global steps
        steps += 1
        names = [os.path.basename(a) for a in args if isinstance(a, str)]
        channel.write(f"{steps} {name} {' '.join(names)}\n")
        if steps == pause_at:
            sys.stdin.read()  # killed here, before the call
        return function(*args, **kwargs)
    return call

calls = ("stat", "open", "write", "fchmod", "fsync", "close", "replace", "unlink")
update.os = types.SimpleNamespace(**{**vars(os), **{name: step(name, getattr(os, name)) for name in calls}})
update.tempfile = types.SimpleNamespace(mkstemp=step("mkstemp", tempfile.mkstemp))
sys.exit(main(sys.argv[1:]))
"""


def _update_until(project, pause_at):
    """Run the update in a child that is killed before its ``pause_at``-th file-system call (0: not
    killed); the steps it went through, as (number, call, file names)."""
    read, write = os.pipe()
    env = dict(_env(), KARTALINT_TEST_CHANNEL=str(write), KARTALINT_TEST_PAUSE_AT=str(pause_at))
    if pause_at:  # a killed child never saves coverage data: measured runs leave it out
        env = {key: value for key, value in env.items() if not key.startswith("COVERAGE_")}
    proc = subprocess.Popen(
        [sys.executable, "-c", _PAUSABLE_UPDATE, *_command()[3:]],
        cwd=project,
        env=env,
        pass_fds=(write,),
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    steps = []
    with os.fdopen(read) as channel:
        for line in channel:
            number, call, *names = line.split()
            steps.append((int(number), call, names))
            if int(number) == pause_at:
                proc.kill()
                break
    proc.stdin.close()
    assert proc.wait(timeout=300) == (-signal.SIGKILL if pause_at else 0)
    return steps


@pytest.mark.slow
def test_kill_at_any_moment_leaves_old_or_new_bytes(project):
    folder = _folder(project, 3)
    old = _snapshot(folder)
    spare = project / "spare"
    shutil.copytree(folder, spare)
    steps = _update_until(project, 0)  # the whole update: every file-system call it makes
    new = _snapshot(folder)
    assert all(new[name] != old[name] for name in old)
    # a kill before each call made for the second of the three files (lock, temporary file, write,
    # mode, fsync, close, rename, fsync of the folder), and before the very first and the very last
    total = len(steps)
    points = [1, *range(total // 3 + 1, 2 * total // 3 + 1), total]
    assert len(points) >= 6, steps
    replaced = {names[-1]: number for number, call, names in steps if call == "replace"}
    for point in points:
        shutil.rmtree(folder)
        shutil.copytree(spare, folder)
        assert _update_until(project, point)[-1][0] == point
        now = {p.name: p.read_bytes() for p in folder.iterdir() if not p.name.endswith(TEMP_SUFFIX)}
        assert set(now) == set(old)
        for name, data in now.items():
            assert data in (old[name], new[name]), f"killed before {steps[point - 1]}: {name} is neither old nor new"
        if total // 3 < point <= 2 * total // 3:  # the first file is done, the last one not yet begun
            assert now["case00.yaml"] == new["case00.yaml"] and now["case02.yaml"] == old["case02.yaml"]
        for name, data in now.items():  # exactly the files renamed before the kill are new
            assert data == (new[name] if replaced.get(name, total + 1) < point else old[name]), (point, name)


def test_write_error_after_the_first_byte_leaves_the_file_unchanged(project):
    folder = _folder(project, 3)
    old = _snapshot(folder)

    def limit_file_size():  # every write past 64 bytes fails with EFBIG, as on a full disk
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))

    # a child that cannot write 64 bytes cannot save coverage data either: measured runs leave it out
    env = {key: value for key, value in unmeasured_environment().items() if key != "CI"}
    # nor bytecode: a .pyc cut at 64 bytes would be renamed into the cache and break every later `python -m kartalint`
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    proc = subprocess.run(
        _command(), cwd=project, env=env, capture_output=True, text=True, preexec_fn=limit_file_size, check=False
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stderr.count("not updated: could not be written") == 3, proc.stderr
    assert _snapshot(folder) == old  # no temporary file left, every fixture as it was


@pytest.mark.slow
def test_ten_concurrent_updates_all_finish(project):
    folder = _folder(project, 12)
    procs = [
        subprocess.Popen(_command(), cwd=project, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(10)
    ]
    results = [(p.wait(timeout=300), p.stderr.read()) for p in procs]
    for code, err in results:
        assert code in (0, 1), err
        assert "Traceback" not in err
    for path in folder.iterdir():
        assert not path.name.endswith(TEMP_SUFFIX)
        assert yaml.safe_load(path.read_text())["expect"] == FRESH
    assert main(["test", "--definitions", "defs"]) == 0


# -- shapes the rewrite once got wrong (issue 34, item 5) --------------------------------------------


def _case(project, name: str, text: str):
    path = project / "fixtures" / "example-com-trainer-v1" / f"{name}.yaml"
    path.write_bytes(text.encode("utf-8"))
    return path


def test_a_flow_expect_continued_at_column_0_is_replaced_whole(project, capsys):
    path = _case(project, "flow0", doc("flow0", "expect: {statuses: [Failed],\ngpus: 1}\n# after\n"))
    code, err = update(capsys)
    assert code == 0 and "updated 1" in err, err
    text = path.read_text()
    assert yaml.safe_load(text)["expect"] == FRESH and set(yaml.safe_load(text)) == {
        "apiVersion",
        "kind",
        "source",
        "name",
        "object",
        "expect",
    }
    assert text.endswith("\n# after\n") and "gpus: 1}" not in text


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85"])
def test_a_line_separator_inside_a_comment_shifts_nothing(project, capsys, separator):
    original = doc("separator").replace("source: test\n", f"source: test  # a note{separator}\n")
    path = _case(project, "separator", original)
    code, err = update(capsys)
    assert code == 0 and "updated 1" in err, err
    text = path.read_bytes().decode("utf-8")
    assert text.count("expect:") == 1 and yaml.safe_load(text)["expect"] == FRESH
    assert text.split("expect:")[0] == original.split("expect:")[0]  # every byte before expect kept


def test_a_complex_key_elsewhere_is_kept_and_a_complex_expect_key_is_refused(project, capsys):
    head = f"{HEAD}? name\n: complex\nobject: {OBJECT_FLOW}\n"
    path = _case(project, "complex", head + "expect:\n  statuses: [Failed]\n")
    code, err = update(capsys)
    assert code == 0 and "updated 1" in err and "Traceback" not in err, err
    assert path.read_text().startswith(head) and yaml.safe_load(path.read_text())["expect"] == {"statuses": ["Running"]}
    refused = doc("complex-expect", "? expect\n: statuses: [Failed]\n")
    path.write_text(refused)
    code, err = update(capsys)
    assert code == 2 and "cannot be rewritten safely: its expect key is written as a complex key" in err, err
    assert path.read_text() == refused


def test_a_rewrite_that_would_read_differently_is_refused(project, capsys, monkeypatch):
    """Whatever the rewrite gets wrong, what it wrote is parsed again and compared before the file
    is replaced: a duplicated key, a changed value outside expect, an expect that reads back
    differently are each refused (exit 2, the file untouched)."""
    import kartalint.testing.update as update_module

    original = doc("verified")
    path = _case(project, "verified", original)
    real = update_module.rewrite_expect
    for corrupt in (
        lambda text: text.replace("name: verified", "name: changed"),  # outside expect
        lambda text: text + "expect: {}\n",  # a second expect key
        lambda text: text.replace("gpus: 6", "gpus: 7"),  # not what was observed
        lambda text: text + "---\nkind: extra\n",  # one more document
    ):
        monkeypatch.setattr(update_module, "rewrite_expect", lambda t, u, c=corrupt: (c(real(t, u)[0]), 1))
        code, err = update(capsys)
        assert code == 2 and "not updated: cannot be rewritten safely" in err and "the file is unchanged" in err, err
        assert path.read_text() == original
    monkeypatch.setattr(update_module, "rewrite_expect", lambda t, u: (_ for _ in ()).throw(IndexError("x")))
    code, err = update(capsys)
    assert code == 2 and "cannot be rewritten safely (IndexError: x)" in err and path.read_text() == original
