"""`kartalint test`: fixtures, recordings, predictions, diffs, --update, coverage, test-time rules."""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET

import pytest
import yaml
from conftest import BASE_DEFINITION, REFERENCE, ROOT
from test_ci_outputs import assert_valid_junit

from kartalint.cli import main
from kartalint.rules import registry

FIXTURES = os.path.join(ROOT, "fixtures")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def fixture(name="case", obj=None, expect=None, **extra):
    doc = {"apiVersion": "kartalint/v1", "kind": "KartaFixture", "name": name, "source": "test"}
    doc.update(extra)
    doc["object"] = obj if obj is not None else trainer()
    doc["expect"] = expect if expect is not None else {"statuses": ["Running"]}
    return doc


def trainer(roles=None, phase="Running"):
    roles = (
        roles
        if roles is not None
        else [
            {
                "name": "worker",
                "replicas": 2,
                "template": {"spec": {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": 4}}}]}},
            }
        ]
    )
    return {
        "apiVersion": "example.com/v1",
        "kind": "Trainer",
        "metadata": {"name": "t", "uid": "u"},
        "spec": {"roles": roles},
        "status": {"phase": phase},
    }


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A throwaway project: defs/trainer.yaml and fixtures/example-com-trainer-v1/."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CI", raising=False)
    (tmp_path / ".git").mkdir()  # a project (a git work tree): `test` without PATH runs its fixtures/
    (tmp_path / "defs").mkdir()
    (tmp_path / "defs" / "trainer.yaml").write_text(BASE_DEFINITION)
    (tmp_path / "fixtures" / "example-com-trainer-v1").mkdir(parents=True)
    return tmp_path


def write(path, doc):
    path.write_text(yaml.safe_dump(doc, sort_keys=False))


# -- the project's own fixtures -----------------------------------------------------------------------


def test_project_fixtures_pass(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    code, out, err = run(capsys, "test")
    assert code == 0, out + err
    assert " 0 failed, 0 error(s)" in out


def test_field_case_parallelism_omitted_shows_jq_message_and_hint(capsys):
    code, out, _ = run(capsys, "test", "-v", os.path.join(FIXTURES, "field-cases", "jobset-parallelism-omitted.yaml"))
    assert code == 0  # xfail: expected to fail
    assert "XFAIL" in out
    assert (
        "replicatedjob[worker].replicas: expected 4, got null (jq: number (1) and null (null) cannot be multiplied)"
        in out
    )
    assert "hint: give it a default, e.g. (.template.spec.parallelism // 1) (scale-path-not-null-safe" in out


def test_field_case_wrong_instance_id_path_shows_the_roles_that_came_out(capsys):
    code, out, _ = run(capsys, "test", os.path.join(FIXTURES, "field-cases", "jobset-wrong-instance-id-path.yaml"))
    assert code == 0
    assert 'replicatedjob.instances: expected ["leader", "worker"], got ["0", "1"]' in out


def test_xfail_that_passes_is_a_failure(project, capsys):
    write(project / "fixtures" / "example-com-trainer-v1" / "ok.yaml", fixture(xfail="thought broken"))
    code, out, _ = run(capsys, "test", "--definitions", "defs")
    assert code == 1 and "XPASS" in out and "remove `xfail`" in out


# -- diffs ------------------------------------------------------------------------------------------


def test_a_changed_expression_fails_with_a_readable_diff(project, capsys):
    expect = {
        "statuses": ["Running"],
        "components": {"worker": {"instances": {"worker": {"replicas": 2, "gpus": 8}}}},
        "gpus": 8,
    }
    write(project / "fixtures" / "example-com-trainer-v1" / "running.yaml", fixture(expect=expect))
    assert run(capsys, "test", "--definitions", "defs")[0] == 0
    changed = BASE_DEFINITION.replace(
        "replicasPath: .spec.roles[] | (.replicas // 1)", "replicasPath: .spec.roles[] | .replicas * .parallelism"
    )
    (project / "defs" / "trainer.yaml").write_text(changed)
    code, out, _ = run(capsys, "test", "--definitions", "defs")
    assert code == 1
    assert "FAIL  fixtures/example-com-trainer-v1/running.yaml" in out
    assert "worker[worker].replicas: expected 2, got null (jq: number (2) and null (null) cannot be multiplied)" in out
    assert "gpus: expected 8, got 0" in out
    assert (
        "hint: give it a default, e.g. (.parallelism // 1) (scale-path-not-null-safe at defs/trainer.yaml:" in out
    )  # openable from here


def test_statuses_compare_as_a_set_and_partial_expectations(project, capsys):
    write(
        project / "fixtures" / "example-com-trainer-v1" / "a.yaml", fixture(expect={"statuses": ["Running", "Running"]})
    )
    write(
        project / "fixtures" / "example-com-trainer-v1" / "b.yaml",
        fixture(expect={"statuses": ["Failed"]}, obj=trainer(phase="Running")),
    )
    code, out, _ = run(capsys, "test", "--definitions", "defs", "-f", "json")
    doc = json.loads(out)
    outcomes = {os.path.basename(c["file"]): c for c in doc["cases"]}
    assert outcomes["a.yaml"]["outcome"] == "passed"
    assert outcomes["b.yaml"]["outcome"] == "failed"
    assert outcomes["b.yaml"]["diffs"][0]["text"] == 'statuses: expected ["Failed"], got ["Running"]'
    assert doc["summary"] == {
        "passed": 1,
        "updated": 0,
        "failed": 1,
        "errors": 0,
        "expectedFailures": 0,
        "total": 2,
        "withoutFixtures": 0,
        "belowCoverage": 0,
    }
    assert code == 1


def test_unexpected_extraction_errors_always_fail(project, capsys):
    obj = trainer(roles=[{"name": "w", "replicas": "lots", "template": {}}])
    write(project / "fixtures" / "example-com-trainer-v1" / "a.yaml", fixture(obj=obj))
    code, out, _ = run(capsys, "test", "--definitions", "defs")
    assert code == 1
    assert (
        'errors[worker.scaleDefinition.replicasPath]: expected no error, got replicas value "lots" at index 0 is not a number'
        in out
    )
    assert "hint: the field is at defs/trainer.yaml:39:23" in out


def test_expected_errors_and_lint_rules(project, capsys):
    obj = trainer(roles=[{"name": "w", "replicas": "lots", "template": {}}])
    expect = {
        "errors": [{"component": "worker", "field": "scaleDefinition.replicasPath", "message": "is not a number"}],
        "lint": [],
    }
    write(project / "fixtures" / "example-com-trainer-v1" / "a.yaml", fixture(obj=obj, expect=expect))
    assert run(capsys, "test", "--definitions", "defs")[0] == 0
    expect["lint"] = ["scale-path-not-null-safe"]
    write(project / "fixtures" / "example-com-trainer-v1" / "a.yaml", fixture(obj=obj, expect=expect))
    code, out, _ = run(capsys, "test", "--definitions", "defs")
    assert code == 1 and 'lint: expected ["scale-path-not-null-safe"], got []' in out


# -- never silently green ------------------------------------------------------------------------------


def test_empty_directory_and_no_cases_exit_2(project, capsys):
    (project / "empty").mkdir()
    code, _, err = run(capsys, "test", "empty")
    assert code == 2 and "no test case found" in err
    assert run(capsys, "test", "missing-dir")[0] == 2


def test_empty_expect_missing_definition_and_invalid_fixture_are_errors(project, capsys):
    d = project / "fixtures" / "example-com-trainer-v1"
    write(d / "empty.yaml", fixture(expect={}))
    other = trainer()
    other["apiVersion"] = "example.com/v9"
    (project / "fixtures" / "elsewhere").mkdir()
    write(project / "fixtures" / "elsewhere" / "unnamed.yaml", fixture(obj=trainer()))
    write(project / "fixtures" / "nodef.yaml", fixture(obj=other))
    write(d / "invalid.yaml", fixture(expect={"statuses": ["Runing"]}))
    (d / "broken.yaml").write_text("apiVersion: kartalint/v1\nkind: KartaFixture\nexpect: [unclosed\n")
    (d / "dupkey.yaml").write_text(yaml.safe_dump(fixture()) + "name: again\n")
    code, out, _ = run(capsys, "test", "--definitions", "defs", "-f", "json")
    cases = {os.path.basename(c["file"]): c for c in json.loads(out)["cases"]}
    assert code == 1
    assert all(c["outcome"] == "error" for c in cases.values())
    assert "expect is empty" in cases["empty.yaml"]["messages"][0]
    assert "no definition for example.com/v9, Kind=Trainer" in cases["nodef.yaml"]["messages"][0]
    # a folder that names no definition is an error, never a silent fallback by GVK
    assert "fixture folder 'elsewhere' names no definition" in cases["unnamed.yaml"]["messages"][0]
    assert "expect.statuses[0]" in cases["invalid.yaml"]["messages"][0]
    assert cases["broken.yaml"]["messages"][0].startswith("fixtures/example-com-trainer-v1/broken.yaml:4:1:")
    assert "yaml-duplicate-key" in cases["dupkey.yaml"]["messages"][0]


def test_require_fixtures_reports_definitions_without_cases(project, capsys):
    (project / "defs" / "second.yaml").write_text(
        BASE_DEFINITION.replace("example-com-trainer-v1", "other-v1").replace("kind: Trainer", "kind: Other")
    )
    write(project / "fixtures" / "example-com-trainer-v1" / "a.yaml", fixture())
    assert run(capsys, "test", "--definitions", "defs")[0] == 0
    code, out, _ = run(capsys, "test", "--definitions", "defs", "--require-fixtures")
    assert code == 1 and "definition other-v1 has no fixture" in out


def test_select_with_k(project, capsys):
    for name in ("alpha", "beta"):
        write(project / "fixtures" / "example-com-trainer-v1" / f"{name}.yaml", fixture(name=name))
    code, out, _ = run(capsys, "test", "--definitions", "defs", "-k", "beta", "-v")
    assert code == 0 and "beta.yaml" in out and "alpha.yaml" not in out
    assert run(capsys, "test", "--definitions", "defs", "-k", "gamma")[0] == 2


# -- --update ---------------------------------------------------------------------------------------

FIXTURE_TEXT = """\
# a header comment that must survive
apiVersion: kartalint/v1
kind: KartaFixture
name:   "odd  spacing kept"
source: test
object:
  apiVersion: example.com/v1
  kind: Trainer
  metadata: {name: t, uid: u}
  spec:
    roles:
      - name: worker
        replicas: 3
        template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 2}}}]}}
  status: {phase: Running}
expect:
  # statuses the scheduler sees
  statuses: [Failed]
  components:
    worker:
      instances:
        worker: {replicas: 1, gpus: 2}   # per role
  gpus: 2
# trailing comment outside expect
"""


def test_update_rewrites_only_the_expect_block(project, capsys):
    path = project / "fixtures" / "example-com-trainer-v1" / "stale.yaml"
    path.write_text(FIXTURE_TEXT)
    assert run(capsys, "test", "--definitions", "defs")[0] == 1
    _code, _, err = run(capsys, "test", "--definitions", "defs", "--update")
    assert "updated 1 fixture(s)" in err
    text = path.read_text()
    before, after = FIXTURE_TEXT.split("expect:")[0], text.split("expect:")[0]
    assert before == after  # byte-identical before the block
    assert text.endswith("# trailing comment outside expect\n")
    block = yaml.safe_load(text)["expect"]
    assert block == {
        "statuses": ["Running"],
        "components": {"worker": {"instances": {"worker": {"replicas": 3, "gpus": 6}}}},
        "gpus": 6,
    }
    assert "# statuses the scheduler sees" in text and "# per role" in text
    assert run(capsys, "test", "--definitions", "defs")[0] == 0


def test_update_fills_an_empty_expect_and_refuses_in_ci(project, capsys, monkeypatch):
    path = project / "fixtures" / "example-com-trainer-v1" / "new.yaml"
    write(path, fixture(expect={}))
    before = path.read_bytes()
    monkeypatch.setenv("CI", "true")
    code, _, err = run(capsys, "test", "--definitions", "defs", "--update")  # in CI: a check that writes nothing
    assert code == 1 and "CI=true: --update runs as --check" in err and path.read_bytes() == before
    code, out, err = run(capsys, "test", "--definitions", "defs", "--update", "--force")
    assert code == 0 and "UPDATED" in out and "1 updated" in out, out + err
    assert yaml.safe_load(path.read_text())["expect"]["statuses"] == ["Running"]
    monkeypatch.delenv("CI")
    assert run(capsys, "test", "--definitions", "defs")[0] == 0


def test_update_then_test_both_exit_0_and_check_writes_nothing(project, capsys):
    path = project / "fixtures" / "example-com-trainer-v1" / "stale.yaml"
    write(path, fixture(expect={"statuses": ["Failed"], "gpus": 99}))
    write(project / "fixtures" / "example-com-trainer-v1" / "good.yaml", fixture(name="good"))
    before = path.read_bytes()
    code, out, err = run(capsys, "test", "--definitions", "defs", "--update", "--check")
    assert code == 1 and "1 fixture(s) would be updated; nothing was written" in err and path.read_bytes() == before
    code, out, err = run(capsys, "test", "--definitions", "defs", "--update", "-f", "json")
    assert code == 0, out + err
    outcomes = {os.path.basename(c["file"]): c["outcome"] for c in json.loads(out)["cases"]}
    assert outcomes == {"stale.yaml": "updated", "good.yaml": "passed"}
    assert json.loads(out)["summary"]["updated"] == 1
    assert run(capsys, "test", "--definitions", "defs")[0] == 0
    # a failure --update cannot fix (an xfail that passes) still fails the run
    write(project / "fixtures" / "example-com-trainer-v1" / "xpass.yaml", fixture(name="xpass", xfail="was broken"))
    assert run(capsys, "test", "--definitions", "defs", "--update")[0] == 1


# -- outputs ----------------------------------------------------------------------------------------


def test_junit_output(project, capsys):
    write(project / "fixtures" / "example-com-trainer-v1" / "ok.yaml", fixture())
    write(project / "fixtures" / "example-com-trainer-v1" / "bad.yaml", fixture(expect={"gpus": 1}))
    _code, out, _ = run(capsys, "test", "--definitions", "defs", "-f", "junit")
    assert_valid_junit(out.split("\n", 1)[1])
    root = ET.fromstring(out.split("\n", 1)[1])
    assert root.tag == "testsuites" and root.get("tests") == "2" and root.get("failures") == "1"
    failures = root.findall(".//failure")
    assert len(failures) == 1 and failures[0].get("message") == "gpus: expected 1, got 8"


def test_coverage_and_min_coverage(project, capsys):
    write(project / "fixtures" / "example-com-trainer-v1" / "a.yaml", fixture())
    code, out, _ = run(capsys, "test", "--definitions", "defs", "-f", "json")
    cov = json.loads(out)["coverage"][0]
    assert cov["statusMappings"] == {"total": 2, "matched": 1, "percent": 50.0, "neverMatched": ["failed[0]"]}
    assert cov["components"]["worker"] == ["worker"]
    code, out, _err = run(capsys, "test", "--definitions", "defs", "--min-coverage", "80")
    assert code == 1 and "below --min-coverage 80%): never matched failed[0]" in out
    assert out.rstrip().endswith(
        "0 failed, 1 error(s) in " + out.rstrip().rsplit(" in ", 1)[1]
    )  # counted in the summary


# -- test-time rules -----------------------------------------------------------------------------------


def test_every_test_time_rule_fires(project, capsys):
    definition = yaml.safe_load(BASE_DEFINITION)
    comps = definition["spec"]["structureDefinition"]["childComponents"]
    twin = json.loads(json.dumps(comps[0]))
    twin["name"] = "twin"
    twin.pop("instanceIdPath")
    twin["podSelector"] = {"componentTypeSelector": {"keyPath": '.metadata.labels["example.com/role"]'}}
    twin["specDefinition"]["podTemplateSpecPath"] = ".spec.roles[0].template"
    twin["scaleDefinition"]["replicasPath"] = ".spec.roles[0].replicas"
    comps.append(twin)
    status = definition["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]["statusMappings"]
    status["completed"] = [{"byPhase": "Running"}]
    (project / "defs" / "trainer.yaml").write_text(yaml.safe_dump(definition))
    obj = trainer(roles=[{"name": "w", "replicas": 1, "template": {}}, {"name": "w", "replicas": 2, "template": {}}])
    pods = [
        {"metadata": {"name": "p0", "labels": {"example.com/role": "w"}}},
        {"metadata": {"name": "stray", "labels": {}}},
    ]
    write(
        project / "fixtures" / "example-com-trainer-v1" / "a.yaml",
        fixture(obj=obj, pods=pods, expect={"statuses": ["Running", "Completed"]}),
    )
    _code, out, _ = run(capsys, "test", "--definitions", "defs", "-f", "json")
    found = {f["rule"]: f["message"] for f in json.loads(out)["cases"][0]["findings"]}
    assert set(found) == {r.id for r in registry.iter_rules(["test"])}
    assert found["selectors-not-exclusive"] == "pod p0 is selected by worker, twin"
    assert found["pod-unmatched"] == "pod stray is selected by no component"
    assert found["contradictory-statuses"] == "Running and Completed matched together"
    assert found["instances-out-of-step"] == "worker: duplicate instance ids ['w'] collapse (last wins)"


# -- predictions and recordings ------------------------------------------------------------------------


def test_karta_verify_prediction(project, capsys):
    d = project / "fixtures" / "predictions"
    d.mkdir()
    write(d / "trainer.yaml", trainer())
    (d / "trainer.predict.yaml").write_text(
        "status: [Running]\ncomponents:\n- key: worker[worker]\n  replicas: 2\n  podSpec: true\n  containers: [c]\n"
    )
    assert run(capsys, "test", "--definitions", "defs", "fixtures/predictions")[0] == 0
    (d / "trainer.predict.yaml").write_text("status: [Running]\ncomponents:\n- key: worker[leader]\n  replicas: 2\n")
    code, out, _ = run(capsys, "test", "--definitions", "defs", "fixtures/predictions")
    assert (
        code == 1
        and "components[worker[leader]]: expected a component instance, got not extracted (extracted: worker[worker])"
        in out
    )


def test_our_catalog_reproduces_every_recorded_state_it_covers(capsys):
    """Every recorded frame passes, but the JobSet frames the catalog deliberately reads as
    Initializing where the recorder left them Undefined (issue 50: no Job counted yet), which
    tests/data/catalog-replay-departures.yaml lists."""
    covered = [
        os.path.join(REFERENCE, "real-data", p)
        for p in ("jobset", "lws", os.path.join("kubeflow", "v1.9.4", "kubeflow-org-pytorchjob-v1"))
    ]
    departures = os.path.join(ROOT, "tests", "data", "catalog-replay-departures.yaml")
    code, out, _ = run(capsys, "test", *covered, "--known-failures", departures)
    assert code == 0 and " 0 failed, 0 error(s)" in out, out[-3000:]


def test_lint_checks_fixture_files(project, capsys):
    doc = fixture()
    doc["expect"]["statusses"] = ["Running"]
    write(project / "fixtures" / "example-com-trainer-v1" / "typo.yaml", doc)
    code, out, _err = run(capsys, "lint", "fixtures")
    assert code == 1 and "fixture-invalid" in out and "statusses" in out


def test_new_fixture_snapshots_the_current_evaluation(project, capsys):
    write(project / "obj.yaml", trainer())
    out = project / "fixtures" / "example-com-trainer-v1" / "snap.yaml"
    code, _, err = run(capsys, "new", "fixture", "obj.yaml", "--catalog", "defs", "-o", str(out))
    assert code == 0 and "review the expect block" in err
    doc = yaml.safe_load(out.read_text())
    assert doc["kind"] == "KartaFixture" and doc["source"] == "object file obj.yaml"
    assert doc["expect"]["statuses"] == ["Running"]
    assert doc["expect"]["components"]["worker"]["instances"] == {"worker": {"replicas": 2, "gpus": 8}}
    assert doc["expect"]["gpus"] == 8
    assert run(capsys, "test", "--definitions", "defs")[0] == 0
    code, stdout, _ = run(capsys, "new", "fixture", "obj.yaml", "--definition", "defs/trainer.yaml")
    assert code == 0 and "definition: defs/trainer.yaml" in stdout
    code, _, err = run(capsys, "new", "fixture", "missing.yaml")
    assert code == 2


def test_new_fixture_pins_lint_findings_only_when_asked(project, capsys):
    """Issue 43: a fixture pins what the definition computes; lint's verdict (here
    scale-path-not-null-safe) is pinned only with --pin-lint."""
    (project / "defs" / "trainer.yaml").write_text(
        BASE_DEFINITION.replace(
            "replicasPath: .spec.roles[] | (.replicas // 1)", "replicasPath: .spec.roles[] | .replicas * 1"
        )
    )
    write(project / "obj.yaml", trainer())
    plain, pinned = project / "plain.yaml", project / "pinned.yaml"
    assert run(capsys, "new", "fixture", "obj.yaml", "--definition", "defs/trainer.yaml", "-o", str(plain))[0] == 0
    assert "lint" not in yaml.safe_load(plain.read_text())["expect"]
    argv = ("new", "fixture", "obj.yaml", "--definition", "defs/trainer.yaml", "--pin-lint", "-o", str(pinned))
    assert run(capsys, *argv)[0] == 0
    assert yaml.safe_load(pinned.read_text())["expect"]["lint"] == ["scale-path-not-null-safe"]


def test_hint_locations_open_from_where_the_command_ran(project, capsys, monkeypatch):
    changed = BASE_DEFINITION.replace(
        "replicasPath: .spec.roles[] | (.replicas // 1)", "replicasPath: .spec.roles[] | .replicas * .parallelism"
    )
    (project / "defs" / "trainer.yaml").write_text(changed)
    write(
        project / "fixtures" / "example-com-trainer-v1" / "running.yaml",
        fixture(expect={"components": {"worker": {"instances": {"worker": {"replicas": 2}}}}}),
    )
    monkeypatch.chdir(project / "fixtures")  # the definition is not under the current folder: an absolute path
    code, out, _ = run(capsys, "test", "--definitions", "../defs", ".")
    assert code == 1
    hint = next(line for line in out.splitlines() if "scale-path-not-null-safe at" in line)
    location = hint.split(" at ")[-1].rstrip(")")
    path, line, _column = location.rsplit(":", 2)
    assert os.path.isabs(path) and os.path.samefile(path, project / "defs" / "trainer.yaml") and line.isdigit()


def test_a_fixture_pinned_with_pods_fails_when_the_selector_key_changes(project, capsys):
    obj = trainer(
        roles=[{"name": "leader", "replicas": 1, "template": {}}, {"name": "worker", "replicas": 2, "template": {}}]
    )
    write(project / "obj.yaml", obj)
    pods = [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "labels": {"example.com/role": role}},
            "status": {"phase": "Running"},
        }
        for name, role in (("l-0", "leader"), ("w-0", "worker"), ("w-1", "worker"))
    ]
    write(project / "pods.yaml", {"apiVersion": "v1", "kind": "List", "items": pods})
    out = project / "fixtures" / "example-com-trainer-v1" / "pinned.yaml"
    code, _, err = run(capsys, "new", "fixture", "obj.yaml", "--pods", "pods.yaml", "--catalog", "defs", "-o", str(out))
    assert code == 0, err
    expect = yaml.safe_load(out.read_text())["expect"]
    assert expect["unmatchedPods"] == []
    assert expect["components"]["worker"]["pods"] == ["l-0", "w-0", "w-1"]
    assert expect["components"]["worker"]["instances"]["leader"]["pods"] == ["l-0"]
    assert expect["components"]["worker"]["instances"]["worker"]["pods"] == ["w-0", "w-1"]
    assert run(capsys, "test", "--definitions", "defs")[0] == 0
    definition = project / "defs" / "trainer.yaml"
    definition.write_text(
        definition.read_text().replace(
            'keyPath: .metadata.labels["example.com/role"]', 'keyPath: .metadata.labels["example.com/rolle"]'
        )
    )
    code, out_text, _ = run(capsys, "test", "--definitions", "defs")
    assert code == 1, "a selector regression must not pass"
    assert 'unmatchedPods: expected [], got ["l-0", "w-0", "w-1"]' in out_text
    assert 'worker.pods: expected ["l-0", "w-0", "w-1"], got []' in out_text


def test_a_fixture_of_an_invalid_definition_names_the_places(project, capsys):
    definition = yaml.safe_load(BASE_DEFINITION)
    definition["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]["statusMappings"]["failed"] = [
        {"byExpression": '.status.phase == "Failed"'}
    ]
    (project / "defs" / "trainer.yaml").write_text(yaml.safe_dump(definition, sort_keys=False))
    write(project / "fixtures" / "example-com-trainer-v1" / "f.yaml", fixture())
    code, out, _ = run(capsys, "test", "--definitions", "defs")
    assert code == 1 and "ERROR fixtures/example-com-trainer-v1/f.yaml" in out
    assert re.search(r"defs/trainer\.yaml:\d+:\d+: .*byExpression must be object, not string \(wrong-type\)", out), out
    assert "is invalid (upstream refuses it)" in out


def test_one_table_of_expectations_matches_the_fixture_schema():
    import json

    from kartalint.rules.fixture_schema import SCHEMA_FILE
    from kartalint.testing.compare import EXPECTATIONS

    with open(SCHEMA_FILE, encoding="utf-8") as handle:
        schema = json.load(handle)
    assert set(schema["$defs"]["expect"]["properties"]) == set(EXPECTATIONS)
