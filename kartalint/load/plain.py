"""Plain YAML read without a node tree: Kubernetes objects for ``describe``, fixtures and pods.

``documents.load_text`` keeps libyaml's node tree so findings can point at a line and column; a
3 MB object costs about 100 MB that way. Objects only need their data, so this module builds it
straight from libyaml's events (the same parser, the same scalar resolution and constructors as
``loader.Loader``), holding one event at a time. It covers the YAML that objects are made of;
anything else (anchors and aliases, merge keys, explicit tags, duplicate or non-string keys,
nesting over the limit, a value error, a syntax error, an empty file) returns None, and the
caller reads the text with ``documents.load_text``, which reports it with its position.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml import events, nodes

from kartalint.load.loader import Loader
from kartalint.load.nodes import MAX_DEPTH

_STR = "tag:yaml.org,2002:str"
_MERGE = "tag:yaml.org,2002:merge"


class _NotPlain(Exception):
    """The text needs the full loader."""


def load_plain(text: str) -> list[Any] | None:
    """The data of every document of ``text``, or None when it needs ``documents.load_text``."""
    if not text.strip():
        return None
    loader = Loader(text)
    out: list[Any] = []
    try:
        loader.get_event()  # stream start
        while not loader.check_event(events.StreamEndEvent):
            loader.get_event()  # document start
            out.append(_value(loader, 0))
            loader.get_event()  # document end
    except (_NotPlain, yaml.YAMLError, RecursionError):
        return None
    finally:
        loader.dispose()
    return out or None


def _value(loader: Any, depth: int) -> Any:
    event = loader.get_event()
    if depth >= MAX_DEPTH - 2 or getattr(event, "anchor", None) is not None or isinstance(event, events.AliasEvent):
        raise _NotPlain
    if isinstance(event, events.ScalarEvent):
        if event.tag is not None and event.tag != "!":  # an explicit tag: the full loader judges it
            raise _NotPlain
        tag = loader.resolve(nodes.ScalarNode, event.value, event.implicit)
        if tag == _STR:
            return event.value
        if tag == _MERGE:
            raise _NotPlain
        node = nodes.ScalarNode(tag, event.value, None, None, event.style)  # no marks: an error goes to the full loader
        return loader.yaml_constructors[tag](loader, node)
    if event.tag is not None and event.tag != "!":
        raise _NotPlain
    if isinstance(event, events.MappingStartEvent):
        mapping: dict[str, Any] = {}
        while not loader.check_event(events.MappingEndEvent):
            key = _value(loader, depth + 1)
            if not isinstance(key, str) or key in mapping:  # the full loader reports both
                raise _NotPlain
            mapping[key] = _value(loader, depth + 1)
        loader.get_event()
        return mapping
    if isinstance(event, events.SequenceStartEvent):
        sequence = []
        while not loader.check_event(events.SequenceEndEvent):
            sequence.append(_value(loader, depth + 1))
        loader.get_event()
        return sequence
    raise _NotPlain  # pragma: no cover - libyaml emits no other event inside a document
