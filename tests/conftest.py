"""Shared helpers: lint a YAML text, the reference data location, a base definition."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from typing import Any


def _keep_bytecode() -> None:
    """Where ``PYTHONDONTWRITEBYTECODE`` is set (some CI images set it), every Python process the
    suite starts (``python -m kartalint``, the language server, the xdist workers) compiles every
    module again: half the CPU time of a short command. The suite keeps the bytecode in a cache of
    its own instead, outside the checkout (``PYTHONPYCACHEPREFIX``), for itself and its children."""
    if not os.environ.get("PYTHONDONTWRITEBYTECODE"):
        return
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    prefix = os.environ.get("PYTHONPYCACHEPREFIX") or os.path.join(cache, "kartalint-tests", "pycache")
    del os.environ["PYTHONDONTWRITEBYTECODE"]
    os.environ["PYTHONPYCACHEPREFIX"] = prefix
    sys.dont_write_bytecode = False
    sys.pycache_prefix = prefix


_keep_bytecode()

import pytest  # noqa: E402
import yaml  # noqa: E402

from kartalint.lint import lint_source  # noqa: E402
from kartalint.load.documents import load_text  # noqa: E402
from kartalint.project import Config  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The real-world reference data: ../shared/reference when present (the full set), else the
# trimmed subset vendored in tests/data/reference (tests/data/reference/README.md), so that a clone
# without ../shared runs every test path. KARTALINT_TEST_REFERENCE=vendored forces the subset.
SHARED_REFERENCE = os.path.join(os.path.dirname(ROOT), "shared", "reference")
VENDORED_REFERENCE = os.path.join(ROOT, "tests", "data", "reference")
HAVE_SHARED_REFERENCE = os.path.isdir(SHARED_REFERENCE) and os.environ.get("KARTALINT_TEST_REFERENCE") != "vendored"
REFERENCE = SHARED_REFERENCE if HAVE_SHARED_REFERENCE else VENDORED_REFERENCE
# Upstream parity (upstream's catalog and samples, which are not ours and never copied here).
needs_upstream = pytest.mark.skipif(
    not HAVE_SHARED_REFERENCE, reason="upstream parity needs ../shared/reference (a user's checkout has none)"
)

BASE_DEFINITION = """\
apiVersion: run.ai/v1alpha1
kind: Karta
metadata:
  name: example-com-trainer-v1
spec:
  structureDefinition:
    rootComponent:
      name: trainer
      kind:
        group: example.com
        version: v1
        kind: Trainer
      statusDefinition:
        phaseDefinition:
          path: .status.phase
        conditionsDefinition:
          path: .status.conditions
          typeFieldName: type
          statusFieldName: status
          reasonFieldName: reason
          messageFieldName: message
        statusMappings:
          running:
          - byPhase: Running
          failed:
          - byConditions:
            - type: Failed
              status: "True"
    childComponents:
    - name: worker
      kind:
        group: ""
        version: v1
        kind: Pod
      ownerRef: trainer
      specDefinition:
        podTemplateSpecPath: .spec.roles[].template
      scaleDefinition:
        replicasPath: .spec.roles[] | (.replicas // 1)
      instanceIdPath: .spec.roles[].name
      podSelector:
        componentTypeSelector:
          keyPath: .metadata.labels["example.com/role"]
        componentInstanceSelector:
          idPath: .metadata.labels["example.com/role"]
  optimizationInstructions:
    gangScheduling:
      podGroup:
        name: all
        subGroups:
        - componentName: worker
"""


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook: without it the suite runs in one process
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: two test processes per core (up to four more than the cores). Many tests wait on
    a child process (a `kartalint` command, pre-commit, pip, a language server, a jq worker until its
    time limit), and a core whose test waits runs another's meanwhile: on two cores the inner loop
    took 103 s with two processes and 93 s with four."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return cores + min(cores, 4)


def pytest_configure(config: pytest.Config) -> None:
    """In an xdist test process only: no DeprecationWarning for a fork from a multi-threaded
    process (Python 3.12+). Those threads are execnet's, which xdist runs in each test process; a
    `kartalint` command is single-threaded when it forks its jq worker or `lint -j` workers. The
    warning filled the summary with about 700 copies; a run without ``-n`` still shows a fork
    from a thread of the code under test."""
    if hasattr(config, "workerinput"):
        config.addinivalue_line(
            "filterwarnings",
            r"ignore:This process \(pid=\d+\) is multi-threaded, use of fork\(\):DeprecationWarning",
        )


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``-n`` with xdist's default distribution (``load``): a process that has run out of tests takes
    some of another's (``--dist worksteal``). With ``load`` one process was left alone with the last
    20 catalog explorations for 30 s while the others idled (the whole suite: 281 s)."""
    if config.getoption("dist") != "load":
        return None
    from xdist.scheduler import WorkStealingScheduling

    return WorkStealingScheduling(config, log)


def unmeasured_environment(**extra: str) -> dict[str, str]:
    """The environment for a child process that must not be measured by coverage: one run under a
    file-size limit, whose coverage data file could not be written at exit (a traceback that is
    coverage's, not kartalint's)."""
    environment = {name: value for name, value in os.environ.items() if not name.startswith("COVERAGE_")}
    environment.update(extra)
    return environment


def trainer_object(role: str = "worker", replicas: int = 2, phase: str = "Running") -> dict[str, Any]:
    """A Trainer (tests/data/crds/example.com_trainers.yaml) with one role, as BASE_DEFINITION reads it."""
    return {
        "apiVersion": "example.com/v1",
        "kind": "Trainer",
        "metadata": {"name": "t", "uid": "u"},
        "spec": {
            "roles": [{"name": role, "replicas": replicas, "template": {"spec": {"containers": [{"name": "c"}]}}}]
        },
        "status": {"phase": phase},
    }


def running_trainer_fixture(name: str, definition: str | None = None) -> dict[str, Any]:
    """A fixture of a Running Trainer with no role, against ``definition`` (BASE_DEFINITION's; None:
    the fixture names none)."""
    fixture: dict[str, Any] = {
        "apiVersion": "kartalint/v1",
        "kind": "KartaFixture",
        "name": name,
        "source": "test",
        "object": {
            "apiVersion": "example.com/v1",
            "kind": "Trainer",
            "metadata": {"name": "t"},
            "spec": {"roles": []},
            "status": {"phase": "Running"},
        },
        "expect": {"statuses": ["Running"]},
    }
    if definition is not None:
        fixture["definition"] = definition
    return fixture


def base() -> dict[str, Any]:
    return copy.deepcopy(yaml.safe_load(BASE_DEFINITION))


def crd_document(schema: dict[str, Any], kind: str = "Thing", columns: list | None = None) -> dict[str, Any]:
    """A CustomResourceDefinition of ``kind`` in group example.com, one served version v1 with
    ``schema`` as its openAPIV3Schema (and printer ``columns`` when given)."""
    version: dict[str, Any] = {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": schema}}
    if columns:
        version["additionalPrinterColumns"] = columns
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{kind.lower()}s.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": kind, "plural": f"{kind.lower()}s"},
            "scope": "Namespaced",
            "versions": [version],
        },
    }


def spec_and_status(spec_properties: dict[str, Any], status_properties: dict[str, Any] | None = None) -> dict[str, Any]:
    """An object schema with a ``spec`` and a ``status`` of these properties."""
    return {
        "type": "object",
        "properties": {
            "spec": {"type": "object", "properties": spec_properties},
            "status": {"type": "object", "properties": status_properties or {}},
        },
    }


def lint_text(text: str, name: str = "def.yaml", config: Config | None = None):
    """What lint reports on ``text`` (judged whatever it holds, as ``--strict-files``)."""
    return lint_source(load_text(text, name), config or Config(), strict_files=True).findings


def lint_data(data: Any) -> list:
    return lint_text(yaml.safe_dump(data, sort_keys=False))


def read_yaml(path: Any) -> Any:
    """The data of a YAML file of one document, read with libyaml: what ``yaml.safe_load`` gives,
    many times faster (the catalog is read at collection, in every test process)."""
    with open(path, encoding="utf-8") as handle:
        return yaml.load(handle, Loader=yaml.CSafeLoader)


def rule_ids(findings) -> list[str]:
    return sorted({f.rule for f in findings})


def run_cli(argv: list[str], cwd: Any = None, stdin: str = "") -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``kartalint ARGV`` run in this process from ``cwd``: what
    ``python -m kartalint`` gives, without starting an interpreter (for tests that cannot use capsys)."""
    import contextlib
    import io
    import sys

    from kartalint.cli import main

    out, err = io.StringIO(), io.StringIO()
    old_cwd, old_stdin = os.getcwd(), sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode("utf-8")), encoding="utf-8")
    try:
        os.chdir(cwd or old_cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(argv))
            except SystemExit as exc:  # argparse: usage errors
                code = exc.code if isinstance(exc.code, int) else 2
    finally:
        os.chdir(old_cwd)
        sys.stdin = old_stdin
    return code, out.getvalue(), err.getvalue()


def build_wheel(source: Any, wheel_dir: Any) -> None:
    """Build the wheel of the project in ``source`` (kartalint's sources, or a plugin's) into
    ``wheel_dir``, offline: with the test extra's setuptools, not in a build environment of pip's
    own (4 s less)."""
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(wheel_dir),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stderr


def git(repo, *args):
    """Run git in ``repo`` with a fixed author (tests build throwaway repositories)."""
    subprocess.run(
        ["git", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        env=dict(
            os.environ,
            GIT_AUTHOR_NAME="t",
            GIT_AUTHOR_EMAIL="t@example.com",
            GIT_COMMITTER_NAME="t",
            GIT_COMMITTER_EMAIL="t@example.com",
        ),
    )


def unwrapped_groups(text: str) -> list[tuple[str, list[str]]]:
    """The lines of a draft or a fixture kartalint wrote, each as (the line as it reads unwrapped,
    the lines written for it): a comment with its continuation lines (indented four more than its
    text: ``scaffold.draft_text.CONTINUED``) joined, a folded string (``key: >-`` and its lines)
    on one line. Drafts fit in 80 columns (yamllint's
    line length, issue 48); what they say is asserted on the unwrapped lines."""
    lines = text.splitlines()
    groups: list[tuple[str, list[str]]] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        stripped = line.lstrip(" ")
        indent = line[: len(line) - len(stripped)]
        first = groups[-1][1][0][len(indent) :] if groups else ""  # the comment's first line, from its "#"
        lead = len(first) - 2 - len(first[2:].lstrip(" "))  # how far its text is indented
        continued = "# " + " " * (lead + 4)
        if (
            first.startswith("# ")
            and stripped.startswith(continued)
            and stripped[len(continued) :][:1] not in ("", " ")
        ):
            joined, written = groups[-1]
            groups[-1] = (f"{joined} {stripped[len(continued) :]}", [*written, line])
        elif line.endswith(" >-"):
            end = index + 1
            while end < len(lines) and lines[end].startswith(indent + " ") and lines[end].strip():
                end += 1
            value = " ".join(part.strip() for part in lines[index + 1 : end])
            groups.append((f"{line[:-2]}{_one_line(value)}", lines[index:end]))
            index = end
            continue
        else:
            groups.append((line, [line]))
        index += 1
    return groups


def unwrapped(text: str) -> str:
    """``text`` with its wrapped comments and folded strings on one line each (``unwrapped_groups``)."""
    return "".join(f"{line}\n" for line, _ in unwrapped_groups(text))


def _one_line(value: str) -> str:
    """``value`` as drafts wrote it on one line before they were wrapped (plain, else quoted)."""
    from kartalint.scaffold.fixture import QuotingDumper

    text = yaml.dump(value, Dumper=QuotingDumper, width=1 << 20, allow_unicode=True)
    return text.removesuffix("\n...\n").rstrip("\n")
