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

from dataclasses import dataclass, field
from typing import Iterator, List, Optional

from .lexer import JqSyntaxError, Token, tokenize

MAX_DEPTH = 100

ASSIGN_OPS = ("=", "|=", "+=", "-=", "*=", "/=", "%=", "//=")
COMPARE_OPS = ("==", "!=", "<", "<=", ">", ">=")


@dataclass
class Node:
    kind: str
    start: int
    end: int
    value: object = None
    children: List[Optional["Node"]] = field(default_factory=list)
    params: List[str] = field(default_factory=list)

    def walk(self) -> Iterator["Node"]:
        """Every node of the tree, depth first, self included."""
        stack: List[Node] = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(c for c in reversed(node.children) if c is not None)

    def source(self, text: str) -> str:
        return text[self.start : self.end]


MAX_TREE_DEPTH = 200  # a chain of 2,000 `and`s parses flat but makes a tree every analysis would recurse into


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
            raise JqSyntaxError(f"expression nested deeper than {MAX_TREE_DEPTH} levels (a long chain of operators)",
                                node.start, node.end)
        stack.extend((child, depth + 1) for child in node.children if child is not None)
    return tree


class _Parser:
    def __init__(self, tokens: List[Token], source: str) -> None:
        self.tokens = tokens
        self.pos = 0
        self.source = source
        self.depth = 0

    # -- helpers ---------------------------------------------------------------------------
    @property
    def tok(self) -> Token:
        return self.tokens[self.pos]

    def peek(self, offset: int = 1) -> Token:
        return self.tokens[min(self.pos + offset, len(self.tokens) - 1)]

    def advance(self) -> Token:
        tok = self.tokens[self.pos]
        if tok.kind != "EOF":
            self.pos += 1
        return tok

    def is_op(self, *ops: str) -> bool:
        return self.tok.kind == "OP" and self.tok.value in ops

    def is_kw(self, *words: str) -> bool:
        return self.tok.kind == "KEYWORD" and self.tok.value in words

    def expect_op(self, op: str) -> Token:
        if not self.is_op(op):
            self.error(f"expected '{op}'")
        return self.advance()

    def expect_kw(self, word: str) -> Token:
        if not self.is_kw(word):
            self.error(f"expected '{word}'")
        return self.advance()

    def error(self, message: str) -> None:
        tok = self.tok
        found = "end of expression" if tok.kind == "EOF" else repr(self.source[tok.start : tok.end])
        raise JqSyntaxError(f"{message}, found {found}", tok.start, max(tok.end, tok.start + 1))

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise JqSyntaxError(f"expression nested deeper than {MAX_DEPTH} levels", self.tok.start)

    # -- grammar ---------------------------------------------------------------------------
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
        if self.tok.kind == "EOF":
            body = Node("identity", self.tok.start, self.tok.start)
        else:
            body = self.pipe()
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
        params: List[str] = []
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

    def postfix(self) -> Node:
        node = self.term()
        while True:
            if self.tok.kind == "FIELD":
                tok = self.advance()
                node = Node("field", node.start, tok.end, tok.value, [node])
            elif self.is_op(".") and self.peek().kind == "STRING":
                self.advance()
                tok = self.advance()
                key = self.string_node(tok, "")
                node = Node("index", node.start, tok.end, None, [node, key])
            elif self.is_op(".") and self.peek().kind == "OP" and self.peek().value == "[":
                self.advance()
                node = self.bracket_suffix(node)
            elif self.is_op("["):
                node = self.bracket_suffix(node)
            elif self.is_op("?"):
                tok = self.advance()
                node = Node("optional", node.start, tok.end, None, [node])
            elif self.is_kw("as"):
                return self.binding(node)
            else:
                return node

    def bracket_suffix(self, target: Optional[Node]) -> Node:
        start = self.expect_op("[")
        begin = target.start if target is not None else start.start
        if self.is_op("]"):
            end = self.advance()
            return Node("iterate", begin, end.end, None, [target])
        if self.is_op(":"):
            self.advance()
            upper = self.pipe()
            end = self.expect_op("]")
            return Node("slice", begin, end.end, None, [target, None, upper])
        index = self.pipe()
        if self.is_op(":"):
            self.advance()
            upper = None if self.is_op("]") else self.pipe()
            end = self.expect_op("]")
            return Node("slice", begin, end.end, None, [target, index, upper])
        end = self.expect_op("]")
        return Node("index", begin, end.end, None, [target, index])

    def binding(self, source: Node) -> Node:
        self.expect_kw("as")
        patterns = [self.pattern()]
        while self.is_op("?//"):
            self.advance()
            patterns.append(self.pattern())
        self.expect_op("|")
        body = self.pipe()
        return Node("bind", source.start, body.end, None, [source, body] + patterns)

    def pattern(self) -> Node:
        self.enter()
        try:
            tok = self.tok
            if tok.kind == "VAR":
                self.advance()
                return Node("pattern_var", tok.start, tok.end, tok.value)
            if self.is_op("["):
                self.advance()
                items = []
                if not self.is_op("]"):
                    items.append(self.pattern())
                    while self.is_op(","):
                        self.advance()
                        items.append(self.pattern())
                end = self.expect_op("]")
                return Node("pattern_array", tok.start, end.end, None, items)
            if self.is_op("{"):
                self.advance()
                entries = []
                while True:
                    entries.append(self.pattern_entry())
                    if self.is_op(","):
                        self.advance()
                        continue
                    break
                end = self.expect_op("}")
                return Node("pattern_object", tok.start, end.end, None, entries)
            self.error("expected a pattern ($name, [...] or {...})")
            raise AssertionError  # unreachable
        finally:
            self.depth -= 1

    def pattern_entry(self) -> Node:
        tok = self.tok
        if tok.kind == "VAR":
            self.advance()
            key = Node("pattern_var", tok.start, tok.end, tok.value)
            if self.is_op(":"):
                self.advance()
                value = self.pattern()
                return Node("pattern_entry", tok.start, value.end, None, [key, value])
            return Node("pattern_entry", tok.start, tok.end, None, [key, None])
        if tok.kind in ("IDENT", "KEYWORD"):
            self.advance()
            key = Node("literal", tok.start, tok.end, tok.value)
        elif tok.kind == "STRING":
            self.advance()
            key = self.string_node(tok, "")
        elif self.is_op("("):
            self.advance()
            inner = self.pipe()
            end = self.expect_op(")")
            key = Node("paren", tok.start, end.end, None, [inner])
        else:
            self.error("expected an object pattern key")
            raise AssertionError
        self.expect_op(":")
        value = self.pattern()
        return Node("pattern_entry", tok.start, value.end, None, [key, value])

    def term(self) -> Node:
        self.enter()
        try:
            return self._term()
        finally:
            self.depth -= 1

    def _term(self) -> Node:
        tok = self.tok
        kind = tok.kind
        if kind == "FIELD":
            self.advance()
            return Node("field", tok.start, tok.end, tok.value, [None])
        if kind == "OP":
            op = tok.value
            if op == ".":
                self.advance()
                if self.tok.kind == "STRING":
                    stok = self.advance()
                    return Node("index", tok.start, stok.end, None, [None, self.string_node(stok, "")])
                if self.is_op("["):
                    node = self.bracket_suffix(None)
                    node.start = tok.start
                    return node
                return Node("identity", tok.start, tok.end)
            if op == "..":
                self.advance()
                return Node("recurse", tok.start, tok.end)
            if op == "(":
                self.advance()
                inner = self.pipe()
                end = self.expect_op(")")
                return Node("paren", tok.start, end.end, None, [inner])
            if op == "[":
                self.advance()
                if self.is_op("]"):
                    end = self.advance()
                    return Node("array", tok.start, end.end, None, [])
                inner = self.pipe()
                end = self.expect_op("]")
                return Node("array", tok.start, end.end, None, [inner])
            if op == "{":
                return self.object()
            if op == "-":
                return self.unary()
            self.error("unexpected token")
        if kind == "NUMBER":
            self.advance()
            text = tok.value
            number: object = float(text) if any(c in text for c in ".eE") else int(text)
            return Node("literal", tok.start, tok.end, number)
        if kind == "STRING":
            self.advance()
            return self.string_node(tok, "")
        if kind == "FORMAT":
            self.advance()
            if self.tok.kind == "STRING":
                stok = self.advance()
                node = self.string_node(stok, tok.value)
                node.start = tok.start
                return node
            return Node("format", tok.start, tok.end, tok.value)
        if kind == "VAR":
            self.advance()
            return Node("var", tok.start, tok.end, tok.value)
        if kind == "KEYWORD":
            word = tok.value
            if word == "if":
                return self.if_term()
            if word == "try":
                self.advance()
                body = self.postfix_no_bind()
                children: List[Optional[Node]] = [body]
                end = body.end
                if self.is_kw("catch"):
                    self.advance()
                    handler = self.postfix_no_bind()
                    children.append(handler)
                    end = handler.end
                return Node("try", tok.start, end, None, children)
            if word in ("reduce", "foreach"):
                return self.fold_term(word)
            if word == "def":
                fdef = self.funcdef()
                rest = self.pipe()
                return Node("funcdef", fdef.start, rest.end, fdef.value, [fdef.children[0], rest], fdef.params)
            if word == "label":
                return self.pipe()
            if word == "__loc__":
                self.advance()
                return Node("var", tok.start, tok.end, "__loc__")
            self.error(f"unexpected keyword '{word}'")
        if kind == "IDENT":
            self.advance()
            name = tok.value
            if name in ("true", "false", "null"):
                if not self.is_op("("):
                    return Node("literal", tok.start, tok.end, {"true": True, "false": False, "null": None}[name])
            if name == "break":
                if self.tok.kind != "VAR":
                    self.error("expected '$name' after break")
                var = self.advance()
                return Node("break", tok.start, var.end, var.value)
            args: List[Optional[Node]] = []
            end = tok.end
            if self.is_op("("):
                self.advance()
                args.append(self.pipe())
                while self.is_op(";"):
                    self.advance()
                    args.append(self.pipe())
                end = self.expect_op(")").end
            return Node("call", tok.start, end, name, args)
        self.error("unexpected end of expression" if kind == "EOF" else "unexpected token")
        raise AssertionError

    def postfix_no_bind(self) -> Node:
        """A postfix term for ``try``/``catch`` bodies (jq: ``try PostTerm``)."""
        node = self.term()
        while True:
            if self.tok.kind == "FIELD":
                tok = self.advance()
                node = Node("field", node.start, tok.end, tok.value, [node])
            elif self.is_op("[") or (self.is_op(".") and self.peek().kind == "OP" and self.peek().value == "["):
                if self.is_op("."):
                    self.advance()
                node = self.bracket_suffix(node)
            elif self.is_op(".") and self.peek().kind == "STRING":
                self.advance()
                tok = self.advance()
                node = Node("index", node.start, tok.end, None, [node, self.string_node(tok, "")])
            elif self.is_op("?"):
                tok = self.advance()
                node = Node("optional", node.start, tok.end, None, [node])
            else:
                return node

    def if_term(self) -> Node:
        start = self.expect_kw("if")
        children: List[Optional[Node]] = [self.pipe()]
        self.expect_kw("then")
        children.append(self.pipe())
        branches = 1
        while self.is_kw("elif"):
            self.advance()
            children.append(self.pipe())
            self.expect_kw("then")
            children.append(self.pipe())
            branches += 1
        if self.is_kw("else"):
            self.advance()
            children.append(self.pipe())
        end = self.expect_kw("end")
        return Node("if", start.start, end.end, branches, children)

    def fold_term(self, word: str) -> Node:
        start = self.advance()
        source = self.postfix_no_bind()
        self.expect_kw("as")
        pattern = self.pattern()
        self.expect_op("(")
        init = self.pipe()
        self.expect_op(";")
        update = self.pipe()
        children: List[Optional[Node]] = [source, pattern, init, update]
        if word == "foreach" and self.is_op(";"):
            self.advance()
            children.append(self.pipe())
        end = self.expect_op(")")
        return Node(word, start.start, end.end, None, children)

    def object(self) -> Node:
        start = self.expect_op("{")
        entries: List[Optional[Node]] = []
        while not self.is_op("}"):
            entries.append(self.object_entry())
            if self.is_op(","):
                self.advance()
                continue
            if not self.is_op("}"):
                self.error("expected ',' or '}' in object construction")
        end = self.advance()
        return Node("object", start.start, end.end, None, entries)

    def object_entry(self) -> Node:
        tok = self.tok
        key: Node
        if tok.kind == "VAR":
            self.advance()
            key = Node("var", tok.start, tok.end, tok.value)
            if not self.is_op(":"):
                return Node("entry", tok.start, tok.end, None, [key, None])
        elif tok.kind == "KEYWORD" and tok.value == "__loc__":
            self.advance()
            key = Node("var", tok.start, tok.end, "__loc__")
            return Node("entry", tok.start, tok.end, None, [key, None])
        elif tok.kind in ("IDENT", "KEYWORD"):
            self.advance()
            key = Node("literal", tok.start, tok.end, tok.value)
        elif tok.kind == "NUMBER":
            self.advance()
            key = Node("literal", tok.start, tok.end, tok.value)
        elif tok.kind == "STRING":
            self.advance()
            key = self.string_node(tok, "")
        elif tok.kind == "FORMAT":
            self.advance()
            if self.tok.kind == "STRING":
                stok = self.advance()
                key = self.string_node(stok, tok.value)
            else:
                key = Node("format", tok.start, tok.end, tok.value)
        elif self.is_op("("):
            self.advance()
            inner = self.pipe()
            end = self.expect_op(")")
            key = Node("paren", tok.start, end.end, None, [inner])
        else:
            self.error("expected an object key")
            raise AssertionError
        if not self.is_op(":"):
            return Node("entry", key.start, key.end, None, [key, None])
        self.advance()
        value = self.object_value()
        return Node("entry", key.start, value.end, None, [key, value])

    def object_value(self) -> Node:
        """Object values: ``ExpD`` = ``ExpD | ExpD`` or ``-ExpD`` or a postfix term."""
        self.enter()
        try:
            if self.is_op("-"):
                start = self.advance()
                operand = self.object_value()
                left = Node("neg", start.start, operand.end, None, [operand])
            else:
                left = self.postfix_no_bind()
            if self.is_op("|"):
                self.advance()
                right = self.object_value()
                return Node("binop", left.start, right.end, "|", [left, right])
            return left
        finally:
            self.depth -= 1

    def string_node(self, tok: Token, fmt: str) -> Node:
        children: List[Optional[Node]] = []
        literal_parts: List[str] = []
        for part in tok.parts:
            if isinstance(part, str):
                literal_parts.append(part)
                continue
            sub = _Parser(part.tokens, self.source)
            sub.depth = self.depth
            if sub.tok.kind == "EOF":
                raise JqSyntaxError("empty string interpolation", part.start, part.end)
            inner = sub.pipe()
            if sub.tok.kind != "EOF":
                sub.error("unexpected token in string interpolation")
            children.append(inner)
        if not children:
            return Node("literal", tok.start, tok.end, "".join(literal_parts), [], ["string", fmt] if fmt else ["string"])
        return Node("string", tok.start, tok.end, fmt, children)
