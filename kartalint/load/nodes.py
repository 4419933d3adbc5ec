"""Problems found in a document's node tree before it becomes data: duplicate and non-string keys, nesting beyond the limit, alias expansion beyond the limit (billion laughs)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import yaml

from kartalint.load.yaml_rules import YAML_ALIAS_BOMB, YAML_DUPLICATE_KEY, YAML_NON_STRING_KEY, YAML_TOO_DEEP
from kartalint.model import Finding

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from kartalint.load.documents import SourceFile

MAX_EXPANDED_NODES = 500_000  # nodes added by alias expansion (billion laughs)


MAX_DEPTH = 256


def key_text(node: Any) -> str:
    """The text of a mapping key."""
    return str(node.value)


def end_index(node: Any) -> int:
    """The offset where a node ends; a block scalar ends at its indicator (its content spans the lines after)."""
    end = node.end_mark.index
    if isinstance(node, yaml.ScalarNode) and node.style in ("|", ">"):
        return node.start_mark.index + 1  # the indicator; block content spans following lines
    return end


READER_POSITION = r"line (\d+), column (\d+)"  # (in a reader error's text; compiled when first used: re's cache)


def node_problems(source: SourceFile, root: Any) -> Iterable[Finding]:
    """Duplicate keys, non-string keys, too deep nesting and alias bombs, found in one walk of the
    node tree. Only the nodes that aliases add count against the expansion limit. A text without
    an anchor (no ``&``: most definitions) has no alias, so its nodes form a tree: the walk then
    skips the bookkeeping that finds shared nodes (``_tree_problems``)."""
    if "&" not in source.text:
        return _tree_problems(source, root)
    return _graph_problems(source, root)


def _key_problems(source: SourceFile, node: Any) -> Iterator[Finding]:
    """Non-string and duplicate keys of a mapping node, in the order of its keys."""
    first: dict[str, Any] = {}
    for k, _ in node.value:
        if not isinstance(k, yaml.ScalarNode):
            continue
        if k.tag != "tag:yaml.org,2002:str" and k.tag != "tag:yaml.org,2002:merge":
            yield source.finding(
                YAML_NON_STRING_KEY,
                f"key {k.value!r} is not a string; Kubernetes converts it to the string {k.value!r}",
                source.span_of_marks(k.start_mark.index, k.end_mark.index),
                hint="quote the key",
            )
        text = key_text(k)
        if text in first:
            prev = first[text]
            line, _ = source.position(prev.start_mark.index)
            yield source.finding(
                YAML_DUPLICATE_KEY,
                f"duplicate key {text!r} (first defined on line {line}); the last one wins silently",
                source.span_of_marks(k.start_mark.index, k.end_mark.index),
                hint="remove or merge the duplicate key",
            )
        else:
            first[text] = k


def _too_deep(source: SourceFile, node: Any) -> Finding:
    return source.finding(
        YAML_TOO_DEEP,
        f"document is nested deeper than {MAX_DEPTH} levels; refused",
        source.span_of_marks(node.start_mark.index, node.start_mark.index + 1),
        hint="flatten the document",
    )


def _tree_problems(source: SourceFile, root: Any) -> Iterator[Finding]:
    """``node_problems`` of a node tree without aliases, in the same order: every node is reached
    once (a key at depth 1, as the graph walk counts it), no expansion to count."""
    mapping, sequence, scalar = yaml.MappingNode, yaml.SequenceNode, yaml.ScalarNode
    stack: list[tuple[Any, int]] = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            yield _too_deep(source, node)
            return
        kind = type(node)
        if kind is mapping:
            pairs = node.value
            if any(type(k) is not scalar or k.tag != _STR for k, _ in pairs) or len({k.value for k, _ in pairs}) < len(
                pairs
            ):  # (plain string keys, each once: nothing to say)
                yield from _key_problems(source, node)
            for k, v in pairs:
                stack.append((k, 1))
                stack.append((v, depth + 1))
        elif kind is sequence:
            stack.extend((v, depth + 1) for v in node.value)


_STR = "tag:yaml.org,2002:str"


def _graph_problems(source: SourceFile, root: Any) -> Iterator[Finding]:
    """``node_problems`` of a node tree that may share nodes (aliases)."""
    sizes: dict[int, int] = {}
    distinct = 0
    depth_of: dict[int, int] = {id(root): 1}
    stack: list[tuple[Any, bool]] = [(root, False)]
    seen_mappings = set()
    in_progress = set()
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            if isinstance(node, yaml.MappingNode):
                total = 1 + sum(sizes.get(id(k), 1) + sizes.get(id(v), 1) for k, v in node.value)
            elif isinstance(node, yaml.SequenceNode):
                total = 1 + sum(sizes.get(id(v), 1) for v in node.value)
            else:
                total = 1
            sizes[key] = total
            if total - distinct > MAX_EXPANDED_NODES:
                yield source.finding(
                    YAML_ALIAS_BOMB,
                    f"document expands to more than {MAX_EXPANDED_NODES} nodes through aliases; refused",
                    source.span_of_marks(node.start_mark.index, node.start_mark.index + 1),
                    hint="remove the anchors and aliases that multiply this document",
                )
                return
            continue
        if key in sizes:
            continue
        if key in in_progress:
            yield source.finding(
                YAML_ALIAS_BOMB,
                "document contains a recursive alias (a node that contains itself); refused",
                source.span_of_marks(node.start_mark.index, node.start_mark.index + 1),
                hint="remove the recursive anchor",
            )
            return
        in_progress.add(key)
        distinct += 1
        depth = depth_of.get(key, 1)
        if depth > MAX_DEPTH:
            yield _too_deep(source, node)
            return
        stack.append((node, True))
        if isinstance(node, yaml.MappingNode):
            if key not in seen_mappings:
                seen_mappings.add(key)
                yield from _key_problems(source, node)
            for k, v in node.value:
                depth_of.setdefault(id(v), depth + 1)
                stack.append((k, False))
                stack.append((v, False))
        elif isinstance(node, yaml.SequenceNode):
            for v in node.value:
                depth_of.setdefault(id(v), depth + 1)
                stack.append((v, False))
