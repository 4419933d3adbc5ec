"""House rules in every output and in CI: SARIF (valid against the 2.1.0 schema, with the house
rules' descriptors), GitHub annotations, JUnit (`expect.lint` naming a house rule), and, tried as a
new user would, an organisation's base configuration of three house rules (a git repository of its
own) that a team repository has as a git submodule and extends: the Action's steps and real
pre-commit block a definition that breaks one, with the house rule's message and hint."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
import yaml
from conftest import BASE_DEFINITION, ROOT, git, run_cli, trainer_object
from test_action import run_action
from test_ci_outputs import assert_valid_junit, assert_valid_sarif
from test_house_rules import UNITS, line_of, make_project
from test_precommit import kartalint_clone, precommit_home  # noqa: F401 (the fixtures, shared with its tests)

ACME = os.path.join(ROOT, "tests", "data", "house-rules", "acme-base")
THREE = ("acme-role-selector", "acme-no-gpu-limits", "acme-gang-for-completion")


def test_sarif_describes_house_rules_and_is_valid(tmp_path):
    config = UNITS + "  - id: acme-broken\n    for-each: definition\n    when: input\n    message: m\n"
    project = make_project(tmp_path / "p", config)
    code, out, err = run_cli(["lint", "--format", "sarif", "def.yaml"], cwd=project)
    assert code == 1, err
    document = json.loads(out)
    assert_valid_sarif(document)
    run = document["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    by_id = {rule["id"]: index for index, rule in enumerate(rules)}
    component = rules[by_id["acme-component"]]
    assert component["defaultConfiguration"]["level"] == "error" and "helpUri" not in component
    assert (
        "Why: components matter" in component["help"]["text"] and "Fix: fix the component" in component["help"]["text"]
    )
    assert "components matter" in component["fullDescription"]["text"]
    assert ".kartalint.yaml" in component["help"]["text"]
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    failed = [r for r in run["results"] if r["ruleId"] == "house-rule-failed"]
    assert len(failed) == 1
    location = failed[0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == ".kartalint.yaml" and location["region"]["startLine"] == line_of(
        config, "when: input"
    )
    assert {r["ruleId"] for r in run["results"]} == {
        "acme-definition",
        "acme-component",
        "acme-status",
        "acme-expression",
        "house-rule-failed",
    }


def test_github_annotations_carry_the_message_and_the_hint(tmp_path, monkeypatch):
    project = make_project(tmp_path / "p", UNITS)
    monkeypatch.setenv("GITHUB_WORKSPACE", str(project))
    _code, out, _ = run_cli(["lint", "--format", "github", "def.yaml"], cwd=project)
    worker = next(line for line in out.splitlines() if "childComponents.0" in line)
    line = line_of(BASE_DEFINITION, "- name: worker")
    assert worker.startswith(
        f"::error file=def.yaml,line={line},col=7,endLine={line},endColumn=11,title=kartalint acme-component::"
    )
    assert worker.endswith(
        "component worker of example-com-trainer-v1 at spec.structureDefinition.childComponents.0%0Ahint: fix the component"
    )


def test_junit_names_a_house_rule_that_expect_lint_pins(tmp_path):
    project = make_project(tmp_path / "p", UNITS + "definitions: [def.yaml]\n")
    fixture = {
        "apiVersion": "kartalint/v1",
        "kind": "KartaFixture",
        "name": "running",
        "source": "test",
        "definition": "../def.yaml",
        "object": trainer_object(),
        "expect": {"statuses": ["Running"], "lint": ["acme-component", "acme-definition", "acme-expression"]},
    }
    (project / "fixtures").mkdir()
    (project / "fixtures" / "f.yaml").write_text(yaml.safe_dump(fixture))
    code, _, err = run_cli(["test", "fixtures", "--junit-xml", "pass.xml"], cwd=project)
    assert code == 0, err
    assert_valid_junit(project / "pass.xml")
    fixture["expect"]["lint"] = ["acme-definition", "acme-expression"]
    (project / "fixtures" / "f.yaml").write_text(yaml.safe_dump(fixture))
    code, _, _ = run_cli(["test", "fixtures", "--junit-xml", "fail.xml"], cwd=project)
    assert code == 1
    assert_valid_junit(project / "fail.xml")
    failure = (project / "fail.xml").read_text()
    assert "acme-component" in failure and "fixture-mismatch" in failure


# -- tried as a new user: an organisation's base, a team repository, the Action, real pre-commit ----------------


def organisation_base(folder):
    """Acme's base configuration with three of its house rules (and their examples), as the
    organisation publishes it: a git repository of its own."""
    shutil.copytree(ACME, folder)
    text = (folder / "kartalint-base.yaml").read_text()
    head, *entries = text.split("\n  - id: ")
    kept = [entry for entry in entries if entry.split("\n", 1)[0] in THREE]
    (folder / "kartalint-base.yaml").write_text("\n  - id: ".join([head, *kept]).rstrip() + "\n")
    for name in os.listdir(folder / "examples"):
        if name not in THREE:
            shutil.rmtree(folder / "examples" / name)
    shutil.rmtree(folder / "README.md", ignore_errors=True)
    git(folder, "init", "-q", "-b", "main")
    git(folder, "add", "-A")
    git(folder, "commit", "-qm", "Acme's house rules")
    return folder


def team_repository(folder, base):
    """A team repository: the organisation's base as a git submodule, extended; two definitions that
    follow the house rules."""
    folder.mkdir()
    git(folder, "init", "-q", "-b", "main")
    git(folder, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(base), "platform/kartalint-base")
    (folder / ".kartalint.yaml").write_text(
        "extends: platform/kartalint-base/kartalint-base.yaml\ndefinitions: [definitions]\n"
    )
    (folder / "definitions").mkdir()
    shutil.copyfile(
        os.path.join(ACME, "examples", "acme-role-selector", "good.yaml"), folder / "definitions" / "pytorchjob.yaml"
    )
    shutil.copyfile(
        os.path.join(ACME, "examples", "acme-gang-for-completion", "good.yaml"), folder / "definitions" / "job.yaml"
    )
    git(folder, "add", "-A")
    git(folder, "commit", "-qm", "the team's definitions")
    return folder


BROKEN_SPARK = os.path.join(ACME, "examples", "acme-no-gpu-limits", "bad.yaml")
MESSAGE = "resourcesPath counts GPUs from limits"
HINT = "read GPUs from the requests (our admission webhook copies GPU limits into requests)"


def test_a_team_extending_the_organisation_base_is_blocked_by_the_actions_steps(tmp_path):
    base = organisation_base(tmp_path / "acme-kartalint-base")
    repo = team_repository(tmp_path / "team", base)
    code, out, _err = run_cli(["rules"], cwd=repo)
    assert out.split("\nhouse rules:\n")[1].count("(for each") == 3
    assert "platform/kartalint-base/kartalint-base.yaml:6)" in out
    code, logs, outputs = run_action(repo, {}, tmp_path / "summary.md")
    assert code == 0 and outputs["failed"] == "false", logs
    assert "3 rule(s) checked: 3 passed, 0 failed" in logs["house-rules"]
    shutil.copyfile(BROKEN_SPARK, repo / "definitions" / "spark.yaml")
    code, logs, outputs = run_action(repo, {}, tmp_path / "summary.md")
    assert code == 1 and outputs["failed"] == "true" and "kartalint lint" in logs["verdict"]
    annotation = next(line for line in logs["lint"].splitlines() if "acme-no-gpu-limits" in line)
    assert annotation.startswith("::error file=definitions/spark.yaml,line=37,")
    assert annotation.endswith(f"::{MESSAGE}%0Ahint: {HINT}")
    with open(outputs["sarif"], encoding="utf-8") as handle:
        sarif = json.load(handle)
    assert_valid_sarif(sarif)
    lint_run = next(r for r in sarif["runs"] if r["automationDetails"]["id"] == "kartalint/lint/")
    assert [r["ruleId"] for r in lint_run["results"]] == ["acme-no-gpu-limits"]
    # a house rule whose example no longer shows it: the check step fails, at the example
    os.remove(repo / "definitions" / "spark.yaml")
    bad = repo / "platform" / "kartalint-base" / "examples" / "acme-gang-for-completion" / "bad.yaml"
    good = (repo / "platform" / "kartalint-base" / "examples" / "acme-gang-for-completion" / "good.yaml").read_text()
    bad.write_text(good.replace("  name: batch-job-v1\n", "  name: batch-job-v1  # <- here\n"))
    code, logs, outputs = run_action(repo, {}, tmp_path / "summary.md")
    assert code == 1 and "kartalint rules --check" in logs["verdict"]
    assert (
        "::error file=platform/kartalint-base/examples/acme-gang-for-completion/bad.yaml,line=6,col=1,"
        "title=kartalint rules --check acme-gang-for-completion::the bad example does not raise acme-gang-for-completion"
    ) in logs["house-rules"]


pytestmark_precommit = pytest.mark.skipif(
    not os.path.exists(os.path.join(ROOT, ".git")) or shutil.which("git") is None,
    reason="needs this project as a git checkout (the hooks come from a clone of it)",
)


@pytest.mark.slow
@pytestmark_precommit
def test_real_pre_commit_blocks_a_definition_that_breaks_a_house_rule(tmp_path, kartalint_clone, precommit_home):  # noqa: F811
    from test_precommit import commit

    clone, rev = kartalint_clone
    base = organisation_base(tmp_path / "acme-kartalint-base")
    repo = team_repository(tmp_path / "team", base)
    (repo / ".pre-commit-config.yaml").write_text(
        yaml.safe_dump(
            {
                "repos": [
                    {
                        "repo": clone,
                        "rev": rev,
                        "hooks": [{"id": "kartalint-lint"}, {"id": "kartalint-house-rules"}],
                    }
                ]
            }
        )
    )
    env = dict(os.environ, PRE_COMMIT_HOME=precommit_home)
    env.pop("CI", None)
    subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=repo, check=True, capture_output=True, env=env)
    code, out = commit(repo, precommit_home, "pre-commit")
    assert code == 0, out
    assert "kartalint rules --check" in out and "Passed" in out
    shutil.copyfile(BROKEN_SPARK, repo / "definitions" / "spark.yaml")
    code, out = commit(repo, precommit_home, "a SparkApplication")
    assert code == 1, out
    assert f"definitions/spark.yaml:37:26: error acme-no-gpu-limits {MESSAGE}" in out
    assert f"hint: {HINT}" in out
    # the fix passes
    shutil.copyfile(
        os.path.join(ACME, "examples", "acme-no-gpu-limits", "good.yaml"), repo / "definitions" / "spark.yaml"
    )
    code, out = commit(repo, precommit_home, "a SparkApplication, GPUs from requests")
    assert code == 0, out


def test_a_definition_of_the_base_definition_passes_the_team_rules(tmp_path):
    """The base of the tests (conftest's BASE_DEFINITION) breaks Acme's rules: a team repository
    that extends the base sees it, and the base's own rules check passes."""
    base = organisation_base(tmp_path / "acme-kartalint-base")
    repo = team_repository(tmp_path / "team", base)
    (repo / "definitions" / "trainer.yaml").write_text(BASE_DEFINITION)
    code, out, _ = run_cli(["lint", "-q", "definitions/trainer.yaml"], cwd=repo)
    assert (
        code == 1
        and "acme-role-selector role worker does not select its pods by the team.example.com/role label" in out
    )
    code, out, _ = run_cli(["rules", "--check"], cwd=repo)
    assert code == 0 and out.count("PASS ") == 3
