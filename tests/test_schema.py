"""The shipped JSON Schema, its generation from the vendored CRD, and the converter's rules."""

from __future__ import annotations

import copy
import functools
import json
import os

import pytest
import yaml
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
    """pyproject.toml lists packages explicitly (to ship catalog/ and fixtures/ as kartalint.catalog and
    kartalint.fixtures)."""
    import re

    from conftest import ROOT

    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as handle:
        section = handle.read().split("[tool.setuptools]")[1].split("[tool.setuptools.package-dir]")[0]
    listed = set(re.findall(r'"(kartalint(?:\.[a-z_]+)*)"', section))
    found = {"kartalint.catalog", "kartalint.fixtures"}
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


# -- the structural validator (lint's path, no jsonschema import) gives jsonschema's errors -------


def _errors_both_ways(document):
    def record(error):
        return (
            tuple(error.absolute_path),
            error.validator,
            error.message,
            repr(error.validator_value),
            repr(error.instance),
            json.dumps(error.schema, sort_keys=True),
        )

    from kartalint.schema import structural

    ours = [record(e) for e in structural.iter_errors(schema.karta_schema(), document)]
    # errors inside the CRD's CEL rules are not the schema's to report (the parity rules do): skipped
    theirs = [record(e) for e in schema.validator().iter_errors(document) if "x-kartalint-cel" not in e.schema]
    # the check lint makes first (no error made for a valid document) says valid exactly when there is none
    assert structural.valid(schema.karta_schema(), document) is (not ours)
    return ours, theirs


@functools.lru_cache(maxsize=1)
def _documents():
    """(path, document) of every Karta document of the catalog, fixtures, rule examples and
    upstream's catalog, read once per test process (with libyaml: the same data, faster)."""
    import glob

    from conftest import REFERENCE, ROOT

    patterns = ["catalog/*.yaml", "fixtures/**/*.yaml", "kartalint/rules/examples/*/*.yaml"]
    paths = [p for pattern in patterns for p in glob.glob(os.path.join(ROOT, pattern), recursive=True)]
    paths += glob.glob(os.path.join(REFERENCE, "upstream-catalog", "*.yaml"))
    found = []
    for path in sorted(paths):
        with open(path, encoding="utf-8") as handle:
            try:
                docs = list(yaml.load_all(handle, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))
            except (yaml.YAMLError, ValueError):  # rule examples of broken YAML
                continue
        found += [(path, doc) for doc in docs if isinstance(doc, dict) and doc.get("kind") == "Karta"]
    return tuple(found)


def test_structural_validator_handles_the_shipped_schema():
    from kartalint.schema import structural

    assert structural.supports(schema.karta_schema())
    assert not structural.supports({"type": "object", "dependentRequired": {"a": ["b"]}})  # unknown keyword: jsonschema


def test_structural_validator_equals_jsonschema_on_every_definition():
    count = with_errors = 0
    for path, doc in _documents():
        ours, theirs = _errors_both_ways(doc)
        assert sorted(ours) == sorted(theirs), path
        count += 1
        with_errors += bool(ours)
    assert count > 60 and with_errors >= 10  # the rule examples bring the broken ones


_ODD_VALUES = [
    None,
    0,
    -1,
    1.0,
    2.5,
    True,
    "",
    "x",
    [],
    [1, 1],
    ["a", "a"],
    {},
    {"bogus": 1},
    {"name": "a"},
    float("nan"),
]


def _mutate(doc, rng):
    """Replace, delete or add a value at a random place of a copy of ``doc``."""
    doc = copy.deepcopy(doc)
    node = doc
    for _ in range(rng.randrange(1, 12)):
        children = (
            list(node.items()) if isinstance(node, dict) else list(enumerate(node)) if isinstance(node, list) else []
        )
        if not children:
            break
        key, child = rng.choice(children)
        if not isinstance(child, (dict, list)) or rng.random() < 0.25:
            action = rng.random()
            if action < 0.6:
                node[key] = rng.choice(_ODD_VALUES)
            elif action < 0.8 and isinstance(node, dict):
                del node[key]
            elif isinstance(node, dict):
                node[rng.choice(["bogus", "Name", "replicasPath ", 7])] = rng.choice(_ODD_VALUES)
            else:
                node.append(copy.deepcopy(child))  # a duplicate entry (keyed lists, sets)
            return doc
        node = child
    return doc


@pytest.mark.no_cover  # 1500 mutations of definitions other tests validate: cost, no new line
def test_structural_validator_equals_jsonschema_on_mutated_definitions():
    import random

    documents = [doc for _, doc in _documents()]
    rng = random.Random(19)
    differing = 0
    for _ in range(1500):
        doc = _mutate(rng.choice(documents), rng)
        ours, theirs = _errors_both_ways(doc)
        assert sorted(ours) == sorted(theirs), json.dumps(doc, default=str)[:2000]
        differing += bool(ours)
    assert differing > 500  # the mutations do break the schema


def test_lint_findings_are_the_same_through_jsonschema(monkeypatch):
    import glob

    from conftest import ROOT

    from kartalint.lint import lint_paths
    from kartalint.project import Config

    paths = sorted(glob.glob(os.path.join(ROOT, "kartalint", "rules", "examples", "*", "*.yaml")))
    paths += sorted(glob.glob(os.path.join(ROOT, "catalog", "*.yaml")))
    fast = lint_paths(paths, Config()).findings
    monkeypatch.setattr(schema, "_structural_ok", lambda: False)
    slow = lint_paths(paths, Config()).findings
    assert fast == slow
    assert any(f.rule in ("unknown-field", "wrong-type", "missing-required-field") for f in fast)
