"""kartalint's own rules on each status matcher on its own (``rules/status_mappings`` compares them
with each other): what it reads must be defined, what it expects must be possible; definitions
upstream accepts but that misbehave (spec §2.1 "NOT checked")."""

from __future__ import annotations

from collections.abc import Iterator

from kartalint import karta
from kartalint.jqlang import parse_cached
from kartalint.jqlang.types import static_type
from kartalint.karta import as_dict, as_list
from kartalint.model import Rule, Severity
from kartalint.rules.context import Check, Context

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The ids of the rules this module reports (constants: a misspelt id is an import error).
CONDITIONS_WITHOUT_DEFINITION = "conditions-without-definition"
PHASE_WITHOUT_DEFINITION = "phase-without-definition"
CONDITION_WITHOUT_EXPECTATION = "condition-without-expectation"
CONDITION_FIELD_NAME_MISSING = "condition-field-name-missing"
ALWAYS_MATCHING_STATUS = "always-matching-status"
CONDITION_STATUS_NEVER_MATCHES = "condition-status-never-matches"
EXPECTED_RESULT_NEVER_MATCHES = "expected-result-never-matches"


# The rules this module reports (the registry finds them; docs/rules.md renders them).
RULES = (
    Rule(
        CONDITIONS_WITHOUT_DEFINITION,
        Severity.ERROR,
        "practice",
        "A byConditions matcher is used but statusDefinition has no conditionsDefinition, so it never matches.",
        "add statusDefinition.conditionsDefinition",
        why="byConditions reads the conditions found by conditionsDefinition; without it the matcher never fires and the status is never reported.",
    ),
    Rule(
        PHASE_WITHOUT_DEFINITION,
        Severity.ERROR,
        "practice",
        "A byPhase matcher is used but statusDefinition has no phaseDefinition, so it never matches.",
        "add statusDefinition.phaseDefinition",
        why="byPhase compares the phase read by phaseDefinition; without it the matcher never fires.",
    ),
    Rule(
        CONDITION_WITHOUT_EXPECTATION,
        Severity.WARNING,
        "practice",
        "A byConditions entry sets neither status nor reason, so it only checks that the condition exists.",
        'add status (e.g. "True") or reason',
        why="A condition that exists is not a condition that holds: operators keep conditions with status False, so the status is reported when it should not be.",
    ),
    Rule(
        CONDITION_FIELD_NAME_MISSING,
        Severity.WARNING,
        "practice",
        "conditionsDefinition omits a field name; the CRD defaults it in a cluster, but file-based tools (kli validate, karta-verify) see an empty name and never match.",
        "spell out typeFieldName, statusFieldName (and reasonFieldName/messageFieldName when used)",
        why="In a cluster the CRD defaults the field names, but tools that read the file (kli validate, karta-verify, kartalint) see empty names and never match a condition.",
    ),
    Rule(
        ALWAYS_MATCHING_STATUS,
        Severity.WARNING,
        "practice",
        "An empty status matcher `{}` always matches, so the status is reported for every object.",
        "add byPhase, byConditions or byExpression to the matcher",
        why="An empty matcher matches every object, so the status is reported for every workload whatever its state.",
    ),
    Rule(
        CONDITION_STATUS_NEVER_MATCHES,
        Severity.WARNING,
        "practice",
        "A byConditions entry expects a condition status other than `True`, `False` or `Unknown` (compared exactly, so `true` or `'true'` never matches).",
        "write True, False or Unknown",
        why="Kubernetes writes condition statuses as the strings True, False and Unknown, and matchers compare them exactly: a lower-case or quoted-boolean status is a matcher that silently never fires.",
    ),
    Rule(
        EXPECTED_RESULT_NEVER_MATCHES,
        Severity.WARNING,
        "practice",
        "A byExpression ends in a test (a comparison, `and`/`or`, `not`, `any`, `has`, ...), so its result prints as true or false, but expectedResult is something else: it never matches.",
        'write expectedResult: "true" (or "false")',
        why="Upstream compares the expression's first result, printed as a string, with expectedResult: a test prints as true or false, so any other expectedResult never matches.",
    ),
)


def _matchers(ctx: Context) -> Iterator[tuple[dict, str, Any, tuple]]:
    """Each status matcher of each component: its statusDefinition, status key, matcher, path."""
    for comp in karta.components(ctx.data):
        status = as_dict(comp.data.get("statusDefinition"))
        for key, matchers in as_dict(status.get("statusMappings")).items():
            for mi, matcher in enumerate(matchers if isinstance(matchers, list) else []):
                yield status, key, matcher, (*comp.path, "statusDefinition", "statusMappings", key, mi)


def _condition_entries(ctx: Context) -> Iterator[tuple[dict, tuple]]:
    """Each byConditions entry of each matcher (a mapping), with its path."""
    for _, _, matcher, mpath in _matchers(ctx):
        by_conditions = as_dict(matcher).get("byConditions")
        for ci, entry in enumerate(by_conditions if isinstance(by_conditions, list) else []):
            yield as_dict(entry), (*mpath, "byConditions", ci)


def always_matching_status(ctx: Context) -> None:
    """An empty status matcher, which matches every object."""
    for _, key, matcher, mpath in _matchers(ctx):
        if matcher == {}:
            ctx.report(
                ALWAYS_MATCHING_STATUS,
                mpath,
                f"the empty matcher always matches: every object is reported {karta.MAPPING_KEYS.get(key, key)}",
            )


def phase_without_definition(ctx: Context) -> None:
    """A byPhase matcher without a phaseDefinition to read the phase."""
    for status, _, matcher, mpath in _matchers(ctx):
        if as_dict(matcher).get("byPhase") and status.get("phaseDefinition") is None:
            ctx.report(
                PHASE_WITHOUT_DEFINITION,
                (*mpath, "byPhase"),
                "byPhase is used but statusDefinition has no phaseDefinition: it never matches",
                key=True,
            )


def conditions_without_definition(ctx: Context) -> None:
    """A byConditions matcher without a conditionsDefinition to find the conditions."""
    for status, _, matcher, mpath in _matchers(ctx):
        if as_dict(matcher).get("byConditions") and status.get("conditionsDefinition") is None:
            ctx.report(
                CONDITIONS_WITHOUT_DEFINITION,
                (*mpath, "byConditions"),
                "byConditions is used but statusDefinition has no conditionsDefinition: it never matches",
                key=True,
            )


def condition_status_never_matches(ctx: Context) -> None:
    """A byConditions status other than True, False or Unknown (compared exactly)."""
    for entry, cpath in _condition_entries(ctx):
        status_value = entry.get("status")
        if isinstance(status_value, str) and status_value and status_value not in CONDITION_STATUSES:
            close = [s for s in CONDITION_STATUSES if s.lower() == status_value.lower()]
            ctx.report(
                CONDITION_STATUS_NEVER_MATCHES,
                (*cpath, "status"),
                f"condition status '{status_value}' never matches: Kubernetes condition statuses are "
                f"True, False or Unknown (compared exactly)",
                hint=f'write status: "{close[0]}"' if close else "use True, False or Unknown",
            )


def condition_without_expectation(ctx: Context) -> None:
    """A byConditions entry with neither status nor reason."""
    for entry, cpath in _condition_entries(ctx):
        if not entry.get("status") and not entry.get("reason") and entry:
            ctx.report(
                CONDITION_WITHOUT_EXPECTATION,
                cpath,
                f"condition '{entry.get('type')}' has neither status nor reason: it matches whenever the condition exists",
            )


def condition_field_name_missing(ctx: Context) -> None:
    """A conditionsDefinition that leaves a field name to the cluster default."""
    for comp in karta.components(ctx.data):
        status = as_dict(comp.data.get("statusDefinition"))
        conditions = status.get("conditionsDefinition")
        if not isinstance(conditions, dict):
            continue
        uses_reason = any(
            as_dict(entry).get("reason")
            for matchers in as_dict(status.get("statusMappings")).values()
            for matcher in (matchers if isinstance(matchers, list) else [])
            for entry in as_list(as_dict(matcher).get("byConditions"))
        )
        wanted = ["typeFieldName", "statusFieldName"] + (["reasonFieldName"] if uses_reason else [])
        for name in wanted:
            if not conditions.get(name):
                default = karta.CONDITION_FIELD_DEFAULTS[name]
                ctx.report(
                    CONDITION_FIELD_NAME_MISSING,
                    (*comp.path, "statusDefinition", "conditionsDefinition"),
                    f"conditionsDefinition has no {name}: the cluster defaults it to '{default}', "
                    f"but file-based tools read an empty name and never match",
                    key=True,
                    hint=f"add {name}: {default}",
                )


CONDITION_STATUSES = ("True", "False", "Unknown")


def expected_result_never_matches(ctx: Context) -> None:
    """``expectedResult`` a boolean expression can never produce (its result prints as true/false)."""
    for _, _, matcher, mpath in _matchers(ctx):
        _expected_result(ctx, as_dict(matcher), mpath)


def _expected_result(ctx: Context, matcher: dict, mpath: tuple) -> None:
    by_expression = as_dict(matcher.get("byExpression"))
    expression, expected = by_expression.get("expression"), by_expression.get("expectedResult")
    if not isinstance(expression, str) or not isinstance(expected, str) or expected in ("true", "false"):
        return
    tree, _ = parse_cached(expression)
    boolean = static_type(tree) == "boolean"
    if boolean:
        ctx.report(
            EXPECTED_RESULT_NEVER_MATCHES,
            (*mpath, "byExpression", "expectedResult"),
            f"the expression ends in a test, so its result is true or false; expectedResult '{expected}' never matches",
            hint='write expectedResult: "true" (or "false")',
        )


# One check per rule, in the order of RULES.
CHECKS = tuple(
    Check((rule_id,), run)
    for rule_id, run in (
        (CONDITIONS_WITHOUT_DEFINITION, conditions_without_definition),
        (PHASE_WITHOUT_DEFINITION, phase_without_definition),
        (CONDITION_WITHOUT_EXPECTATION, condition_without_expectation),
        (CONDITION_FIELD_NAME_MISSING, condition_field_name_missing),
        (ALWAYS_MATCHING_STATUS, always_matching_status),
        (CONDITION_STATUS_NEVER_MATCHES, condition_status_never_matches),
        (EXPECTED_RESULT_NEVER_MATCHES, expected_result_never_matches),
    )
)
