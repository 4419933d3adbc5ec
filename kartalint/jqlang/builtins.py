"""Which jq programs libjq would compile, decided without libjq (``kartalint lint``'s fast path).

``BUILTINS`` lists the name/arity of every libjq builtin (``builtins`` of the libjq kartalint
runs; a test compiles each entry with libjq and compares the list with libjq's own).
``statically_compiles(tree)`` says True only when the parsed program uses nothing but those
builtins, functions and parameters it defines, variables it binds, labels it sets and known
formats; anything else (``import``/``include``, ``$__loc__``, a name it cannot place) is left to
libjq. A test holds the promise: wherever it says True, libjq compiles the program.
"""

from __future__ import annotations

from kartalint.jqlang.syntax import Node
from kartalint.jqlang.types import static_type

BUILTINS: frozenset[tuple[str, int]] = frozenset(
    [
        ("IN", 1),
        ("IN", 2),
        ("INDEX", 1),
        ("INDEX", 2),
        ("JOIN", 2),
        ("JOIN", 3),
        ("JOIN", 4),
        ("abs", 0),
        ("acos", 0),
        ("acosh", 0),
        ("add", 0),
        ("add", 1),
        ("all", 0),
        ("all", 1),
        ("all", 2),
        ("any", 0),
        ("any", 1),
        ("any", 2),
        ("arrays", 0),
        ("ascii_downcase", 0),
        ("ascii_upcase", 0),
        ("asin", 0),
        ("asinh", 0),
        ("atan", 0),
        ("atan2", 2),
        ("atanh", 0),
        ("booleans", 0),
        ("bsearch", 1),
        ("builtins", 0),
        ("capture", 1),
        ("capture", 2),
        ("cbrt", 0),
        ("ceil", 0),
        ("combinations", 0),
        ("combinations", 1),
        ("contains", 1),
        ("copysign", 2),
        ("cos", 0),
        ("cosh", 0),
        ("debug", 0),
        ("debug", 1),
        ("del", 1),
        ("delpaths", 1),
        ("drem", 2),
        ("empty", 0),
        ("endswith", 1),
        ("env", 0),
        ("erf", 0),
        ("erfc", 0),
        ("error", 0),
        ("error", 1),
        ("exp", 0),
        ("exp10", 0),
        ("exp2", 0),
        ("explode", 0),
        ("expm1", 0),
        ("fabs", 0),
        ("fdim", 2),
        ("finites", 0),
        ("first", 0),
        ("first", 1),
        ("flatten", 0),
        ("flatten", 1),
        ("floor", 0),
        ("fma", 3),
        ("fmax", 2),
        ("fmin", 2),
        ("fmod", 2),
        ("format", 1),
        ("frexp", 0),
        ("from_entries", 0),
        ("fromdate", 0),
        ("fromdateiso8601", 0),
        ("fromjson", 0),
        ("fromstream", 1),
        ("gamma", 0),
        ("get_jq_origin", 0),
        ("get_prog_origin", 0),
        ("get_search_list", 0),
        ("getpath", 1),
        ("gmtime", 0),
        ("group_by", 1),
        ("gsub", 2),
        ("gsub", 3),
        ("halt", 0),
        ("halt_error", 0),
        ("halt_error", 1),
        ("has", 1),
        ("have_decnum", 0),
        ("have_literal_numbers", 0),
        ("hypot", 2),
        ("implode", 0),
        ("in", 1),
        ("index", 1),
        ("indices", 1),
        ("infinite", 0),
        ("input", 0),
        ("input_filename", 0),
        ("input_line_number", 0),
        ("inputs", 0),
        ("inside", 1),
        ("isempty", 1),
        ("isfinite", 0),
        ("isinfinite", 0),
        ("isnan", 0),
        ("isnormal", 0),
        ("iterables", 0),
        ("j0", 0),
        ("j1", 0),
        ("jn", 2),
        ("join", 1),
        ("keys", 0),
        ("keys_unsorted", 0),
        ("last", 0),
        ("last", 1),
        ("ldexp", 2),
        ("length", 0),
        ("lgamma", 0),
        ("lgamma_r", 0),
        ("limit", 2),
        ("localtime", 0),
        ("log", 0),
        ("log10", 0),
        ("log1p", 0),
        ("log2", 0),
        ("logb", 0),
        ("ltrim", 0),
        ("ltrimstr", 1),
        ("map", 1),
        ("map_values", 1),
        ("match", 1),
        ("match", 2),
        ("max", 0),
        ("max_by", 1),
        ("min", 0),
        ("min_by", 1),
        ("mktime", 0),
        ("modf", 0),
        ("modulemeta", 0),
        ("nan", 0),
        ("nearbyint", 0),
        ("nextafter", 2),
        ("nexttoward", 2),
        ("normals", 0),
        ("not", 0),
        ("now", 0),
        ("nth", 1),
        ("nth", 2),
        ("nulls", 0),
        ("numbers", 0),
        ("objects", 0),
        ("path", 1),
        ("paths", 0),
        ("paths", 1),
        ("pick", 1),
        ("pow", 2),
        ("range", 1),
        ("range", 2),
        ("range", 3),
        ("recurse", 0),
        ("recurse", 1),
        ("recurse", 2),
        ("remainder", 2),
        ("repeat", 1),
        ("reverse", 0),
        ("rindex", 1),
        ("rint", 0),
        ("round", 0),
        ("rtrim", 0),
        ("rtrimstr", 1),
        ("scalars", 0),
        ("scalb", 2),
        ("scalbln", 2),
        ("scan", 1),
        ("scan", 2),
        ("select", 1),
        ("setpath", 2),
        ("significand", 0),
        ("sin", 0),
        ("sinh", 0),
        ("skip", 2),
        ("sort", 0),
        ("sort_by", 1),
        ("split", 1),
        ("split", 2),
        ("splits", 1),
        ("splits", 2),
        ("sqrt", 0),
        ("startswith", 1),
        ("stderr", 0),
        ("strflocaltime", 1),
        ("strftime", 1),
        ("strings", 0),
        ("strptime", 1),
        ("sub", 2),
        ("sub", 3),
        ("tan", 0),
        ("tanh", 0),
        ("test", 1),
        ("test", 2),
        ("tgamma", 0),
        ("to_entries", 0),
        ("toboolean", 0),
        ("todate", 0),
        ("todateiso8601", 0),
        ("tojson", 0),
        ("tonumber", 0),
        ("tostream", 0),
        ("tostring", 0),
        ("transpose", 0),
        ("trim", 0),
        ("trimstr", 1),
        ("trunc", 0),
        ("truncate_stream", 1),
        ("type", 0),
        ("unique", 0),
        ("unique_by", 1),
        ("until", 2),
        ("utf8bytelength", 0),
        ("values", 0),
        ("walk", 1),
        ("while", 2),
        ("with_entries", 1),
        ("y0", 0),
        ("y1", 0),
        ("yn", 2),
    ]
)
FORMATS = frozenset({"text", "json", "html", "uri", "csv", "tsv", "sh", "base64", "base64d", "base32", "base32d"})
BUILTIN_VARIABLES = frozenset({"ENV"})


class _Unknown(Exception):
    """Something libjq has to decide."""


def statically_compiles(tree: Node) -> bool:
    """Whether ``tree`` is proven to compile without libjq: every function and variable it uses is defined (the
    builtin table, its own definitions and bindings); False when libjq has to decide."""
    try:
        _check(tree, frozenset(), frozenset(), frozenset(), True)
    except (_Unknown, RecursionError):
        return False
    return True


def _pattern_variables(pattern: Node | None, functions: frozenset, variables: frozenset, labels: frozenset) -> set[str]:
    """The variables a destructuring pattern binds (computed keys are checked as expressions)."""
    if pattern is None:
        return set()
    if pattern.kind == "pattern_var":
        return {str(pattern.value)}
    out: set[str] = set()
    if pattern.kind == "pattern_array":
        for child in pattern.children:
            out |= _pattern_variables(child, functions, variables, labels)
        return out
    if pattern.kind == "pattern_object":
        for entry in pattern.children:
            if entry is None or entry.kind != "pattern_entry":
                raise _Unknown
            key, value = entry.children[0], entry.children[1] if len(entry.children) > 1 else None
            if key is not None and key.kind == "var":
                out.add(str(key.value))
            elif key is not None and key.kind not in ("literal",):
                _check(key, functions, variables, labels)
            out |= _pattern_variables(value, functions, variables, labels)
        return out
    raise _Unknown


# Where libjq's grammar takes a whole expression (so `def`, `as` and `label` may start there): the
# program, parentheses, brackets, arguments, conditions, bodies, the right of `|`. kartalint's
# parser is more lenient elsewhere (`1 + def f: .; f`, `try label $a | 1`), so there they are
# left to libjq.
_OPEN = {
    "paren": (0,),
    "array": (0,),
    "call": None,
    "if": None,
    "index": (1,),
    "funcdef": (0, 1),
    "bind": (1,),
    "label": (0,),
    "reduce": (2, 3),
    "foreach": (2, 3, 4),
}


def _open_positions(node: Node) -> tuple[int, ...]:
    if node.kind == "binop" and node.value == "|":
        return (1,)
    positions = _OPEN.get(node.kind, ())
    return tuple(range(len(node.children))) if positions is None else positions


def _check(node: Node | None, functions: frozenset, variables: frozenset, labels: frozenset, top: bool = False) -> None:
    if node is None:
        return
    kind = node.kind
    if kind in ("funcdef", "bind", "label") and not top:
        raise _Unknown
    if kind == "directive":
        raise _Unknown
    if kind == "call":
        if (str(node.value), len(node.children)) not in functions and (
            str(node.value),
            len(node.children),
        ) not in BUILTINS:
            raise _Unknown
    elif kind == "var":
        if node.value not in variables and node.value not in BUILTIN_VARIABLES:
            raise _Unknown  # $__loc__, $__prog_args and unbound names are libjq's to judge
    elif kind in ("format", "string") and node.value:
        if node.value not in FORMATS:
            raise _Unknown
    elif kind == "break":
        if node.value not in labels:
            raise _Unknown
        return
    elif kind == "label":
        _check(node.children[0], functions, variables, labels | {node.value}, True)
        return
    elif kind == "funcdef":
        own = functions | {(str(node.value), len(node.params))}
        inner_functions, inner_variables = own, variables
        for param in node.params:
            name = param[1:] if param.startswith("$") else param
            inner_functions = inner_functions | {(name, 0)}
            if param.startswith("$"):
                inner_variables = inner_variables | {name}
        _check(node.children[0], inner_functions, inner_variables, labels, True)
        _check(node.children[1], own, variables, labels, True)
        return
    elif kind == "bind":
        source, body, *patterns = node.children
        _check(source, functions, variables, labels)
        bound: set[str] = set()
        for pattern in patterns:
            bound |= _pattern_variables(pattern, functions, variables, labels)
        _check(body, functions, variables | bound, labels, True)
        return
    elif kind in ("reduce", "foreach"):
        source, pattern, init, *rest = node.children
        _check(source, functions, variables, labels)
        _check(init, functions, variables, labels, True)
        bound = _pattern_variables(pattern, functions, variables, labels)
        for child in rest:
            _check(child, functions, variables | bound, labels, True)
        return
    elif kind.startswith("pattern"):
        raise _Unknown  # patterns are handled by their binding construct
    elif kind == "object":
        for entry in node.children:  # libjq's object values are a narrower grammar than kartalint's
            if entry is not None and len(entry.children) > 1 and _binds_at_top(entry.children[1]):
                raise _Unknown
            key = entry.children[0] if entry is not None and entry.children else None
            if key is not None and key.kind == "paren" and static_type(key) not in (None, "string"):
                raise _Unknown  # libjq folds constant keys and refuses `{(1): .x}` when it compiles
    open_positions = _open_positions(node)
    for position, child in enumerate(node.children):
        _check(child, functions, variables, labels, position in open_positions)


def _binds_at_top(node: Node | None) -> bool:
    """An object value whose operator chain starts a `def`, `as` or `label` (libjq refuses them
    there unless parenthesised)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current is None:
            continue
        if current.kind in ("funcdef", "bind", "label"):
            return True
        if current.kind in ("binop", "neg"):
            stack.extend(current.children)
    return False
