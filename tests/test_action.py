"""The GitHub Action (action.yml): its shell steps run one by one against a sample repository,
as the runner would run them (inputs and github.action_path substituted into each step's env)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
import yaml
from conftest import BASE_DEFINITION, ROOT, git

BROKEN = BASE_DEFINITION.replace("ownerRef: trainer", "ownerRef: nobody")
FIXTURE = {
    "apiVersion": "kartalint/v1",
    "kind": "KartaFixture",
    "name": "f",
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
COMMAND = re.compile(
    r"^::(error|warning|notice) file=[^,]+,line=\d+,col=\d+,endLine=\d+,endColumn=\d+,title=[^:]+::.+$"
)


def load_action():
    with open(os.path.join(ROOT, "action.yml"), encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def substitute(value, inputs, outputs=None):
    def repl(match):
        expr = match.group(1).strip()
        if expr == "github.action_path":
            return ROOT
        if expr.startswith("inputs."):
            return str(inputs[expr[len("inputs.") :]])
        step = re.match(r"^steps\.([\w-]+)\.outputs\.([\w-]+)$", expr)
        if step and outputs is not None:
            return outputs.get(step.group(1), {}).get(step.group(2), "")
        raise AssertionError(f"unexpected expression {expr}")

    return re.sub(r"\$\{\{(.*?)\}\}", repl, str(value))


def run_action(repo, overrides, summary, runner_temp=None):
    """Run the action's shell steps as the runner would; returns (exit code, logs by step, action outputs)."""
    action = load_action()
    inputs = {name: spec.get("default", "") for name, spec in action["inputs"].items()}
    inputs.update(overrides)
    runner_temp = runner_temp or repo.parent / "runner-temp"
    runner_temp.mkdir(exist_ok=True)
    # setup-python puts `python` on the PATH and the install step `kartalint`; so does this, for the
    # interpreter running the tests (whether or not its virtual environment is activated)
    tool_bin = repo.parent / "tool-bin"
    tool_bin.mkdir(exist_ok=True)
    for name, command in (("python", ""), ("kartalint", " -m kartalint")):
        wrapper = tool_bin / name
        if not wrapper.exists():
            # a wrapper, not a symbolic link: a virtual environment's interpreter reached through a link
            # elsewhere no longer finds its environment (pyvenv.cfg is looked up next to the link)
            wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}"{command} "$@"\n')
            wrapper.chmod(0o755)
    logs, outputs = {}, {}
    code = 0
    for step in action["runs"]["steps"]:
        if "run" not in step or step.get("id") == "install":
            continue  # `uses:` steps are GitHub's; the install step is exercised by the pre-commit test
        output_file = runner_temp / f"output-{step['id']}"
        output_file.write_text("")
        env = dict(
            os.environ,
            RUNNER_TEMP=str(runner_temp),
            GITHUB_STEP_SUMMARY=str(summary),
            GITHUB_ACTIONS="true",
            GITHUB_OUTPUT=str(output_file),
            PATH=f"{tool_bin}{os.pathsep}{os.environ.get('PATH', '')}",
        )
        env.pop("CI", None)
        env.update({k: substitute(v, inputs, outputs) for k, v in (step.get("env") or {}).items()})
        proc = subprocess.run(
            ["bash", "-e", "-c", step["run"]], cwd=repo, env=env, capture_output=True, text=True, timeout=300
        )
        logs[step["id"]] = proc.stdout + proc.stderr
        outputs[step["id"]] = dict(line.split("=", 1) for line in output_file.read_text().splitlines() if "=" in line)
        code = proc.returncode
        if code != 0:
            break
    values = {name: substitute(spec["value"], inputs, outputs) for name, spec in action["outputs"].items()}
    return code, logs, values


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
    assert ids[1:] == ["setup", "install", "sarif", "lint", "test", "diff", "explore", "sarif-file", "verdict"]
    assert set(action["outputs"]) == {"sarif", "junit", "failed"}
    for step in action["runs"]["steps"]:
        if "run" in step:
            assert "${{" not in step["run"], "inputs reach scripts only through env (no script injection)"
            assert step["shell"] == "bash"


def test_clean_repository_passes_and_writes_junit_sarif_and_summary(sample, tmp_path):
    summary = tmp_path / "summary.md"
    (sample / "catalog" / "trainer.yaml").write_text(
        BASE_DEFINITION.replace(
            "replicasPath: .spec.roles[] | (.replicas // 1)", "replicasPath: .spec.roles[] | (.replicas // 1) * 2"
        )
    )
    code, logs, outputs = run_action(sample, {"paths": "catalog", "sarif": "out.sarif", "diff-base": "main"}, summary)
    assert code == 0, logs
    assert outputs["failed"] == "false" and outputs["sarif"] == "out.sarif"
    assert outputs["junit"].startswith(str(sample.parent / "runner-temp")), "the action's files go under $RUNNER_TEMP"
    assert not (sample / "kartalint-junit.xml").exists()
    suites = ET.parse(outputs["junit"]).getroot()
    assert suites.tag == "testsuites" and suites.get("tests") == "1" and suites.get("failures") == "0"
    sarif = json.loads((sample / "out.sarif").read_text())
    assert sarif["version"] == "2.1.0" and sarif["runs"][0]["tool"]["driver"]["name"] == "kartalint"
    assert sarif["runs"][0]["results"] == []
    text = summary.read_text()
    assert text.startswith("## kartalint diff") and "definition file(s) changed (modified)" in text


def test_broken_definition_gives_annotations_and_fails_at_the_end(sample, tmp_path):
    (sample / "catalog" / "broken.yaml").write_text(BROKEN)
    code, logs, outputs = run_action(sample, {"paths": "catalog", "sarif": "out.sarif"}, tmp_path / "summary.md")
    assert code == 1 and outputs["failed"] == "true"
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
    code, logs, outputs = run_action(sample, {"paths": "catalog"}, tmp_path / "summary.md")
    assert code == 1 and "kartalint test" in logs["verdict"]
    failures = ET.parse(outputs["junit"]).getroot().findall(".//failure")
    assert failures[0].get("message") == 'statuses: expected ["Failed"], got ["Running"]'
    # the failing field is an annotation at its line in the fixture, titled with the case
    line = (sample / "fixtures" / "f.yaml").read_text().splitlines().index("  statuses:") + 1
    annotation = [a for a in logs["test"].splitlines() if a.startswith("::error ")]
    assert annotation == [
        f"::error file=fixtures/f.yaml,line={line},col=3,title=kartalint test%3A f::"
        'statuses: expected ["Failed"], got ["Running"]'
    ], logs["test"]


def test_failure_marker_is_reset_on_every_use(sample, tmp_path):
    runner_temp = tmp_path / "shared-runner-temp"
    (sample / "catalog" / "broken.yaml").write_text(BROKEN)
    code, _, _ = run_action(sample, {}, tmp_path / "summary.md", runner_temp)
    assert code == 1
    (sample / "catalog" / "broken.yaml").unlink()
    code, logs, outputs = run_action(sample, {}, tmp_path / "summary.md", runner_temp)
    assert code == 0 and outputs["failed"] == "false", logs  # an earlier failure in the same job does not leak


def test_defaults_test_the_projects_definitions(tmp_path):
    """No inputs: the project's layout (.kartalint.yaml) decides what is linted and tested."""
    repo = tmp_path / "user"
    (repo / "definitions" / "example-trainer").mkdir(parents=True)  # named after the definition's metadata.name
    (repo / "definitions" / "trainer.yaml").write_text(
        BASE_DEFINITION.replace("name: example-com-trainer-v1", "name: example-trainer")
    )
    fixture = {k: v for k, v in FIXTURE.items() if k != "definition"}
    (repo / "definitions" / "example-trainer" / "running.yaml").write_text(yaml.safe_dump(fixture))
    (repo / ".kartalint.yaml").write_text("definitions: [definitions]\nfixtures: [definitions]\n")
    (repo / "helm").mkdir()
    (repo / "helm" / "deployment.yaml").write_text("kind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n")
    git(repo, "init", "-q", "-b", "main")
    code, logs, outputs = run_action(repo, {}, tmp_path / "summary.md")
    assert code == 0, logs
    assert "1 passed" in logs["test"]
    fixture["expect"] = {"statuses": ["Failed"]}
    (repo / "definitions" / "example-trainer" / "running.yaml").write_text(yaml.safe_dump(fixture))
    code, logs, outputs = run_action(repo, {}, tmp_path / "summary.md")
    assert code == 1 and outputs["failed"] == "true" and "kartalint test" in logs["verdict"]
    assert "file=definitions/example-trainer/running.yaml" in logs["test"]


def test_failing_lint_and_failing_fixture_give_sarif_junit_and_annotations_in_one_run(sample, tmp_path):
    from test_ci_outputs import assert_valid_sarif

    (sample / "catalog" / "broken.yaml").write_text(BROKEN.replace("example-com-trainer-v1", "broken"))
    (sample / "fixtures" / "f.yaml").write_text(yaml.safe_dump(dict(FIXTURE, expect={"statuses": ["Failed"]})))
    code, logs, outputs = run_action(sample, {"definitions": "catalog", "sarif": "out.sarif"}, tmp_path / "summary.md")
    assert code == 1 and outputs["failed"] == "true"
    assert "kartalint lint" in logs["verdict"] and "kartalint test" in logs["verdict"]
    lint_notes = [line for line in logs["lint"].splitlines() if line.startswith("::error")]
    test_notes = [line for line in logs["test"].splitlines() if line.startswith("::error")]
    assert any("file=catalog/broken.yaml" in line and "unknown-owner-ref" in line for line in lint_notes)
    assert any("file=fixtures/f.yaml" in line and "statuses: expected" in line for line in test_notes)
    sarif = json.loads((sample / "out.sarif").read_text())
    assert_valid_sarif(sarif)
    runs = {run["automationDetails"]["id"]: run for run in sarif["runs"]}
    assert set(runs) == {"kartalint/lint/", "kartalint/test/"}
    assert any(r["ruleId"] == "unknown-owner-ref" for r in runs["kartalint/lint/"]["results"])
    [mismatch] = runs["kartalint/test/"]["results"]
    assert mismatch["ruleId"] == "fixture-mismatch"
    assert mismatch["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "fixtures/f.yaml"
    failures = ET.parse(outputs["junit"]).getroot().findall(".//failure")
    assert len(failures) == 1 and failures[0].get("type") == "fixture-mismatch"


def test_opt_in_explore_step_fails_on_an_object_the_definition_gets_wrong(tmp_path):
    """explore: "true" runs `kartalint explore` with the configuration's definitions and crds:."""
    repo = tmp_path / "user"
    (repo / "definitions").mkdir(parents=True)
    (repo / "crds").mkdir()
    with open(os.path.join(ROOT, "catalog", "jobset-x-k8s-io-jobset-v1alpha2.yaml"), encoding="utf-8") as handle:
        good = handle.read()
    with open(os.path.join(ROOT, "tests", "data", "reference", "crds", "jobset.x-k8s.io_jobsets.yaml"), "rb") as handle:
        (repo / "crds" / "jobset.yaml").write_bytes(handle.read())
    (repo / ".kartalint.yaml").write_text("definitions: [definitions]\ncrds: [crds]\n")
    (repo / "definitions" / "jobset.yaml").write_text(good)
    git(repo, "init", "-q", "-b", "main")
    code, logs, _ = run_action(repo, {"explore": "true", "sarif": "none"}, tmp_path / "summary.md")
    assert "0 failure(s)" in logs["explore"] and "kartalint explore" not in logs["verdict"]
    (repo / "definitions" / "jobset.yaml").write_text(
        good.replace("(.template.spec.parallelism // 1)", ".template.spec.parallelism")
    )
    code, logs, outputs = run_action(repo, {"explore": "true", "sarif": "none"}, tmp_path / "summary.md")
    assert code == 1 and outputs["failed"] == "true" and "kartalint explore" in logs["verdict"]
    assert "replicatedjob.scaleDefinition.replicasPath" in logs["explore"]
    code, logs, _ = run_action(repo, {"sarif": "none"}, tmp_path / "summary.md")  # off by default
    assert logs["explore"] == "" and "kartalint explore" not in logs["verdict"]
