"""What the house rules found on jq expressions and status mappings, remembered for a run
(``lint_paths``): the units of a fleet repeat (``.metadata.labels``, ``.spec.replicas`` at the same
place of many definitions; the same `running` and `failed` matchers for every kind of one operator),
and a rule that reads nothing but its unit gives the same findings on the same unit at the same
place.

An expression unit is a string at a path, a status-mapping unit a list of matchers at a path (its
key: the list's JSON). When every rule of one of these kinds of a definition is pure (``pure``: it
names neither ``$definition`` nor a builtin whose result is not a function of its input or that
reads or writes elsewhere: ``now``, ``input``, ``debug``, ...), what they gave on a unit is kept,
keyed by the unit and its path (by the unit alone when none of them names ``$path``): the next
definition with the same unit there is not sent it (its path goes as ``null``, which the program
skips: the units keep their indexes) and gets the findings kept. Each kind is remembered on its own
(its own rules, its own table). Only what a definition's rules gave without any of them failing is
kept; a rule that fails on a definition reports that failure, as without the memo, and nothing kept
is added to it.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from kartalint.jqlang.lexer import Interpolation, JqSyntaxError, tokenize
from kartalint.model import Path, Record

TYPE_CHECKING = False
if TYPE_CHECKING:  # imported when house rules run
    from kartalint.load.house_rules import HouseRule
    from kartalint.rules._house_records import Outcome

MAX_KEPT = 100_000  # units kept per group of rules (then forgotten, and kept again)
KINDS = ("expression", "status-mapping")  # the kinds of unit remembered (a definition or a component
# is rarely met twice whole: what would be kept is never asked for again)

# The builtins whose result is not a function of their input (or that read or write elsewhere)
_IMPURE_CALLS = frozenset(
    ["now", "input", "inputs", "input_filename", "input_line_number", "debug", "stderr", "halt", "halt_error"]
)

# (index in the group, message) of the rules that found something on a unit: by index, as equal
# groups share a table (equal rules that are not the same objects: a configuration read again, a `lint -j`
# worker started without fork reads its own copy)
Hits = tuple[tuple[int, str], ...]


def pure(rule: HouseRule) -> bool:
    """Whether ``rule`` gives on a unit what it gave on the same unit at the same path before: its
    ``when`` and ``message`` name no ``$definition`` (nor the program's own ``$__`` variables) and
    call none of ``_IMPURE_CALLS`` (a name anywhere outside a string's text counts: a field or
    object key of that name too)."""
    names = _names(rule.when) | _names(f'"{rule.message}"')
    return (
        "$definition" not in names and not any(name.startswith("$__") for name in names) and not (names & _IMPURE_CALLS)
    )


def by_path(rules: Sequence[HouseRule]) -> bool:
    """Whether a unit's path is part of its key (a rule of ``rules`` names ``$path``)."""
    return any("$path" in _names(rule.when) | _names(f'"{rule.message}"') for rule in rules)


@functools.lru_cache(maxsize=512)
def _names(program: str) -> frozenset[str]:
    """The names a jq program uses (identifiers as they are, variables with their ``$``), those of
    its strings' interpolations included; ``$__`` when it cannot be read (never pure)."""
    try:
        tokens = tokenize(program)
    except JqSyntaxError:
        return frozenset(["$__"])
    found: set[str] = set()
    stack = [tokens]
    while stack:
        for token in stack.pop():
            if token.kind in ("IDENT", "KEYWORD"):
                found.add(token.value)
            elif token.kind == "VAR":
                found.add("$" + token.value)
            elif token.kind == "STRING":
                stack.extend(part.tokens for part in token.parts if isinstance(part, Interpolation))
    return frozenset(found)


class Recall(Record):
    """One definition's units of one kind as the memo found them: the rules of that kind (in the
    program's order), the group's table, the findings kept per unit index, the units sent (index,
    key), and how many rules the definition was queued for (all of them run: no fewer are read)."""

    __slots__ = ("group", "kept", "rules", "sent", "table")
    group: tuple[HouseRule, ...]
    table: dict[object, Hits]
    kept: dict[int, Hits]
    sent: list[tuple[int, object]]
    rules: int

    def __init__(
        self,
        group: tuple[HouseRule, ...],
        table: dict[object, Hits],
        kept: dict[int, Hits],
        sent: list[tuple[int, object]],
        rules: int,
    ) -> None:
        """What the memo found of one definition's expressions."""
        self.group = group
        self.table = table
        self.kept = kept
        self.sent = sent
        self.rules = rules

    @property
    def kind(self) -> str:
        """The kind of unit (``KINDS``) its rules are for."""
        return self.group[0].for_each


def recall(
    group: tuple[HouseRule, ...],
    table: dict[object, Hits],
    keyed_by_path: bool,
    units: Sequence[tuple[Path, object]],
    rules: int,
) -> tuple[list[Path | None], Recall]:
    """The units' paths to send (``None`` for a unit whose findings are kept) and what was kept
    (``units``: each unit's path and what it is, an expression or a status mapping's JSON;
    ``rules``: how many rules run on the definition, ``group`` among them)."""
    paths: list[Path | None] = []
    kept: dict[int, Hits] = {}
    sent: list[tuple[int, object]] = []
    get = table.get
    for index, (path, unit) in enumerate(units):
        key: object = (path, unit) if keyed_by_path else unit
        found = get(key)
        if found is None:
            paths.append(path)
            sent.append((index, key))
        else:
            paths.append(None)
            if found:
                kept[index] = found
    return paths, Recall(group, table, kept, sent, rules)


def settle(outcome: Outcome, memo: Recall, rules: Sequence[HouseRule]) -> None:
    """The findings kept joined to what ``rules`` (the rules run on the definition) gave on the
    units sent, in unit order, as if every unit had been sent; what they gave kept, when none failed
    and every rule of the group ran."""
    # every rule the definition was queued for ran (the common case: none failed since): the group
    # among them (``rules`` is never more than what was queued)
    every = len(rules) == memo.rules
    running = None if every else {id(rule) for rule in rules}  # (by identity: comparing compares every field)
    if not outcome.failed and (running is None or all(id(rule) in running for rule in memo.group)):
        _keep(outcome, memo)
    if not memo.kept:
        return
    extra: dict[HouseRule, list[tuple[int, str]]] = {}
    for index, hits in memo.kept.items():
        for number, message in hits:
            rule = memo.group[number]
            if (running is None or id(rule) in running) and rule not in outcome.failed:
                extra.setdefault(rule, []).append((index, message))
    if not extra:
        return
    merged = {}
    for rule in rules:  # (the order the rules are read in: the program's)
        found = outcome.hits.get(rule)
        more = extra.get(rule)
        if more is not None:
            found = sorted([*(found or []), *more])
        if found:
            merged[rule] = found
    outcome.hits = merged


def _keep(outcome: Outcome, memo: Recall) -> None:
    """What the group found on each unit sent, kept."""
    table = memo.table
    if len(table) + len(memo.sent) > MAX_KEPT:
        table.clear()
    if not outcome.hits:  # (the common case: nothing found)
        for _, key in memo.sent:
            table[key] = ()
        return
    found: dict[int, list[tuple[int, str]]] = {}
    for number, rule in enumerate(memo.group):
        for index, message in outcome.hits.get(rule, ()):
            found.setdefault(index, []).append((number, message))
    for index, key in memo.sent:
        table[key] = tuple(found.get(index, ()))
