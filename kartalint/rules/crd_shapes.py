"""CRD-aware rules about what a definition's paths and names point at: a pod template or pod spec
path at the wrong level of the CRD's schema (``pod-template-wrong-level``), condition field names
the CRD's conditions do not have (``condition-field-not-in-crd``), and suspend/resume values of a
type or outside an enum the CRD refuses (``action-value-refused``).

Active only when the CRD of the root group/version/kind is known; a path whose target the CRD
leaves free-form gives no finding.
"""

from __future__ import annotations

import json

from kartalint import karta
from kartalint.jqlang import parse_cached, paths
from kartalint.karta import as_dict, as_list
from kartalint.model import Rule, Severity
from kartalint.rules.context import Check, Context

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The ids of the rules this module reports (constants: a misspelt id is an import error).
POD_TEMPLATE_WRONG_LEVEL = "pod-template-wrong-level"
CONDITION_FIELD_NOT_IN_CRD = "condition-field-not-in-crd"
ACTION_VALUE_REFUSED = "action-value-refused"


# The rules this module reports (collected by kartalint.rules.registry; docs/rules.md renders them).
RULES = (
    Rule(
        POD_TEMPLATE_WRONG_LEVEL,
        Severity.ERROR,
        "crd",
        "podTemplateSpecPath or podSpecPath points at another level than the CRD's schema says: a PodSpec (it has `containers`) given as a pod template, a PodTemplateSpec (`metadata` + `spec`) given as a pod spec, a wrapper around one, or a whole wrapped resource (`x-kubernetes-embedded-resource`).",
        "point the path at the level the field names (the hint says where the CRD keeps it), or use the other field",
        why="Consumers decode what the path yields as a PodTemplateSpec (or a PodSpec): one level off, the containers are not where they look, so the role shows no containers, no GPUs and no resources.",
    ),
    Rule(
        CONDITION_FIELD_NOT_IN_CRD,
        Severity.ERROR,
        "crd",
        "conditionsDefinition names a field (typeFieldName, statusFieldName, reasonFieldName, messageFieldName) that the CRD's condition items do not have: no condition is ever read with it.",
        "use a field the CRD's conditions have (the hint lists them)",
        why="Conditions are read by these field names; a name the operator's conditions lack reads nothing, so every byConditions matcher silently never matches.",
    ),
    Rule(
        ACTION_VALUE_REFUSED,
        Severity.ERROR,
        "crd",
        'A suspend or resume action writes a value whose JSON type contradicts the CRD type of the field it sets (the string `"true"` into a boolean), or that is outside the field\'s enum: the API server refuses the write.',
        "write the value as JSON of the field's type (`true`, not `'\"true\"'`), or a value of the enum",
        why="The value is JSON decoded and written at the path: when the API server refuses it, suspending or resuming the workload fails exactly when it is asked for.",
    ),
)

_MAX_SEARCH_DEPTH = 4  # how deep under a wrapper the pod template is looked for


def root_version(ctx: Context) -> Any | None:
    """The CRD version of the definition's root kind, when the CRDs given have it with a schema."""
    if ctx.crds is None:
        return None
    root = as_dict(karta.structure(ctx.data).get("rootComponent"))
    version = ctx.crds.get(karta.gvk_of(root.get("kind")))
    return version if version is not None and version.schema else None


def check(ctx: Context) -> None:
    """Run the rules against the CRD version of the definition's root kind."""
    version = root_version(ctx)
    if version is None:
        return
    where = f"{version.kind} {version.group}/{version.version}"
    comps = karta.components(ctx.data)
    for comp in comps:
        spec = as_dict(comp.data.get("specDefinition"))
        for key in ("podTemplateSpecPath", "podSpecPath"):
            if isinstance(spec.get(key), str):
                _pod_path(ctx, (*comp.path, "specDefinition", key), key, spec[key], version, where)
        _actions(ctx, comp, version, where)
    if comps and comps[0].is_root:
        _condition_fields(ctx, comps[0], version, where)


# -- pod-template-wrong-level -------------------------------------------------------------------------


def _props(schema: dict) -> dict:
    return as_dict(schema.get("properties"))


def _is_pod_spec(schema: dict) -> bool:
    return "containers" in _props(schema)


def _is_pod_template(schema: dict) -> bool:
    spec = as_dict(_props(schema).get("spec"))
    open_spec = not _props(spec) or bool(spec.get("x-kubernetes-preserve-unknown-fields"))
    return bool(spec) and not _is_pod_spec(schema) and (_is_pod_spec(spec) or open_spec)


def _search(schema: dict, want: Any) -> tuple[str, ...] | None:
    """The relative path of the first schema under ``schema`` (breadth first) that ``want`` accepts."""
    queue: list[tuple[dict, tuple[str, ...]]] = [(schema, ())]
    while queue:
        node, rel = queue.pop(0)
        if rel and want(node):
            return rel
        if len(rel) >= _MAX_SEARCH_DEPTH:
            continue
        queue.extend((as_dict(child), (*rel, name)) for name, child in _props(node).items())
        if isinstance(node.get("items"), dict):
            queue.append((node["items"], (*rel, "[]")))
    return None


def _pod_path(ctx: Context, field_path: tuple, key: str, expression: str, version: Any, where: str) -> None:
    from kartalint.load.crds import lookup  # lazy: load.crds, only when a CRD is configured (start-up of lint)

    tree, _ = parse_cached(expression)
    for place in paths.output_places(tree) if tree is not None else []:
        found = lookup(version.schema, place)
        if not found.found or found.schema is None:
            continue
        problem = _level_problem(key, found.schema, place)
        if problem is not None:
            ctx.report(
                POD_TEMPLATE_WRONG_LEVEL,
                field_path,
                f"{key} {paths.path_text(place)} is {problem[0]} in {where}",
                hint=problem[1],
                scalar_range=(0, len(expression)),  # on the jq text, also in a block scalar
            )
            return


def _level_problem(key: str, schema: dict, place: tuple[str, ...]) -> tuple[str, str] | None:
    """(what the target is, how to fix it), or None when the target has the right shape (or the
    CRD cannot tell)."""
    template = key == "podTemplateSpecPath"
    text = paths.path_text(place)
    if schema.get("x-kubernetes-embedded-resource") and not _is_pod_template(schema):
        return (
            "a whole wrapped resource (x-kubernetes-embedded-resource: apiVersion, kind, metadata, spec), not a "
            + ("pod template" if template else "pod spec"),
            f"point {key} at the {'pod template' if template else 'pod spec'} inside the resource {text} wraps "
            "(the CRD leaves it free-form: prove the path with a fixture)",
        )
    kind = schema.get("type")
    if kind not in (None, "object"):
        return f"{'an' if kind in ('array', 'integer') else 'a'} {kind}, not an object", f"point {key} at an object"
    if (template and _is_pod_template(schema)) or (not template and _is_pod_spec(schema)):
        return None
    if template and _is_pod_spec(schema):
        parent = place[:-1] if place and place[-1] == "spec" else None
        fix = f"write {paths.path_text(parent)} (the PodTemplateSpec)" if parent is not None else ""
        return "a PodSpec (it has containers), not a PodTemplateSpec", (
            f"{fix + ', or ' if fix else ''}use podSpecPath: {text}"
        )
    if not template and _is_pod_template(schema):
        return "a PodTemplateSpec (its containers are under spec), not a PodSpec", (
            f"write {text}.spec (its containers are in spec), or use podTemplateSpecPath: {text}"
        )
    inner = _search(schema, _is_pod_template)
    if inner is not None and not template:
        inner = (*inner, "spec")
    if inner is not None:
        target = paths.path_text((*place, *inner))
        return f"a wrapper around the {'PodTemplateSpec' if template else 'PodSpec'} at {target}", f"write {target}"
    if schema.get("x-kubernetes-preserve-unknown-fields") or not _props(schema) or "spec" in _props(schema):
        return None  # undeclared fields may hold it, or a spec the operator completes: nothing can be said
    fields = ", ".join(sorted(_props(schema))[:8])
    return f"an object with no {'spec' if template else 'containers'} (its fields: {fields})", (
        f"point {key} at the {'PodTemplateSpec' if template else 'PodSpec'} of the role"
    )


# -- condition-field-not-in-crd -----------------------------------------------------------------------


def _condition_fields(ctx: Context, root: karta.ComponentRef, version: Any, where: str) -> None:
    from kartalint.load.crds import lookup  # lazy: load.crds, only when a CRD is configured (start-up of lint)

    conditions = as_dict(as_dict(root.data.get("statusDefinition")).get("conditionsDefinition"))
    expression = conditions.get("path")
    tree = parse_cached(expression)[0] if isinstance(expression, str) else None
    path = paths.output_path(tree) if tree is not None else None
    if path is None:
        return
    items = lookup(version.schema, (*path, "[]"))
    if not items.found or items.schema is None or not _props(items.schema):
        return
    names = sorted(_props(items.schema))
    for key in karta.CONDITION_FIELD_DEFAULTS:
        name = conditions.get(key)
        if not isinstance(name, str) or not name or name in names:
            continue
        import difflib  # lazy: only a misspelt name is looked up (difflib is not on a one-file lint's path)

        close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
        ctx.report(
            CONDITION_FIELD_NOT_IN_CRD,
            (*root.path, "statusDefinition", "conditionsDefinition", key),
            f"{key} '{name}': the conditions of {where} ({paths.path_text((*path, '[]'))}) have no field '{name}'",
            hint=(f"did you mean '{close[0]}'? " if close else "") + f"their fields: {', '.join(names)}",
            scalar_range=(0, len(name)),
        )


# -- action-value-refused -----------------------------------------------------------------------------

_JSON_TYPES = {
    bool: "a boolean",
    int: "an integer",
    float: "a number",
    str: "a string",
    dict: "an object",
    list: "a list",
}


def _accepts(schema: dict, value: Any) -> bool:
    if value is None or schema.get("x-kubernetes-int-or-string"):
        return value is None or (isinstance(value, (int, str)) and not isinstance(value, bool))
    kind = schema.get("type")
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "integer":
        return not isinstance(value, bool) and (
            isinstance(value, int) or (isinstance(value, float) and value.is_integer())
        )
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    expected = {"string": str, "object": dict, "array": list}.get(str(kind))
    return expected is None or isinstance(value, expected)


def _actions(ctx: Context, comp: karta.ComponentRef, version: Any, where: str) -> None:
    from kartalint.load.crds import lookup  # lazy: load.crds, only when a CRD is configured (start-up of lint)

    suspend = as_dict(comp.data.get("suspendDefinition"))
    for key in ("suspendActions", "resumeActions"):
        for index, action in enumerate(as_list(suspend.get(key))):
            action = as_dict(action)
            expression, text = action.get("path"), action.get("value")
            tree = parse_cached(expression)[0] if isinstance(expression, str) else None
            path = paths.output_path(tree) if tree is not None else None
            if path is None or not isinstance(text, str):
                continue
            found = lookup(version.schema, path)
            try:
                value = json.loads(text)
            except ValueError:
                continue
            if not found.found or found.schema is None:
                continue
            problem = _value_problem(found.schema, value, text)
            if problem is not None:
                ctx.report(
                    ACTION_VALUE_REFUSED,
                    (*comp.path, "suspendDefinition", key, index, "value"),
                    f"{key}[{index}] writes {text} into {paths.path_text(path)}, {problem[0]} in {where}: "
                    "the API server refuses it",
                    hint=problem[1],
                    scalar_range=(0, len(text)),
                )


def _value_problem(schema: dict, value: Any, text: str) -> tuple[str, str] | None:
    kind = "int or string" if schema.get("x-kubernetes-int-or-string") else schema.get("type")
    if not _accepts(schema, value):
        what = f"{_JSON_TYPES.get(type(value), 'a value')}, but the field is {'an' if kind in ('integer', 'object', 'array', 'int or string') else 'a'} {kind}"
        hint = f"write JSON of type {kind}"
        if isinstance(value, str):
            try:
                unquoted = json.loads(value)
            except ValueError:
                unquoted = None
            if unquoted is not None and _accepts(schema, unquoted):
                hint = f"write value: {json.dumps(value)} (JSON {value}, without the inner quotes)"
        elif kind == "string":
            hint = f"write value: '{json.dumps(str(value))}' (a JSON string)"
        return f"which is {what}", hint
    enum = as_list(schema.get("enum"))
    if enum and value is not None and not any(type(value) is type(e) and value == e for e in enum):
        shown = ", ".join(json.dumps(e) for e in enum)
        close = [e for e in enum if isinstance(e, str) and isinstance(value, str) and e.lower() == value.lower()]
        return f"which is not one of the field's values ({shown})", (
            f"write value: '{json.dumps(close[0])}'" if close else f"use one of {shown}"
        )
    return None


CHECKS = (Check(tuple(rule.id for rule in RULES), check),)
