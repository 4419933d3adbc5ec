"""Facts about the Karta resource shared by checks and evaluation: where jq lives, components.

``jq_fields`` lists every field that upstream's validator treats as jq (``jq:"validate"`` tags,
spec §2.3) with its path from the document root and its role (what it is evaluated against and
whether it must be an assignable path).
"""

from __future__ import annotations

from collections.abc import Iterator

from kartalint.model import Frozen, Path, set_field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

FRAGMENTED_PATHS = (
    "schedulerNamePath",
    "labelsPath",
    "annotationsPath",
    "resourcesPath",
    "resourceClaimsPath",
    "podAffinityPath",
    "nodeAffinityPath",
    "containersPath",
    "containerPath",
    "priorityClassNamePath",
    "imagePath",
)
SCALE_PATHS = ("replicasPath", "minReplicasPath", "maxReplicasPath")
STATUS_ORDER = ("Resuming", "Suspending", "Suspended", "Running", "Failed", "Completed", "Initializing", "Degraded")
MAPPING_KEYS = {s.lower(): s for s in STATUS_ORDER}
CONDITION_FIELD_DEFAULTS = {
    "typeFieldName": "type",
    "statusFieldName": "status",
    "messageFieldName": "message",
    "reasonFieldName": "reason",
}


class JqField(Frozen):
    """A jq field of a definition: its path in the document, expression, whether it runs on the workload or a pod,
    whether it must be a plain path (written back), and its kind (``replicasPath``, ...)."""

    __slots__ = ("assignable", "expression", "kind", "path", "target")
    path: Path
    expression: str
    target: str  # "workload" or "pod"
    assignable: bool  # used for write-back: must be a plain path
    kind: str  # short name of the field, e.g. "replicasPath"

    def __init__(self, path: Path, expression: str, target: str, assignable: bool, kind: str) -> None:
        """The field at ``path`` holding ``expression``."""
        set_field(self, "path", path)
        set_field(self, "expression", expression)
        set_field(self, "target", target)
        set_field(self, "assignable", assignable)
        set_field(self, "kind", kind)


class ComponentRef(Frozen):
    """A component definition with its path in the document."""

    __slots__ = ("data", "is_root", "path")
    path: Path
    data: dict[str, Any]
    is_root: bool

    def __init__(self, path: Path, data: dict[str, Any], is_root: bool) -> None:
        """The component ``data`` at ``path``."""
        set_field(self, "path", path)
        set_field(self, "data", data)
        set_field(self, "is_root", is_root)

    @property
    def name(self) -> Any:
        """The component's ``name`` (any value: not checked)."""
        return self.data.get("name")


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` if it is a mapping, else an empty one (for reading malformed input safely)."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    """``value`` when it is a list, else []."""
    return value if isinstance(value, list) else []


def structure(doc: Any) -> dict[str, Any]:
    """The ``spec.structureDefinition`` of a definition ({} when missing)."""
    return as_dict(as_dict(as_dict(doc).get("spec")).get("structureDefinition"))


def components(doc: Any) -> list[ComponentRef]:
    """Root first, then children in list order (only mapping entries)."""
    sd = structure(doc)
    base: Path = ("spec", "structureDefinition")
    out: list[ComponentRef] = []
    root = sd.get("rootComponent")
    if isinstance(root, dict):
        out.append(ComponentRef((*base, "rootComponent"), root, True))
    for i, child in enumerate(as_list(sd.get("childComponents"))):
        if isinstance(child, dict):
            out.append(ComponentRef((*base, "childComponents", i), child, False))
    return out


def gang_scheduling(doc: Any) -> dict[str, Any]:
    """The ``spec.optimizationInstructions.gangScheduling`` of a definition ({} when missing)."""
    return as_dict(as_dict(as_dict(as_dict(doc).get("spec")).get("optimizationInstructions")).get("gangScheduling"))


def jq_fields(doc: Any) -> Iterator[JqField]:
    """Every jq expression of a definition that upstream validates (non-empty strings)."""
    for comp in components(doc):
        yield from _component_jq(comp.path, comp.data)
    gang = gang_scheduling(doc)
    gpath: Path = ("spec", "optimizationInstructions", "gangScheduling")
    for gi, group in enumerate(as_list(gang.get("podGroups"))):
        for mi, member in enumerate(as_list(as_dict(group).get("members"))):
            mpath = (*gpath, "podGroups", gi, "members", mi)
            for key in ("groupByKeyPaths", "filters"):
                for k, expr in enumerate(as_list(as_dict(member).get(key))):
                    yield from _field((*mpath, key, k), expr, "pod", False, key)


def _field(path: Path, value: Any, target: str, assignable: bool, kind: str) -> Iterator[JqField]:
    if isinstance(value, str) and value != "":
        yield JqField(path, value, target, assignable, kind)


# The jq fields a component has at a fixed place: (path inside the component, what it is evaluated
# against, whether it must be an assignable path, its short name); in the order jq_fields lists them.
_COMPONENT_FIELDS: tuple[tuple[tuple[str, ...], str, bool, str], ...] = (
    (("instanceIdPath",), "workload", False, "instanceIdPath"),
    *(
        (("specDefinition", key), "workload", True, key)
        for key in ("podTemplateSpecPath", "podSpecPath", "metadataPath")
    ),
    *((("specDefinition", "fragmentedPodSpecDefinition", key), "workload", True, key) for key in FRAGMENTED_PATHS),
    *((("scaleDefinition", key), "workload", False, key) for key in SCALE_PATHS),
    (("podSelector", "componentTypeSelector", "keyPath"), "pod", False, "keyPath"),
    (("podSelector", "componentInstanceSelector", "idPath"), "pod", False, "idPath"),
    (("podSelector", "replicaSelector", "keyPath"), "pod", False, "keyPath"),
    (("statusDefinition", "phaseDefinition", "path"), "workload", False, "phasePath"),
    (("statusDefinition", "conditionsDefinition", "path"), "workload", False, "conditionsPath"),
)


def _groups(
    fields: tuple[tuple[tuple[str, ...], str, bool, str], ...],
) -> tuple[tuple[tuple[str, ...], tuple[tuple[str, str, bool, str], ...]], ...]:
    """``fields`` grouped by the mapping that holds them (in order): each mapping is read once."""
    groups: list[tuple[tuple[str, ...], list[tuple[str, str, bool, str]]]] = []
    for where, target, assignable, kind in fields:
        if not groups or groups[-1][0] != where[:-1]:
            groups.append((where[:-1], []))
        groups[-1][1].append((where[-1], target, assignable, kind))
    return tuple((prefix, tuple(members)) for prefix, members in groups)


_COMPONENT_GROUPS = _groups(_COMPONENT_FIELDS)


def _component_jq(path: Path, comp: dict[str, Any]) -> Iterator[JqField]:
    for prefix, members in _COMPONENT_GROUPS:
        holder: Any = comp
        for key in prefix:
            holder = holder.get(key)
            if not isinstance(holder, dict):
                break
        else:
            for key, target, assignable, kind in members:
                value = holder.get(key)
                if isinstance(value, str) and value != "":
                    yield JqField((*path, *prefix, key), value, target, assignable, kind)
    stpath = (*path, "statusDefinition")
    mappings = as_dict(as_dict(comp.get("statusDefinition")).get("statusMappings"))
    for key in mappings:
        for mi, matcher in enumerate(as_list(mappings.get(key))):
            expr = as_dict(as_dict(matcher).get("byExpression")).get("expression")
            yield from _field(
                (*stpath, "statusMappings", key, mi, "byExpression", "expression"),
                expr,
                "workload",
                False,
                "expression",
            )
    suspend = as_dict(comp.get("suspendDefinition"))
    for key in ("suspendActions", "resumeActions"):
        for ai, action in enumerate(as_list(suspend.get(key))):
            yield from _field(
                (*path, "suspendDefinition", key, ai, "path"),
                as_dict(action).get("path"),
                "workload",
                True,
                "actionPath",
            )


def gvk_of(kind: Any) -> tuple[str, str, str] | None:
    """The group/version/kind of a component's ``kind`` mapping, or None when it is not one."""
    if not isinstance(kind, dict):
        return None
    return (str(kind.get("group") or ""), str(kind.get("version") or ""), str(kind.get("kind") or ""))


# Codes of evaluation field errors (``FieldError.code``), for code that acts on an error; the
# message is for people and may change.
FIELD_ERROR = "error"  # a jq error, a value that does not convert, anything else
COUNT_MISMATCH = "count-mismatch"  # a path gave a different number of values than there are instance ids
