"""The GitHub Action (action.yml): its shell steps run one by one against a sample repository,
as the runner would run them (inputs and github.action_path substituted into each step's env)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import xml.etree.ElementTree as ET

import pytest
import yaml

from conftest import BASE_DEFINITION, ROOT

BROKEN = BASE_DEFINITION.replace("ownerRef: trainer", "ownerRef: nobody")
FIXTURE = {"apiVersion": "kartalint/v1", "kind": "KartaFixture", "name": "f", "source": "test",
           "object": {"apiVersion": "example.com/v1", "kind": "Trainer", "metadata": {"name": "t"}, "spec": {"roles": []}, "status": {"phase": "Running"}},
           "expect": {"statuses": ["Running"]}}
COMMAND = re.compile(r"^::(error|warning|notice) file=[^,]+,line=\d+,col=\d+,endLine=\d+,endColumn=\d+,title=[^:]+::.+$")


def load_action():
    with open(os.path.join(ROOT, "action.yml"), encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def substitute(value, inputs):
    def repl(match):
        expr = match.group(1).strip()
        if expr == "github.action_path":
            return ROOT
        if expr.startswith("inputs."):
            return str(inputs[expr[len("inputs."):]])
        raise AssertionError(f"unexpected expression {expr}")
    return re.sub(r"\$\{\{(.*?)\}\}", repl, str(value))


def run_action(repo, overrides, summary):
    action = load_action()
    inputs = {name: spec.get("default", "") for name, spec in action["inputs"].items()}
    inputs.update(overrides)
    runner_temp = repo / ".runner-temp"
    runner_temp.mkdir(exist_ok=True)
    logs = {}
    code = 0
    for step in action["runs"]["steps"]:
        if "run" not in step or step.get("id") == "install":
            continue  # `uses:` steps are GitHub's; the install step is exercised by the pre-commit test
        env = dict(os.environ, RUNNER_TEMP=str(runner_temp), GITHUB_STEP_SUMMARY=str(summary), GITHUB_ACTIONS="true")
        env.pop("CI", None)
        env.update({k: substitute(v, inputs) for k, v in (step.get("env") or {}).items()})
        proc = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=repo, env=env, capture_output=True, text=True, timeout=300)
        logs[step["id"]] = proc.stdout + proc.stderr
        code = proc.returncode
        if code != 0:
            break
    return code, logs


def git(repo, *args):
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                   env=dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
                            GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com"))


@pytest.fixture
def sample(tmp_path):
    repo = tmp_path / "sample"
    (repo / "catalog").mkdir(parents=True)
    (repo / "catalog" / "trainer.yaml").write_text(BASE_DEFINITION)
    (repo / "fixtures").mkdir()
    FIXTURE["definition"] = "../catalog/trainer.yaml"
    (repo / "fixtures" / "f.yaml").write_text(yaml.safe_dump(FIXTURE))
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    return repo


def test_action_shape():
    action = load_action()
    assert action["runs"]["using"] == "composite"
    ids = [s.get("id") for s in action["runs"]["steps"]]
    assert ids[1:] == ["install", "sarif", "lint", "test", "diff", "verdict"]
    for step in action["runs"]["steps"]:
        if "run" in step:
            assert "${{" not in step["run"], "inputs reach scripts only through env (no script injection)"
            assert step["shell"] == "bash"


def test_clean_repository_passes_and_writes_junit_sarif_and_summary(sample, tmp_path):
    summary = tmp_path / "summary.md"
    (sample / "catalog" / "trainer.yaml").write_text(BASE_DEFINITION.replace("replicasPath: .spec.roles[] | (.replicas // 1)",
                                                                             "replicasPath: .spec.roles[] | (.replicas // 1) * 2"))
    code, logs = run_action(sample, {"paths": "catalog", "sarif": "out.sarif", "diff-base": "main"}, summary)
    assert code == 0, logs
    suites = ET.parse(sample / "kartalint-junit.xml").getroot()
    assert suites.tag == "testsuites" and suites.get("tests") == "1" and suites.get("failures") == "0"
    sarif = json.loads((sample / "out.sarif").read_text())
    assert sarif["version"] == "2.1.0" and sarif["runs"][0]["tool"]["driver"]["name"] == "kartalint"
    assert sarif["runs"][0]["results"] == []
    text = summary.read_text()
    assert text.startswith("## kartalint diff") and "definition file(s) changed (modified)" in text


def test_broken_definition_gives_annotations_and_fails_at_the_end(sample, tmp_path):
    (sample / "catalog" / "broken.yaml").write_text(BROKEN)
    code, logs = run_action(sample, {"paths": "catalog", "sarif": "out.sarif"}, tmp_path / "summary.md")
    assert code == 1
    annotations = [line for line in logs["lint"].splitlines() if line.startswith("::")]
    assert annotations and all(COMMAND.match(line) for line in annotations), annotations
    assert any("file=catalog/broken.yaml" in line and "unknown-owner-ref" in line for line in annotations)
    assert "::error title=kartalint::failed: kartalint lint" in logs["verdict"]
    assert "1 passed" in logs["test"]  # the fixtures still ran after the lint failure
    results = json.loads((sample / "out.sarif").read_text())["runs"][0]["results"]
    assert any(r["ruleId"] == "unknown-owner-ref" for r in results)
    assert not (tmp_path / "summary.md").exists()  # no diff-base: no job summary


def test_failing_fixture_fails_the_action(sample, tmp_path):
    broken = dict(FIXTURE, expect={"statuses": ["Failed"]})
    (sample / "fixtures" / "f.yaml").write_text(yaml.safe_dump(broken))
    code, logs = run_action(sample, {"paths": "catalog"}, tmp_path / "summary.md")
    assert code == 1 and "kartalint test" in logs["verdict"]
    failures = ET.parse(sample / "kartalint-junit.xml").getroot().findall(".//failure")
    assert failures[0].get("message") == 'statuses: expected ["Failed"], got ["Running"]'
