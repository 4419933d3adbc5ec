"""House rules: an organisation's own checks, written in jq in the configuration (``house-rules:``).

Each entry of ``house-rules:`` (validated first by the configuration's JSON Schema,
``kartalint.schema.config``) becomes a ``HouseRule``: its id (never a built-in rule's), severity,
the unit it runs on (``for-each``: the definition, each component, each status mapping, each jq
expression), ``when`` (jq: ``true`` is a finding), ``message`` (the inside of a jq string:
``\\(...)`` interpolates), ``hint``, ``why``, ``paths`` (gitignore patterns relative to the project
root) and ``examples`` (a bad and a good file, for ``kartalint rules --check``), with the places of
the entry, of ``when`` and of ``message`` in the configuration file, so that a problem is said
where it is written. ``kartalint.rules.house`` runs them.

What cannot run (a syntax error, an undefined function, ``input``, ``env``, ``$ENV``, ``import``,
a function that calls itself forever) is found without running anything (``static_problem``) and
reported once, at its place, by whatever runs the rule; the rest of the configuration stays usable.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Collection

from kartalint.jqlang import parse_cached
from kartalint.jqlang.analysis import safety
from kartalint.jqlang.compile import compile_one
from kartalint.jqlang.runner import SANDBOX_PRELUDE
from kartalint.load.configfile import ConfigFile
from kartalint.load.patterns import PatternSet, check_pattern
from kartalint.model import Frozen, Rule, Severity, set_field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

HOUSE_CATEGORY = "house"
MESSAGE_CAP = 1000  # characters of a finding's message (a message interpolating a huge value is cut)


class HouseRule(Frozen):
    """One entry of ``house-rules:``, as read: what it checks and where each part is written
    (1-based line and column in ``source``, the configuration file that declares it). (A record,
    not a dataclass: a configuration with house rules is read by every hook call.)"""

    __slots__ = (
        "_hash",
        "_rule",
        "at",
        "examples",
        "for_each",
        "hint",
        "id",
        "message",
        "message_at",
        "paths",
        "severity",
        "source",
        "when",
        "when_at",
        "why",
    )
    id: str
    severity: Severity
    for_each: str
    when: str
    message: str
    hint: str
    why: str
    paths: tuple[str, ...]
    examples: tuple[str, str] | None  # (bad, good), absolute paths
    source: str
    at: tuple[int, int]  # the entry's `id`
    when_at: tuple[int, int]
    message_at: tuple[int, int]
    _hash: int | None
    _rule: Rule | None

    def __init__(
        self,
        id: str,
        severity: Severity,
        for_each: str,
        when: str,
        message: str,
        hint: str = "",
        why: str = "",
        paths: tuple[str, ...] = (),
        examples: tuple[str, str] | None = None,
        source: str = "",
        at: tuple[int, int] = (0, 0),
        when_at: tuple[int, int] = (0, 0),
        message_at: tuple[int, int] = (0, 0),
    ) -> None:
        """The house rule ``id``."""
        set_field(self, "id", id)
        set_field(self, "severity", severity)
        set_field(self, "for_each", for_each)
        set_field(self, "when", when)
        set_field(self, "message", message)
        set_field(self, "hint", hint)
        set_field(self, "why", why)
        set_field(self, "paths", paths)
        set_field(self, "examples", examples)
        set_field(self, "source", source)
        set_field(self, "at", at)
        set_field(self, "when_at", when_at)
        set_field(self, "message_at", message_at)
        set_field(self, "_hash", None)  # (pickled without it, ``Frozen.__reduce__``: made again in a worker)
        set_field(self, "_rule", None)

    def __hash__(self) -> int:  # computed once: a rule is looked up on every definition
        """The hash of the rule's fields, kept after the first call."""
        found = self._hash
        if found is None:
            found = hash(self._key(self))
            set_field(self, "_hash", found)
        return found

    @property
    def rule(self) -> Rule:
        """The rule as every other rule is shown (``kartalint rules``, SARIF, the severities)."""
        if self._rule is None:
            set_field(self, "_rule", self._made_rule())
        assert self._rule is not None
        return self._rule

    def _made_rule(self) -> Rule:
        return Rule(
            self.id,
            self.severity,
            HOUSE_CATEGORY,
            summary(self),
            self.hint,
            why=self.why,
            origin=self.source,
        )

    def applies_to(self, relative: str | None) -> bool:
        """Whether the rule runs on the file at ``relative`` (relative to the project root, None
        outside it): always without ``paths``, else when one of its patterns selects the file."""
        if not self.paths:
            return True
        return relative is not None and _patterns(self.paths).match(relative)


@functools.lru_cache(maxsize=256)
def _patterns(paths: tuple[str, ...]) -> PatternSet:
    return PatternSet(list(paths))


_INTERPOLATION = re.compile(r"\\\((?:[^()]|\([^()]*\))*\)")


def summary(rule: HouseRule) -> str:
    """The rule in one line: its message with each ``\\(...)`` shown as ``…`` (what it says, not
    which values it names), then why, when given."""
    text = _INTERPOLATION.sub("…", rule.message).replace('\\"', '"').strip()
    text = " ".join(text.split())
    return f"{text} ({rule.why.strip()})" if rule.why.strip() else text


def read_house_rules(
    layer: ConfigFile, reserved: Collection[str], boundary: str, known: Collection[str] = ()
) -> list[HouseRule]:
    """The house rules of one configuration file (``layer``, valid for the configuration's schema).
    An id of ``reserved`` (kartalint's and its plugins' rules) or twice in the file, a bad
    ``paths`` pattern, and an example outside ``boundary`` (the repository) are configuration
    errors placed where they are written; ``known``: ids of house rules read from the files this
    one extends (an entry with one of them replaces it)."""
    entries = layer.data.get("house-rules") or []
    seen: set[str] = set()
    out = []
    for index, entry in enumerate(entries):
        place = ("house-rules", index)
        rule_id = entry["id"]
        if rule_id in reserved:
            raise layer.error(
                f"house rule '{rule_id}': a rule of kartalint has this id (give house rules an id of their own, "
                "with a prefix such as 'acme-')",
                (*place, "id"),
            )
        if rule_id in seen:
            raise layer.error(f"house rule '{rule_id}' is declared twice in this file", (*place, "id"))
        seen.add(rule_id)
        for number, pattern in enumerate(entry.get("paths") or []):
            problem = check_pattern(pattern)
            if problem:
                raise layer.error(
                    f"house rule '{rule_id}': bad pattern {pattern!r}: {problem}", (*place, "paths", number)
                )
        examples = entry.get("examples")
        out.append(
            HouseRule(
                id=rule_id,
                severity=Severity.parse(entry.get("severity") or "warning"),
                for_each=entry["for-each"],
                when=entry["when"],
                message=entry["message"],
                hint=(entry.get("hint") or "").strip(),
                why=(entry.get("why") or "").strip(),
                paths=tuple(entry.get("paths") or ()),
                examples=None
                if not examples
                else (
                    _example(layer, examples, "bad", place, boundary),
                    _example(layer, examples, "good", place, boundary),
                ),
                source=layer.path,
                at=layer.locate((*place, "id")),
                when_at=layer.locate((*place, "when")),
                message_at=layer.locate((*place, "message")),
            )
        )
    return out


def _example(layer: ConfigFile, examples: dict[str, Any], which: str, place: tuple, boundary: str) -> str:
    """An example's path: relative to the file that names it, inside ``boundary``."""
    given = examples[which]
    where = (*place, "examples", which)
    if "\x00" in given:
        raise layer.error(f"example {given!r} holds a NUL character: not a path", where)
    absolute = os.path.normpath(os.path.join(layer.folder, given))
    real, top = os.path.realpath(absolute), os.path.realpath(boundary)
    if not (real == top or real.startswith(top.rstrip(os.sep) + os.sep)):
        raise layer.error(
            f"example {given} resolves to {real}, outside the repository {top}: examples must stay inside it", where
        )
    return absolute


class StaticProblem(Frozen):
    """Why a house rule cannot run, found without running it: which part (``when`` or
    ``message``) and what is wrong."""

    __slots__ = ("message", "offset", "part")
    part: str
    message: str
    offset: int  # character of the part where the problem is (0 when not known)

    def __init__(self, part: str, message: str, offset: int = 0) -> None:
        """The problem of ``part``."""
        set_field(self, "part", part)
        set_field(self, "message", message)
        set_field(self, "offset", offset)

    def place(self, rule: HouseRule) -> tuple[int, int]:
        """(line, column) in the configuration file: the part's value."""
        return rule.when_at if self.part == "when" else rule.message_at


class Failure(Frozen):
    """Why a house rule could not run: the part (``when`` or ``message``) and what happened,
    with the unit it failed on (its index among the units of its kind; None: not on one unit)."""

    __slots__ = ("detail", "part", "static", "unit")
    part: str
    detail: str
    unit: int | None
    static: bool  # found without running it (a ``StaticProblem``)

    def __init__(self, part: str, detail: str, unit: int | None = None, static: bool = False) -> None:
        """The failure of ``part``."""
        set_field(self, "part", part)
        set_field(self, "detail", detail)
        set_field(self, "unit", unit)
        set_field(self, "static", static)


def static_problem(rule: HouseRule, compiled: bool = True) -> StaticProblem | None:
    """What keeps ``rule`` from running (a syntax error, a construct the sandbox refuses, and with
    ``compiled`` an undefined function or variable, which libjq finds), or None."""
    return _static_problem(rule.when, rule.message, compiled)


@functools.lru_cache(maxsize=1024)
def _static_problem(when: str, message: str, compiled: bool) -> StaticProblem | None:
    found = _jq_problem("when", when, compiled)
    if found is not None:
        return found
    return _jq_problem("message", message_program(message), compiled)


def message_program(message: str) -> str:
    """The jq program of a ``message``: the text as the inside of a jq string."""
    return f'"{message}"'


_BINDINGS = ". as $definition | . as $path | "


def _jq_problem(part: str, program: str, compiled: bool) -> StaticProblem | None:
    shift = 1 if part == "message" else 0  # the opening quote added around a message
    tree, error = parse_cached(program)
    if error is not None or tree is None:
        detail = error.message if error is not None else "empty"
        offset = max(0, (error.start if error is not None else 0) - shift)
        if part == "message":
            detail += ' (a message is the inside of a jq string: write \\" for a quote, \\(.x) to insert a value)'
        return StaticProblem(part, f"`{part}` is not valid jq: {detail} (at character {offset + 1})", offset)
    if part == "message" and not (tree.kind == "string" or (tree.kind == "literal" and isinstance(tree.value, str))):
        return StaticProblem(part, '`message` is not one jq string: write \\" for a quote inside it')
    for unsafe in safety(tree):
        return StaticProblem(
            part,
            f"`{part}` is refused: {unsafe.message} (house rules run sandboxed: no input, env, $ENV, import, "
            "debug or halt)",
            max(0, unsafe.start - shift),
        )
    if not compiled:
        return None
    _, problems = compile_one(SANDBOX_PRELUDE + _BINDINGS + "(" + program + "\n)")
    if problems:
        return StaticProblem(part, f"`{part}` does not compile: {problems[0].message}")
    return None
