"""CRDs of the wrong shape (a hand-edited file, a fuzzer, a pull request) give one positioned
error in `new --crd`, `lint --crd` and `init --crd`, never a traceback or a silent pass."""

from __future__ import annotations

import os

import pytest
import yaml
from conftest import BASE_DEFINITION, ROOT

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


# -- keywords of the wrong type that pass the structural check (issue 34, items 9 and 21) ----------


def _roles(doc):
    return schema_of(doc)["properties"]["spec"]["properties"]["roles"]


def _replicas(doc):
    return _roles(doc)["items"]["properties"]["replicas"]


KEYWORD_BREAKS = [
    (
        lambda d: _roles(d).update({"x-kubernetes-validations": ["self.size() > 0"]}),
        "x-kubernetes-validations[0]: a rule must be a map",
    ),
    (
        lambda d: _roles(d).update({"x-kubernetes-validations": [{"rule": 5}]}),
        "x-kubernetes-validations[0].rule: must be a string",
    ),
    (
        lambda d: _roles(d).update({"x-kubernetes-validations": {"rule": "x"}}),
        "x-kubernetes-validations: must be a list of rules",
    ),
    (lambda d: _roles(d).update({"minItems": "two"}), "roles.minItems: must be an integer from 0, not 'two'"),
    (lambda d: _roles(d).update({"maxItems": -1}), "roles.maxItems: must be an integer from 0, not -1"),
    (lambda d: _replicas(d).update({"minimum": "abc"}), "replicas.minimum: must be a number, not a string"),
    (lambda d: _replicas(d).update({"maximum": [1]}), "replicas.maximum: must be a number, not a list"),
    (
        lambda d: _replicas(d).update({"minimum": 5, "maximum": 1}),
        "replicas.minimum: 5 leaves no value below maximum 1",
    ),
    (lambda d: _roles(d).update({"minItems": 4, "maxItems": 2}), "roles.minItems: 4 leaves no value below maxItems 2"),
    (lambda d: _replicas(d).update({"type": "int"}), "replicas.type: must be one of object, array, string"),
    (lambda d: _replicas(d).update({"default": "one"}), "replicas.default: 'one' is not of the schema's type integer"),
    (lambda d: _replicas(d).update({"nullable": "yes"}), "replicas.nullable: must be true or false"),
    (
        lambda d: _roles(d)["items"]["properties"]["name"].update({"pattern": "["}),
        "name.pattern: is not a regular expression",
    ),
    (
        lambda d: _roles(d)["items"]["properties"]["name"].update({"enum": ["a", {"b": 1}]}),
        "name.enum[1]: {'b': 1} is not of the schema's type string",
    ),
    (
        lambda d: _roles(d).update({"x-kubernetes-list-map-keys": [{"name": 1}]}),
        "roles.x-kubernetes-list-map-keys: must be a list of field names",
    ),
    (  # issue 45 item 16: a RecursionError in explore, read as a failed property
        lambda d: _roles(d).update(
            {"x-kubernetes-validations": [{"rule": "(" * 3000 + "self.size() > 0" + ")" * 3000}]}
        ),
        "x-kubernetes-validations[0].rule: the CEL rule is nested deeper than 64 levels (at character 65)",
    ),
    (  # issue 45 item 16: ValueError: Exceeds the limit (4300 digits)
        lambda d: _roles(d).update({"x-kubernetes-validations": [{"rule": "self.size() < " + "9" * 5000}]}),
        "x-kubernetes-validations[0].rule: the CEL rule holds the integer 9999999999... (5000 digits), outside CEL's",
    ),
]


def line_of(text: str, dotted: str) -> int:
    """The line (from 1) of the key at the dotted path (``a.b[0].c``) of a YAML text."""
    import re

    node = yaml.compose(text)
    line = 1
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", dotted):
        if part.startswith("["):
            node = node.value[int(part[1:-1])]
            line = node.start_mark.line + 1
        else:
            key, node = next((k, v) for k, v in node.value if k.value == part)
            line = key.start_mark.line + 1
    return line


@pytest.mark.parametrize(("break_it", "where"), KEYWORD_BREAKS, ids=[w.split(": ")[0] for _, w in KEYWORD_BREAKS])
def test_a_keyword_of_the_wrong_type_is_one_positioned_error_everywhere(tmp_path, capsys, monkeypatch, break_it, where):
    """The one CRD validation (kartalint.load.crd_validation) runs before new --crd, init --crd,
    lint --crd and explore use the CRD: exit 2, one error at the keyword's line, no traceback."""
    monkeypatch.chdir(tmp_path)
    doc = crd()
    break_it(doc)
    path = tmp_path / "crd.yaml"
    text = yaml.safe_dump(doc, sort_keys=False)
    path.write_text(text)
    definition = tmp_path / "trainer.yaml"
    definition.write_text(BASE_DEFINITION)
    explore = ["explore", str(definition), "--examples", "3", "--crd", str(path)]
    for argv in (
        ["new", "--crd", str(path)],
        ["init", "--crd", str(path)],
        ["lint", "--crd", str(path), DEFINITION],
        explore,
    ):
        code = main(argv)
        out, err = capsys.readouterr()
        assert code == 2, (argv, out, err)
        assert "Traceback" not in err
        [error] = [row for row in err.splitlines() if "error" in row]
        assert where in error, (argv, error)
        dotted = error.split(f"{path}:", 1)[1].split(": ", 2)[1]  # file:line:col: PATH: what
        assert f"{path}:{line_of(text, dotted)}:" in error, (argv, error)
    assert not (tmp_path / ".kartalint.yaml").exists()  # init wrote nothing
