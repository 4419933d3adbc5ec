"""The shipped JSON Schema, its generation from the vendored CRD, and the converter's rules."""

from __future__ import annotations

import os

from jsonschema import Draft202012Validator

from kartalint import schema
from kartalint.schema.convert import convert


def test_shipped_schema_matches_vendored_crd():
    with open(schema.SCHEMA_FILE, encoding="utf-8") as handle:
        assert handle.read() == schema.render(schema.generate()), (
            "regenerate with `python -m kartalint schema` after `generate()`"
        )


def test_schema_is_valid_json_schema():
    Draft202012Validator.check_schema(schema.karta_schema())


def test_strict_about_unknown_fields_and_honours_preserve_unknown():
    out = convert({"type": "object", "properties": {"a": {"type": "string"}}})
    assert out["additionalProperties"] is False
    out = convert(
        {"type": "object", "properties": {"a": {"type": "string"}}, "x-kubernetes-preserve-unknown-fields": True}
    )
    assert "additionalProperties" not in out


def test_nullable_int_or_string_and_sets():
    assert convert({"type": "string", "nullable": True})["type"] == ["string", "null"]
    assert convert({"x-kubernetes-int-or-string": True})["anyOf"] == [{"type": "integer"}, {"type": "string"}]
    out = convert({"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"})
    assert out["uniqueItems"] is True


def test_cel_rules_become_json_schema():
    out = convert(
        {
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "string"}, "v": {"type": "string"}},
            "x-kubernetes-validations": [
                {"rule": "has(self.a) || has(self.b)", "message": "one"},
                {"rule": "!has(self.v) || has(self.a)", "message": "two"},
                {"rule": "self.a.size() < 3", "message": "three"},
            ],
        }
    )
    validator = Draft202012Validator(out)
    assert not validator.is_valid({})
    assert validator.is_valid({"b": "x"})
    assert not validator.is_valid({"b": "x", "v": "y"})
    assert out["x-kartalint-unchecked"] == [".: self.a.size() < 3"]


def test_list_map_keys_enforced():
    validator = schema.validator()
    doc = {
        "apiVersion": "run.ai/v1alpha1",
        "kind": "Karta",
        "spec": {
            "structureDefinition": {
                "rootComponent": {"name": "r"},
                "additionalChildKinds": [
                    {"group": "a", "version": "v1", "kind": "X"},
                    {"group": "b", "version": "v1", "kind": "X"},
                ],
            }
        },
    }
    errors = list(validator.iter_errors(doc))
    assert [e.validator for e in errors] == ["x-kubernetes-list-map-keys"]
    assert list(errors[0].absolute_path) == ["spec", "structureDefinition", "additionalChildKinds", 1]


def test_condition_field_defaults_are_in_the_schema():
    cond = schema.karta_schema()["properties"]["spec"]["properties"]["structureDefinition"]["properties"][
        "rootComponent"
    ]["properties"]["statusDefinition"]["properties"]["conditionsDefinition"]["properties"]
    assert {
        k: cond[k]["default"] for k in ("typeFieldName", "statusFieldName", "reasonFieldName", "messageFieldName")
    } == {
        "typeFieldName": "type",
        "statusFieldName": "status",
        "reasonFieldName": "reason",
        "messageFieldName": "message",
    }


def test_pyproject_lists_every_package():
    """pyproject.toml lists packages explicitly (to ship catalog/ as kartalint.catalog)."""
    import re

    from conftest import ROOT

    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as handle:
        section = handle.read().split("[tool.setuptools]")[1].split("[tool.setuptools.package-dir]")[0]
    listed = set(re.findall(r'"(kartalint(?:\.[a-z_]+)?)"', section))
    found = {"kartalint.catalog"}
    for root, dirs, files in os.walk(os.path.join(ROOT, "kartalint")):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        if "__init__.py" in files:
            found.add(os.path.relpath(root, ROOT).replace(os.sep, "."))
    assert listed == found


def test_regenerate_rewrites_the_shipped_schema(tmp_path, monkeypatch, capsys):
    from kartalint import schema
    from kartalint.cli import main

    target = tmp_path / "karta.schema.json"
    monkeypatch.setattr(schema, "SCHEMA_FILE", str(target))
    assert main(["schema", "--regenerate"]) == 0
    assert target.read_text() == schema.render(schema.generate())
    assert main(["schema", "--check"]) == 0  # against the file just written
