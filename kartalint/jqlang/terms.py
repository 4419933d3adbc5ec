"""Terms of the jq grammar: paths and postfix suffixes, literals, strings, arrays, objects,
``if``, ``reduce``/``foreach``, ``as`` bindings and destructuring patterns."""

from __future__ import annotations

from kartalint.jqlang.lexer import JqSyntaxError, Token
from kartalint.jqlang.syntax import Node, TokenStream


class TermParser(TokenStream):
    """The term level; the operator levels (``pipe`` and below) are ``kartalint.jqlang.parser``'s."""

    def pipe(self) -> Node:  # pragma: no cover - defined by the parser
        """A pipe (``|``, ``,``, ``//``, ...): the parser's."""
        raise NotImplementedError

    def funcdef(self) -> Node:  # pragma: no cover - defined by the parser
        """A function definition (``def f: ...;``): the parser's."""
        raise NotImplementedError

    def unary(self) -> Node:  # pragma: no cover - defined by the parser
        """A unary term (``-x``): the parser's."""
        raise NotImplementedError

    def subparser(self, tokens: list[Token]) -> TermParser:  # pragma: no cover - defined by the parser
        """A parser of an interpolation's ``tokens``: the parser's."""
        raise NotImplementedError

    def postfix(self, bind: bool = True) -> Node:
        """A term and its suffixes (``.a``, ``."a"``, ``[...]``, ``.[...]``, ``?``), then with ``bind``
        an ``as`` binding; without it (jq's ``PostTerm``: ``try`` and ``catch`` bodies, the source of
        ``reduce``/``foreach``, an object value) an ``as`` is left to the caller."""
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
            elif bind and self.is_kw("as"):
                return self.binding(node)
            else:
                return node

    def bracket_suffix(self, target: Node | None) -> Node:
        """The ``[...]`` after ``target``: iteration, an index or a slice."""
        start = self.expect_op("[")
        begin = target.start if target is not None else start.start
        if self.is_op("]"):
            end = self.advance()
            return Node("iterate", begin, end.end, None, [target])
        if self.is_op(":"):
            self.advance()
            upper: Node | None = self.pipe()
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
        """``source as $x | body`` (with ``?//`` alternatives): a binding."""
        self.expect_kw("as")
        patterns = [self.pattern()]
        while self.is_op("?//"):
            self.advance()
            patterns.append(self.pattern())
        self.expect_op("|")
        body = self.pipe()
        return Node("bind", source.start, body.end, None, [source, body, *patterns])

    def pattern(self) -> Node:
        """A destructuring pattern: ``$x``, ``[...]`` or ``{...}``."""
        self.enter()
        try:
            tok = self.tok
            if tok.kind == "VAR":
                self.advance()
                return Node("pattern_var", tok.start, tok.end, tok.value)
            if self.is_op("["):
                self.advance()
                items: list[Node | None] = []
                if not self.is_op("]"):
                    items.append(self.pattern())
                    while self.is_op(","):
                        self.advance()
                        items.append(self.pattern())
                end = self.expect_op("]")
                return Node("pattern_array", tok.start, end.end, None, items)
            if self.is_op("{"):
                self.advance()
                entries: list[Node | None] = []
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
        """One entry of an object pattern: ``$x``, ``$x: pattern``, ``key: pattern``, ``(expr): pattern``."""
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
        """A term, one level deeper (``MAX_DEPTH`` bounds the nesting)."""
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
            number: object = float(text) if ("." in text or "e" in text or "E" in text) else int(text)
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
                body = self.postfix(bind=False)
                children: list[Node | None] = [body]
                stop = body.end
                if self.is_kw("catch"):
                    self.advance()
                    handler = self.postfix(bind=False)
                    children.append(handler)
                    stop = handler.end
                return Node("try", tok.start, stop, None, children)
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
            if name in ("true", "false", "null") and not self.is_op("("):
                return Node("literal", tok.start, tok.end, {"true": True, "false": False, "null": None}[name])
            if name == "break":
                if self.tok.kind != "VAR":
                    self.error("expected '$name' after break")
                var = self.advance()
                return Node("break", tok.start, var.end, var.value)
            args: list[Node | None] = []
            stop = tok.end
            if self.is_op("("):
                self.advance()
                args.append(self.pipe())
                while self.is_op(";"):
                    self.advance()
                    args.append(self.pipe())
                stop = self.expect_op(")").end
            return Node("call", tok.start, stop, name, args)
        self.error("unexpected end of expression" if kind == "EOF" else "unexpected token")
        raise AssertionError

    def if_term(self) -> Node:
        """``if ... then ... elif ... else ... end`` (the ``else`` optional)."""
        start = self.expect_kw("if")
        children: list[Node | None] = [self.pipe()]
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
        """``reduce`` or ``foreach`` (``word``): its source, pattern, and its init, update and extract."""
        start = self.advance()
        source = self.postfix(bind=False)
        self.expect_kw("as")
        pattern = self.pattern()
        self.expect_op("(")
        init = self.pipe()
        self.expect_op(";")
        update = self.pipe()
        children: list[Node | None] = [source, pattern, init, update]
        if word == "foreach" and self.is_op(";"):
            self.advance()
            children.append(self.pipe())
        end = self.expect_op(")")
        return Node(word, start.start, end.end, None, children)

    def object(self) -> Node:
        """An object construction ``{...}``."""
        start = self.expect_op("{")
        entries: list[Node | None] = []
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
        """One entry of an object construction: ``$x``, ``key``, ``key: value``, ``"str": value``, ``(expr):
        value``, ``@format "s": value``, ``$__loc__``."""
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
        elif tok.kind in ("IDENT", "KEYWORD") or tok.kind == "NUMBER":
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
                left = self.postfix(bind=False)
            if self.is_op("|"):
                self.advance()
                right = self.object_value()
                return Node("binop", left.start, right.end, "|", [left, right])
            return left
        finally:
            self.depth -= 1

    def string_node(self, tok: Token, fmt: str) -> Node:
        """The string token ``tok`` (with format ``fmt``): its literal pieces and interpolations parsed."""
        children: list[Node | None] = []
        literal_parts: list[str] = []
        for part in tok.parts:
            if isinstance(part, str):
                literal_parts.append(part)
                continue
            sub = self.subparser(part.tokens)
            sub.depth = self.depth
            if sub.tok.kind == "EOF":
                raise JqSyntaxError("empty string interpolation", part.start, part.end)
            inner = sub.pipe()
            if sub.tok.kind != "EOF":
                sub.error("unexpected token in string interpolation")
            children.append(inner)
        if not children:
            return Node(
                "literal", tok.start, tok.end, "".join(literal_parts), [], ["string", fmt] if fmt else ["string"]
            )
        return Node("string", tok.start, tok.end, fmt, children)
