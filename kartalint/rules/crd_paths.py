"""CRD-aware rules: every path a workload expression reads must exist in the CRD schema of the
definition's root kind (``path-not-in-crd``); arithmetic, iteration and object keys on fields that
may be absent need a default or a test (``crd-optional-arithmetic``, with the CRD's declared
default in the hint, ``crd-optional-iteration``, ``crd-optional-object-key``); matchers must be
able to match (``phase-never-matches``, ``condition-type-not-in-crd``). What pod paths, condition
field names and suspend values point at is ``crd_shapes``'; the values compared with and fallen
back to, ``crd_values``'.

Active only when the CRD of the root group/version/kind is known (``--crd`` or ``crds:`` in the
configuration). Where the CRD proves a field present (required), the generic
``scale-path-not-null-safe`` finding is withdrawn; where the field is optional the CRD-aware
finding replaces it.
"""

from __future__ import annotations

from kartalint import karta
from kartalint.jqlang import parse_cached, paths
from kartalint.jqlang.analysis import OBJECT_KEY_NOT_STRING
from kartalint.jqlang.segments import path_before
from kartalint.karta import as_list
from kartalint.model import Rule, Severity
from kartalint.rules import crd_shapes
from kartalint.rules.context import Check, Context

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The ids of the rules this module reports (constants: a misspelt id is an import error).
PATH_NOT_IN_CRD = "path-not-in-crd"
CRD_OPTIONAL_ARITHMETIC = "crd-optional-arithmetic"
CRD_OPTIONAL_ITERATION = "crd-optional-iteration"
PATH_NOT_FOLLOWED = "path-not-followed"
CRD_OPTIONAL_OBJECT_KEY = "crd-optional-object-key"
CRD_FREE_FORM = "crd-free-form"
PHASE_NEVER_MATCHES = "phase-never-matches"
CONDITION_TYPE_NOT_IN_CRD = "condition-type-not-in-crd"


# The rules this module reports (collected by kartalint.rules.registry; docs/rules.md renders them).
RULES = (
    Rule(
        PATH_NOT_IN_CRD,
        Severity.ERROR,
        "crd",
        "An expression reads a field that the CRD of the root kind does not define (a typo, or another version's field): it always reads null.",
        "use the field name from the CRD",
        why="jq reads a missing field as null without an error, so a typo or another version's field silently reads nothing.",
    ),
    Rule(
        CRD_OPTIONAL_ARITHMETIC,
        Severity.WARNING,
        "crd",
        "An expression does arithmetic (`-`, `*`, `/`, `%`) on a field the CRD marks optional (or under an optional parent), or on the `add` of such fields (`map(.replicas) | add`), without a `//` default or a test; fields read after `to_entries`, `keys[] as $k`, `map` and `[]?` are followed, `length` is never null.",
        "add the default the CRD declares, e.g. `(.parallelism // 1)`",
        why="The CRD marks the field optional: objects without it make jq fail on null arithmetic, and the extraction (or the status match) fails.",
    ),
    Rule(
        CRD_OPTIONAL_ITERATION,
        Severity.WARNING,
        "crd",
        "An expression iterates (`[]`) a list the CRD marks optional, or applies a builtin that fails on null (`to_entries`, `keys`, `map`, `with_entries`, `add`, `any`, `sort`...) to an optional field, without `?`, `try`, a `//` default or a test: objects without the field make jq fail (`length` does not: it gives 0).",
        "write `[]?` (nothing is iterated when the list is absent), or default it: `(.list // [])[]`, `(.map // {}) | to_entries`",
        why="jq cannot iterate over null and null has no keys: an object that omits an optional list or map (or one of its parents) makes the whole expression fail, and the extraction with it.",
    ),
    Rule(
        PATH_NOT_FOLLOWED,
        Severity.INFO,
        "crd",
        "An expression passes its input through a construct that builds new values (an object or a list it builds, `keys`, arithmetic), so the fields it reads after that cannot be checked against the CRD (reads after `to_entries`, `with_entries`, `getpath` with a literal path, `//` defaults and `if` branches are followed).",
        "nothing to fix; check those fields by hand, or read them before the construct",
        why="After a construct that builds new values the reads cannot be mapped to the CRD's fields, so a typo there is not found by path-not-in-crd.",
    ),
    Rule(
        CRD_OPTIONAL_OBJECT_KEY,
        Severity.WARNING,
        "crd",
        "An object key is computed from a field the CRD marks optional (`{(.gpu.name): ...}` where `gpu` is optional): on an object without it the key is null, and jq fails.",
        'give the key a default (`(.gpu.name // "none")`) or keep the object for objects that have it (`select(.gpu != null)`)',
        why="jq refuses a null object key ('Cannot use null (null) as object key'): every object that omits the optional field makes the whole expression fail.",
    ),
    Rule(
        CRD_FREE_FORM,
        Severity.INFO,
        "crd",
        "An expression reads into a subtree the CRD declares free-form (`x-kubernetes-preserve-unknown-fields` without properties, or an object without fields): paths under it are not checked.",
        "nothing to fix; fixtures with real objects are the check there",
        why="A free-form subtree declares no fields, so nothing under it can be checked against the CRD; fixtures with real objects are the check.",
    ),
    Rule(
        PHASE_NEVER_MATCHES,
        Severity.WARNING,
        "crd",
        "A byPhase value is not in the enum the CRD declares for the phase field (`SUCCEEDED` where the operator writes `FINISHED`): it never matches.",
        "use a value of the enum (the hint names the closest)",
        why="The CRD lists every value the phase field can take; a byPhase outside that list (a different case, another operator's word) never matches.",
    ),
    Rule(
        CONDITION_TYPE_NOT_IN_CRD,
        Severity.WARNING,
        "crd",
        "A byConditions type is not among the condition types the CRD declares (an enum on the conditions' type, or printer columns): it never matches.",
        "use a condition type the operator writes",
        why="When the CRD declares the condition types, a type outside them is never written by the operator, so the matcher never fires.",
    ),
)


def check(ctx: Context) -> None:
    """Run the rules; the (field path, offset) places where the generic null-safety finding is
    superseded go to ``ctx.superseded`` (the jq checks run after this one)."""
    version = crd_shapes.root_version(ctx)
    if version is None:
        return
    from kartalint.load.crds import lookup  # lazy: load.crds, only when a CRD is configured (start-up of lint)

    root = karta.as_dict(karta.structure(ctx.data).get("rootComponent"))
    superseded = ctx.superseded
    where = f"{version.kind} {version.group}/{version.version}"
    free_forms: set[tuple] = set()  # reported once per definition
    for jq_field in karta.jq_fields(ctx.data):
        if jq_field.target != "workload":
            continue
        tree, _ = parse_cached(jq_field.expression)
        if tree is None:
            continue
        reported = set()
        facts = paths.path_facts(tree)
        for place in facts.not_followed:
            ctx.report(
                PATH_NOT_FOLLOWED,
                jq_field.path,
                f"the fields read after {place.construct} cannot be related to {where}: they are not checked against the CRD",
                scalar_range=(place.start, place.end),
            )
        for read in facts.reads:
            result = lookup(version.schema, read.path)
            if result.free_form is not None and result.free_form not in free_forms:
                free_forms.add(result.free_form)
                subtree = paths.path_text(result.free_form)
                ctx.report(
                    CRD_FREE_FORM,
                    jq_field.path,
                    f"{subtree} is free-form in {where} (no declared fields): paths under it are not checked",
                    scalar_range=(read.start, read.end),
                )
            if result.found or (read.path[: result_depth(result)], result.missing) in reported:
                continue
            reported.add((read.path[: result_depth(result)], result.missing))
            parent = paths.path_text(result.at)
            hint = (
                f"did you mean {' or '.join(repr(s) for s in result.suggestions)}?"
                if result.suggestions
                else f"check the field names of {where} (kubectl explain {version.plural}.{'.'.join(p for p in result.at if not p.startswith('['))})"
            )
            ctx.report(
                PATH_NOT_IN_CRD,
                jq_field.path,
                f"{read.text()}: {where} has no field '{result.missing}' under {parent}; the expression always reads null here",
                scalar_range=(read.start, read.end),
                hint=hint,
            )
        _iterations(ctx, jq_field, tree, facts, version, where)
        _object_keys(ctx, jq_field, facts, version, where)
        _arithmetic(ctx, jq_field, facts, version, where, superseded)
    _matchers(ctx, root, version, where)


def _arithmetic(ctx: Context, jq_field: Any, facts: Any, version: Any, where: str, superseded: set) -> None:
    """crd-optional-arithmetic: ``-``, ``*``, ``/``, ``%`` on a field that may be absent (optional in
    the CRD, or under an optional parent), in any expression read from the workload."""
    # lazy: load.crds, only when a CRD is configured (start-up of lint)
    from kartalint.load.crds import lookup, may_be_absent

    for operator, read in [*facts.arithmetic, *facts.sums]:
        result = lookup(version.schema, read.path)
        if not result.found or result.schema is None:
            continue
        superseded.add((tuple(jq_field.path), read.start))
        absent = may_be_absent(version.schema, read.path, read.tested_depth)
        if absent is None:
            continue
        default = (
            result.default
            if isinstance(result.default, (int, float)) and not isinstance(result.default, bool)
            else None
        )
        scale = jq_field.kind in karta.SCALE_PATHS
        text = jq_field.expression[read.start : read.end]
        summed = (operator, read) in facts.sums
        if summed:
            note = f"{paths.path_text(absent)} is optional, and add gives null when no element has it"
        elif absent != read.path:
            note = f"{paths.path_text(absent)} is optional"
        elif default is not None:
            note = f"the CRD declares default {default}, which the API server fills in, but objects from files and fixtures may omit it"
        else:
            note = "the CRD does not require it"
        ctx.report(
            CRD_OPTIONAL_ARITHMETIC,
            jq_field.path,
            f"'{operator.value}' on {'the sum of ' if summed else ''}{read.text()}, optional in {where} ({note}): the {jq_field.kind} "
            f"{'extraction' if scale else 'evaluation'} fails without it",
            scalar_range=(read.start, read.end),
            # a count absent from a spec means one; from a status, none yet
            hint=f"write ({text} // {default if default is not None else 1 if scale else 0})",
        )


def _object_keys(ctx: Context, jq_field: Any, facts: Any, version: Any, where: str) -> None:
    """A computed object key read from a field of another type than string (always a jq error), or
    from one that may be absent (a jq error on every object without it)."""
    from kartalint.load.crds import lookup, may_be_absent

    for read in facts.object_keys:
        result = lookup(version.schema, read.path)
        if not result.found or result.schema is None:
            continue
        kind = result.schema.get("type")
        if kind in ("integer", "number", "boolean", "object", "array") and not result.schema.get(
            "x-kubernetes-int-or-string"
        ):
            ctx.report(
                OBJECT_KEY_NOT_STRING,
                jq_field.path,
                f"{read.text()} is {'an' if kind in ('integer', 'object', 'array') else 'a'} {kind} in {where}: "
                f"jq cannot use it as an object key (only strings are keys)",
                scalar_range=(read.start, read.end),
                hint=f"convert it: ({jq_field.expression[read.start : read.end]} | tostring)",
            )
            continue
        absent = None if read.guarded else may_be_absent(version.schema, read.path, read.tested_depth)
        if absent is None:
            continue
        text = jq_field.expression[read.start : read.end]
        ctx.report(
            CRD_OPTIONAL_OBJECT_KEY,
            jq_field.path,
            f"{read.text()} is used as an object key, but {paths.path_text(absent)} is optional in {where}: "
            "on an object without it the key is null and jq fails",
            scalar_range=(read.start, read.end),
            hint=f'give the key a default: ({text} // "none"), or select(... != null) first',
        )


def _iterations(ctx: Context, jq_field: Any, tree: Any, facts: Any, version: Any, where: str) -> None:
    """crd-optional-iteration: ``[]`` on a list that may be absent (optional in the CRD, or under an
    optional parent after the last list iterated), or a builtin that fails on null (``to_entries``,
    ``keys``, ``map``, ``add``...) on such a field, not protected by ``?``, ``try``, a ``//``
    default or a test for non-null."""
    # lazy: load.crds, only when a CRD is configured (start-up of lint)
    from kartalint.load.crds import lookup, may_be_absent

    reported: set[tuple[str, ...]] = set()
    for node in _unprotected_iterations(tree):
        if not jq_field.expression[: node.end].rstrip().endswith("]"):
            continue
        for read in facts.reads:
            if not (read.start <= node.start and node.end <= read.end):
                continue
            full = path_before(jq_field.expression, read, node.end)
            if not full or full[-1] != "[]":
                continue
            absent = may_be_absent(version.schema, full[:-1], read.tested_depth)
            if absent is None:
                continue
            bracket = jq_field.expression.rindex("[", 0, node.end)
            ctx.report(
                CRD_OPTIONAL_ITERATION,
                jq_field.path,
                f"{paths.path_text(full)}: {paths.path_text(absent)} is optional in {where}; "
                "iterating it fails on an object without it",
                scalar_range=(bracket, node.end),
                hint="write []? here (nothing is iterated when the list is absent)",
            )
            reported.add(full[:-1])
            break
    for use in facts.consumed:
        absent = None if use.read.guarded else may_be_absent(version.schema, use.read.path, use.read.tested_depth)
        if absent is None or use.read.path in reported:
            continue
        reported.add(use.read.path)
        found = lookup(version.schema, use.read.path)
        empty = "[]" if found.schema is not None and found.schema.get("type") == "array" else "{}"
        what = (
            "has no keys"
            if use.name in ("to_entries", "keys", "keys_unsorted", "with_entries")
            else "cannot be iterated"
        )
        ctx.report(
            CRD_OPTIONAL_ITERATION,
            jq_field.path,
            f"{use.read.text()} | {use.name}: {paths.path_text(absent)} is optional in {where}; "
            f"{use.name} fails on an object without it (null {what})",
            scalar_range=(use.read.start, use.read.end),
            hint=f"give it a default first, ({use.read.text()} // {empty}) | {use.name}, or iterate with []? "
            "(nothing is iterated when it is absent)",
        )


def _unprotected_iterations(tree: Any) -> list[Any]:
    """``[]`` nodes not under a postfix ``?``, in no ``try`` body and not applied to a ``//``
    default (``(X // [])[]``, ``X // [] | .[]``)."""
    out = []
    # (node, protected, the expression whose output is the node's input: pipes pass the left side's)
    stack: list[tuple[Any, bool, Any]] = [(tree, False, None)]
    while stack:
        node, protected, source = stack.pop()
        if node.kind == "iterate" and not protected:
            target = node.children[0] if node.children else None
            if not _is_default(target if target is not None else source):
                out.append(node)
        for index, child in enumerate(node.children):
            if child is None:
                continue
            guarded = protected or node.kind == "optional" or (node.kind == "try" and index == 0)
            piped = node.children[0] if node.kind == "binop" and node.value == "|" and index == 1 else source
            stack.append((child, guarded, piped))
    return out


def _is_default(node: Any) -> bool:
    while node is not None and node.kind == "paren":
        node = node.children[0]
    return node is not None and node.kind == "binop" and node.value == "//"


def _enum_of(version: Any, path: tuple[str, ...] | None) -> list[str] | None:
    if path is None:
        return None
    from kartalint.load.crds import lookup  # lazy: load.crds, only when a CRD is configured (start-up of lint)

    found = lookup(version.schema, path)
    enum = found.schema.get("enum") if found.found and found.schema is not None else None
    return [str(v) for v in enum] if isinstance(enum, list) and enum else None


def _matchers(ctx: Context, root: dict, version: Any, where: str) -> None:
    """Status matchers that can never match an object valid for the CRD: byPhase values outside the
    phase field's enum, byConditions types the CRD does not declare (when it declares them); the
    comparisons of byExpression are ``crd_values``'."""
    status = karta.as_dict(root.get("statusDefinition"))
    spath = ("spec", "structureDefinition", "rootComponent", "statusDefinition")
    phase_expr = karta.as_dict(status.get("phaseDefinition")).get("path")
    phase_tree = parse_cached(phase_expr)[0] if isinstance(phase_expr, str) else None
    phase_path = paths.output_path(phase_tree) if phase_tree is not None else None
    phase_enum = _enum_of(version, phase_path)
    cond_expr = karta.as_dict(status.get("conditionsDefinition")).get("path")
    cond_tree = parse_cached(cond_expr)[0] if isinstance(cond_expr, str) else None
    cond_path = paths.output_path(cond_tree) if cond_tree is not None else None
    # lazy: load.crds, only when a CRD is configured (start-up of lint)
    from kartalint.load.crds import declared_condition_types

    declared = declared_condition_types(version, cond_path)
    for key, matchers in karta.as_dict(status.get("statusMappings")).items():
        for mi, matcher in enumerate(matchers if isinstance(matchers, list) else []):
            matcher = karta.as_dict(matcher)
            mpath = (*spath, "statusMappings", key, mi)
            phase = matcher.get("byPhase")
            if isinstance(phase, str) and phase_enum is not None and phase not in phase_enum:
                close = [v for v in phase_enum if v.lower() == phase.lower()]
                ctx.report(
                    PHASE_NEVER_MATCHES,
                    (*mpath, "byPhase"),
                    f"byPhase '{phase}' never matches: {paths.path_text(phase_path or ())} in {where} is one of {', '.join(phase_enum)}",
                    hint=f"write byPhase: {close[0]}" if close else f"use one of {', '.join(phase_enum)}",
                )
            for ci, entry in enumerate(as_list(matcher.get("byConditions"))):
                kind = karta.as_dict(entry).get("type")
                if isinstance(kind, str) and declared and kind not in declared:
                    ctx.report(
                        CONDITION_TYPE_NOT_IN_CRD,
                        (*mpath, "byConditions", ci, "type"),
                        f"condition type '{kind}' is not among the types {where} declares ({', '.join(declared)}): it never matches",
                        hint=f"use one of {', '.join(declared)}",
                    )


def result_depth(result: Any) -> int:
    """How many path parts of a read a CRD lookup got through (its ``at`` and the missing one)."""
    return len(result.at) + 1


# The jq rule object-key-not-string fires here too when the CRD types a key as a number or object.
CHECKS = (Check((*(rule.id for rule in RULES), OBJECT_KEY_NOT_STRING), check),)
