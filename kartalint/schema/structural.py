"""A validator for the Karta JSON Schema and the configuration's that needs no import beyond the
standard library.

The Karta schema is a Kubernetes structural schema: ``type``, ``properties``, ``required``,
``additionalProperties``, ``items``, a few constraints and keyed lists; the configuration's
(``kartalint.schema.config``) adds ``propertyNames``, ``anyOf``, ``if``/``then`` and ``maximum``.
Importing ``jsonschema`` costs more than the rest of a one-file ``kartalint lint`` (a pre-commit
hook call), so the lint path validates with this module instead. It yields the errors
``jsonschema``'s Draft 2020-12 validator (extended with ``x-kubernetes-list-map-keys``,
``kartalint.schema.validator()``) yields, in the same order, with the same paths, keywords, values
and messages; tests compare both on the catalog, the fixtures, the rule examples, generated
documents and configurations.

The fixture schema (``$ref``, ``const``, ``oneOf``, ``not``; ``kartalint.schema.refs.inline_refs``
replaces its references) is checked here first: a valid fixture needs no ``jsonschema``, an invalid one is
reported by ``jsonschema`` (``kartalint.rules.fixture_schema``).

Subschemas marked ``x-kartalint-cel`` (the CRD's CEL rules) are skipped: the parity rules report
those, and lint drops schema errors inside them. A schema using a keyword this module does not
know is refused (``supports`` is False) and ``jsonschema`` is used.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from kartalint.model import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Keywords that only annotate (format is not asserted without a format checker, as in jsonschema).
_ANNOTATIONS = frozenset(
    {
        "$id",
        "$schema",
        "title",
        "description",
        "default",
        "format",
        "x-kubernetes-list-type",
        "x-kartalint-cel",
        "then",  # read by "if"
        "else",
    }
)
_CHECKED = frozenset(
    {
        "type",
        "properties",
        "additionalProperties",
        "required",
        "items",
        "enum",
        "minItems",
        "minLength",
        "maxLength",
        "minProperties",
        "uniqueItems",
        "pattern",
        "minimum",
        "maximum",
        "allOf",
        "anyOf",
        "if",
        "propertyNames",
        "x-kubernetes-list-map-keys",
        "const",
        "not",
        "oneOf",
    }
)


class SchemaError(Record):
    """The parts of a ``jsonschema.ValidationError`` that lint reads."""

    __slots__ = ("absolute_path", "instance", "message", "schema", "validator", "validator_value")
    message: str
    validator: str  # the keyword
    validator_value: Any
    instance: Any
    schema: dict[str, Any]
    absolute_path: tuple

    def __init__(
        self,
        message: str,
        validator: str,
        validator_value: Any,
        instance: Any,
        schema: dict[str, Any],
        absolute_path: tuple = (),
    ) -> None:
        """The error ``message`` of keyword ``validator`` at ``absolute_path``."""
        self.message = message
        self.validator = validator
        self.validator_value = validator_value
        self.instance = instance
        self.schema = schema
        self.absolute_path = absolute_path


def supports(schema: Any) -> bool:
    """Whether every keyword of ``schema`` is one this module checks or may ignore."""
    if not isinstance(schema, dict):
        return False
    for keyword, value in schema.items():
        if keyword not in _CHECKED and keyword not in _ANNOTATIONS:
            return False
        if keyword == "x-kartalint-cel":
            continue
        if keyword == "properties" and not all(supports(sub) for sub in value.values()):
            return False
        if keyword in ("items", "propertyNames", "if", "then", "else", "not") and not supports(value):
            return False
        if keyword in ("anyOf", "oneOf") and not all(supports(sub) for sub in value):
            return False
        if keyword == "additionalProperties" and not isinstance(value, bool) and not supports(value):
            return False
        if keyword == "allOf" and not all("x-kartalint-cel" in sub or supports(sub) for sub in value):
            return False
    return True


def iter_errors(schema: dict[str, Any], instance: Any, path: tuple = ()) -> Iterator[SchemaError]:
    """The validation errors of ``instance``, as ``jsonschema`` yields them."""
    for keyword, value in schema.items():
        check = _KEYWORDS.get(keyword)
        if check is not None:
            yield from check(value, instance, schema, path)


def _error(message: str, keyword: str, value: Any, instance: Any, schema: dict, path: tuple) -> SchemaError:
    return SchemaError(message, keyword, value, instance, schema, path)


def _is_type(instance: Any, kind: str) -> bool:
    if kind == "object":
        return isinstance(instance, dict)
    if kind == "array":
        return isinstance(instance, list)
    if kind == "string":
        return isinstance(instance, str)
    if kind == "boolean":
        return isinstance(instance, bool)
    if kind == "null":
        return instance is None
    if isinstance(instance, bool):
        return False
    if kind == "integer":
        return isinstance(instance, int) or (isinstance(instance, float) and instance.is_integer())
    if kind == "number":
        return isinstance(instance, (int, float))
    return False


def _type(value: Any, instance: Any, schema: dict, path: tuple) -> Iterator[SchemaError]:
    kinds = value if isinstance(value, list) else [value]
    if not any(_is_type(instance, kind) for kind in kinds):
        shown = ", ".join(repr(kind) for kind in kinds)
        yield _error(f"{instance!r} is not of type {shown}", "type", value, instance, schema, path)


def _properties(value: dict, instance: Any, schema: dict, path: tuple) -> Iterator[SchemaError]:
    if isinstance(instance, dict):
        for name, sub in value.items():
            if name in instance:
                yield from iter_errors(sub, instance[name], (*path, name))


def _additional(value: Any, instance: Any, schema: dict, path: tuple) -> Iterator[SchemaError]:
    if not isinstance(instance, dict):
        return
    known = schema.get("properties", {})
    extras = [name for name in instance if name not in known]
    if isinstance(value, dict):
        for name in sorted(set(extras), key=str):  # jsonschema walks a set (in no fixed order)
            yield from iter_errors(value, instance[name], (*path, name))
    elif value is False and extras:
        names = sorted(set(extras), key=str)
        verb = "was" if len(names) == 1 else "were"
        shown = ", ".join(repr(name) for name in names)
        message = f"Additional properties are not allowed ({shown} {verb} unexpected)"
        yield _error(message, "additionalProperties", value, instance, schema, path)


def _required(value: list, instance: Any, schema: dict, path: tuple) -> Iterator[SchemaError]:
    if isinstance(instance, dict):
        for name in value:
            if name not in instance:
                yield _error(f"{name!r} is a required property", "required", value, instance, schema, path)


def _items(value: dict, instance: Any, schema: dict, path: tuple) -> Iterator[SchemaError]:
    if isinstance(instance, list):
        for index, item in enumerate(instance):
            yield from iter_errors(value, item, (*path, index))


def _enum(value: list, instance: Any, schema: dict, path: tuple) -> Iterator[SchemaError]:
    # a string equals only the same string (the common case: rule ids, enums of the schema)
    known = instance in value if isinstance(instance, str) else any(_equal(each, instance) for each in value)
    if not known:
        yield _error(f"{instance!r} is not one of {value!r}", "enum", value, instance, schema, path)


def _sized(keyword: str, kind: str, fewer: bool, empty: str, otherwise: str) -> Any:
    def check(value: int, instance: Any, schema: dict, path: tuple) -> Iterator[SchemaError]:
        if _is_type(instance, kind) and (len(instance) < value if fewer else len(instance) > value):
            yield _error(
                f"{instance!r} {empty if value == (1 if fewer else 0) else otherwise}",
                keyword,
                value,
                instance,
                schema,
                path,
            )

    return check


def _unique(value: bool, instance: Any, schema: dict, path: tuple) -> Iterator[SchemaError]:
    if value and isinstance(instance, list) and len({_canonical(item) for item in instance}) != len(instance):
        yield _error(f"{instance!r} has non-unique elements", "uniqueItems", value, instance, schema, path)


def _pattern(value: str, instance: Any, schema: dict, path: tuple) -> Iterator[SchemaError]:
    if isinstance(instance, str) and not re.search(value, instance):
        yield _error(f"{instance!r} does not match {value!r}", "pattern", value, instance, schema, path)


def _minimum(value: Any, instance: Any, schema: dict, path: tuple) -> Iterator[SchemaError]:
    if _is_type(instance, "number") and instance < value:
        message = f"{instance!r} is less than the minimum of {value!r}"
        yield _error(message, "minimum", value, instance, schema, path)


def _maximum(value: Any, instance: Any, schema: dict, path: tuple) -> Iterator[SchemaError]:
    if _is_type(instance, "number") and instance > value:
        message = f"{instance!r} is greater than the maximum of {value!r}"
        yield _error(message, "maximum", value, instance, schema, path)


def _any_of(value: list, instance: Any, schema: dict, path: tuple) -> Iterator[SchemaError]:
    if all(next(iter_errors(sub, instance, path), None) is not None for sub in value):
        message = f"{instance!r} is not valid under any of the given schemas"
        yield _error(message, "anyOf", value, instance, schema, path)


def _one_of(value: list, instance: Any, schema: dict, path: tuple) -> Iterator[SchemaError]:
    valid = [sub for sub in value if next(iter_errors(sub, instance, path), None) is None]
    if not valid:
        message = f"{instance!r} is not valid under any of the given schemas"
        yield _error(message, "oneOf", value, instance, schema, path)
    elif len(valid) > 1:
        shown = ", ".join(repr(sub) for sub in [*valid[1:], valid[0]])  # (jsonschema names the first last)
        message = f"{instance!r} is valid under each of {shown}"
        yield _error(message, "oneOf", value, instance, schema, path)


def _not(value: dict, instance: Any, schema: dict, path: tuple) -> Iterator[SchemaError]:
    if next(iter_errors(value, instance, path), None) is None:
        yield _error(f"{instance!r} should not be valid under {value!r}", "not", value, instance, schema, path)


def _const(value: Any, instance: Any, schema: dict, path: tuple) -> Iterator[SchemaError]:
    if not _equal(value, instance):
        yield _error(f"{value!r} was expected", "const", value, instance, schema, path)


def _if(value: dict, instance: Any, schema: dict, path: tuple) -> Iterator[SchemaError]:
    branch = "then" if next(iter_errors(value, instance, path), None) is None else "else"
    if branch in schema:
        yield from iter_errors(schema[branch], instance, path)


def _property_names(value: dict, instance: Any, schema: dict, path: tuple) -> Iterator[SchemaError]:
    """Each property name checked against ``value``; the errors are at the object (a name has no
    path of its own), their ``instance`` the name, as jsonschema reports them."""
    if isinstance(instance, dict):
        for name in instance:
            yield from iter_errors(value, name, path)


def _all_of(value: list, instance: Any, schema: dict, path: tuple) -> Iterator[SchemaError]:
    for sub in value:
        if "x-kartalint-cel" not in sub:  # CEL rules: reported by the parity rules, not the schema
            yield from iter_errors(sub, instance, path)


def list_map_keys(value: list, instance: Any, schema: dict, path: tuple) -> Iterator[SchemaError]:
    """The errors of ``x-kubernetes-list-map-keys``: two items of a map list with the same keys (``value``)."""
    if not isinstance(instance, list) or schema.get("x-kubernetes-list-type") != "map":
        return
    seen: dict[Any, int] = {}
    for index, item in enumerate(instance):
        if not isinstance(item, dict):
            continue
        key = tuple(json.dumps(item.get(k), sort_keys=True) for k in value)
        if key in seen:
            shown = ", ".join(f"{k}={item.get(k)!r}" for k in value)
            message = (
                f"duplicate entry with {shown} (also at index {seen[key]}); the list is keyed by {', '.join(value)}"
            )
            yield _error(message, "x-kubernetes-list-map-keys", value, instance, schema, (*path, index))
        else:
            seen[key] = index


def _equal(one: Any, two: Any) -> bool:
    return _canonical(one) == _canonical(two)


def _canonical(value: Any) -> Any:
    """A hashable form in which equal JSON values are equal (True is not 1; 1 is 1.0)."""
    if isinstance(value, bool) or value is None:
        return ("const", value)
    if isinstance(value, (int, float)):
        return ("number", value)
    if isinstance(value, str):
        return ("string", value)
    if isinstance(value, list):
        return ("array", tuple(_canonical(item) for item in value))
    if isinstance(value, dict):
        return ("object", frozenset((key, _canonical(item)) for key, item in value.items()))
    return ("other", repr(value))


_KEYWORDS = {
    "type": _type,
    "properties": _properties,
    "additionalProperties": _additional,
    "required": _required,
    "items": _items,
    "enum": _enum,
    "minItems": _sized("minItems", "array", True, "should be non-empty", "is too short"),
    "minLength": _sized("minLength", "string", True, "should be non-empty", "is too short"),
    "maxLength": _sized("maxLength", "string", False, "is expected to be empty", "is too long"),
    "minProperties": _sized("minProperties", "object", True, "should be non-empty", "does not have enough properties"),
    "uniqueItems": _unique,
    "pattern": _pattern,
    "minimum": _minimum,
    "maximum": _maximum,
    "allOf": _all_of,
    "anyOf": _any_of,
    "if": _if,
    "propertyNames": _property_names,
    "x-kubernetes-list-map-keys": list_map_keys,
    "oneOf": _one_of,
    "not": _not,
    "const": _const,
}


# -- whether a document is valid, decided without making errors ---------------------------------------
#
# Most documents lint clean: ``valid`` answers "would ``iter_errors`` yield nothing?" with one plain
# function per subschema (made the first time the subschema is reached, kept by its identity) and
# no generator per node and keyword; only an invalid document is walked again for its errors.
# tests/test_schema.py checks that both agree on every document and generated variant.


def valid(schema: dict[str, Any], instance: Any) -> bool:
    """Whether ``iter_errors(schema, instance)`` yields no error."""
    entry = _CHECKS.get(id(schema))
    if entry is None or entry[0] is not schema:
        if len(_CHECKS) > 65536:
            _CHECKS.clear()
        entry = _CHECKS[id(schema)] = (schema, _compile(schema))
    return entry[1](instance)


_CHECKS: dict[int, tuple[dict[str, Any], Any]] = {}


def _compile(schema: dict[str, Any]) -> Any:
    """One function per keyword this module checks, and one that holds when they all hold (an
    object's ``properties`` and ``additionalProperties`` in one pass over the object's members)."""
    parts = [
        made
        for keyword, value in schema.items()
        if keyword not in _MEMBERS and (made := _valid_keyword(keyword, value, schema))
    ]
    if any(keyword in schema for keyword in _MEMBERS):
        parts.append(_valid_members(schema.get("properties", {}), schema.get("additionalProperties", True)))
    if len(parts) == 1:
        return parts[0]
    return lambda instance: all(part(instance) for part in parts)


_MEMBERS = ("properties", "additionalProperties")


def _valid_members(known: dict[str, Any], additional: Any) -> Any:
    """``properties`` (``known``) and ``additionalProperties`` of an object, checked member by member."""

    def members(instance: Any) -> bool:
        if not isinstance(instance, dict):
            return True
        for name, item in instance.items():
            sub = known.get(name)
            if sub is not None:
                if not valid(sub, item):
                    return False
            elif additional is False or (isinstance(additional, dict) and not valid(additional, item)):
                return False
        return True

    return members


def _valid_keyword(keyword: str, value: Any, schema: dict[str, Any]) -> Any:
    """The check of one keyword (None: the keyword asserts nothing here)."""
    if keyword == "type":
        kinds = value if isinstance(value, list) else [value]
        if kinds == ["object"]:
            return lambda instance: isinstance(instance, dict)
        if kinds == ["string"]:
            return lambda instance: isinstance(instance, str)
        if kinds == ["array"]:
            return lambda instance: isinstance(instance, list)
        return lambda instance: any(_is_type(instance, kind) for kind in kinds)
    if keyword == "required":
        return lambda instance: not isinstance(instance, dict) or all(name in instance for name in value)
    if keyword == "items":
        return lambda instance: not isinstance(instance, list) or all(valid(value, item) for item in instance)
    if keyword == "propertyNames":
        return lambda instance: not isinstance(instance, dict) or all(valid(value, name) for name in instance)
    if keyword == "allOf":
        subs = [sub for sub in value if "x-kartalint-cel" not in sub]
        return lambda instance: all(valid(sub, instance) for sub in subs)
    if keyword == "anyOf":
        return lambda instance: any(valid(sub, instance) for sub in value)
    if keyword == "if":
        then, otherwise = schema.get("then"), schema.get("else")

        def branch(instance: Any) -> bool:
            chosen = then if valid(value, instance) else otherwise
            return chosen is None or valid(chosen, instance)

        return branch
    check = _KEYWORDS.get(keyword)
    if check is None:
        return None
    return lambda instance: next(check(value, instance, schema, ()), None) is None
