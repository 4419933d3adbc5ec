"""A jq parser producing a small AST whose nodes carry source spans.

It covers the jq grammar found in practice (jq 1.7 / gojq): pipes, comma, ``//``, ``?``, paths,
slices, string interpolation, formats, object and array construction, ``if``/``elif``/``else``,
``try``/``catch``, ``reduce``, ``foreach``, ``label``/``break``, ``def`` with parameters, ``as``
bindings with destructuring and ``?//``, unary minus, comments, ``import``/``include``
directives. Nesting is bounded (``MAX_DEPTH``) so hostile input fails cleanly.

Node kinds (``Node.kind``) and their children:

==============  ==========================================================================
identity        ``.``
recurse         ``..``
field           ``.name`` / ``."name"`` on children[0] (None = ``.``); value = name
index           children = [target (None = ``.``), index]
slice           children = [target, from (or None), to (or None)]
iterate         children = [target]  (``.[]``)
optional        children = [expr]  (postfix ``?``)
literal         value = number/str/true/false/null
string          children = interpolated parts (Node), value = format name or ""
format          value = format name (``@base64``)
var             value = name (without ``$``)
call            value = name, children = arguments
array           children = [] or [expr]
object          children = entries; an entry is Node("entry", children=[key, value or None])
paren           children = [expr]
binop           value = operator (``|``, ``,``, ``//``, ``=``, ``|=``, ..., ``or``, ``and``,
                ``==``, ``+``, ...), children = [left, right]
neg             children = [operand]
if              children = [cond, then, cond2, then2, ..., else?]; value = number of branches
try             children = [body, handler?]
reduce          children = [source, pattern, init, update]
foreach         children = [source, pattern, init, update, extract?]
bind            children = [source, body, pattern, pattern...]  (``?//`` alternatives)
label           value = name, children = [body]
break           value = name
funcdef         value = name, params = [...], children = [body, rest]
pattern_var     value = name
pattern_array   children = patterns
pattern_object  children = entries (Node("pattern_entry", children=[key, pattern or None]))
directive       value = "import"/"include", children = [path string]
==============  ==========================================================================
"""

from __future__ import annotations

from kartalint.jqlang.lexer import JqSyntaxError, Token, tokenize
from kartalint.jqlang.syntax import ASSIGN_OPS, COMPARE_OPS, MAX_DEPTH, MAX_TREE_DEPTH, Node
from kartalint.jqlang.terms import TermParser

__all__ = ["ASSIGN_OPS", "COMPARE_OPS", "MAX_DEPTH", "MAX_TREE_DEPTH", "Node", "parse"]


def parse(source: str) -> Node:
    """Parse a jq program; raises ``JqSyntaxError`` with an offset on failure."""
    try:
        tree = _Parser(tokenize(source), source).program()
    except RecursionError:
        raise JqSyntaxError("expression is nested too deeply", 0, len(source)) from None
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_TREE_DEPTH:
            raise JqSyntaxError(
                f"expression nested deeper than {MAX_TREE_DEPTH} levels (a long chain of operators)",
                node.start,
                node.end,
            )
        stack.extend((child, depth + 1) for child in node.children if child is not None)
    return tree


class _Parser(TermParser):
    def subparser(self, tokens: list[Token]) -> TermParser:
        return _Parser(tokens, self.source)

    def program(self) -> Node:
        directives = []
        while self.is_kw("import", "include"):
            start = self.advance()
            if self.tok.kind != "STRING":
                self.error("expected a module path string")
            path = self.string_node(self.advance(), "")
            if start.value == "import":
                self.expect_kw("as")
                if self.tok.kind not in ("IDENT", "VAR"):
                    self.error("expected a module name")
                self.advance()
            if self.is_op("{"):
                self.term()  # metadata object
            end = self.expect_op(";")
            directives.append(Node("directive", start.start, end.end, start.value, [path]))
        if self.tok.kind == "EOF" and not directives:
            self.error("empty expression")
        body = Node("identity", self.tok.start, self.tok.start) if self.tok.kind == "EOF" else self.pipe()
        if self.tok.kind != "EOF":
            self.error("unexpected token")
        for directive in reversed(directives):
            body = Node("binop", directive.start, body.end, "directive", [directive, body])
        return body

    def pipe(self) -> Node:
        self.enter()
        try:
            if self.is_kw("def"):
                fdef = self.funcdef()
                rest = self.pipe()
                return Node("funcdef", fdef.start, rest.end, fdef.value, [fdef.children[0], rest], fdef.params)
            if self.is_kw("label"):
                start = self.advance()
                if self.tok.kind != "VAR":
                    self.error("expected '$name' after label")
                name = self.advance().value
                self.expect_op("|")
                body = self.pipe()
                return Node("label", start.start, body.end, name, [body])
            left = self.comma()
            if self.is_op("|"):
                self.advance()
                right = self.pipe()
                return Node("binop", left.start, right.end, "|", [left, right])
            return left
        finally:
            self.depth -= 1

    def funcdef(self) -> Node:
        start = self.expect_kw("def")
        if self.tok.kind not in ("IDENT", "KEYWORD"):
            self.error("expected a function name")
        name = self.advance().value
        params: list[str] = []
        if self.is_op("("):
            self.advance()
            while True:
                if self.tok.kind == "VAR":
                    params.append("$" + self.advance().value)
                elif self.tok.kind in ("IDENT", "KEYWORD"):
                    params.append(self.advance().value)
                else:
                    self.error("expected a parameter name")
                if self.is_op(";"):
                    self.advance()
                    continue
                self.expect_op(")")
                break
        self.expect_op(":")
        body = self.pipe()
        end = self.expect_op(";")
        return Node("funcdef", start.start, end.end, name, [body, None], params)

    def comma(self) -> Node:
        left = self.alternative()
        while self.is_op(","):
            self.advance()
            right = self.alternative()
            left = Node("binop", left.start, right.end, ",", [left, right])
        return left

    def alternative(self) -> Node:
        left = self.assignment()
        if self.is_op("//"):
            self.advance()
            right = self.alternative()
            return Node("binop", left.start, right.end, "//", [left, right])
        return left

    def assignment(self) -> Node:
        left = self.logical_or()
        if self.is_op(*ASSIGN_OPS):
            op = self.advance().value
            right = self.alternative()
            return Node("binop", left.start, right.end, op, [left, right])
        return left

    def logical_or(self) -> Node:
        left = self.logical_and()
        while self.is_kw("or"):
            self.advance()
            right = self.logical_and()
            left = Node("binop", left.start, right.end, "or", [left, right])
        return left

    def logical_and(self) -> Node:
        left = self.comparison()
        while self.is_kw("and"):
            self.advance()
            right = self.comparison()
            left = Node("binop", left.start, right.end, "and", [left, right])
        return left

    def comparison(self) -> Node:
        left = self.additive()
        if self.is_op(*COMPARE_OPS):
            op = self.advance().value
            right = self.additive()
            left = Node("binop", left.start, right.end, op, [left, right])
            if self.is_op(*COMPARE_OPS):
                self.error("comparison operators cannot be chained")
        return left

    def additive(self) -> Node:
        left = self.multiplicative()
        while self.is_op("+", "-"):
            op = self.advance().value
            right = self.multiplicative()
            left = Node("binop", left.start, right.end, op, [left, right])
        return left

    def multiplicative(self) -> Node:
        left = self.unary()
        while self.is_op("*", "/", "%"):
            op = self.advance().value
            right = self.unary()
            left = Node("binop", left.start, right.end, op, [left, right])
        return left

    def unary(self) -> Node:
        if self.is_op("-"):
            start = self.advance()
            self.enter()
            try:
                operand = self.unary()
            finally:
                self.depth -= 1
            return Node("neg", start.start, operand.end, None, [operand])
        return self.postfix()
