"""kartalint's own rules for definitions upstream accepts but that misbehave (spec §2.1 "NOT checked")."""

from __future__ import annotations

from typing import Any

from kartalint import karta
from kartalint.karta import as_dict
from kartalint.model import Rule, Severity
from kartalint.rules.context import Context

# The rules this module reports (collected by kartalint.rules.registry; docs/rules.md renders them).
RULES = (
    Rule(
        "conditions-without-definition",
        Severity.ERROR,
        "practice",
        "A byConditions matcher is used but statusDefinition has no conditionsDefinition, so it never matches.",
        "add statusDefinition.conditionsDefinition",
        why="byConditions reads the conditions found by conditionsDefinition; without it the matcher never fires and the status is never reported.",
    ),
    Rule(
        "phase-without-definition",
        Severity.ERROR,
        "practice",
        "A byPhase matcher is used but statusDefinition has no phaseDefinition, so it never matches.",
        "add statusDefinition.phaseDefinition",
        why="byPhase compares the phase read by phaseDefinition; without it the matcher never fires.",
    ),
    Rule(
        "condition-without-expectation",
        Severity.WARNING,
        "practice",
        "A byConditions entry sets neither status nor reason, so it only checks that the condition exists.",
        'add status (e.g. "True") or reason',
        why="A condition that exists is not a condition that holds: operators keep conditions with status False, so the status is reported when it should not be.",
    ),
    Rule(
        "condition-field-name-missing",
        Severity.WARNING,
        "practice",
        "conditionsDefinition omits a field name; the CRD defaults it in a cluster, but file-based tools (kli validate, karta-verify) see an empty name and never match.",
        "spell out typeFieldName, statusFieldName (and reasonFieldName/messageFieldName when used)",
        why="In a cluster the CRD defaults the field names, but tools that read the file (kli validate, karta-verify, kartalint) see empty names and never match a condition.",
    ),
    Rule(
        "empty-scale-definition",
        Severity.ERROR,
        "practice",
        "scaleDefinition is empty, so replica extraction always fails (0 results for 1 instance).",
        "set replicasPath (or remove scaleDefinition)",
        why="An empty scaleDefinition yields no replica count, so replica extraction fails for every object.",
    ),
    Rule(
        "empty-fragmented-spec",
        Severity.ERROR,
        "practice",
        "fragmentedPodSpecDefinition is empty, so pod spec extraction always fails.",
        "set at least one fragmented path, or remove the block",
        why="An empty fragmentedPodSpecDefinition locates nothing, so pod spec extraction fails for every object.",
    ),
    Rule(
        "metadata-without-pod-spec",
        Severity.WARNING,
        "practice",
        "metadataPath is meant to be used with podSpecPath only.",
        "use metadataPath together with podSpecPath",
        why="metadataPath completes a podSpecPath (a bare pod spec); a pod template already carries its metadata.",
    ),
    Rule(
        "duplicate-additional-kind",
        Severity.WARNING,
        "practice",
        "additionalChildKinds repeats a group/version/kind.",
        "remove the duplicate entry",
        why="A repeated entry adds nothing and hides a missing one (usually a copy that was meant to be edited).",
    ),
    Rule(
        "additional-kind-overlaps-component",
        Severity.WARNING,
        "practice",
        "additionalChildKinds repeats a kind already used by a component.",
        "remove the entry; components' kinds are already known",
        why="Components' kinds are already part of the workload; listing one again as additional is noise that can hide a missing kind.",
    ),
    Rule(
        "child-status-definition",
        Severity.WARNING,
        "practice",
        "statusDefinition on a child component is ignored by every consumer.",
        "move the status definition to the root component",
        why="Only the root's statusDefinition is read by consumers; a child's is ignored, so what it says never shows.",
    ),
    Rule(
        "child-incomplete-kind",
        Severity.WARNING,
        "practice",
        "A child component's kind has an empty version or kind.",
        "fill in kind.version and kind.kind, or remove kind for a logical component",
        why="A child kind with an empty version or kind matches no object, so the component never finds its resources.",
    ),
    Rule(
        "always-matching-status",
        Severity.WARNING,
        "practice",
        "An empty status matcher `{}` always matches, so the status is reported for every object.",
        "add byPhase, byConditions or byExpression to the matcher",
        why="An empty matcher matches every object, so the status is reported for every workload whatever its state.",
    ),
    Rule(
        "condition-status-never-matches",
        Severity.WARNING,
        "practice",
        "A byConditions entry expects a condition status other than `True`, `False` or `Unknown` (compared exactly, so `true` or `'true'` never matches).",
        "write True, False or Unknown",
        why="Kubernetes writes condition statuses as the strings True, False and Unknown, and matchers compare them exactly: a lower-case or quoted-boolean status is a matcher that silently never fires.",
    ),
    Rule(
        "expected-result-never-matches",
        Severity.WARNING,
        "practice",
        "A byExpression ends in a test (a comparison, `and`/`or`, `not`, `any`, `has`, ...), so its result prints as true or false, but expectedResult is something else: it never matches.",
        'write expectedResult: "true" (or "false")',
        why="Upstream compares the expression's first result, printed as a string, with expectedResult: a test prints as true or false, so any other expectedResult never matches.",
    ),
    Rule(
        "no-pod-component",
        Severity.WARNING,
        "practice",
        "No component has a specDefinition: the definition describes no pods, so GPUs, CPU and memory are never counted and no pod is ever placed.",
        "add a specDefinition (podTemplateSpecPath or podSpecPath) to the component that creates pods",
        why="Without a specDefinition nothing describes the pods: every consumer counts 0 GPUs and places no pod in any role. Rarely right (an operator that builds the pod spec itself): then suppress it with a reason.",
    ),
    Rule(
        "draft-placeholder",
        Severity.WARNING,
        "practice",
        "A `TODO` placeholder or the draft header of `kartalint new --crd` is still in the definition: a guess nobody confirmed.",
        "replace the placeholder with the real value (the operator's docs, a real object), then remove the draft header",
        why="`kartalint new --crd` marks every guess it cannot confirm from the CRD; a placeholder label key selects no pod.",
    ),
)


def check(ctx: Context) -> None:
    comps = karta.components(ctx.data)
    for comp in comps:
        data = comp.data
        if not comp.is_root and data.get("statusDefinition") is not None:
            ctx.report(
                "child-status-definition",
                (*comp.path, "statusDefinition"),
                f"statusDefinition on child component '{data.get('name')}' is ignored: only the root's is used",
                key=True,
            )
        if not comp.is_root and isinstance(data.get("kind"), dict):
            gvk = karta.gvk_of(data["kind"])
            if gvk is not None and (not gvk[1] or not gvk[2]):
                ctx.report(
                    "child-incomplete-kind",
                    (*comp.path, "kind"),
                    f"kind of child component '{data.get('name')}' has an empty version or kind",
                    key=True,
                )
        _status(ctx, comp)
        scale = data.get("scaleDefinition")
        if isinstance(scale, dict) and not any(
            isinstance(scale.get(k), str) and scale.get(k) for k in karta.SCALE_PATHS
        ):
            ctx.report(
                "empty-scale-definition",
                (*comp.path, "scaleDefinition"),
                f"scaleDefinition of '{data.get('name')}' has no path: replica extraction always fails "
                "(instance ids count (1) does not match results count (0))",
                key=True,
            )
        spec = as_dict(data.get("specDefinition"))
        frag = spec.get("fragmentedPodSpecDefinition")
        if isinstance(frag, dict) and not any(
            isinstance(frag.get(k), str) and frag.get(k) for k in karta.FRAGMENTED_PATHS
        ):
            ctx.report(
                "empty-fragmented-spec",
                (*comp.path, "specDefinition", "fragmentedPodSpecDefinition"),
                f"fragmentedPodSpecDefinition of '{data.get('name')}' has no path: pod spec extraction always fails",
                key=True,
            )
        if spec.get("metadataPath") and not spec.get("podSpecPath"):
            ctx.report(
                "metadata-without-pod-spec",
                (*comp.path, "specDefinition", "metadataPath"),
                "metadataPath is only meaningful together with podSpecPath",
                key=True,
            )
    _additional_kinds(ctx, comps)
    check_definition_shape(ctx, comps)


def _status(ctx: Context, comp: karta.ComponentRef) -> None:
    status = as_dict(comp.data.get("statusDefinition"))
    if not status:
        return
    spath = (*comp.path, "statusDefinition")
    conditions = status.get("conditionsDefinition")
    phase = status.get("phaseDefinition")
    uses_reason = False
    for key, matchers in as_dict(status.get("statusMappings")).items():
        for mi, matcher in enumerate(matchers if isinstance(matchers, list) else []):
            mpath = (*spath, "statusMappings", key, mi)
            if matcher == {}:
                ctx.report(
                    "always-matching-status",
                    mpath,
                    f"the empty matcher always matches: every object is reported {karta.MAPPING_KEYS.get(key, key)}",
                )
            matcher = as_dict(matcher)
            _expected_result(ctx, matcher, mpath)
            if matcher.get("byPhase") and phase is None:
                ctx.report(
                    "phase-without-definition",
                    (*mpath, "byPhase"),
                    "byPhase is used but statusDefinition has no phaseDefinition: it never matches",
                    key=True,
                )
            by_conditions = matcher.get("byConditions")
            if by_conditions and conditions is None:
                ctx.report(
                    "conditions-without-definition",
                    (*mpath, "byConditions"),
                    "byConditions is used but statusDefinition has no conditionsDefinition: it never matches",
                    key=True,
                )
            for ci, entry in enumerate(by_conditions if isinstance(by_conditions, list) else []):
                entry = as_dict(entry)
                if entry.get("reason"):
                    uses_reason = True
                status_value = entry.get("status")
                if isinstance(status_value, str) and status_value and status_value not in CONDITION_STATUSES:
                    close = [s for s in CONDITION_STATUSES if s.lower() == status_value.lower()]
                    ctx.report(
                        "condition-status-never-matches",
                        (*mpath, "byConditions", ci, "status"),
                        f"condition status '{status_value}' never matches: Kubernetes condition statuses are "
                        f"True, False or Unknown (compared exactly)",
                        hint=f'write status: "{close[0]}"' if close else "use True, False or Unknown",
                    )
                if not entry.get("status") and not entry.get("reason") and entry:
                    ctx.report(
                        "condition-without-expectation",
                        (*mpath, "byConditions", ci),
                        f"condition '{entry.get('type')}' has neither status nor reason: it matches whenever the condition exists",
                    )
    if isinstance(conditions, dict):
        cpath = (*spath, "conditionsDefinition")
        wanted = ["typeFieldName", "statusFieldName"] + (["reasonFieldName"] if uses_reason else [])
        for name in wanted:
            if not conditions.get(name):
                default = karta.CONDITION_FIELD_DEFAULTS[name]
                ctx.report(
                    "condition-field-name-missing",
                    cpath,
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


def _expected_result(ctx: Context, matcher: dict, mpath: tuple) -> None:
    """``expectedResult`` a boolean expression can never produce (its result prints as true/false)."""
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
            "expected-result-never-matches",
            (*mpath, "byExpression", "expectedResult"),
            f"the expression ends in a test, so its result is true or false; expectedResult '{expected}' never matches",
            hint='write expectedResult: "true" (or "false")',
        )


def check_definition_shape(ctx: Context, comps: list) -> None:
    """Whole-definition problems: no component with pods; placeholders left in a draft."""
    if comps and not any(as_dict(c.data.get("specDefinition")) for c in comps):
        ctx.report(
            "no-pod-component",
            ("spec", "structureDefinition"),
            "no component has a specDefinition: the definition describes no pods, so no GPU, CPU or memory is "
            "counted and no pod is ever placed",
            key=True,
        )
    for path, value in _strings(ctx.data, ()):
        if "TODO" in value:
            ctx.report("draft-placeholder", path, f"a placeholder is left in the definition: {value.strip()[:80]!r}")
    if ctx.document is None:  # plain data: no text, no draft header
        return
    text = ctx.document.source.text or ""
    marker = "Draft generated by `kartalint new --crd`"
    if marker in text and ctx.document.index == 0:
        line = text.count("\n", 0, text.index(marker)) + 1
        ctx.findings.append(_draft_finding(ctx, line, marker))


def _draft_finding(ctx: Context, line: int, marker: str) -> Any:
    from kartalint.model import Finding

    rule = ctx.rules["draft-placeholder"]
    return Finding(
        ctx.document.source.path if ctx.document is not None else "<definition>",
        line,
        1,
        line,
        1 + len(marker) + 2,
        rule.id,
        rule.severity,
        "the file is still marked as a draft of `kartalint new --crd`",
        (),
        "review every guess, then remove the draft header",
    )


def _strings(value: Any, path: tuple) -> Any:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, child in value.items():
            yield from _strings(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _strings(child, (*path, index))


def _additional_kinds(ctx: Context, comps: list) -> None:
    sd = karta.structure(ctx.data)
    kinds = sd.get("additionalChildKinds")
    if not isinstance(kinds, list):
        return
    component_kinds: dict[tuple[str, str], Any] = {}
    for comp in comps:
        gvk = karta.gvk_of(comp.data.get("kind"))
        if gvk is not None:
            component_kinds.setdefault((gvk[0], gvk[2]), comp.data.get("name"))
    seen: dict[tuple[str, str, str], int] = {}
    for i, entry in enumerate(kinds):
        gvk = karta.gvk_of(entry)
        if gvk is None:
            continue
        path = ("spec", "structureDefinition", "additionalChildKinds", i)
        if gvk in seen:
            ctx.report(
                "duplicate-additional-kind",
                path,
                f"additionalChildKinds repeats {_show(gvk)} (also at index {seen[gvk]})",
            )
        else:
            seen[gvk] = i
        owner = component_kinds.get((gvk[0], gvk[2]))
        if owner is not None:
            ctx.report(
                "additional-kind-overlaps-component",
                path,
                f"additionalChildKinds lists {_show(gvk)}, already the kind of component '{owner}'",
            )


def _show(gvk: tuple) -> str:
    group, version, kind = gvk
    return f"{group}/{version}/{kind}" if group else f"{version}/{kind}"
