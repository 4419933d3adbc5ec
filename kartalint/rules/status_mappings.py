"""Status mappings that decide nothing or contradict themselves, found from the definition alone:
a matcher that matches only objects a matcher of an exclusive status matches too
(``contradictory-matchers``, ``shadowed-matcher``), and a root whose mappings are empty
(``empty-status-mappings``).

Two statuses are exclusive when no workload can be in both (``test_time.CONTRADICTORY``: Running
with Failed or Completed, Failed with Completed, Suspended with Running); statuses that may hold
together (Running and Degraded) are never compared. Matcher A is contained in matcher B when
every object A matches, B matches: B's byPhase is unset or equal, each of B's byConditions
entries is implied by one of A's (same type, B's status and reason unset or equal), B's
byExpression is unset or the same text with the same expectedResult.
"""

from __future__ import annotations

from kartalint import karta
from kartalint.karta import as_dict, as_list
from kartalint.model import Frozen, Rule, Severity, set_field
from kartalint.rules.context import Check, Context
from kartalint.rules.test_time import CONTRADICTORY

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The ids of the rules this module reports (constants: a misspelt id is an import error).
CONTRADICTORY_MATCHERS = "contradictory-matchers"
SHADOWED_MATCHER = "shadowed-matcher"
EMPTY_STATUS_MAPPINGS = "empty-status-mappings"


# The rules this module reports (collected by kartalint.rules.registry; docs/rules.md renders them).
RULES = (
    Rule(
        CONTRADICTORY_MATCHERS,
        Severity.WARNING,
        "practice",
        "Two statuses that cannot hold together (Running and Failed, Completed and Running, ...) have matchers that match the same objects: the same byPhase value, the same condition type and status, or one matcher of the higher-precedence status contained in one of the other.",
        "make the matchers of exclusive statuses exclusive (another phase, another condition, or a condition that must be False)",
        why="Every object such a matcher matches is reported with both statuses; consumers pick one by precedence, so the workload shows the wrong one, or flips between them.",
    ),
    Rule(
        SHADOWED_MATCHER,
        Severity.WARNING,
        "practice",
        "A matcher matches only objects that a matcher of an exclusive status with higher precedence (earlier in Resuming, Suspending, Suspended, Running, Failed, Completed, Initializing, Degraded) matches too: it can never decide anything.",
        "tighten the earlier status's matcher so that it does not cover this one, or remove this one",
        why="Whenever the shadowed matcher matches, the earlier exclusive status matches too and takes precedence: the status it was written for is never the one shown.",
    ),
    Rule(
        EMPTY_STATUS_MAPPINGS,
        Severity.WARNING,
        "practice",
        "The root's statusMappings has no matcher at all: every object is reported Undefined.",
        "add matchers for the statuses the operator reports (at least running, completed and failed)",
        why="Without a matcher nothing ever matches, so every consumer shows every workload as Undefined: the definition tells nobody anything about its state.",
    ),
)

_MAX_MATCHERS = 256  # per status: the comparison is pairwise, so a hostile file is cut here
_PRECEDENCE = {status: index for index, status in enumerate(karta.STATUS_ORDER)}
_EXCLUSIVE = {frozenset(pair) for pair in CONTRADICTORY}


class _Matcher(Frozen):
    __slots__ = ("conditions", "expression", "path", "phase", "status")
    status: str
    path: tuple
    phase: str | None
    conditions: tuple[tuple[str, str | None, str | None], ...]  # (type, status, reason), one per type
    expression: tuple[str, str] | None

    def __init__(
        self,
        status: str,
        path: tuple,
        phase: str | None,
        conditions: tuple[tuple[str, str | None, str | None], ...],
        expression: tuple[str, str] | None,
    ) -> None:
        set_field(self, "status", status)
        set_field(self, "path", path)
        set_field(self, "phase", phase)
        set_field(self, "conditions", conditions)
        set_field(self, "expression", expression)

    def contains(self, narrow: _Matcher) -> bool:
        """Every object ``narrow`` matches, this one matches."""
        if self.phase is not None and self.phase != narrow.phase:
            return False
        if self.expression is not None and self.expression != narrow.expression:
            return False
        theirs = {kind: (status, reason) for kind, status, reason in narrow.conditions}
        for kind, status, reason in self.conditions:
            if kind not in theirs:
                return False
            if (status is not None and theirs[kind][0] != status) or (reason is not None and theirs[kind][1] != reason):
                return False
        return True


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _matcher(status: str, path: tuple, data: Any) -> _Matcher | None:
    """The matcher in a comparable form; None when it is malformed, empty (always matches: its
    own rule) or can never match (one condition type expected with two statuses)."""
    if not isinstance(data, dict) or not data:
        return None
    phase = data.get("byPhase")
    if phase is not None and not isinstance(phase, str):
        return None
    conditions: dict[str, tuple[str | None, str | None]] = {}
    for entry in as_list(data.get("byConditions")):
        kind = _text(as_dict(entry).get("type"))
        if kind is None:
            return None
        status_value, reason = _text(entry.get("status")), _text(entry.get("reason"))
        if kind in conditions:
            known = conditions[kind]
            if (known[0] and status_value and known[0] != status_value) or (known[1] and reason and known[1] != reason):
                return None  # never matches
            status_value, reason = status_value or known[0], reason or known[1]
        conditions[kind] = (status_value, reason)
    expression = None
    if data.get("byExpression") is not None:
        by_expression = as_dict(data.get("byExpression"))
        text, expected = by_expression.get("expression"), by_expression.get("expectedResult")
        if not isinstance(text, str) or not isinstance(expected, str):
            return None
        expression = (" ".join(text.split()), expected)  # (what \s+ matches, str.split splits on)
    matcher = _Matcher(
        status, path, _text(phase), tuple(sorted((k, s, r) for k, (s, r) in conditions.items())), expression
    )
    if matcher.phase is None and not matcher.conditions and matcher.expression is None:
        return None
    return matcher


def check(ctx: Context) -> None:
    """The matcher rules on the root's statusMappings (contradictory, shadowed, empty)."""
    comps = karta.components(ctx.data)
    if not comps or not comps[0].is_root:
        return
    spath = (*comps[0].path, "statusDefinition")
    mappings = as_dict(comps[0].data.get("statusDefinition")).get("statusMappings")
    if not isinstance(mappings, dict):
        return
    if not any(as_list(matchers) for matchers in mappings.values()):
        ctx.report(
            EMPTY_STATUS_MAPPINGS,
            (*spath, "statusMappings"),
            "statusMappings has no matcher: every object is reported Undefined",
            key=True,
        )
        return
    matchers = []
    for key, items in mappings.items():
        status = karta.MAPPING_KEYS.get(str(key))
        if status is None:
            continue
        for index, data in enumerate(as_list(items)[:_MAX_MATCHERS]):
            found = _matcher(status, (*spath, "statusMappings", key, index), data)
            if found is not None:
                matchers.append(found)
    reported: set[tuple] = set()
    for i, first in enumerate(matchers):
        for second in matchers[i + 1 :]:
            if frozenset((first.status, second.status)) not in _EXCLUSIVE:
                continue
            early, late = sorted((first, second), key=lambda m: _PRECEDENCE[m.status])
            if early.contains(late) and late.path not in reported:
                reported.add(late.path)
                _report_late(ctx, early, late, identical=late.contains(early))
            elif late.contains(early) and early.path not in reported:
                reported.add(early.path)
                ctx.report(
                    CONTRADICTORY_MATCHERS,
                    early.path,
                    f"every object this {early.status} matcher matches also matches {_name(ctx, late)}: "
                    f"it is reported {early.status} and {late.status} together",
                )


def _report_late(ctx: Context, early: _Matcher, late: _Matcher, identical: bool) -> None:
    both = f"{early.status} and {late.status}"
    if identical:
        ctx.report(
            CONTRADICTORY_MATCHERS,
            late.path,
            f"this {late.status} matcher is the same as {_name(ctx, early)}: every object it matches is reported {both} together",
        )
    else:
        ctx.report(
            SHADOWED_MATCHER,
            late.path,
            f"every object this {late.status} matcher matches also matches {_name(ctx, early)}, and {early.status} "
            f"takes precedence: it never decides anything (the object is reported {both} together)",
        )


def _name(ctx: Context, matcher: _Matcher) -> str:
    """``failed[0] (line 12)``: a matcher as the author finds it."""
    key, index = matcher.path[-2], matcher.path[-1]
    where = f"{key}[{index}]"
    if ctx.document is not None:
        where += f" (line {ctx.document.span(matcher.path).line})"
    return where


CHECKS = (Check(tuple(rule.id for rule in RULES), check),)
