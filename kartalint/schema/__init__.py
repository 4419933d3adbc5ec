"""The Karta JSON Schema: generated from the vendored CRD, shipped with the package.

``karta.schema.json`` is produced by ``generate()`` from ``data/run.ai_kartas.yaml`` (the Karta
CRD, see ``data/README.md`` for its origin and licence); ``tests/test_schema.py`` regenerates it and
fails if the shipped file drifted. ``validator()`` returns a Draft 2020-12 validator extended with
Kubernetes list-map uniqueness (``x-kubernetes-list-map-keys``).
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterator
from typing import Any

import yaml
from jsonschema import Draft202012Validator, ValidationError, validators

from kartalint.schema.convert import crd_to_json_schema

DATA_DIR = os.path.join(os.path.dirname(__file__), "data")
CRD_FILE = os.path.join(DATA_DIR, "run.ai_kartas.yaml")
SCHEMA_FILE = os.path.join(DATA_DIR, "karta.schema.json")
KARTA_API_VERSION = "run.ai/v1alpha1"


def generate() -> dict[str, Any]:
    """Build the Karta JSON Schema from the vendored CRD."""
    with open(CRD_FILE, encoding="utf-8") as handle:
        crd = next(doc for doc in yaml.safe_load_all(handle) if doc)
    schema = crd_to_json_schema(crd, "v1alpha1")
    schema["$id"] = "https://kartalint.dev/schemas/karta-v1alpha1.schema.json"
    return schema


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


@functools.lru_cache(maxsize=1)
def karta_schema() -> dict[str, Any]:
    with open(SCHEMA_FILE, encoding="utf-8") as handle:
        return json.load(handle)


def _list_map_keys(validator: Any, keys: Any, instance: Any, schema: dict[str, Any]) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "array") or schema.get("x-kubernetes-list-type") != "map":
        return
    seen: dict[Any, int] = {}
    for index, item in enumerate(instance):
        if not isinstance(item, dict):
            continue
        key = tuple(json.dumps(item.get(k), sort_keys=True) for k in keys)
        if key in seen:
            shown = ", ".join(f"{k}={item.get(k)!r}" for k in keys)
            yield ValidationError(
                f"duplicate entry with {shown} (also at index {seen[key]}); the list is keyed by {', '.join(keys)}",
                path=[index],
            )
        else:
            seen[key] = index


KartaValidator = validators.extend(Draft202012Validator, {"x-kubernetes-list-map-keys": _list_map_keys})


@functools.lru_cache(maxsize=1)
def validator() -> Any:
    schema = karta_schema()
    return KartaValidator(schema)
