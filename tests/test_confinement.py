"""A fixture from a pull request must not read a file of the CI machine: objectFile, podsFile,
definition, a prediction's workload and symbolic links resolve inside the project (or a folder
given with --allow-outside), in `kartalint test` and `kartalint diff`."""

from __future__ import annotations

import contextlib
import json
import os
import sys

import pytest
import yaml
from conftest import BASE_DEFINITION, git

from kartalint.cli import main

SECRET = "s3cr3t-token-4f9a"
OBJECT = {
    "apiVersion": "example.com/v1",
    "kind": "Trainer",
    "metadata": {"name": "t", "uid": "u", "annotations": {"token": SECRET}},
    "spec": {"roles": [{"name": "worker", "replicas": 2, "template": {"spec": {"containers": [{"name": "c"}]}}}]},
    "status": {"phase": "Running"},
}


@pytest.fixture
def layout(tmp_path, monkeypatch):
    """tmp/project (a git repository with catalog/ and fixtures/) and tmp/outside/secret.yaml."""
    monkeypatch.delenv("CI", raising=False)
    project = tmp_path / "project"
    (project / "catalog").mkdir(parents=True)
    (project / "catalog" / "trainer.yaml").write_text(BASE_DEFINITION)
    (project / "fixtures" / "example-com-trainer-v1").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.yaml").write_text(yaml.safe_dump(OBJECT))
    (tmp_path / "outside" / "trainer.yaml").write_text(BASE_DEFINITION)
    git(project, "init", "-q", "-b", "main")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "base")
    monkeypatch.chdir(project)
    return project


def fixture(**fields):
    doc = {"apiVersion": "kartalint/v1", "kind": "KartaFixture", "name": "case", "source": "test"}
    doc.update(fields)
    doc.setdefault("expect", {"statuses": ["Running"]})
    return doc


def write_fixture(project, name, **fields):
    path = project / "fixtures" / "example-com-trainer-v1" / name
    path.write_text(yaml.safe_dump(fixture(**fields), sort_keys=False))
    return path


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "field, value",
    [
        ("objectFile", "../../../outside/secret.yaml"),
        ("objectFile", "ABSOLUTE"),
        ("definition", "../../../outside/trainer.yaml"),
    ],
)
def test_files_outside_the_project_are_refused(layout, capsys, field, value):
    if value == "ABSOLUTE":
        value = str(layout.parent / "outside" / "secret.yaml")
    fields = {field: value}
    if field != "objectFile":
        fields["object"] = {k: v for k, v in OBJECT.items() if k != "metadata"} | {
            "metadata": {"name": "t", "uid": "u"}
        }
    write_fixture(layout, "f.yaml", **fields)
    code, out, err = run(capsys, "test", "-f", "json")
    assert code == 1, out + err
    [case] = json.loads(out)["cases"]
    assert case["outcome"] == "error"
    message = case["messages"][0]
    assert f"{field} " in message and "outside" in message and "refused" in message and "--allow-outside" in message
    assert SECRET not in out + err


def test_pods_file_outside_the_project_is_refused(layout, capsys):
    write_fixture(layout, "f.yaml", object={**OBJECT, "metadata": {"name": "t", "uid": "u"}}, podsFile="/etc/passwd")
    code, out, err = run(capsys, "test")
    assert code == 1 and "podsFile /etc/passwd resolves to /etc/passwd" in out + err
    assert "root:" not in out + err


def test_a_symbolic_link_out_of_the_project_is_refused(layout, capsys):
    target = layout.parent / "outside" / "linked.yaml"
    target.write_text(yaml.safe_dump(fixture(object=OBJECT)))
    os.symlink(target, layout / "fixtures" / "example-com-trainer-v1" / "linked.yaml")
    # and a link inside the project that points to the secret, read through objectFile
    os.symlink(layout.parent / "outside" / "secret.yaml", layout / "fixtures" / "object.yaml")
    write_fixture(layout, "via-link.yaml", objectFile="../object.yaml")
    code, out, err = run(capsys, "test", "-f", "json")
    assert code == 1
    cases = {os.path.basename(c["file"]): c for c in json.loads(out)["cases"]}
    assert "(a symbolic link) resolves to" in cases["linked.yaml"]["messages"][0]
    assert "objectFile ../object.yaml resolves to" in cases["via-link.yaml"]["messages"][0]
    assert SECRET not in out + err


def test_allow_outside_permits_a_folder_deliberately(layout, capsys):
    write_fixture(layout, "f.yaml", objectFile="../../../outside/secret.yaml")
    code, out, err = run(capsys, "test", "--allow-outside", str(layout.parent / "outside"))
    assert code == 0, out + err
    code, _, err = run(capsys, "test", "--allow-outside", str(layout.parent / "nowhere"))
    assert code == 2 and "--allow-outside" in err and "not a folder" in err


def test_a_fixture_folder_given_on_the_command_line_may_hold_its_files(layout, capsys, tmp_path):
    elsewhere = tmp_path / "shared-fixtures" / "example-com-trainer-v1"
    elsewhere.mkdir(parents=True)
    (elsewhere / "object.yaml").write_text(yaml.safe_dump(OBJECT))
    (elsewhere / "f.yaml").write_text(yaml.safe_dump(fixture(objectFile="object.yaml")))
    code, out, err = run(capsys, "test", str(elsewhere))
    assert code == 0, out + err


def test_diff_refuses_the_same_files(layout, capsys):
    write_fixture(layout, "f.yaml", objectFile="../../../outside/secret.yaml")
    code, out, err = run(capsys, "diff", "--base", "main", "-f", "json")
    assert code == 2, out + err
    assert "objectFile ../../../outside/secret.yaml resolves to" in err and SECRET not in out + err
    code, out, err = run(
        capsys, "diff", "--base", "main", "-f", "json", "--allow-outside", str(layout.parent / "outside")
    )
    assert code == 0, out + err


def test_catalog_runs_the_fixtures_through_the_same_confinement(layout, capsys):
    """The COVERAGE column must not tell anything about a file outside the project (issue 34 item 2)."""
    write_fixture(layout, "f.yaml", objectFile="../../../outside/secret.yaml")
    code, out, err = run(capsys, "catalog", "-f", "json")
    [row] = json.loads(out)["definitions"]
    assert code == 0, err
    assert row["name"] == "example-com-trainer-v1" and row["fixtures"] == 0 and row["coverage"] is None, row
    code, out, _ = run(capsys, "catalog", "-f", "json", "--allow-outside", str(layout.parent / "outside"))
    [row] = json.loads(out)["definitions"]
    assert row["fixtures"] == 1 and row["coverage"] == 50, row


def test_a_folder_walk_never_follows_a_file_link_out_of_the_folder(layout, capsys, tmp_path):
    """A fixture (or a definition) that is a symbolic link to a file outside the folder walked is
    never opened by lint, test or catalog: lint warns and skips it, test and catalog refuse it as a
    case; given by name, lint reads it."""
    import builtins

    outside_fixture = tmp_path / "outside" / "fixture.yaml"
    fixture = {"apiVersion": "kartalint/v1", "kind": "KartaFixture", "name": SECRET, "object": OBJECT}
    outside_fixture.write_text(yaml.safe_dump({**fixture, "expect": {"statuses": ["Running"]}}))
    folder = tmp_path / "project" / "fixtures" / "example-com-trainer-v1"
    (folder / "linked.yaml").symlink_to(outside_fixture)
    (tmp_path / "project" / "catalog" / "linked.yaml").symlink_to(tmp_path / "outside" / "trainer.yaml")
    opened: list[str] = []
    real_open = builtins.open

    def watching(file, *args, **kwargs):
        opened.append(os.path.realpath(file) if isinstance(file, (str, os.PathLike)) else str(file))
        return real_open(file, *args, **kwargs)

    outside = os.path.realpath(tmp_path / "outside")
    for argv in (["lint", "fixtures", "catalog"], ["test", "fixtures"], ["catalog", "--fixtures", "fixtures"]):
        opened.clear()
        builtins.open = watching
        try:
            main(argv)
        finally:
            builtins.open = real_open
        out, err = capsys.readouterr()
        assert not [p for p in opened if p.startswith(outside)], (argv, opened)
        assert SECRET not in out + err
        if argv[0] == "lint":  # test refuses it as a case (test_a_symbolic_link_out_of_the_project_is_refused)
            assert "linked.yaml: a symbolic link out of fixtures: skipped" in err, err
    assert main(["lint", "fixtures/example-com-trainer-v1/linked.yaml"]) == 0  # named: read (the user's choice)


# -- issue 45: the configuration, the baseline and the outputs are confined too ---------------------

_OPENED: list[str] | None = None  # while not None, every path opened (through the audit hook)


def _audit(event: str, args: tuple) -> None:
    if _OPENED is not None and event in ("open", "os.listdir", "os.scandir") and args:
        path = args[0]
        if isinstance(path, (str, bytes, os.PathLike)):
            with contextlib.suppress(TypeError, ValueError):
                _OPENED.append(os.path.realpath(os.fsdecode(path)))


@pytest.fixture
def opened():
    """The real paths the code opens or lists while the test runs (Python's audit hook: builtins'
    open, os.open, os.listdir, os.scandir)."""
    global _OPENED
    if not getattr(sys, "_kartalint_confinement_hook", False):
        sys.addaudithook(_audit)
        sys._kartalint_confinement_hook = True  # type: ignore[attr-defined]
    _OPENED = []
    try:
        yield _OPENED
    finally:
        _OPENED = None


CONFIG_WITH_SECRET = f"rules:\n  {SECRET}: off\ndefinitions: [{SECRET}]\n"


@pytest.mark.parametrize("name", [".kartalint.yaml", ".kartalint.yml", "pyproject.toml"])
def test_a_configuration_file_that_links_out_of_the_project_is_refused_never_read(layout, capsys, opened, name):
    """Issue 45 item 1: the configuration file itself was read through a link out of the project
    (its keys and rule ids printed); `extends:` was confined, the file holding it was not."""
    outside = layout.parent / "outside"
    text = CONFIG_WITH_SECRET if name != "pyproject.toml" else f'[tool.kartalint]\ndefinitions = ["{SECRET}"]\n'
    (outside / "config").write_text(text)
    os.symlink(outside / "config", layout / name)
    opened.clear()  # (what the test wrote)
    for argv in (["lint", "catalog"], ["test"], ["catalog", "-f", "json"], ["lint", "-c", name, "catalog"]):
        code, out, err = run(capsys, *argv)
        assert code == 2, (argv, out, err)
        assert f"{name}: the configuration resolves to {os.path.realpath(outside / 'config')}" in err, err
        assert "outside" in err and "refused, never read" in err and SECRET not in out + err
    outside_real = os.path.realpath(outside)
    assert not [p for p in opened if p.startswith(outside_real)], opened


def test_a_configuration_linked_inside_the_repository_is_read(layout, capsys):
    (layout / "config").mkdir()
    (layout / "config" / "kartalint.yaml").write_text("definitions: [catalog]\nrules:\n  jq-not-portable: off\n")
    os.symlink("config/kartalint.yaml", layout / ".kartalint.yaml")
    code, out, err = run(capsys, "lint")
    assert code == 0 and "1 Karta definition(s)" in err, out + err


def test_a_baseline_that_links_out_of_the_project_or_to_a_device_is_refused(layout, capsys, opened):
    """Issue 45 item 5: `--baseline` through a committed link to /dev/zero was read without limit
    (4.3 GB in 8 s); a link to a file outside was read too."""
    os.symlink("/dev/null", layout / "null.json")  # (/dev/zero, read without limit: test_hostile_inputs)
    os.symlink(layout.parent / "outside" / "secret.yaml", layout / "secret.json")
    os.mkfifo(layout / "fifo.json")
    opened.clear()
    for name, says in (
        ("null.json", "resolves to /dev/null (through a symbolic link), outside"),
        ("secret.json", "(through a symbolic link), outside"),
        ("fifo.json", "is not a regular file (a device, FIFO or socket is never read)"),
    ):
        code, out, err = run(capsys, "lint", "--baseline", name, "catalog")
        assert code == 2 and f"kartalint: error: baseline {name}: the baseline " in err and says in err, err
        assert SECRET not in out + err
    assert "/dev/null" not in opened and not [
        p for p in opened if p.startswith(os.path.realpath(layout.parent / "outside"))
    ]


OUTPUTS = [
    ("-o", ["lint", "catalog"]),
    ("--write-baseline", ["lint", "catalog"]),
    ("--junit-xml", ["test"]),
    ("--sarif", ["test"]),
    ("-o", ["test"]),
    ("-o", ["new", "--crd", "CRD"]),
    ("-o", ["diff", "--base", "main"]),
    ("--output", ["describe", "obj.yaml", "--definition", "catalog/trainer.yaml"]),
]


@pytest.mark.parametrize("option, argv", OUTPUTS, ids=[f"{a[0]} {o}" for o, a in OUTPUTS])
def test_no_output_follows_a_link_out_of_the_project(layout, capsys, option, argv):
    """Issue 45 item 4: `-o`, `--junit-xml`, `--sarif` and `--write-baseline` created folders and
    files outside the project, or overwrote one, through a committed link at the output path."""
    from conftest import ROOT

    outside = layout.parent / "outside"
    victim = outside / "victim.txt"
    victim.write_text("keep me\n")
    (outside / "dir").mkdir()
    os.symlink(victim, layout / "report.txt")  # the file itself
    os.symlink(outside / "dir", layout / "out")  # a folder on its way
    os.symlink("/dev/null", layout / "null.txt")  # onto a device
    argv = [os.path.join(ROOT, "tests", "data", "crds", "example.com_trainers.yaml") if a == "CRD" else a for a in argv]
    write_fixture(layout, "f.yaml", object=OBJECT)
    (layout / "obj.yaml").write_text(yaml.safe_dump(OBJECT))
    for target, link in (("report.txt", "report.txt"), ("out/new/deep/report.txt", "out"), ("null.txt", "null.txt")):
        code, out, err = run(capsys, *argv, option, target)
        assert code == 2, (argv, option, target, out, err)
        assert "kartalint: error: cannot write " in err and f": {layout / link} is a symbolic link to" in err, err
        assert "outside the project" in err
    assert victim.read_text() == "keep me\n" and os.listdir(outside / "dir") == []


def test_a_link_inside_the_project_and_a_device_named_directly_are_written(layout, capsys):
    (layout / "reports").mkdir()
    os.symlink("reports", layout / "out")
    code, _, err = run(capsys, "lint", "catalog", "-f", "json", "-o", "out/new/lint.json")
    assert code == 0 and (layout / "reports" / "new" / "lint.json").is_file(), err
    code, _, err = run(capsys, "lint", "catalog", "-o", os.devnull)
    assert code == 0, err


def test_explore_save_makes_no_folder_through_a_link_out(layout, capsys):
    from conftest import ROOT

    os.symlink(layout.parent / "outside", layout / "saved")
    crd = os.path.join(ROOT, "tests", "data", "crds", "example.com_trainers.yaml")
    argv = ["explore", "catalog/trainer.yaml", "--crd", str(crd), "--examples", "5", "--save", "saved/new"]
    code, out, err = run(capsys, *argv)
    assert code == 2 and "saved is a symbolic link to" in err and "outside the project" in err, out + err
    assert sorted(os.listdir(layout.parent / "outside")) == ["secret.yaml", "trainer.yaml"]


@pytest.mark.parametrize(
    "content, says",
    [
        ("LINK", "the written-values file resolves to"),
        ("kind: Other\n", "written-values.yaml: not a KartaWrittenValues document"),
        ("a: " + "[" * 5000 + "]" * 5000 + "\n", "written-values.yaml:1:"),
        ("a: 1\nb: !!python/object:os.system ls\n", "written-values.yaml:2:4:"),
        ("a: &a [*a, *a]\n", "written-values.yaml:1:4: document contains a recursive alias"),
    ],
    ids=["link", "kind", "deep", "tag", "alias"],
)
def test_catalog_reads_written_values_as_every_project_file(layout, capsys, opened, content, says):
    """`kartalint catalog` read fixtures/<definition>/written-values.yaml with open() and
    yaml.safe_load: through a link out of the project, and a malformed one was a traceback (a
    WrittenValuesError or RecursionError escaping)."""
    path = layout / "fixtures" / "example-com-trainer-v1" / "written-values.yaml"
    if content == "LINK":
        os.symlink(layout.parent / "outside" / "secret.yaml", path)
    else:
        path.write_text(content)
    opened.clear()
    code, out, err = run(capsys, "catalog")
    assert code == 2 and "Traceback" not in err and SECRET not in out + err, (out, err)
    [line] = [row for row in err.splitlines() if row.startswith("kartalint: error:")]
    assert says in line, line
    assert not [p for p in opened if p.startswith(os.path.realpath(layout.parent / "outside"))]
