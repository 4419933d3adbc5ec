"""jq's values as the house rules' filter (``_house_filter``) reads them: a value's type, truth,
equality and order, the builtins it copies, and plain patterns for ``test``: each exactly as libjq
has it on the values it accepts, and ``Unsure`` raised on any other (what jq would refuse with an
error, a number beyond 2**53, a string beyond printable ASCII under a pattern, a value jq has no
type for). ``Outside``: a rule written with more than the filter copies."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

MAX_EXACT_INT = 2**53  # beyond, jq's doubles and Python's ints may compare apart
MAX_PATTERN_INPUT = 4096  # characters a plain pattern is tried on here (else: the jq worker)
MAX_QUANTIFIERS = 2  # unbounded repetitions in a plain pattern (no catastrophic backtracking)

# a plain pattern: characters, escapes of punctuation, classes, `.`, anchors, \b \s \d \w (and
# their negations), greedy `*`, `+`, `?`, `{n,m}`: written the same in Oniguruma and Python's `re`,
# and meaning the same on printable ASCII
_PLAIN_PATTERN = re.compile(
    r"(?:[A-Za-z0-9 _\-:/=@,;'\"<>%#~!&]"  # a character standing for itself
    r"|\\[bBsSdDwW./\-\[\]{}()*+?|^$]"  # an escape
    r"|\[\^?(?:[A-Za-z0-9 _\-:/.=@,;'\"<>%#~!&]|\\[sSdDwW./\-\[\]])+\]"  # a class
    r"|[.^$*+?]|\{\d+(?:,\d*)?\})*"  # any character, anchors, repetitions
)
_QUANTIFIER = re.compile(r"(?<!\\)(?:[*+]|\{\d+,\})")


class Unsure(Exception):
    """What a rule gives here may not be what libjq gives: let the jq worker decide."""


class Outside(Exception):
    """Written with more than the part of jq copied here."""


def kind_of(value: Any) -> str:
    """jq's type of a decoded value (``Unsure`` for what jq has no type for, or reads apart)."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "boolean"
    kind = type(value)
    if kind is str:
        return "string"
    if kind is dict:
        return "object"
    if kind is list:
        return "array"
    if kind is int:
        if -MAX_EXACT_INT <= value <= MAX_EXACT_INT:
            return "number"
        raise Unsure
    if kind is float:
        if value - value == 0:  # (finite)
            return "number"
        raise Unsure
    raise Unsure  # (a YAML timestamp, bytes, ...: the input is no JSON)


def truthy(value: Any) -> bool:
    return value is not None and value is not False


def equal(left: Any, right: Any) -> bool:
    kind = kind_of(left)
    if kind != kind_of(right):
        return False
    if kind == "array":
        return len(left) == len(right) and all(equal(a, b) for a, b in zip(left, right, strict=True))
    if kind == "object":
        return left.keys() == right.keys() and all(equal(v, right[k]) for k, v in left.items())
    return left == right


def _ordered(left: Any, right: Any) -> tuple[Any, Any]:
    """Two values jq orders as Python does (numbers, or strings: by code point), else ``Unsure``."""
    kind = kind_of(left)
    if kind != kind_of(right) or kind not in ("number", "string"):
        raise Unsure
    return left, right


COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "==": equal,
    "!=": lambda a, b: not equal(a, b),
    "<": lambda a, b: _ordered(a, b)[0] < b,
    "<=": lambda a, b: _ordered(a, b)[0] <= b,
    ">": lambda a, b: _ordered(a, b)[0] > b,
    ">=": lambda a, b: _ordered(a, b)[0] >= b,
}


def _strings(value: Any, other: Any) -> tuple[str, str]:
    if type(value) is not str or type(other) is not str:
        raise Unsure
    return value, other


def _length(value: Any) -> Any:
    kind = kind_of(value)
    if kind in ("string", "array", "object"):
        return len(value)
    if kind == "null":
        return 0
    if kind == "number":
        return abs(value)
    raise Unsure


def _has(value: Any, key: Any) -> bool:
    kinds = (kind_of(value), kind_of(key))
    if kinds == ("object", "string"):
        return key in value
    if kinds == ("array", "number") and type(key) is int:
        return 0 <= key < len(value)
    raise Unsure


def _contains(value: Any, other: Any) -> bool:
    text, part = _strings(value, other)
    if "\0" in text or "\0" in part:
        raise Unsure
    return part in text


def _split(value: Any, separator: Any) -> list:
    text, by = _strings(value, separator)
    if not by:
        raise Unsure
    return text.split(by) if text else []


def _join(value: Any, separator: Any) -> str:
    if type(value) is not list or type(separator) is not str:
        raise Unsure
    if not all(item is None or type(item) is str for item in value):
        raise Unsure  # (numbers and booleans as JSON, containers an error)
    return separator.join("" if item is None else item for item in value)


def _ascii_case(upper: bool) -> Callable[[Any], str]:
    def change(value: Any) -> str:
        if type(value) is not str or not value.isascii():
            raise Unsure
        return value.upper() if upper else value.lower()

    return change


def _keys(value: Any) -> list:
    kind = kind_of(value)
    if kind == "object":
        return sorted(value)
    if kind == "array":
        return list(range(len(value)))
    raise Unsure


# builtins of no argument: input -> output
PLAIN: dict[str, Callable[[Any], Any]] = {
    "not": lambda value: not truthy(value),
    "length": _length,
    "type": kind_of,
    "keys": _keys,
    "ascii_downcase": _ascii_case(False),
    "ascii_upcase": _ascii_case(True),
}

# builtins of one argument, whose outputs are each used: (input, argument) -> output
WITH_ONE: dict[str, Callable[[Any, Any], Any]] = {
    "has": _has,
    "contains": _contains,
    "startswith": lambda value, other: _strings(value, other)[0].startswith(other),
    "endswith": lambda value, other: _strings(value, other)[0].endswith(other),
    "split": _split,
    "join": _join,
}


def printable_ascii(text: str) -> bool:
    return text.isascii() and text.isprintable()


def plain_pattern(text: str, ignore_case: bool) -> re.Pattern[str]:
    """A plain pattern (``_PLAIN_PATTERN``, at most ``MAX_QUANTIFIERS`` repetitions) compiled by
    Python's ``re`` (``Outside`` for any other)."""
    if _PLAIN_PATTERN.fullmatch(text) is None or len(_QUANTIFIER.findall(text)) > MAX_QUANTIFIERS:
        raise Outside
    try:
        return re.compile(text, re.IGNORECASE if ignore_case else 0)
    except re.error:
        raise Outside from None
