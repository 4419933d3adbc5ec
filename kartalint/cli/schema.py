"""`kartalint schema`."""

from __future__ import annotations

import argparse
import json
import os
import sys

from kartalint import schema
from kartalint.cli import EXIT_FAIL, EXIT_OK
from kartalint.cli.common import emit
from kartalint.errors import ConfigError
from kartalint.project import MAX_CONFIGURABLE_BYTES, load_project
from kartalint.rules import registry
from kartalint.rules.fixture_schema import SCHEMA_FILE as FIXTURE_SCHEMA
from kartalint.schema.config import config_schema


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``kartalint schema``: a JSON Schema kartalint reads or writes."""
    parser.add_argument(
        "--check", action="store_true", help="exit 1 if the shipped schema differs from the vendored CRD"
    )
    parser.add_argument("--fixture", action="store_true", help="print the JSON Schema of fixture files instead")
    parser.add_argument(
        "--config", action="store_true", help="print the JSON Schema of the configuration (.kartalint.yaml) instead"
    )
    parser.add_argument(
        "--summary",
        action="store_true",
        help="print the JSON Schema of `describe --summary -f json` (and of --compare's document) instead",
    )
    parser.add_argument(
        "--regenerate",
        action="store_true",
        help="rewrite the shipped schema from the vendored CRD (for contributors, after updating the CRD)",
    )


def _house_rule_ids() -> list[str]:
    """The ids of the house rules of the configuration found from here (none when it cannot be
    read): `rules:` and `per-file-ignores:` may name them."""
    try:
        return list(load_project(rules=registry.RULES).config.house_rules)
    except ConfigError:
        return []


def run(args: argparse.Namespace) -> int:
    """``kartalint schema`` with parsed ``args``: a JSON Schema kartalint reads or writes; its exit code."""
    if args.config:
        ids = [*registry.RULES, *_house_rule_ids()]
        sys.stdout.write(json.dumps(config_schema(ids, MAX_CONFIGURABLE_BYTES), indent=2) + "\n")
        return EXIT_OK
    if args.fixture or args.summary:
        chosen = FIXTURE_SCHEMA if args.fixture else os.path.join(schema.DATA_DIR, "summary.schema.json")
        with open(chosen, encoding="utf-8") as handle:
            sys.stdout.write(handle.read())
        return EXIT_OK
    if args.regenerate:
        emit(schema.render(schema.generate()), schema.SCHEMA_FILE)
        sys.stderr.write(f"kartalint: wrote {schema.SCHEMA_FILE} from {schema.CRD_FILE}\n")
        return EXIT_OK
    if args.check:
        fresh = schema.render(schema.generate())
        with open(schema.SCHEMA_FILE, encoding="utf-8") as handle:
            shipped = handle.read()
        if fresh != shipped:
            sys.stderr.write("kartalint: the shipped schema differs from the one generated from the vendored CRD\n")
            return EXIT_FAIL
        sys.stderr.write("kartalint: the shipped schema matches the vendored CRD\n")
        return EXIT_OK
    sys.stdout.write(schema.render(schema.karta_schema()))
    return EXIT_OK
