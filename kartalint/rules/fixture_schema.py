"""Fixture files (``kind: KartaFixture``, docs/fixtures.md) against their JSON Schema.

Used by ``kartalint lint`` (fixtures in the linted paths are checked like definitions) and by
``kartalint test`` (an invalid fixture is an error case, never a silent pass).
"""

from __future__ import annotations

import functools
import json
import os

from kartalint.load.documents import Document
from kartalint.model import Finding, Rule, Severity, format_path
from kartalint.rules.context import Context
from kartalint.schema import refs, structural

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The ids of the rules this module reports (constants: a misspelt id is an import error).
FIXTURE_INVALID = "fixture-invalid"
FIXTURE_FILE_MISSING = "fixture-file-missing"


# The rules this module reports (collected by kartalint.rules.registry; docs/rules.md renders them).
RULES = (
    Rule(
        FIXTURE_INVALID,
        Severity.ERROR,
        "fixture",
        "A fixture file does not follow the fixture format (docs/fixtures.md).",
        "fix the field named in the message",
        why="A fixture that does not follow the format tests nothing (or not what its author meant), so it is an error rather than a pass.",
    ),
    Rule(
        FIXTURE_FILE_MISSING,
        Severity.ERROR,
        "fixture",
        "A fixture names a file (`definition`, `objectFile`, `podsFile`) that does not exist.",
        "fix the path (relative to the fixture's folder), or write the fixture again with `kartalint new fixture`",
        why="`kartalint test` cannot run such a fixture (an error there); lint says so where the path is written, before a run.",
    ),
)

_FILE_FIELDS = ("definition", "objectFile", "podsFile")


SCHEMA_FILE = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "schema", "data", "fixture.schema.json"
)


@functools.lru_cache(maxsize=1)
def _schema() -> dict[str, Any]:
    with open(SCHEMA_FILE, encoding="utf-8") as handle:
        schema: dict[str, Any] = json.load(handle)
    return schema


@functools.lru_cache(maxsize=1)
def _quick_schema() -> dict[str, Any] | None:
    """The fixture schema as ``structural`` checks it (None if it ever cannot): it decides whether
    a fixture is valid without importing ``jsonschema``."""
    try:
        inlined = refs.inline_refs(_schema())
    except refs.Unresolvable:  # pragma: no cover - the shipped schema refers to its own $defs
        return None
    return inlined if structural.supports(inlined) else None


@functools.lru_cache(maxsize=1)
def _validator() -> Any:
    import jsonschema  # lazy: slow to import, and needed only to say what is wrong (start-up of lint)

    return jsonschema.Draft202012Validator(_schema())


def check_fixture(document: Document) -> list[Finding]:
    """The findings of a fixture document against the fixture's JSON Schema (a valid one is told
    by ``structural`` alone; ``jsonschema`` words the errors of an invalid one)."""
    quick = _quick_schema()
    if quick is not None and next(structural.iter_errors(quick, document.data), None) is None:
        return _missing_files(document)
    ctx = Context(document, rules={rule.id: rule for rule in RULES})
    for error in sorted(_validator().iter_errors(document.data), key=lambda e: list(map(str, e.absolute_path))):
        path = tuple(error.absolute_path)
        where = format_path(path) or "the fixture"
        if error.validator == "oneOf" and not path:
            message = "a fixture needs exactly one of `object` (inline) and `objectFile` (a path)"
        elif error.validator == "additionalProperties":
            message = f"{where}: {error.message}"
        elif error.validator == "pattern" and path and path[-1] in ("definition", "objectFile", "podsFile"):
            message = f"{where}: {error.instance!r} holds a NUL character: not a path"
        else:
            message = f"{where}: {error.message}"
        ctx.report(FIXTURE_INVALID, path, message, key=error.validator == "additionalProperties")
    return ctx.findings


def _missing_files(document: Document) -> list[Finding]:
    """``fixture-file-missing`` for each file a valid fixture names that does not exist, relative to
    the fixture's folder (nothing is read; a fixture read from standard input is not judged)."""
    path = document.source.path
    if path in ("-", "<stdin>"):
        return []
    folder = os.path.dirname(os.path.abspath(path))
    ctx: Context | None = None
    for field in _FILE_FIELDS:
        named = document.data.get(field)
        if isinstance(named, str) and named and not os.path.lexists(os.path.join(folder, named)):
            ctx = ctx or Context(document, rules={rule.id: rule for rule in RULES})
            ctx.report(
                FIXTURE_FILE_MISSING, (field,), f"{field}: {named} does not exist (relative to the fixture's folder)"
            )
    return ctx.findings if ctx is not None else []
