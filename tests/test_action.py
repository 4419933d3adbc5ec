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


def tool_bin_for(folder):
    """What the setup-python and install steps give the later steps: a folder with `python` and
    `kartalint` (wrapper scripts, not links: a virtual environment's interpreter reached through a
    link elsewhere no longer finds its environment)."""
    tool_bin = folder / "tool-bin"
    tool_bin.mkdir(exist_ok=True)
    for name, command in (("python", ""), ("kartalint", " -m kartalint")):
        wrapper = tool_bin / name
        if not wrapper.exists():
            wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}"{command} "$@"\n')
            wrapper.chmod(0o755)
    return tool_bin


def run_action(repo, overrides, summary, runner_temp=None, only=None, real_install=False):
    """Run the action's shell steps as the runner would; returns (exit code, logs by step, action outputs).

    `uses:` steps are GitHub's: setup-python's output is this interpreter, the cache does nothing.
    The install step is replaced by the kartalint under test unless ``real_install``; ``only``
    limits the run to the steps named."""
    action = load_action()
    inputs = {name: spec.get("default", "") for name, spec in action["inputs"].items()}
    inputs.update(overrides)
    runner_temp = runner_temp or repo.parent / "runner-temp"
    runner_temp.mkdir(exist_ok=True)
    tool_bin = tool_bin_for(repo.parent)
    logs, outputs = {}, {"python": {"python-path": str(tool_bin / "python")}}
    code = 0
    for step in action["runs"]["steps"]:
        if "run" not in step or (only is not None and step["id"] not in only):
            continue
        if step.get("id") == "install" and not real_install:
            outputs["install"] = {"bin": str(tool_bin)}
            continue
        output_file = runner_temp / f"output-{step['id']}"
        output_file.write_text("")
        env = dict(
            os.environ,
            RUNNER_TEMP=str(runner_temp),
            GITHUB_STEP_SUMMARY=str(summary),
            GITHUB_ACTIONS="true",
            GITHUB_WORKSPACE=str(repo),
            GITHUB_OUTPUT=str(output_file),
            PATH=os.environ.get("PATH", ""),
        )
        env.pop("CI", None)
        env.update({k: substitute(v, inputs, outputs) for k, v in (step.get("env") or {}).items()})
        cwd = repo / substitute(step.get("working-directory", "."), inputs, outputs)
        proc = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
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
    assert ids == [
        "python",
        "setup",
        "cache",
        "install",
        "sarif",
        "lint",
        "test",
        "diff",
        "explore",
        "sarif-file",
        "verdict",
    ]
    assert set(action["outputs"]) == {"sarif", "junit", "failed"}
    steps = {step["id"]: step for step in action["runs"]["steps"]}
    # setup-python at its Node 24 major, leaving the caller's `python` alone
    assert steps["python"]["uses"] == "actions/setup-python@v6"
    assert steps["python"]["with"]["update-environment"] is False
    assert (
        steps["cache"]["uses"] == "actions/cache@v5"
        and "steps.setup.outputs.cache-key" in steps["cache"]["with"]["key"]
    )
    for step in action["runs"]["steps"]:
        if "run" in step:
            assert "${{" not in step["run"], "inputs reach scripts only through env (no script injection)"
            assert step["shell"] == "bash"
            assert "|| true" not in step["run"], "a crash is a failure"


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


@pytest.mark.slow  # the Action with explore: ~12 s on two cores
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


def test_paths_with_spaces_one_per_line_and_never_globbed(sample, tmp_path):
    spaced = sample / "team defs"
    spaced.mkdir()
    (spaced / "broken one.yaml").write_text(BROKEN.replace("example-com-trainer-v1", "broken"))
    code, logs, _ = run_action(sample, {"definitions": "catalog\nteam defs\n", "sarif": "none"}, tmp_path / "s.md")
    assert code == 1
    assert "file=team defs/broken one.yaml" in logs["lint"] and "unknown-owner-ref" in logs["lint"], logs["lint"]
    assert "2 file(s)" in logs["lint"]
    # one line: split on whitespace, but a pattern is a path, never expanded by the shell
    code, logs, _ = run_action(sample, {"definitions": "catalog/*", "sarif": "none"}, tmp_path / "s.md")
    assert code == 1 and "catalog/*: no such file or directory" in logs["lint"], logs["lint"]


def test_config_input_and_working_directory_in_a_monorepo(tmp_path):
    """A project in a sub-folder: the steps run there, the configuration named by `config` applies,
    and annotations and SARIF locations are relative to the repository root."""
    repo = tmp_path / "mono"
    project = repo / "teams" / "ml"
    (project / "catalog").mkdir(parents=True)
    (project / "fixtures").mkdir()
    (project / "catalog" / "trainer.yaml").write_text(BROKEN)
    (project / "fixtures" / "f.yaml").write_text(yaml.safe_dump(dict(FIXTURE, definition="../catalog/trainer.yaml")))
    (project / "ci").mkdir()
    (project / "ci" / "kartalint.yaml").write_text("rules:\n  unknown-owner-ref: warning\n")
    (repo / "charts").mkdir()
    (repo / "charts" / "broken.yaml").write_text(BROKEN)  # outside the project: never linted
    git(repo, "init", "-q", "-b", "main")
    inputs = {"working-directory": "teams/ml", "definitions": "catalog", "sarif": "out.sarif", "strict": "false"}
    code, logs, outputs = run_action(repo, dict(inputs, config="ci/kartalint.yaml"), tmp_path / "s.md")
    assert code == 0, logs
    assert "::warning file=teams/ml/catalog/trainer.yaml," in logs["lint"], logs["lint"]
    assert "charts/" not in logs["lint"]
    sarif = json.loads((project / "out.sarif").read_text())
    [result] = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "unknown-owner-ref"]
    assert result["level"] == "warning"
    location = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location["uri"] == "teams/ml/catalog/trainer.yaml"
    assert sarif["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"] == repo.resolve().as_uri() + "/"
    code, logs, outputs = run_action(repo, inputs, tmp_path / "s.md")  # without the configuration: an error
    assert code == 1 and outputs["failed"] == "true" and "::error file=teams/ml/catalog/trainer.yaml," in logs["lint"]
    code, logs, _ = run_action(repo, dict(inputs, config="ci/missing.yaml"), tmp_path / "s.md")
    assert code == 2 and "configuration file not found: ci/missing.yaml" in logs["setup"]


def test_a_configuration_error_fails_and_still_gives_code_scanning_a_run(sample, tmp_path):
    from test_ci_outputs import assert_valid_sarif

    (sample / ".kartalint.yaml").write_text("rules:\n  no-such-rule: off\n")
    code, logs, outputs = run_action(sample, {"sarif": "out.sarif"}, tmp_path / "s.md")
    assert code == 1 and outputs["failed"] == "true"
    assert "kartalint lint (SARIF, exit 2)" in logs["verdict"], logs
    sarif = json.loads((sample / "out.sarif").read_text())
    assert_valid_sarif(sarif)
    [run] = sarif["runs"]
    [invocation] = run["invocations"]
    assert invocation["executionSuccessful"] is False and run["results"] == []
    assert any("unknown rule 'no-such-rule'" in n["message"]["text"] for n in invocation["toolExecutionNotifications"])


def test_constraints_pin_every_dependency_within_its_range():
    from packaging.requirements import Requirement

    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as handle:
        project = tomllib.load(handle)["project"]
    pins: dict[str, list[tuple[str, str]]] = {}
    with open(os.path.join(ROOT, "constraints.txt"), encoding="utf-8") as handle:
        for line in handle:
            if line.strip() and not line.startswith("#"):
                requirement = Requirement(line.strip())
                [spec] = requirement.specifier
                assert spec.operator == "==", line
                pins.setdefault(requirement.name.lower().replace("_", "-"), []).append(
                    (spec.version, str(requirement.marker or ""))
                )
    wanted = project["dependencies"] + project["optional-dependencies"]["explore"]
    wanted += project["optional-dependencies"]["lsp"]
    for text in wanted:
        requirement = Requirement(text)
        if requirement.marker and not requirement.marker.evaluate():
            continue  # e.g. tomli, for Python 3.10 only
        name = requirement.name.lower().replace("_", "-")
        assert name in pins, f"{name} is not pinned in constraints.txt (run .ci/update-constraints)"
        for version, _ in pins[name]:
            assert requirement.specifier.contains(version), (text, version)


@pytest.mark.slow
def test_real_install_step_uses_its_own_environment(sample, tmp_path):
    """The install step as the runner runs it: a virtual environment of its own under
    $RUNNER_TEMP, the pinned dependencies, and the job's `python` untouched."""
    code, logs, _ = run_action(
        sample, {"sarif": "none"}, tmp_path / "s.md", only={"setup", "install", "lint"}, real_install=True
    )
    assert code == 0, logs
    assert f"kartalint {__import__('kartalint').__version__}" in logs["install"]
    venv = sample.parent / "runner-temp" / "kartalint" / "venv"
    assert (venv / "bin" / "kartalint").exists()
    assert "0 error(s)" in logs["lint"]
    frozen = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "freeze"], capture_output=True, text=True, check=True
    ).stdout
    with open(os.path.join(ROOT, "constraints.txt"), encoding="utf-8") as handle:
        pinned = {line.split(";")[0].strip().lower() for line in handle if "==" in line}
    for line in frozen.lower().splitlines():
        if "==" in line and not line.startswith("kartalint"):
            assert line.replace("_", "-") in {p.replace("_", "-") for p in pinned}, line


def test_opt_in_mutants_annotate_survivors_and_fail_below_the_configured_score(tmp_path):
    """mutants: "true" runs `kartalint test --mutants`: survivors are notices, SARIF notes and a JUnit
    case per definition; the configuration's mutants: {min-score} fails the run below it."""
    from test_mutation import DEFINITION, trainer

    repo = tmp_path / "user"
    (repo / "fixtures" / "example-com-trainer-v1").mkdir(parents=True)
    (repo / "def.yaml").write_text(DEFINITION)
    fixture = dict(FIXTURE, object=trainer(), expect={"statuses": ["Running"]})
    fixture.pop("definition", None)
    (repo / "fixtures" / "example-com-trainer-v1" / "running.yaml").write_text(yaml.safe_dump(fixture))
    (repo / ".kartalint.yaml").write_text("definitions: [def.yaml]\nfixtures: [fixtures]\n")
    git(repo, "init", "-q", "-b", "main")
    code, logs, outputs = run_action(repo, {"mutants": "true"}, tmp_path / "summary.md")
    notices = [line for line in logs["test"].splitlines() if line.startswith("::notice file=def.yaml,")]
    assert code == 0 and outputs["failed"] == "false" and len(notices) == 9, logs["test"]
    assert "mutation score 0.25" in logs["test"]
    cases = ET.parse(outputs["junit"]).getroot().findall(".//testcase[@name='mutation score']")
    assert len(cases) == 1 and cases[0].get("classname") == "example-com-trainer-v1"
    with open(outputs["sarif"], encoding="utf-8") as handle:
        runs = {run["automationDetails"]["id"]: run for run in json.load(handle)["runs"]}
    notes = [r for r in runs["kartalint/test/"]["results"] if r["ruleId"] == "mutant-survived"]
    assert len(notes) == 9 and {r["level"] for r in notes} == {"note"}
    (repo / ".kartalint.yaml").write_text("definitions: [def.yaml]\nfixtures: [fixtures]\nmutants: {min-score: 0.8}\n")
    code, logs, outputs = run_action(repo, {"mutants": "true", "sarif": "none"}, tmp_path / "summary.md")
    assert code == 1 and outputs["failed"] == "true" and "kartalint test" in logs["verdict"]
    assert "::error file=def.yaml,line=1,col=1,title=kartalint test%3A --min-mutation-score::" in logs["test"]
    code, logs, outputs = run_action(repo, {"sarif": "none"}, tmp_path / "summary.md")  # off by default
    assert code == 0 and "::notice" not in logs["test"] and "mutation score" not in logs["test"]
