"""kartalint's own rules for definitions upstream accepts but that misbehave (spec §2.1 "NOT checked")."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kartalint import karta
from kartalint.karta import as_dict, as_list
from kartalint.model import Rule, Severity
from kartalint.rules.context import Check, Context

# The ids of the rules this module reports (constants: a misspelt id is an import error).
CONDITIONS_WITHOUT_DEFINITION = "conditions-without-definition"
PHASE_WITHOUT_DEFINITION = "phase-without-definition"
CONDITION_WITHOUT_EXPECTATION = "condition-without-expectation"
CONDITION_FIELD_NAME_MISSING = "condition-field-name-missing"
EMPTY_SCALE_DEFINITION = "empty-scale-definition"
EMPTY_FRAGMENTED_SPEC = "empty-fragmented-spec"
METADATA_WITHOUT_POD_SPEC = "metadata-without-pod-spec"
DUPLICATE_ADDITIONAL_KIND = "duplicate-additional-kind"
ADDITIONAL_KIND_OVERLAPS_COMPONENT = "additional-kind-overlaps-component"
CHILD_STATUS_DEFINITION = "child-status-definition"
CHILD_INCOMPLETE_KIND = "child-incomplete-kind"
ALWAYS_MATCHING_STATUS = "always-matching-status"
CONDITION_STATUS_NEVER_MATCHES = "condition-status-never-matches"
EXPECTED_RESULT_NEVER_MATCHES = "expected-result-never-matches"


# The rules this module reports (collected by kartalint.rules.registry; docs/rules.md renders them).
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
        EMPTY_SCALE_DEFINITION,
        Severity.ERROR,
        "practice",
        "scaleDefinition is empty, so replica extraction always fails (0 results for 1 instance).",
        "set replicasPath (or remove scaleDefinition)",
        why="An empty scaleDefinition yields no replica count, so replica extraction fails for every object.",
    ),
    Rule(
        EMPTY_FRAGMENTED_SPEC,
        Severity.ERROR,
        "practice",
        "fragmentedPodSpecDefinition is empty, so pod spec extraction always fails.",
        "set at least one fragmented path, or remove the block",
        why="An empty fragmentedPodSpecDefinition locates nothing, so pod spec extraction fails for every object.",
    ),
    Rule(
        METADATA_WITHOUT_POD_SPEC,
        Severity.WARNING,
        "practice",
        "metadataPath is meant to be used with podSpecPath only.",
        "use metadataPath together with podSpecPath",
        why="metadataPath completes a podSpecPath (a bare pod spec); a pod template already carries its metadata.",
    ),
    Rule(
        DUPLICATE_ADDITIONAL_KIND,
        Severity.WARNING,
        "practice",
        "additionalChildKinds repeats a group/version/kind.",
        "remove the duplicate entry",
        why="A repeated entry adds nothing and hides a missing one (usually a copy that was meant to be edited).",
    ),
    Rule(
        ADDITIONAL_KIND_OVERLAPS_COMPONENT,
        Severity.WARNING,
        "practice",
        "additionalChildKinds repeats a kind already used by a component.",
        "remove the entry; components' kinds are already known",
        why="Components' kinds are already part of the workload; listing one again as additional is noise that can hide a missing kind.",
    ),
    Rule(
        CHILD_STATUS_DEFINITION,
        Severity.WARNING,
        "practice",
        "statusDefinition on a child component is ignored by every consumer.",
        "move the status definition to the root component",
        why="Only the root's statusDefinition is read by consumers; a child's is ignored, so what it says never shows.",
    ),
    Rule(
        CHILD_INCOMPLETE_KIND,
        Severity.WARNING,
        "practice",
        "A child component's kind has an empty version or kind.",
        "fill in kind.version and kind.kind, or remove kind for a logical component",
        why="A child kind with an empty version or kind matches no object, so the component never finds its resources.",
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


# -- components ---------------------------------------------------------------------------------


def child_status_definition(ctx: Context) -> None:
    """A statusDefinition on a child component, which every consumer ignores."""
    for comp in karta.components(ctx.data):
        if not comp.is_root and comp.data.get("statusDefinition") is not None:
            ctx.report(
                CHILD_STATUS_DEFINITION,
                (*comp.path, "statusDefinition"),
                f"statusDefinition on child component '{comp.data.get('name')}' is ignored: only the root's is used",
                key=True,
            )


def child_incomplete_kind(ctx: Context) -> None:
    """A child component's kind with an empty version or kind."""
    for comp in karta.components(ctx.data):
        gvk = karta.gvk_of(comp.data["kind"]) if isinstance(comp.data.get("kind"), dict) else None
        if not comp.is_root and gvk is not None and (not gvk[1] or not gvk[2]):
            ctx.report(
                CHILD_INCOMPLETE_KIND,
                (*comp.path, "kind"),
                f"kind of child component '{comp.data.get('name')}' has an empty version or kind",
                key=True,
            )


def empty_scale_definition(ctx: Context) -> None:
    """A scaleDefinition without a path: replica extraction always fails."""
    for comp in karta.components(ctx.data):
        scale = comp.data.get("scaleDefinition")
        if isinstance(scale, dict) and not any(
            isinstance(scale.get(k), str) and scale.get(k) for k in karta.SCALE_PATHS
        ):
            ctx.report(
                EMPTY_SCALE_DEFINITION,
                (*comp.path, "scaleDefinition"),
                f"scaleDefinition of '{comp.data.get('name')}' has no path: replica extraction always fails "
                "(instance ids count (1) does not match results count (0))",
                key=True,
            )


def empty_fragmented_spec(ctx: Context) -> None:
    """A fragmentedPodSpecDefinition without a path: pod spec extraction always fails."""
    for comp in karta.components(ctx.data):
        frag = as_dict(comp.data.get("specDefinition")).get("fragmentedPodSpecDefinition")
        if isinstance(frag, dict) and not any(
            isinstance(frag.get(k), str) and frag.get(k) for k in karta.FRAGMENTED_PATHS
        ):
            ctx.report(
                EMPTY_FRAGMENTED_SPEC,
                (*comp.path, "specDefinition", "fragmentedPodSpecDefinition"),
                f"fragmentedPodSpecDefinition of '{comp.data.get('name')}' has no path: pod spec extraction always fails",
                key=True,
            )


def metadata_without_pod_spec(ctx: Context) -> None:
    """A metadataPath without the podSpecPath it completes."""
    for comp in karta.components(ctx.data):
        spec = as_dict(comp.data.get("specDefinition"))
        if spec.get("metadataPath") and not spec.get("podSpecPath"):
            ctx.report(
                METADATA_WITHOUT_POD_SPEC,
                (*comp.path, "specDefinition", "metadataPath"),
                "metadataPath is only meaningful together with podSpecPath",
                key=True,
            )


# -- status matchers ------------------------------------------------------------------------------


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
_BOOLEAN_OPERATORS = {"==", "!=", "<", "<=", ">", ">=", "and", "or"}
_BOOLEAN_CALLS = {
    "not",
    "test",
    "any",
    "all",
    "has",
    "in",
    "inside",
    "contains",
    "startswith",
    "endswith",
    "isinfinite",
    "isnan",
    "isnormal",
    "isvalid",
    "IN",
    "ascii",
    "isempty",
}


def expected_result_never_matches(ctx: Context) -> None:
    """``expectedResult`` a boolean expression can never produce (its result prints as true/false)."""
    for _, _, matcher, mpath in _matchers(ctx):
        _expected_result(ctx, as_dict(matcher), mpath)


def _expected_result(ctx: Context, matcher: dict, mpath: tuple) -> None:
    from kartalint.jqlang import parse_cached

    by_expression = as_dict(matcher.get("byExpression"))
    expression, expected = by_expression.get("expression"), by_expression.get("expectedResult")
    if not isinstance(expression, str) or not isinstance(expected, str) or expected in ("true", "false"):
        return
    tree, _ = parse_cached(expression)
    last = tree
    while last is not None and last.kind in ("binop", "paren") and (last.kind == "paren" or last.value == "|"):
        last = last.children[-1] if last.kind == "binop" else last.children[0]
    boolean = last is not None and (
        (last.kind == "binop" and last.value in _BOOLEAN_OPERATORS)
        or (last.kind == "call" and last.value in _BOOLEAN_CALLS)
        or (last.kind == "literal" and isinstance(last.value, bool))
    )
    if boolean:
        ctx.report(
            EXPECTED_RESULT_NEVER_MATCHES,
            (*mpath, "byExpression", "expectedResult"),
            f"the expression ends in a test, so its result is true or false; expectedResult '{expected}' never matches",
            hint='write expectedResult: "true" (or "false")',
        )


def _additional_kinds(ctx: Context) -> Iterator[tuple[tuple[str, str, str], tuple]]:
    """Each group/version/kind of additionalChildKinds, with its path."""
    kinds = karta.structure(ctx.data).get("additionalChildKinds")
    for i, entry in enumerate(kinds if isinstance(kinds, list) else []):
        gvk = karta.gvk_of(entry)
        if gvk is not None:
            yield gvk, ("spec", "structureDefinition", "additionalChildKinds", i)


def duplicate_additional_kind(ctx: Context) -> None:
    """An additionalChildKinds entry that repeats another."""
    seen: dict[tuple[str, str, str], int] = {}
    for gvk, path in _additional_kinds(ctx):
        if gvk in seen:
            ctx.report(
                DUPLICATE_ADDITIONAL_KIND,
                path,
                f"additionalChildKinds repeats {_show(gvk)} (also at index {seen[gvk]})",
            )
        else:
            seen[gvk] = path[-1]


def additional_kind_overlaps_component(ctx: Context) -> None:
    """An additionalChildKinds entry that is already a component's kind."""
    component_kinds: dict[tuple[str, str], Any] = {}
    for comp in karta.components(ctx.data):
        gvk = karta.gvk_of(comp.data.get("kind"))
        if gvk is not None:
            component_kinds.setdefault((gvk[0], gvk[2]), comp.data.get("name"))
    for gvk, path in _additional_kinds(ctx):
        owner = component_kinds.get((gvk[0], gvk[2]))
        if owner is not None:
            ctx.report(
                ADDITIONAL_KIND_OVERLAPS_COMPONENT,
                path,
                f"additionalChildKinds lists {_show(gvk)}, already the kind of component '{owner}'",
            )


def _show(gvk: tuple) -> str:
    group, version, kind = gvk
    return f"{group}/{version}/{kind}" if group else f"{version}/{kind}"


# One check per rule, in the order of RULES.
CHECKS = tuple(
    Check((rule_id,), run)
    for rule_id, run in (
        (CONDITIONS_WITHOUT_DEFINITION, conditions_without_definition),
        (PHASE_WITHOUT_DEFINITION, phase_without_definition),
        (CONDITION_WITHOUT_EXPECTATION, condition_without_expectation),
        (CONDITION_FIELD_NAME_MISSING, condition_field_name_missing),
        (EMPTY_SCALE_DEFINITION, empty_scale_definition),
        (EMPTY_FRAGMENTED_SPEC, empty_fragmented_spec),
        (METADATA_WITHOUT_POD_SPEC, metadata_without_pod_spec),
        (DUPLICATE_ADDITIONAL_KIND, duplicate_additional_kind),
        (ADDITIONAL_KIND_OVERLAPS_COMPONENT, additional_kind_overlaps_component),
        (CHILD_STATUS_DEFINITION, child_status_definition),
        (CHILD_INCOMPLETE_KIND, child_incomplete_kind),
        (ALWAYS_MATCHING_STATUS, always_matching_status),
        (CONDITION_STATUS_NEVER_MATCHES, condition_status_never_matches),
        (EXPECTED_RESULT_NEVER_MATCHES, expected_result_never_matches),
    )
)
