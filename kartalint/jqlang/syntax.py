"""The jq syntax tree (``Node``, its kinds are listed in ``kartalint.jqlang.parser``) and the
token stream the parser reads from."""

from __future__ import annotations

from collections.abc import Iterator

from kartalint.jqlang.lexer import JqSyntaxError, Token
from kartalint.model import Record

MAX_DEPTH = 100

ASSIGN_OPS = ("=", "|=", "+=", "-=", "*=", "/=", "%=", "//=")
COMPARE_OPS = ("==", "!=", "<", "<=", ">", ">=")


class Node(Record):
    """A node of the syntax tree: its kind, span in the expression, value (a name, a literal), children and, for a
    function definition, its parameters."""

    __slots__ = ("children", "end", "kind", "params", "start", "value")
    kind: str
    start: int
    end: int
    value: object
    children: list[Node | None]
    params: list[str]

    def __init__(
        self,
        kind: str,
        start: int,
        end: int,
        value: object = None,
        children: list[Node | None] | None = None,
        params: list[str] | None = None,
    ) -> None:
        """A node of ``kind`` from ``start`` to ``end`` (excluded) of the expression."""
        self.kind = kind
        self.start = start
        self.end = end
        self.value = value
        self.children = [] if children is None else children
        self.params = [] if params is None else params

    def walk(self) -> Iterator[Node]:
        """Every node of the tree, depth first, self included."""
        stack: list[Node] = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(c for c in reversed(node.children) if c is not None)

    def source(self, text: str) -> str:
        """The node's text in ``text``."""
        return text[self.start : self.end]


MAX_TREE_DEPTH = 200  # a chain of 2,000 `and`s parses flat but makes a tree every analysis would recurse into


class TokenStream:
    """Cursor over the tokens of one program, with the nesting guard."""

    def __init__(self, tokens: list[Token], source: str) -> None:
        """The parser's position in ``tokens`` of the expression ``source``."""
        self.tokens = tokens
        self.pos = 0
        self.source = source
        self.depth = 0

    @property
    def tok(self) -> Token:
        """The current token."""
        return self.tokens[self.pos]

    def peek(self, offset: int = 1) -> Token:
        """The token ``offset`` places ahead (the end of the expression at most)."""
        return self.tokens[min(self.pos + offset, len(self.tokens) - 1)]

    def advance(self) -> Token:
        """The current token, and move past it (never past the end)."""
        tok = self.tokens[self.pos]
        if tok.kind != "EOF":
            self.pos += 1
        return tok

    def is_op(self, *ops: str) -> bool:
        """Whether the current token is one of the operators ``ops``."""
        tok = self.tokens[self.pos]  # (not the property: the parser asks this about 100 times per expression)
        return tok.kind == "OP" and tok.value in ops

    def is_kw(self, *words: str) -> bool:
        """Whether the current token is one of the keywords ``words``."""
        tok = self.tokens[self.pos]
        return tok.kind == "KEYWORD" and tok.value in words

    def expect_op(self, op: str) -> Token:
        """The operator ``op``, consumed; a syntax error when something else is there."""
        if not self.is_op(op):
            self.error(f"expected '{op}'")
        return self.advance()

    def expect_kw(self, word: str) -> Token:
        """The keyword ``word``, consumed; a syntax error when something else is there."""
        if not self.is_kw(word):
            self.error(f"expected '{word}'")
        return self.advance()

    def error(self, message: str) -> None:
        """Raise a syntax error at the current token: ``message``, and what was found there."""
        tok = self.tok
        found = "end of expression" if tok.kind == "EOF" else repr(self.source[tok.start : tok.end])
        raise JqSyntaxError(f"{message}, found {found}", tok.start, max(tok.end, tok.start + 1))

    def enter(self) -> None:
        """One level deeper; a syntax error past ``MAX_DEPTH`` levels."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise JqSyntaxError(f"expression nested deeper than {MAX_DEPTH} levels", self.tok.start)
