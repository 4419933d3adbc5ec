"""Tokenizer for jq programs. Every token carries its [start, end) offsets in the source."""

from __future__ import annotations

from kartalint.model import Record

KEYWORDS = frozenset(
    [
        "def",
        "if",
        "then",
        "elif",
        "else",
        "end",
        "as",
        "reduce",
        "foreach",
        "try",
        "catch",
        "label",
        "import",
        "include",
        "and",
        "or",
        "__loc__",
    ]
)

# Longest first so that "//=" wins over "//" and "/".
OPERATORS = (
    "?//",
    "//=",
    "|=",
    "+=",
    "-=",
    "*=",
    "/=",
    "%=",
    "==",
    "!=",
    "<=",
    ">=",
    "//",
    "..",
    ".",
    "[",
    "]",
    "{",
    "}",
    "(",
    ")",
    "|",
    ",",
    ":",
    ";",
    "=",
    "<",
    ">",
    "+",
    "-",
    "*",
    "/",
    "%",
    "?",
)

# The operators by their first character, longest first as in OPERATORS.
_OPERATORS_BY_FIRST: dict[str, tuple[str, ...]] = {
    first: tuple(op for op in OPERATORS if op[0] == first) for first in {op[0] for op in OPERATORS}
}

_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


class JqSyntaxError(Exception):
    """A syntax error at a source offset."""

    def __init__(self, message: str, start: int, end: int | None = None) -> None:
        """``message`` says what is wrong, at the offsets ``start`` (to ``end``, one character when not given)."""
        super().__init__(message)
        self.message = message
        self.start = start
        self.end = end if end is not None else start + 1


class Token(Record):
    """A token of a jq expression: its kind, text and span; a string's literal pieces and interpolations in
    ``parts``."""

    __slots__ = ("end", "kind", "parts", "start", "value")
    kind: str  # IDENT, KEYWORD, FIELD, VAR, FORMAT, NUMBER, STRING, OP, EOF
    value: str
    start: int
    end: int
    # For STRING tokens: literal text pieces and token lists of interpolations, in order.
    parts: list[str | Interpolation]

    def __init__(
        self, kind: str, value: str, start: int, end: int, parts: list[str | Interpolation] | None = None
    ) -> None:
        """The token ``value`` of ``kind`` from ``start`` to ``end`` (excluded)."""
        self.kind = kind
        self.value = value
        self.start = start
        self.end = end
        self.parts = [] if parts is None else parts


class Interpolation(Record):
    r"""A string's ``\(...)`` interpolation: its tokens and span."""

    __slots__ = ("end", "start", "tokens")
    tokens: list[Token]
    start: int
    end: int

    def __init__(self, tokens: list[Token], start: int, end: int) -> None:
        """The interpolation of ``tokens`` from ``start`` to ``end`` (excluded)."""
        self.tokens = tokens
        self.start = start
        self.end = end


# ASCII letters and `_` (and digits): a set lookup, not two string methods per character
_IDENT_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_IDENT_CHARS = _IDENT_START | frozenset("0123456789")


def tokenize(source: str, start: int = 0, stop_at_paren: bool = False) -> list[Token]:
    """Tokens of ``source`` from ``start``; with ``stop_at_paren`` stop at the ``)`` closing an
    interpolation (depth 0) and return the tokens before it, the last token being that ``)``."""
    tokens: list[Token] = []
    i = start
    n = len(source)
    depth = 0
    while True:
        while i < n and source[i] in " \t\r\n":
            i += 1
        if i < n and source[i] == "#":
            while i < n and source[i] != "\n":
                i += 1
            continue
        if i >= n:
            if stop_at_paren:
                raise JqSyntaxError("unterminated string interpolation", n - 1 if n else 0)
            tokens.append(Token("EOF", "", n, n))
            return tokens
        ch = source[i]
        begin = i
        if ch == '"':
            token, i = _string(source, i)
            tokens.append(token)
            continue
        if ch.isdigit() or (ch == "." and i + 1 < n and source[i + 1].isdigit()):
            j = i
            while j < n and source[j].isdigit():
                j += 1
            if j < n and source[j] == ".":
                j += 1
                while j < n and source[j].isdigit():
                    j += 1
            if j < n and source[j] in "eE":
                k = j + 1
                if k < n and source[k] in "+-":
                    k += 1
                if k < n and source[k].isdigit():
                    while k < n and source[k].isdigit():
                        k += 1
                    j = k
            tokens.append(Token("NUMBER", source[i:j], i, j))
            i = j
            continue
        if ch in _IDENT_START:
            j = _ident_end(source, i)
            word = source[i:j]
            tokens.append(Token("KEYWORD" if word in KEYWORDS else "IDENT", word, i, j))
            i = j
            continue
        if ch == "$":
            j = i + 1
            if j < n and source[j] in _IDENT_START:
                k = _ident_end(source, j)
                tokens.append(Token("VAR", source[j:k], i, k))
                i = k
                continue
            raise JqSyntaxError("'$' must be followed by a variable name", i)
        if ch == "@":
            j = i + 1
            if j < n and source[j] in _IDENT_START:
                k = j
                while k < n and source[k] in _IDENT_CHARS:
                    k += 1
                tokens.append(Token("FORMAT", source[j:k], i, k))
                i = k
                continue
            raise JqSyntaxError("'@' must be followed by a format name", i)
        if ch == "." and i + 1 < n and source[i + 1] in _IDENT_START:
            j = i + 1
            while j < n and source[j] in _IDENT_CHARS:
                j += 1
            tokens.append(Token("FIELD", source[i + 1 : j], i, j))
            i = j
            continue
        for op in _OPERATORS_BY_FIRST.get(ch, ()):
            if source.startswith(op, i):
                if stop_at_paren:
                    if op == "(":
                        depth += 1
                    elif op == ")":
                        if depth == 0:
                            tokens.append(Token("EOF", "", i, i))
                            tokens.append(Token("OP", ")", i, i + 1))
                            return tokens
                        depth -= 1
                tokens.append(Token("OP", op, i, i + len(op)))
                i += len(op)
                break
        else:
            raise JqSyntaxError(f"unexpected character {ch!r}", begin)


def _ident_end(source: str, i: int) -> int:
    n = len(source)
    j = i
    while j < n and source[j] in _IDENT_CHARS:
        j += 1
    # module-qualified names: mod::name
    while j + 2 < n and source[j : j + 2] == "::" and source[j + 2] in _IDENT_START:
        j += 2
        while j < n and source[j] in _IDENT_CHARS:
            j += 1
    return j


def _string(source: str, i: int) -> tuple[Token, int]:
    start = i
    i += 1
    n = len(source)
    parts: list[str | Interpolation] = []
    buf: list[str] = []
    while True:
        if i >= n:
            raise JqSyntaxError("unterminated string literal", start, n)
        ch = source[i]
        if ch == '"':
            if buf or not parts:
                parts.append("".join(buf))
            i += 1
            break
        if ch == "\\":
            if i + 1 >= n:
                raise JqSyntaxError("unterminated string literal", start, n)
            esc = source[i + 1]
            if esc == "(":
                if buf:
                    parts.append("".join(buf))
                    buf = []
                inner = tokenize(source, i + 2, stop_at_paren=True)
                close = inner.pop()  # the closing ")"
                parts.append(Interpolation(inner, i, close.end))
                i = close.end
                continue
            if esc == "u":
                digits = source[i + 2 : i + 6]
                if len(digits) != 4 or any(c not in "0123456789abcdefABCDEF" for c in digits):
                    raise JqSyntaxError("invalid \\u escape in string literal", i, i + 2)
                buf.append(chr(int(digits, 16)))
                i += 6
                continue
            if esc not in _ESCAPES:
                raise JqSyntaxError(f"invalid escape '\\{esc}' in string literal", i, i + 2)
            buf.append(_ESCAPES[esc])
            i += 2
            continue
        buf.append(ch)
        i += 1
    literal = "".join(p for p in parts if isinstance(p, str)) if all(isinstance(p, str) for p in parts) else ""
    return Token("STRING", literal, start, i, parts), i
