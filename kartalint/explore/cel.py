"""The part of CEL (``x-kubernetes-validations`` rules) that decides whether an object can exist.

``predicate(rule)`` translates a rule into a Python test on the node's value, or returns None
when it cannot (method calls such as ``matches``/``exists``/``all``, macros, arithmetic): such a
rule is left out and generation may draw objects it would refuse. Transition rules (``oldSelf``)
are about updates and never refuse a new object. The subset: ``self`` and field paths under it,
``has(...)``, ``size(...)``, integer/string/boolean literals and lists, ``==`` ``!=`` ``<`` ``<=``
``>`` ``>=`` ``in``, ``!``, ``&&``, ``||`` and parentheses. A field that is absent makes the rule
fail, as in CEL (outside ``has``). Parentheses and lists nest at most ``MAX_CEL_NESTING`` deep and
integers are CEL's 64-bit ones (the CRD's validation refuses other rules before explore reads
them); chains of ``&&``, ``||`` and ``!`` are flat, so no rule is a RecursionError.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from kartalint.load.crd_validation import MAX_CEL_NESTING, UINT64_MAX

_TOKEN = re.compile(
    r"\s*(?:(?P<num>-?\d+)|(?P<str>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")|(?P<op>&&|\|\||==|!=|<=|>=|[<>!().,\[\]])"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*))"
)
_MISSING = object()
Value = Callable[[Any], Any]


class _Untranslatable(Exception):
    pass


def _tokens(rule: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    while pos < len(rule.rstrip()):
        match = _TOKEN.match(rule, pos)
        if not match or match.end() == pos:
            raise _Untranslatable
        kind = match.lastgroup or ""
        out.append((kind, match.group(kind)))
        pos = match.end()
    return out


class _Parser:
    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.depth = 0  # parentheses and lists open (at most MAX_CEL_NESTING: no RecursionError)

    def peek(self) -> str:
        return self.tokens[self.pos][1] if self.pos < len(self.tokens) else ""

    def take(self, text: str | None = None) -> tuple[str, str]:
        if self.pos >= len(self.tokens) or (text is not None and self.tokens[self.pos][1] != text):
            raise _Untranslatable
        self.pos += 1
        return self.tokens[self.pos - 1]

    def expression(self) -> Value:
        terms = [self.conjunction()]
        while self.peek() == "||":
            self.take()
            terms.append(self.conjunction())
        return terms[0] if len(terms) == 1 else _any(terms)  # (a flat list: 3,000 terms are no deeper than 2)

    def conjunction(self) -> Value:
        terms = [self.unary()]
        while self.peek() == "&&":
            self.take()
            terms.append(self.unary())
        return terms[0] if len(terms) == 1 else _all(terms)

    def unary(self) -> Value:
        negations = 0
        while self.peek() == "!":
            self.take()
            negations += 1
        inner = self.comparison()
        if negations % 2 == 0:
            return inner if negations == 0 else (lambda v: bool(inner(v)))
        return lambda v: not inner(v)

    def nested(self) -> None:
        self.depth += 1
        if self.depth > MAX_CEL_NESTING:
            raise _Untranslatable

    def comparison(self) -> Value:
        left = self.operand()
        op = self.peek()
        if op not in ("==", "!=", "<", "<=", ">", ">=", "in"):
            return left
        self.take()
        right = self.operand()
        compare: Callable[[Any, Any], bool] = {
            "==": lambda a, b: a == b,
            "!=": lambda a, b: a != b,
            "<": lambda a, b: a < b,
            "<=": lambda a, b: a <= b,
            ">": lambda a, b: a > b,
            ">=": lambda a, b: a >= b,
            "in": lambda a, b: a in b,
        }[op]

        def test(v: Any) -> bool:
            a, b = left(v), right(v)
            if a is _MISSING or b is _MISSING:
                return False
            try:
                return bool(compare(a, b))
            except TypeError:
                return False

        return test

    def operand(self) -> Value:
        kind, text = self.take()
        if text == "(":
            self.nested()
            inner = self.expression()
            self.take(")")
            self.depth -= 1
            return inner
        if kind == "num":
            if len(text.lstrip("-")) > 20 or not -(1 << 63) <= int(text) <= UINT64_MAX:
                raise _Untranslatable  # outside CEL's 64-bit integers (the CRD's validation says so)
            return _constant(int(text))
        if kind == "str":
            return _constant(text[1:-1])
        if text in ("true", "false"):
            return _constant(text == "true")
        if text == "[":
            self.nested()
            items: list[Value] = []
            while self.peek() != "]":
                items.append(self.operand())
                if self.peek() == ",":
                    self.take()
            self.take("]")
            self.depth -= 1
            return lambda v: [item(v) for item in items]
        if text in ("has", "size"):
            self.take("(")
            path = self.path()
            self.take(")")
            if text == "has":
                return lambda v: _get(v, path) is not _MISSING
            return lambda v: _size(_get(v, path))
        if text == "self":
            self.pos -= 1
            path = self.path()
            return lambda v: _get(v, path)
        raise _Untranslatable  # oldSelf is handled before parsing; anything else is out of the subset

    def path(self) -> tuple[str, ...]:
        self.take("self")
        parts = []
        while self.peek() == ".":
            self.take()
            kind, name = self.take()
            if kind != "name" or self.peek() == "(":
                raise _Untranslatable  # a method call
            parts.append(name)
        return tuple(parts)


def _constant(value: Any) -> Value:
    return lambda _: value


def _any(terms: list[Value]) -> Value:
    return lambda v: any(bool(term(v)) for term in terms)


def _all(terms: list[Value]) -> Value:
    return lambda v: all(bool(term(v)) for term in terms)


def _get(value: Any, path: tuple[str, ...]) -> Any:
    for part in path:
        if not isinstance(value, dict) or part not in value:
            return _MISSING
        value = value[part]
    return value


def _size(value: Any) -> Any:
    return len(value) if isinstance(value, (str, list, dict)) else _MISSING


def predicate(rule: Any) -> Callable[[Any], bool] | None:
    """A test that holds for every value the rule accepts when the object is created, or None
    when the rule is outside the subset (see the module docstring)."""
    if not isinstance(rule, str) or "oldSelf" in rule:
        return None
    try:
        parser = _Parser(_tokens(rule))
        test = parser.expression()
        if parser.pos != len(parser.tokens):
            return None
    except _Untranslatable:
        return None
    return lambda value: bool(test(value))
