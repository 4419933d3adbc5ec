"""A JSON stream (``kubectl get -o json``) read one object at a time, for ``plain.iter_plain``.

The top-level object is walked member by member; its ``items`` array (a List) is decoded entry by
entry with the json module's C decoder, each entry handed out as soon as it is decoded, so only
the text of the entry being read is held. Positions (line, column) are counted as the text goes
by. What is not JSON, or not the shape of an object or a List (a number, NaN, a second value
after the first, an entry over twice the size limit), raises ``NotPlain`` at its place, and the
caller reads the file with the full loader.

Each entry of ``items`` is also handed out as its text (``Piece.text``) when that text is what
jq makes of its data (``reusable``), so that the summary hands jq the text as read instead of
encoding the decoded entry again.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator
from typing import IO, Any

from kartalint.load.nodes import MAX_DEPTH
from kartalint.load.plain import TOO_LARGE, NotPlain, Piece

CHUNK = 1 << 18
_SPACE = re.compile(r"[ \t\n\r]*")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON data")


class _Reader:
    """The text of a binary stream, decoded as it is needed, with the position of ``pos``."""

    def __init__(self, stream: IO[bytes], limit: int) -> None:
        self.stream = stream
        self.limit = limit
        self.decode = codecs.getincrementaldecoder("utf-8-sig")().decode
        self.decoder = json.JSONDecoder(parse_constant=_no_constant, parse_float=self._float)
        self.floats = 0  # numbers with a fraction or an exponent read so far
        self.start = 0  # where in ``text`` the last value read starts (it ends at ``pos``)
        self.text = ""
        self.pos = 0
        self.eof = False
        self.line = 1  # the line of self.line_pos
        self.line_pos = 0

    def _float(self, literal: str) -> float:
        self.floats += 1
        return float(literal)

    def more(self, size: int = CHUNK) -> bool:
        if self.eof:
            return False
        if self.pos > CHUNK:  # drop what was read
            self.place()
            self.text, self.line_pos, self.pos = self.text[self.pos :], 0, 0
        data = self.stream.read(size)
        self.eof = not data
        try:
            self.text += self.decode(data, final=self.eof)
        except UnicodeDecodeError:
            raise self.not_plain() from None
        return True

    def place(self) -> tuple[int, int]:
        """(line, column), 1-based, of ``pos``."""
        self.line += self.text.count("\n", self.line_pos, self.pos)
        self.line_pos = self.pos
        return self.line, self.pos - self.text.rfind("\n", 0, self.pos)

    def not_plain(self) -> NotPlain:
        line, column = self.place()
        return NotPlain(0, line, column)

    def peek(self) -> str:
        """The next character that is not white space ("" at the end)."""
        while True:
            self.pos = _SPACE.match(self.text, self.pos).end()  # type: ignore[union-attr]
            if self.pos < len(self.text) or not self.more():
                return self.text[self.pos : self.pos + 1]

    def expect(self, characters: str) -> str:
        found = self.peek()
        if not found or found not in characters:
            raise self.not_plain()
        self.pos += 1
        return found

    def value(self) -> Any:
        """The next JSON value (the text is read further until it is complete)."""
        self.peek()
        size = CHUNK
        while True:
            try:
                value, end = self.decoder.raw_decode(self.text, self.pos)
            except json.JSONDecodeError:
                value, end = None, -1
            except (ValueError, RecursionError):  # NaN, an integer too long: the full loader says why
                raise self.not_plain() from None
            if end != -1 and (end < len(self.text) or self.eof):  # a number may go on in the next chunk
                break
            if self.limit and len(self.text) - self.pos > 2 * self.limit + CHUNK:
                raise self.not_plain()
            if not self.more(size):
                raise self.not_plain()
            size *= 2
        self.start, self.pos = self.pos, end
        if self.limit and end - self.start > self.limit:
            return TOO_LARGE
        return value

    def entry(self) -> tuple[Any, str | None]:
        """The next value and its text when it is ``reusable`` (else None)."""
        floats = self.floats
        value = self.value()
        if self.floats != floats or value is TOO_LARGE:
            return value, None
        text = self.text[self.start : self.pos]
        return value, text if reusable(text) else None


def reusable(text: str) -> bool:
    """Whether jq makes of a JSON ``text`` that holds no number with a fraction or an exponent the
    same as of the text ``json.dumps`` writes of its decoded data. jq keeps a number's text as
    written (``1.50 | tostring`` is ``"1.50"``, ``1e2`` is ``"1E+2"``, ``1E400`` is a number while
    Python's float is infinity, which no JSON text holds), so a text with such a number is not
    reusable (the caller reads whether one was decoded); of integers only ``-0`` is written
    otherwise (``0``). Strings decode to the same characters whatever their escapes, white space
    is nothing to jq, and a repeated key keeps its last value, in its first place, in both. A
    ``-0`` inside a string (``", -0"``) also says no: the text is then encoded again, which is
    never wrong. Nor is a text with more brackets than ``MAX_DEPTH`` (the engine's encoding says
    whether such data nests too deeply for jq)."""
    if text.count("{") + text.count("[") > MAX_DEPTH:
        return False
    at = text.find("-0")
    while at != -1:
        if (at == 0 or text[at - 1] in " \t\r\n:[,") and text[at + 2 : at + 3] not in _NUMBER_GOES_ON:
            return False
        at = text.find("-0", at + 2)
    return True


_NUMBER_GOES_ON = frozenset("0123456789.eE")


def iter_json(stream: IO[bytes], limit: int = 0) -> Iterator[Piece]:
    """The pieces of the JSON object of ``stream``: each item of its ``items`` list as it is read (one over
    ``limit`` bytes, when given, is ``TOO_LARGE``), then the object without them; ``NotPlain`` for anything
    else."""
    reader = _Reader(stream, limit)
    reader.expect("{")
    mapping: dict[str, Any] = {}
    streamed: int | None = None
    if reader.peek() == "}":
        reader.pos += 1
    else:
        while True:
            key = reader.value()
            if not isinstance(key, str):
                raise reader.not_plain()
            reader.expect(":")
            if key == "items" and reader.peek() == "[" and streamed is None:
                reader.pos += 1
                streamed = 0
                if reader.peek() == "]":
                    reader.pos += 1
                else:
                    while True:
                        reader.peek()
                        line, column = reader.place()
                        data, text = reader.entry()
                        yield Piece(0, streamed, line, column, data, text=text)
                        streamed += 1
                        if reader.expect(",]") == "]":
                            break
            else:
                mapping[key] = reader.value()
            if reader.expect(",}") == "}":
                break
    if reader.peek():  # a second value: not one JSON document
        raise reader.not_plain()
    yield Piece(0, None, 1, 1, mapping, streamed)
