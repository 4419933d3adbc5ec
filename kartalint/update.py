"""``kartalint test --update``: write observed values into fixtures' ``expect`` blocks.

Only the ``expect`` block changes: the file is read with ruamel.yaml (round trip, comments and
key order kept), the new values are merged into ``expect`` in place, the document is dumped, and
the dumped ``expect`` block replaces the original one in the file text. Every byte outside the
block stays as it was.
"""

from __future__ import annotations

import io
import re
from typing import Any, Dict, List, Optional, Tuple

_TOP_KEY = re.compile(r"^expect\s*:")


def _block(lines: List[str]) -> Optional[Tuple[int, int]]:
    """(first, end) line indexes of the top-level ``expect`` block (end exclusive, trailing
    blank and column-0 comment lines excluded)."""
    start = next((i for i, line in enumerate(lines) if _TOP_KEY.match(line)), None)
    if start is None:
        return None
    end = start + 1
    last = start
    while end < len(lines):
        line = lines[end]
        if line.strip() == "" or line.startswith("#"):
            end += 1
            continue
        if line[0] in " \t-" and not line.startswith("---"):
            last = end
            end += 1
            continue
        break
    return start, last + 1


def _merge(target: Any, new: Any) -> Any:
    if isinstance(target, dict) and isinstance(new, dict):
        for key in list(target.keys()):
            if key not in new:
                del target[key]
        for key, value in new.items():
            if key in target and isinstance(target[key], dict) and isinstance(value, dict):
                _merge(target[key], value)
            else:
                target[key] = value
        return target
    return new


def rewrite_expect(text: str, new_expect: Dict[str, Any]) -> str:
    """``text`` (one fixture document) with its ``expect`` block replaced by ``new_expect``."""
    from ruamel.yaml import YAML
    from ruamel.yaml.util import load_yaml_guess_indent

    data, indent, block_seq_indent = load_yaml_guess_indent(text)
    yaml = YAML()
    yaml.indent(mapping=indent or 2, sequence=(indent or 2) + (block_seq_indent or 0), offset=block_seq_indent or 0)
    yaml.width = 4096
    yaml.preserve_quotes = True
    if "expect" in data and isinstance(data["expect"], dict):
        _merge(data["expect"], new_expect)
    else:
        data["expect"] = new_expect
    out = io.StringIO()
    yaml.dump(data, out)
    dumped = out.getvalue().splitlines(keepends=True)
    original = text.splitlines(keepends=True)
    new_range = _block(dumped)
    old_range = _block(original)
    assert new_range is not None
    block = dumped[new_range[0]:new_range[1]]
    if old_range is None:
        if original and not original[-1].endswith("\n"):
            original[-1] += "\n"
        return "".join(original + block)
    if block and not block[-1].endswith("\n"):
        block[-1] += "\n"
    return "".join(original[: old_range[0]] + block + original[old_range[1]:])


def update_fixtures(report: Any, mode: str, lint_cache: Any) -> int:
    """Rewrite the ``expect`` blocks of the failing (``mode="failed"``) or all fixtures of a test
    run with what was observed; ``xfail`` fixtures are left alone. Returns the files changed."""
    from .compare import observed, snapshot

    count = 0
    for result in report.results:
        case = result.case
        if case.kind != "fixture" or result.view is None or case.xfail:
            continue
        if mode == "failed" and result.outcome == "passed":
            continue
        lint_ids = lint_cache.rule_ids(case.definition) if case.definition else []
        if case.expect:
            new = {key: observed(key, value, result.view, lint_ids) for key, value in case.expect.items()}
            if result.view.all_errors and "errors" not in new:
                new["errors"] = observed("errors", None, result.view, lint_ids)
        else:
            new = snapshot(result.view)
        with open(case.file, encoding="utf-8") as handle:
            text = handle.read()
        fresh = rewrite_expect(text, new)
        if fresh != text:
            with open(case.file, "w", encoding="utf-8") as handle:
                handle.write(fresh)
            count += 1
    return count
