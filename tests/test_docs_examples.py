"""Docs as tests: every fenced `sh` block of README.md and docs/*.md runs in a temporary project,
and every revision of kartalint the docs pin (`rev:`, `kartalint/kartalint@REF`) exists here.

Each `sh` block is preceded by `<!-- docs-test: SETUP: what the block assumes -->`; SETUP names
how the temporary project is made (the functions below), `skip: reason` leaves a block out.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys

import pytest
import yaml
from conftest import BASE_DEFINITION, HAVE_SHARED_REFERENCE, REFERENCE, ROOT, build_wheel, git, trainer_object

DOCS = [os.path.join(ROOT, "README.md"), *sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))]
BLOCK = re.compile(r"(?:<!-- docs-test: (?P<note>[^>]*?) -->\n\s*)?```(?P<lang>[a-z]*)\n(?P<body>.*?)```", re.S)
TEST_CRD = os.path.join(ROOT, "tests", "data", "crds", "example.com_trainers.yaml")


def blocks(lang):
    for path in DOCS:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        for match in BLOCK.finditer(text):
            if match.group("lang") == lang:
                line = text.count("\n", 0, match.start("body"))
                note = match.group("note")
                marks = [pytest.mark.slow] if note and note.startswith("wheel:") else []
                yield pytest.param(note, match.group("body"), id=f"{os.path.relpath(path, ROOT)}:{line}", marks=marks)


# -- setups: what each kind of block assumes ----------------------------------------------------------


def setup_repo(tmp):
    """A copy of this repository's definitions, fixtures and configuration, with crds/."""
    for name in ("catalog", "fixtures"):
        shutil.copytree(os.path.join(ROOT, name), tmp / name)
    shutil.copyfile(os.path.join(ROOT, ".kartalint.yaml"), tmp / ".kartalint.yaml")
    shutil.copytree(os.path.dirname(TEST_CRD), tmp / "crds")
    git(tmp, "init", "-q")


def setup_empty_repo(tmp):
    git(tmp, "init", "-q")
    (tmp / "crds").mkdir()
    shutil.copyfile(TEST_CRD, tmp / "crds" / "trainers.yaml")


def setup_kubectl(tmp):
    from test_project import KUBECTL_JOBSET, kubectl_pods

    (tmp / "jobset.yaml").write_text(KUBECTL_JOBSET)
    (tmp / "pods.yaml").write_text(kubectl_pods())


def setup_my_def(tmp):
    git(tmp, "init", "-q")  # a project (a git work tree): its definitions are found without flags
    (tmp / "catalog").mkdir()
    (tmp / "docs").mkdir()
    (tmp / "catalog" / "my-def.yaml").write_text(
        BASE_DEFINITION.replace("name: example-com-trainer-v1", "name: my-def")
    )
    obj = trainer_object()
    (tmp / "my-object.yaml").write_text(yaml.safe_dump(obj))
    failed = dict(obj, status={"phase": "Error", "conditions": [{"type": "Failed", "status": "True"}]})
    (tmp / "fixtures" / "my-def").mkdir(parents=True)
    (tmp / "fixtures" / "my-def" / "failed.yaml").write_text(
        yaml.safe_dump(
            {
                "apiVersion": "kartalint/v1",
                "kind": "KartaFixture",
                "name": "failed",
                "source": "docs test",
                "object": failed,
                "expect": {"statuses": ["Failed"]},
            }
        )
    )


def setup_wheel(tmp):
    """A folder whose dist/ holds a wheel built from this checkout (the block installs it)."""
    (tmp / "dist").mkdir()
    source = tmp / "source"  # a copy: building writes build/ and *.egg-info next to the sources
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "build", ".venv", ".git")
    for name in ("kartalint", "catalog", "fixtures"):  # the wheel ships the catalog and its fixtures
        shutil.copytree(os.path.join(ROOT, name), source / name, ignore=ignore)
    for name in ("pyproject.toml", "setup.py", "README.md", "LICENSE"):
        shutil.copyfile(os.path.join(ROOT, name), source / name)
    build_wheel(source, tmp / "dist")
    shutil.rmtree(source)


def setup_shared(tmp):
    if not HAVE_SHARED_REFERENCE:
        pytest.skip("needs ../shared/reference (upstream's catalog)")
    return ROOT  # runs where the block's relative paths point


def setup_reference(tmp):
    """In this repository, on the reference data: ../shared/reference, or without it the subset
    vendored in tests/data/reference (the block's paths are pointed there)."""
    return ROOT


def setup_fleet(tmp):
    """``bin/kubectl`` (put first on the PATH) prints the recorded JobSets, PyTorchJobs, RayClusters
    and LeaderWorkerSets of the reference data (``test_summary.docs_fleet``) as one List, in JSON or
    (with ``yaml`` among its arguments) YAML, whatever resources it is asked for."""
    import json

    from test_summary import docs_fleet

    document = {"apiVersion": "v1", "items": docs_fleet(), "kind": "List"}
    (tmp / "recorded-list.json").write_text(json.dumps(document))
    (tmp / "bin").mkdir()
    kubectl = tmp / "bin" / "kubectl"
    kubectl.write_text(
        f"#!{sys.executable}\nimport json, sys, yaml\n"
        f"document = json.load(open({str(tmp / 'recorded-list.json')!r}))\n"
        "if 'yaml' in sys.argv: yaml.safe_dump(document, sys.stdout)\n"
        "else: json.dump(document, sys.stdout, indent=4)\n"
    )
    kubectl.chmod(0o755)


def setup_legacy_repo(tmp):
    """A git repository with 20 legacy findings, before `kartalint init` (tests/legacy_repo.py)."""
    from legacy_repo import make_legacy_repo

    make_legacy_repo(tmp, config=False)


def setup_legacy_adopted(tmp):
    """The legacy repository after the adoption commit of docs/ci.md (its first block, run)."""
    setup_legacy_repo(tmp)
    with open(os.path.join(ROOT, "docs", "ci.md"), encoding="utf-8") as handle:
        [adoption] = [
            m.group("body") for m in BLOCK.finditer(handle.read()) if (m.group("note") or "").startswith("legacy-repo:")
        ]
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    subprocess.run(["bash", "-e", "-c", adoption], cwd=tmp, check=True, capture_output=True, env=env, timeout=300)


def setup_house_rules(tmp):
    """A team repository whose platform/kartalint-base is Acme's base (tests/data/house-rules),
    extended by its .kartalint.yaml, with definitions that follow Acme's rules."""
    base = os.path.join(ROOT, "tests", "data", "house-rules", "acme-base")
    shutil.copytree(base, tmp / "platform" / "kartalint-base")
    (tmp / ".kartalint.yaml").write_text(
        "extends: platform/kartalint-base/kartalint-base.yaml\ndefinitions: [definitions]\n"
    )
    (tmp / "definitions" / "inference").mkdir(parents=True)
    for rule_id, target in (
        ("acme-role-selector", "pytorchjob.yaml"),
        ("acme-inference-degraded", "inference/isvc.yaml"),
    ):
        shutil.copyfile(os.path.join(base, "examples", rule_id, "good.yaml"), tmp / "definitions" / target)
    git(tmp, "init", "-q")


SETUPS = {
    "repo": setup_repo,
    "empty-repo": setup_empty_repo,
    "kubectl": setup_kubectl,
    "my-def": setup_my_def,
    "shared": setup_shared,
    "wheel": setup_wheel,
    "reference": setup_reference,
    "fleet": setup_fleet,
    "legacy-repo": setup_legacy_repo,
    "legacy-adopted": setup_legacy_adopted,
    "house-rules": setup_house_rules,
}


def _skipped(note):
    return bool(note) and note.split(":", 1)[0].strip() == "skip"


def test_blocks_not_run_say_why():
    """Blocks marked ``skip`` (an install into the reader's environment, the suite itself, a
    long fuzzing campaign) are not run; each says why."""
    skipped = [param.values[0] for param in blocks("sh") if _skipped(param.values[0])]
    assert skipped and all(note.split(":", 1)[1].strip() for note in skipped)


@pytest.mark.parametrize("note, body", [p for p in blocks("sh") if not _skipped(p.values[0])])
def test_shell_block_runs(note, body, tmp_path):
    assert note, "every sh block says what it assumes: <!-- docs-test: SETUP: ... --> before it"
    setup = note.split(":", 1)[0].strip()
    assert setup in SETUPS, f"unknown docs-test setup {setup!r} (known: {', '.join(SETUPS)})"
    cwd = SETUPS[setup](tmp_path) or str(tmp_path)
    script = body
    if setup != "wheel":  # the virtual environment and the install are .ci/run's (done): drop them
        script = re.sub(r"python3 -m venv \.venv && \. \.venv/bin/activate && ", "", script)
        script = re.sub(r"python3? -m pip install [^&\n]*&&\s*", "", script)
    if re.search(r"^\s*(cat [^|]*\|\s*)?kubectl ", script, re.M) and shutil.which("kubectl") is None:
        pytest.skip("the block runs kubectl, which is not installed")
    if setup == "reference" and not HAVE_SHARED_REFERENCE:
        script = script.replace("../shared/reference", os.path.relpath(REFERENCE, ROOT))
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    if (tmp_path / "bin").is_dir():  # the setup's stand-ins for other tools (kubectl)
        env["PATH"] = str(tmp_path / "bin") + os.pathsep + env["PATH"]
    env.pop("CI", None)
    proc = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", script], cwd=cwd, capture_output=True, text=True, env=env, timeout=300
    )
    assert proc.returncode == 0, f"$ {script}\n{proc.stdout}\n{proc.stderr}"


def _unpublished(match: re.Match) -> str:
    """A block marked as needing a release that is not published yet (`skip: needs ... v0.2.0 ...`)
    may name that tag; any other block is kept for the check."""
    note = match.group("note") or ""
    tags = re.findall(r"v\d+\.\d+\.\d+", note)
    if (
        _skipped(note)
        and "needs" in note
        and tags
        and all(tag in note for tag in re.findall(r"@(v[\w.]+)", match.group("body")))
    ):
        return ""
    return match.group(0)


def test_ci_runs_the_readme_test_command_in_a_fresh_virtual_environment():
    """.ci/run makes a virtual environment, installs the development extra into it and runs the
    README's test command there: the command contributors are told to run is the one CI runs."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        install, test = re.search(
            r"(python3? -m pip install '\.\[dev\]') && (python3? -m pytest [^\n]*)", handle.read()
        ).groups()
    # in an activated environment `python` and `python3` are the same interpreter
    install, test = (re.sub(r"^python3? ", "python3 ", command) for command in (install, test))
    with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as handle:
        lines = [line.strip() for line in handle if line.strip() and not line.lstrip().startswith("#")]

    def first(what, predicate):
        found = next((index for index, line in enumerate(lines) if predicate(line)), None)
        assert found is not None, f".ci/run does not {what}"
        return found

    # the environment's interpreter may be a newer Python than python3 (.ci/run prefers 3.12+)
    made = first("make a virtual environment", lambda line: re.match(r'^(python3|"\$python") -m venv ', line))
    activated = first("activate it", lambda line: line.startswith(". ") and line.endswith('/bin/activate"'))
    installed = first(
        f"run {install}", lambda line: line.startswith("python3 -m pip install") and line.endswith(install.split()[-1])
    )
    tested = first(f"run {test}", lambda line: line == test)
    assert made < activated < installed < tested, lines


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="lists processes through /proc")
def test_ci_busy_runs_a_command_beside_busy_loops_and_stops_them():
    """`.ci/busy COMMAND` (CONTRIBUTING.md: the suite must pass on a busy machine) runs COMMAND
    beside KARTALINT_BUSY_LOOPS CPU-bound loops, exits with its code and leaves no loop running."""
    siblings = (  # the loops: the other children of .ci/busy, and whether each is running (R)
        "import os\n"
        "for entry in os.listdir('/proc'):\n"
        "    try:\n"
        "        fields = open(f'/proc/{entry}/stat').read().rsplit(')', 1)[1].split()\n"
        "    except (OSError, IndexError):\n"
        "        continue\n"
        "    if entry.isdigit() and fields[1] == str(os.getppid()) and int(entry) != os.getpid():\n"
        "        print(entry, fields[0])\n"
        "raise SystemExit(3)\n"
    )
    env = dict(os.environ, KARTALINT_BUSY_LOOPS="2")
    proc = subprocess.run(
        [os.path.join(ROOT, ".ci", "busy"), sys.executable, "-c", siblings],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 3, proc.stderr
    loops = dict(line.split() for line in proc.stdout.splitlines())
    assert sorted(loops.values()) == ["R", "R"], proc.stdout
    assert "beside 2 busy loops: exit 3 after" in proc.stderr

    def running(pid):
        try:
            with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
                return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False

    assert not [pid for pid in loops if running(pid)], "a busy loop outlived .ci/busy"


def pinned_refs():
    refs = []
    for path in DOCS:
        with open(path, encoding="utf-8") as handle:
            text = BLOCK.sub(_unpublished, handle.read())
        refs += re.findall(r"kartalint/kartalint@([\w./-]+)", text)
        refs += re.findall(r"repo: https://github\.com/kartalint/kartalint\s*\n\s*rev: (\S+)", text)
    return refs


def test_docs_pin_revisions_that_exist():
    refs = pinned_refs()
    assert refs, "the docs show how to pin kartalint"
    if not os.path.exists(os.path.join(ROOT, ".git")):
        pytest.skip("not a git checkout")
    shallow = subprocess.run(["git", "rev-parse", "--is-shallow-repository"], cwd=ROOT, capture_output=True, text=True)
    if shallow.stdout.strip() == "true":
        pytest.skip("a shallow clone cannot tell which revisions exist")
    for ref in refs:
        proc = subprocess.run(
            ["git", "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], cwd=ROOT, capture_output=True
        )
        assert proc.returncode == 0, f"the docs pin kartalint to {ref}, which is not a revision of this repository"
