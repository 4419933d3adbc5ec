"""Reports (issue 34, item 20): one guarded writer for every format and command. A write error
(a full disk, EIO, a file-size limit, a closed standard output) is one line naming the file and
exit 2, never a traceback or exit 1, and never a partial file."""

from __future__ import annotations

import contextlib
import json
import os
import resource
import subprocess
import sys

import pytest
import yaml
from conftest import BASE_DEFINITION, trainer_object, unmeasured_environment

from kartalint.cli import main

OBJECT = trainer_object("w")
FIXTURE = {
    "apiVersion": "kartalint/v1",
    "kind": "KartaFixture",
    "name": "case",
    "source": "test",
    "definition": "def.yaml",
    "object": OBJECT,
    "expect": {"statuses": ["Running"]},
}
# every command and format that writes a report: (arguments before the output option, the option)
REPORTS = [
    (["lint", "-f", "text", "bad.yaml"], "-o"),
    (["lint", "-f", "json", "bad.yaml"], "-o"),
    (["lint", "-f", "sarif", "bad.yaml"], "-o"),
    (["lint", "-f", "github", "bad.yaml"], "-o"),
    (["test", "-f", "text", "f.yaml"], "-o"),
    (["test", "-f", "json", "f.yaml"], "-o"),
    (["test", "-f", "junit", "f.yaml"], "-o"),
    (["test", "-f", "sarif", "f.yaml"], "-o"),
    (["test", "f.yaml"], "--junit-xml"),
    (["test", "f.yaml"], "--sarif"),
    (["describe", "obj.yaml", "--definition", "def.yaml"], "-o"),
    (["describe", "obj.yaml", "--definition", "def.yaml", "-f", "json"], "-o"),
    (["new", "fixture", "obj.yaml", "--definition", "def.yaml"], "-o"),
]
IDS = [" ".join([*a, o]) for a, o in REPORTS]


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    (tmp_path / "def.yaml").write_text(BASE_DEFINITION)
    (tmp_path / "obj.yaml").write_text(yaml.safe_dump(OBJECT))
    (tmp_path / "f.yaml").write_text(yaml.safe_dump(FIXTURE))
    (tmp_path / "bad.yaml").write_text(BASE_DEFINITION.replace("instanceIdPath:", "instanceIdPth:"))  # findings
    return tmp_path


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize(("argv", "option"), REPORTS, ids=IDS)
def test_a_full_disk_is_one_line_and_exit_2(work, capsys, argv, option):
    code = main([*argv, option, "/dev/full"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "kartalint: error: cannot write /dev/full: No space left on device\n" in err
    assert "Traceback" not in err


def run_limited(argv: list[str], cwd, limit: int, **kwargs) -> subprocess.CompletedProcess:
    """kartalint under a file-size limit of ``limit`` bytes (RLIMIT_FSIZE)."""

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run(
        [sys.executable, "-m", "kartalint", *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        preexec_fn=limited,
        env=unmeasured_environment(PYTHONDONTWRITEBYTECODE="1", CI=""),
        timeout=120,
        **kwargs,
    )


@pytest.mark.parametrize(
    ("argv", "option"),
    [REPORTS[1], REPORTS[2], REPORTS[6], REPORTS[8], REPORTS[9], REPORTS[11]],
    ids=[IDS[1], IDS[2], IDS[6], IDS[8], IDS[9], IDS[11]],
)
def test_a_file_size_limit_leaves_the_previous_report_whole(work, argv, option):
    (work / "reports").mkdir()
    target = work / "reports" / "report.out"
    target.write_text("the previous report\n")
    done = run_limited([*argv, option, str(target)], work, limit=200)
    assert done.returncode == 2, done.stderr
    assert f"cannot write {target}: File too large" in done.stderr and "Traceback" not in done.stderr
    assert done.stderr.count("kartalint: error:") == 1
    assert target.read_text() == "the previous report\n"  # not truncated, not half written
    assert os.listdir(work / "reports") == ["report.out"]  # no temporary file left behind


def test_a_new_report_is_not_left_half_written(work):
    done = run_limited(["test", "-f", "junit", "f.yaml", "-o", "new.xml"], work, limit=200)
    assert done.returncode == 2 and "cannot write new.xml: File too large" in done.stderr
    assert not (work / "new.xml").exists()
    assert not [name for name in os.listdir(work) if name.startswith(".new.xml")]


def test_a_report_keeps_the_mode_of_the_file_it_replaces_and_a_link_stays_a_link(work, capsys):
    (work / "old.json").write_text("{}")
    os.chmod(work / "old.json", 0o640)
    os.symlink("old.json", work / "link.json")
    assert main(["lint", "-f", "json", "def.yaml", "-o", "link.json"]) == 0
    assert os.path.islink(work / "link.json") and '"schemaVersion"' in (work / "old.json").read_text()
    assert os.stat(work / "old.json").st_mode & 0o777 == 0o640
    assert main(["lint", "-f", "json", "def.yaml", "-o", "fresh.json"]) == 0
    umask = os.umask(0)
    os.umask(umask)
    assert os.stat(work / "fresh.json").st_mode & 0o777 == 0o666 & ~umask


@pytest.mark.parametrize("argv", [["lint", "bad.yaml"], ["test", "f.yaml"], ["rules"], ["catalog", "-f", "json"]])
def test_standard_output_that_fails_is_one_line_and_exit_2(work, argv):
    if not os.path.exists("/dev/full"):
        pytest.skip("needs /dev/full")
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "kartalint", *argv], cwd=work, stdout=full, stderr=subprocess.PIPE, text=True
        )
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        "kartalint: error: cannot write standard output: No space left on device"
    )
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr


def test_a_closed_standard_output_is_one_line_and_exit_2(work):
    done = subprocess.run(
        [sys.executable, "-m", "kartalint", "lint", "bad.yaml"],
        cwd=work,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: os.close(1),
    )
    assert done.returncode == 2, done.stderr
    assert "kartalint: error: cannot write standard output" in done.stderr and "Traceback" not in done.stderr


def test_a_reader_that_goes_away_ends_the_run_silently_and_not_green(work):
    """`kartalint lint | head`: the pipe's reader is gone before the report is written. The run ends
    without a word, with the status of a process SIGPIPE ends (141, as `cat` under `set -o
    pipefail`): not "cannot write standard output" and exit 2, and never exit 0 over the findings."""
    read, write = os.pipe()
    os.close(read)  # the reader is gone before kartalint writes a line
    try:
        done = subprocess.run(
            [sys.executable, "-m", "kartalint", "lint", "bad.yaml"],
            cwd=work,
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
        )
    finally:
        os.close(write)
    assert done.returncode == 141, done.stderr
    assert "cannot write" not in done.stderr and "Traceback" not in done.stderr and "Exception" not in done.stderr


# Commands whose report on standard output is one write larger than a pipe holds (64 KB): a
# whole-document format (json, sarif) and document commands, besides the text format's lines.
BIG_REPORTS = [
    ["lint", "-f", "json", "many"],
    ["lint", "-f", "sarif", "many"],
    ["lint", "-f", "text", "many"],
    ["test", "-f", "json", "fixtures"],
    ["rules", "--format", "markdown"],
    ["catalog", "-f", "json"],
]


@pytest.mark.parametrize("unbuffered", ["1", ""], ids=["PYTHONUNBUFFERED=1", "buffered"])
@pytest.mark.parametrize("argv", BIG_REPORTS, ids=[" ".join(a) for a in BIG_REPORTS])
def test_a_reader_that_goes_away_during_a_large_write_ends_the_run_silently(work, argv, unbuffered):
    """`kartalint lint -f json DIR | head -c1`: the reader takes a byte of the report and goes away
    while kartalint is still writing it (the report is larger than the pipe holds). Every format and
    command ends as the text format does: 141, no summary, no message. With PYTHONUNBUFFERED=1 (CI
    images, Dockerfiles) standard output has no buffer under its text layer, whose single write then
    returns short when the reader goes, and the text layer dropped the rest without an error: json and
    sarif reports ended 1 (or 0) with the summary on standard error."""
    (work / "many").mkdir()
    for number in range(300):  # ~160 KB of JSON findings
        text = BASE_DEFINITION.replace("example-com-trainer-v1", f"t{number}").replace("instanceIdPath:", "x:")
        (work / "many" / f"d{number}.yaml").write_text(text)
    (work / "fixtures").mkdir()
    for number in range(300):  # failing cases, each with its differences
        wrong = dict(FIXTURE, name=f"case {number}", definition="../def.yaml", expect={"statuses": ["Failed"]})
        (work / "fixtures" / f"f{number}.yaml").write_text(yaml.safe_dump(wrong))
    read, write = os.pipe()
    child = subprocess.Popen(
        [sys.executable, "-m", "kartalint", *argv],
        cwd=work,
        stdout=write,
        stderr=subprocess.PIPE,
        text=True,
        env=unmeasured_environment(PYTHONUNBUFFERED=unbuffered),
    )
    os.close(write)
    try:
        first = os.read(read, 1)  # the report has begun: its write is under way, the pipe full behind it
    finally:
        os.close(read)  # the reader goes away
    err = child.communicate(timeout=120)[1]
    assert first, err
    assert child.returncode == 141, err
    assert err == "", err  # no summary, no "cannot write", no traceback


def test_an_output_that_is_not_a_file_is_written_in_place(work, capsys):
    assert main(["lint", "def.yaml", "-o", os.devnull]) == 0
    assert os.path.exists(os.devnull) and not os.path.isfile(os.devnull)


# -- item 19: values from inputs cannot write workflow commands or terminal escapes -----------------

HOSTILE = "w\r\n::error file=README.md,line=1::forged\x1b[2J\x9b31m\u202e ##[warning]old-style\n  ::add-mask::x"


def hostile_lines(text: str, github: bool = False) -> list[str]:
    """Lines of ``text`` that a runner or a terminal would act on."""
    bad = []
    for line in text.split("\n"):
        if github and line.startswith(("::error file=", "::warning file=", "::notice file=")):
            if line.split("::")[1].split("file=", 1)[1].split(",")[0] == "README.md":  # a forged command
                bad.append(line)
            continue
        if line.lstrip().startswith("::") or "##[" in line or any(c in line for c in "\r\x1b\x9b\u202e"):
            bad.append(line)
    return bad


@pytest.fixture
def hostile(work):
    obj = {
        "apiVersion": "example.com/v1",
        "kind": "Trainer",
        "metadata": {"name": HOSTILE, "uid": "u"},
        "spec": {"roles": [{"name": HOSTILE, "replicas": 1, "template": {"spec": {"containers": [{"name": "c"}]}}}]},
        "status": {"phase": HOSTILE},
    }
    (work / "hostile.yaml").write_text(yaml.safe_dump(obj))
    fixture = dict(FIXTURE, name=HOSTILE, object=obj, expect={"statuses": [HOSTILE], "replicas": {"worker": 3}})
    (work / "hf.yaml").write_text(yaml.safe_dump(fixture))
    (work / f"bad{HOSTILE[:6]}.yaml").write_text(BASE_DEFINITION.replace("instanceIdPath:", "instanceIdPth:"))
    return work


@pytest.mark.parametrize(
    "argv",
    [
        ["test", "hf.yaml"],
        ["test", "hf.yaml", "-v"],
        ["test", "hf.yaml", "-f", "junit"],
        ["test", "hf.yaml", "-f", "json"],
        ["test", "hf.yaml", "-f", "sarif"],
        ["test", "hf.yaml", "-f", "github"],
        ["describe", "hostile.yaml", "--definition", "def.yaml"],
        ["describe", "hostile.yaml", "--definition", "def.yaml", "-f", "yaml"],
        ["new", "fixture", "hostile.yaml", "--definition", "def.yaml"],
        ["lint", "."],
        ["lint", ".", "-f", "github"],
        ["lint", ".", "--color", "always"],
        ["lint", "--format", HOSTILE],
    ],
)
def test_values_from_inputs_never_write_a_workflow_command_or_an_escape(hostile, capsys, argv):
    with contextlib.suppress(SystemExit):  # (a usage error)
        main(argv)
    out, err = capsys.readouterr()
    github = "github" in argv
    if "--color" in argv:
        assert "\x1b[31merror\x1b[0m" in out  # kartalint's own colours stay
        for colour in ("\x1b[31m", "\x1b[33m", "\x1b[36m", "\x1b[2m", "\x1b[0m"):
            out = out.replace(colour, "")
    assert not hostile_lines(out, github), hostile_lines(out, github)
    assert not hostile_lines(err), hostile_lines(err)
    if argv[:2] == ["test", "hf.yaml"] and len(argv) == 2:
        assert "\\r\\n\\x3a" in out or "\\r\\n::error" in out  # the value is there, escaped on its line


@pytest.mark.parametrize(
    "argv",
    [
        ["test", "hf.yaml", "-f", "json"],
        ["test", "hf.yaml", "-f", "sarif"],
        ["lint", ".", "-f", "json"],
        ["lint", ".", "-f", "sarif"],
    ],
)
def test_a_json_report_the_guard_escaped_still_parses_to_the_same_values(hostile, capsys, argv):
    """The guard's escapes inside a line are JSON's: `##[` and a C1 control in a value (SARIF keeps
    non-ASCII characters as they are) were written `#\\x23[` and `\\x9b`, which no JSON reader
    accepts (found in issue 45's review of the escaping in every output)."""
    main(argv)
    out, _ = capsys.readouterr()
    assert not hostile_lines(out), hostile_lines(out)
    decoded = json.dumps(json.loads(out), ensure_ascii=False)
    if argv[0] == "test":  # (the value read back as it was: `#\u0023[` is `##[` to a JSON reader)
        assert "##[warning]old-style" in decoded, decoded


@pytest.mark.parametrize("name", ["::x", "  ::warning::forged", "a##[error]b", "ok\n::add-mask::x"])
def test_a_fixture_new_fixture_writes_passes_whatever_its_names_start_with(work, capsys, name):
    """Found by tests/test_fuzz.py::test_mutants_of_hostile_but_valid_definitions: a component named
    ``::x`` was written as a key ``::x:`` at the start of its line, which the report writer breaks
    (``\\x3a:x:``), so the fixture ``new fixture`` wrote failed against the definition that wrote
    it; so did a value holding ``##[`` (``#\\u0023[``) or a line of a value starting with ``::``. Such
    a string is double-quoted now: no line starts with ``::``, and YAML reads the writer's
    ``#\\u0023[`` back as ``##[``."""
    definition = yaml.safe_load(BASE_DEFINITION)
    definition["spec"]["structureDefinition"]["childComponents"][0]["name"] = name
    definition["spec"]["optimizationInstructions"]["gangScheduling"]["podGroup"]["subGroups"][0]["componentName"] = name
    (work / "named.yaml").write_text(yaml.safe_dump(definition))
    obj = trainer_object()
    obj["status"]["phase"] = name
    (work / "named-obj.yaml").write_text(yaml.safe_dump(obj))
    code = main(["new", "fixture", "named-obj.yaml", "--definition", "named.yaml", "-o", "named-fixture.yaml"])
    assert code == 0, capsys.readouterr()
    text = (work / "named-fixture.yaml").read_text()
    assert not [line for line in text.splitlines() if line.lstrip().startswith("::")], text
    written = yaml.safe_load(text)
    assert name in written["expect"]["components"] and written["object"]["status"]["phase"] == name
    capsys.readouterr()
    assert main(["test", "named-fixture.yaml", "--definition", "named.yaml"]) == 0, capsys.readouterr().out


def test_a_printable_line_or_value_has_nothing_to_escape() -> None:
    """``guard_line`` and ``visible`` skip their pattern when the text is printable: sound only if
    every character a pattern escapes is not printable (Python's ``str.isprintable``), and checked
    here for every code point, so a pattern that grows a printable character fails."""
    import re
    import sys

    from kartalint.report import escape

    every = "".join(map(chr, range(sys.maxunicode + 1)))
    for pattern in (escape._IN_VALUE, escape._IN_LINE, escape._IN_COLOURED_LINE):
        escaped = re.findall(pattern, every)
        assert escaped and not [c for c in escaped if c.isprintable()], pattern
    assert escape.visible("a\u202eb") == "a\\u202eb" and escape.visible("ok: é") == "ok: é"
    assert escape.guard_line("x\x1b[31m") == "x\\u001b[31m" and escape.guard_line("tab\there") == "tab\there"
