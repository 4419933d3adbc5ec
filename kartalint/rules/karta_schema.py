"""Schema rules: the Karta JSON Schema generated from the CRD, strict about unknown fields."""

from __future__ import annotations

from kartalint import schema as karta_schema
from kartalint.load.kinds import KARTA_KIND
from kartalint.model import Rule, Severity, format_path
from kartalint.rules.context import Check, Context

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The ids of the rules this module reports (constants: a misspelt id is an import error).
KARTA_API_VERSION_RULE = "karta-api-version"
UNKNOWN_FIELD = "unknown-field"
MISSING_REQUIRED_FIELD = "missing-required-field"
WRONG_TYPE = "wrong-type"
NULL_VALUE = "null-value"
INVALID_VALUE = "invalid-value"
DUPLICATE_LIST_KEY = "duplicate-list-key"


# The rules this module reports (collected by kartalint.rules.registry; docs/rules.md renders them).
RULES = (
    Rule(
        KARTA_API_VERSION_RULE,
        Severity.ERROR,
        "schema",
        "A Karta document must have `apiVersion: run.ai/v1alpha1` and `kind: Karta`.",
        "set apiVersion: run.ai/v1alpha1 and kind: Karta",
        why="Without the right apiVersion and kind the document is not a Karta: the API server and every consumer ignore it or refuse it.",
    ),
    Rule(
        UNKNOWN_FIELD,
        Severity.ERROR,
        "schema",
        "A field the Karta CRD does not define; upstream drops it silently, so its content is ignored.",
        "check the spelling against the Karta CRD",
        why="The API server prunes fields the CRD does not declare, so a misspelt field is dropped and its content ignored without an error.",
    ),
    Rule(
        MISSING_REQUIRED_FIELD,
        Severity.ERROR,
        "schema",
        "A field the Karta CRD requires is missing.",
        "add the field",
        why="The API server refuses a Karta without the fields its CRD requires.",
    ),
    Rule(
        WRONG_TYPE,
        Severity.ERROR,
        "schema",
        "A field has the wrong type for the Karta CRD.",
        "use the type the CRD declares",
        why="The API server refuses a value of the wrong type, and upstream's Go code cannot decode it.",
    ),
    Rule(
        NULL_VALUE,
        Severity.WARNING,
        "schema",
        "A field is set to null; the API server drops it and Go reads it as empty.",
        "remove the key or give it a value",
        why="A null is dropped by the API server and read as empty by Go, which is rarely what was meant.",
    ),
    Rule(
        INVALID_VALUE,
        Severity.ERROR,
        "schema",
        "A value breaks a CRD constraint (enum, pattern, length, minimum items or properties, uniqueness).",
        "change the value to satisfy the constraint",
        why="The API server refuses values that break the CRD's constraints.",
    ),
    Rule(
        DUPLICATE_LIST_KEY,
        Severity.ERROR,
        "schema",
        "Two entries of a keyed list share their key (the API server rejects the object).",
        "give each entry a distinct key",
        why="The CRD keys the list by this field; the API server refuses two entries with the same key.",
    ),
)


_CONSTRAINTS = {
    "enum",
    "pattern",
    "minLength",
    "maxLength",
    "minProperties",
    "maxProperties",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minimum",
    "maximum",
    "const",
    "format",
}
_JSON_TYPES = {
    dict: "object",
    list: "array",
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    type(None): "null",
}


MAX_UNKNOWN_FIELDS = 100  # per mapping; beyond, one finding gives the count


def check(ctx: Context) -> None:
    """The schema rules: apiVersion and kind, then every error of the generated Karta JSON Schema."""
    data = ctx.data
    if not isinstance(data, dict):
        return
    if data.get("apiVersion") != karta_schema.KARTA_API_VERSION or data.get("kind") != KARTA_KIND:
        key = "apiVersion" if data.get("kind") == KARTA_KIND else "kind"
        ctx.report(
            KARTA_API_VERSION_RULE,
            (key,),
            f"a Karta definition needs apiVersion: {karta_schema.KARTA_API_VERSION} and kind: Karta "
            f"(found apiVersion: {data.get('apiVersion')!r}, kind: {data.get('kind')!r})",
            key=True,
        )
    for error in karta_schema.iter_errors(data):
        _report(ctx, error)


def _report(ctx: Context, error: Any) -> None:
    path = tuple(error.absolute_path)
    keyword = error.validator
    sub: dict[str, Any] = error.schema if isinstance(error.schema, dict) else {}
    if "x-kartalint-cel" in sub:
        return  # CEL rules on componentTypeSelector are reported by the parity rules
    if path in (("apiVersion",), ("kind",)):
        return  # karta-api-version above
    where = format_path(path) or "the document"
    if keyword == "additionalProperties":
        known = sorted((sub.get("properties") or {}).keys())
        unknown = sorted(set(error.instance) - set(known))
        if len(unknown) > MAX_UNKNOWN_FIELDS:  # one finding counts the rest: the report stays readable and linear
            ctx.report(
                UNKNOWN_FIELD,
                path,
                f"{len(unknown) - MAX_UNKNOWN_FIELDS} more unknown fields in {where} than the "
                f"{MAX_UNKNOWN_FIELDS} reported (upstream drops them silently)",
                key=True,
                hint=f"known fields: {', '.join(known)}",
            )
        import difflib  # lazy: only a misspelt name is looked up (difflib is not on a one-file lint's path)

        for name in unknown[:MAX_UNKNOWN_FIELDS]:
            close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
            hint = f"did you mean '{close[0]}'?" if close else f"known fields: {', '.join(known)}"
            ctx.report(
                UNKNOWN_FIELD,
                (*path, name),
                f"unknown field '{name}' in {where}: upstream drops it silently",
                key=True,
                hint=hint,
            )
    elif keyword == "required":
        name = error.message.split("'")[1] if "'" in error.message else str(error.validator_value)
        ctx.report(MISSING_REQUIRED_FIELD, (*path, name), f"missing required field '{name}' in {where}", key=True)
    elif keyword == "type":
        if error.instance is None:
            ctx.report(NULL_VALUE, path, f"{where} is null; the API server drops it and consumers read it as empty")
        else:
            expected = error.validator_value
            expected = " or ".join(expected) if isinstance(expected, list) else expected
            got = _JSON_TYPES.get(type(error.instance), type(error.instance).__name__)
            ctx.report(WRONG_TYPE, path, f"{where} must be {expected}, not {got}")
    elif keyword == "x-kubernetes-list-map-keys":
        ctx.report(DUPLICATE_LIST_KEY, path, f"{where}: {error.message}")
    elif keyword in _CONSTRAINTS:
        ctx.report(INVALID_VALUE, path, f"{where}: {_constraint_message(error)}")
    else:
        ctx.report(INVALID_VALUE, path, f"{where}: {error.message}")


def _constraint_message(error: Any) -> str:
    keyword, value = error.validator, error.validator_value
    if keyword == "minLength":
        return f"must not be empty (at least {value} character{'s' if value != 1 else ''})"
    if keyword == "minProperties":
        return f"must have at least {value} entr{'ies' if value != 1 else 'y'}"
    if keyword == "minItems":
        return f"must have at least {value} item{'s' if value != 1 else ''}"
    if keyword == "uniqueItems":
        return "has duplicate items"
    if keyword == "enum":
        return f"{error.instance!r} is not one of {', '.join(map(repr, value))}"
    return error.message


CHECKS = (Check(tuple(rule.id for rule in RULES), check),)
