"""Inline suppression comments.

* ``# kartalint: disable=rule-a,rule-b`` at the end of a line silences those rules on that line;
  on a line of its own it silences them on the next line;
* on the key line of a block scalar (``replicasPath: >-  # kartalint: disable=rule-a``, or the
  line above it) it also silences them on the scalar's lines;
* ``# kartalint: disable`` (no ``=``) silences every rule there;
* ``# kartalint: disable-file=rule-a`` anywhere silences the rules in the whole file.

Text after the rule ids (after a space) is a free comment: ``# kartalint: disable=rule-a -- why``;
after a bare ``disable`` only `` -- why`` is.

Only that form, in ASCII, is a directive. Any other comment that reads as ``# kartalint:`` once its
letters are folded (NFKC and case: full-width ``ｊｑ-not-portable``, ``DISABLE``), or a directive
that does not parse (``disable: x``, ``disable=``, ``disable=a,``, ``disable x``) is
``invalid-suppression`` (an error) and silences nothing: it is never read as a bare ``disable``.

Directives can lie: a misspelt rule id silences nothing (``unknown-suppression``), and a directive
whose rule no longer fires there stays forever (``unused-suppression``, as ruff's RUF100).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from kartalint.model import Finding, Record, Rule, Severity

# The ids of the rules this module reports (constants: a misspelt id is an import error).
INVALID_SUPPRESSION = "invalid-suppression"
UNKNOWN_SUPPRESSION = "unknown-suppression"
UNUSED_SUPPRESSION = "unused-suppression"


# A directive as written: `# kartalint: disable` or `disable-file`, maybe `=` and rule ids separated
# by commas; after the ids, a space and anything is a comment (` -- the reason`). Only this form,
# in ASCII, silences anything; any other comment that reads as `# kartalint:` once its letters are
# folded (full-width, upper case) is `invalid-suppression` and silences nothing. (The patterns of this
# module are compiled when first used, by re's cache: most files hold no `# kartalint:` comment.)
DIRECTIVE = (
    r"#[ \t]*kartalint:[ \t]*(disable-file|disable)"
    r"(?:[ \t]*=[ \t]*([A-Za-z0-9_][A-Za-z0-9_-]*(?:[ \t]*,[ \t]*[A-Za-z0-9_][A-Za-z0-9_-]*)*))?"
)
_ATTEMPT = r"#\s*kartalint\s*:\s*(\S*)"  # on the NFKC-folded text from a '#'
_HASHES = "#\uff03\ufe5f"  # '#' and the characters NFKC folds into it
_MENTION = r"#\s*kartalint\s*:"  # on folded text: a line worth reading (compiled when a text names kartalint)
ALL = "*"
_RULE_ID = r"[A-Za-z0-9_][A-Za-z0-9_-]*"  # (a '-' never starts one: ` -- why` is a comment)
# a key (or a sequence entry) whose value is a block scalar: `key: |`, `key: >-`, `- |2`
_BLOCK_KEY = r"^(?P<indent>[ \t]*(?:-[ \t]+)*)(?:[^#\s][^#]*?:[ \t]+|-[ \t]+)[|>][1-9+-]{0,2}[ \t]*(?:#.*)?$"

RULES = (
    Rule(
        INVALID_SUPPRESSION,
        Severity.ERROR,
        "config",
        "A comment reads as an inline suppression but is not one (`# kartalint: disable: x`, `disable=`, full-width letters): it silences nothing.",
        "write `# kartalint: disable=RULE,RULE` (the ids as `kartalint rules` lists them, in ASCII), `# kartalint: disable-file=RULE`, or `# kartalint: disable -- why` for every rule",
        why="A malformed directive was read as a bare `disable` and silenced every rule there, errors included, without naming itself; now it silences nothing and says so, so a pull request cannot hide a finding behind a look-alike.",
    ),
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
_NEVER_UNUSED = {INVALID_SUPPRESSION, UNKNOWN_SUPPRESSION, UNUSED_SUPPRESSION}


class Directive(Record):
    """An inline suppression comment: where it is written, the rules it names, its reason."""

    __slots__ = ("column", "end_column", "file_wide", "line", "rules", "targets")
    line: int  # 1-based line it is written on
    column: int  # 1-based column of its '#'
    end_column: int
    file_wide: bool
    rules: list[tuple[str, int]]  # (rule id, 1-based column); empty: every rule
    targets: set[int]  # the lines it silences (not for file_wide)

    def __init__(
        self,
        line: int,
        column: int,
        end_column: int,
        file_wide: bool,
        rules: list[tuple[str, int]],
        targets: set[int] | None = None,
    ) -> None:
        """The directive written on ``line`` from ``column`` to ``end_column``, naming ``rules``."""
        self.line = line
        self.column = column
        self.end_column = end_column
        self.file_wide = file_wide
        self.rules = rules
        self.targets = set() if targets is None else targets


class Malformed(Record):
    """A comment that reads as a directive but is not one (it silences nothing)."""

    __slots__ = ("column", "end_column", "line", "reason")
    line: int
    column: int  # 1-based column of its '#'
    end_column: int
    reason: str

    def __init__(self, line: int, column: int, end_column: int, reason: str) -> None:
        """The comment on ``line`` from ``column`` to ``end_column``, and why it is not a directive."""
        self.line = line
        self.column = column
        self.end_column = end_column
        self.reason = reason


def parse(text: str) -> list[Directive]:
    """Every suppression directive of a file, with the lines it applies to."""
    return scan(text)[0]


def scan(text: str) -> tuple[list[Directive], list[Malformed]]:
    """(the directives of a file, with the lines they apply to; the comments that read as
    directives but are not, ``invalid-suppression``)."""
    folded = _folded(text)
    if "kartalint" not in folded or not re.search(
        _MENTION, folded
    ):  # (no line to look at: `apiVersion: kartalint/v1` is none)
        return [], []
    lines = text.splitlines()
    out: list[Directive] = []
    bad: list[Malformed] = []
    for number, line in enumerate(lines, start=1):
        if not any(ch in line for ch in _HASHES):
            continue
        for start, attempt in _attempts(line):
            match = re.compile(DIRECTIVE).match(line, start)
            reason = _problem(line, start, attempt, match)
            if reason is not None or match is None:
                bad.append(Malformed(number, start + 1, len(line.rstrip()) + 1, reason or "not a directive"))
                continue
            rules = []
            if match.group(2):
                first = match.start(2)
                rules = [(m.group(), first + m.start() + 1) for m in re.finditer(_RULE_ID, match.group(2))]
            directive = Directive(number, start + 1, match.end() + 1, match.group(1) == "disable-file", rules)
            if not directive.file_wide:
                target = number + 1 if line.lstrip().startswith("#") else number
                directive.targets = {target, *_block_lines(lines, target)}
            out.append(directive)
            break  # (one directive a line: what follows it is its comment)
    return out, bad


def _folded(text: str) -> str:
    """``text`` NFKC-normalized and case-folded (lower-cased, when ASCII: the same, faster)."""
    if text.isascii():
        return text.lower()
    import unicodedata  # lazy: only text that is not ASCII needs it (start-up of lint)

    return unicodedata.normalize("NFKC", text).casefold()


def _attempts(line: str) -> list[tuple[int, str]]:
    """(column from 0 of the '#', the word after ``kartalint:``) of each place in ``line`` that
    reads as ``# kartalint:`` once folded (NFKC, case)."""
    if not re.search(_MENTION, _folded(line)):  # (most comments: no character is looked at one by one)
        return []
    found = []
    for index, char in enumerate(line):
        if char in _HASHES:
            match = re.match(_ATTEMPT, _folded(line[index : index + 64]))
            if match:
                found.append((index, match.group(1)))
    return found


def _problem(line: str, start: int, attempt: str, match: re.Match[str] | None) -> str | None:
    """Why the directive read at ``start`` of ``line`` silences nothing (None: it is one)."""
    if match is None:
        word = re.split(r"[=:,]", attempt, maxsplit=1)[0][:40]
        if not word.startswith("disable"):
            return f"'{word}' is not a directive (`disable=RULE` or `disable-file=RULE`)"
        return "only the ASCII lower-case `# kartalint: disable` is a directive (not full-width or upper-case letters)"
    rest = line[match.end() :]
    verb = match.group(1)
    if match.group(2) is not None:
        if rest and rest[0] not in " \t":
            if rest[0] == ",":  # (the pattern takes every ', id' there is)
                return "a ',' with no rule id after it"
            return f"{_shown(rest[0])} after a rule id: ids are ASCII letters, digits and '-', separated by ','"
        return None
    if not rest.strip() or (rest[0] in " \t" and rest.lstrip().startswith("--")):
        return None
    after = rest.lstrip()
    if after.startswith("="):
        following = after[1:].lstrip()[:1]
        what = f"{_shown(following)} is not a rule id" if following else "no rule id follows"
        return f"{what} after '=' (ids are ASCII letters, digits and '-')"
    if rest[0] not in " \t:":
        return (
            f"'{verb}{re.split(r'[ =:]', rest, maxsplit=1)[0][:40]}' is not a directive (`disable` or `disable-file`)"
        )
    return f"name the rules with `{verb}=RULE` (not ':' or a space), or write `{verb} -- why` to silence every rule"


def _shown(char: str) -> str:
    return f"'{char}'" if char.isascii() else f"'{char}' (U+{ord(char):04X}, not ASCII)"


def _block_lines(lines: list[str], key_line: int) -> list[int]:
    """The lines of the block scalar whose key is on ``key_line`` (1-based), if it holds one."""
    if not 1 <= key_line <= len(lines):
        return []
    match = re.match(_BLOCK_KEY, lines[key_line - 1])
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
    parsed, malformed = scan(text) if text else ([], [])
    if not parsed and not malformed:
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
    return kept, len(findings) - len(kept), [*_invalid(malformed, path), *_judge(parsed, used, path, known)]


def _invalid(malformed: list[Malformed], path: str) -> list[Finding]:
    return [
        Finding(
            path,
            bad.line,
            bad.column,
            bad.line,
            bad.end_column,
            INVALID_SUPPRESSION,
            _SEVERITY[INVALID_SUPPRESSION],
            f"malformed suppression: it silences nothing ({bad.reason})",
            (),
            RULES[0].hint,
        )
        for bad in malformed
    ]


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
    import difflib  # lazy: only a misspelt name is looked up (difflib is not on a one-file lint's path)

    found = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.75)
    return found[0] if found else None
