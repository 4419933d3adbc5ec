"""CRDs of the wrong shape (a hand-edited file, a fuzzer, a pull request) give one positioned
error in `new --crd`, `lint --crd` and `init --crd`, never a traceback or a silent pass."""

from __future__ import annotations

import os

import pytest
import yaml
from conftest import ROOT

from kartalint.cli import main

TRAINER_CRD = os.path.join(ROOT, "tests", "data", "crds", "example.com_trainers.yaml")
DEFINITION = os.path.join(ROOT, "catalog", "jobset-x-k8s-io-jobset-v1alpha2.yaml")


def crd():
    with open(TRAINER_CRD, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def schema_of(doc):
    return doc["spec"]["versions"][0]["schema"]["openAPIV3Schema"]


def spec_properties_list(doc):
    schema_of(doc)["properties"]["spec"]["properties"] = [1, 2]


def status_a_string(doc):
    schema_of(doc)["properties"]["status"] = "x"


def items_a_list(doc):
    schema_of(doc)["properties"]["spec"]["properties"]["roles"]["items"] = [{"type": "object"}]


def required_a_map(doc):
    schema_of(doc)["required"] = {"spec": True}


def group_a_number(doc):
    doc["spec"]["group"] = 5


def versions_a_map(doc):
    doc["spec"]["versions"] = {"v1": {}}


def version_without_name(doc):
    del doc["spec"]["versions"][0]["name"]


@pytest.mark.parametrize(
    "break_it, where",
    [
        (
            spec_properties_list,
            "openAPIV3Schema.properties.spec.properties: must be a map of field names to schemas, not list",
        ),
        (status_a_string, "openAPIV3Schema.properties.status: a schema must be a map, not str"),
        (items_a_list, "properties.roles.items: a schema must be a map, not list"),
        (required_a_map, "openAPIV3Schema.required: must be a list of field names"),
        (group_a_number, "spec.group: must be a non-empty string"),
        (versions_a_map, "spec.versions: must be a list"),
        (version_without_name, "spec.versions[0]: must be a map with a string name"),
    ],
)
def test_a_malformed_crd_is_one_positioned_error(tmp_path, capsys, monkeypatch, break_it, where):
    monkeypatch.chdir(tmp_path)
    doc = crd()
    break_it(doc)
    path = tmp_path / "crd.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    for argv in (["new", "--crd", str(path)], ["lint", "--crd", str(path), DEFINITION], ["init", "--crd", str(path)]):
        code = main(argv)
        out, err = capsys.readouterr()
        assert code == 2, (argv, out, err)
        assert "Traceback" not in err
        [line] = [line for line in err.splitlines() if "error" in line]
        assert where in line, line
        assert f"{path}:" in line and line.split(f"{path}:")[1].split(":")[0].isdigit(), line  # file:line:col


def test_a_crd_that_is_not_yaml_or_not_a_crd(tmp_path, capsys):
    broken = tmp_path / "broken.yaml"
    broken.write_text("spec: [unclosed\n")
    code = main(["lint", "--crd", str(broken), DEFINITION])
    _, err = capsys.readouterr()
    assert code == 2 and f"{broken}:2:1: YAML syntax error" in err
    code = main(["lint", "--crd", DEFINITION, DEFINITION])  # a definition given as the CRD
    _, err = capsys.readouterr()
    assert code == 2 and "no CustomResourceDefinition found" in err
    code = main(["new", "--crd", str(broken)])
    _, err = capsys.readouterr()
    assert code == 2 and "YAML syntax error" in err


def test_the_intact_crd_still_drafts_and_lints(tmp_path, capsys):
    assert main(["new", "--crd", TRAINER_CRD, "-o", str(tmp_path / "draft.yaml")]) == 0
    assert main(["lint", "--crd", TRAINER_CRD, DEFINITION]) == 0
