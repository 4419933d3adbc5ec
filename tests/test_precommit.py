"""The pre-commit hooks, run by real pre-commit (`pre-commit try-repo`) on a throwaway repository.

pre-commit installs this repository into its own virtualenv (from the package registry), once
per test session, in a temporary PRE_COMMIT_HOME.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
import yaml

from conftest import BASE_DEFINITION, ROOT

pytestmark = pytest.mark.skipif(not os.path.isdir(os.path.join(ROOT, ".git")) or shutil.which("git") is None,
                                reason="needs this project as a git checkout (pre-commit try-repo clones it)")

BROKEN = BASE_DEFINITION.replace("ownerRef: trainer", "ownerRef: nobody")


def git(repo, *args):
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                   env=dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
                            GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com"))


@pytest.fixture(scope="module")
def precommit_home(tmp_path_factory):
    return str(tmp_path_factory.mktemp("pre-commit-home"))


@pytest.fixture
def sample(tmp_path):
    repo = tmp_path / "sample"
    (repo / "catalog").mkdir(parents=True)
    (repo / "catalog" / "good.yaml").write_text(BASE_DEFINITION)
    (repo / "catalog" / "broken.yaml").write_text(BROKEN)
    (repo / "ci.yaml").write_text("name: not a definition\n")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    return repo


def try_repo(repo, home, hook, *files):
    env = dict(os.environ, PRE_COMMIT_HOME=home)
    env.pop("CI", None)
    proc = subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", ROOT, hook, "--verbose", *(["--files", *files] if files else ["--all-files"])],
                          cwd=repo, capture_output=True, text=True, env=env, timeout=900)
    return proc.returncode, proc.stdout + proc.stderr


def test_hook_definitions_are_valid():
    with open(os.path.join(ROOT, ".pre-commit-hooks.yaml"), encoding="utf-8") as handle:
        hooks = {h["id"]: h for h in yaml.safe_load(handle)}
    assert hooks["kartalint-lint"]["types_or"] == ["yaml"] and hooks["kartalint-lint"].get("pass_filenames", True)
    assert hooks["kartalint-test"]["pass_filenames"] is False and hooks["kartalint-test"]["require_serial"] is True
    assert "fixtures" in hooks["kartalint-test"]["files"] and "catalog" in hooks["kartalint-test"]["files"]


def test_lint_hook_passes_good_fails_broken(sample, precommit_home):
    code, out = try_repo(sample, precommit_home, "kartalint-lint", "catalog/good.yaml", "ci.yaml")
    assert code == 0, out
    assert "Passed" in out
    code, out = try_repo(sample, precommit_home, "kartalint-lint", "catalog/good.yaml", "catalog/broken.yaml")
    assert code == 1, out
    assert "Failed" in out
    assert "catalog/broken.yaml:" in out and "unknown-owner-ref" in out


def test_test_hook_runs_the_fixtures(sample, precommit_home):
    fixture = {"apiVersion": "kartalint/v1", "kind": "KartaFixture", "name": "f", "source": "test", "definition": "../catalog/good.yaml",
               "object": {"apiVersion": "example.com/v1", "kind": "Trainer", "metadata": {"name": "t"}, "spec": {"roles": []}, "status": {"phase": "Running"}},
               "expect": {"statuses": ["Running"]}}
    (sample / "fixtures").mkdir()
    (sample / "fixtures" / "f.yaml").write_text(yaml.safe_dump(fixture))
    git(sample, "add", "-A")
    code, out = try_repo(sample, precommit_home, "kartalint-test")
    assert code == 0, out
    fixture["expect"]["statuses"] = ["Failed"]
    (sample / "fixtures" / "f.yaml").write_text(yaml.safe_dump(fixture))
    git(sample, "add", "-A")
    code, out = try_repo(sample, precommit_home, "kartalint-test")
    assert code == 1 and 'statuses: expected ["Failed"], got ["Running"]' in out, out
