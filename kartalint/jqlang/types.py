"""The jq type of an expression's outputs where the syntax alone decides it (a constant, a list
or an object built by the expression, a test, a builtin with a fixed result type), else None."""

from __future__ import annotations

from kartalint.jqlang.syntax import COMPARE_OPS, Node

# builtins whose outputs (when they do not fail) always have this type, whatever the input
_RESULT_TYPES = {
    **dict.fromkeys(
        ("length", "utf8bytelength", "tonumber", "floor", "ceil", "round", "sqrt", "fabs", "now", "infinite", "nan"),
        "number",
    ),
    **dict.fromkeys(
        (
            "tostring",
            "tojson",
            "type",
            "ascii_downcase",
            "ascii_upcase",
            "trim",
            "ltrim",
            "rtrim",
            "join",
            "sub",
            "gsub",
            "todate",
            "todateiso8601",
            "strftime",
            "implode",
        ),
        "string",
    ),
    **dict.fromkeys(
        (
            "not",
            "has",
            "in",
            "inside",
            "contains",
            "startswith",
            "endswith",
            "test",
            "isinfinite",
            "isnan",
            "isnormal",
            "isvalid",
            "any",
            "all",
            "isempty",
            "IN",
        ),
        "boolean",
    ),
    **dict.fromkeys(("keys", "keys_unsorted", "to_entries", "split", "explode"), "array"),
}
_ARITHMETIC = ("-", "*", "/", "%")


def static_type(node: Node | None) -> str | None:
    """ "string", "number", "boolean", "null", "array" or "object" when every output of ``node``
    has that type, whatever the input; None when the syntax does not decide it."""
    while node is not None and node.kind == "paren":
        node = node.children[0]
    if node is None:
        return None
    kind = node.kind
    if kind == "literal":
        value = node.value
        if value is None:
            return "null"
        if isinstance(value, bool):
            return "boolean"
        return "string" if isinstance(value, str) else "number"
    if kind in ("string", "format"):
        return "string"
    if kind in ("array", "object"):
        return "array" if kind == "array" else "object"
    if kind == "neg":
        return "number"
    if kind == "call":
        return _RESULT_TYPES.get(str(node.value))
    if kind == "binop":
        op = node.value
        if op in COMPARE_OPS or op in ("and", "or"):
            return "boolean"
        if op == "|":
            return static_type(node.children[1])
        left, right = (static_type(child) for child in node.children)
        if op in _ARITHMETIC and left == right == "number":
            return "number"
        if op == "+" and left == right and left in ("number", "string", "array", "object"):
            return left
        return None
    if kind == "if":
        pairs = node.value if isinstance(node.value, int) and node.value else 1
        branches = [node.children[2 * i + 1] for i in range(pairs)] + list(node.children[2 * pairs :])
        if len(branches) == pairs:  # no else: the input itself comes out
            return None
        types = {static_type(branch) for branch in branches}
        return types.pop() if len(types) == 1 else None
    return None
