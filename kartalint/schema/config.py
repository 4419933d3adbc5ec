"""The JSON Schema of kartalint's configuration (``.kartalint.yaml``; ``[tool.kartalint]`` has the
same keys), for editors: yaml-language-server validates the file with it and completes its keys.
``kartalint.project`` reads the configuration; tests check that both accept the same files."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def config_schema(rule_ids: Sequence[str], max_bytes: int) -> dict[str, Any]:
    """The JSON Schema of ``.kartalint.yaml`` (``kartalint schema --config``), given the rule ids
    that exist and the largest ``max-file-size``."""
    setting = {"enum": ["off", "on", "error", "warning", "info", "disable", "disabled", "false", "no", True, False]}
    paths = {
        "oneOf": [{"type": "string", "minLength": 1}, {"type": "array", "items": {"type": "string", "minLength": 1}}]
    }
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
                "type": "object",
                "description": "rule id: off | on | error | warning | info",
                "propertyNames": {"enum": ids},
                "additionalProperties": setting,
            },
            "exclude": {
                "type": "array",
                "description": "gitignore patterns relative to the project root: files never read",
                "items": {"type": "string", "minLength": 1},
            },
            "per-file-ignores": {
                "type": "object",
                "description": "gitignore pattern: the rule ids turned off in the files it matches",
                "additionalProperties": {
                    "oneOf": [{"enum": ids}, {"type": "array", "minItems": 1, "items": {"enum": ids}}]
                },
            },
            "max-file-size": {"type": "integer", "minimum": 1, "maximum": max_bytes},
            "crds": paths,
            "definitions": paths,
            "fixtures": paths,
            "explore": {
                "type": "object",
                "description": "kartalint explore: what admission rules refuse and the CRD does not say",
                "additionalProperties": False,
                "properties": {
                    "assume": {
                        "type": "object",
                        "description": "jq path -> JSON Schema the generated values must also satisfy",
                        "additionalProperties": {"type": "object"},
                    }
                },
            },
            "mutants": {
                "type": "object",
                "description": "kartalint test --mutants: the lowest mutation score, and mutants judged equivalent",
                "additionalProperties": False,
                "properties": {
                    "min-score": {"type": "number", "minimum": 0, "maximum": 1},
                    "equivalent": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["definition", "mutant", "reason"],
                            "properties": {
                                "definition": {"type": "string", "minLength": 1},
                                "mutant": {"type": "string", "minLength": 1},
                                "reason": {"type": "string", "minLength": 1},
                            },
                        },
                    },
                },
            },
        },
    }
