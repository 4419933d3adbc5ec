"""kartalint's own rules for definitions upstream accepts but that misbehave (spec §2.1 "NOT checked")."""

from __future__ import annotations

from typing import Any

from .. import karta, rules
from ..karta import as_dict
from . import Context


def check(ctx: Context) -> None:
    comps = karta.components(ctx.data)
    for comp in comps:
        data = comp.data
        if not comp.is_root and data.get("statusDefinition") is not None:
            ctx.report("child-status-definition", comp.path + ("statusDefinition",),
                       f"statusDefinition on child component '{data.get('name')}' is ignored: only the root's is used", key=True)
        if not comp.is_root and isinstance(data.get("kind"), dict):
            gvk = karta.gvk_of(data["kind"])
            if gvk is not None and (not gvk[1] or not gvk[2]):
                ctx.report("child-incomplete-kind", comp.path + ("kind",),
                           f"kind of child component '{data.get('name')}' has an empty version or kind", key=True)
        _status(ctx, comp)
        scale = data.get("scaleDefinition")
        if isinstance(scale, dict) and not any(isinstance(scale.get(k), str) and scale.get(k) for k in karta.SCALE_PATHS):
            ctx.report("empty-scale-definition", comp.path + ("scaleDefinition",),
                       f"scaleDefinition of '{data.get('name')}' has no path: replica extraction always fails "
                       "(instance ids count (1) does not match results count (0))", key=True)
        spec = as_dict(data.get("specDefinition"))
        frag = spec.get("fragmentedPodSpecDefinition")
        if isinstance(frag, dict) and not any(isinstance(frag.get(k), str) and frag.get(k) for k in karta.FRAGMENTED_PATHS):
            ctx.report("empty-fragmented-spec", comp.path + ("specDefinition", "fragmentedPodSpecDefinition"),
                       f"fragmentedPodSpecDefinition of '{data.get('name')}' has no path: pod spec extraction always fails", key=True)
        if spec.get("metadataPath") and not spec.get("podSpecPath"):
            ctx.report("metadata-without-pod-spec", comp.path + ("specDefinition", "metadataPath"),
                       "metadataPath is only meaningful together with podSpecPath", key=True)
    _additional_kinds(ctx, comps)
    check_definition_shape(ctx, comps)


def _status(ctx: Context, comp: karta.ComponentRef) -> None:
    status = as_dict(comp.data.get("statusDefinition"))
    if not status:
        return
    spath = comp.path + ("statusDefinition",)
    conditions = status.get("conditionsDefinition")
    phase = status.get("phaseDefinition")
    uses_reason = False
    for key, matchers in as_dict(status.get("statusMappings")).items():
        for mi, matcher in enumerate(matchers if isinstance(matchers, list) else []):
            mpath = spath + ("statusMappings", key, mi)
            if matcher == {}:
                ctx.report("always-matching-status", mpath,
                           f"the empty matcher always matches: every object is reported {karta.MAPPING_KEYS.get(key, key)}")
            matcher = as_dict(matcher)
            _expected_result(ctx, matcher, mpath)
            if matcher.get("byPhase") and phase is None:
                ctx.report("phase-without-definition", mpath + ("byPhase",),
                           "byPhase is used but statusDefinition has no phaseDefinition: it never matches", key=True)
            by_conditions = matcher.get("byConditions")
            if by_conditions and conditions is None:
                ctx.report("conditions-without-definition", mpath + ("byConditions",),
                           "byConditions is used but statusDefinition has no conditionsDefinition: it never matches", key=True)
            for ci, entry in enumerate(by_conditions if isinstance(by_conditions, list) else []):
                entry = as_dict(entry)
                if entry.get("reason"):
                    uses_reason = True
                status_value = entry.get("status")
                if isinstance(status_value, str) and status_value and status_value not in CONDITION_STATUSES:
                    close = [s for s in CONDITION_STATUSES if s.lower() == status_value.lower()]
                    ctx.report("condition-status-never-matches", mpath + ("byConditions", ci, "status"),
                               f"condition status '{status_value}' never matches: Kubernetes condition statuses are "
                               f"True, False or Unknown (compared exactly)",
                               hint=f"write status: \"{close[0]}\"" if close else "use True, False or Unknown")
                if not entry.get("status") and not entry.get("reason") and entry:
                    ctx.report("condition-without-expectation", mpath + ("byConditions", ci),
                               f"condition '{entry.get('type')}' has neither status nor reason: it matches whenever the condition exists")
    if isinstance(conditions, dict):
        cpath = spath + ("conditionsDefinition",)
        wanted = ["typeFieldName", "statusFieldName"] + (["reasonFieldName"] if uses_reason else [])
        for name in wanted:
            if not conditions.get(name):
                default = karta.CONDITION_FIELD_DEFAULTS[name]
                ctx.report("condition-field-name-missing", cpath,
                           f"conditionsDefinition has no {name}: the cluster defaults it to '{default}', "
                           f"but file-based tools read an empty name and never match", key=True,
                           hint=f"add {name}: {default}")


CONDITION_STATUSES = ("True", "False", "Unknown")
_BOOLEAN_OPERATORS = {"==", "!=", "<", "<=", ">", ">=", "and", "or"}
_BOOLEAN_CALLS = {"not", "test", "any", "all", "has", "in", "inside", "contains", "startswith", "endswith",
                  "isinfinite", "isnan", "isnormal", "isvalid", "IN", "ascii", "isempty"}


def _expected_result(ctx: Context, matcher: dict, mpath: tuple) -> None:
    """``expectedResult`` a boolean expression can never produce (its result prints as true/false)."""
    from ..jqlang import parse_cached

    by_expression = as_dict(matcher.get("byExpression"))
    expression, expected = by_expression.get("expression"), by_expression.get("expectedResult")
    if not isinstance(expression, str) or not isinstance(expected, str) or expected in ("true", "false"):
        return
    tree, _ = parse_cached(expression)
    last = tree
    while last is not None and last.kind in ("binop", "paren") and (last.kind == "paren" or last.value == "|"):
        last = last.children[-1] if last.kind == "binop" else last.children[0]
    boolean = last is not None and ((last.kind == "binop" and last.value in _BOOLEAN_OPERATORS)
                                    or (last.kind == "call" and last.value in _BOOLEAN_CALLS)
                                    or (last.kind == "literal" and isinstance(last.value, bool)))
    if boolean:
        ctx.report("expected-result-never-matches", mpath + ("byExpression", "expectedResult"),
                   f"the expression ends in a test, so its result is true or false; expectedResult '{expected}' never matches",
                   hint="write expectedResult: \"true\" (or \"false\")")


def check_definition_shape(ctx: Context, comps: list) -> None:
    """Whole-definition problems: no component with pods; placeholders left in a draft."""
    if comps and not any(as_dict(c.data.get("specDefinition")) for c in comps):
        ctx.report("no-pod-component", ("spec", "structureDefinition"),
                   "no component has a specDefinition: the definition describes no pods, so no GPU, CPU or memory is "
                   "counted and no pod is ever placed", key=True)
    for path, value in _strings(ctx.data, ()):
        if "TODO" in value:
            ctx.report("draft-placeholder", path, f"a placeholder is left in the definition: {value.strip()[:80]!r}")
    text = ctx.document.source.text or ""
    marker = "Draft generated by `kartalint new --crd`"
    if marker in text and ctx.document.index == 0:
        line = text.count("\n", 0, text.index(marker)) + 1
        ctx.findings.append(_draft_finding(ctx, line, marker))


def _draft_finding(ctx: Context, line: int, marker: str) -> Any:
    from ..model import Finding

    rule = rules.get("draft-placeholder")
    return Finding(ctx.document.source.path, line, 1, line, 1 + len(marker) + 2, rule.id, rule.severity,
                   "the file is still marked as a draft of `kartalint new --crd`", (), "review every guess, then remove the draft header")


def _strings(value: Any, path: tuple) -> Any:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, child in value.items():
            yield from _strings(child, path + (key,))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _strings(child, path + (index,))


def _additional_kinds(ctx: Context, comps: list) -> None:
    sd = karta.structure(ctx.data)
    kinds = sd.get("additionalChildKinds")
    if not isinstance(kinds, list):
        return
    component_kinds = {}
    for comp in comps:
        gvk = karta.gvk_of(comp.data.get("kind"))
        if gvk is not None:
            component_kinds.setdefault((gvk[0], gvk[2]), comp.data.get("name"))
    seen = {}
    for i, entry in enumerate(kinds):
        gvk = karta.gvk_of(entry)
        if gvk is None:
            continue
        path = ("spec", "structureDefinition", "additionalChildKinds", i)
        if gvk in seen:
            ctx.report("duplicate-additional-kind", path, f"additionalChildKinds repeats {_show(gvk)} (also at index {seen[gvk]})")
        else:
            seen[gvk] = i
        owner = component_kinds.get((gvk[0], gvk[2]))
        if owner is not None:
            ctx.report("additional-kind-overlaps-component", path,
                       f"additionalChildKinds lists {_show(gvk)}, already the kind of component '{owner}'")


def _show(gvk: tuple) -> str:
    group, version, kind = gvk
    return f"{group}/{version}/{kind}" if group else f"{version}/{kind}"
