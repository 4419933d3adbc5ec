"""Status: the root's ``statusMappings`` (which status a workload shows).

The order of the statuses and of the matchers in a list has no effect (spec §3.5: a fixed status
order, matchers OR'ed, conditions AND'ed), so no operator reorders them: such a mutant would be
equivalent by construction.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from typing import Any

from kartalint import karta
from kartalint.jqlang import parse_cached
from kartalint.jqlang.paths import output_path, path_text
from kartalint.model import Path
from kartalint.mutation.mutant import Mutant, Perturbation, Subject, show, with_value, without
from kartalint.mutation.operators.base import Operator


def _status(subject: Subject) -> tuple[Path, dict[str, Any]] | None:
    """(path, statusDefinition) of the root."""
    root = next((ref for ref in subject.components if ref.is_root), None)
    if root is None or not isinstance(root.data.get("statusDefinition"), dict):
        return None
    return (*root.path, "statusDefinition"), root.data["statusDefinition"]


def _mappings(subject: Subject) -> tuple[Path, dict[str, list[Any]]] | None:
    found = _status(subject)
    if found is None:
        return None
    path, status = found
    mappings = status.get("statusMappings")
    if not isinstance(mappings, dict):
        return None
    lists = {k: v for k, v in mappings.items() if isinstance(k, str) and isinstance(v, list)}
    return (*path, "statusMappings"), lists


def _each_matcher(subject: Subject) -> Iterator[tuple[Path, str, list[Any], int, Any]]:
    """(path of statusMappings, status key, its matchers, index, matcher) for every matcher."""
    found = _mappings(subject)
    if found is None:
        return
    path, lists = found
    for key, matchers in lists.items():
        for index, matcher in enumerate(matchers):
            yield path, key, matchers, index, matcher


def describe_matcher(matcher: Any) -> str:
    """A matcher in a few words: ``phase Running``, ``Failed=True``, ``(expr) = true``."""
    matcher = karta.as_dict(matcher)
    parts = []
    if matcher.get("byPhase"):
        parts.append(f"phase {matcher['byPhase']}")
    for entry in karta.as_list(matcher.get("byConditions")):
        entry = karta.as_dict(entry)
        text = str(entry.get("type"))
        if entry.get("status") is not None:
            text += f"={entry['status']}"
        if entry.get("reason") is not None:
            text += f" ({entry['reason']})"
        parts.append(text)
    expression = karta.as_dict(matcher.get("byExpression"))
    if expression:
        text = " ".join(str(expression.get("expression")).split())
        text = text if len(text) <= 48 else text[:47] + "…"
        parts.append(f"({text}) = {expression.get('expectedResult')}")
    return " and ".join(parts) or "{}"


def _read_path(status: dict[str, Any], block: str) -> tuple[str, ...] | None:
    expression = karta.as_dict(status.get(block)).get("path")
    tree, _ = parse_cached(expression) if isinstance(expression, str) else (None, None)
    path = output_path(tree) if tree is not None else None
    return path if path and not any(p.startswith("[") for p in path) else None


def matching(subject: Subject, matchers: Sequence[Any]) -> tuple[Perturbation, ...]:
    """Objects whose phase and conditions are what each matcher asks for (matchers that read an
    expression cannot be met this way and give none)."""
    found = _status(subject)
    if found is None:
        return ()
    status = found[1]
    conditions = karta.as_dict(status.get("conditionsDefinition"))
    names = {key: conditions.get(key) or default for key, default in karta.CONDITION_FIELD_DEFAULTS.items()}
    phase_path, conditions_path = _read_path(status, "phaseDefinition"), _read_path(status, "conditionsDefinition")
    out = []
    for matcher in matchers:
        matcher = karta.as_dict(matcher)
        if matcher.get("byExpression"):
            continue
        steps: list[tuple[str, tuple[str, ...], Any]] = []
        if matcher.get("byPhase"):
            if phase_path is None:
                continue
            steps.append(("set", phase_path, matcher["byPhase"]))
        entries = karta.as_list(matcher.get("byConditions"))
        if entries:
            if conditions_path is None:
                continue
            made = []
            for entry in entries:
                entry = karta.as_dict(entry)
                condition = {names["typeFieldName"]: entry.get("type")}
                for key, name in (("status", "statusFieldName"), ("reason", "reasonFieldName")):
                    if entry.get(key) is not None:
                        condition[names[name]] = entry[key]
                made.append(condition)
            steps.append(("set", conditions_path, made))
        if steps:
            where = " and ".join(f"{path_text(p)} = {show(v)}" for _, p, v in steps)
            out.append(Perturbation(tuple(steps), f"with {where} ({describe_matcher(matcher)})"))
    return tuple(out)


def swap_status_matchers(subject: Subject) -> Iterator[Mutant]:
    """Swap the matchers of two statuses: ``running: [A]``, ``failed: [B]`` -> ``running: [B]``,
    ``failed: [A]``.

    Killed by fixtures whose objects reach either status and whose ``expect`` pins ``statuses``."""
    found = _mappings(subject)
    if found is None:
        return
    path, lists = found
    keys = list(lists)
    for i, first in enumerate(keys):
        for second in keys[i + 1 :]:
            mappings = dict(lists)
            mappings[first], mappings[second] = lists[second], lists[first]
            yield subject.mutant(
                "swap-status-matchers",
                "status",
                (*path, first),
                f"{first}: {_all(lists[first])}; {second}: {_all(lists[second])}",
                f"{first}: {_all(lists[second])}; {second}: {_all(lists[first])}",
                with_value(subject.definition, path, mappings),
                perturbations=matching(subject, [*lists[first], *lists[second]]),
            )


def _all(matchers: Sequence[Any]) -> str:
    return " or ".join(describe_matcher(m) for m in matchers) or "nothing"


def change_phase(subject: Subject) -> Iterator[Mutant]:
    """Change a ``byPhase`` string's case: ``Running`` -> ``running`` (the comparison is exact).

    Killed by a fixture whose object is in that phase and whose ``expect`` pins ``statuses``."""
    for path, key, _matchers, index, matcher in _each_matcher(subject):
        phase = karta.as_dict(matcher).get("byPhase")
        if not isinstance(phase, str) or not phase:
            continue
        changed = phase.lower() if phase != phase.lower() else phase.upper()
        if changed == phase:
            continue
        where = (*path, key, index, "byPhase")
        yield subject.mutant(
            "change-phase",
            "status",
            where,
            f"byPhase: {phase}",
            f"byPhase: {changed}",
            with_value(subject.definition, where, changed),
            perturbations=matching(subject, [matcher]),
        )


FLIPPED = {"True": "False", "False": "True", "Unknown": "True", "true": "false", "false": "true"}


def flip_condition_status(subject: Subject) -> Iterator[Mutant]:
    """Flip a condition's expected ``status``: ``Ready=True`` -> ``Ready=False`` (``Unknown`` -> ``True``).

    Killed by a fixture whose object has that condition and whose ``expect`` pins ``statuses``."""
    for path, key, _matchers, index, matcher in _each_matcher(subject):
        for entry_index, entry in enumerate(karta.as_list(karta.as_dict(matcher).get("byConditions"))):
            status = karta.as_dict(entry).get("status")
            if not isinstance(status, str) or status not in FLIPPED:
                continue
            where = (*path, key, index, "byConditions", entry_index, "status")
            mutated = with_value(subject.definition, where, FLIPPED[status])
            new_matcher = copy.deepcopy(matcher)
            new_matcher["byConditions"][entry_index]["status"] = FLIPPED[status]
            yield subject.mutant(
                "flip-condition-status",
                "status",
                where,
                f"{key}: {describe_matcher(matcher)}",
                f"{key}: {describe_matcher(new_matcher)}",
                mutated,
                perturbations=matching(subject, [matcher, new_matcher]),
            )


def flip_expected_result(subject: Subject) -> Iterator[Mutant]:
    """Flip a ``byExpression``'s ``expectedResult``: ``"true"`` -> ``"false"`` and back.

    Killed by fixtures whose objects make the expression true and false, with ``statuses`` pinned."""
    for path, key, _matchers, index, matcher in _each_matcher(subject):
        expected = karta.as_dict(karta.as_dict(matcher).get("byExpression")).get("expectedResult")
        if not isinstance(expected, str) or expected not in ("true", "false"):
            continue
        where = (*path, key, index, "byExpression", "expectedResult")
        yield subject.mutant(
            "flip-expected-result",
            "status",
            where,
            f"{key}: expectedResult {expected}",
            f"{key}: expectedResult {FLIPPED[expected]}",
            with_value(subject.definition, where, FLIPPED[expected]),
        )


def drop_matcher(subject: Subject) -> Iterator[Mutant]:
    """Drop one matcher of a status (the status itself when it was the only one), or one condition
    of a matcher that requires several.

    Killed by a fixture whose object matches only the dropped matcher (or lacks only the dropped
    condition), with ``statuses`` pinned."""
    for path, key, matchers, index, matcher in _each_matcher(subject):
        where = (*path, key) if len(matchers) == 1 else (*path, key, index)
        yield subject.mutant(
            "drop-matcher",
            "status",
            (*path, key, index),
            f"{key}: {describe_matcher(matcher)}",
            f"{key}: (dropped)",
            without(subject.definition, where),
            perturbations=matching(subject, [matcher]),
        )
        entries = karta.as_list(karta.as_dict(matcher).get("byConditions"))
        if len(entries) < 2:
            continue
        for entry_index in range(len(entries)):
            looser = copy.deepcopy(matcher)
            del looser["byConditions"][entry_index]
            yield subject.mutant(
                "drop-matcher",
                "status",
                (*path, key, index, "byConditions", entry_index),
                f"{key}: {describe_matcher(matcher)}",
                f"{key}: {describe_matcher(looser)}",
                without(subject.definition, (*path, key, index, "byConditions", entry_index)),
                perturbations=matching(subject, [looser]),
            )


OPERATORS = (
    Operator("swap-status-matchers", "status", swap_status_matchers),
    Operator("change-phase", "status", change_phase),
    Operator("flip-condition-status", "status", flip_condition_status),
    Operator("flip-expected-result", "status", flip_expected_result),
    Operator("drop-matcher", "status", drop_matcher),
)
