"""Status matching (spec §3.6): conditions, phases and expressions against a definition's status mappings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kartalint.evaluation import values as convert
from kartalint.evaluation.extract import ExtractionError, expression_results
from kartalint.evaluation.jqexec import Outcome
from kartalint.evaluation.view import FieldError, WorkloadView
from kartalint.karta import CONDITION_FIELD_DEFAULTS, STATUS_ORDER, as_dict, as_list

if TYPE_CHECKING:
    from kartalint.evaluation.engine import PreparedDefinition


def match_status(view: WorkloadView, prepared: PreparedDefinition, outcomes: dict[str, Outcome]) -> None:
    """Set ``view``'s ``phase``, ``conditions``, ``statuses`` and ``matched_matchers`` from the root
    component's ``statusDefinition``: each status of ``STATUS_ORDER`` whose mapping has a matching
    matcher (the first match counts); ``[Undefined]`` when none matches, no statuses without a
    statusDefinition. Problems are recorded on the root component (on the view without one)."""
    root = prepared.components[0].data if prepared.components and prepared.components[0].is_root else None
    if not root or not isinstance(as_dict(root).get("statusDefinition"), dict):
        view.statuses = []  # no status definition at all
        return
    status_def = as_dict(as_dict(root).get("statusDefinition"))  # present, even empty: no match gives [Undefined]
    errors = view.root.errors if view.root else view.errors
    phase: str | None = None
    phase_def = as_dict(status_def.get("phaseDefinition"))
    if phase_def:
        try:
            path = phase_def.get("path")
            results = expression_results(outcomes, path) if isinstance(path, str) else []
            phase = convert.to_string(results[0], 0) if results else ""
        except (ExtractionError, convert.ConversionError) as exc:
            errors.append(FieldError("statusDefinition.phaseDefinition.path", str(exc)))
    view.phase = phase
    conditions = _conditions(as_dict(status_def.get("conditionsDefinition")), outcomes, errors)
    view.conditions = list(conditions.values())
    mappings = as_dict(status_def.get("statusMappings"))
    matched = []
    for status in STATUS_ORDER:
        key = status[0].lower() + status[1:]
        for index, matcher in enumerate(as_list(mappings.get(key))):
            try:
                hit = isinstance(matcher, dict) and _matches(
                    matcher, phase, conditions, outcomes
                )  # a string matcher never matches
            except ExtractionError as exc:
                errors.append(
                    FieldError(
                        f"statusDefinition.statusMappings.{key}[{index}]",
                        f"failed to match status: failed to evaluate matcher: {exc}",
                    )
                )
                continue
            if hit:
                matched.append(status)
                view.matched_matchers.append((key, index))
                break
    view.statuses = matched or ["Undefined"]


def _conditions(
    cond_def: dict[str, Any], outcomes: dict[str, Outcome], errors: list[FieldError]
) -> dict[str, dict[str, str]]:
    if not cond_def or not isinstance(cond_def.get("path"), str):
        return {}
    names = {
        key: cond_def.get(key) if isinstance(cond_def.get(key), str) else default
        for key, default in CONDITION_FIELD_DEFAULTS.items()
    }
    try:
        results = expression_results(outcomes, cond_def["path"])
    except ExtractionError as exc:
        errors.append(FieldError("statusDefinition.conditionsDefinition.path", str(exc)))
        return {}
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

            def read(key: str, item: dict = item) -> str:
                name = names[key]
                got = item.get(name) if name else None
                return got if isinstance(got, str) else ""

            ctype = read("typeFieldName")
            out[ctype] = {
                "type": ctype,
                "status": read("statusFieldName"),
                "reason": read("reasonFieldName"),
                "message": read("messageFieldName"),
            }
    return out


def _matches(
    matcher: dict[str, Any], phase: str | None, conditions: dict[str, dict[str, str]], outcomes: dict[str, Outcome]
) -> bool:
    for key, kind in (("byPhase", str), ("byConditions", list), ("byExpression", dict)):
        if matcher.get(key) is not None and not isinstance(matcher.get(key), kind):
            return False  # a criterion of the wrong type (a string byExpression) never matches
    by_phase = matcher.get("byPhase")
    if isinstance(by_phase, str) and by_phase != "" and (phase is None or phase != by_phase):
        return False
    for entry in as_list(matcher.get("byConditions")):
        entry = as_dict(entry)
        condition_type = entry.get("type")
        actual = conditions.get(condition_type) if isinstance(condition_type, str) else None
        if actual is None:
            return False
        for key in ("status", "reason"):
            expected = entry.get(key)
            if isinstance(expected, str) and expected != "" and actual[key] != expected:
                return False
    by_expression = as_dict(matcher.get("byExpression"))
    if by_expression:
        expression = by_expression.get("expression")
        results = expression_results(outcomes, expression) if isinstance(expression, str) and expression else []
        if not results:
            return False
        expected = by_expression.get("expectedResult")
        if convert.tostring(results[0]) != (expected if isinstance(expected, str) else str(expected)):
            return False
    return True
