"""The one validation of a CRD's ``openAPIV3Schema``: what every reader of a CRD may rely on.

``CrdIndex`` (``lint --crd``, ``explore``, ``new --crd``, ``init --crd``, the language server)
runs it on every version before any use, so a hostile or hand-broken CRD is one positioned error
(exit 2) and never a ``TypeError`` deep in generation or drafting. It checks what the API server
checks of a ``JSONSchemaProps`` and what kartalint reads:

* every schema is a map; ``properties``/``patternProperties``/``definitions`` are maps of schemas,
  ``allOf``/``anyOf``/``oneOf`` lists of schemas, ``items``/``not`` a schema,
  ``additionalProperties`` a boolean or a schema;
* each keyword has its type: ``type`` one of the six JSON types, strings (``format``,
  ``pattern``, which must compile, ...), numbers (``minimum``, ``maximum``, ``multipleOf`` above
  0), counts (``minLength``, ``maxItems``, ... integers from 0), booleans (``nullable``,
  ``exclusiveMinimum``, the ``x-kubernetes-*`` flags), lists (``required`` and
  ``x-kubernetes-list-map-keys`` of names, ``enum``), ``x-kubernetes-validations`` a list of maps
  whose ``rule`` is a string;
* ``enum`` values and ``default`` are of the declared type;
* the bounds leave room for a value (``minimum`` <= ``maximum``, ``minLength`` <= ``maxLength``...).

The first problem is a ``CrdError`` whose ``path`` locates it in the document.
"""

from __future__ import annotations

import re
from typing import Any


class CrdError(ValueError):
    """A CustomResourceDefinition whose shape the API server would reject (names that are not
    strings, a schema whose ``properties`` is not a map of schemas, a ``minimum`` that is not a
    number, ...); ``path`` locates it."""

    def __init__(self, message: str, path: tuple[Any, ...] = ()) -> None:
        """``message`` says what is wrong with the CRD, at ``path`` in its document."""
        super().__init__(message)
        self.path = path


SCHEMA_MAPS = ("properties", "patternProperties", "definitions")
SCHEMA_LISTS = ("allOf", "anyOf", "oneOf")
TYPES = ("object", "array", "string", "integer", "number", "boolean")
STRINGS = ("format", "title", "description", "pattern", "$ref", "id", "$schema")
NUMBERS = ("minimum", "maximum", "multipleOf")
COUNTS = ("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties")
FLAGS = (
    "exclusiveMinimum",
    "exclusiveMaximum",
    "uniqueItems",
    "nullable",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource",
    "x-kubernetes-int-or-string",
)
CHOICES = {"x-kubernetes-list-type": ("atomic", "set", "map"), "x-kubernetes-map-type": ("atomic", "granular")}
RULE_STRINGS = ("rule", "message", "messageExpression", "reason", "fieldPath")
BOUNDS = (
    ("minimum", "maximum"),
    ("minLength", "maxLength"),
    ("minItems", "maxItems"),
    ("minProperties", "maxProperties"),
)


def dotted(path: tuple[Any, ...]) -> str:
    """A path as a reader writes it: ``spec.versions[0].name``."""
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")


_KINDS = {bool: "boolean", int: "integer", float: "number", str: "string", dict: "map", list: "list"}


def _kind(value: Any) -> str:
    return "null" if value is None else _KINDS.get(type(value), type(value).__name__)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _of_type(value: Any, node: dict[str, Any]) -> bool:
    """Whether an ``enum`` value or a ``default`` fits the schema's declared type."""
    if value is None:
        return bool(node.get("nullable"))
    if node.get("x-kubernetes-int-or-string"):
        return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))
    kind = node.get("type")
    return {
        "object": isinstance(value, dict),
        "array": isinstance(value, list),
        "string": isinstance(value, str),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": _is_number(value),
        "boolean": isinstance(value, bool),
    }.get(str(kind), True)


def _keyword_problem(node: dict[str, Any]) -> tuple[Any, str] | None:
    """(keyword or (keyword, index...), what is wrong) for the first keyword of ``node`` of the
    wrong type, or None."""
    if "type" in node and node["type"] not in TYPES:
        shown = repr(node["type"]) if isinstance(node["type"], str) else f"a {_kind(node['type'])}"
        return "type", f"must be one of {', '.join(TYPES)}, not {shown}"
    for key in STRINGS:
        if key in node and not isinstance(node[key], str):
            return key, f"must be a string, not a {_kind(node[key])}"
    if isinstance(node.get("pattern"), str):
        try:
            re.compile(node["pattern"])
        except (re.error, RecursionError, OverflowError) as exc:
            return "pattern", f"is not a regular expression ({exc})"
    for key in NUMBERS:
        if key in node and not _is_number(node[key]):
            return key, f"must be a number, not a {_kind(node[key])}"
    if "multipleOf" in node and node["multipleOf"] <= 0:
        return "multipleOf", "must be above 0"
    for key in COUNTS:
        if key in node and not (isinstance(node[key], int) and not isinstance(node[key], bool) and node[key] >= 0):
            return key, f"must be an integer from 0, not {node[key]!r}"
    for key in FLAGS:
        if key in node and not isinstance(node[key], bool):
            return key, f"must be true or false, not a {_kind(node[key])}"
    for key, choices in CHOICES.items():
        if key in node and node[key] not in choices:
            return key, f"must be one of {', '.join(choices)}"
    if "required" in node and not (
        isinstance(node["required"], list) and all(isinstance(r, str) for r in node["required"])
    ):
        return "required", "must be a list of field names"
    keys = node.get("x-kubernetes-list-map-keys")
    if keys is not None and not (isinstance(keys, list) and all(isinstance(k, str) for k in keys)):
        return "x-kubernetes-list-map-keys", "must be a list of field names"
    if "enum" in node:
        if not isinstance(node["enum"], list):
            return "enum", "must be a list"
        for index, value in enumerate(node["enum"]):
            if not _of_type(value, node):
                return ("enum", index), f"{value!r} is not of the schema's type {node.get('type')}"
    if "default" in node and not _of_type(node["default"], node):
        return "default", f"{node['default']!r} is not of the schema's type {node.get('type')}"
    return _rules_problem(node) or _bounds_problem(node)


def _rules_problem(node: dict[str, Any]) -> tuple[Any, str] | None:
    rules = node.get("x-kubernetes-validations")
    if rules is None:
        return None
    if not isinstance(rules, list):
        return "x-kubernetes-validations", f"must be a list of rules, not a {_kind(rules)}"
    for index, rule in enumerate(rules):
        if not isinstance(rule, dict):
            return ("x-kubernetes-validations", index), f"a rule must be a map, not a {_kind(rule)}"
        if not isinstance(rule.get("rule"), str):
            return ("x-kubernetes-validations", index, "rule"), "must be a string (a CEL expression)"
        problem = cel_problem(rule["rule"])
        if problem is not None:
            return ("x-kubernetes-validations", index, "rule"), problem
        for key in RULE_STRINGS:
            if key in rule and not isinstance(rule[key], str):
                return ("x-kubernetes-validations", index, key), f"must be a string, not a {_kind(rule[key])}"
        if "optionalOldSelf" in rule and not isinstance(rule["optionalOldSelf"], bool):
            return ("x-kubernetes-validations", index, "optionalOldSelf"), "must be true or false"
    return None


MAX_CEL_NESTING = 64  # parentheses, brackets and braces inside each other in one CEL rule
UINT64_MAX = (1 << 64) - 1
_CEL_TOKENS = re.compile(
    r"""[rRbB]{0,2}(?:'''[\s\S]*?'''|\"\"\"[\s\S]*?\"\"\"|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")"""
    r"""|(?P<open>[(\[{])|(?P<close>[)\]}])|(?<![.\w])(?P<int>\d+)(?![.\w])"""
)


def cel_problem(rule: str) -> str | None:
    """Why a CEL rule cannot be read (None: it can): nesting deeper than ``MAX_CEL_NESTING`` (a
    rule nested thousands deep was a RecursionError in explore), or an integer literal outside
    CEL's 64-bit integers (CEL refuses it; a 5,000-digit one was a ValueError)."""
    depth = 0
    for match in _CEL_TOKENS.finditer(rule):
        if match.group("open"):
            depth += 1
            if depth > MAX_CEL_NESTING:
                return f"the CEL rule is nested deeper than {MAX_CEL_NESTING} levels (at character {match.start() + 1})"
        elif match.group("close"):
            depth = max(0, depth - 1)
        elif match.group("int") and (len(match.group("int")) > 20 or int(match.group("int")) > UINT64_MAX):
            digits = match.group("int")
            shown = digits if len(digits) <= 24 else f"{digits[:10]}... ({len(digits)} digits)"
            return f"the CEL rule holds the integer {shown}, outside CEL's 64-bit integers (at character {match.start() + 1})"
    return None


def _bounds_problem(node: dict[str, Any]) -> tuple[Any, str] | None:
    for low, high in BOUNDS:
        if low in node and high in node:
            exclusive = low == "minimum" and (node.get("exclusiveMinimum") or node.get("exclusiveMaximum"))
            if node[low] > node[high] or (exclusive and node[low] == node[high]):
                return low, f"{node[low]!r} leaves no value below {high} {node[high]!r}"
    return None


def schema_problem(node: Any, path: tuple[Any, ...]) -> CrdError | None:
    """The first place where ``node`` (at ``path`` of the document) is not a valid schema, or None."""
    stack = [(node, path)]
    while stack:
        node, path = stack.pop()
        if not isinstance(node, dict):
            return CrdError(f"{dotted(path)}: a schema must be a map, not {type(node).__name__}", path)
        problem = _keyword_problem(node)
        for key in SCHEMA_MAPS:
            if key in node and not problem:
                if not isinstance(node[key], dict):
                    problem = key, f"must be a map of field names to schemas, not {type(node[key]).__name__}"
                else:
                    stack.extend((child, (*path, key, name)) for name, child in node[key].items())
        for key in SCHEMA_LISTS:
            if key in node and not problem:
                if not isinstance(node[key], list):
                    problem = key, "must be a list of schemas"
                else:
                    stack.extend((child, (*path, key, i)) for i, child in enumerate(node[key]))
        if problem:
            where = (*path, *(problem[0] if isinstance(problem[0], tuple) else (problem[0],)))
            return CrdError(f"{dotted(where)}: {problem[1]}", where)
        for key in ("items", "not"):
            if key in node:
                stack.append((node[key], (*path, key)))
        if "additionalProperties" in node and not isinstance(node["additionalProperties"], bool):
            stack.append((node["additionalProperties"], (*path, "additionalProperties")))
    return None
