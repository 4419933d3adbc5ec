"""`kartalint test --mutants`: text, JSON, SARIF, JUnit and GitHub output, the minimum score from
the configuration and the command line, the limit and the seed, configuration errors."""

from __future__ import annotations

import json
import os

import pytest
import yaml
from conftest import ROOT
from test_ci_outputs import assert_valid_junit, assert_valid_sarif, junitparser
from test_mutation import DEFINITION, trainer

from kartalint.cli import main


def fixture(obj, expect):
    return yaml.safe_dump({"apiVersion": "kartalint/v1", "kind": "KartaFixture", "object": obj, "expect": expect})


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project with one definition and one weak fixture (a Running object, statuses pinned)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CI", raising=False)
    (tmp_path / ".kartalint.yaml").write_text("definitions: [def.yaml]\nfixtures: [fixtures]\n")
    (tmp_path / "def.yaml").write_text(DEFINITION)
    folder = tmp_path / "fixtures" / "example-com-trainer-v1"
    folder.mkdir(parents=True)
    (folder / "running.yaml").write_text(fixture(trainer(), {"statuses": ["Running"]}))
    return tmp_path


def strengthen(project):
    folder = project / "fixtures" / "example-com-trainer-v1"
    expect = {"statuses": ["Running"], "components": {"trainer": {"replicas": 2, "cpuMillis": 1000}}}
    (folder / "running.yaml").write_text(fixture(trainer(), expect))
    (folder / "failed.yaml").write_text(fixture(trainer(condition="Failed"), {"statuses": ["Failed"]}))
    (folder / "default.yaml").write_text(fixture(trainer(replicas=None), {"components": {"trainer": {"replicas": 1}}}))


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_text_names_each_survivor_at_its_place_with_the_fixture_that_would_kill_it(project, capsys):
    code, out, _err = run(capsys, "test", "--mutants")
    assert code == 0, "survivors are notes: without a minimum score the run passes"
    assert "example-com-trainer-v1: score 0.25 (3 killed, 9 survived of 12; 2 equivalent)" in out
    assert (
        "    SURVIVED def.yaml:15:59 flip-condition-status: `failed: Failed=True` -> `failed: Failed=False` "
        "was not noticed by any of 1 fixture(s)\n"
    ) in out
    assert (
        "      hint: pin it in fixtures/example-com-trainer-v1/running.yaml: expect.components.trainer.replicas: 2\n"
        in out
    )
    assert out.rstrip().splitlines()[-1].startswith("mutation score 0.25: 3 killed, 9 survived of 12; 2 equivalent in ")
    strengthen(project)
    code, out, _ = run(capsys, "test", "--mutants")
    assert code == 0 and "example-com-trainer-v1: score 1.00 (" in out and "SURVIVED" not in out


def test_json_carries_the_mutation_document_with_its_schema_version(project, capsys):
    code, out, _ = run(capsys, "test", "--mutants", "-f", "json")
    doc = json.loads(out)
    mutation = doc["mutation"]
    assert doc["schemaVersion"] == 1 and mutation["schemaVersion"] == 1 and code == 0
    assert mutation["summary"]["killed"] == 3 and mutation["summary"]["survived"] == 9
    definition = mutation["definitions"][0]
    assert definition["definition"] == "example-com-trainer-v1" and definition["score"] == 0.25
    survivor = next(r for r in definition["results"] if r["outcome"] == "survived")
    assert survivor["message"].endswith("was not noticed by any of 1 fixture(s)") and survivor["hint"]
    assert {f["field"] for f in definition["fields"]} >= {"trainer.scaleDefinition.replicasPath"}
    code, out, _ = run(capsys, "test", "-f", "json")
    assert "mutation" not in json.loads(out), "without --mutants nothing changes"


def test_sarif_survivors_are_notes_with_fingerprints_that_survive_line_moves(project, capsys):
    def survivors():
        _code, out, _ = run(capsys, "test", "--mutants", "-f", "sarif")
        document = json.loads(out)
        assert_valid_sarif(document)
        return [r for r in document["runs"][0]["results"] if r["ruleId"] == "mutant-survived"]

    first = survivors()
    assert len(first) == 9 and {r["level"] for r in first} == {"note"}
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in first} == {"def.yaml"}
    assert len({r["partialFingerprints"]["kartalint/v1"] for r in first}) == 9
    (project / "def.yaml").write_text("# a comment moves every line\n" + DEFINITION)
    moved = survivors()
    assert [r["partialFingerprints"] for r in moved] == [r["partialFingerprints"] for r in first]
    assert [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in moved] == [
        r["locations"][0]["physicalLocation"]["region"]["startLine"] + 1 for r in first
    ]


def test_junit_has_a_mutation_score_case_per_definition_failing_below_the_minimum(project, capsys):
    code, _, _ = run(capsys, "test", "--mutants", "--junit-xml", "j.xml", "--min-mutation-score", "0.5")
    assert code == 1
    assert_valid_junit(project / "j.xml")
    xml = junitparser.JUnitXml.fromfile(str(project / "j.xml"))
    cases = [case for suite in xml for case in suite if case.name == "mutation score"]
    assert len(cases) == 1 and cases[0].classname == "example-com-trainer-v1"
    failure = cases[0].result[0]
    assert isinstance(failure, junitparser.Failure) and failure.type == "mutation-score-below-minimum"
    assert failure.message == "mutation score 0.25 is below 0.5" and "def.yaml:15:59:" in failure.text
    assert xml.failures == 1 and xml.tests == 2
    code, _, _ = run(capsys, "test", "--mutants", "--junit-xml", "j.xml")
    assert_valid_junit(project / "j.xml")  # the passing case's detail as system-out
    xml = junitparser.JUnitXml.fromfile(str(project / "j.xml"))
    case = next(case for suite in xml for case in suite if case.name == "mutation score")
    assert code == 0 and case.is_passed and xml.failures == 0


def test_github_annotations_are_notices_and_a_low_score_is_an_error(project, capsys):
    code, out, _ = run(capsys, "test", "--mutants", "-f", "github", "--min-mutation-score", "0.9")
    notices = [line for line in out.splitlines() if line.startswith("::notice file=def.yaml,line=")]
    assert code == 1 and len(notices) == 9
    assert "title=kartalint mutant survived%3A example-com-trainer-v1::" in notices[0]
    assert any(line.startswith("::error file=def.yaml,line=1,col=1,title=kartalint test%3A --min-mutation-score::")
               for line in out.splitlines())  # fmt: skip


def test_the_minimum_score_comes_from_the_configuration_unless_the_command_line_says(project, capsys):
    (project / ".kartalint.yaml").write_text(
        "definitions: [def.yaml]\nfixtures: [fixtures]\nmutants: {min-score: 0.8}\n"
    )
    code, out, _ = run(capsys, "test", "--mutants")
    assert (
        code == 1 and "ERROR def.yaml: mutation score of example-com-trainer-v1 is 0.25 (below the minimum 0.8)" in out
    )
    code, out, _ = run(capsys, "test", "--min-mutation-score", "0.1")
    assert code == 0 and "mutation score 0.25" in out, "--min-mutation-score runs the mutants and wins"
    code, out, _ = run(capsys, "test")
    assert code == 0 and "Mutants:" not in out, "min-score alone does not make every test run mutate"
    strengthen(project)
    code, out, _ = run(capsys, "test", "--mutants")
    assert code == 0


def test_listed_equivalents_come_from_the_configuration_and_stale_ones_are_warned(project, capsys):
    mutant = "trainer.scaleDefinition.replicasPath: change-default: .spec.replicas // 1 -> .spec.replicas // 2"
    config = {
        "definitions": ["def.yaml"],
        "fixtures": ["fixtures"],
        "mutants": {
            "equivalent": [
                {"definition": "example-com-trainer-v1", "mutant": mutant, "reason": "spec.replicas is always set"},
                {"definition": "example-com-trainer-v1", "mutant": "gone", "reason": "was equivalent once"},
            ]
        },
    }
    (project / ".kartalint.yaml").write_text(yaml.safe_dump(config))
    _code, out, err = run(capsys, "test", "--mutants", "-f", "json")
    results = {r["id"]: r for r in json.loads(out)["mutation"]["definitions"][0]["results"]}
    assert results[mutant]["outcome"] == "equivalent"
    assert results[mutant]["detail"] == "listed as equivalent: spec.replicas is always set"
    assert "the equivalent mutant 'gone' of example-com-trainer-v1 is no longer a surviving mutant" in err


def test_limit_and_seed_choose_the_same_mutants_every_time(project, capsys):
    def ids(*options):
        _code, out, _ = run(capsys, "test", "--mutants", "-f", "json", *options)
        return [r["id"] for r in json.loads(out)["mutation"]["definitions"][0]["results"]]

    everything = ids()
    assert len(everything) == 14 and ids() == everything
    assert ids("--mutants-limit", "3") == [everything[0], everything[4], everything[9]]
    sampled = ids("--mutants-limit", "3", "--mutants-seed", "5")
    assert len(sampled) == 3 and sampled == ids("--mutants-limit", "3", "--mutants-seed", "5")
    _code, out, _ = run(capsys, "test", "--mutants", "--mutants-limit", "3")
    assert "(--mutants-limit: 3 of 14)" in out


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("mutants: {min-score: 80}\n", "'mutants.min-score' must be a number from 0 to 1"),
        ("mutants: {minimum: 1}\n", "'mutants' must be a mapping with min-score and equivalent"),
        ("mutants: {equivalent: [{mutant: x}]}\n", "each 'mutants.equivalent' entry needs definition, mutant"),
        ("mutants: {equivalent: text}\n", "'mutants.equivalent' must be a list"),
    ],
)
def test_a_bad_mutants_configuration_is_a_usage_error_naming_the_file(project, capsys, config, message):
    (project / ".kartalint.yaml").write_text("definitions: [def.yaml]\n" + config)
    code, _, err = run(capsys, "test", "--mutants")
    assert code == 2 and ".kartalint.yaml" in err and message in err


@pytest.mark.parametrize("argv", [["--min-mutation-score", "80"], ["--mutants-limit", "0"], ["--mutants-limit", "x"]])
def test_bad_mutation_options_are_usage_errors(project, capsys, argv):
    with pytest.raises(SystemExit) as exit_info:
        main(["test", "--mutants", *argv])
    assert exit_info.value.code == 2 and "kartalint: error: argument" in capsys.readouterr().err


def test_a_project_without_definitions_of_its_own_has_nothing_to_mutate(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".kartalint.yaml").write_text("fixtures: [fixtures]\n")
    folder = tmp_path / "fixtures"
    folder.mkdir()
    obj = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "d"},
        "spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}},
    }
    (folder / "deployment.yaml").write_text(fixture(obj, {"components": {"deployment": {"replicas": 2}}}))
    code, out, err = run(capsys, "test", "--mutants")
    assert code == 0 and "--mutants has nothing to mutate" in err
    assert "mutation score -: 0 killed, 0 survived of 0 in" in out


def test_mutants_hook_entry_fails_below_the_configured_score(tmp_path, monkeypatch, capsys):
    """What the kartalint-mutants hook runs, in a project whose one fixture pins little."""
    with open(os.path.join(ROOT, ".pre-commit-hooks.yaml"), encoding="utf-8") as handle:
        entry = next(h["entry"] for h in yaml.safe_load(handle) if h["id"] == "kartalint-mutants").split()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "def.yaml").write_text(DEFINITION)
    (tmp_path / "fixtures" / "example-com-trainer-v1").mkdir(parents=True)
    fixture = {
        "apiVersion": "kartalint/v1",
        "kind": "KartaFixture",
        "object": trainer(),
        "expect": {"statuses": ["Running"]},
    }
    (tmp_path / "fixtures" / "example-com-trainer-v1" / "running.yaml").write_text(yaml.safe_dump(fixture))
    (tmp_path / ".kartalint.yaml").write_text("definitions: [def.yaml]\nmutants: {min-score: 0.2}\n")
    assert main(entry[1:]) == 0 and "mutation score 0.25" in capsys.readouterr().out
    (tmp_path / ".kartalint.yaml").write_text("definitions: [def.yaml]\nmutants: {min-score: 0.5}\n")
    assert main(entry[1:]) == 1 and "(below the minimum 0.5)" in capsys.readouterr().out


def test_a_limit_builds_only_the_mutants_it_picks_among_those_of_300_status_mappings(project, capsys):
    """Issue 45 item 3: every mutant of a definition with 300 status mappings was a full copy of
    it, all built before `--mutants-limit` picked one (quadratic: minutes). Mutants are records of
    their change now; the limit builds the one it picks. Counted, not timed."""
    from kartalint.mutation import mutant as mutant_module

    keys = ("running", "failed", "completed", "initializing", "degraded", "suspended")
    mappings: dict[str, list] = {key: [] for key in keys}
    for i in range(300):
        matcher = (
            {
                "byExpression": {
                    "expression": f'(.status.jobs[]? | select(.name == "r{i}") | .ready // 0) > 0',
                    "expectedResult": "true",
                }
            },
            {"byConditions": [{"type": f"Stage{i}", "status": "True"}, {"type": "Ready", "status": "False"}]},
            {"byPhase": f"Phase{i}"},
        )[i % 3]
        mappings[keys[i % len(keys)]].append(matcher)
    definition = yaml.safe_load(DEFINITION)
    status = definition["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]
    status["phaseDefinition"] = {"path": ".status.phase"}
    status["statusMappings"] = mappings
    (project / "def.yaml").write_text(yaml.safe_dump(definition))
    folder = project / "fixtures" / "example-com-trainer-v1"
    (folder / "running.yaml").write_text(fixture(trainer(condition="Other"), {"statuses": ["Undefined"]}))
    built = mutant_module.BUILT[0]
    code, out, _ = run(capsys, "test", "--mutants", "--mutants-limit", "1", "-f", "json")
    mutation = json.loads(out)["mutation"]["definitions"][0]
    assert code == 0 and len(mutation["results"]) == 1
    assert mutation["generated"] > 1000, "every mutant is still counted (the limit says 1 of them)"
    assert mutant_module.BUILT[0] - built == 1, "only the mutant the limit picked was built"
