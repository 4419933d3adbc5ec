"""The Karta JSON Schema: generated from the vendored CRD, shipped with the package.

``karta.schema.json`` is produced by ``generate()`` from ``data/run.ai_kartas.yaml`` (the Karta
CRD, see ``data/README.md`` for its origin and licence); ``tests/test_schema.py`` regenerates it and
fails if the shipped file drifted. ``validator()`` returns a Draft 2020-12 validator extended with
Kubernetes list-map uniqueness (``x-kubernetes-list-map-keys``); ``iter_errors()`` gives the same
errors through ``structural`` without importing jsonschema (lint's path).
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterator

import yaml

from kartalint.schema import structural

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DATA_DIR = os.path.join(os.path.dirname(__file__), "data")
CRD_FILE = os.path.join(DATA_DIR, "run.ai_kartas.yaml")
SCHEMA_FILE = os.path.join(DATA_DIR, "karta.schema.json")
KARTA_API_VERSION = "run.ai/v1alpha1"


def generate() -> dict[str, Any]:
    """Build the Karta JSON Schema from the vendored CRD."""

    # lazy: the schema is generated only by `kartalint schema` and the tests (start-up of lint)
    from kartalint.schema.convert import crd_to_json_schema

    with open(CRD_FILE, encoding="utf-8") as handle:
        crd = next(doc for doc in yaml.safe_load_all(handle) if doc)
    schema = crd_to_json_schema(crd, "v1alpha1")
    schema["$id"] = "https://kartalint.dev/schemas/karta-v1alpha1.schema.json"
    return schema


def render(schema: dict[str, Any]) -> str:
    """A schema as the files hold it: JSON, indented, keys sorted."""
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


@functools.lru_cache(maxsize=1)
def karta_schema() -> dict[str, Any]:
    """The Karta JSON Schema (the file generated from the vendored CRD)."""
    with open(SCHEMA_FILE, encoding="utf-8") as handle:
        return json.load(handle)


def _list_map_keys(validator: Any, keys: Any, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    # lazy: jsonschema is slow to import; lint validates with schema.structural (start-up of lint)
    from jsonschema import ValidationError

    for error in structural.list_map_keys(keys, instance, schema, ()):
        yield ValidationError(error.message, path=list(error.absolute_path))


@functools.lru_cache(maxsize=1)
def validator() -> Any:
    """The jsonschema validator of the Karta schema (imported on first use: it is slow to import)."""
    # lazy: jsonschema is slow to import; lint validates with schema.structural (start-up of lint)
    from jsonschema import Draft202012Validator, validators

    extended = validators.extend(Draft202012Validator, {"x-kubernetes-list-map-keys": _list_map_keys})
    return extended(karta_schema())


def iter_errors(document: Any) -> Iterator[Any]:
    """The schema errors of a Karta document: by ``structural`` (no jsonschema import) when it
    handles every keyword of the schema, as it does for the shipped one; else by ``validator()``."""
    schema = karta_schema()
    if _structural_ok():
        if structural.valid(schema, document):  # most documents: no error to make
            return iter(())
        return structural.iter_errors(schema, document)
    return iter(validator().iter_errors(document))


def _structural_ok() -> bool:
    """Whether ``structural`` checks every keyword of the shipped schema: it does, and
    tests/test_schema.py::test_structural_validator_handles_the_shipped_schema fails the day a
    schema generated from a new CRD does not (so a lint does not walk the schema to find out: a
    quarter of a millisecond of every hook call). The tests turn it off to compare with jsonschema."""
    return True
