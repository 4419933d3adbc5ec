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
from conftest import BASE_DEFINITION, ROOT, git, running_trainer_fixture
from test_ci_outputs import assert_valid_junit

BROKEN = BASE_DEFINITION.replace("ownerRef: trainer", "ownerRef: nobody")
FIXTURE = running_trainer_fixture("f")
COMMAND = re.compile(
    r"^::(error|warning|notice) file=[^,]+,line=\d+,col=\d+,endLine=\d+,endColumn=\d+,title=[^:]+::.+$"
)


def load_action():
    with open(os.path.join(ROOT, "action.yml"), encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def substitute(value, inputs, outputs=None, context=None):
    def repl(match):
        expr = match.group(1).strip()
        if expr in (context or {}):
            return context[expr]
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


def run_action(
    repo,
    overrides,
    summary,
    runner_temp=None,
    only=None,
    real_install=False,
    cache=None,
    action_ref="",
    env=None,
    context=None,
):
    """Run the action's shell steps as the runner would; returns (exit code, logs by step, action outputs).

    `uses:` steps are GitHub's: setup-python's output is this interpreter; actions/cache/restore and
    actions/cache/save are played with the folder ``cache`` as the store (a key saved there is
    restored, by exact key, to the same path; without ``cache`` nothing is ever restored). The
    install step is replaced by the kartalint under test unless ``real_install``; ``only`` limits
    the run to the steps named; ``action_ref`` is `github.action_ref`; ``env`` is added to the
    runner's environment; ``context`` gives other expressions their value (`github.action_path`:
    this checkout unless given)."""
    action = load_action()
    inputs = {name: spec.get("default", "") for name, spec in action["inputs"].items()}
    inputs.update(overrides)
    runner_temp = runner_temp or repo.parent / "runner-temp"
    runner_temp.mkdir(exist_ok=True)
    tool_bin = tool_bin_for(repo.parent)
    logs, outputs = {}, {"python": {"python-path": str(tool_bin / "python")}}
    context = {"github.action_ref": action_ref, **(context or {})}
    code = 0
    for step in action["runs"]["steps"]:
        if only is not None and step["id"] not in only:
            continue
        if "if" in step and not _condition(step["if"], outputs):
            continue
        if "uses" in step:
            if cache is not None and step["uses"].startswith("actions/cache/"):
                with_ = {k: substitute(v, inputs, outputs, context) for k, v in step["with"].items()}
                outputs[step["id"]] = _play_cache(step["uses"], with_, cache)
            continue
        if step.get("id") == "install" and not real_install:
            outputs["install"] = {"bin": str(tool_bin)}
            continue
        output_file = runner_temp / f"output-{step['id']}"
        output_file.write_text("")
        environment = dict(
            os.environ,
            RUNNER_TEMP=str(runner_temp),
            GITHUB_STEP_SUMMARY=str(summary),
            GITHUB_ACTIONS="true",
            GITHUB_WORKSPACE=str(repo),
            GITHUB_OUTPUT=str(output_file),
            PATH=os.environ.get("PATH", ""),
            **(env or {}),
        )
        environment.pop("CI", None)
        environment.update({k: substitute(v, inputs, outputs, context) for k, v in (step.get("env") or {}).items()})
        cwd = repo / substitute(step.get("working-directory", "."), inputs, outputs, context)
        proc = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            cwd=cwd,
            env=environment,
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


def _condition(expression, outputs):
    """The one kind of `if:` the action has: ``steps.ID.outputs.NAME == 'VALUE'``."""
    found = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+) == '([^']*)'", expression.strip())
    assert found, f"unexpected condition {expression}"
    return outputs.get(found.group(1), {}).get(found.group(2), "") == found.group(3)


def _play_cache(uses, with_, store):
    """actions/cache/restore (exact key) and actions/cache/save, with the folder ``store``."""
    import shutil

    path, saved = with_["path"], store / with_["key"]
    if uses.startswith("actions/cache/restore@"):
        if not saved.is_dir():
            return {"cache-hit": "false", "cache-primary-key": with_["key"]}
        shutil.copytree(saved, path, symlinks=True, dirs_exist_ok=True)
        return {"cache-hit": "true", "cache-primary-key": with_["key"], "cache-matched-key": with_["key"]}
    assert uses.startswith("actions/cache/save@"), uses
    if not saved.exists():  # a key once saved is never overwritten
        shutil.copytree(path, saved, symlinks=True)
    return {}


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
        "save",
        "sarif",
        "lint",
        "house-rules",
        "test",
        "diff",
        "explore",
        "sarif-file",
        "verdict",
    ]
    assert set(action["outputs"]) == {"sarif", "junit", "failed"}
    steps = {step["id"]: step for step in action["runs"]["steps"]}
    # setup-python at its Node 24 major, leaving the caller's `python` alone
    assert steps["python"]["uses"].startswith("actions/setup-python@")
    assert steps["python"]["with"]["update-environment"] is False
    # the built environment: restored by its key before the install, saved under it after a build
    for name, verb in (("cache", "restore"), ("save", "save")):
        assert steps[name]["uses"].startswith(f"actions/cache/{verb}@")
        assert steps[name]["with"] == {
            "path": "${{ steps.setup.outputs.venv }}",
            "key": "${{ steps.setup.outputs.cache-key }}",
        }
    assert steps["save"]["if"] == "steps.install.outputs.built == 'true'"
    # the runner downloads the action without its history: the build learns its ref (setup.py)
    assert steps["install"]["env"]["KARTALINT_BUILD_REF"] == "${{ github.action_ref }}"
    for step in action["runs"]["steps"]:
        if "run" in step:
            assert "${{" not in step["run"], "inputs reach scripts only through env (no script injection)"
            assert step["shell"] == "bash"
            assert "|| true" not in step["run"], "a crash is a failure"


USES = re.compile(r"^\s*(?:-\s+)?uses:\s*(?P<ref>[^\s#]+)\s*(?:#\s*(?P<comment>.*))?$")
PINNED = re.compile(r"[\w.-]+/[\w.-]+(?:/[\w./-]+)?@[0-9a-f]{40}")
RELEASE_COMMENT = re.compile(r"v\d+\.\d+\.\d+")


def unpinned_uses(text):
    """The `uses:` lines of a workflow or action not pinned to a full commit with its release in a
    comment (``owner/repo[/path]@<40 hex>  # vX.Y.Z``); a local action (``./``) needs no pin."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        match = USES.match(line)
        if not match or match.group("ref").strip("'\"").startswith("./"):
            continue
        ref, comment = match.group("ref").strip("'\""), (match.group("comment") or "").strip()
        if not PINNED.fullmatch(ref) or not RELEASE_COMMENT.fullmatch(comment):
            found.append(f"{number}: {line.strip()}")
    return found


def workflow_files():
    folder = os.path.join(ROOT, ".github", "workflows")
    workflows = sorted(os.path.join(folder, name) for name in os.listdir(folder) if name.endswith((".yml", ".yaml")))
    return [os.path.join(ROOT, "action.yml"), *workflows]


def generated_workflow():
    """The workflow `kartalint init` writes (pinned to a commit of kartalint, as an untagged
    build pins it)."""
    from kartalint.scaffold.init import _workflow

    return _workflow("kartalint/kartalint", "c44b2bf45b2d729c23dfbfa24cd881f50338cfbd", "commit, no release tag")


def test_every_action_used_is_pinned_to_a_commit_with_its_release_in_a_comment():
    """Issue 48: a tag or a branch can be moved to other code; a full commit cannot. The same
    action is pinned to the same commit everywhere: action.yml, this repository's workflows and
    the workflow `kartalint init` writes (whose pin of kartalint itself is a release tag or a
    commit: tests/test_version.py)."""
    files = workflow_files()
    assert len(files) >= 3
    used = 0
    pins: dict[str, set] = {}
    generated = generated_workflow()
    assert [line for line in unpinned_uses(generated) if "kartalint/kartalint@" not in line] == []
    texts = [generated]
    for path in files:
        with open(path, encoding="utf-8") as handle:
            texts.append(handle.read())
    for text in texts:
        for match in filter(None, map(USES.match, text.splitlines())):
            name, _, commit = match.group("ref").partition("@")
            if name != "kartalint/kartalint" and not name.startswith("./"):
                pins.setdefault(name, set()).add((commit, match.group("comment")))
    assert {name for name, found in pins.items() if len(found) > 1} == set(), pins
    assert len(pins) >= 5
    for path in files:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        assert unpinned_uses(text) == [], path
        used += sum(1 for line in text.splitlines() if USES.match(line))
        # every `uses:` is on a line of its own, so that the scan above sees all of them
        data = yaml.safe_load(text)
        steps = data["runs"]["steps"] if "runs" in data else [s for job in data["jobs"].values() for s in job["steps"]]
        assert sum(1 for step in steps if "uses" in step) == sum(1 for line in text.splitlines() if USES.match(line))
    assert used >= 10
    # and the scan does find what is not pinned
    assert unpinned_uses(
        "steps:\n"
        "  - uses: actions/checkout@v6\n"
        "  - uses: pypa/gh-action-pypi-publish@release/v1\n"
        "  - uses: actions/cache/save@27d5ce7f107fe9357f9df03efb73ab90386fccae\n"  # no release named
        "  - uses: actions/cache@27d5ce7  # v5.0.5\n"  # a short commit
        "    uses: ./\n"
        "  - uses: actions/setup-python@ece7cb06caefa5fff74198d8649806c4678c61a1  # v6.3.0\n"
    ) == [
        "2: - uses: actions/checkout@v6",
        "3: - uses: pypa/gh-action-pypi-publish@release/v1",
        "4: - uses: actions/cache/save@27d5ce7f107fe9357f9df03efb73ab90386fccae",
        "5: - uses: actions/cache@27d5ce7  # v5.0.5",
    ]


def test_the_action_and_the_workflows_pass_githubs_schemas(capsys):
    from check_jsonschema import main as check_jsonschema

    action, *workflows = workflow_files()
    for schema, paths in (("vendor.github-actions", [action]), ("vendor.github-workflows", workflows)):
        with pytest.raises(SystemExit) as exit_:
            check_jsonschema(["--builtin-schema", schema, *paths])
        assert exit_.value.code == 0, capsys.readouterr()


def test_only_the_publish_job_may_ask_for_an_identity_token():
    with open(os.path.join(ROOT, ".github", "workflows", "release.yml"), encoding="utf-8") as handle:
        workflow = yaml.safe_load(handle)
    assert workflow["permissions"] == {"contents": "read"}
    asking = {name for name, job in workflow["jobs"].items() if (job.get("permissions") or {}).get("id-token")}
    assert asking == {"publish"} and workflow["jobs"]["publish"]["permissions"] == {"id-token": "write"}
    [publish] = [s for s in workflow["jobs"]["publish"]["steps"] if "gh-action-pypi-publish" in s.get("uses", "")]
    assert PINNED.fullmatch(publish["uses"])


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
    assert_valid_junit(outputs["junit"])
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
    assert_valid_junit(outputs["junit"])
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
    assert_valid_junit(outputs["junit"])
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
    assert "1 definition(s) explored, 0 with failures" in logs["explore"]  # -q: the failures and the summary
    assert "kartalint explore" not in logs["verdict"]
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
def test_real_install_builds_its_own_environment_once_and_a_warm_job_restores_it(sample, tmp_path):
    """The install step as the runner runs it: a virtual environment of its own under
    $RUNNER_TEMP, the pinned dependencies, and the job's `python` untouched; saved in the cache
    after the build, and in the next job (a fresh $RUNNER_TEMP at the same path) restored by its
    key: nothing is built, and the restored environment runs lint."""
    import shutil
    import time

    store, runner_temp = tmp_path / "cache", tmp_path / "runner-temp"
    store.mkdir()
    steps = {"setup", "cache", "install", "save", "lint"}
    started = time.monotonic()
    code, logs, _ = run_action(
        sample, {"sarif": "none"}, tmp_path / "s.md", runner_temp, only=steps, real_install=True, cache=store
    )
    cold = time.monotonic() - started
    assert code == 0, logs
    assert f"kartalint {__import__('kartalint').__version__}" in logs["install"]
    [venv] = (runner_temp / "kartalint-env").iterdir()
    assert (venv / "bin" / "kartalint").exists() and (runner_temp / "kartalint" / "pip.log").exists()
    assert "0 error(s)" in logs["lint"]
    [saved] = store.iterdir()  # saved under its key after the build
    assert saved.name.startswith("kartalint-env-") and (saved / "bin" / "kartalint").exists()
    frozen = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "freeze"], capture_output=True, text=True, check=True
    ).stdout
    with open(os.path.join(ROOT, "constraints.txt"), encoding="utf-8") as handle:
        pinned = {line.split(";")[0].strip().lower() for line in handle if "==" in line}
    for line in frozen.lower().splitlines():
        if "==" in line and not line.startswith("kartalint"):
            assert line.replace("_", "-") in {p.replace("_", "-") for p in pinned}, line

    shutil.rmtree(runner_temp)  # the next job: a new runner, the same paths, the same cache
    started = time.monotonic()
    code, logs, _ = run_action(
        sample, {"sarif": "none"}, tmp_path / "s.md", runner_temp, only=steps, real_install=True, cache=store
    )
    warm = time.monotonic() - started
    assert code == 0, logs
    assert (
        "nothing to build" in logs["install"] and f"kartalint {__import__('kartalint').__version__}" in logs["install"]
    )
    assert not (runner_temp / "kartalint" / "pip.log").exists(), "pip never ran"
    assert [p.name for p in store.iterdir()] == [saved.name], "nothing saved again"
    assert "0 error(s)" in logs["lint"]
    assert warm < cold, (warm, cold)  # the same steps, in this test: restoring is no slower than building
    print(f"cold job {cold:.1f} s, warm job {warm:.1f} s")


def test_the_cache_key_changes_with_what_the_environment_is_built_from(sample, tmp_path):
    """The key (and the environment's folder) is the same for the same inputs, and another for
    another source of kartalint (a changed file of the action, another ref, a requested release),
    another extra or another constraints.txt."""
    import shutil

    action = tmp_path / "action"
    for name in ("kartalint", "catalog", "fixtures"):
        shutil.copytree(os.path.join(ROOT, name), action / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "setup.py", "constraints.txt"):
        shutil.copyfile(os.path.join(ROOT, name), action / name)

    def key(inputs=None, ref=""):
        code, logs, _ = run_action(
            sample,
            {"sarif": "none", **(inputs or {})},
            tmp_path / "s.md",
            only={"setup"},
            action_ref=ref,
            context={"github.action_path": str(action)},
        )
        assert code == 0, logs
        output = (sample.parent / "runner-temp" / "output-setup").read_text()
        found = dict(line.split("=", 1) for line in output.splitlines())
        return found["cache-key"], found["venv"]

    first = key()
    assert key() == first
    assert first[0].startswith("kartalint-env-") and f"-py{sys.version.split()[0]}-" in first[0]
    others = [key({"explore": "true"}), key(ref="v0.2.0"), key({"version": "0.2.0"})]
    (action / "kartalint" / "rules" / "lint.py").write_text("# changed\n", encoding="utf-8")
    others.append(key())
    (action / "constraints.txt").write_text("jq==1.13.0\n", encoding="utf-8")
    others.append(key({"version": "0.2.0"}))
    keys = [first[0]] + [k for k, _ in others]
    folders = [first[1]] + [v for _, v in others]
    assert len(set(keys)) == len(keys) and len(set(folders)) == len(folders), keys


def test_a_version_that_is_no_release_fails_in_one_line_before_anything_is_installed(sample, tmp_path):
    code, logs, _ = run_action(sample, {"version": "v0.2.0"}, tmp_path / "s.md", only={"setup"})
    assert code == 2
    assert [line for line in logs["setup"].splitlines() if line] == [
        '::error title=kartalint::version input "v0.2.0" is not a release version such as 0.2.0 (no leading v, no range)'
    ]


@pytest.mark.slow
def test_a_version_the_package_index_does_not_have_fails_in_one_line(sample, tmp_path):
    """`version` installs a published release; one the index does not have is one error line (an
    empty index here), no pip log, and no environment left to cache."""
    empty = tmp_path / "index"
    empty.mkdir()
    code, logs, _ = run_action(
        sample,
        {"version": "9.9.9", "sarif": "none"},
        tmp_path / "s.md",
        only={"setup", "cache", "install", "save"},
        real_install=True,
        cache=tmp_path / "cache",
        env={"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(empty)},
    )
    assert code == 1
    assert [line for line in logs["install"].splitlines() if line] == [
        "::error title=kartalint::version 9.9.9: the package index has no such release of kartalint (published: none); "
        "the version input installs a published release, leave it empty to run the action's own source"
    ]
    assert not (sample.parent / "runner-temp" / "kartalint-env").exists() or not any(
        (sample.parent / "runner-temp" / "kartalint-env").iterdir()
    )
    assert not (tmp_path / "cache").exists()


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


def replay_hook(repo, hook_id, args=()):
    """A hook of .pre-commit-hooks.yaml run as `pre-commit run --all-files` runs it: its entry, the
    `args` of the user's configuration, and (unless `pass_filenames: false`) every tracked YAML
    file. Returns the finished process."""
    import shlex

    with open(os.path.join(ROOT, ".pre-commit-hooks.yaml"), encoding="utf-8") as handle:
        hook = {h["id"]: h for h in yaml.safe_load(handle)}[hook_id]
    files = subprocess.run(["git", "ls-files", "*.yaml", "*.yml"], cwd=repo, capture_output=True, text=True).stdout
    argv = [*shlex.split(hook["entry"]), *args, *(files.split() if hook.get("pass_filenames", True) else [])]
    argv[0] = str(tool_bin_for(repo.parent) / argv[0])
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "GITHUB_ACTIONS", "KARTALINT_BASELINE")}
    return subprocess.run(argv, cwd=repo, capture_output=True, text=True, env=env, timeout=300)


def test_the_hooks_print_the_failures_and_the_summary_only(sample, tmp_path):
    """Issue 48: `-q` in the hook entries (but lint's, which prints its findings and its summary
    line): no PASS line, no note; a failure and the summary are shown."""
    with open(os.path.join(ROOT, ".pre-commit-hooks.yaml"), encoding="utf-8") as handle:
        entries = {hook["id"]: hook["entry"] for hook in yaml.safe_load(handle)}
    assert {name: entry.split()[-1] for name, entry in entries.items()} == {
        "kartalint-lint": "--allow-empty",
        "kartalint-test": "-q",
        "kartalint-explore": "-q",
        "kartalint-mutants": "-q",
        "kartalint-house-rules": "-q",
    }
    (sample / "fixtures" / "g.yaml").write_text(yaml.safe_dump(dict(FIXTURE, name="g")))
    git(sample, "add", "fixtures/g.yaml")
    hook = replay_hook(sample, "kartalint-test")
    assert hook.returncode == 0 and hook.stderr == "", hook.stderr
    assert [line.rsplit(" in ", 1)[0] for line in hook.stdout.splitlines()] == ["2 passed, 0 failed, 0 error(s)"]
    (sample / "fixtures" / "f.yaml").write_text(yaml.safe_dump(dict(FIXTURE, expect={"statuses": ["Failed"]})))
    hook = replay_hook(sample, "kartalint-test")
    assert hook.returncode == 1 and "PASS" not in hook.stdout + hook.stderr
    assert "FAIL" in hook.stdout and "1 passed, 1 failed" in hook.stdout + hook.stderr
    hook = replay_hook(sample, "kartalint-lint")
    assert hook.returncode == 0 and hook.stdout == ""
    assert hook.stderr.splitlines() == [
        "kartalint: 3 file(s), 1 Karta definition(s), 2 fixture(s): 0 error(s), 0 warning(s), 0 info"
    ]


def _lint_annotations(logs):
    return [line for line in logs["lint"].splitlines() if COMMAND.match(line)]


def _sarif_results(path):
    with open(path, encoding="utf-8") as handle:
        return {run["automationDetails"]["id"]: run for run in json.load(handle)["runs"]}


def _docs_block(note_start, lang):
    """The one block of docs/ci.md of ``lang`` whose docs-test note starts with ``note_start`` (the
    adoption section), or the text block after the adoption's workflow block."""
    from test_docs_examples import BLOCK

    with open(os.path.join(ROOT, "docs", "ci.md"), encoding="utf-8") as handle:
        text = handle.read()
    section = text[text.index("## Adopting on a repository with legacy findings") :]
    section = section[: section.index("\n## ", 1)]
    found = [
        m.group("body")
        for m in BLOCK.finditer(section)
        if m.group("lang") == lang and (m.group("note") or "").startswith(note_start)
    ]
    assert len(found) == 1, (note_start, lang)
    return found[0]


def _hook_args(repo):
    """The `args` of each hook in the repository's .pre-commit-config.yaml (what `init` wrote)."""
    config = yaml.safe_load((repo / ".pre-commit-config.yaml").read_text())
    return {hook["id"]: hook.get("args", []) for entry in config["repos"] for hook in entry["hooks"]}


@pytest.mark.parametrize("given", ["configuration", "input"])
def test_a_repository_with_legacy_findings_adopts_kartalint_with_a_baseline_in_one_commit(tmp_path, given):
    """Issue 48, tried as a new user would, by docs/ci.md (Adopting on a repository with legacy
    findings): 20 legacy findings; the section's commands run (`init`, `--write-baseline`, the
    configuration's `baseline:`, one commit), or the baseline given by the Action's `baseline`
    input as the section's workflow block gives it. Then the hooks `init` configured and the
    Action's steps pass, and SARIF as uploaded holds no baselined result. A pull request that adds
    a finding fails the Action with exactly the one annotation the section shows, and one SARIF
    result."""
    from legacy_repo import FINDINGS, make_legacy_repo
    from test_ci_outputs import assert_valid_sarif

    repo = make_legacy_repo(tmp_path / "legacy", config=False)
    env = dict(os.environ, PATH=f"{tool_bin_for(tmp_path)}{os.pathsep}{os.environ['PATH']}")
    adoption = _docs_block("legacy-repo:", "sh")
    if given == "input":  # the baseline is not named in the configuration
        adoption = adoption.replace('echo "baseline: .kartalint-baseline.json" >> .kartalint.yaml\n', "")
        adoption = adoption.replace(
            "kartalint lint --strict &&", "kartalint lint --strict --baseline .kartalint-baseline.json &&"
        )
    inputs = {"sarif": str(tmp_path / "kartalint.sarif")}  # (outside the checkout)
    code, logs, _ = run_action(repo, inputs, tmp_path / "s.md")  # before: the legacy findings fail
    assert code == 1 and len(_lint_annotations(logs)) == sum(FINDINGS.values()), logs["lint"]
    proc = subprocess.run(["bash", "-e", "-c", adoption], cwd=repo, capture_output=True, text=True, env=env)
    assert proc.returncode == 0 and f"{sum(FINDINGS.values())} finding(s) recorded" in proc.stderr, proc.stderr
    assert "baseline" not in _hook_args(repo)["kartalint-lint"], "init writes nothing for the baseline"
    assert subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True).stdout == ""
    if given == "input":
        inputs.update(yaml.safe_load(_docs_block("refs", "yaml"))[0]["with"])
        assert inputs["baseline"] == ".kartalint-baseline.json"

    code, logs, outputs = run_action(repo, inputs, tmp_path / "s.md")
    assert code == 0 and outputs["failed"] == "false", logs
    assert _lint_annotations(logs) == [] and f"{sum(FINDINGS.values())} in the baseline" in logs["lint"]
    sarif = json.loads((tmp_path / "kartalint.sarif").read_text())  # the file the upload step reads
    assert_valid_sarif(sarif)
    lint_run = _sarif_results(tmp_path / "kartalint.sarif")["kartalint/lint/"]
    assert lint_run["results"] == [] and lint_run["properties"]["baseline"] == {"absorbed": 20, "stale": 0}
    hooks = _hook_args(repo)
    if given == "configuration":  # the hooks read the same configuration
        hook = replay_hook(repo, "kartalint-lint", hooks["kartalint-lint"])
        assert hook.returncode == 0 and "20 in the baseline" in hook.stderr, hook.stderr
        assert replay_hook(repo, "kartalint-test", hooks["kartalint-test"]).returncode == 0

    # a pull request adds one finding: one annotation, one SARIF result, the job fails
    git(repo, "checkout", "-qb", "add-a-finding")
    definition = repo / "definitions" / "jobset-x-k8s-io-jobset-v1alpha2.yaml"
    text = definition.read_text()
    assert '- type: Failed\n              status: "True"' in text
    definition.write_text(text.replace('- type: Failed\n              status: "True"', "- type: Failed"))
    git(repo, "commit", "-qam", "match a Failed condition of any status")
    code, logs, outputs = run_action(repo, inputs, tmp_path / "s.md")
    assert code == 1 and outputs["failed"] == "true" and "kartalint lint" in logs["verdict"]
    assert _lint_annotations(logs) == [_docs_block("", "text").strip()]
    [result] = _sarif_results(tmp_path / "kartalint.sarif")["kartalint/lint/"]["results"]
    assert result["ruleId"] == "condition-without-expectation"
    if given == "configuration":
        assert replay_hook(repo, "kartalint-lint", hooks["kartalint-lint"]).returncode == 1


def test_the_baseline_input_names_a_file_that_must_exist(sample, tmp_path):
    code, logs, _ = run_action(sample, {"baseline": "missing.json"}, tmp_path / "s.md", only={"setup"})
    assert code == 2
    assert "::error title=kartalint::baseline file not found: missing.json" in logs["setup"]
