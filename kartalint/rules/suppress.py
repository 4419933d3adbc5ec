"""Inline suppression comments.

* ``# kartalint: disable=rule-a,rule-b`` at the end of a line silences those rules on that line;
  on a line of its own it silences them on the next line;
* ``# kartalint: disable`` (no ``=``) silences every rule there;
* ``# kartalint: disable-file=rule-a`` anywhere silences the rules in the whole file.

Text after the rule ids is a free comment: ``# kartalint: disable=rule-a -- why``.
"""

from __future__ import annotations

import re

from kartalint.model import Finding

# rule ids separated by commas; anything after them (` -- the reason`) is a comment
DIRECTIVE = re.compile(r"#\s*kartalint:\s*(disable-file|disable)(?:\s*=\s*([A-Za-z0-9_-]+(?:\s*,\s*[A-Za-z0-9_-]+)*))?")
ALL = "*"


def directives(text: str) -> tuple[dict[int, set[str]], set[str]]:
    """(rules silenced per 1-based line, rules silenced in the whole file)."""
    per_line: dict[int, set[str]] = {}
    whole: set[str] = set()
    if "kartalint:" not in text:
        return per_line, whole
    for number, line in enumerate(text.splitlines(), start=1):
        if "kartalint:" not in line:
            continue
        match = DIRECTIVE.search(line)
        if not match:
            continue
        names = {n.strip() for n in (match.group(2) or "").split(",") if n.strip()} or {ALL}
        if match.group(1) == "disable-file":
            whole |= names
        else:
            target = number + 1 if line.lstrip().startswith("#") else number
            per_line.setdefault(target, set()).update(names)
    return per_line, whole


def split(findings: list[Finding], text: str | None) -> tuple[list[Finding], int]:
    """(kept findings, number suppressed)."""
    if not text or not findings:
        return findings, 0
    per_line, whole = directives(text)
    if not per_line and not whole:
        return findings, 0
    kept = []
    for finding in findings:
        silenced = per_line.get(finding.line, set()) | whole
        if ALL in silenced or finding.rule in silenced:
            continue
        kept.append(finding)
    return kept, len(findings) - len(kept)
