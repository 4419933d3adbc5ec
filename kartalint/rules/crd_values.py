"""CRD-aware rules on the values an expression compares a field with or falls back to: a ``// D``
fallback where the CRD declares another default (``default-differs-from-crd``), a comparison or a
string test the field's enum makes impossible (``enum-comparison-never-matches``, in every
expression), and such a comparison in a replica count (``scale-comparison-never-true``: the count
silently takes the other branch).

Active only when the CRD of the root group/version/kind is known; the places come from the same
path analysis as ``path-not-in-crd`` (``kartalint.jqlang.paths``), so fields read after
``to_entries``, ``select``, ``if``, ``$var`` and ``getpath`` are judged too.
"""

from __future__ import annotations

import json
import re

from kartalint import karta
from kartalint.jqlang import parse_cached, paths
from kartalint.jqlang.uses import Fallback, StringTest
from kartalint.karta import as_list
from kartalint.model import Rule, Severity
from kartalint.rules import crd_shapes
from kartalint.rules.context import Check, Context

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The ids of the rules this module reports (constants: a misspelt id is an import error).
DEFAULT_DIFFERS_FROM_CRD = "default-differs-from-crd"
ENUM_COMPARISON_NEVER_MATCHES = "enum-comparison-never-matches"
SCALE_COMPARISON_NEVER_TRUE = "scale-comparison-never-true"


# The rules this module reports (the registry finds them; docs/rules.md renders them).
RULES = (
    Rule(
        DEFAULT_DIFFERS_FROM_CRD,
        Severity.WARNING,
        "crd",
        'A `// D` fallback on a field whose CRD declares another default (`.spec.replicas // 2` where the CRD says `default: 1`, or a count whose description says "default 1"): an object from a file and the same object read from the cluster give different values.',
        "fall back to the CRD's default (the message names it)",
        why="The API server fills in the CRD's default on every object it stores; a fallback that differs makes a manifest (describe, fixtures, CI) read another value than the live object (kli, the scheduler), for a field the author never set.",
    ),
    Rule(
        ENUM_COMPARISON_NEVER_MATCHES,
        Severity.WARNING,
        "crd",
        'An expression compares a field with a string its CRD enum does not allow (`== "Suspended"` where the enum says `SUSPENDED`), or tests it with a `test`, `startswith` or `endswith` no allowed value passes, in any expression (status, instance ids, pod paths, `select`, `if`): the test is never true (`!=`: always true).',
        "compare with a value of the enum",
        why="A comparison with a value the field can never hold is always false, so the status it should detect is never reported and the branch it selects is never taken.",
    ),
    Rule(
        SCALE_COMPARISON_NEVER_TRUE,
        Severity.ERROR,
        "crd",
        'A replica count (replicasPath, minReplicasPath, maxReplicasPath) compares a field with a string its CRD enum does not allow (`.spec.mode == "Daemonset"` where the enum says `DaemonSet`): the comparison is never true, so the count always comes from the other branch.',
        "compare with a value of the enum",
        why="A count that never takes the branch it was written for is silently wrong for every object of that kind (often 0 or 1 pods): describe, kli and the scheduler all count what the other branch gives.",
    ),
)

_FLAGS = {"i": re.IGNORECASE, "x": re.VERBOSE, "s": re.DOTALL}


def check(ctx: Context) -> None:
    """Judge every workload expression's fallbacks and string tests against the CRD."""
    version = crd_shapes.root_version(ctx)
    if version is None:
        return
    where = f"{version.kind} {version.group}/{version.version}"
    for jq_field in karta.jq_fields(ctx.data):
        if jq_field.target != "workload" or jq_field.kind == "actionPath":
            continue
        tree, _ = parse_cached(jq_field.expression)
        if tree is None:
            continue
        facts = paths.path_facts(tree)
        for fallback in facts.fallbacks:
            _fallback(ctx, jq_field, fallback, version, where)
        for test in facts.string_tests:
            _string_test(ctx, jq_field, test, version, where)


def _fallback(ctx: Context, jq_field: Any, fallback: Fallback, version: Any, where: str) -> None:
    # lazy: load.crds, only when a CRD is configured (start-up of lint)
    from kartalint.load.crds import lookup, stated_default

    found = lookup(version.schema, fallback.read.path)
    schema = found.schema if found.found and found.schema is not None else {}
    default, stated = found.default if schema else None, None
    if default is None and schema.get("type") == "integer" and isinstance(fallback.value, int):
        default = stated = stated_default(schema)  # "Number of replicas - default 1": the operator fills it in
    if not isinstance(default, (int, float, str, bool)) or _same(default, fallback.value):
        return
    text = jq_field.expression
    left = text[fallback.read.start : fallback.read.end]
    shown, crd = json.dumps(fallback.value), json.dumps(default)
    said = (
        f"the description of it in {where} says it defaults to {crd}, which the operator applies"
        if stated is not None
        else f"{where} declares default {crd} for it, which the API server fills in"
    )
    ctx.report(
        DEFAULT_DIFFERS_FROM_CRD,
        jq_field.path,
        f"{fallback.read.text()} // {shown}: {said}: an object from a file without it reads {shown} here, "
        f"the operator and the cluster {crd}",
        scalar_range=(fallback.start, fallback.end),
        hint=f"write {left} // {crd}",
    )


def _same(default: Any, value: Any) -> bool:
    if isinstance(default, bool) or isinstance(value, bool):
        return default is value
    if isinstance(default, (int, float)) and isinstance(value, (int, float)):
        return float(default) == float(value)
    return str(default) == str(value)  # an int-or-string default of "1" and a fallback of 1


def _string_test(ctx: Context, jq_field: Any, test: StringTest, version: Any, where: str) -> None:
    enum = _enum_of(version, test.path)
    passes = _passes(test, enum) if enum is not None else None
    if passes is None or passes or enum is None:  # `!=` too: a value of the enum can differ from it
        return
    allowed = ", ".join(enum)
    close = [v for v in enum if v.lower() == test.value.lower()]
    hint = f'compare with "{close[0]}"' if close else f"use one of {allowed}"
    field = paths.path_text(test.path)
    if test.op in ("==", "!="):
        what = f'{field} is compared with "{test.value}", which {where} does not allow (one of {allowed})'
    else:
        what = f'{field} | {test.op}("{test.value}") passes none of the values {where} allows ({allowed})'
    span = (test.start, test.end)
    if test.op == "!=":
        ctx.report(
            ENUM_COMPARISON_NEVER_MATCHES,
            jq_field.path,
            f"{what}: the comparison is always true",
            scalar_range=span,
            hint=hint,
        )
    elif jq_field.kind in karta.SCALE_PATHS:
        ctx.report(
            SCALE_COMPARISON_NEVER_TRUE,
            jq_field.path,
            f"{what}: the test is never true, so {jq_field.kind} never takes the branch it selects "
            "and every consumer counts what the other branch gives",
            scalar_range=span,
            hint=hint,
        )
    else:
        ctx.report(
            ENUM_COMPARISON_NEVER_MATCHES,
            jq_field.path,
            f"{what}: the {'comparison' if test.op == '==' else 'test'} is never true",
            scalar_range=span,
            hint=hint,
        )


def _passes(test: StringTest, enum: list[str]) -> bool | None:
    """Whether some value of the enum passes the test (None: kartalint cannot tell)."""
    if test.op in ("==", "!="):
        return test.value in enum
    if test.op == "startswith":
        return any(v.startswith(test.value) for v in enum)
    if test.op == "endswith":
        return any(v.endswith(test.value) for v in enum)
    flags = 0
    for letter in test.flags:
        if letter not in _FLAGS and letter not in "gnpl":
            return None
        flags |= _FLAGS.get(letter, 0)
    try:
        pattern = re.compile(test.value, flags)
    except re.error:  # Oniguruma syntax Python does not read: no judgement
        return None
    return any(pattern.search(v) for v in enum)


def _enum_of(version: Any, path: tuple[str, ...] | None) -> list[str] | None:
    """The enum of the string field at ``path``, when the CRD declares one."""
    if path is None:
        return None
    from kartalint.load.crds import lookup  # lazy: load.crds, only when a CRD is configured (start-up of lint)

    found = lookup(version.schema, path)
    enum = found.schema.get("enum") if found.found and found.schema is not None else None
    if not isinstance(enum, list) or not enum or not all(isinstance(v, str) for v in as_list(enum)):
        return None
    return [str(v) for v in enum]


CHECKS = (Check(tuple(rule.id for rule in RULES), check),)
