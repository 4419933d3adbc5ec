"""The ``expect`` block of a fixture written back as the file writes YAML (``test --update``): the
new values merged into the old block (its comments, key order and flow style kept), indented as the
file indents its mappings and sequences."""

from __future__ import annotations

import contextlib
import io
import itertools
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.util import load_yaml_guess_indent


def _merge(target: Any, new: Any) -> Any:
    if isinstance(target, dict) and isinstance(new, dict):
        for key in list(target.keys()):
            if key not in new:
                del target[key]
        for key, value in new.items():
            if key in target and isinstance(target[key], dict) and isinstance(value, dict):
                _merge(target[key], value)
            else:
                target[key] = _styled(target.get(key), value)
        return target
    return new


def _styled(old: Any, new: Any) -> Any:
    """``new``, in flow style where ``old`` was (``[a, b]`` stays ``[a, b]``)."""

    attributes = getattr(old, "fa", None)
    if attributes is None or not attributes.flow_style() or not isinstance(new, (list, dict)):
        return new
    styled = CommentedSeq(new) if isinstance(new, list) else CommentedMap(new)
    styled.fa.set_flow_style()
    return styled


def _yaml(text: str) -> Any:
    """A round-trip ruamel.yaml dumper indenting like ``text``, and ``text`` loaded (None if it
    does not load on its own)."""

    data = None
    with contextlib.suppress(Exception):
        data = load_yaml_guess_indent(text)[0]
    mapping, sequence, offset = _indentation(text)
    yaml = YAML()
    yaml.preserve_quotes = True
    yaml.width = 4096
    yaml.indent(mapping=mapping, sequence=sequence, offset=offset)
    return yaml, data


def _indentation(text: str) -> tuple[int, int, int]:
    """How ``text`` indents, as ruamel.yaml's ``indent`` takes it: a nested mapping's keys, a
    sequence's items (the text after ``- ``) and its dashes, each relative to the key above them
    (``key:`` then ``  - item``: 2, 4, 2; kubectl's ``key:`` then ``- item``: 2, 2, 0). ruamel.yaml's
    own guess reads the first sequence only, and took a document whose sequences are indented
    under their key for one whose mappings are indented by 4."""
    mapping = dash = None
    lines = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    for above, line in itertools.pairwise(lines):
        if not above.rstrip().endswith(":") or above.lstrip().startswith("-"):
            continue  # only "key:" alone on its line opens a block whose indentation tells
        step = (len(line) - len(line.lstrip(" "))) - (len(above) - len(above.lstrip(" ")))
        if line.lstrip().startswith("- "):
            dash = step if dash is None and step >= 0 else dash
        elif step > 0 and mapping is None:
            mapping = step
        if mapping is not None and dash is not None:
            break
    mapping = mapping or 2
    offset = dash if dash is not None else 0
    return mapping, offset + 2, offset


def dump_expect_block(old_block: str | None, new_expect: dict[str, Any], document: str) -> str:
    """``expect:`` and its block dumped by ruamel.yaml, the new values merged into the old block
    (its comments and key order kept) when it loads on its own."""
    yaml, data = _yaml(old_block) if old_block is not None else (None, None)
    if yaml is not None and isinstance(data, dict) and len(data) == 1 and isinstance(next(iter(data.values())), dict):
        key = next(iter(data))
        data[key] = _merge(data[key], new_expect)
    else:
        yaml = _yaml(document)[0]
        data = {"expect": new_expect}
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()
