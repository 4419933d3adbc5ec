"""Verdicts a team can trust in its own repository (issue 28): one project, one configuration, one
file selection for every command. Each test is a team's repository (tests/team_repo.py: a fresh
git repository with definitions, fixtures, a Helm chart rendering a Karta, CloudFormation, a
GitHub workflow and a ``.kartalint.yaml`` with a rule off and an ``exclude``)."""

from __future__ import annotations

import json
import os
import shutil

import pytest
import yaml
from conftest import BASE_DEFINITION, ROOT, git
from team_repo import CONFIG, HELM_KARTA, OBJECT, TEAM_DEFINITION, fixture, make_team_repo

from kartalint.cli import main
from kartalint.rules import registry


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def team(tmp_path, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    repo = make_team_repo(tmp_path / "team")
    monkeypatch.chdir(repo)
    return repo


# -- 1. one configuration for every command -----------------------------------------------------------------


def test_a_rule_the_project_turned_off_is_never_pinned_expected_or_reported(team, capsys):
    code, out, err = run(capsys, "lint", "-f", "json")
    assert code == 0 and json.loads(out)["findings"] == [], out + err
    # `new fixture` lints with the project's configuration and CRDs: nothing to pin
    code, out, err = run(
        capsys, "new", "fixture", "objects/mnist.yaml", "-o", "fixtures/example-com-trainer-v1/new.yaml"
    )
    assert code == 0, err
    written = yaml.safe_load((team / "fixtures" / "example-com-trainer-v1" / "new.yaml").read_text())
    assert "lint" not in written["expect"], written["expect"]
    assert run(capsys, "test")[0] == 0
    # a fixture that pins a finding only the default configuration (no CRDs) gives fails: lint does not report it
    pinned = team / "fixtures" / "example-com-trainer-v1" / "pinned.yaml"
    pinned.write_text(fixture({"statuses": ["Running"], "lint": ["scale-path-not-null-safe"]}))
    code, out, _ = run(capsys, "test", "-f", "json")
    [case] = [c for c in json.loads(out)["cases"] if c["file"].endswith("pinned.yaml")]
    assert code == 1 and case["outcome"] == "failed"
    assert case["diffs"][0]["path"] == "lint", case
    # and one that pins the rule the configuration turned off: not compared, a note names it (issue 43)
    pinned.write_text(fixture({"statuses": ["Running"], "lint": ["crd-optional-iteration"]}))
    code, out, _ = run(capsys, "test", str(pinned))
    assert code == 0 and "note: expect.lint pins crd-optional-iteration" in out


def test_lint_pins_that_outlive_their_reason(team, capsys):
    """Issue 43: fixtures an earlier kartalint wrote pin lint findings. The team turns a pinned rule
    off: the fixture passes with a note naming it. An upgrade stops reporting a pinned rule
    (simulated: the team's CRD withdraws scale-path-not-null-safe, and a rule id this version does
    not know): the fixture fails saying which version and configuration no longer report it and
    that `kartalint test --update` removes it; after `--update` it passes."""
    folder = team / "fixtures" / "example-com-trainer-v1"
    (folder / "turned-off.yaml").write_text(
        fixture({"statuses": ["Running"], "lint": ["crd-optional-iteration"]}, name="pins a rule turned off")
    )
    code, out, _ = run(capsys, "test", "-f", "json")
    [case] = [c for c in json.loads(out)["cases"] if c["file"].endswith("turned-off.yaml")]
    assert code == 0 and case["outcome"] == "passed", case
    assert case["messages"] == [
        f"note: expect.lint pins crd-optional-iteration, which {team / '.kartalint.yaml'} turns off: not compared"
    ]
    upgraded = folder / "upgraded.yaml"
    upgraded.write_text(
        fixture(
            {"statuses": ["Running"], "lint": ["scale-path-not-null-safe", "replicas-not-null-safe"]},
            name="written by an earlier kartalint",
        )
    )
    code, out, _ = run(capsys, "test")
    assert code == 1
    from kartalint import __version__

    assert (
        f'    lint: expected ["replicas-not-null-safe", "scale-path-not-null-safe"], got [] '
        f"(kartalint {__version__} has no rule replicas-not-null-safe; kartalint {__version__} with "
        f"{team / '.kartalint.yaml'} no longer reports scale-path-not-null-safe on this definition)\n"
        "      hint: `kartalint test --update` removes what lint no longer reports from expect.lint\n"
    ) in out, out
    code, out, _ = run(capsys, "test", "--update")
    assert code == 0, out
    assert yaml.safe_load(upgraded.read_text())["expect"]["lint"] == []
    assert run(capsys, "test")[0] == 0


def test_diff_lints_with_the_projects_configuration(team, capsys):
    definition = team / "definitions" / "trainer.yaml"
    definition.write_text(TEAM_DEFINITION.replace(".replicas * 2", "(.replicas // 1) * 2"))
    git(team, "commit", "-qam", "a default")
    definition.write_text(TEAM_DEFINITION)  # back to no default: the CRD says replicas is required
    code, out, err = run(capsys, "diff", "--base", "HEAD", "-f", "json")
    doc = json.loads(out)
    assert code == 0, err
    [change] = doc["definitions"]
    assert change["status"] == "modified" and change["lint"] == {"new": [], "fixed": []}, change


def test_usage_and_configuration_errors_are_kartalint_errors():
    from kartalint.errors import ConfigError, KartalintError, UsageError
    from kartalint.project import Config, find_config, load_config

    assert issubclass(ConfigError, UsageError) and issubclass(UsageError, KartalintError)
    assert callable(find_config) and callable(load_config) and Config().severities == {}


# -- 2. diff considers exactly the files lint and test consider ----------------------------------------------


def test_diff_never_fails_on_an_excluded_template_or_counts_a_file_outside_definitions(team, capsys):
    # an untracked scratch Karta outside `definitions:`, and an edit of the excluded chart
    (team / "scratch").mkdir()
    (team / "scratch" / "copy.yaml").write_text(BASE_DEFINITION.replace("example-com-trainer-v1", "scratch"))
    chart = team / "charts" / "trainer" / "templates" / "karta.yaml"
    chart.write_text(HELM_KARTA.replace("running:", "running:  # edited"))
    for argv in (["diff", "--base", "HEAD", "-f", "json"], ["diff", "--base", "HEAD", "-f", "json", "fixtures/"]):
        code, out, err = run(capsys, *argv)
        doc = json.loads(out)
        assert code == 0, err
        assert doc["problems"] == [] and doc["definitions"] == [], doc
        assert "charts/" not in err and "cannot be read as YAML" not in err


# -- 3. templated YAML -----------------------------------------------------------------------------------


def test_a_template_is_skipped_with_a_note_by_lint_test_and_diff(team, capsys):
    (team / ".kartalint.yaml").write_text(CONFIG.replace("exclude:\n  - charts/\n", ""))
    chart = "charts/trainer/templates/karta.yaml"
    # the lint hook: the staged files, a template among them
    code, out, err = run(capsys, "lint", "--allow-empty", "-f", "json", chart, "definitions/trainer.yaml")
    doc = json.loads(out)
    assert code == 0, out + err
    [note] = doc["findings"]
    assert note["rule"] == "yaml-template" and note["severity"] == "info" and note["line"] == 1
    assert "helm template" in note["hint"] and "kartalint lint -" in note["hint"]
    assert "1 template(s) skipped" in err
    code, out, _ = run(capsys, "lint", "--strict", chart, "--allow-empty")
    assert code == 0 and "yaml-template" in out
    # without a PATH, where the project is searched (no `definitions:`), the search meets it: the same
    # finding as named (it was a line on stderr alone: SARIF and the Action's annotations had nothing of it)
    (team / ".kartalint.yaml").write_text(
        CONFIG.replace("exclude:\n  - charts/\n", "").replace("definitions: [definitions]\n", "")
    )
    for argv in (["lint", "-f", "json"], ["lint", "-f", "json", "."]):
        code, out, err = run(capsys, *argv)
        rules = [(os.path.normpath(f["file"]), f["rule"]) for f in json.loads(out)["findings"]]
        assert code == 0 and (chart, "yaml-template") in rules, (argv, rules, err)
        assert "Go/Helm template(s) skipped" not in err  # (the note said what the finding now says)
    (team / ".kartalint.yaml").write_text(CONFIG.replace("exclude:\n  - charts/\n", ""))
    # --strict-files checks it as it is
    code, out, _ = run(capsys, "lint", "--strict-files", "-f", "json", chart)
    assert code == 1 and "yaml-syntax-error" in {f["rule"] for f in json.loads(out)["findings"]}
    # a quoted template value is a valid YAML string: the file is a definition and is checked
    quoted = team / "definitions" / "quoted.yaml"
    quoted.write_text(BASE_DEFINITION.replace("name: example-com-trainer-v1", 'name: "{{ .Release.Name }}"'))
    code, out, _ = run(capsys, "lint", "-f", "json", str(quoted))
    assert json.loads(out)["kartaDocuments"] == 1
    quoted.unlink()
    # test and diff skip it too
    shutil.copyfile(team / chart, team / "fixtures" / "example-com-trainer-v1" / "rendered-later.yaml")
    code, out, err = run(capsys, "test")
    assert code == 0 and "a Go/Helm template" in err and "helm template" in err, out + err
    code, out, err = run(capsys, "diff", "--base", "HEAD")
    assert code == 0 and "a Go/Helm template" in err, out + err


def test_yaml_that_is_not_a_case_is_never_an_error_of_test(team, capsys):
    """CloudFormation (``!Ref`` does not load) and a workflow among the fixtures or given by name:
    lint skips them, and so does test (it reported a YAML syntax error for the stack); a broken
    fixture is still an error."""
    folder = team / "fixtures" / "example-com-trainer-v1"
    shutil.copyfile(team / "infra" / "stack.yaml", folder / "stack.yaml")
    shutil.copyfile(team / ".github" / "workflows" / "deploy.yml", folder / "deploy.yml")
    code, out, err = run(capsys, "test")
    assert code == 0 and "ERROR" not in out and "stack.yaml" not in out, out + err
    code, out, err = run(capsys, "test", "infra/stack.yaml", "--allow-empty")
    assert code == 0 and "ERROR" not in out, out + err
    assert run(capsys, "lint", "--allow-empty", "infra/stack.yaml")[0] == 0  # the hook's verdict: the same
    (folder / "broken.yaml").write_text("apiVersion: kartalint/v1\nkind: KartaFixture\nobject: [\n")
    code, out, _ = run(capsys, "test")
    assert code == 1 and "ERROR fixtures/example-com-trainer-v1/broken.yaml" in out, out


# -- 4. a repository with definitions and no fixtures yet --------------------------------------------------


def test_the_first_day_without_fixtures_passes_with_a_note(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("CI", raising=False)
    repo = make_team_repo(tmp_path / "team", fixtures=False)
    monkeypatch.chdir(repo)
    code, out, err = run(capsys, "test", "--junit-xml", "junit.xml")
    assert code == 0, out + err
    assert "no fixture found in the project" in err and "1 definition(s) have no fixture" in err
    assert "0 passed" in out and (repo / "junit.xml").is_file()
    code, out, _ = run(capsys, "test", "--require-fixtures", "-f", "json")
    doc = json.loads(out)
    assert code == 1 and doc["definitionsWithoutFixtures"] == ["definitions/trainer.yaml"]
    # paths given that hold no case: a usage error, unless --allow-empty
    (repo / "empty").mkdir()
    assert run(capsys, "test", "empty")[0] == 2
    assert run(capsys, "test", "empty", "--allow-empty")[0] == 0
    # the Action agrees with the hook: a warning, not a failure
    from test_action import run_action

    code, logs, outputs = run_action(repo, {}, tmp_path / "summary.md")
    assert code == 0 and outputs["failed"] == "false", logs
    assert "::warning title=kartalint::no fixtures in this repository yet" in logs["test"]


# -- 5. outside a project nothing is searched; inside, notes are said once ---------------------------------


JOB = {
    "apiVersion": "batch/v1",
    "kind": "Job",
    "metadata": {"name": "pi", "namespace": "default", "uid": "u"},
    "spec": {"completions": 1, "parallelism": 1, "template": {"spec": {"containers": [{"name": "pi"}]}}},
    "status": {"active": 1},
}


def test_outside_a_project_only_explicit_paths_and_the_bundled_catalog(tmp_path, monkeypatch, capsys):
    busy = tmp_path / "busy"  # a temporary folder: no configuration, not a git work tree
    busy.mkdir()
    monkeypatch.chdir(busy)
    for i in range(60):  # unrelated YAML, some of it looking like broken definitions
        (busy / f"junk-{i}.yaml").write_text("kind: Karta\nspec: [\n" if i % 2 else f"n: {i}\n")
    (busy / "job.yaml").write_text(yaml.safe_dump(JOB))
    code, out, err = run(capsys, "describe", "job.yaml")
    assert code == 0 and out.startswith("Job/pi") and err == "", err
    code, out, err = run(capsys, "new", "fixture", "job.yaml")
    assert code == 0 and "KartaFixture" in out and "junk" not in err, err
    code, out, err = run(capsys, "catalog", "-f", "json")
    assert code == 0 and "junk" not in err and len(json.loads(out)["definitions"]) >= 31
    code, _, err = run(capsys, "test")
    assert code == 2 and "not inside a project" in err
    code, _, err = run(capsys, "lint")
    assert code == 2 and "not inside a project" in err


def test_inside_a_project_shadowing_is_said_only_with_verbose_and_unrelated_files_not_at_all(team, capsys):
    """describe's tree names the definition file it used: the project definitions that shadow bundled
    ones are listed with -v only (they were one note on every describe)."""
    for name in ("batch-job-v1", "apps-deployment-v1", "core-pod-v1"):
        shutil.copyfile(os.path.join(ROOT, "catalog", f"{name}.yaml"), team / "definitions" / f"{name}.yaml")
    (team / "definitions" / "broken.yaml").write_text("apiVersion: run.ai/v1alpha1\nkind: Karta\nspec: [\n")
    (team / "job.yaml").write_text(yaml.safe_dump(JOB))
    code, _out, err = run(capsys, "describe", "job.yaml")
    assert code == 0, err
    assert "shadow" not in err and "broken.yaml" not in err, err  # not the subject of the command
    code, _, err = run(capsys, "describe", "job.yaml", "-v")
    assert err.count("shadows the bundled") == 3 and "broken.yaml" in err


def test_duplicate_definitions_are_one_note_and_describe_q_says_none(team, capsys):
    """Issue 48: one note for every definition that repeats another's group/version/kind or name
    (-v lists them), and `describe -q` prints the view and no note."""
    job = os.path.join(ROOT, "catalog", "batch-job-v1.yaml")
    with open(job, encoding="utf-8") as handle:
        text = handle.read()
    for copy in ("a", "b", "c"):  # the same Job definition three times under other names
        (team / "definitions" / f"job-{copy}.yaml").write_text(text.replace("name: batch-job-v1", f"name: job-{copy}"))
    (team / "job.yaml").write_text(yaml.safe_dump(JOB))
    code, out, err = run(capsys, "describe", "job.yaml")
    assert code == 0 and out.startswith("Job/pi"), err
    notes = [line for line in err.splitlines() if "repeat" in line or "have the same" in line]
    assert notes == [
        "kartalint: note: 2 definitions repeat the group/version/kind or name of another (the first found is used "
        "where none is named; -v lists them)"
    ], err
    code, _, err = run(capsys, "describe", "job.yaml", "-v")
    assert err.count("have the same group/version/kind batch/v1, Kind=Job; definitions/job-a.yaml is used") == 2, err
    code, quiet, err = run(capsys, "describe", "job.yaml", "-q")
    assert code == 0 and quiet == out and err == ""


# -- 6. exclude: gitignore semantics relative to the project root --------------------------------------------


def test_exclude_patterns_are_gitignore_patterns_relative_to_the_root(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("CI", raising=False)
    config = CONFIG.replace("exclude:\n  - charts/\n", "exclude:\n  - '*cfg*'\n  - vendor/\n  - charts/**\n")
    repo = make_team_repo(tmp_path / "my-cfg-repo", config=config)  # the checkout's own folder matches *cfg*
    broken = "apiVersion: run.ai/v1alpha1\nkind: Karta\nspec: [\n"
    for name in ("vendor/karta.yaml", "third_party/vendor/karta.yaml", "definitions/old-cfg.yaml"):
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(broken)
    monkeypatch.chdir(repo)
    code, out, err = run(capsys, "lint", "-f", "json", ".")
    doc = json.loads(out)
    assert code == 0, out + err
    checked = [os.path.normpath(p) for p in doc["checked"]]
    assert checked == ["definitions/trainer.yaml", "fixtures/example-com-trainer-v1/running.yaml"], doc
    assert run(capsys, "test")[0] == 0


def test_an_excluded_file_named_on_the_command_line_is_said_with_its_pattern_and_configuration(team, capsys):
    """Issue 48: `kartalint lint FILE` on a file the configuration excludes names the exclusion
    (the pattern, the configuration file holding it), once per pattern, never read; a folder
    walked skips its excluded files without a word, as before."""
    (team / "platform.yaml").write_text("exclude: [vendor/]\n")
    (team / "vendor").mkdir()
    (team / ".kartalint.yaml").write_text("extends: platform.yaml\n" + CONFIG + "  - '!charts/keep.yaml'\n")
    for name in ("vendor/a.yaml", "charts/keep.yaml", *(f"charts/{n}.yaml" for n in "bcde")):
        (team / name).write_text(TEAM_DEFINITION)
    code, _, err = run(capsys, "lint", "charts/trainer/templates/karta.yaml")
    assert code == 2
    assert err.splitlines() == [
        "kartalint: note: charts/trainer/templates/karta.yaml is excluded by the pattern 'charts/' of "
        ".kartalint.yaml: not read",
        "kartalint: 0 file(s), 0 Karta definition(s), 1 file(s) given excluded by the configuration: "
        "0 error(s), 0 warning(s), 0 info",
        "kartalint: error: no Karta definition or fixture found in the given paths (nothing was checked: "
        "1 file(s) given are excluded by the configuration)",
    ]
    named = ["vendor/a.yaml", "charts/keep.yaml", *(f"charts/{n}.yaml" for n in "bcde"), "definitions/trainer.yaml"]
    code, out, err = run(capsys, "lint", "--allow-empty", "-f", "json", *named)
    assert code == 0 and [os.path.normpath(p) for p in json.loads(out)["checked"]] == [
        "charts/keep.yaml",
        "definitions/trainer.yaml",
    ]
    notes = [line for line in err.splitlines() if "note:" in line]
    assert notes == [
        "kartalint: note: vendor/a.yaml is excluded by the pattern 'vendor/' of platform.yaml: not read",
        "kartalint: note: 4 files given (charts/b.yaml, charts/c.yaml, charts/d.yaml and 1 more) are excluded by "
        "the pattern 'charts/' of .kartalint.yaml: not read",
    ]
    assert run(capsys, "lint", "-q", "--allow-empty", *named)[2] == ""  # (-q: no notes)
    code, out, err = run(capsys, "lint", "-f", "json", ".")  # a folder: its excluded files are not said
    assert code == 0 and "excluded" not in err


def test_an_excluded_fixture_named_on_kartalint_test_is_said_with_its_pattern(team, capsys):
    """`kartalint test FILE` on a fixture the configuration excludes says so, as lint does (it was
    skipped without a word, and the error then spoke of 0 files searched)."""
    (team / ".kartalint.yaml").write_text(CONFIG + "  - fixtures/example-com-trainer-v1/running.yaml\n")
    code, _, err = run(capsys, "test", "fixtures/example-com-trainer-v1/running.yaml")
    assert code == 2
    assert err.splitlines() == [
        "kartalint: note: fixtures/example-com-trainer-v1/running.yaml is excluded by the pattern "
        "'fixtures/example-com-trainer-v1/running.yaml' of .kartalint.yaml: not read",
        "kartalint: error: no test case found in fixtures/example-com-trainer-v1/running.yaml (0 file(s) searched, "
        "1 file(s) given excluded by the configuration; fixtures have kind: KartaFixture)",
    ]
    code, _, err = run(capsys, "test", "fixtures/")  # a folder: its excluded fixture is skipped unsaid
    assert code == 2 and "excluded" not in err and "no test case found in fixtures/ (0 file(s) searched;" in err


def test_an_excluded_folder_named_on_the_command_line_is_said_with_its_pattern(team, capsys):
    """`kartalint lint charts` (and `kartalint test charts`) with `exclude: [charts/]`: the folder is
    said excluded with the pattern and the configuration file, as a file named is (it said only "no
    Karta definition or fixture found", as if the folder were empty). A folder below an excluded one
    is said too; a folder not excluded whose files are skips them unsaid, as before."""
    (team / "charts" / "extra").mkdir(parents=True)
    (team / "charts" / "extra" / "karta.yaml").write_text(TEAM_DEFINITION)
    code, _, err = run(capsys, "lint", "charts")
    assert code == 2
    assert err.splitlines() == [
        "kartalint: note: charts/ is excluded by the pattern 'charts/' of .kartalint.yaml: not read",
        "kartalint: 0 file(s), 0 Karta definition(s), 1 folder(s) given excluded by the configuration: "
        "0 error(s), 0 warning(s), 0 info",
        "kartalint: error: no Karta definition or fixture found in the given paths (nothing was checked: "
        "1 folder(s) given are excluded by the configuration)",
    ]
    code, _, err = run(capsys, "lint", "--allow-empty", "charts/extra/", "charts/trainer/templates/karta.yaml")
    assert code == 0
    assert err.splitlines()[0] == (
        "kartalint: note: 2 paths given (charts/trainer/templates/karta.yaml, charts/extra/) are excluded by the "
        "pattern 'charts/' of .kartalint.yaml: not read"
    )
    code, _, err = run(capsys, "test", "charts")
    assert code == 2
    assert err.splitlines() == [
        "kartalint: note: charts/ is excluded by the pattern 'charts/' of .kartalint.yaml: not read",
        "kartalint: error: no test case found in charts (0 file(s) searched, 1 folder(s) given excluded by the "
        "configuration; fixtures have kind: KartaFixture)",
    ]
    code, _, err = run(capsys, "lint", "-f", "json", "definitions")  # not excluded: as before
    assert code == 0 and "excluded" not in err


# -- 7. extends, per-file-ignores, a baseline, a JSON Schema; one positioned line per configuration error -----


def test_extends_merges_a_base_configuration_and_refuses_cycles(team, capsys):
    (team / "platform.yaml").write_text("rules:\n  scale-path-not-null-safe: error\nexclude: [legacy/]\n")
    (team / ".kartalint.yaml").write_text("extends: platform.yaml\n" + CONFIG.replace("crds: [crds]\n", ""))
    (team / "legacy").mkdir()
    (team / "legacy" / "old.yaml").write_text("kind: Karta\nspec: [\n")
    code, out, _ = run(capsys, "lint", "-f", "json", ".")
    findings = json.loads(out)["findings"]
    assert code == 1 and [(f["rule"], f["severity"]) for f in findings] == [("scale-path-not-null-safe", "error")]
    (team / "platform.yaml").write_text("extends: .kartalint.yaml\n")
    code, _, err = run(capsys, "lint")
    assert code == 2 and err.count("\n") == 1 and "platform.yaml:1:10: 'extends' makes a cycle" in err, err


def test_per_file_ignores_turn_rules_off_for_matching_files(team, capsys):
    (team / ".kartalint.yaml").write_text(
        CONFIG.replace("crds: [crds]\n", "")
        + "per-file-ignores:\n  'definitions/legacy-*.yaml': [scale-path-not-null-safe]\n"
    )
    (team / "definitions" / "legacy-trainer.yaml").write_text(
        TEAM_DEFINITION.replace("example-com-trainer-v1", "legacy").replace("example.com", "legacy.example.com")
    )
    _code, out, _ = run(capsys, "lint", "-f", "json")
    assert [(os.path.basename(f["file"]), f["rule"]) for f in json.loads(out)["findings"]] == [
        ("trainer.yaml", "scale-path-not-null-safe")
    ]


def test_a_baseline_reports_only_new_findings_and_counts_stale_entries(team, capsys):
    (team / ".kartalint.yaml").write_text(CONFIG.replace("crds: [crds]\n", ""))  # today: one warning
    code, _, err = run(capsys, "lint", "--strict", "--write-baseline", "baseline.json")
    assert code == 0 and "1 finding(s) recorded" in err
    entry = json.loads((team / "baseline.json").read_text())["findings"][0]
    assert entry["rule"] == "scale-path-not-null-safe" and entry["file"] == "definitions/trainer.yaml"
    definition = team / "definitions" / "trainer.yaml"
    definition.write_text("# moved down by a comment\n" + definition.read_text())  # positions do not count
    code, _, err = run(capsys, "lint", "--strict", "--baseline", "baseline.json")
    assert code == 0 and "1 in the baseline" in err, err
    definition.write_text(definition.read_text().replace("ownerRef: trainer", "ownerRef: nobody"))  # a new error
    code, out, err = run(capsys, "lint", "--strict", "--baseline", "baseline.json", "-f", "json")
    assert code == 1 and [f["rule"] for f in json.loads(out)["findings"]] == ["unknown-owner-ref"]
    definition.write_text(TEAM_DEFINITION.replace(".replicas * 2", "(.replicas // 1) * 2"))  # the old one fixed
    code, _, err = run(capsys, "lint", "--strict", "--baseline", "baseline.json")
    assert code == 0 and "1 stale baseline entry" in err, err


def test_the_baseline_from_the_configuration_the_environment_or_the_flag(team, capsys, monkeypatch):
    """Issue 48: `baseline:` in the configuration (relative to the file naming it, merged through
    `extends`), KARTALINT_BASELINE and --baseline, in that order of strength (flag > environment >
    configuration); --write-baseline and --no-baseline apply none."""
    config = CONFIG.replace("crds: [crds]\n", "")  # today: one warning
    (team / ".kartalint.yaml").write_text(config)
    assert run(capsys, "lint", "--strict", "--write-baseline", "ci/legacy.json")[0] == 0
    (team / "ci" / "empty.json").write_text('{"schemaVersion": 1, "tool": "kartalint", "findings": []}\n')
    # a shared configuration names it, relative to itself; the project's extends it
    (team / "ci" / "kartalint.yaml").write_text("baseline: legacy.json\n")
    (team / ".kartalint.yaml").write_text("extends: ci/kartalint.yaml\n" + config)
    code, _, err = run(capsys, "lint", "--strict")
    assert code == 0 and "1 in the baseline" in err, err
    monkeypatch.setenv("KARTALINT_BASELINE", "ci/empty.json")  # the environment over the configuration
    code, out, err = run(capsys, "lint", "--strict", "-f", "json")
    assert code == 1 and json.loads(out)["baseline"] == {"absorbed": 0, "stale": 0}, err
    code, _, err = run(capsys, "lint", "--strict", "--baseline", "ci/legacy.json")  # the flag over both
    assert code == 0 and "1 in the baseline" in err
    monkeypatch.setenv("KARTALINT_BASELINE", "")  # empty: unset
    code, out, _ = run(capsys, "lint", "--strict", "--no-baseline", "-f", "json")
    assert code == 1 and json.loads(out)["baseline"] is None
    # --write-baseline records every finding, whatever baseline is configured
    code, _, err = run(capsys, "lint", "--write-baseline", "ci/again.json")
    assert code == 0 and "1 finding(s) recorded" in err
    assert json.loads((team / "ci" / "again.json").read_text()) == json.loads((team / "ci" / "legacy.json").read_text())
    # a later file overrides an earlier one; an empty key keeps what it extends
    (team / ".kartalint.yaml").write_text("extends: ci/kartalint.yaml\nbaseline: ci/empty.json\n" + config)
    assert run(capsys, "lint", "--strict")[0] == 1
    (team / ".kartalint.yaml").write_text("extends: ci/kartalint.yaml\nbaseline:\n" + config)
    assert run(capsys, "lint", "--strict")[0] == 0
    code, _, err = run(capsys, "lint", "--baseline", "x.json", "--no-baseline")
    assert code == 2 and "--baseline and --no-baseline: give one" in err


@pytest.mark.parametrize(
    "text, says",
    [
        ("baseline: ../outside.json\n", ":1:11: 'baseline' entry ../outside.json resolves to"),
        ("baseline: [a.json]\n", ":1:11: 'baseline' must be the path of a baseline file"),
        (
            "baseline: missing.json\n",
            "baseline: {team}/missing.json (configured in {team}/.kartalint.yaml): cannot read",
        ),
        (
            "baseline: fixtures\n",
            "baseline: {team}/fixtures (configured in {team}/.kartalint.yaml): a folder, not a file",
        ),
        (
            "baseline: .kartalint.yaml\n",
            "{team}/.kartalint.yaml:1:1: invalid JSON: Expecting value (not a kartalint baseline)",
        ),
    ],
)
def test_a_configured_baseline_that_cannot_be_used_is_one_line_naming_where_it_was_given(team, capsys, text, says):
    (team / ".kartalint.yaml").write_text(text)
    code, out, err = run(capsys, "lint")
    assert code == 2 and out == "", err
    [line] = [line for line in err.splitlines() if not line.startswith("kartalint: note: ")]
    assert line.startswith("kartalint: error: ") and says.format(team=team) in line, line


def test_baselined_findings_are_no_annotation_and_no_sarif_result_and_stale_entries_are_counted(team, capsys):
    """Left out, not carried: the github format and SARIF hold only the new findings; the stale
    entries are counted in the text summary, JSON, a notice and the SARIF run (docs/ci.md)."""
    from test_ci_outputs import assert_valid_sarif

    (team / ".kartalint.yaml").write_text(CONFIG.replace("crds: [crds]\n", "") + "baseline: baseline.json\n")
    assert run(capsys, "lint", "--write-baseline", "baseline.json")[0] == 0
    code, out, err = run(capsys, "lint", "--strict", "-f", "github")
    assert code == 0 and out == "" and "1 in the baseline" in err, out + err
    code, out, _ = run(capsys, "lint", "--strict", "-f", "sarif")
    sarif = json.loads(out)
    assert_valid_sarif(sarif)
    [run_] = sarif["runs"]
    assert code == 0 and run_["results"] == [] and run_["properties"]["baseline"] == {"absorbed": 1, "stale": 0}
    assert run_["invocations"][0]["toolExecutionNotifications"] == []
    definition = team / "definitions" / "trainer.yaml"
    definition.write_text(TEAM_DEFINITION.replace(".replicas * 2", "(.replicas // 1) * 2"))  # fixed: stale
    stale = "1 stale baseline entry (fixed since: rewrite it with --write-baseline)"
    code, out, err = run(capsys, "lint", "--strict", "-f", "github")
    assert code == 0 and out == f"::notice title=kartalint baseline::{stale}\n" and stale in err
    code, out, _ = run(capsys, "lint", "-f", "json")
    assert json.loads(out)["baseline"] == {"absorbed": 0, "stale": 1}
    code, out, _ = run(capsys, "lint", "-f", "sarif")
    [run_] = json.loads(out)["runs"]
    assert run_["properties"]["baseline"] == {"absorbed": 0, "stale": 1}
    assert run_["invocations"][0]["toolExecutionNotifications"] == [{"level": "note", "message": {"text": stale}}]
    code, out, _ = run(capsys, "lint", "-f", "sarif", "--no-baseline")
    assert "properties" not in json.loads(out)["runs"][0]


def test_the_configuration_schema_accepts_what_the_configuration_accepts(team, capsys):
    import jsonschema

    from kartalint.errors import ConfigError
    from kartalint.project import parse_config

    code, out, _ = run(capsys, "schema", "--config")
    schema = json.loads(out)
    assert code == 0
    good = [
        yaml.safe_load(CONFIG),
        {"rules": {"jq-not-portable": "warning"}, "per-file-ignores": {"legacy/**": "jq-not-portable"}},
        {"extends": "../base.yaml", "max-file-size": 1000},
        {"baseline": "ci/baseline.json"},
    ]
    bad = [
        {"rules": {"no-such-rule": "off"}},
        {"rules": {"jq-not-portable": "loud"}},
        {"exclude": "charts/"},
        {"max-file-size": 0},
        {"baseline": ""},
        {"baseline": ["a.json"]},
        {"per-file-ignores": {"x/": ["no-such-rule"]}},
        {"unknown": 1},
    ]
    for data in good:
        jsonschema.validate(data, schema)
        if "extends" not in data:
            parse_config(data, str(team / ".kartalint.yaml"), rules=registry.RULES)
    for data in bad:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(data, schema)
        with pytest.raises(ConfigError):
            parse_config(data, str(team / ".kartalint.yaml"), rules=registry.RULES)


@pytest.mark.parametrize(
    "text, where, says",
    [
        ("rules:\n  scale-path-not-nul-safe: off\n", ":2:3:", "unknown rule 'scale-path-not-nul-safe'"),
        ("exclude: charts/\n", ":1:10:", "'exclude' must be a list"),
        ("per-file-ignores:\n  'x/': [nope]\n", ":2:", "unknown rule 'nope'"),
        ("fixtures: [fixtures, ../secret]\n", ":1:22:", "outside the project root"),
        ("extends: ../../elsewhere.yaml\n", ":1:10:", "outside the repository"),
    ],
)
def test_a_configuration_error_is_one_positioned_line(team, capsys, text, where, says):
    (team / ".kartalint.yaml").write_text(text)
    for command in (["lint"], ["test"], ["describe", "objects/mnist.yaml"], ["catalog"]):
        code, _, err = run(capsys, *command)
        assert code == 2 and err.count("\n") == 1, (command, err)
        assert err.startswith(f"kartalint: error: {team / '.kartalint.yaml'}{where}") and says in err, err


# -- 8. suppressions that can lie ---------------------------------------------------------------------------


def test_a_misspelt_or_useless_suppression_is_reported(team, capsys):
    definition = team / "definitions" / "trainer.yaml"
    text = TEAM_DEFINITION.replace("ownerRef: trainer", "ownerRef: nobody  # kartalint: disable=unknown-owner-rf")
    definition.write_text(text)
    code, out, _ = run(capsys, "lint", "-f", "json", str(definition))
    found = {(f["rule"], f["severity"]) for f in json.loads(out)["findings"]}
    assert code == 1 and found == {("unknown-owner-ref", "error"), ("unknown-suppression", "warning")}
    [unknown] = [f for f in json.loads(out)["findings"] if f["rule"] == "unknown-suppression"]
    assert "did you mean 'unknown-owner-ref'" in unknown["hint"]
    definition.write_text(
        TEAM_DEFINITION.replace("name: worker", "name: worker  # kartalint: disable=unknown-owner-ref")
    )
    code, out, _ = run(capsys, "lint", "-f", "json", str(definition))
    assert code == 0 and [(f["rule"], f["severity"]) for f in json.loads(out)["findings"]] == [
        ("unused-suppression", "info")
    ]


def test_a_directive_on_a_block_scalar_key_covers_the_scalar(team, capsys):
    definition = team / "definitions" / "trainer.yaml"
    text = TEAM_DEFINITION.replace(
        "replicasPath: .spec.roles[] | .replicas * 2",
        "replicasPath: >-  # kartalint: disable=scale-path-not-null-safe -- every role sets replicas\n"
        "          .spec.roles[]\n          | .replicas * 2",
    )
    definition.write_text(text)
    (team / ".kartalint.yaml").write_text(CONFIG.replace("crds: [crds]\n", ""))
    code, out, err = run(capsys, "lint", "-f", "json", str(definition))
    doc = json.loads(out)
    assert code == 0 and doc["findings"] == [] and doc["suppressed"] == 1, out + err


# -- issue 34: configuration as untrusted input --------------------------------------------------------------


def test_configured_fixtures_outside_the_project_never_widen_what_is_read(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("CI", raising=False)
    secret = tmp_path / "secret"
    (secret / "example-com-trainer-v1").mkdir(parents=True)
    token = "tok-9d1b7"
    leaked = {**OBJECT, "spec": {"roles": [{**OBJECT["spec"]["roles"][0], "name": token}]}}  # an instance id
    (secret / "object.yaml").write_text(yaml.safe_dump(leaked))
    (secret / "example-com-trainer-v1" / "f.yaml").write_text(fixture(objectFile="../object.yaml"))
    repo = make_team_repo(
        tmp_path / "team", config=CONFIG.replace("fixtures: [fixtures]", "fixtures: [fixtures, ../secret]")
    )
    monkeypatch.chdir(repo)
    for command in (["test"], ["catalog"], ["diff", "--base", "HEAD"], ["lint"]):
        code, out, err = run(capsys, *command)
        assert code == 2 and "outside the project root" in err and token not in out + err, (command, out, err)


def test_fifty_thousand_exclude_patterns_are_read_once(team, capsys, monkeypatch):
    import fnmatch

    import pathspec

    patterns = [f"generated/team-{i}/**/*.cfg-{i}.yaml" for i in range(50_000)]
    (team / ".kartalint.yaml").write_text(CONFIG + "".join(f"  - {p}\n" for p in patterns))
    assert (team / ".kartalint.yaml").stat().st_size > 1_000_000
    compiled, matched = [], []
    real = pathspec.GitIgnoreSpec.from_lines.__func__

    def counting(cls, lines, *args, **kwargs):
        lines = list(lines)
        compiled.extend(lines)
        return real(cls, lines, *args, **kwargs)

    def one_by_one(name, pattern, _real=fnmatch.fnmatchcase):  # matching every pattern against every path
        if pattern.startswith("generated/"):
            matched.append((name, pattern))
            assert len(matched) < 10_000, "every pattern is matched against every path"
        return _real(name, pattern)

    monkeypatch.setattr(pathspec.GitIgnoreSpec, "from_lines", classmethod(counting))
    monkeypatch.setattr(fnmatch, "fnmatch", one_by_one)
    monkeypatch.setattr(fnmatch, "fnmatchcase", one_by_one)
    code, out, err = run(capsys, "lint", "-f", "json", ".")
    assert code == 0 and json.loads(out)["checked"], err
    # no pattern can match a file here: none is compiled, and none is compiled twice
    assert len(compiled) == len(set(compiled)) and len(compiled) < 10, len(compiled)


def test_a_configuration_over_the_size_limit_is_refused(team, capsys):
    from kartalint.load.documents import MAX_FILE_BYTES

    (team / ".kartalint.yaml").write_text(CONFIG + "# " + "x" * MAX_FILE_BYTES + "\n")
    code, _, err = run(capsys, "lint")
    assert code == 2 and "over the" in err and "byte limit" in err and err.count("\n") == 1


def test_a_glob_never_follows_a_link_twice_or_out_of_the_root(team, tmp_path):
    import subprocess
    import sys

    os.symlink(".", team / "definitions" / "loop")  # two loops back into the folder
    (team / "definitions" / "nested").mkdir()
    os.symlink("..", team / "definitions" / "nested" / "back")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "stolen.yaml").write_text(BASE_DEFINITION.replace("example-com-trainer-v1", "stolen"))
    os.symlink(outside, team / "definitions" / "out")  # and one out of the project
    config = CONFIG.replace("definitions: [definitions]", "definitions: ['definitions/**/*.yaml']")
    (team / ".kartalint.yaml").write_text(config)
    proc = subprocess.run(  # a process of its own: a walk that never ends must not hang the suite
        [sys.executable, "-m", "kartalint", "lint", "-f", "json"], cwd=team, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["checked"] == [
        "definitions/trainer.yaml",
        "fixtures/example-com-trainer-v1/running.yaml",
    ]
