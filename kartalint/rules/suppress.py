"""Inline suppression comments.

* ``# kartalint: disable=rule-a,rule-b`` at the end of a line silences those rules on that line;
  on a line of its own it silences them on the next line;
* on the key line of a block scalar (``replicasPath: >-  # kartalint: disable=rule-a``, or the
  line above it) it also silences them on the scalar's lines;
* ``# kartalint: disable`` (no ``=``) silences every rule there;
* ``# kartalint: disable-file=rule-a`` anywhere silences the rules in the whole file.

Text after the rule ids is a free comment: ``# kartalint: disable=rule-a -- why``.

Directives can lie: a misspelt rule id silences nothing (``unknown-suppression``), and a directive
whose rule no longer fires there stays forever (``unused-suppression``, as ruff's RUF100).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from kartalint.model import Finding, Rule, Severity

# The ids of the rules this module reports (constants: a misspelt id is an import error).
UNKNOWN_SUPPRESSION = "unknown-suppression"
UNUSED_SUPPRESSION = "unused-suppression"


# rule ids separated by commas; anything after them (` -- the reason`) is a comment
DIRECTIVE = re.compile(r"#\s*kartalint:\s*(disable-file|disable)(?:\s*=\s*([A-Za-z0-9_-]+(?:\s*,\s*[A-Za-z0-9_-]+)*))?")
ALL = "*"
_RULE_ID = re.compile(r"[A-Za-z0-9_-]+")
# a key (or a sequence entry) whose value is a block scalar: `key: |`, `key: >-`, `- |2`
_BLOCK_KEY = re.compile(
    r"^(?P<indent>[ \t]*(?:-[ \t]+)*)(?:[^#\s][^#]*?:[ \t]+|-[ \t]+)[|>][1-9+-]{0,2}[ \t]*(?:#.*)?$"
)

RULES = (
    Rule(
        UNKNOWN_SUPPRESSION,
        Severity.WARNING,
        "config",
        "An inline suppression names a rule that does not exist (`# kartalint: disable=unknown-owner-rf`).",
        "write the rule id as `kartalint rules` lists it",
        why="A misspelt rule id silences nothing: the finding it was written for is reported again, or, worse, the reader believes a rule is silenced that is not.",
    ),
    Rule(
        UNUSED_SUPPRESSION,
        Severity.INFO,
        "config",
        "An inline suppression silenced nothing: its rule does not fire where it applies (any more).",
        "remove the directive, or the rule id from it",
        why="A suppression that outlives its finding hides the next, real finding of that rule at the same place.",
    ),
)
_SEVERITY = {rule.id: rule.severity for rule in RULES}
_NEVER_UNUSED = {UNKNOWN_SUPPRESSION, UNUSED_SUPPRESSION}


@dataclass
class Directive:
    """An inline suppression comment: where it is written, the rules it names, its reason."""

    line: int  # 1-based line it is written on
    column: int  # 1-based column of its '#'
    end_column: int
    file_wide: bool
    rules: list[tuple[str, int]]  # (rule id, 1-based column); empty: every rule
    targets: set[int] = field(default_factory=set)  # the lines it silences (not for file_wide)


def parse(text: str) -> list[Directive]:
    """Every suppression directive of a file, with the lines it applies to."""
    if "kartalint:" not in text:
        return []
    lines = text.splitlines()
    out = []
    for number, line in enumerate(lines, start=1):
        if "kartalint:" not in line:
            continue
        match = DIRECTIVE.search(line)
        if not match:
            continue
        rules = []
        if match.group(2):
            start = match.start(2)
            rules = [(m.group(), start + m.start() + 1) for m in _RULE_ID.finditer(match.group(2))]
        directive = Directive(number, match.start() + 1, match.end() + 1, match.group(1) == "disable-file", rules)
        if not directive.file_wide:
            target = number + 1 if line.lstrip().startswith("#") else number
            directive.targets = {target, *_block_lines(lines, target)}
        out.append(directive)
    return out


def _block_lines(lines: list[str], key_line: int) -> list[int]:
    """The lines of the block scalar whose key is on ``key_line`` (1-based), if it holds one."""
    if not 1 <= key_line <= len(lines):
        return []
    match = _BLOCK_KEY.match(lines[key_line - 1])
    if not match:
        return []
    indent = len(match.group("indent").expandtabs())
    out = []
    for number in range(key_line + 1, len(lines) + 1):
        text = lines[number - 1]
        if text.strip() and len(text) - len(text.lstrip(" ")) <= indent:
            break
        out.append(number)
    while out and not lines[out[-1] - 1].strip():  # trailing blank lines belong to what follows
        out.pop()
    return out


def directives(text: str) -> tuple[dict[int, set[str]], set[str]]:
    """(rules silenced per 1-based line, rules silenced in the whole file)."""
    per_line: dict[int, set[str]] = {}
    whole: set[str] = set()
    for directive in parse(text):
        names = {name for name, _ in directive.rules} or {ALL}
        if directive.file_wide:
            whole |= names
        else:
            for line in directive.targets:
                per_line.setdefault(line, set()).update(names)
    return per_line, whole


def split(findings: list[Finding], text: str | None) -> tuple[list[Finding], int]:
    """(kept findings, number suppressed)."""
    kept, suppressed, _ = apply(findings, text, "", None)
    return kept, suppressed


def apply(
    findings: list[Finding], text: str | None, path: str, known: Mapping[str, Rule] | None
) -> tuple[list[Finding], int, list[Finding]]:
    """(kept findings, number suppressed, findings about the directives themselves). ``known``:
    the rules that exist by id (None: directives are not judged); the rules that cannot fire in
    lint (test-time, outcomes) are never called unused."""
    parsed = parse(text) if text else []
    if not parsed:
        return findings, 0, []
    used: set[tuple[int, str]] = set()
    kept = []
    for finding in findings:
        silenced = False
        for index, directive in enumerate(parsed):
            if not directive.file_wide and finding.line not in directive.targets:
                continue
            names = {name for name, _ in directive.rules}
            if not names or finding.rule in names:
                used.add((index, finding.rule if names else ALL))
                silenced = True
        if not silenced:
            kept.append(finding)
    if known is None:
        return kept, len(findings) - len(kept), []
    return kept, len(findings) - len(kept), _judge(parsed, used, path, known)


def _judge(parsed: list[Directive], used: set[tuple[int, str]], path: str, known: Mapping[str, Rule]) -> list[Finding]:
    out = []
    for index, directive in enumerate(parsed):
        if not directive.rules and (index, ALL) not in used:
            out.append(_finding(path, directive, directive.column, "the directive silenced nothing here", ALL))
        for name, column in directive.rules:
            if name not in known:
                near = _closest(name, known)
                out.append(
                    Finding(
                        path,
                        directive.line,
                        column,
                        directive.line,
                        column + len(name),
                        UNKNOWN_SUPPRESSION,
                        _SEVERITY[UNKNOWN_SUPPRESSION],
                        f"no rule is named '{name}': this directive silences nothing",
                        (),
                        f"did you mean '{near}'?" if near else "see `kartalint rules` for the rule ids",
                    )
                )
            elif (
                (index, name) not in used
                and name not in _NEVER_UNUSED
                and known[name].category not in ("test", "outcome")
            ):
                out.append(
                    _finding(path, directive, column, f"'{name}' does not fire here: nothing was silenced", name)
                )
    return out


def _finding(path: str, directive: Directive, column: int, message: str, name: str) -> Finding:
    end = directive.end_column if name == ALL else column + len(name)
    return Finding(
        path,
        directive.line,
        column,
        directive.line,
        end,
        UNUSED_SUPPRESSION,
        _SEVERITY[UNUSED_SUPPRESSION],
        message,
        (),
        "remove the directive" if name == ALL else f"remove '{name}' from the directive",
    )


def _closest(name: str, known: Mapping[str, Rule]) -> str | None:
    import difflib

    found = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.75)
    return found[0] if found else None
