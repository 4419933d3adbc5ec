"""The configuration's JSON Schema (``.kartalint.yaml``; ``[tool.kartalint]`` has the same keys)
and its validation: the one description of what a configuration may hold.

``config_schema`` is what editors read (``kartalint schema --config``: yaml-language-server
validates the file with it and completes its keys); ``config_problem`` validates a configuration
with the same schema (``structural``, no jsonschema import on the lint path) and says the first
problem for people: where it is and what to write instead. ``kartalint.project`` reads the
configuration with it and checks by hand only what a schema cannot say (paths inside the project,
gitignore patterns).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping

import kartalint
from kartalint.schema import structural

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_OFF = ("off", "disable", "disabled", "false", "no")
_SEVERITIES = ("error", "warning", "info")


def _any_case(word: str) -> str:
    """A regular expression (ECMA and Python alike) that matches ``word`` in any case."""
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else c for c in word)


# A rule's setting as kartalint reads it: any case; a severity may have spaces around it.
SETTING_PATTERN = (
    "^(?:"
    + "|".join(_any_case(w) for w in (*_OFF, "on"))
    + r"|\s*(?:"
    + "|".join(_any_case(w) for w in _SEVERITIES)
    + r")\s*)$"
)


# house rules (docs/house-rules.md): the units a rule runs on, and the ids it may have
FOR_EACH = ("definition", "component", "status-mapping", "expression")
ID_PATTERN = r"^[a-z0-9][a-z0-9-]*$"
SEVERITY_PATTERN = r"^\s*(?:" + "|".join(_any_case(w) for w in _SEVERITIES) + r")\s*$"


def house_rules_schema() -> dict[str, Any]:
    """The schema of ``house-rules:``: an organisation's own checks in jq (docs/house-rules.md)."""
    text = {"type": "string", "pattern": r"\S"}
    return {
        "type": ["array", "null"],
        "description": "house rules: your own checks, in jq (docs/house-rules.md)",
        "items": {
            "type": "object",
            "additionalProperties": False,
            "required": ["id", "for-each", "when", "message"],
            "properties": {
                "id": {"type": "string", "pattern": ID_PATTERN, "maxLength": 100},
                "severity": {"type": "string", "pattern": SEVERITY_PATTERN},
                "for-each": {"enum": list(FOR_EACH)},
                "when": text,
                "message": text,
                "hint": {"type": ["string", "null"]},
                "why": {"type": ["string", "null"]},
                "paths": {"type": ["array", "null"], "items": {"type": "string", "minLength": 1}},
                "examples": {
                    "type": ["object", "null"],
                    "additionalProperties": False,
                    "required": ["bad", "good"],
                    "properties": {
                        "bad": {"type": "string", "minLength": 1},
                        "good": {"type": "string", "minLength": 1},
                    },
                },
            },
        },
    }


def config_schema(rule_ids: Collection[str], max_bytes: int) -> dict[str, Any]:
    """The JSON Schema of ``.kartalint.yaml`` (``kartalint schema --config``), given the rule ids
    that exist (house rules' included) and the largest ``max-file-size``. A key left empty
    (``exclude:`` with its list commented out) is null: the same as leaving the key out."""
    setting = {
        "anyOf": [
            {"enum": ["off", "on", *_SEVERITIES, *_OFF[1:], True, False]},
            {"type": "string", "pattern": SETTING_PATTERN},
        ]
    }
    paths = {"type": ["string", "array", "null"], "minLength": 1, "items": {"type": "string", "minLength": 1}}
    ids = sorted(rule_ids)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://github.com/kartalint/kartalint/blob/main/docs/configuration.md",
        "title": "kartalint configuration (.kartalint.yaml, [tool.kartalint])",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "extends": {
                "type": "string",
                "minLength": 1,
                "description": "another configuration file, merged under this one",
            },
            "rules": {
                "type": ["object", "null"],
                "description": "rule id: off | on | error | warning | info",
                "propertyNames": {"enum": ids},
                "additionalProperties": setting,
            },
            "exclude": {
                "type": ["array", "null"],
                "description": "gitignore patterns relative to the project root: files never read",
                "items": {"type": "string", "minLength": 1},
            },
            "per-file-ignores": {
                "type": ["object", "null"],
                "description": "gitignore pattern: the rule ids turned off in the files it matches",
                "propertyNames": {"minLength": 1},
                "additionalProperties": {
                    "type": ["string", "array"],
                    "if": {"type": "string"},
                    "then": {"enum": ids},
                    "minItems": 1,
                    "items": {"enum": ids},
                },
            },
            "house-rules": house_rules_schema(),
            "max-file-size": {"type": "integer", "minimum": 1, "maximum": max_bytes},
            "baseline": {
                "type": ["string", "null"],
                "minLength": 1,
                "description": "a baseline file (`kartalint lint --write-baseline FILE`): lint reports only the "
                "findings it does not hold; relative to this file, inside the project",
            },
            "crds": paths,
            "definitions": paths,
            "fixtures": paths,
            "explore": {
                "type": ["object", "null"],
                "description": "kartalint explore: what admission rules refuse and the CRD does not say, and the "
                "lowest share of the paths a definition reads that the objects tried must reach",
                "additionalProperties": False,
                "properties": {
                    "assume": {
                        "type": ["object", "null"],
                        "description": "jq path -> JSON Schema the generated values must also satisfy",
                        "additionalProperties": {"type": "object"},
                    },
                    "min-path-coverage": {"type": ["number", "null"], "minimum": 0, "maximum": 100},
                },
            },
            "mutants": {
                "type": ["object", "null"],
                "description": "kartalint test --mutants: the lowest mutation score, and mutants judged equivalent",
                "additionalProperties": False,
                "properties": {
                    "min-score": {"type": ["number", "null"], "minimum": 0, "maximum": 1},
                    "equivalent": {
                        "type": ["array", "null"],
                        "items": {
                            "type": "object",
                            "required": ["definition", "mutant", "reason"],
                            "properties": {
                                "definition": {"type": "string", "pattern": r"\S"},
                                "mutant": {"type": "string", "pattern": r"\S"},
                                "reason": {"type": "string", "pattern": r"\S"},
                            },
                        },
                    },
                },
            },
        },
    }


class ConfigProblem:
    """Why a configuration cannot be used: the message, and where (the key itself with ``key``)."""

    __slots__ = ("key", "message", "path")

    def __init__(self, message: str, path: tuple[Any, ...] = (), key: bool = False) -> None:
        """``message`` for people; ``path`` to the value (or the key, with ``key``) it is about."""
        self.message = message
        self.path = path
        self.key = key


def config_problem(data: Mapping[str, Any], rule_ids: Collection[str], max_bytes: int) -> ConfigProblem | None:
    """The first problem of one configuration file's ``data`` against ``config_schema`` (None when
    it is valid), worded for people."""
    schema = config_schema(rule_ids, max_bytes)
    error = next(structural.iter_errors(schema, data), None)
    if error is None:
        return None
    path = tuple(error.absolute_path)
    where = _location(schema, path)
    if not where and error.validator == "additionalProperties":
        known = ", ".join(sorted(schema["properties"]))
        unknown = sorted(str(k) for k in data if k not in schema["properties"])
        message = (
            f"unknown configuration key(s) {', '.join(unknown)} (known to kartalint {kartalint.__version__}: {known}; "
            "a key of a newer version needs that version)"
        )
        return ConfigProblem(message, (unknown[0],), key=True)
    explain = _EXPLAINED.get(where[0]) if where else None
    if explain is None:  # (the configuration itself is not a mapping: its readers say so first)
        return ConfigProblem(f"the configuration: {error.message}", path)
    return explain(error, path, where, max_bytes)


def _location(schema: dict[str, Any], path: tuple[Any, ...]) -> tuple[str, ...]:
    """``path`` with the names the schema does not know (rule ids, patterns, list indexes) as ``*``."""
    out: list[str] = []
    for step in path:
        known = schema.get("properties", {})
        if isinstance(step, str) and step in known:
            out.append(step)
            schema = known[step]
        else:
            out.append("*")
            sub = schema.get("items") if isinstance(step, int) else schema.get("additionalProperties")
            schema = sub if isinstance(sub, dict) else {}
    return tuple(out)


def _rules(error: structural.SchemaError, path: tuple, where: tuple, max_bytes: int) -> ConfigProblem:
    if where == ("rules",) and error.validator == "enum":  # propertyNames: the rule id is not known
        return ConfigProblem(f"unknown rule '{error.instance}' (see `kartalint rules`)", (*path, error.instance), True)
    if where == ("rules", "*"):
        text = str(error.instance).lower()
        message = f"unknown severity {text!r} (expected error, warning or info)"
        return ConfigProblem(f"rule '{path[1]}': {message}", path)
    return ConfigProblem("'rules' must map rule ids to off|error|warning|info", path)


def _exclude(error: structural.SchemaError, path: tuple, where: tuple, max_bytes: int) -> ConfigProblem:
    if where == ("exclude", "*"):
        return ConfigProblem("a pattern must be a non-empty string", path)
    return ConfigProblem("'exclude' must be a list of gitignore patterns", path)


def _per_file_ignores(error: structural.SchemaError, path: tuple, where: tuple, max_bytes: int) -> ConfigProblem:
    if where == ("per-file-ignores",) and error.validator == "minLength":  # propertyNames: an empty pattern
        return ConfigProblem("a pattern must be a non-empty string", (*path, error.instance), True)
    if where == ("per-file-ignores", "*", "*") and not isinstance(error.instance, str):
        return ConfigProblem("a rule id must be a string", path)
    if error.validator == "enum":  # the string, or an entry of the list
        return ConfigProblem(f"unknown rule '{error.instance}' (see `kartalint rules`)", path)
    if len(path) > 1:
        return ConfigProblem(f"per-file-ignores '{path[1]}': give a list of rule ids", path)
    return ConfigProblem("'per-file-ignores' must map gitignore patterns to lists of rule ids", path)


def _max_file_size(error: structural.SchemaError, path: tuple, where: tuple, max_bytes: int) -> ConfigProblem:
    return ConfigProblem(f"'max-file-size' must be a number of bytes from 1 to {max_bytes}", path)


def _paths(error: structural.SchemaError, path: tuple, where: tuple, max_bytes: int) -> ConfigProblem:
    return ConfigProblem(f"'{where[0]}' must be a list of paths", path)


def _mutants(error: structural.SchemaError, path: tuple, where: tuple, max_bytes: int) -> ConfigProblem:
    if where[:2] == ("mutants", "min-score"):
        return ConfigProblem("'mutants.min-score' must be a number from 0 to 1 (a share of killed mutants)", path)
    if where == ("mutants", "equivalent"):
        return ConfigProblem("'mutants.equivalent' must be a list", path)
    if where[:3] == ("mutants", "equivalent", "*"):
        return ConfigProblem("each 'mutants.equivalent' entry needs definition, mutant (an id) and a reason", path[:3])
    return ConfigProblem("'mutants' must be a mapping with min-score and equivalent", path[:1])


def _explore(error: structural.SchemaError, path: tuple, where: tuple, max_bytes: int) -> ConfigProblem:
    if where[:2] == ("explore", "assume"):
        return ConfigProblem("'explore.assume' must map jq paths to JSON Schemas (mappings)", path)
    if where[:2] == ("explore", "min-path-coverage"):
        return ConfigProblem("'explore.min-path-coverage' must be a percentage from 0 to 100", path)
    return ConfigProblem("'explore' must be a mapping with the keys 'assume' and 'min-path-coverage'", path[:1])


def _baseline(error: structural.SchemaError, path: tuple, where: tuple, max_bytes: int) -> ConfigProblem:
    return ConfigProblem(
        "'baseline' must be the path of a baseline file (`kartalint lint --write-baseline FILE`)", path
    )


_HOUSE_WORDS = {
    "id": "an id of lowercase letters, digits and '-' (up to 100 characters), such as acme-role-selector",
    "severity": "error, warning or info",
    "for-each": f"one of {', '.join(FOR_EACH)}",
    "when": "a jq expression (true is a finding)",
    "message": "the inside of a jq string (\\(.x) inserts a value)",
    "hint": "a text",
    "why": "a text",
    "paths": "a list of gitignore patterns relative to the project root",
    "examples": "a mapping with bad and good (paths of example files)",
}


def _house_rules(error: structural.SchemaError, path: tuple, where: tuple, max_bytes: int) -> ConfigProblem:
    if len(path) < 2:
        return ConfigProblem("'house-rules' must be a list of house rules (docs/house-rules.md)", path)
    entry = path[:2]
    if len(path) == 2 and error.validator == "required":
        missing = [k for k in ("id", "for-each", "when", "message") if k not in (error.instance or {})]
        return ConfigProblem(f"a house rule needs {', '.join(missing)}", entry)
    if len(path) == 2 and error.validator == "additionalProperties":
        known = ", ".join(sorted(_HOUSE_WORDS))
        unknown = sorted(str(k) for k in error.instance if k not in _HOUSE_WORDS)
        return ConfigProblem(
            f"unknown house rule key(s) {', '.join(unknown)} (known: {known})", (*entry, unknown[0]), True
        )
    if len(path) == 2:
        return ConfigProblem("each house rule is a mapping with id, for-each, when and message", entry)
    key = str(path[2])
    if key == "examples" and (len(path) > 3 or error.validator != "type"):
        return ConfigProblem("'examples' needs bad and good, each the path of a file", path)
    return ConfigProblem(f"house rule '{key}' must be {_HOUSE_WORDS.get(key, 'valid')}", path)


def _extends(error: structural.SchemaError, path: tuple, where: tuple, max_bytes: int) -> ConfigProblem:
    return ConfigProblem("'extends' must be the path of another configuration file", path)


# The words of each key's problems (kartalint's own, clearer than the schema validator's).
_EXPLAINED: dict[str, Callable[[structural.SchemaError, tuple, tuple, int], ConfigProblem]] = {
    "extends": _extends,
    "rules": _rules,
    "exclude": _exclude,
    "per-file-ignores": _per_file_ignores,
    "max-file-size": _max_file_size,
    "baseline": _baseline,
    "crds": _paths,
    "definitions": _paths,
    "fixtures": _paths,
    "mutants": _mutants,
    "explore": _explore,
    "house-rules": _house_rules,
}
