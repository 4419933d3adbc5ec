"""House rules cleared in this process: a definition on which no house rule finds anything (nearly
every definition of a repository that holds to its conventions) need not go to the jq worker.

A rule's ``when`` written with a small part of jq (``compile_when``: paths, literals, ``|``, ``,``,
``//``, ``and``/``or``/``not``, comparisons, ``if``, ``as $x``, ``[...]``, ``map``, ``select``,
``length``, ``has``, ``contains``, ``startswith``, ``test`` with a plain pattern, ...) is compiled to
Python here. Such a rule run on a unit says *clear* (every output ``false`` or ``null``, or no
output) only where libjq gives exactly that; anything else (a ``true``, an output that is neither,
a value or an operation whose jq meaning is not copied here: what jq would refuse with an error, a
string with control characters or beyond ASCII under a pattern, a number beyond 2**53, ...) raises
``Unsure``, and the definition goes to the jq worker as before, which decides. So what lint reports
is what the jq worker alone reports (tests/test_house_rules_filter.py compares the two on the
catalog, tests/data and generated units, against libjq itself).

Messages are never made here: a definition with a finding is run by the jq worker.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from kartalint.jqlang.lexer import JqSyntaxError
from kartalint.jqlang.parser import parse
from kartalint.rules._house_values import (
    COMPARE,
    MAX_PATTERN_INPUT,
    PLAIN,
    WITH_ONE,
    Outside,
    Unsure,
    kind_of,
    plain_pattern,
    printable_ascii,
    truthy,
)

# a compiled part of a rule: (input, variables) -> its outputs
Part = Callable[[Any, dict], list]
# A part of one output: (input, variables) -> its output. Most of a rule gives one output for one
# input (a path, a comparison, a test); such a part is compiled without lists of outputs (a third
# of the time). A part that may give another number of outputs (`select`, `,`, `.[]`, `empty`)
# inside one that needs one raises ``Unsure`` when it does.
One = Callable[[Any, dict], Any]


def compile_when(when: str) -> One | None:
    """``when`` compiled to Python (``clear`` runs it), or None when it is written with more than
    the part of jq copied here (its definitions always go to the jq worker)."""
    return _compiled(when)


@functools.lru_cache(maxsize=512)
def _compiled(when: str) -> One | None:
    try:
        return _one(parse(when))
    except (JqSyntaxError, Outside, RecursionError):
        return None


def clear(part: One, unit: Any, variables: dict) -> bool:
    """Whether a rule compiled to ``part`` finds nothing on ``unit``: True (clear), or ``Unsure``
    raised (a finding, a failure, or not known here)."""
    output = part(unit, variables)
    if output is not None and output is not False:
        raise Unsure  # (true: a finding, made by the jq worker with its message; else a failure)
    return True


def _one(node: Any, alone: bool = False) -> One:
    """A part of one output (``alone``: no other way to compile it; else a part of any number of
    outputs, ``_part``, whose one output is needed here: ``Unsure`` when it gives another number)."""
    kind = node.kind
    if kind == "paren":
        return _one(node.children[0])
    if kind == "identity":
        return lambda value, variables: value
    if kind == "literal":
        constant = node.value
        try:
            kind_of(constant)
        except Unsure:
            raise Outside from None
        return lambda value, variables: constant
    if kind == "object" and not node.children:
        return lambda value, variables: {}
    if kind == "field":
        names = []
        while node.kind == "field":  # (a chain `.a.b.c` read in one step)
            names.append(node.value)
            if node.children[0] is None:
                break
            node = node.children[0]
        names.reverse()
        if node.kind == "field":  # (the chain starts at `.`)
            return lambda value, variables: _follow(value, names)
        target = _one(node)
        return lambda value, variables: _follow(target(value, variables), names)
    if kind == "binop" and (node.value in ("|", "//", "and", "or") or node.value in COMPARE):
        return _one_binop(node)
    if kind == "if":
        branches = node.value
        parts = [_one(child) for child in node.children]
        tests = [(parts[2 * i], parts[2 * i + 1]) for i in range(branches)]
        otherwise = parts[2 * branches] if len(parts) > 2 * branches else None

        def choose(value: Any, variables: dict) -> Any:
            for test, then in tests:
                if truthy(test(value, variables)):
                    return then(value, variables)
            return otherwise(value, variables) if otherwise is not None else value

        return choose
    if kind == "bind" and len(node.children) == 3 and node.children[2].kind == "pattern_var":
        name = node.children[2].value
        if name in ("path", "definition") or name.startswith("__"):
            raise Outside
        source, body = _one(node.children[0]), _one(node.children[1])
        return lambda value, variables: body(value, {**variables, name: source(value, variables)})
    if kind == "var" and not (node.value.startswith("__") or node.value == "ENV"):
        name = node.value

        def variable(value: Any, variables: dict) -> Any:
            if name not in variables:
                raise Unsure
            found = variables[name]
            return list(found) if type(found) is tuple else found  # (``$path``: a tuple, a list in jq)

        return variable
    if kind == "index":
        return _index(node)
    if kind == "neg":
        operand = _one(node.children[0])

        def negative(value: Any, variables: dict) -> Any:
            number = operand(value, variables)
            if kind_of(number) != "number":
                raise Unsure
            return -number

        return negative
    if kind == "call":
        found = _call(node)
        if found is not None:
            return found
    if alone:
        raise Outside  # (strings with interpolation, objects, reduce, try, def, `..`, `?`, slices, ...)
    part = _part(node)  # (any number of outputs: one is needed here)

    def single(value: Any, variables: dict) -> Any:
        found = part(value, variables)
        if len(found) != 1:
            raise Unsure
        return found[0]

    return single


def _call(node: Any) -> One | None:
    """A builtin of one output (None: not one of them)."""
    name, arguments = node.value, node.children
    if name in ("true", "false", "null") and not arguments:
        constant = {"true": True, "false": False, "null": None}[name]
        return lambda value, variables: constant
    plain = PLAIN.get(name)
    if plain is not None and not arguments:
        return lambda value, variables: plain(value)
    one = WITH_ONE.get(name)
    if one is not None and len(arguments) == 1:
        argument = _one(arguments[0])
        return lambda value, variables: one(value, argument(value, variables))
    if name == "map" and len(arguments) == 1:
        inside = _part(arguments[0])

        def each(value: Any, variables: dict) -> Any:
            if type(value) is not list:
                raise Unsure  # (an object's values, or an error)
            return [out for item in value for out in inside(item, variables)]

        return each
    if name == "test" and len(arguments) in (1, 2):
        return _test(arguments)
    return None


def _index(node: Any) -> One:
    """``.[key]`` of its target: a name of an object, a position of an array, null of null."""
    target = (lambda value, variables: value) if node.children[0] is None else _one(node.children[0])
    key = _one(node.children[1])

    def index(value: Any, variables: dict) -> Any:
        at = key(value, variables)  # (jq: the key first)
        found = target(value, variables)
        kinds = (kind_of(found), kind_of(at))
        if kinds[0] == "null" and kinds[1] in ("string", "number"):
            return None
        if kinds == ("object", "string"):
            return found.get(at)
        if kinds == ("array", "number") and type(at) is int:
            return found[at] if -len(found) <= at < len(found) else None
        raise Unsure

    return index


def _follow(value: Any, names: list[str]) -> Any:
    """``.a.b.c`` of ``value``: null through null, ``Unsure`` on what jq cannot index by a name."""
    for name in names:
        if type(value) is dict:
            value = value.get(name)
        elif value is not None:
            raise Unsure
    return value


def _one_binop(node: Any) -> One:
    operator = node.value
    left, right = (_one(child) for child in node.children)
    if operator == "|":
        return lambda value, variables: right(left(value, variables), variables)
    if operator == "//":

        def alternative(value: Any, variables: dict) -> Any:
            found = left(value, variables)
            return found if truthy(found) else right(value, variables)

        return alternative
    if operator == "and":
        return lambda value, variables: truthy(left(value, variables)) and truthy(right(value, variables))
    if operator == "or":
        return lambda value, variables: truthy(left(value, variables)) or truthy(right(value, variables))
    compare = COMPARE[operator]
    constant = node.children[1]
    if (
        operator in ("==", "!=")
        and constant.kind == "literal"
        and (constant.value is None or type(constant.value) is str)
    ):
        wanted, equal = constant.value, operator == "=="  # (`.x != null`, `== "name"`: what rules write most)
        if wanted is None:
            return lambda value, variables: (left(value, variables) is None) is equal

        def same_string(value: Any, variables: dict) -> Any:
            found = left(value, variables)
            if type(found) is not str:
                kind_of(found)  # (Unsure for a value jq has no type for)
                return not equal
            return (found == wanted) is equal

        return same_string

    def compared(value: Any, variables: dict) -> Any:
        other = right(value, variables)  # (jq: the right side first)
        return compare(left(value, variables), other)

    return compared


def _part(node: Any) -> Part:
    """A part that may give any number of outputs: `,`, `|` after one, `empty`, `select`, `.[]`, and
    `[...]` collecting them; any other is a part of one output (``_one``), its output in a list."""
    kind, value_ = node.kind, node.value
    if kind == "paren":
        return _part(node.children[0])
    if kind == "binop" and value_ in ("|", ","):
        left, right = (_part(child) for child in node.children)
        if value_ == ",":
            return lambda value, variables: left(value, variables) + right(value, variables)
        return lambda value, variables: [out for found in left(value, variables) for out in right(found, variables)]
    if kind == "call" and value_ == "empty" and not node.children:
        return lambda value, variables: []
    if kind == "call" and value_ == "select" and len(node.children) == 1:
        test = _one(node.children[0])
        return lambda value, variables: [value] if truthy(test(value, variables)) else []
    if kind == "array":
        if not node.children:
            return lambda value, variables: [[]]
        inside = _part(node.children[0])
        return lambda value, variables: [inside(value, variables)]
    if kind == "iterate":
        target = (lambda value, variables: [value]) if node.children[0] is None else _part(node.children[0])

        def iterate(value: Any, variables: dict) -> list:
            out: list = []
            for found in target(value, variables):
                kind_ = kind_of(found)
                if kind_ == "array":
                    out.extend(found)
                elif kind_ == "object":
                    out.extend(found.values())
                else:
                    raise Unsure
            return out

        return iterate
    one = _one(node, alone=True)
    return lambda value, variables: [one(value, variables)]


def _test(arguments: list[Any]) -> One:
    """``test(pattern)``, ``test(pattern; flags)`` with a plain pattern written as a literal."""
    pattern = arguments[0]
    flags = arguments[1] if len(arguments) == 2 else None
    if pattern.kind != "literal" or not isinstance(pattern.value, str):
        raise Outside
    if flags is not None and not (flags.kind == "literal" and flags.value in (None, "", "i")):
        raise Outside
    compiled = plain_pattern(pattern.value, flags is not None and flags.value == "i")

    def test(value: Any, variables: dict) -> bool:
        if type(value) is not str or len(value) > MAX_PATTERN_INPUT or not printable_ascii(value):
            raise Unsure
        return compiled.search(value) is not None

    return test
