"""The status part of a draft (`kartalint new --crd`): which field is the phase, what its values
mean, which condition types the CRD names, and placeholders where the CRD says nothing.

Everything here reads a CRD schema tolerantly: a keyword of the wrong type (a ``description`` that
is not a string, an ``enum`` that is not a list) is ignored, never a crash.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kartalint.karta import as_dict, as_list

# Karta's statuses in the order upstream evaluates them is not the order people read; drafts list
# them as a workload lives: start, run, end, then the rest.
STATUS_ORDER = ("initializing", "running", "completed", "failed", "degraded", "suspending", "suspended", "resuming")

# what a phase value (or a word of it) means; "pending" has no key of its own in Karta: it is
# `initializing`
MEANINGS: dict[str, tuple[str, ...]] = {
    "initializing": (
        "pending",
        "queued",
        "created",
        "new",
        "submitted",
        "initializing",
        "creating",
        "starting",
        "provisioning",
        "waiting",
        "inqueue",
    ),
    "running": ("running", "active", "serving", "ready", "healthy", "available"),
    "completed": ("succeeded", "completed", "complete", "finished", "done", "success", "successful"),
    "failed": ("failed", "error", "errored", "aborted", "failure"),
    "degraded": ("degraded", "unhealthy"),
    "suspending": ("suspending", "stopping", "pausing"),
    "suspended": ("suspended", "stopped", "paused"),
    "resuming": ("resuming",),
}
# condition types accumulate (Kubeflow keeps Created=True while Running): a condition type is a
# status only where it is one while true, so the words of a start are left out
CONDITION_MEANINGS = {k: v for k, v in MEANINGS.items() if k != "initializing"}
# values between two statuses: which one depends on the operator (Completing: still running, or
# done?), so they are TODOs unless the CRD's description says
TRANSITIONAL = {  # value -> what it may mean, for the TODO
    "restarting": "initializing (its pods are recreated) or running",
    "terminating": "failed or completed, or left Undefined while the object goes away",
    "terminated": "completed or failed (it ended without saying how)",
    "completing": "running (pods still finishing) or completed",
    "aborting": "suspending (if aborting is how it suspends) or failed",
    "deleting": "left Undefined (the object goes away)",
    "succeeding": "running (the last pods are finishing) or completed",
    "failing": "running (pods still finishing) or failed",
    "upgrading": "running (still serving) or degraded",
    "updating": "running (still serving) or degraded",
    "draining": "running or suspending",
    "invalidating": "initializing (it starts again) or failed",
    "rerun": "initializing (it starts again)",
    "retrying": "initializing (it starts again) or running",
    "resetting": "initializing (it starts again)",
}
UNDEFINED_WORDS = ("unknown",)
CORE_STATUSES = ("initializing", "running", "completed", "failed")
SUSPEND_FIELDS = ("suspend", "suspended", "stop", "stopped", "pause", "paused")

_SIMPLE_STATUS_PATH = re.compile(r"^\.status(\.[A-Za-z_][A-Za-z0-9_]*)+$")
_PHASE_NAME = re.compile(r"phase|state|status", re.I)
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_BULLET = re.compile(r"^\s*[-*]\s*[\"'`]?([A-Za-z][A-Za-z0-9_-]*)[\"'`]?\s*[:=]\s*(.*)$", re.M)
_COLUMN_TYPE = re.compile(r"""@\.type\s*==\s*["']([^"']+)["']""")
_CANDIDATE = re.compile(r"[\"'`]([A-Za-z][A-Za-z0-9_-]*)[\"'`]|\b([A-Z][A-Za-z0-9_]*)\b")


@dataclass
class PrinterColumn:
    """A printer column of the CRD (``additionalPrinterColumns``): its name, JSONPath and description."""

    name: str
    json_path: str
    description: str


@dataclass
class StatusDraft:
    """The status part of a draft: its ``statusMappings`` and the comments above them (header notes, why of each
    key, the TODOs)."""

    definition: dict[str, Any]
    notes: list[str] = field(default_factory=list)  # header lines ("# Status: ...")
    why: dict[str, list[str]] = field(default_factory=dict)  # comment lines above each statusMappings key
    todo: list[str] = field(default_factory=list)  # comment lines above statusMappings


def text_of(node: Any) -> str:
    """A schema's description as one line ('' when it has none or it is not a string)."""
    value = as_dict(node).get("description")
    return " ".join(value.split()) if isinstance(value, str) else ""


def _raw_description(node: Any) -> str:
    value = as_dict(node).get("description")
    return value if isinstance(value, str) else ""


def _child(node: Any, key: str) -> dict[str, Any]:
    return as_dict(as_dict(as_dict(node).get("properties")).get(key))


def words(value: str) -> list[str]:
    """``SUBMISSION_FAILED`` -> [submission, failed]; ``PodsReady`` -> [pods, ready]."""
    return [w.lower() for w in _WORD.findall(value)]


def meaning(value: str, vocabulary: dict[str, tuple[str, ...]] = MEANINGS) -> tuple[str | None, str]:
    """(the status a value means, why) or (None, why not)."""
    if value == "":
        return ("initializing", "an empty value: not started yet") if "initializing" in vocabulary else (None, "")
    whole = "".join(words(value))
    for status, known in vocabulary.items():
        if whole in known:
            if whole == "aborted":  # stopped by someone: a failure, or how the operator suspends
                return status, f"{value!r} means {status} (TODO: suspended if the operator aborts to suspend)"
            return status, f"{value!r} means {status}"
    if whole in TRANSITIONAL:
        return None, "transitional"
    if whole in UNDEFINED_WORDS:
        return None, "unknown"
    tokens = words(value)
    if any(t in TRANSITIONAL for t in tokens):
        return None, "transitional"
    found = {status for t in tokens for status, known in vocabulary.items() if t in known}
    if len(found) == 1:
        status = found.pop()
        word = next(t for t in tokens if t in vocabulary[status])
        return status, f"{value!r}: the word {word!r} means {status}"
    return None, "ambiguous" if found else "no known word"


def is_value_word(value: str) -> bool:
    """Whether a word of a description can be a status value (it means something to a draft)."""
    whole = "".join(words(value))
    known = {w for ws in MEANINGS.values() for w in ws} | set(TRANSITIONAL) | set(UNDEFINED_WORDS)
    return whole in known or ("_" in value and any(t in known for t in words(value)))


def described_values(*texts: str) -> list[str]:
    """The values a description names: bulleted (``- Running: ...``), quoted, or capitalised
    status words (``It can be either Completed or Failed``)."""
    out: list[str] = []
    for text in texts:
        for match in _BULLET.finditer(text):
            out.append(match.group(1))
        for match in _CANDIDATE.finditer(text):
            value = match.group(1) or match.group(2)
            if is_value_word(value):
                out.append(value)
    return list(dict.fromkeys(out))


def bullet_meaning(value: str, *texts: str) -> str:
    """What a description says about one value (``- Completing: the pods are finishing``)."""
    for text in texts:
        for match in _BULLET.finditer(text):
            if match.group(1) == value:
                return match.group(2).strip()
    return ""


def schema_at_status(schema: dict[str, Any], parts: Sequence[str]) -> dict[str, Any] | None:
    """The schema node at ``parts`` under the CRD's ``status``, or None when the schema does not declare it."""
    node: Any = schema
    for part in parts:
        node = _child(node, part)
        if not node:
            return None
    return node


def _is_plain_string(node: dict[str, Any]) -> bool:
    return node.get("type") == "string" and node.get("format") not in ("date-time", "date", "duration", "byte")


def phase_field(schema: dict[str, Any], columns: Sequence[PrinterColumn]) -> tuple[tuple[str, ...], str, str] | None:
    """(path under the object, why it was chosen, the printer column's description) of the field
    read as the phase: a printer column's status field first, then an enum-typed string anywhere
    under .status (through objects, not lists or maps), then .status.phase/state/status."""
    ranked = []
    for order, column in enumerate(columns):
        if not _SIMPLE_STATUS_PATH.match(column.json_path):
            continue
        parts = tuple(column.json_path.split(".")[1:])
        node = schema_at_status(schema, parts)
        if node is None or not _is_plain_string(node):
            continue
        named = bool(_PHASE_NAME.search(column.name) or _PHASE_NAME.search(parts[-1]))
        if named or isinstance(node.get("enum"), list):
            ranked.append((order, parts, column))
    if ranked:
        _, parts, column = min(ranked, key=lambda r: r[0])
        return parts, f"the printer column {column.name!r} shows it", column.description
    enums: list[tuple[tuple[str, ...], bool]] = []

    def walk(node: dict[str, Any], path: tuple[str, ...], depth: int) -> None:
        if depth > 8:
            return
        for key, child in as_dict(node.get("properties")).items():
            child = as_dict(child)
            if key == "conditions" or not isinstance(key, str):
                continue
            if _is_plain_string(child) and [v for v in as_list(child.get("enum")) if isinstance(v, str)]:
                enums.append(((*path, key), bool(_PHASE_NAME.search(key))))
            elif child.get("type") in (None, "object"):
                walk(child, (*path, key), depth + 1)

    status = _child(schema, "status")
    walk(status, ("status",), 0)
    if enums:
        parts = min(enums, key=lambda e: (not e[1], len(e[0])))[0]
        return parts, "an enum-typed string under .status", ""
    for name in ("phase", "state", "status"):
        node = _child(status, name)
        if _is_plain_string(node):
            return ("status", name), f"a string named {name!r} under .status", ""
    return None


def _conditions(
    schema: dict[str, Any], columns: Sequence[PrinterColumn]
) -> tuple[dict[str, Any] | None, list[str], str, bool]:
    """(conditionsDefinition or None, condition types the CRD names, a note, whether an enum declares them all)."""
    conditions = _child(_child(schema, "status"), "conditions")
    printed = [t for column in columns for t in _COLUMN_TYPE.findall(column.json_path)]
    if conditions.get("type") != "array":
        read = [c for c in columns if c.json_path.startswith(".status.conditions[")]
        if printed and read:  # no status schema, but the printer columns read its conditions (KAITO, OME)
            assumed = {
                "path": ".status.conditions // []",
                "typeFieldName": "type",
                "statusFieldName": "status",
                "reasonFieldName": "reason",
                "messageFieldName": "message",
            }
            note = (
                f"conditions read from .status.conditions: the CRD declares no such field, but its printer column "
                f"{read[0].name!r} reads {read[0].json_path} (the standard condition fields are assumed)"
            )
            return assumed, list(dict.fromkeys(printed)), note, False
        return None, [], "", False
    item = as_dict(conditions.get("items"))
    fields = {k: as_dict(v) for k, v in as_dict(item.get("properties")).items() if isinstance(k, str)}
    strings = [k for k, v in fields.items() if v.get("type") == "string"]
    type_field = "type" if "type" in strings else next((k for k in strings if k.lower().endswith("type")), None)
    if type_field is None:
        listed = ", ".join(sorted(fields)) or "none declared"
        return (
            None,
            [],
            f".status.conditions has no condition type field (its items have: {listed}): "
            "not read as conditions (byConditions matches by type)",
            False,
        )
    definition: dict[str, Any] = {"path": ".status.conditions // []", "typeFieldName": type_field}
    status_field = "status" if "status" in strings else next((k for k in strings if k.lower().endswith("status")), None)
    status_field = status_field or ("state" if "state" in strings else None)
    if status_field:
        definition["statusFieldName"] = status_field
    for key, name in (("reasonFieldName", "reason"), ("messageFieldName", "message")):
        if name in strings:
            definition[key] = name
    named = [t for t in as_list(fields[type_field].get("enum")) if isinstance(t, str)]
    described = [
        m.group(1)
        for text in (_raw_description(conditions), _raw_description(fields[type_field]))
        for m in _BULLET.finditer(text)
    ]
    return definition, list(dict.fromkeys(named + described + printed)), "", bool(named)


def draft_status(
    schema: dict[str, Any],
    columns: Sequence[PrinterColumn] = (),
    suspends: Sequence[tuple[str, str]] = (),
    counters: tuple[str, str] | None = None,
) -> StatusDraft:
    """The root's statusDefinition: mappings from what the CRD names, placeholders for the rest.
    ``suspends``: what stops the pods (``crd_workload.suspend_fields``); ``counters``: (ready,
    desired) of a status that counts, read when it has neither a phase nor conditions."""
    schema = as_dict(schema)
    definition: dict[str, Any] = {}
    mappings: dict[str, list[dict[str, Any]]] = {}
    why: dict[str, list[str]] = {}
    draft = StatusDraft(definition, why=why)
    suspends = list(suspends)

    def add(status: str, matcher: dict[str, Any], reason: str) -> None:
        mappings.setdefault(status, []).append(matcher)
        why.setdefault(status, []).append(reason)

    conditions, types, note, declared = _conditions(schema, columns)
    if note:
        draft.notes.append(note)
    if conditions is not None:
        definition["conditionsDefinition"] = conditions
    phase = phase_field(schema, columns)
    complete = False  # the CRD declares every value (an enum): statuses without one have none
    values: list[str] = []
    if phase is not None:
        parts, chosen, column_text = phase
        path = "." + ".".join(parts)
        definition["phaseDefinition"] = {"path": path}
        node = schema_at_status(schema, parts) or {}
        enum = [v for v in as_list(node.get("enum")) if isinstance(v, str)]
        texts = (_raw_description(node), column_text)
        values = enum or described_values(*texts)
        complete = bool(enum)
        origin = "its enum" if enum else "its description" if values else ""
        draft.notes.append(f"{path} read as the phase ({chosen})" + (f"; values from {origin}" if origin else ""))
        left = []
        for value in values:
            status, reason = meaning(value)
            said = bullet_meaning(value, *texts)
            if status is None and said and reason == "transitional":
                status, reason = meaning(said.split(".")[0])
                reason = f"the CRD says {value}: {said[:80]!r}" if status else reason
            if status is None:
                left.append((value, reason))
                continue
            add(status, {"byPhase": value}, f"{value or '(empty)'}: {reason}")
        for value, reason in left:
            if reason == "transitional":
                hint = next((TRANSITIONAL[w] for w in [*words(value), "".join(words(value))] if w in TRANSITIONAL), "")
                draft.todo.append(f"TODO: {value} is between two statuses: {hint}? Map it as the operator's docs say")
            elif reason == "unknown":
                draft.todo.append(f"{value}: left Undefined (it means nothing is known)")
            else:
                draft.todo.append(f"TODO: map {value} to a status if it means one ({reason})")
        if not values:
            draft.notes.append(f"TODO: the CRD names no value of {path}: replace each TODO-<status> with the values")
    for kind in types:
        status, reason = meaning(kind, CONDITION_MEANINGS)
        if status is None:
            draft.todo.append(f"TODO: condition {kind}: map it to a status if it means one")
            continue
        entry: dict[str, Any] = {"type": kind}
        if conditions is not None and "statusFieldName" in conditions:
            entry["status"] = "True"
        add(status, {"byConditions": [entry]}, f"condition {kind}=True: {reason} (the CRD names this type)")
    if conditions is not None:
        draft.notes.append(
            f"condition types named by the CRD: {', '.join(types)}"
            if types
            else "TODO: the CRD does not name its condition types; add byConditions matchers for the ones the controller writes"
        )
    complete = complete or (phase is None and declared)  # an enum of condition types names them all
    if phase is None and conditions is None and counters is not None:
        ready, desired = counters
        want = desired if desired.startswith("(") else f"({desired} // 0)"
        for status, test, said in (
            ("initializing", "<", f"fewer ready ({ready}) than wanted ({desired})"),
            ("running", ">=", f"as many ready ({ready}) as wanted ({desired})"),
        ):
            expression = f"{want} > 0 and ({ready} // 0) {test} {want}"
            add(
                status,
                {"byExpression": {"expression": expression, "expectedResult": "true"}},
                f"the status only counts: {said} means {status}",
            )
        draft.notes.append(
            f"no phase and no conditions: {ready} against {desired} (as the catalog's Deployment reads its counts)"
        )
    if phase is not None and not values:
        kind = "byPhase"
    elif phase is None and conditions is not None:
        kind = "byConditions"
    else:
        kind = "byExpression"
    _placeholders(draft, mappings, kind, conditions, complete, suspends)
    ordered = {k: mappings[k] for k in STATUS_ORDER if k in mappings}
    definition["statusMappings"] = ordered
    draft.why = {k: why[k] for k in ordered if k in why}
    return draft


def _placeholders(
    draft: StatusDraft,
    mappings: dict[str, list[dict[str, Any]]],
    kind: str,
    conditions: dict[str, Any] | None,
    complete: bool,
    suspends: list[tuple[str, str]],
) -> None:
    """A `TODO-<status>` matcher for every core status nothing maps (and `suspended` when the CRD
    has a suspend field): `draft-placeholder` keeps `lint --strict` failing until each is
    replaced or deleted. A declared enum is complete: its unmapped statuses get none."""
    wanted = [] if complete else list(CORE_STATUSES)
    if suspends:
        wanted.append("suspended")
    for status in wanted:
        if status in mappings:
            continue
        placeholder = f"TODO-{status}"
        if kind == "byPhase":
            matcher: dict[str, Any] = {"byPhase": placeholder}
            how = "the phase value(s) written when it is " + status
        elif kind == "byConditions" and conditions is not None:
            entry: dict[str, Any] = {"type": placeholder}
            if "statusFieldName" in conditions:
                entry["status"] = "True"
            matcher = {"byConditions": [entry]}
            how = "the condition type that is True when it is " + status
        else:
            matcher = {"byExpression": {"expression": f'"{placeholder}"', "expectedResult": "true"}}
            how = "an expression that is true when it is " + status
        if status == "suspended" and suspends:
            how += f" (the CRD says {', '.join(what for what, _ in suspends)} suspends it)"
        mappings[status] = [matcher]
        draft.why[status] = [f"TODO: placeholder: write {how}, or delete it if the workload never is"]
