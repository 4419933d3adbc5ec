"""Plain YAML read without a node tree: Kubernetes objects for ``describe``, fixtures and pods.

``documents.load_text`` keeps libyaml's node tree so findings can point at a line and column; a
3 MB object costs about 100 MB that way. Objects only need their data, so this module builds it
straight from libyaml's events (the same parser, the same scalar resolution and constructors as
``loader.Loader``), holding one event at a time. It covers the YAML that objects are made of;
anything else (anchors and aliases, merge keys, explicit tags, duplicate or non-string keys,
nesting over the limit, a value error, a syntax error, an empty file) returns None, and the
caller reads the text with ``documents.load_text``, which reports it with its position.

``iter_plain`` reads a stream the same way one object at a time (``describe --summary``): each
document, and each entry of a document's top-level ``items`` list (a ``kubectl get -o yaml``
List), is handed out as soon as it is built, so a cluster dump is never held whole.
"""

from __future__ import annotations

from collections.abc import Iterator

import yaml
from yaml import events, nodes

from kartalint.load.loader import Loader
from kartalint.load.nodes import MAX_DEPTH
from kartalint.model import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO, Any

_STR = "tag:yaml.org,2002:str"
_SCALAR, _ALIAS = events.ScalarEvent, events.AliasEvent
_MAP_START, _MAP_END = events.MappingStartEvent, events.MappingEndEvent
_SEQ_START, _SEQ_END = events.SequenceStartEvent, events.SequenceEndEvent
_NO_KEY = object()
TOO_LARGE = object()  # the data of a piece over the size limit (its events were read, nothing kept)


class NotPlain(Exception):
    """The text needs the full loader (``document``: where, 0-based, it was found)."""

    def __init__(self, document: int = 0, line: int = 0, column: int = 0) -> None:
        """Where the text stops being plain: the document (0-based), ``line`` and ``column``."""
        super().__init__(document, line, column)
        self.document, self.line, self.column = document, line, column


_NotPlain = NotPlain  # the name this module used before


class _Builder:
    """Data from libyaml's events: plain scalars are resolved once per distinct text (object keys
    and values repeat), containers are built without recursion."""

    def __init__(self, loader: Any) -> None:
        self.loader = loader
        self.scalars: dict[str, Any] = {}

    def scalar(self, event: Any) -> Any:
        if event.anchor is not None:
            raise NotPlain
        tag, text = event.tag, event.value
        if tag is None and event.implicit[0]:  # a plain scalar: the resolver decides from the text alone
            value = self.scalars.get(text, _NO_KEY)
            if value is _NO_KEY:
                value = self._construct(self.loader.resolve(nodes.ScalarNode, text, event.implicit), text)
                if len(self.scalars) > 50_000:
                    self.scalars.clear()
                self.scalars[text] = value
            return value
        if tag is not None and tag != "!":  # an explicit tag: the full loader judges it
            raise NotPlain
        return text  # quoted, or the non-specific tag "!": a string

    def _construct(self, tag: str, text: str) -> Any:
        if tag == _STR:
            return text
        constructor = self.loader.yaml_constructors.get(tag)
        if constructor is None:  # a merge key, or a tag safe loading has no constructor for ("=")
            raise NotPlain
        node = nodes.ScalarNode(tag, text, None, None, None)  # no marks: an error goes to the full loader
        return constructor(self.loader, node)

    def value(self, event: Any, depth: int = 0, limit: int = 0, start: int = 0) -> Any:
        """The value that starts with ``event`` (already read) at nesting ``depth``; with ``limit``,
        a value reaching more than ``limit`` characters past ``start`` is read to its end and
        given as ``TOO_LARGE``."""
        get_event = self.loader.get_event
        stack: list[list[Any]] = []  # [container, pending key] per open mapping or sequence
        while True:
            kind = type(event)
            if kind is _SCALAR:
                if depth + len(stack) >= MAX_DEPTH - 2:
                    raise NotPlain
                value = self.scalar(event)
            elif kind is _MAP_START or kind is _SEQ_START:
                if (
                    depth + len(stack) >= MAX_DEPTH - 2
                    or event.anchor is not None
                    or (event.tag is not None and event.tag != "!")
                ):
                    raise NotPlain
                if limit and event.start_mark.index - start > limit:
                    self._skip(len(stack) + 1)
                    return TOO_LARGE
                stack.append([{} if kind is _MAP_START else [], _NO_KEY])
                event = get_event()
                continue
            elif kind is _MAP_END or kind is _SEQ_END:
                value = stack.pop()[0]
            else:  # an alias
                raise NotPlain
            if not stack:
                if limit and event.end_mark.index - start > limit:
                    return TOO_LARGE
                return value
            frame = stack[-1]
            container = frame[0]
            if type(container) is list:
                container.append(value)
            elif frame[1] is _NO_KEY:
                if type(value) is not str or value in container:  # the full loader reports both
                    raise NotPlain
                frame[1] = value
            else:
                container[frame[1]] = value
                frame[1] = _NO_KEY
            event = get_event()

    def _skip(self, open_containers: int) -> None:
        """Read events until ``open_containers`` containers have closed."""
        while open_containers:
            event = self.loader.get_event()
            kind = type(event)
            if kind is _MAP_START or kind is _SEQ_START:
                open_containers += 1
            elif kind is _MAP_END or kind is _SEQ_END:
                open_containers -= 1
            elif kind is _ALIAS:
                raise NotPlain


def load_plain(text: str) -> list[Any] | None:
    """The data of every document of ``text``, or None when it needs ``documents.load_text``."""
    if not text.strip():
        return None
    loader = Loader(text)
    builder = _Builder(loader)
    out: list[Any] = []
    try:
        loader.get_event()  # stream start
        while not loader.check_event(events.StreamEndEvent):
            loader.get_event()  # document start
            out.append(builder.value(loader.get_event()))
            loader.get_event()  # document end
    except (NotPlain, yaml.YAMLError, RecursionError):
        return None
    finally:
        loader.dispose()
    return out or None


def iter_documents(text: str) -> Iterator[Any]:
    """The data of each document of ``text``, one at a time, as ``load_plain`` reads them; raises
    ``NotPlain`` (its ``document``: the 0-based index of the document that needs the full loader)
    for what ``load_plain`` leaves to it, a YAML error or nesting included."""
    loader = Loader(text)
    builder = _Builder(loader)
    document = 0
    try:
        loader.get_event()  # stream start
        while not loader.check_event(events.StreamEndEvent):
            try:
                loader.get_event()  # document start
                data = builder.value(loader.get_event())
                loader.get_event()  # document end
            except (NotPlain, yaml.YAMLError, RecursionError):
                raise NotPlain(document) from None
            yield data
            document += 1
    except yaml.YAMLError:  # (before the first document)
        raise NotPlain(document) from None
    finally:
        loader.dispose()


class Piece(Record):
    """One document of a stream, or one entry of a document's top-level ``items`` list."""

    __slots__ = ("column", "data", "document", "item", "line", "streamed_items", "text")
    document: int  # 0-based
    item: int | None  # the index in the document's ``items``; None for the document itself
    line: int  # 1-based, where it starts
    column: int
    data: Any  # TOO_LARGE when it is over the size limit
    streamed_items: int | None  # for a document: how many ``items`` entries came before it as pieces
    text: str | None  # its JSON text as read, when jq may be handed it as it is (plain_json.reusable)

    def __init__(
        self,
        document: int,
        item: int | None,
        line: int,
        column: int,
        data: Any,
        streamed_items: int | None = None,
        text: str | None = None,
    ) -> None:
        """The piece ``item`` of ``document`` (None: the document), read at ``line``, ``column``."""
        self.document = document
        self.item = item
        self.line = line
        self.column = column
        self.data = data
        self.streamed_items = streamed_items
        self.text = text


def iter_plain(stream: IO[bytes] | str, limit: int = 0) -> Iterator[Piece]:
    """The pieces of a YAML stream (a binary file, or text), each as soon as it is read. Raises
    ``NotPlain`` for what needs the full loader and ``yaml.YAMLError`` for text that is not YAML.
    With ``limit``, a piece over ``limit`` characters is given as ``TOO_LARGE``. (``plain_json``
    reads a JSON stream the same way, about eight times faster.)"""
    loader = Loader(stream)
    builder = _Builder(loader)
    document = 0
    try:
        loader.get_event()  # stream start
        while not loader.check_event(events.StreamEndEvent):
            loader.get_event()  # document start
            first = loader.get_event()
            try:
                if type(first) is _MAP_START and first.anchor is None and first.tag in (None, "!"):
                    yield from _document(builder, document, first, limit)
                else:
                    mark = first.start_mark
                    data = builder.value(first, 0, limit, mark.index)
                    yield Piece(document, None, mark.line + 1, mark.column + 1, data)
            except NotPlain as exc:
                if exc.line:  # placed already (an entry of items)
                    raise
                raise NotPlain(document, first.start_mark.line + 1, first.start_mark.column + 1) from None
            loader.get_event()  # document end
            document += 1
    finally:
        loader.dispose()


def _index(mark: Any) -> int:
    return int(mark.index)


def _document(builder: _Builder, document: int, first: Any, limit: int) -> Iterator[Piece]:
    """A document that is a mapping: its top-level ``items`` list (when it has one) entry by entry,
    then the rest of it."""
    get_event = builder.loader.get_event
    start = first.start_mark
    mapping: dict[str, Any] = {}
    streamed: int | None = None
    skipped = 0  # characters of the streamed items: the rest of the document is limited on its own
    event: Any = get_event()
    while type(event) is not _MAP_END:
        key = builder.value(event, 1)
        if type(key) is not str or key in mapping or (key == "items" and streamed is not None):
            raise NotPlain
        event = get_event()
        if key == "items" and type(event) is _SEQ_START and event.anchor is None and event.tag in (None, "!"):
            streamed = 0
            items_start = _index(event.start_mark)
            event = get_event()
            while type(event) is not _SEQ_END:
                mark = event.start_mark
                try:
                    data = builder.value(event, 2, limit, mark.index)
                except NotPlain:
                    raise NotPlain(document, mark.line + 1, mark.column + 1) from None
                yield Piece(document, streamed, mark.line + 1, mark.column + 1, data)
                streamed += 1
                event = get_event()
            skipped += _index(event.end_mark) - items_start
        else:
            value = builder.value(event, 1, limit, start.index + skipped)
            if value is TOO_LARGE:
                builder._skip(1)  # the rest of the document
                yield Piece(document, None, start.line + 1, start.column + 1, TOO_LARGE, streamed)
                return
            mapping[key] = value
        event = get_event()
    yield Piece(document, None, start.line + 1, start.column + 1, mapping, streamed)
