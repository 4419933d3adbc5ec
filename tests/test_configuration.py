"""One configuration validator (issue 44 item 3): the configuration is read with its JSON Schema
(``kartalint schema --config``) through the positioned validator, so the schema editors use and
the reader accept the same files; every problem is one line naming the file, line, column and key;
only what a schema cannot say (gitignore patterns, paths inside the project) is checked by hand."""

from __future__ import annotations

import json

import pytest

from kartalint.errors import ConfigError
from kartalint.model import Severity
from kartalint.project import MAX_CONFIGURABLE_BYTES, parse_config, read_config
from kartalint.rules import registry
from kartalint.schema import structural
from kartalint.schema.config import config_problem, config_schema

SCHEMA = config_schema(list(registry.RULES), MAX_CONFIGURABLE_BYTES)

# What the reader accepted before the schema read it, and still accepts: empty keys (a list
# commented out), settings in any case, a severity with spaces, one rule id for a pattern
ACCEPTED = [
    {},
    {"rules": None, "exclude": None, "per-file-ignores": None, "crds": None, "mutants": None, "explore": None},
    {"rules": {"jq-not-portable": "OFF", "jq-unsafe": "Warning", "scale-path-not-null-safe": " error "}},
    {"rules": {"jq-not-portable": False, "jq-unsafe": True, "unknown-field": "disabled", "wrong-type": "on"}},
    {"exclude": ["charts/", "fixtures/broken/**"], "per-file-ignores": {"legacy/**": "jq-not-portable"}},
    {"per-file-ignores": {"a/*.yaml": ["jq-unsafe", "jq-not-portable"]}, "max-file-size": 1000},
    {"crds": "crds", "definitions": ["defs", "more/*.yaml"], "fixtures": []},
    {"mutants": {"min-score": 0.8, "equivalent": [{"definition": "d", "mutant": "m", "reason": "r"}]}},
    {"mutants": {"min-score": None, "equivalent": None}, "explore": {"assume": None}},
    {"explore": {"assume": {".spec.tasks[].replicas": {"minimum": 1}}}},
]
# Each problem with the words the reader says and the place (line, column) of the value or key
REFUSED = [
    ("rulez: {}\n", "1:1", "unknown configuration key(s) rulez (known to kartalint"),
    ("rules: [a]\n", "1:8", "'rules' must map rule ids to off|error|warning|info"),
    ("rules:\n  no-such-rule: off\n", "2:3", "unknown rule 'no-such-rule' (see `kartalint rules`)"),
    (
        "rules:\n  jq-unsafe: loud\n",
        "2:14",
        "rule 'jq-unsafe': unknown severity 'loud' (expected error, warning or info)",
    ),
    ("rules:\n  jq-unsafe: 3\n", "2:14", "rule 'jq-unsafe': unknown severity '3'"),
    ("rules:\n  jq-unsafe: ' off'\n", "2:14", "rule 'jq-unsafe': unknown severity ' off'"),
    ("exclude: foo\n", "1:10", "'exclude' must be a list of gitignore patterns"),
    ("exclude: ['']\n", "1:11", "a pattern must be a non-empty string"),
    ("exclude:\n- 'a/[z-a]'\n", "2:3", "bad pattern 'a/[z-a]': bad character range z-a"),
    ("per-file-ignores: [x]\n", "1:19", "'per-file-ignores' must map gitignore patterns to lists of rule ids"),
    ("per-file-ignores:\n  '*.yaml': []\n", "2:13", "per-file-ignores '*.yaml': give a list of rule ids"),
    ("per-file-ignores:\n  '*.yaml': {a: b}\n", "2:13", "per-file-ignores '*.yaml': give a list of rule ids"),
    ("per-file-ignores:\n  '*.yaml': [1]\n", "2:14", "a rule id must be a string"),
    ("per-file-ignores:\n  '*.yaml': [jq-unsafe, nope]\n", "2:25", "unknown rule 'nope'"),
    ("per-file-ignores:\n  '*.yaml': nope\n", "2:13", "unknown rule 'nope'"),
    ("per-file-ignores:\n  '': [jq-unsafe]\n", "2:3", "a pattern must be a non-empty string"),
    ("per-file-ignores:\n  '!': [jq-unsafe]\n", "2:3", "bad pattern '!': a lone '!' negates nothing"),
    ("max-file-size: 0\n", "1:16", "'max-file-size' must be a number of bytes from 1 to 1073741824"),
    ("max-file-size: many\n", "1:16", "'max-file-size' must be a number of bytes"),
    ("max-file-size: 1073741825\n", "1:16", "'max-file-size' must be a number of bytes"),
    ("crds: {a: b}\n", "1:7", "'crds' must be a list of paths"),
    ("definitions: [defs, 3]\n", "1:21", "'definitions' must be a list of paths"),
    ("fixtures: ['']\n", "1:12", "'fixtures' must be a list of paths"),
    ("fixtures: [fixtures, ../secret]\n", "1:22", "outside the project root"),
    ('crds: "a\\0b"\n', "1:7", "holds a NUL character: not a path"),
    ("mutants: 3\n", "1:10", "'mutants' must be a mapping with min-score and equivalent"),
    ("mutants: {min: 1}\n", "1:10", "'mutants' must be a mapping with min-score and equivalent"),
    ("mutants:\n  min-score: 2\n", "2:14", "'mutants.min-score' must be a number from 0 to 1"),
    ("mutants:\n  min-score: true\n", "2:14", "'mutants.min-score' must be a number from 0 to 1"),
    ("mutants:\n  equivalent: {}\n", "2:15", "'mutants.equivalent' must be a list"),
    (
        "mutants:\n  equivalent:\n  - {definition: d, mutant: m, reason: ' '}\n",
        "3:5",
        "each 'mutants.equivalent' entry needs definition, mutant (an id) and a reason",
    ),
    ("explore: [assume]\n", "1:10", "'explore' must be a mapping with the keys 'assume' and 'min-path-coverage'"),
    ("explore: {assumes: {}}\n", "1:10", "'explore' must be a mapping with the keys 'assume' and 'min-path-coverage'"),
    ("explore:\n  assume: 3\n", "2:11", "'explore.assume' must map jq paths to JSON Schemas (mappings)"),
    ("explore:\n  assume:\n    .spec.x: 1\n", "3:14", "'explore.assume' must map jq paths to JSON Schemas (mappings)"),
    ("explore:\n  min-path-coverage: 120\n", "2:22", "'explore.min-path-coverage' must be a percentage from 0 to 100"),
    ("explore:\n  min-path-coverage: all\n", "2:22", "'explore.min-path-coverage' must be a percentage from 0 to 100"),
]


@pytest.mark.parametrize("data", ACCEPTED, ids=range(len(ACCEPTED)))
def test_the_schema_and_the_reader_accept_the_same_configurations(data, tmp_path):
    import jsonschema

    jsonschema.validate(data, SCHEMA)  # what an editor says
    (tmp_path / ".kartalint.yaml").write_text("{}\n")  # (the project root: its folder)
    parse_config(data, str(tmp_path / ".kartalint.yaml"), rules=registry.RULES)  # what kartalint says


@pytest.mark.parametrize("text, where, says", REFUSED, ids=[r[0].strip() for r in REFUSED])
def test_a_refused_configuration_is_one_positioned_line(text, where, says, tmp_path):
    path = tmp_path / ".kartalint.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        read_config(str(path), rules=registry.RULES)
    assert str(caught.value).startswith(f"{path}:{where}: ") and says in str(caught.value), str(caught.value)


@pytest.mark.parametrize(
    "text", [text for text, _, says in REFUSED if "pattern" not in says and "project" not in says and "NUL" not in says]
)
def test_what_the_reader_refuses_the_schema_refuses(text):
    """Besides the hand checks (patterns, paths inside the project), a configuration is refused
    exactly when the schema editors read refuses it."""
    import jsonschema
    import yaml

    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(yaml.safe_load(text), SCHEMA)


def test_the_positioned_validator_gives_jsonschemas_errors_on_configurations():
    """``structural`` (no jsonschema import: a one-file lint reads the configuration) yields the
    errors jsonschema yields on the configuration's schema: same paths, keywords and messages."""
    import jsonschema
    import yaml

    assert structural.supports(SCHEMA)
    validator = jsonschema.Draft202012Validator(SCHEMA)
    documents = [*ACCEPTED, *(yaml.safe_load(text) for text, _, _ in REFUSED)]
    compared = 0
    for data in documents:
        want = [(list(e.absolute_path), e.validator, e.message) for e in validator.iter_errors(data)]
        got = [(list(e.absolute_path), e.validator, e.message) for e in structural.iter_errors(SCHEMA, data)]
        assert got == want, data
        compared += len(want)
    assert compared > 25


def test_every_key_of_the_schema_has_its_own_words():
    """A problem under any key of the schema is said in kartalint's words for that key (never the
    validator's bare message)."""
    for key in SCHEMA["properties"]:
        problem = config_problem(
            {key: 12345 if key != "max-file-size" else "x"}, registry.RULES, MAX_CONFIGURABLE_BYTES
        )
        assert problem is not None and f"'{key}" in problem.message and "is not of type" not in problem.message, key


def test_settings_mean_what_they_say():
    config = parse_config(
        {"rules": {"jq-not-portable": "OFF", "jq-unsafe": " Info ", "unknown-field": True, "wrong-type": False}},
        "inline",
        rules=registry.RULES,
    )
    assert config.severities == {
        "jq-not-portable": None,
        "jq-unsafe": Severity.INFO,
        "unknown-field": registry.get("unknown-field").severity,
        "wrong-type": None,
    }


def test_the_configuration_names_only_the_rules_it_is_given(tmp_path):
    """The reader knows the rules it is handed (``rules=``; the commands hand it the registry's),
    and imports no rule module itself: a rule another registry knows is refused."""
    path = tmp_path / ".kartalint.yaml"
    path.write_text("rules:\n  jq-unsafe: off\n")
    assert read_config(str(path), rules=registry.RULES).severities == {"jq-unsafe": None}
    with pytest.raises(ConfigError, match="unknown rule 'jq-unsafe'"):
        read_config(str(path), rules={"house-rule": registry.get("jq-not-portable")})


def test_schema_command_prints_the_schema_the_reader_uses(capsys):
    from kartalint.cli import main

    assert main(["schema", "--config"]) == 0
    assert json.loads(capsys.readouterr().out) == SCHEMA
