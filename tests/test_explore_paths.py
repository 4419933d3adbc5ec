"""Issue 43, item 5: explore follows a replica count through `if`/`elif`/`else` and `//`, counts
the paths a definition reads that no object tried reached ("N of M paths exercised", every format),
and fails below `--min-path-coverage` / `explore: {min-path-coverage}`; a schema-less CRD's
definition says which paths went unreached instead of a bare "0 failures"."""

from __future__ import annotations

import json
import os
import re

import pytest
import yaml
from conftest import ROOT

from kartalint.cli import main

pytest.importorskip("hypothesis")

from test_ci_outputs import assert_valid_junit, assert_valid_sarif, junitparser

SCHEMALESS = os.path.join(ROOT, "tests", "data", "from-objects", "appwrapper", "crd-schemaless.yaml")

# An AppWrapper (workload.codeflare.dev/v1beta2) wrapping a PyTorchJob, as `new --crd --from` drafts
# it from tests/data/from-objects/appwrapper: the pods' paths are under spec.components, which the
# schema-less CRD leaves free-form.
APPWRAPPER = """\
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: workload-codeflare-dev-appwrapper-v1beta2}
spec:
  structureDefinition:
    rootComponent:
      name: appwrapper
      kind: {group: workload.codeflare.dev, version: v1beta2, kind: AppWrapper}
      statusDefinition:
        phaseDefinition: {path: .status.phase}
        statusMappings:
          running: [{byPhase: Running}]
          failed: [{byPhase: Failed}]
    childComponents:
    - name: worker
      ownerRef: appwrapper
      kind: {group: "", version: v1, kind: Pod}
      instanceIdPath: .spec.components[]? | .template.metadata.name
      specDefinition:
        podTemplateSpecPath: .spec.components[]? | .template.spec.pytorchReplicaSpecs.Worker.template
      scaleDefinition:
        replicasPath: .spec.components[]? | (.template.spec.pytorchReplicaSpecs.Worker.replicas // 1)
      podSelector:
        componentTypeSelector: {keyPath: '.metadata.labels["training.kubeflow.org/replica-type"]', value: worker}
        componentInstanceSelector: {idPath: '.metadata.labels["training.kubeflow.org/job-name"]'}
"""


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def appwrapper(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "appwrapper.yaml").write_text(APPWRAPPER)
    return tmp_path


EXPLORE = ("explore", "appwrapper.yaml", "--crd", SCHEMALESS, "--examples", "20", "--max-time", "600")
UNREACHED = [
    ".spec.components[].template.metadata.name",
    ".spec.components[].template.spec.pytorchReplicaSpecs.Worker.template",
    ".spec.components[].template.spec.pytorchReplicaSpecs.Worker.replicas",
]


def test_a_schemaless_crd_s_definition_reports_the_paths_no_object_reached(appwrapper, capsys):
    code, out, _ = run(capsys, *EXPLORE)
    assert code == 0, "no property failed: the paths are a note without a minimum"
    first, *rest = out.splitlines()
    assert re.search(r": \d+ object\(s\), 0 failure\(s\), 1 of 4 paths exercised$", first), first
    assert rest == [f"  not exercised: {path} (no object tried has it)" for path in UNREACHED]
    code, out, _ = run(capsys, *EXPLORE, "-f", "json")
    assert json.loads(out)["paths"] == {"read": 4, "exercised": 1, "unreached": UNREACHED}


def test_a_minimum_path_coverage_fails_below_it_from_the_flag_or_the_configuration(appwrapper, capsys):
    code, out, _ = run(capsys, *EXPLORE, "--min-path-coverage", "50")
    assert code == 1 and "  path coverage 25% is below the minimum 50%" in out
    code, out, _ = run(capsys, *EXPLORE, "--min-path-coverage", "25", "-f", "json")
    assert code == 0 and json.loads(out)["paths"]["belowMinimum"] is False
    (appwrapper / ".kartalint.yaml").write_text("explore:\n  min-path-coverage: 50\n")
    code, out, _ = run(capsys, *EXPLORE, "-f", "json")
    paths = json.loads(out)["paths"]
    assert code == 1 and paths["minimum"] == 50 and paths["belowMinimum"] is True
    code, _, _ = run(capsys, *EXPLORE, "--min-path-coverage", "0")
    assert code == 0, "the flag wins over the configuration"
    with pytest.raises(SystemExit) as exit_info:
        main([*EXPLORE, "--min-path-coverage", "x"])
    assert exit_info.value.code == 2
    code, _, err = run(capsys, *EXPLORE, "--min-path-coverage", "101")
    assert code == 2 and "--min-path-coverage must be a percentage from 0 to 100" in err


def test_sarif_names_each_unreached_path_where_it_is_read(appwrapper, capsys):
    code, out, _ = run(capsys, *EXPLORE, "-f", "sarif", "--min-path-coverage", "50")
    document = json.loads(out)
    assert_valid_sarif(document)
    (run_,) = document["runs"]
    assert code == 1 and run_["automationDetails"]["id"] == "kartalint/explore/"
    rules = [rule["id"] for rule in run_["tool"]["driver"]["rules"]]
    assert "replicas-match-spec" in rules and "path-not-exercised" in rules
    notes = [r for r in run_["results"] if r["ruleId"] == "path-not-exercised"]
    assert [r["message"]["text"].split(":")[0] for r in notes] == UNREACHED
    text = APPWRAPPER.splitlines()
    for result in notes:
        region = result["locations"][0]["physicalLocation"]["region"]
        line = text[region["startLine"] - 1]
        read = line[region["startColumn"] - 1 : region["endColumn"] - 1]
        assert result["message"]["text"].split(":")[0].split("]")[-1].split(".")[-1] in read, (read, result)
        assert rules[result["ruleIndex"]] == "path-not-exercised"
    (below,) = [r for r in run_["results"] if r["ruleId"] == "path-coverage-below-minimum"]
    assert below["level"] == "error" and "25% is below the minimum 50%" in below["message"]["text"]


def test_junit_has_a_case_per_property_and_one_for_the_paths(appwrapper, capsys):
    code, _, _ = run(capsys, *EXPLORE, "-f", "junit", "-o", "explore.xml", "--min-path-coverage", "50")
    assert code == 1
    assert_valid_junit(appwrapper / "explore.xml")
    xml = junitparser.JUnitXml.fromfile(str(appwrapper / "explore.xml"))
    (suite,) = list(xml)
    cases = {case.name: case for case in suite}
    assert "no-extraction-error" in cases and "paths exercised" in cases
    (failure,) = cases["paths exercised"].result
    assert isinstance(failure, junitparser.Failure) and failure.message == "path coverage 25% is below the minimum 50%"
    assert all(path in failure.text for path in UNREACHED)


# -- a count that chooses between fields --------------------------------------------------------------

CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "servers.example.com"},
    "spec": {
        "group": "example.com",
        "names": {"kind": "Server", "plural": "servers"},
        "scope": "Namespaced",
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "properties": {
                            "spec": {
                                "type": "object",
                                "properties": {
                                    "scalingMode": {"type": "string", "enum": ["DaemonSet", "StatefulSet"]},
                                    "replicas": {"type": "integer", "default": 1, "minimum": 0},
                                    "nodes": {"type": "integer", "default": 3, "minimum": 0},
                                    "template": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                                    "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                                },
                            }
                        },
                    }
                },
            }
        ],
    },
}
SERVER = """\
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: example-com-server-v1}
spec:
  structureDefinition:
    rootComponent:
      name: server
      kind: {group: example.com, version: v1, kind: Server}
      specDefinition: {podTemplateSpecPath: .spec.template}
      scaleDefinition:
        replicasPath: REPLICAS
      statusDefinition:
        phaseDefinition: {path: .status.phase}
        statusMappings:
          running: [{byPhase: Running}]
"""


@pytest.mark.parametrize(
    ("replicas", "fails"),
    [
        ('if .spec.scalingMode == "DaemonSet" then (.spec.nodes // 3) else (.spec.replicas // 2) end', True),
        ('if .spec.scalingMode == "DaemonSet" then (.spec.nodes // 2) else (.spec.replicas // 1) end', True),
        ('if .spec.scalingMode == "DaemonSet" then (.spec.nodes // 3) else (.spec.replicas // 1) end', False),
        (
            'if .spec.scalingMode == "DaemonSet" then .spec.nodes // 3 elif .spec.template then 1 '
            "else (.spec.replicas // 2) end",
            True,
        ),
        (".spec.replicas // .spec.nodes", True),  # the API server fills replicas in: nodes never counts
    ],
)
def test_replicas_match_spec_follows_every_branch_and_alternative(tmp_path, capsys, monkeypatch, replicas, fails):
    """The spec check used to stop at an `if` (or `A // B`) around the count: a `// 2` where the
    CRD defaults replicas to 1 passed. It now runs the branch each object takes."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "crd.yaml").write_text(yaml.safe_dump(CRD))
    (tmp_path / "server.yaml").write_text(SERVER.replace("REPLICAS", f"'{replicas}'"))
    code, out, _ = run(capsys, "explore", "server.yaml", "--crd", "crd.yaml", "--examples", "200", "-f", "json")
    failures = [f for f in json.loads(out)["failures"] if f["property"] == "replicas-match-spec"]
    assert (code, bool(failures)) == ((1, True) if fails else (0, False)), out
    if fails:
        assert "this object takes asks for" in failures[0]["message"]


def test_a_failure_of_a_status_matcher_quotes_lint_s_hint_for_it(tmp_path, capsys, monkeypatch):
    """A failing field inside a list of matchers (`statusMappings.failed[0]`) finds lint's finding
    on that matcher: here the optional map iterated with to_entries (crd-optional-iteration)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "crd.yaml").write_text(yaml.safe_dump(CRD))
    matcher = "          failed: [{byExpression: {expression: '.spec.labels | to_entries | any(.key == \"x\")', expectedResult: 'true'}}]\n"
    (tmp_path / "server.yaml").write_text(SERVER.replace("REPLICAS", "'.spec.replicas // 1'") + matcher)
    code, out, _ = run(capsys, "explore", "server.yaml", "--crd", "crd.yaml", "--examples", "50", "-f", "json")
    (failure,) = json.loads(out)["failures"]
    assert code == 1 and failure["field"] == "server.statusDefinition.statusMappings.failed[0]"
    assert (
        failure["hint"].endswith("(crd-optional-iteration)") and "(.spec.labels // {}) | to_entries" in failure["hint"]
    )
