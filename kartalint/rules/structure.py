"""Upstream validator parity (spec §2.1): the rules ``KartaValidator.Validate`` enforces.

Unlike upstream, every problem is reported in one run (no short-circuit), each at its own place.
Messages follow upstream's wording so that they can be matched with ``kli validate`` output.
"""

from __future__ import annotations

import re

from kartalint import karta
from kartalint.karta import as_dict
from kartalint.model import Rule, Severity
from kartalint.rules.context import Check, Context

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The ids of the rules this module reports (constants: a misspelt id is an import error).
DUPLICATE_COMPONENT_NAME = "duplicate-component-name"
EMPTY_COMPONENT_NAME = "empty-component-name"
ROOT_INCOMPLETE_KIND = "root-incomplete-kind"
ROOT_HAS_OWNER_REF = "root-has-owner-ref"
ROOT_MISSING_STATUS_DEFINITION = "root-missing-status-definition"
CHILD_MISSING_OWNER_REF = "child-missing-owner-ref"
UNKNOWN_OWNER_REF = "unknown-owner-ref"
MULTIPLE_POD_SPEC_DEFINITIONS = "multiple-pod-spec-definitions"
SELECTOR_EMPTY_MATCH_LABELS = "selector-empty-match-labels"
SELECTOR_MISSING_KEY = "selector-missing-key"
SELECTOR_VALUE_WITHOUT_KEY_PATH = "selector-value-without-key-path"
SELECTOR_INVALID_MATCH_LABELS = "selector-invalid-match-labels"
INSTANCE_ID_WITHOUT_INSTANCE_SELECTOR = "instance-id-without-instance-selector"
INSTANCE_SELECTOR_WITHOUT_INSTANCE_ID = "instance-selector-without-instance-id"
OWNERSHIP_CYCLE = "ownership-cycle"
UNKNOWN_GANG_MEMBER = "unknown-gang-member"


# The rules this module reports (collected by kartalint.rules.registry; docs/rules.md renders them).
RULES = (
    Rule(
        DUPLICATE_COMPONENT_NAME,
        Severity.ERROR,
        "parity",
        "Two components share a name (root included).",
        "rename one of the components",
        why="Components are found by name (ownerRef, gang members, sub-groups); with two of the same name the references are ambiguous and upstream's validator refuses the definition.",
    ),
    Rule(
        EMPTY_COMPONENT_NAME,
        Severity.ERROR,
        "parity",
        "A component has an empty or missing name.",
        "give the component a name",
        why="A component without a name cannot be referenced and upstream's validator refuses it.",
    ),
    Rule(
        ROOT_INCOMPLETE_KIND,
        Severity.ERROR,
        "parity",
        "The root component needs a full kind: group, version and kind (group may be empty only for Pod).",
        "set kind.group, kind.version and kind.kind on the root component",
        why="The root kind is how a consumer finds the definition for a workload; upstream refuses a root without group, version and kind.",
    ),
    Rule(
        ROOT_HAS_OWNER_REF,
        Severity.ERROR,
        "parity",
        "The root component must not have an ownerRef (not even an empty one).",
        "remove ownerRef from the root component",
        why="The root component is the workload itself; upstream refuses an ownerRef on it.",
    ),
    Rule(
        ROOT_MISSING_STATUS_DEFINITION,
        Severity.ERROR,
        "parity",
        "The root component must have a statusDefinition.",
        "add statusDefinition with statusMappings to the root component",
        why="The workload's status comes from the root's statusDefinition; upstream refuses a root without one.",
    ),
    Rule(
        CHILD_MISSING_OWNER_REF,
        Severity.ERROR,
        "parity",
        "A child component has no (or an empty) ownerRef.",
        "set ownerRef to the name of the parent component",
        why="A child component is placed in the tree by its ownerRef; upstream refuses a child without one.",
    ),
    Rule(
        UNKNOWN_OWNER_REF,
        Severity.ERROR,
        "parity",
        "A child's ownerRef names a component that does not exist.",
        "set ownerRef to an existing component name",
        why="An ownerRef naming no component leaves the child outside the tree; upstream refuses it.",
    ),
    Rule(
        MULTIPLE_POD_SPEC_DEFINITIONS,
        Severity.ERROR,
        "parity",
        "More than one of podTemplateSpecPath, podSpecPath and fragmentedPodSpecDefinition is set.",
        "keep exactly one way of locating the pod spec",
        why="A component's pods come from exactly one of the three locations; upstream refuses a component with more than one.",
    ),
    Rule(
        SELECTOR_EMPTY_MATCH_LABELS,
        Severity.ERROR,
        "parity",
        "componentTypeSelector.matchLabels is an empty map.",
        "add labels to matchLabels or remove it",
        why="An empty matchLabels selects every pod; upstream refuses it.",
    ),
    Rule(
        SELECTOR_MISSING_KEY,
        Severity.ERROR,
        "parity",
        "componentTypeSelector has neither keyPath nor matchLabels.",
        "set keyPath or matchLabels",
        why="A componentTypeSelector without keyPath or matchLabels selects nothing; upstream refuses it.",
    ),
    Rule(
        SELECTOR_VALUE_WITHOUT_KEY_PATH,
        Severity.ERROR,
        "parity",
        "componentTypeSelector.value is set without keyPath.",
        "add keyPath or remove value",
        why="value is compared with what keyPath reads; without keyPath upstream refuses it.",
    ),
    Rule(
        SELECTOR_INVALID_MATCH_LABELS,
        Severity.ERROR,
        "parity",
        "componentTypeSelector.matchLabels has a key or value that is not a valid Kubernetes label.",
        "use label keys like `example.com/name` and values of at most 63 alphanumeric, '-', '_' or '.' characters",
        why="A label that Kubernetes would never accept can never be on a pod; upstream refuses it.",
    ),
    Rule(
        INSTANCE_ID_WITHOUT_INSTANCE_SELECTOR,
        Severity.ERROR,
        "parity",
        "instanceIdPath is set but podSelector.componentInstanceSelector is not.",
        "add podSelector.componentInstanceSelector.idPath",
        why="Instance ids split a component into roles; without a componentInstanceSelector no pod can be placed in an instance and upstream refuses the definition.",
    ),
    Rule(
        INSTANCE_SELECTOR_WITHOUT_INSTANCE_ID,
        Severity.ERROR,
        "parity",
        "podSelector.componentInstanceSelector is set but instanceIdPath is not.",
        "add instanceIdPath or remove the instance selector",
        why="The instance selector matches pods to instance ids; without instanceIdPath there are none, and upstream refuses it.",
    ),
    Rule(
        OWNERSHIP_CYCLE,
        Severity.ERROR,
        "parity",
        "ownerRef chains form a cycle.",
        "make the ownerRefs form a tree rooted at the root component",
        why="Components must form a tree under the root; upstream refuses a cycle of ownerRefs.",
    ),
    Rule(
        UNKNOWN_GANG_MEMBER,
        Severity.ERROR,
        "parity",
        "A podGroups member names a component that does not exist.",
        "name an existing component",
        why="A gang member naming no component is refused by upstream; the gang would never be complete.",
    ),
)


# (compiled when first used, by re's cache: only a definition with matchLabels needs them)
_LABEL_NAME = r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$"
_LABEL_VALUE = r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$"
_DNS_SUBDOMAIN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"


def _name(comp: dict[str, Any]) -> str | None:
    name = comp.get("name")
    return name if isinstance(name, str) else None


def _nonempty_str(value: Any) -> bool:
    return isinstance(value, str) and value != ""


def check(ctx: Context) -> None:
    """Upstream validator parity: what ``KartaValidator.Validate`` refuses."""
    comps = karta.components(ctx.data)
    _names(ctx, comps)
    names = {_name(c.data) for c in comps if _name(c.data)}
    for comp in comps:
        if comp.is_root:
            _root(ctx, comp)
        else:
            _child(ctx, comp, names)
        _component(ctx, comp)
    _cycles(ctx, comps)
    _gang_members(ctx, names)


def _names(ctx: Context, comps: list[karta.ComponentRef]) -> None:
    seen: dict[str, bool] = {}
    # upstream gathers children first, then the root
    for comp in [c for c in comps if not c.is_root] + [c for c in comps if c.is_root]:
        name = _name(comp.data)
        if not name:
            continue
        if name in seen:
            ctx.report(DUPLICATE_COMPONENT_NAME, (*comp.path, "name"), f"component name {name} is not unique")
        seen[name] = True


def _root(ctx: Context, comp: karta.ComponentRef) -> None:
    data = comp.data
    kind = data.get("kind")
    gvk = karta.gvk_of(kind)
    if gvk is None or not gvk[1] or not gvk[2] or (not gvk[0] and gvk[2] != "Pod"):
        missing = (
            "kind"
            if gvk is None
            else ", ".join(
                n
                for n, v in zip(("group", "version", "kind"), gvk, strict=False)
                if not v and not (n == "group" and gvk[2] == "Pod")
            )
        )
        ctx.report(
            ROOT_INCOMPLETE_KIND,
            (*comp.path, "kind"),
            f"root component must have full kind (group, version, kind): missing {missing}",
            key=True,
        )
    if "ownerRef" in data:
        ctx.report(ROOT_HAS_OWNER_REF, (*comp.path, "ownerRef"), "root component cannot have owner ref", key=True)
    if data.get("statusDefinition") is None:
        ctx.report(
            ROOT_MISSING_STATUS_DEFINITION,
            (*comp.path, "statusDefinition"),
            "root component must have status definition",
            key=True,
        )


def _child(ctx: Context, comp: karta.ComponentRef, names: set) -> None:
    owner = comp.data.get("ownerRef")
    label = _name(comp.data) or ""
    if not _nonempty_str(owner):
        ctx.report(
            CHILD_MISSING_OWNER_REF,
            (*comp.path, "ownerRef"),
            f"child component '{label}' has no owner ref",
            key=True,
        )
    elif owner not in names:
        ctx.report(
            UNKNOWN_OWNER_REF,
            (*comp.path, "ownerRef"),
            f"child component '{label}' has owner ref to non-existing component '{owner}'",
        )


def _component(ctx: Context, comp: karta.ComponentRef) -> None:
    data = comp.data
    name = _name(data)
    label = name or ""
    if not name:
        ctx.report(EMPTY_COMPONENT_NAME, (*comp.path, "name"), "component name is empty", key="name" not in data)
    spec = data.get("specDefinition")
    if isinstance(spec, dict):
        present = [k for k in ("podTemplateSpecPath", "podSpecPath") if _nonempty_str(spec.get(k))]
        if spec.get("fragmentedPodSpecDefinition") is not None:
            present.append("fragmentedPodSpecDefinition")
        if len(present) > 1:
            ctx.report(
                MULTIPLE_POD_SPEC_DEFINITIONS,
                (*comp.path, "specDefinition"),
                f"component '{label}' has multiple pod spec definitions ({', '.join(present)})",
                key=True,
            )
    selector = as_dict(data.get("podSelector"))
    _type_selector(ctx, comp, label, selector.get("componentTypeSelector"))
    instance_selector = selector.get("componentInstanceSelector")
    has_id_path = _nonempty_str(data.get("instanceIdPath"))
    if has_id_path and instance_selector is None:
        ctx.report(
            INSTANCE_ID_WITHOUT_INSTANCE_SELECTOR,
            (*comp.path, "instanceIdPath"),
            f"component '{label}' has instance id path but no pod component instance selector",
            key=True,
        )
    elif instance_selector is not None and not has_id_path:
        ctx.report(
            INSTANCE_SELECTOR_WITHOUT_INSTANCE_ID,
            (*comp.path, "podSelector", "componentInstanceSelector"),
            f"component '{label}' has pod component instance selector but no instance id path",
            key=True,
        )


def _type_selector(ctx: Context, comp: karta.ComponentRef, label: str, selector: Any) -> None:
    if not isinstance(selector, dict):
        return
    path = (*comp.path, "podSelector", "componentTypeSelector")
    labels = selector.get("matchLabels")
    has_key = _nonempty_str(selector.get("keyPath"))
    if isinstance(labels, dict) and not labels:
        ctx.report(
            SELECTOR_EMPTY_MATCH_LABELS,
            (*path, "matchLabels"),
            f"component '{label}' has component type selector with empty matchLabels",
        )
    elif not has_key and labels is None:
        ctx.report(
            SELECTOR_MISSING_KEY,
            path,
            f"component '{label}' has component type selector with neither keyPath nor matchLabels",
            key=True,
        )
    elif not has_key and selector.get("value") is not None:
        ctx.report(
            SELECTOR_VALUE_WITHOUT_KEY_PATH,
            (*path, "value"),
            f"component '{label}' has component type selector value without keyPath",
            key=True,
        )
    elif isinstance(labels, dict):
        errors = sorted(_label_errors(labels))
        if errors:
            ctx.report(
                SELECTOR_INVALID_MATCH_LABELS,
                (*path, "matchLabels"),
                f"component '{label}' has invalid matchLabels: {'; '.join(errors)}",
            )


def _label_errors(labels: dict[Any, Any]) -> list[str]:
    errors = []
    for key, value in labels.items():
        key = str(key)
        prefix, _, name = key.rpartition("/")
        if "/" in key and (not prefix or len(prefix) > 253 or re.match(_DNS_SUBDOMAIN, prefix) is None):
            errors.append(f"matchLabels: Invalid value: {key!r}: prefix part must be a DNS subdomain")
        if not name or len(name) > 63 or re.match(_LABEL_NAME, name) is None:
            errors.append(
                f"matchLabels: Invalid value: {key!r}: name part must consist of alphanumeric characters, '-', '_' or '.', start and end with an alphanumeric character, at most 63 characters"
            )
        if not isinstance(value, str):
            errors.append(f"matchLabels[{key}]: Invalid value: {value!r}: must be a string")
        elif len(value) > 63 or re.match(_LABEL_VALUE, value) is None:
            errors.append(
                f"matchLabels[{key}]: Invalid value: {value!r}: a valid label value must be at most 63 characters, alphanumeric, '-', '_' or '.', starting and ending with an alphanumeric character"
            )
    return errors


def _cycles(ctx: Context, comps: list[karta.ComponentRef]) -> None:
    owner_of: dict[str, str] = {}
    path_of = {}
    for comp in comps:
        name = _name(comp.data)
        if name and name not in path_of:
            path_of[name] = comp.path
        if name and not comp.is_root and _nonempty_str(comp.data.get("ownerRef")):
            owner_of.setdefault(name, comp.data["ownerRef"])
    reported = set()
    for comp in comps:
        start = _name(comp.data)
        if comp.is_root or not start:
            continue
        seen: list[str] = []
        current: str | None = start
        while current is not None and current in owner_of:
            if current in seen:
                cycle = frozenset(seen[seen.index(current) :])
                if cycle not in reported:
                    reported.add(cycle)
                    ctx.report(
                        OWNERSHIP_CYCLE,
                        path_of[current] + ("ownerRef",),
                        f"ownership cycle detected involving component {current} "
                        f"({' -> '.join([*seen[seen.index(current) :], current])})",
                    )
                break
            seen.append(current)
            current = owner_of.get(current)


def _gang_members(ctx: Context, names: set) -> None:
    gang = karta.gang_scheduling(ctx.data)
    groups = gang.get("podGroups")
    if not isinstance(groups, list):
        return
    for gi, group in enumerate(groups):
        members = group.get("members") if isinstance(group, dict) else None
        for mi, member in enumerate(members if isinstance(members, list) else []):
            if not isinstance(member, dict):
                continue
            name = member.get("componentName")
            if name not in names:
                ctx.report(
                    UNKNOWN_GANG_MEMBER,
                    (
                        "spec",
                        "optimizationInstructions",
                        "gangScheduling",
                        "podGroups",
                        gi,
                        "members",
                        mi,
                        "componentName",
                    ),
                    f"pod-group member component '{name}' is not defined (should be a root or child component)",
                )


CHECKS = (Check(tuple(rule.id for rule in RULES), check),)
