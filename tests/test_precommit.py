"""The pre-commit hooks, run by real pre-commit on throwaway repositories.

The hooks come from a clone of this repository with the working tree committed, pinned at that
revision as a user's configuration pins kartalint. pre-commit installs it into its own virtualenv
(from the package registry) once per test run: the clone and PRE_COMMIT_HOME are shared by the
xdist workers. The tests that run pre-commit are `slow`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import pytest
import yaml
from conftest import BASE_DEFINITION, REFERENCE, ROOT, git, running_trainer_fixture

pytestmark = pytest.mark.skipif(
    not os.path.exists(os.path.join(ROOT, ".git")) or shutil.which("git") is None,  # a worktree has a .git file
    reason="needs this project as a git checkout (the hooks come from a clone of it)",
)

BROKEN = BASE_DEFINITION.replace("ownerRef: trainer", "ownerRef: nobody")


def _run_wide(tmp_path_factory):
    """A folder every xdist worker of this run sees (pytest's base temporary folder)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def precommit_home(tmp_path_factory):
    """One PRE_COMMIT_HOME for the whole run, shared by the xdist workers (pre-commit locks its
    store), so each hook environment is installed once."""
    home = _run_wide(tmp_path_factory) / "pre-commit-home"
    home.mkdir(exist_ok=True)
    return str(home)


@pytest.fixture(scope="session")
def kartalint_clone(tmp_path_factory):
    """(path, revision) of a clone of this repository with the working tree's changes committed
    (what a user's pre-commit fetches at a pinned revision), made once for the whole run."""
    import fcntl

    shared = _run_wide(tmp_path_factory)
    clone, done = shared / "kartalint-clone" / "kartalint", shared / "kartalint-clone" / "revision"
    with open(shared / "kartalint-clone.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the first worker makes it, the others wait and use it
        if not done.exists():
            shutil.rmtree(clone, ignore_errors=True)
            done.write_text(_clone_working_tree(clone))
        return str(clone), done.read_text()


def _clone_working_tree(clone):
    subprocess.run(["git", "clone", "-q", ROOT, str(clone)], check=True, capture_output=True)
    listed = subprocess.run(
        ["git", "ls-files", "-z", "-co", "--exclude-standard"], cwd=ROOT, check=True, capture_output=True
    ).stdout
    for name in filter(None, listed.decode().split("\0")):
        source = os.path.join(ROOT, name)
        if os.path.isfile(source):
            os.makedirs(os.path.dirname(os.path.join(clone, name)), exist_ok=True)
            shutil.copyfile(source, os.path.join(clone, name))
    git(clone, "add", "-A")
    git(clone, "commit", "-qm", "working tree", "--allow-empty")
    return subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=clone, check=True, capture_output=True, text=True
    ).stdout.strip()


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


def run_hook(repo, home, clone, hook, *files):
    """Run one of this repository's hooks with real pre-commit in ``repo`` (on ``files``, or on all
    files), configured as a user configures it: the clone, pinned at its revision."""
    path, rev = clone
    (repo / ".pre-commit-config.yaml").write_text(
        yaml.safe_dump({"repos": [{"repo": path, "rev": rev, "hooks": [{"id": hook}]}]})
    )
    git(repo, "add", ".pre-commit-config.yaml")
    env = dict(os.environ, PRE_COMMIT_HOME=home)
    env.pop("CI", None)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pre_commit",
            "run",
            hook,
            "--verbose",
            *(["--files", *files] if files else ["--all-files"]),
        ],
        cwd=repo,
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    return proc.returncode, proc.stdout + proc.stderr


def test_hook_definitions_are_valid():
    with open(os.path.join(ROOT, ".pre-commit-hooks.yaml"), encoding="utf-8") as handle:
        hooks = {h["id"]: h for h in yaml.safe_load(handle)}
    assert hooks["kartalint-lint"]["types_or"] == ["yaml"] and hooks["kartalint-lint"].get("pass_filenames", True)
    assert hooks["kartalint-lint"]["args"] == ["--"]  # the staged names follow, each a file
    assert hooks["kartalint-test"]["pass_filenames"] is False and hooks["kartalint-test"]["require_serial"] is True
    # any YAML change runs the fixtures, whatever the layout (no files: pattern tied to catalog/ or fixtures/)
    assert hooks["kartalint-test"]["types_or"] == ["yaml"] and "files" not in hooks["kartalint-test"]
    # opt-in: explore runs the project's definitions against its crds:, with hypothesis installed
    explore = hooks["kartalint-explore"]
    assert explore["entry"] == "kartalint explore -q" and explore["pass_filenames"] is False
    assert any(dep.startswith("hypothesis") for dep in explore["additional_dependencies"])
    # opt-in: mutants runs the project's fixtures, then its definitions' mutants (min-score of the configuration)
    mutants = hooks["kartalint-mutants"]
    assert mutants["entry"] == "kartalint test --mutants -q" and mutants["pass_filenames"] is False
    assert mutants["require_serial"] is True and mutants["types_or"] == ["yaml"]


@pytest.mark.slow
def test_lint_hook_passes_good_fails_broken(sample, precommit_home, kartalint_clone):
    code, out = run_hook(sample, precommit_home, kartalint_clone, "kartalint-lint", "catalog/good.yaml", "ci.yaml")
    assert code == 0, out
    assert "Passed" in out
    code, out = run_hook(
        sample, precommit_home, kartalint_clone, "kartalint-lint", "catalog/good.yaml", "catalog/broken.yaml"
    )
    assert code == 1, out
    assert "Failed" in out
    assert "catalog/broken.yaml:" in out and "unknown-owner-ref" in out


@pytest.mark.slow
def test_a_staged_file_named_like_an_option_is_linted_by_the_hook(sample, precommit_home, kartalint_clone):
    """The hook's `args: ["--"]`: a staged `-o.yaml` holding a broken definition is linted and
    blocks the commit (without `--`, pre-commit's `kartalint lint --allow-empty -o.yaml` read it as
    `-o .yaml`: the whole project linted, the report written to `.yaml`, green)."""
    git(sample, "rm", "-q", "--cached", "catalog/broken.yaml")
    (sample / "catalog" / "broken.yaml").unlink()
    (sample / "-o.yaml").write_text(BROKEN)
    git(sample, "add", "--", "-o.yaml")
    code, out = run_hook(sample, precommit_home, kartalint_clone, "kartalint-lint")  # (--all-files: pre-commit's own
    # --files reads -o.yaml as an option too)
    assert code == 1, out
    assert "-o.yaml:" in out and "unknown-owner-ref" in out
    assert not (sample / ".yaml").exists()


@pytest.mark.slow
def test_test_hook_runs_the_fixtures(sample, precommit_home, kartalint_clone):
    fixture = running_trainer_fixture("f", "../catalog/good.yaml")
    (sample / "fixtures").mkdir()
    (sample / "fixtures" / "f.yaml").write_text(yaml.safe_dump(fixture))
    git(sample, "add", "-A")
    code, out = run_hook(sample, precommit_home, kartalint_clone, "kartalint-test")
    assert code == 0, out
    fixture["expect"]["statuses"] = ["Failed"]
    (sample / "fixtures" / "f.yaml").write_text(yaml.safe_dump(fixture))
    git(sample, "add", "-A")
    code, out = run_hook(sample, precommit_home, kartalint_clone, "kartalint-test")
    assert code == 1 and 'statuses: expected ["Failed"], got ["Running"]' in out, out


# -- end to end: a user's repository, `kartalint init`, real hooks from a clone of this repository ---------------


def commit(repo, home, message):
    env = dict(
        os.environ,
        PRE_COMMIT_HOME=home,
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.com",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.com",
    )
    env.pop("CI", None)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True, env=env)
    proc = subprocess.run(
        ["git", "commit", "-m", message], cwd=repo, capture_output=True, text=True, env=env, timeout=900
    )
    return proc.returncode, proc.stdout + proc.stderr


@pytest.mark.slow
@pytest.mark.parametrize("layout", ["definitions", "catalog"])
def test_user_repository_end_to_end(layout, tmp_path, kartalint_clone, precommit_home):
    from test_action import run_action

    clone, rev = kartalint_clone
    repo = tmp_path / "user"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    crd = os.path.join(REFERENCE, "crds", "kubeflow.org_pytorchjobs.yaml")
    kartalint = [sys.executable, "-m", "kartalint"]
    init = subprocess.run(
        [*kartalint, "init", "--crd", crd, "--layout", layout, "--hooks-repo", clone, "--rev", rev],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "Next steps:" in init.stdout
    definitions_dir, fixtures_dir = {"definitions": ("definitions", "definitions"), "catalog": ("catalog", "fixtures")}[
        layout
    ]
    definition = repo / definitions_dir / "kubeflow-org-pytorchjob-v1.yaml"
    # the author's edit of the draft: the real pod label of the role and the condition types the
    # controller writes for each status (the CRD names none: the draft has a placeholder per status),
    # then the header that marks the file as a draft goes (until then `draft-placeholder` fails the hook)
    reviewed = definition.read_text().replace("TODO/replica", "training.kubeflow.org/replica-type")
    for status, condition in {
        "initializing": "Restarting",
        "running": "Running",
        "completed": "Succeeded",
        "failed": "Failed",
        "suspended": "Suspended",  # training-operator's JobSuspended (the draft maps a suspend since issue 42)
    }.items():
        reviewed = reviewed.replace(f"TODO-{status}", condition)
    definition.write_text(
        reviewed.replace("# Draft generated by `kartalint new --crd`", "# Written from `kartalint new --crd`")
    )
    # a fixture from a real object, written by `kartalint new fixture`
    with open(
        os.path.join(ROOT, "fixtures", "kubeflow-org-pytorchjob-v1", "failed-failed-v1_9_4.yaml"), encoding="utf-8"
    ) as handle:
        real = yaml.safe_load(handle)["object"]
    (tmp_path / "job.yaml").write_text(yaml.safe_dump(real))
    target = repo / fixtures_dir / "kubeflow-org-pytorchjob-v1" / "failed.yaml"
    subprocess.run(
        [*kartalint, "new", "fixture", str(tmp_path / "job.yaml"), "-o", str(target)],
        cwd=repo,
        check=True,
        capture_output=True,
    )
    # `kartalint test` without flags tests the repository's definition (not the bundled PyTorchJob)
    proc = subprocess.run([*kartalint, "test", "-f", "json"], cwd=repo, capture_output=True, text=True)
    cases = json.loads(proc.stdout)["cases"]
    assert proc.returncode == 0 and {c["definition"] for c in cases} == {
        f"{definitions_dir}/kubeflow-org-pytorchjob-v1.yaml"
    }, proc.stdout
    env = dict(os.environ, PRE_COMMIT_HOME=precommit_home)
    env.pop("CI", None)
    subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=repo, check=True, capture_output=True, env=env)
    code, out = commit(repo, precommit_home, "kartalint set up")
    assert code == 0, out
    assert "kartalint lint" in out and "kartalint test" in out and "Passed" in out
    # a change of the definition that breaks the fixture is blocked, with the field diff
    # (the draft folds a long expression at spaces: `(.replicas` and `// 1)` may be on two lines)
    doubled = re.sub(r"\(\.replicas\s+//\s+1\)", "(.replicas // 1) * 2", definition.read_text())
    assert doubled != definition.read_text()
    definition.write_text(doubled)
    code, out = commit(repo, precommit_home, "double every role")
    assert code == 1, out
    assert "replica[Master].replicas: expected 1, got 2" in out
    # the same broken definition fails the Action's steps
    code, logs, outputs = run_action(repo, {}, tmp_path / "summary.md")
    assert code == 1 and outputs["failed"] == "true" and "kartalint test" in logs["verdict"]
    subprocess.run(["git", "checkout", "HEAD", "--", str(definition)], cwd=repo, check=True)
    # unrelated YAML (a Helm template, CloudFormation with !Ref) passes the lint hook
    (repo / "charts" / "templates").mkdir(parents=True)
    (repo / "charts" / "templates" / "deployment.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n"
    )
    (repo / "stack.yaml").write_text(
        "Resources:\n  Bucket:\n    Type: AWS::S3::Bucket\n    Properties:\n      BucketName: !Ref Name\n"
    )
    code, out = commit(repo, precommit_home, "unrelated YAML")
    assert code == 0, out


@pytest.mark.slow
def test_a_repository_with_legacy_findings_adopts_with_a_baseline_and_real_hooks(
    tmp_path, kartalint_clone, precommit_home
):
    """Issue 48 with real pre-commit: the adoption of docs/ci.md (`init` with the hooks of the
    clone, `--write-baseline`, `baseline:`) is one commit the hooks let through; a commit that adds
    a finding is blocked with that finding alone, and the test hook prints no PASS line."""
    from legacy_repo import make_legacy_repo

    clone, rev = kartalint_clone
    repo = make_legacy_repo(tmp_path / "legacy", config=False)
    kartalint = [sys.executable, "-m", "kartalint"]
    subprocess.run([*kartalint, "init", "--hooks-repo", clone, "--rev", rev], cwd=repo, check=True, capture_output=True)
    subprocess.run(
        [*kartalint, "lint", "--write-baseline", ".kartalint-baseline.json"], cwd=repo, check=True, capture_output=True
    )
    with open(repo / ".kartalint.yaml", "a", encoding="utf-8") as handle:
        handle.write("baseline: .kartalint-baseline.json\n")
    env = dict(os.environ, PRE_COMMIT_HOME=precommit_home)
    env.pop("CI", None)
    subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=repo, check=True, capture_output=True, env=env)
    code, out = commit(repo, precommit_home, "kartalint: adopt, with a baseline of today's findings")
    assert code == 0 and out.count("Passed") == 2, out
    definition = repo / "definitions" / "jobset-x-k8s-io-jobset-v1alpha2.yaml"
    definition.write_text(
        definition.read_text().replace('- type: Failed\n              status: "True"', "- type: Failed")
    )
    code, out = commit(repo, precommit_home, "match a Failed condition of any status")
    assert code == 1, out
    findings = [line for line in out.splitlines() if line.startswith("definitions/")]
    assert len(findings) == 1 and "condition-without-expectation" in findings[0], out
    assert "2 in the baseline" in out and "PASS" not in out  # the changed file's two recorded findings


@pytest.mark.slow
def test_a_teams_repository_hooks_diff_and_action_agree(tmp_path, kartalint_clone, precommit_home):
    """Issue 28: in a team's repository (definitions, fixtures, a Helm chart rendering a Karta,
    CloudFormation, a GitHub workflow, a rule off, an exclude), real pre-commit on every file, `kartalint
    diff` and the Action's steps agree: no red for a file excluded or not a definition, no finding
    the configuration turned off. (The language server on the same repository: tests/test_lsp.py.)"""
    from team_repo import CONFIG, TEAM_DEFINITION, make_team_repo
    from test_action import run_action

    clone, rev = kartalint_clone
    repo = make_team_repo(tmp_path / "team", commit=False)
    (repo / ".pre-commit-config.yaml").write_text(
        yaml.safe_dump(
            {
                "repos": [
                    {
                        "repo": clone,
                        "rev": rev,
                        "hooks": [{"id": "kartalint-lint", "args": ["--strict"]}, {"id": "kartalint-test"}],
                    }
                ]
            }
        )
    )
    git(repo, "add", "-A")
    env = dict(os.environ, PRE_COMMIT_HOME=precommit_home)
    env.pop("CI", None)

    def pre_commit_all():
        proc = subprocess.run(
            [sys.executable, "-m", "pre_commit", "run", "--all-files", "--verbose"],
            cwd=repo,
            capture_output=True,
            text=True,
            env=env,
            timeout=900,
        )
        return proc.returncode, proc.stdout + proc.stderr

    code, out = pre_commit_all()
    assert code == 0, out
    assert out.count("Passed") == 2 and "Failed" not in out
    assert "yaml-syntax-error" not in out and "crd-optional-iteration" not in out and "scale-path" not in out
    assert commit(repo, precommit_home, "the team's repository")[0] == 0
    # a change of the definition: diff and the Action's steps see the same files as the hooks
    definition = repo / "definitions" / "trainer.yaml"
    definition.write_text(TEAM_DEFINITION.replace(".replicas * 2", ".replicas * 3"))
    proc = subprocess.run(
        [sys.executable, "-m", "kartalint", "diff", "--base", "HEAD", "-f", "json"],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert [d["path"] for d in doc["definitions"]] == ["definitions/trainer.yaml"] and doc["problems"] == []
    assert doc["definitions"][0]["lint"] == {"new": [], "fixed": []}
    assert doc["changes"][0]["workload"] == "fixtures/example-com-trainer-v1/running.yaml"
    definition.write_text(TEAM_DEFINITION)
    code, logs, outputs = run_action(repo, {"diff-base": "HEAD"}, tmp_path / "summary.md")
    assert code == 0 and outputs["failed"] == "false", logs
    assert "::error" not in "".join(logs.values())
    # without the exclude, the chart's template is a note, not a failure, for the hook and the Action
    (repo / ".kartalint.yaml").write_text(CONFIG.replace("exclude:\n  - charts/\n", ""))
    code, out = pre_commit_all()
    assert code == 0 and "yaml-template" in out, out
    code, logs, outputs = run_action(repo, {"diff-base": "HEAD"}, tmp_path / "summary2.md")
    assert code == 0 and outputs["failed"] == "false", logs


@pytest.mark.slow
def test_a_commit_that_only_deletes_a_definition_skips_the_test_hook_unless_always_run(
    tmp_path, kartalint_clone, precommit_home
):
    """pre-commit passes no deleted file, so a commit that only deletes a definition its fixtures
    use skips `kartalint-test` ("no files to check") and commits green; docs/ci.md says so and gives
    the remedies: the Action's (or `pre-commit run kartalint-test --all-files`) in CI, which fails,
    or `always_run: true` on the hook, which blocks the commit (at the cost of the fixtures on every
    commit: the hook does not set it)."""
    with open(os.path.join(ROOT, "docs", "ci.md"), encoding="utf-8") as handle:
        page = " ".join(handle.read().split())
    assert "**A commit that only deletes files skips `kartalint-test`.**" in page
    assert "`pre-commit run kartalint-test --all-files`" in page and "always_run: true" in page
    with open(os.path.join(ROOT, ".pre-commit-hooks.yaml"), encoding="utf-8") as handle:
        assert "always_run" not in {key for hook in yaml.safe_load(handle) for key in hook}
    clone, rev = kartalint_clone
    repo = tmp_path / "user"
    (repo / "definitions").mkdir(parents=True)
    (repo / "definitions" / "trainer.yaml").write_text(BASE_DEFINITION)
    fixture = running_trainer_fixture("running", "../definitions/trainer.yaml")
    (repo / "fixtures").mkdir()
    (repo / "fixtures" / "running.yaml").write_text(yaml.safe_dump(fixture))
    hook: dict = {"id": "kartalint-test"}
    (repo / ".pre-commit-config.yaml").write_text(
        yaml.safe_dump({"repos": [{"repo": clone, "rev": rev, "hooks": [hook]}]})
    )
    git(repo, "init", "-q", "-b", "main")
    env = dict(os.environ, PRE_COMMIT_HOME=precommit_home)
    env.pop("CI", None)
    subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=repo, check=True, capture_output=True, env=env)
    code, out = commit(repo, precommit_home, "a definition and its fixture")
    assert code == 0 and "kartalint test (golden fixtures)" in out and "Passed" in out, out
    (repo / "definitions" / "trainer.yaml").unlink()
    code, out = commit(repo, precommit_home, "drop the definition")
    assert code == 0 and "(no files to check)Skipped" in out, out  # the limitation docs/ci.md states
    code, out = run_hook(repo, precommit_home, kartalint_clone, "kartalint-test")  # CI: --all-files
    assert code == 1 and "trainer.yaml does not exist" in out, out
    git(repo, "checkout", "-q", "HEAD~1", "--", "definitions/trainer.yaml")
    hook["always_run"] = True
    (repo / ".pre-commit-config.yaml").write_text(
        yaml.safe_dump({"repos": [{"repo": clone, "rev": rev, "hooks": [hook]}]})
    )
    code, out = commit(repo, precommit_home, "restore it, the test hook on every commit")
    assert code == 0, out
    (repo / "definitions" / "trainer.yaml").unlink()
    code, out = commit(repo, precommit_home, "drop the definition again")
    assert code == 1 and "trainer.yaml does not exist" in out, out  # blocked
