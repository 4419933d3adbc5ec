"""Status matching (spec §3.6): conditions, phases and expressions against a definition's status mappings.

``StatusPlan`` reads the root component's ``statusDefinition`` once per definition: the phase and
conditions paths, the condition field names, and every matcher that can match at all, its criteria
normalised (a matcher of the wrong shape, a condition type that is not a string or a missing
expression never matches, whatever the object). ``match_status`` applies it to one object's jq
outcomes.
"""

from __future__ import annotations

from typing import Any

from kartalint import karta
from kartalint.evaluation import values as convert
from kartalint.evaluation.extract import ExtractionError, expression_results
from kartalint.evaluation.jqexec import Outcome
from kartalint.evaluation.view import FieldError, WorkloadView
from kartalint.karta import CONDITION_FIELD_DEFAULTS, STATUS_ORDER, as_dict, as_list

# (status, mapping key, matchers that can match: (index, byPhase or None, byConditions as
# ((type, ((field, expected), ...)), ...), byExpression's expression or None, its expected text))
Matcher = tuple[int, str | None, tuple[tuple[str, tuple[tuple[str, str], ...]], ...], str | None, str]


class StatusPlan:
    """What the root component's ``statusDefinition`` says, read once (``plan``: None without one)."""

    __slots__ = ("condition_names", "conditions_path", "mappings", "phase_path")

    def __init__(self, status_def: dict[str, Any]) -> None:
        """The plan of a ``statusDefinition`` mapping."""
        phase_def = as_dict(status_def.get("phaseDefinition"))
        path = phase_def.get("path")
        # None: no phase definition (the phase stays None); "": one without a path (the phase is "")
        self.phase_path: str | None = (path if isinstance(path, str) else "") if phase_def else None
        cond_def = as_dict(status_def.get("conditionsDefinition"))
        conditions_path = cond_def.get("path") if cond_def else None
        self.conditions_path: str | None = conditions_path if isinstance(conditions_path, str) else None
        self.condition_names = tuple(
            cond_def.get(key) if isinstance(cond_def.get(key), str) else default
            for key, default in CONDITION_FIELD_DEFAULTS.items()
        )
        mappings = as_dict(status_def.get("statusMappings"))
        self.mappings: list[tuple[str, str, list[Matcher]]] = []
        for status in STATUS_ORDER:
            key = status[0].lower() + status[1:]
            matchers = [m for i, raw in enumerate(as_list(mappings.get(key))) if (m := _matcher(i, raw)) is not None]
            if matchers:
                self.mappings.append((status, key, matchers))


def plan(components: list[karta.ComponentRef]) -> StatusPlan | None:
    """The status plan of a definition's components (None when the root has no ``statusDefinition``:
    it then reports no status at all)."""
    root = components[0].data if components and components[0].is_root else None
    if not root or not isinstance(root.get("statusDefinition"), dict):
        return None
    return StatusPlan(root["statusDefinition"])


def _matcher(index: int, matcher: Any) -> Matcher | None:
    """A matcher's criteria, or None when it never matches (a string matcher, a criterion of the
    wrong type, a condition type that is not a string, a byExpression without an expression)."""
    if not isinstance(matcher, dict):
        return None
    for key, kind in (("byPhase", str), ("byConditions", list), ("byExpression", dict)):
        if matcher.get(key) is not None and not isinstance(matcher.get(key), kind):
            return None
    by_phase = matcher.get("byPhase")
    conditions = []
    for entry in as_list(matcher.get("byConditions")):
        entry = as_dict(entry)
        condition_type = entry.get("type")
        if not isinstance(condition_type, str):
            return None
        expected = tuple(
            (key, value) for key in ("status", "reason") if isinstance(value := entry.get(key), str) and value != ""
        )
        conditions.append((condition_type, expected))
    expression, expected_text = None, ""
    by_expression = as_dict(matcher.get("byExpression"))
    if by_expression:
        expression = by_expression.get("expression")
        if not isinstance(expression, str) or not expression:
            return None
        result = by_expression.get("expectedResult")
        expected_text = result if isinstance(result, str) else str(result)
    phase = by_phase if isinstance(by_phase, str) and by_phase != "" else None
    return (index, phase, tuple(conditions), expression, expected_text)


def match_status(view: WorkloadView, status_plan: StatusPlan | None, outcomes: dict[str, Outcome]) -> None:
    """Set ``view``'s ``phase``, ``conditions``, ``statuses`` and ``matched_matchers`` from the root
    component's ``statusDefinition``: each status of ``STATUS_ORDER`` whose mapping has a matching
    matcher (the first match counts); ``[Undefined]`` when none matches, no statuses without a
    statusDefinition. Problems are recorded on the root component (on the view without one)."""
    if status_plan is None:
        view.statuses = []  # no status definition at all
        return
    errors = view.components[0].errors if view.components else view.errors
    phase: str | None = None
    if status_plan.phase_path is not None:
        try:
            results = expression_results(outcomes, status_plan.phase_path)
            phase = convert.to_string(results[0], 0) if results else ""
        except (ExtractionError, convert.ConversionError) as exc:
            errors.append(FieldError("statusDefinition.phaseDefinition.path", str(exc)))
    view.phase = phase
    conditions = _conditions(status_plan, outcomes, errors) if status_plan.conditions_path is not None else {}
    view.conditions = list(conditions.values())
    matched = []
    for status, key, matchers in status_plan.mappings:
        for index, by_phase, by_conditions, expression, expected in matchers:
            if by_phase is not None and phase != by_phase:
                continue
            if by_conditions and not _conditions_hold(by_conditions, conditions):
                continue
            if expression is not None:
                try:
                    results = expression_results(outcomes, expression)
                except ExtractionError as exc:
                    errors.append(
                        FieldError(
                            f"statusDefinition.statusMappings.{key}[{index}]",
                            f"failed to match status: failed to evaluate matcher: {exc}",
                        )
                    )
                    continue
                if not results or convert.tostring(results[0]) != expected:
                    continue
            matched.append(status)
            view.matched_matchers.append((key, index))
            break
    view.statuses = matched or ["Undefined"]


def _conditions_hold(
    by_conditions: tuple[tuple[str, tuple[tuple[str, str], ...]], ...], conditions: dict[str, dict[str, str]]
) -> bool:
    for condition_type, expected in by_conditions:
        actual = conditions.get(condition_type)
        if actual is None:
            return False
        for key, value in expected:
            if actual[key] != value:
                return False
    return True


def _conditions(
    status_plan: StatusPlan, outcomes: dict[str, Outcome], errors: list[FieldError]
) -> dict[str, dict[str, str]]:
    try:
        results = expression_results(outcomes, status_plan.conditions_path or "")
    except ExtractionError as exc:
        errors.append(FieldError("statusDefinition.conditionsDefinition.path", str(exc)))
        return {}
    type_name, status_name, message_name, reason_name = status_plan.condition_names
    out: dict[str, dict[str, str]] = {}
    for index, value in enumerate(results):
        if value is None:
            continue
        if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
            errors.append(
                FieldError(
                    "statusDefinition.conditionsDefinition.path",
                    f"failed to convert object at index {index} to type []map[string]interface {{}}",
                )
            )
            continue
        for item in value:
            ctype = _text(item, type_name)
            out[ctype] = {
                "type": ctype,
                "status": _text(item, status_name),
                "reason": _text(item, reason_name),
                "message": _text(item, message_name),
            }
    return out


def _text(item: dict[str, Any], name: Any) -> str:
    got = item.get(name) if name else None
    return got if isinstance(got, str) else ""
