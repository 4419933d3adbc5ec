"""One regression test per root cause of the attack run (issue 13): hostile YAML in every reader,
hostile definitions, objects and pods in evaluation, odd arguments and configuration, FIFOs and
unreadable folders, the Python API. Each asserts the clear error (file and place) and the exit
code, never a traceback, never a hang, never a silent pass."""

from __future__ import annotations

import copy
import json
import math
import os
import shutil
import subprocess
import sys

import pytest
import yaml
from conftest import BASE_DEFINITION, ROOT, unmeasured_environment
from conftest import git as run_git

import kartalint
from kartalint.cli import main
from kartalint.errors import ArgumentError, KartalintError

DEFINITION = yaml.safe_load(BASE_DEFINITION)
OBJECT = {
    "apiVersion": "example.com/v1",
    "kind": "Trainer",
    "metadata": {"name": "t", "uid": "u"},
    "spec": {
        "roles": [
            {
                "name": "worker",
                "replicas": 2,
                "template": {"spec": {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": 1}}}]}},
            }
        ]
    },
    "status": {"phase": "Running"},
}
FIXTURE = {
    "apiVersion": "kartalint/v1",
    "kind": "KartaFixture",
    "name": "case",
    "source": "test",
    "object": OBJECT,
    "expect": {"statuses": ["Running"]},
}

# (value as written in YAML, what the error says)
BAD_VALUES = [
    ("!!int abc", "'abc' is not an integer"),
    ("!!float xyz", "'xyz' is not a number"),
    ("!!bool maybe", "'maybe' is not a boolean"),
    ("!!timestamp x", "'x' is not a timestamp"),
    ("!!timestamp 2020-13-45", "'2020-13-45' is not a timestamp"),
    ("1" * 4400, "(4400 characters) is not an integer"),
    ("0x" + "f" * 4000, "is too large for JSON"),
    ("!!binary aGVsbG8=", "binary values are not allowed"),
]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def plant(text: str, value: str) -> str:
    """``text`` (a YAML document with a top-level ``metadata:``) with ``value`` in a label."""
    assert "\nmetadata:\n" in "\n" + text
    return ("\n" + text).replace("\nmetadata:\n", f"\nmetadata:\n  labels: {{x: {value}}}\n", 1)[1:]


def position_of(text: str, value: str) -> str:
    for number, line in enumerate(text.splitlines(), 1):
        if value in line:
            return f"{number}:{line.index(value) + 1}"
    raise AssertionError(value)


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CI", raising=False)
    (tmp_path / "def.yaml").write_text(BASE_DEFINITION)
    (tmp_path / "obj.yaml").write_text(yaml.safe_dump(OBJECT, sort_keys=False))
    return tmp_path


def one_error(err: str, where: str, says: str) -> None:
    lines = [line for line in err.splitlines() if line.startswith("kartalint: error:")]
    assert len(lines) == 1, err
    assert where in lines[0] and says in lines[0], err
    assert "Traceback" not in err


# -- YAML values JSON cannot hold, in every reader ------------------------------------------------------


@pytest.mark.parametrize("value, says", BAD_VALUES, ids=[v[:16] for v, _ in BAD_VALUES])
def test_bad_yaml_values_in_every_reader(work, capsys, monkeypatch, value, says):
    bad_def = plant(BASE_DEFINITION, value)
    bad_obj = plant(yaml.safe_dump(OBJECT, sort_keys=False), value)
    (work / "bad-def.yaml").write_text(bad_def)
    (work / "bad-obj.yaml").write_text(bad_obj)
    at_def, at_obj = (
        f"bad-def.yaml:{position_of(bad_def, value[:10])}",
        f"bad-obj.yaml:{position_of(bad_obj, value[:10])}",
    )

    code, out, err = run(capsys, "lint", "bad-def.yaml")  # lint: a positioned finding
    assert code == 1 and f"{at_def}: error yaml-bad-value" in out and says in out and "Traceback" not in err
    monkeypatch.setattr(sys, "stdin", __import__("io").TextIOWrapper(__import__("io").BytesIO(bad_def.encode())))
    code, out, err = run(capsys, "lint", "-")
    assert code == 1 and "yaml-bad-value" in out and says in out

    code, out, err = run(capsys, "describe", "bad-obj.yaml", "--definition", "def.yaml")
    assert code == 2
    one_error(err, at_obj, says)
    code, out, err = run(capsys, "describe", "obj.yaml", "--definition", "bad-def.yaml")
    assert code == 2
    one_error(err, at_def, says)
    (work / "pods.yaml").write_text(
        plant(yaml.safe_dump({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}), value)
    )
    code, out, err = run(capsys, "describe", "obj.yaml", "--definition", "def.yaml", "--pods", "pods.yaml")
    assert code == 2 and "pods.yaml:" in err and says in err and "Traceback" not in err
    code, out, err = run(capsys, "new", "fixture", "bad-obj.yaml", "--definition", "def.yaml")
    assert code == 2
    one_error(err, at_obj, says)

    catalog = work / "catalog-dir"
    catalog.mkdir()
    (catalog / "def.yaml").write_text(bad_def)
    os.remove(work / "bad-def.yaml")
    os.rename(work / "def.yaml", work / "elsewhere.karta")  # the project holds no readable definition
    code, out, err = run(capsys, "describe", "obj.yaml", "--catalog", str(catalog))
    assert f"catalog-dir/def.yaml:{position_of(bad_def, value[:10])}" in err and says in err and "Traceback" not in err

    fixtures = work / "fixtures"
    fixtures.mkdir()
    (fixtures / "f.yaml").write_text(
        yaml.safe_dump(FIXTURE, sort_keys=False).replace("name: case", f"name: case\nlabels: {{x: {value}}}")
    )
    code, out, err = run(capsys, "test", str(fixtures), "--definitions", str(catalog))
    assert code in (1, 2) and says in out + err and "Traceback" not in err

    (work / ".kartalint.yaml").write_text(f"rules:\n  x: {value}\n")
    code, out, err = run(capsys, "lint", "obj.yaml")
    assert code == 2
    one_error(err, ".kartalint.yaml:2:", says)


def test_a_valid_timestamp_stays_a_string_through_json_output(work, capsys):
    (work / "obj.yaml").write_text(
        plant(yaml.safe_dump(OBJECT), "!!timestamp 2024-01-02T03:04:05Z").replace(
            "name: t", "name: t\n  creationTimestamp: 2024-01-02T03:04:05Z"
        )
    )
    code, out, err = run(capsys, "describe", "obj.yaml", "--definition", "def.yaml", "-o", "json")
    assert code == 0, err
    assert json.loads(out)["workload"]["name"] == "t"


def test_bad_values_in_diff_at_either_revision(work, capsys):
    def git(*args):
        run_git(work, *args)

    (work / "def.yaml").write_text(plant(BASE_DEFINITION, "!!int abc"))
    git("init", "-q", "-b", "main")
    git("add", "-A")
    git("commit", "-qm", "bad at base")
    (work / "def.yaml").write_text(BASE_DEFINITION)
    code, _out, err = run(capsys, "diff", "--base", "main")
    assert code == 2 and "def.yaml at main: cannot be read as YAML" in err and "'abc' is not an integer" in err
    git("commit", "-qam", "fixed")
    (work / "def.yaml").write_text(plant(BASE_DEFINITION, "!!timestamp 2020-13-45"))
    code, _out, err = run(capsys, "diff", "--base", "main")
    assert code == 2 and "def.yaml at working tree: cannot be read as YAML" in err and "Traceback" not in err


# -- hostile definitions, objects and pods in evaluation ---------------------------------------------


def nested(depth, leaf=None):
    value = leaf
    for _ in range(depth):
        value = {"a": value}
    return value


def test_definition_nested_500_deep_in_describe(work, capsys):
    deep = copy.deepcopy(DEFINITION)
    deep["metadata"]["labels"] = nested(500, "x")
    (work / "deep.yaml").write_text(json.dumps(deep))
    code, _out, err = run(capsys, "describe", "obj.yaml", "--definition", "deep.yaml")
    assert code == 2 and "Traceback" not in err
    one_error(err, "deep.yaml:1:", "nested")


@pytest.fixture(scope="module")
def ev():
    with kartalint.Evaluator(timeout=5) as evaluator:
        yield evaluator


def with_path(field, expression):
    definition = copy.deepcopy(DEFINITION)
    child = definition["spec"]["structureDefinition"]["childComponents"][0]
    section, key = field.split(".")
    child[section][key] = expression
    return definition


def field_errors(view, component="worker"):
    return [(e.field, e.message) for e in view.component(component).errors]


def test_a_jq_result_nested_3000_deep_is_a_field_error(ev):
    view = ev.evaluate(with_path("scaleDefinition.replicasPath", "reduce range(3000) as $i (1; [.])"), OBJECT)
    [(field, message)] = field_errors(view)
    assert field == "scaleDefinition.replicasPath" and "nested" in message
    assert ev.evaluate(DEFINITION, OBJECT).statuses == ["Running"]  # the worker survived


@pytest.mark.parametrize("replicas", ["9" * 4400, 10**30, "1e400", "nan"])
def test_huge_or_odd_replicas(ev, replicas):
    obj = copy.deepcopy(OBJECT)
    obj["spec"]["roles"][0]["replicas"] = replicas
    view = ev.evaluate(DEFINITION, obj)
    assert json.dumps(view.to_dict())  # printable
    assert field_errors(view), view.to_dict()


@pytest.mark.parametrize("quantity", ["9" * 4400, "1e400", "12Zi", "NaN"])
def test_huge_or_odd_quantities(ev, quantity):
    obj = copy.deepcopy(OBJECT)
    obj["spec"]["roles"][0]["template"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = quantity
    view = ev.evaluate(DEFINITION, obj)
    assert json.dumps(view.to_dict())
    assert view.all_errors, view.to_dict()


@pytest.mark.parametrize("kind", [["Failed"], {"Failed": 1}, 5, None])
def test_pod_conditions_of_the_wrong_type(ev, kind):
    obj = copy.deepcopy(OBJECT)
    obj["status"]["conditions"] = [{"type": kind, "status": "True"}]
    view = ev.evaluate(DEFINITION, obj)
    assert "Failed" not in view.statuses
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "labels": {"example.com/role": "worker"}},
        "status": {"conditions": [{"type": kind, "status": "True"}], "phase": "Running"},
    }
    assert json.dumps(ev.evaluate(DEFINITION, OBJECT, [pod]).to_dict())


@pytest.mark.parametrize("name", [{"a": 1}, ["worker"], 5])
def test_a_component_name_that_is_not_a_string(work, capsys, ev, name):
    definition = copy.deepcopy(DEFINITION)
    definition["spec"]["structureDefinition"]["childComponents"][0]["name"] = name
    view = ev.evaluate(definition, OBJECT)
    assert view.errors and all("invalid karta" in str(e).lower() for e in view.errors), view.errors
    (work / "odd.yaml").write_text(yaml.safe_dump(definition))
    code, _out, err = run(capsys, "describe", "obj.yaml", "--definition", "odd.yaml")
    assert code == 1 and "Traceback" not in err
    fixture = dict(FIXTURE, definition="odd.yaml")
    (work / "f.yaml").write_text(yaml.safe_dump(fixture))
    code, _out, err = run(capsys, "test", "f.yaml")
    assert code == 1 and "Traceback" not in err


def test_env_and_dollar_env_are_empty_and_do_not_crash(ev, monkeypatch):
    monkeypatch.setenv("KARTALINT_PLANTED_SECRET", "pl4nted-s3cret")
    for expression in (
        "env | length",
        "$ENV | length",
        "[env, $ENV] | map(length) | add",
        "env.KARTALINT_PLANTED_SECRET // 2",
        "$ENV.HOME // 2",
        "$__loc__ | 2",
    ):
        view = ev.evaluate(with_path("scaleDefinition.replicasPath", expression), OBJECT)
        assert field_errors(view) == [], (expression, view.to_dict())
        expected = 0 if "length" in expression else 2
        assert view.component("worker").instances[0].scale.replicas == expected, expression
        assert "pl4nted" not in json.dumps(view.to_dict())


@pytest.mark.parametrize("directive", ['import "secret" as $s; 1', 'include "secret"; 1', 'import "secret" as s; 1'])
def test_jq_modules_are_refused_before_running(ev, tmp_path, directive):
    (tmp_path / "secret.json").write_text('"pl4nted-s3cret"')
    (tmp_path / "secret.jq").write_text('def s: "pl4nted-s3cret";')
    expression = directive.replace('"secret"', f'"secret" {{search: "{tmp_path}"}}')
    view = ev.evaluate(with_path("scaleDefinition.replicasPath", expression), OBJECT)
    assert "pl4nted" not in json.dumps(view.to_dict())
    assert view.errors or field_errors(view)


# -- arguments and configuration ---------------------------------------------------------------------


@pytest.mark.parametrize("value", ["nan", "inf", "1e400", "0", "-1", "abc"])
def test_bad_timeouts_are_usage_errors(work, capsys, value):
    for command in (["describe", "obj.yaml", "--definition", "def.yaml"], ["test", "."], ["diff", "--base", "HEAD"]):
        with pytest.raises(SystemExit) if value == "abc" else _no_exit():
            code, _out, err = run(capsys, *command, "--timeout", value)
            assert code == 2 and "--timeout must be a number of seconds above 0" in err, (command, err)


class _no_exit:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@pytest.mark.parametrize(
    "config, says",
    [
        ("rules:\n  1: error\n", "unknown rule '1'"),
        ("rules:\n  jq-compile-error: [1]\n", "jq-compile-error"),
        ("max-file-size: abc\n", "max-file-size"),
        ("max-file-size: -5\n", "max-file-size"),
        ("- a\n- b\n", ".kartalint.yaml"),
        ("exclude: 5\n", "exclude"),
    ],
)
def test_bad_configuration_is_one_error(work, capsys, config, says):
    (work / ".kartalint.yaml").write_text(config)
    code, _out, err = run(capsys, "lint", "def.yaml")
    assert code == 2
    one_error(err, ".kartalint.yaml", says)


def test_pyproject_with_a_kartalint_value_of_the_wrong_type(work, capsys):
    (work / "pyproject.toml").write_text("[tool]\nkartalint = 5\n")
    code, _out, err = run(capsys, "lint", "-c", "pyproject.toml", "def.yaml")
    assert code == 2 and "Traceback" not in err and "pyproject.toml" in err
    (work / "pyproject.toml").write_text("tool = 5\n")
    code, _out, err = run(capsys, "lint", "def.yaml")  # not our table: ignored
    assert code == 0, err


@pytest.mark.parametrize(
    "command",
    [
        ["lint", "def.yaml"],
        ["test", "f.yaml"],
        ["describe", "obj.yaml", "--definition", "def.yaml"],
        ["test", "f.yaml", "--junit-xml"],
        ["new", "fixture", "obj.yaml", "--definition", "def.yaml"],
    ],
)
def test_output_paths_that_cannot_be_written(work, capsys, command):
    (work / "f.yaml").write_text(yaml.safe_dump(dict(FIXTURE, definition="def.yaml")))
    (work / "folder").mkdir()
    for target in ("folder", "def.yaml/out.txt"):  # a folder; a path under a regular file
        argv = [*command, target] if command[-1].startswith("--") else [*command, "-o", target]
        code, _out, err = run(capsys, *argv)
        assert code == 2 and f"cannot write {target}" in err and "Traceback" not in err


# -- hangs and silent skips ---------------------------------------------------------------------------


def test_a_fifo_is_skipped_with_a_word_never_read(tmp_path):
    (tmp_path / "defs").mkdir()
    (tmp_path / "defs" / "def.yaml").write_text(BASE_DEFINITION)
    os.mkfifo(tmp_path / "defs" / "pipe.yaml")
    (tmp_path / "fixtures").mkdir()
    (tmp_path / "fixtures" / "f.yaml").write_text(yaml.safe_dump(dict(FIXTURE, definition="../defs/def.yaml")))
    os.mkfifo(tmp_path / "fixtures" / "pipe.yaml")
    (tmp_path / "obj.yaml").write_text(yaml.safe_dump(OBJECT))
    for argv in (
        ["lint", "defs"],
        ["test", "fixtures"],
        ["test", "fixtures", "--definitions", "defs"],
        ["describe", "obj.yaml", "--catalog", "defs"],
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "kartalint", *argv], cwd=tmp_path, capture_output=True, text=True, timeout=60
        )
        assert proc.returncode in (0, 1), (argv, proc.stderr)
        assert "pipe.yaml" in proc.stderr and "not a regular file" in proc.stderr, (argv, proc.stderr)
        assert "Traceback" not in proc.stderr


def test_an_unreadable_folder_is_reported(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "defs" / "locked").mkdir(parents=True)
    (tmp_path / "defs" / "locked" / "hidden.yaml").write_text(BASE_DEFINITION)
    (tmp_path / "defs" / "def.yaml").write_text(BASE_DEFINITION)
    real_scandir = os.scandir

    def scandir(path="."):  # as for a folder without read permission (root reads any, so simulate it)
        if os.fspath(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    _code, _out, err = run(capsys, "lint", "defs")
    assert "defs/locked: cannot read folder (Permission denied): skipped" in err
    assert "1 file(s), 1 Karta definition(s)" in err  # the readable one was still checked


def test_a_large_json_object_without_aliases_is_not_an_alias_bomb(work, capsys):
    big = copy.deepcopy(OBJECT)
    big["metadata"]["annotations"] = {f"k{i}": "v" * 30 for i in range(80_000)}  # about 3 MB
    (work / "big.json").write_text(json.dumps(big))
    assert os.path.getsize(work / "big.json") > 3_000_000
    code, _out, err = run(capsys, "describe", "big.json", "--definition", "def.yaml")
    assert code == 0, err


def test_describe_a_list_with_items_that_are_not_objects(work, capsys):
    (work / "list.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [1, "x", OBJECT]}))
    code, out, err = run(capsys, "describe", "list.yaml", "--definition", "def.yaml")
    assert code == 1
    assert "list.yaml: items[0] is not a Kubernetes object" in err and "items[1]" in err
    assert "Trainer/t" in out  # the good item is still described


# -- the Python API ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, says",
    [
        (lambda: kartalint.evaluate(DEFINITION, OBJECT, pods=5), "pods must be a list"),
        (lambda: kartalint.evaluate(DEFINITION, OBJECT, timeout=math.nan), "timeout must be a number"),
        (lambda: kartalint.evaluate("not a dict", OBJECT), "definition must be a dict"),
    ],
)
def test_api_raises_argument_error_for_bad_arguments(call, says):
    with pytest.raises(ArgumentError, match=says) as info:
        call()
    assert isinstance(info.value, KartalintError) and isinstance(info.value, (TypeError, ValueError))


def test_api_turns_bad_data_into_view_errors(ev):
    odd = copy.deepcopy(OBJECT)
    odd["metadata"]["labels"] = {1: "non-string key", "n": math.nan}
    assert json.dumps(ev.evaluate(DEFINITION, odd).to_dict())
    deep = copy.deepcopy(DEFINITION)
    deep["metadata"]["labels"] = nested(5000, "x")
    view = ev.evaluate(deep, OBJECT)
    assert view.errors and json.dumps(view.to_dict())
    deep_object = dict(OBJECT, extra=nested(5000, "x"))
    view = ev.evaluate(DEFINITION, deep_object)  # never raises
    assert view.errors and json.dumps(view.to_dict())


def test_the_jq_worker_does_not_outlive_a_killed_kartalint(tmp_path):
    """kill -9 of kartalint (a CI timeout, a killed --update) must not leave its jq worker behind."""
    import signal
    import time

    code = "import kartalint, time\nev = kartalint.Evaluator()\nprint(ev.runner.run('1', None).results, flush=True)\ntime.sleep(120)\n"
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, cwd=tmp_path)
    assert proc.stdout.readline().strip() == "[1]"
    children = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat") as handle:
                if entry.isdigit() and handle.read().rsplit(")", 1)[1].split()[1] == str(proc.pid):
                    children.append(entry)
        except OSError:
            continue
    assert children, "the worker process was not found"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 10

    def alive(pid):
        try:
            with open(f"/proc/{pid}/stat") as handle:
                return handle.read().split()[2] != "Z"
        except OSError:
            return False

    while time.monotonic() < deadline and any(alive(c) for c in children):
        time.sleep(0.1)
    assert not any(alive(c) for c in children), "the jq worker outlived its parent"


def test_a_long_flat_chain_of_operators_is_a_finding_not_a_recursion_error(work, capsys):
    chain = " and ".join(['.x == "a"'] * 2000)
    text = BASE_DEFINITION.replace("replicasPath: .spec.roles[] | (.replicas // 1)", f"replicasPath: '{chain}'")
    (work / "chain.yaml").write_text(text)
    _code, out, err = run(capsys, "lint", "chain.yaml")
    assert "Traceback" not in err and "nested deeper than 200 levels" in out
    _code, out, err = run(capsys, "lint", "--crd", os.path.join(ROOT, "tests", "data", "crds"), "chain.yaml")
    assert "Traceback" not in err


# -- round 2 (issue 34) -------------------------------------------------------------------------------

TRAINER_CRD = os.path.join(ROOT, "tests", "data", "crds", "example.com_trainers.yaml")


def files_under(folder) -> list[str]:
    return sorted(
        os.path.relpath(os.path.join(d, f), folder)
        for d, subs, names in os.walk(folder)
        if ".git" not in os.path.relpath(d, folder).split(os.sep)
        for f in names + [s for s in subs if s != ".git"]
    )


def test_init_writes_nothing_through_a_link_out_of_the_repository(tmp_path, capsys):
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    repo.mkdir()
    outside.mkdir()
    (repo / ".github").symlink_to(outside)
    code, _out, err = run(capsys, "init", "--root", str(repo), "--rev", "v0")
    assert code == 2 and "refusing to write through .github" in err and str(outside) in err
    assert os.listdir(outside) == [] and files_under(repo) == [".github"]


def test_init_is_all_or_nothing(tmp_path, capsys):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "definitions").write_text("a file where a folder goes")  # the drafts' folder: written last
    code, _out, err = run(capsys, "init", "--root", str(repo), "--rev", "v0", "--crd", TRAINER_CRD)
    assert code == 2 and "cannot write definitions/" in err and "nothing was written" in err
    assert files_under(repo) == ["definitions"]  # no .kartalint.yaml, hooks or workflow left behind
    (repo / "definitions").unlink()
    code, _out, err = run(capsys, "init", "--root", str(repo), "--rev", "v0", "--crd", TRAINER_CRD)
    assert code == 0, err  # the second run is not refused by what the first one left
    assert ".kartalint.yaml" in files_under(repo) and ".github/workflows/kartalint.yml" in files_under(repo)


def test_init_under_a_file_size_limit_writes_nothing(tmp_path):
    import resource

    repo = tmp_path / "repo"
    repo.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "kartalint", "init", "--rev", "v0", "--crd", TRAINER_CRD],
        cwd=repo,
        capture_output=True,
        text=True,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (1500, 1500)),  # the draft is larger
        env=unmeasured_environment(PYTHONDONTWRITEBYTECODE="1"),
        timeout=120,
    )
    assert done.returncode == 2 and "File too large" in done.stderr and "Traceback" not in done.stderr
    assert files_under(repo) == []


def _unknown_keys(count: int) -> str:
    extra = "".join(f"  unknownKey{i}: {i}\n" for i in range(count))
    return BASE_DEFINITION.replace("spec:\n  structureDefinition:", "spec:\n" + extra + "  structureDefinition:", 1)


def test_unknown_keys_are_placed_in_linear_work_and_capped_with_a_count(work, capsys, monkeypatch):
    """40,000 unknown keys once took quadratic time (each finding's place looked up by scanning the
    mapping): the work per key stays flat as the keys double (counted, not timed), and the report
    lists the first 100 with one finding that counts the rest."""
    import kartalint.load.documents as documents
    from kartalint.rules.karta_schema import MAX_UNKNOWN_FIELDS

    compared = [0]
    real = documents.key_text

    def counting(node):
        compared[0] += 1
        return real(node)

    monkeypatch.setattr(documents, "key_text", counting)
    work_for = {}
    for count in (1000, 4000):
        (work / "many.yaml").write_text(_unknown_keys(count))
        compared[0] = 0
        code, out, _err = run(capsys, "lint", "-f", "json", "many.yaml")
        work_for[count] = compared[0]
        findings = [f for f in json.loads(out)["findings"] if f["rule"] == "unknown-field"]
        assert code == 1 and len(findings) == MAX_UNKNOWN_FIELDS + 1
        summary = [f for f in findings if "more unknown fields" in f["message"]]
        assert summary and summary[0]["message"].startswith(f"{count - MAX_UNKNOWN_FIELDS} more unknown fields in spec")
        assert summary[0]["line"] == BASE_DEFINITION.split("\n").index("spec:") + 1
    assert work_for[4000] < 6 * work_for[1000], work_for  # 4 times the keys: linear work is 4 times, quadratic 16


# -- a NUL character where a path is expected (found by the configuration fuzz campaign) -------------


@pytest.mark.parametrize(
    "config, message",
    [
        ('crds: ["a\\x00b"]\n', "1:8: 'crds' entry 'a\\x00b' holds a NUL character: not a path"),
        ('definitions: "\\x00\\u0007"\n', "1:14: 'definitions' entry '\\x00\\x07' holds a NUL character"),
        ('fixtures: [fixtures, "f\\x00"]\n', "1:22: 'fixtures' entry 'f\\x00' holds a NUL character"),
        ('extends: "a\\x00b"\n', "1:10: 'extends' must be the path of another configuration file"),
    ],
)
def test_a_nul_character_in_a_configuration_path_is_a_positioned_error(work, capsys, config, message):
    """os.path refuses a NUL character with ValueError (it was a traceback): the configuration is
    refused at the entry's place, exit 2."""
    (work / ".kartalint.yaml").write_text(config)
    for command in ("lint", "test"):
        code, _out, err = run(capsys, command, "def.yaml")
        assert code == 2 and f".kartalint.yaml:{message}" in err and "Traceback" not in err, (command, err)


@pytest.mark.parametrize("field", ["objectFile", "podsFile", "definition"])
def test_a_nul_character_in_a_fixtures_path_is_the_fixtures_error_at_its_place(work, capsys, field):
    fixture = {"apiVersion": "kartalint/v1", "kind": "KartaFixture", "name": "nul", "definition": "def.yaml"}
    fixture.update({"object": OBJECT} if field != "objectFile" else {})
    fixture[field] = "obj\x00.yaml"
    fixture["expect"] = {}
    text = yaml.safe_dump(fixture, sort_keys=False)
    (work / "nul.yaml").write_text(text)
    line = text.split("\n").index(next(x for x in text.split("\n") if x.startswith(f"{field}:"))) + 1
    expected = f"nul.yaml:{line}:{len(field) + 3}: {field}: 'obj\\x00.yaml' holds a NUL character: not a path"
    code, out, err = run(capsys, "test", "nul.yaml")
    assert code == 1 and expected in out and "Traceback" not in out + err, out + err
    code, out, _ = run(capsys, "lint", "nul.yaml")
    assert code == 1 and "fixture-invalid" in out and "holds a NUL character" in out, out


@pytest.mark.parametrize("value", ["[]", "{a: b}", "[worker]"])
def test_a_gang_component_name_that_is_a_list_or_a_map_is_a_schema_finding(work, capsys, value):
    """Found by the fuzz campaign: ``componentName: []`` made the gang rule look a list up in a
    dict (TypeError) in lint, test and describe."""
    text = BASE_DEFINITION.replace("- componentName: worker", f"- componentName: {value}")
    (work / "def.yaml").write_text(text)
    code, out, err = run(capsys, "lint", "-f", "json", "def.yaml")
    rules = {f["rule"] for f in json.loads(out)["findings"]}
    assert code == 1 and rules == {"wrong-type"} and "Traceback" not in err, (rules, err)
    code, out, err = run(capsys, "describe", "--definition", "def.yaml", "obj.yaml")
    assert code in (0, 1) and "Traceback" not in out + err


# -- issue 45: configuration, baseline, suppressions, paths, errors ------------------------------------


def test_a_baseline_linked_to_dev_zero_is_refused_at_once(tmp_path):
    """Issue 45 item 5: `--baseline` through a committed link to /dev/zero was read without limit
    (4.3 GB in 8 s). Run in a process of its own with 1 GiB of address space: before the fix it
    died of memory; now it is one error before anything is read."""
    import resource

    (tmp_path / "def.yaml").write_text(BASE_DEFINITION)
    os.symlink("/dev/zero", tmp_path / "baseline.json")
    limit = 1 << 30
    done = subprocess.run(
        [sys.executable, "-m", "kartalint", "lint", "--baseline", "baseline.json", "def.yaml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit)),
        env=unmeasured_environment(),
        timeout=120,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "baseline baseline.json: the baseline resolves to /dev/zero (through a symbolic link)" in done.stderr


@pytest.mark.parametrize(
    "text, says",
    [
        ("[" * 100_000 + "]" * 100_000, "baseline.json:1:101: nested deeper than 100 levels"),
        (
            '{"schemaVersion": 1, "findings": [' + "9" * 5000 + "]}",
            "baseline.json:1:35: a number of more than 1000 digits",
        ),
        ('{"schemaVersion": 1,\n "findings": [}', "baseline.json:2:15: invalid JSON"),
        ('{"schemaVersion": NaN}', "invalid JSON: NaN is not JSON"),
    ],
    ids=["deep", "digits", "syntax", "nan"],
)
def test_a_hostile_baseline_is_one_error_at_its_place(work, capsys, text, says):
    """Issue 45 item 9: a baseline nested 100,000 deep or holding a 5,000-digit number was a
    traceback (RecursionError, ValueError), exit 1."""
    (work / "baseline.json").write_text(text)
    code, _out, err = run(capsys, "lint", "--baseline", "baseline.json", "def.yaml")
    assert code == 2 and "Traceback" not in err
    one_error(err, "baseline.json", says)


@pytest.mark.parametrize(
    "value, says",
    [
        ("[" * 1000 + "]" * 1000, "pyproject.toml:2:111: nested deeper than 100 levels"),
        ("{a = " * 1000 + "1" + "}" * 1000, "pyproject.toml:2:"),
        ("9" * 5000, "pyproject.toml:2:11: a number of more than 1000 digits"),
        ("0x" + "f" * 5000, "pyproject.toml:2:11: a number of more than 1000 digits"),  # (found by the fuzz campaign)
        ("[1,\n", "pyproject.toml:4:1: invalid TOML"),
    ],
    ids=["arrays", "tables", "digits", "hex", "syntax"],
)
def test_a_hostile_pyproject_is_one_error_at_its_place_in_every_command(work, capsys, value, says):
    """Issue 45 item 7: a pyproject.toml nested 1,000 deep was a traceback and exit 1 in every
    command (and every language-server request: test_lsp.py)."""
    (work / "pyproject.toml").write_text(f"[tool.kartalint]\nexclude = {value}\n")
    for argv in (
        ["lint", "def.yaml"],
        ["test", "def.yaml"],
        ["describe", "obj.yaml", "--definition", "def.yaml"],
        ["catalog"],
        ["explore", "def.yaml", "--examples", "1"],
    ):
        code, out, err = run(capsys, *argv)
        assert code == 2, (argv, out, err)
        one_error(err, says, "pyproject.toml")


@pytest.mark.parametrize("folder", ["we[ir]d", "star*", "what?", "[x]*?"])
def test_configured_paths_are_found_when_the_project_folder_has_glob_characters(tmp_path, monkeypatch, capsys, folder):
    """Issue 45 item 15: a project whose folder path holds '[', '*' or '?' could not use any
    configured path (every command exited 2: the folder above the project was read as a glob)."""
    from conftest import ROOT

    project = tmp_path / folder / "project"
    (project / "defs").mkdir(parents=True)
    (project / "defs" / "trainer.yaml").write_text(BASE_DEFINITION)
    (project / "fixtures" / "example-com-trainer-v1").mkdir(parents=True)
    (project / "fixtures" / "example-com-trainer-v1" / "ok.yaml").write_text(yaml.safe_dump(FIXTURE, sort_keys=False))
    (project / "crds").mkdir()
    crd = os.path.join(ROOT, "tests", "data", "crds", "example.com_trainers.yaml")
    shutil.copyfile(crd, project / "crds" / "trainers.yaml")
    monkeypatch.chdir(project)
    monkeypatch.delenv("CI", raising=False)
    for config in (
        "definitions: [defs]\nfixtures: [fixtures]\ncrds: [crds]\n",
        "definitions: ['defs/*.yaml']\nfixtures: ['fix*']\ncrds: [crds/trainers.yaml]\n",
    ):
        (project / ".kartalint.yaml").write_text(config)
        code, out, err = run(capsys, "lint")
        assert code == 0 and "1 Karta definition(s)" in err, (config, out, err)
        code, out, err = run(capsys, "test")
        assert code == 0 and "1 passed" in out + err, (config, out, err)


def test_a_configuration_error_never_writes_a_line_break_from_a_value(work, capsys):
    """Issue 45 item 13 (the configuration's part): an unknown rule id holding CR or LF was printed
    raw, a forged `kartalint: error:` line of the attacker's choosing."""
    (work / ".kartalint.yaml").write_text(
        'rules:\n  "x\\rkartalint: ok\\nkartalint: error: forged \\u2028 line": off\n'
    )
    for command in ("lint", "test"):
        code, _out, err = run(capsys, command, "def.yaml")
        assert code == 2 and err.count("\n") == 1 and "\r" not in err and "\u2028" not in err, err
        assert "unknown rule 'x\\rkartalint: ok\\nkartalint: error: forged \\u2028 line'" in err, err


MALFORMED_SUPPRESSIONS = [
    ("disable-file=ｊｑ-not-portable", "'ｊ' (U+FF4A, not ASCII) is not a rule id after '='"),
    ("disable=ｕｎｋｎｏｗｎ-owner-ref", "'ｕ' (U+FF55, not ASCII) is not a rule id after '='"),
    ("disable: unknown-owner-ref", "name the rules with `disable=RULE`"),
    ("disable=", "no rule id follows after '='"),
    ("disable-file=", "no rule id follows after '='"),
    ("disable=unknown-owner-ref,", "a ',' with no rule id after it"),
    ("disable unknown-owner-ref", "name the rules with `disable=RULE`"),
    ("disable-line=unknown-owner-ref", "'disable-line' is not a directive"),
    ("enable=unknown-owner-ref", "'enable' is not a directive"),
    ("DISABLE", "only the ASCII lower-case `# kartalint: disable` is a directive"),
    ("ｄｉｓａｂｌｅ", "only the ASCII lower-case `# kartalint: disable` is a directive"),
]


@pytest.mark.parametrize("directive, says", MALFORMED_SUPPRESSIONS, ids=[d for d, _ in MALFORMED_SUPPRESSIONS])
def test_a_malformed_suppression_silences_nothing_and_is_an_error(work, capsys, directive, says):
    """Issue 45 item 2: a malformed directive acted as a bare `disable`: every rule on the line (or,
    with `disable-file`, in the file) was silenced, lint exited 0, and nothing named the directive."""
    text = BASE_DEFINITION.replace("ownerRef: trainer", f"ownerRef: nobody  # kartalint: {directive}")
    assert text != BASE_DEFINITION
    (work / "def.yaml").write_text(text)
    code, out, err = run(capsys, "lint", "-f", "json", "def.yaml")
    found = json.loads(out)["findings"]
    rules = sorted(f["rule"] for f in found)
    assert code == 1 and rules == ["invalid-suppression", "unknown-owner-ref"], (rules, err)
    [invalid] = [f for f in found if f["rule"] == "invalid-suppression"]
    assert invalid["severity"] == "error" and says in invalid["message"], invalid
    assert invalid["line"] == found[0]["line"] == found[1]["line"]
    assert json.loads(out)["summary"]["suppressed"] == 0 if "summary" in json.loads(out) else True


@pytest.mark.parametrize(
    "directive",
    [
        "disable=unknown-owner-ref",
        "disable=unknown-owner-ref -- why",
        "disable",
        "disable -- why",
        "disable = unknown-owner-ref, jq-not-portable",
    ],
)
def test_a_well_formed_suppression_still_silences(work, capsys, directive):
    text = BASE_DEFINITION.replace("ownerRef: trainer", f"ownerRef: nobody  # kartalint: {directive}")
    (work / "def.yaml").write_text(text)
    code, out, err = run(capsys, "lint", "-f", "json", "def.yaml")
    rules = sorted(f["rule"] for f in json.loads(out)["findings"])
    assert code == 0 and "unknown-owner-ref" not in rules and "invalid-suppression" not in rules, (rules, err)
