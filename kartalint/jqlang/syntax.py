"""The jq syntax tree (``Node``, its kinds are listed in ``kartalint.jqlang.parser``) and the
token stream the parser reads from."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from kartalint.jqlang.lexer import JqSyntaxError, Token

MAX_DEPTH = 100

ASSIGN_OPS = ("=", "|=", "+=", "-=", "*=", "/=", "%=", "//=")
COMPARE_OPS = ("==", "!=", "<", "<=", ">", ">=")


@dataclass
class Node:
    kind: str
    start: int
    end: int
    value: object = None
    children: list[Node | None] = field(default_factory=list)
    params: list[str] = field(default_factory=list)

    def walk(self) -> Iterator[Node]:
        """Every node of the tree, depth first, self included."""
        stack: list[Node] = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(c for c in reversed(node.children) if c is not None)

    def source(self, text: str) -> str:
        return text[self.start : self.end]


MAX_TREE_DEPTH = 200  # a chain of 2,000 `and`s parses flat but makes a tree every analysis would recurse into


class TokenStream:
    """Cursor over the tokens of one program, with the nesting guard."""

    def __init__(self, tokens: list[Token], source: str) -> None:
        self.tokens = tokens
        self.pos = 0
        self.source = source
        self.depth = 0

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
