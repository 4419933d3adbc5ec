"""kartalint's jq front-end: tokenizer, parser, static analysis, libjq compilation, bounded runs."""

from __future__ import annotations

import functools

from kartalint.jqlang.lexer import JqSyntaxError
from kartalint.jqlang.parser import Node, parse


@functools.lru_cache(maxsize=8192)
def parse_cached(expression: str) -> tuple[Node | None, JqSyntaxError | None]:
    """(tree, None) or (None, error); cached by source text (trees are not mutated)."""
    try:
        return parse(expression), None
    except JqSyntaxError as exc:
        return None, exc


__all__ = ["JqSyntaxError", "Node", "parse", "parse_cached"]
