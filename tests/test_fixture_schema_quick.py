"""The fixture schema checked by kartalint's own validator first (``schema.structural``, references
inlined): it must call valid exactly the fixtures ``jsonschema`` calls valid, so a valid fixture
is linted without importing ``jsonschema`` and an invalid one is still worded by it."""

from __future__ import annotations

import copy
import glob
import json
import os
import pathlib
import subprocess
import sys
from typing import Any

import jsonschema
import pytest
import yaml
from conftest import REFERENCE, ROOT

from kartalint.rules import fixture_schema
from kartalint.schema import refs, structural


def _documents() -> list[Any]:
    """Every fixture document of the repository, the rule examples and the reference data."""
    patterns = [
        os.path.join(ROOT, "fixtures", "**", "*.yaml"),
        os.path.join(ROOT, "tests", "data", "**", "*.yaml"),
        os.path.join(ROOT, "kartalint", "rules", "examples", "**", "*.yaml"),
        os.path.join(REFERENCE, "**", "*.yaml"),
    ]
    found = []
    for pattern in patterns:
        for path in sorted(glob.glob(pattern, recursive=True)):
            if os.path.getsize(path) > 2_000_000:
                continue
            with open(path, encoding="utf-8", errors="replace") as handle:
                text = handle.read()
            if "KartaFixture" not in text:
                continue
            try:
                found.extend(d for d in yaml.safe_load_all(text) if isinstance(d, dict) and "KartaFixture" in str(d))
            except yaml.YAMLError:
                continue
    return found


def _variants(document: dict) -> list[Any]:
    """Wrong versions of a valid fixture: each top-level key left out, both or neither of object
    and objectFile, wrong constants, unknown keys, wrong types and enum values in ``expect``."""
    out: list[Any] = []
    for key in document:
        out.append({k: v for k, v in document.items() if k != key})
    both = copy.deepcopy(document)
    both["objectFile"], both["object"] = "object.yaml", {"apiVersion": "v1", "kind": "Pod"}
    out.append(both)
    for key, value in [
        ("apiVersion", "kartalint/v2"),
        ("kind", "Karta"),
        ("name", ""),
        ("pods", {"a": 1}),
        ("definition", "a\x00b"),
        ("surprise", 1),
        ("object", {"kind": "Pod"}),
    ]:
        changed = copy.deepcopy(document)
        changed[key] = value
        out.append(changed)
    expect = document.get("expect")
    if isinstance(expect, dict):
        for key, value in [("statuses", ["Running", "Sleeping"]), ("gpus", "one"), ("unknown", 1), ("phase", 3)]:
            changed = copy.deepcopy(document)
            changed["expect"] = {**expect, key: value}
            out.append(changed)
    out.extend([[], "text", None, {}])
    return out


DOCUMENTS = _documents()


def test_there_are_fixtures_to_compare():
    assert len(DOCUMENTS) >= 30


def test_structural_calls_valid_exactly_what_jsonschema_calls_valid() -> None:
    validator = jsonschema.Draft202012Validator(fixture_schema._schema())
    quick = fixture_schema._quick_schema()
    assert quick is not None and structural.supports(quick)
    checked, invalid = 0, 0
    for document in DOCUMENTS:
        for instance in [document, *(_variants(document) if isinstance(document, dict) else [])]:
            theirs = next(validator.iter_errors(instance), None) is None
            ours = next(structural.iter_errors(quick, instance), None) is None
            assert ours == theirs, json.dumps(instance, default=str)[:400]
            checked += 1
            invalid += not theirs
    assert checked > 300 and invalid > 200 and checked - invalid >= 30  # both verdicts, many times


@pytest.mark.parametrize(
    ("schema", "instance"),
    [
        ({"const": "kartalint/v1"}, "kartalint/v2"),
        ({"const": 1}, True),
        ({"not": {"required": ["a"]}}, {"a": 1}),
        ({"oneOf": [{"required": ["a"]}, {"required": ["b"]}]}, {"c": 1}),
        ({"oneOf": [{"required": ["a"]}, {"required": ["b"]}]}, {"a": 1, "b": 2}),
    ],
)
def test_the_new_keywords_say_what_jsonschema_says(schema: dict, instance: Any) -> None:
    theirs = [
        (e.message, e.validator, list(e.absolute_path))
        for e in jsonschema.Draft202012Validator(schema).iter_errors(instance)
    ]
    ours = [(e.message, e.validator, list(e.absolute_path)) for e in structural.iter_errors(schema, instance)]
    assert ours == theirs


def test_references_are_inlined_or_refused():
    schema = {"$defs": {"n": {"type": "integer"}}, "properties": {"a": {"$ref": "#/$defs/n", "minimum": 1}}}
    assert refs.inline_refs(schema) == {"properties": {"a": {"minimum": 1, "allOf": [{"type": "integer"}]}}}
    with pytest.raises(refs.Unresolvable):
        refs.inline_refs({"$ref": "https://example.com/schema.json"})
    with pytest.raises(refs.Unresolvable):
        refs.inline_refs({"$defs": {"loop": {"items": {"$ref": "#/$defs/loop"}}}, "$ref": "#/$defs/loop"})


def test_linting_a_valid_fixture_does_not_import_jsonschema_an_invalid_one_does(tmp_path):
    """A valid fixture in the linted paths costs no jsonschema import; an invalid one is reported
    with jsonschema's words, as before."""
    texts = [pathlib.Path(p).read_text(encoding="utf-8") for p in sorted(glob.glob(f"{ROOT}/fixtures/*/*.yaml"))]
    valid = next(text for text in texts if "KartaFixture" in text)
    (tmp_path / "ok.yaml").write_text(valid, encoding="utf-8")
    bad = yaml.safe_load(valid)
    bad["apiVersion"] = "kartalint/v2"
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump(bad), encoding="utf-8")
    probe = (
        "import sys, io\n"
        "from kartalint.cli import main\n"
        "sys.stdout = io.StringIO()\n"
        "code = main(['lint', '--allow-empty', '-q', sys.argv[1]])\n"
        "out = sys.stdout.getvalue(); sys.stdout = sys.__stdout__\n"
        "print(code, 'jsonschema' in sys.modules, 'fixture-invalid' in out, \"'kartalint/v1' was expected\" in out)\n"
    )
    results = {}
    for name in ("ok.yaml", "bad.yaml"):
        proc = subprocess.run(
            [sys.executable, "-c", probe, name], cwd=tmp_path, capture_output=True, text=True, check=True
        )
        results[name] = proc.stdout.split()
    assert results["ok.yaml"][1:] == ["False", "False", "False"]
    assert results["bad.yaml"] == ["1", "True", "True", "True"]
