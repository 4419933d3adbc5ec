"""Value conversion of jq results (spec §3.2) and gojq's ``tostring`` (spec §3.5).

Upstream converts every result to the Go type of its field by a type assertion or a JSON round
trip; ``null`` becomes the zero value. These functions do the same checks on plain JSON values
and raise ``ConversionError`` with upstream's wording.
"""

from __future__ import annotations

import json
import math
import re
from decimal import Decimal
from typing import Any

INT32 = (-(2**31), 2**31 - 1)
_INTEGER = re.compile(r"^[+-]?[0-9]+$")


class ConversionError(ValueError):
    """A jq result that does not convert to its field's Go type, in upstream's words (``failed to
    convert object at index 0 to type string``)."""


def _fail(index: int, type_name: str) -> ConversionError:
    return ConversionError(f"failed to convert object at index {index} to type {type_name}")


def to_string(value: Any, index: int) -> str:
    """A string result (``index``: its position, for the message); ``null`` gives ``""``, anything else
    raises ``ConversionError``."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    raise _fail(index, "string")


def to_object(value: Any, index: int, type_name: str) -> dict:
    """An object result as the Go type ``type_name`` (``v1.PodSpec``, ...); ``null`` gives ``{}``."""
    if value is None:
        return {}
    if isinstance(value, dict):
        return value
    raise _fail(index, type_name)


def to_string_map(value: Any, index: int) -> dict:
    """A ``map[string]string`` result (labels, annotations): an object of strings, null values becoming
    ``""``; ``null`` gives ``{}``."""
    if value is None:
        return {}
    if isinstance(value, dict) and all(isinstance(v, str) or v is None for v in value.values()):
        return {k: v or "" for k, v in value.items()}
    raise _fail(index, "map[string]string")


def to_object_list(value: Any, index: int, type_name: str) -> list:
    """A list of objects (``[]v1.Container``, ...), null items becoming ``{}``; ``null`` gives ``[]``."""
    if value is None:
        return []
    if isinstance(value, list) and all(isinstance(v, dict) or v is None for v in value):
        return [v or {} for v in value]
    raise _fail(index, type_name)


def to_replicas(value: Any, index: int) -> int | None:
    """A replica count: JSON integer or decimal-integer string; ``null`` is "not set"."""
    if type(value) is int and INT32[0] <= value <= INT32[1]:  # the usual case, first
        return value
    if value is None:
        return None
    if isinstance(value, bool):
        raise _fail(index, "int32")
    if isinstance(value, str):
        if not _INTEGER.match(value.strip()):
            shown = value if len(value) <= 64 else value[:40] + f"... ({len(value)} characters)"
            raise ConversionError(f'replicas value "{shown}" at index {index} is not a number')
        if len(value.strip().lstrip("+-").lstrip("0")) > 12:  # far outside int32 (and Python's int/str limit)
            raise _fail(index, "int32")
        number = int(value.strip(), 10)
    elif isinstance(value, int):
        number = value
    elif isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer():
            raise _fail(index, "int32")
        number = int(value)
    else:
        raise _fail(index, "int32")
    if not INT32[0] <= number <= INT32[1]:
        raise _fail(index, "int32")
    return number


def _number(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if math.isnan(value):
        return "null"
    if math.isinf(value):
        value = math.copysign(1.7976931348623157e308, value)
    if value.is_integer() and abs(value) < 1e17:
        return str(int(value))
    if value == 0 or 1e-6 <= abs(value) < 1e21:
        text = format(Decimal(repr(value)), "f")
        return text
    mantissa, exponent = repr(value).split("e")
    return (
        f"{mantissa}e{exponent[0]}{exponent[1:].lstrip('0') or '0'}"
        if exponent[0] in "+-"
        else f"{mantissa}e+{exponent}"
    )


def _encode(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, (bool, int, float)):
        return _number(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ",".join(_encode(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + _encode(value[k]) for k in sorted(value)) + "}"
    return json.dumps(value)


def tostring(value: Any) -> str:
    """gojq's ``tostring``: strings unquoted, everything else compact JSON with sorted keys."""
    if isinstance(value, str):
        return value
    if value is True:  # what most status expressions give
        return "true"
    if value is False:
        return "false"
    return _encode(value)


def go_format(value: Any) -> str:
    """Go's ``%v`` of a decoded JSON value (used for pod ids and group keys)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return _number(value)
    if isinstance(value, list):
        return "[" + " ".join(go_format(v) for v in value) + "]"
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{go_format(value[k])}" for k in sorted(value)) + "]"
    return "<nil>"


def single_result(results: list[Any]) -> str:
    """Upstream's single-result rule (pod ids, group keys, filters)."""
    if len(results) != 1:
        raise ConversionError(f"expected single query result, got {len(results)}")
    if results[0] is None or results[0] == "":
        raise ConversionError("query result is empty")
    return go_format(results[0])
