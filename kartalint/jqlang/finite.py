"""Whether a jq expression certainly ends with a number of outputs bounded by its input.

The evaluation engine joins a definition's expressions into one program and collects each
expression's outputs; jq's ``limit`` (the cap upstream applies) is the costliest part of that
program, and for these expressions collecting all outputs and counting them gives the same
result.
"""

from __future__ import annotations

from kartalint.jqlang.parser import ASSIGN_OPS, Node

# Node kinds and builtins whose number of outputs is finite and bounded by the input's size (no
# recursion, no loops, no generators of their own): the combined evaluation program collects
# their outputs whole instead of through jq's costlier `limit`.
_FINITE_KINDS = frozenset(
    [
        "identity",
        "recurse",
        "field",
        "index",
        "slice",
        "iterate",
        "optional",
        "literal",
        "string",
        "format",
        "var",
        "array",
        "object",
        "entry",
        "paren",
        "binop",
        "neg",
        "if",
        "try",
        "bind",
        "pattern_var",
        "pattern_array",
        "pattern_object",
        "pattern_entry",
    ]
)
_FINITE_CALLS = frozenset(
    [
        "select",
        "empty",
        "error",
        "not",
        "length",
        "utf8bytelength",
        "keys",
        "has",
        "in",
        "contains",
        "inside",
        "startswith",
        "endswith",
        "ltrimstr",
        "rtrimstr",
        "ascii_downcase",
        "ascii_upcase",
        "tostring",
        "tonumber",
        "tojson",
        "fromjson",
        "type",
        "add",
        "any",
        "all",
        "map",
        "map_values",
        "to_entries",
        "from_entries",
        "with_entries",
        "first",
        "last",
        "values",
        "nulls",
        "booleans",
        "numbers",
        "strings",
        "arrays",
        "objects",
        "iterables",
        "scalars",
        "sort",
        "sort_by",
        "group_by",
        "unique",
        "unique_by",
        "min",
        "max",
        "min_by",
        "max_by",
        "reverse",
        "flatten",
        "join",
        "split",
        "test",
        "floor",
        "ceil",
        "round",
        "fabs",
        "sqrt",
        "abs",
        "getpath",
        "isnan",
        "infinite",
        "nan",
        "null",
        "true",
        "false",
        "ascii",
        "implode",
        "explode",
        "tostream_free",
        "isinfinite",
        "isnormal",
    ]
)


def finite_output(root: Node) -> bool:
    """True when the expression certainly ends with a number of outputs bounded by its input (so
    collecting them all is as safe as stopping at a cap); False when unsure."""
    for node in root.walk():
        if node.kind == "call":
            if node.value not in _FINITE_CALLS:
                return False
        elif node.kind == "binop":
            if node.value in ASSIGN_OPS:
                return False
        elif node.kind not in _FINITE_KINDS:
            return False
    return True
