"""Facts about the Karta resource shared by checks and evaluation: where jq lives, components.

``jq_fields`` lists every field that upstream's validator treats as jq (``jq:"validate"`` tags,
spec §2.3) with its path from the document root and its role (what it is evaluated against and
whether it must be an assignable path).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kartalint.model import Path

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


@dataclass(frozen=True)
class JqField:
    path: Path
    expression: str
    target: str  # "workload" or "pod"
    assignable: bool  # used for write-back: must be a plain path
    kind: str  # short name of the field, e.g. "replicasPath"


@dataclass(frozen=True)
class ComponentRef:
    """A component definition with its path in the document."""

    path: Path
    data: dict[str, Any]
    is_root: bool

    @property
    def name(self) -> Any:
        return self.data.get("name")


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` if it is a mapping, else an empty one (for reading malformed input safely)."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def structure(doc: Any) -> dict[str, Any]:
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


def _component_jq(path: Path, comp: dict[str, Any]) -> Iterator[JqField]:
    yield from _field((*path, "instanceIdPath"), comp.get("instanceIdPath"), "workload", False, "instanceIdPath")
    spec = as_dict(comp.get("specDefinition"))
    spath = (*path, "specDefinition")
    for key in ("podTemplateSpecPath", "podSpecPath", "metadataPath"):
        yield from _field((*spath, key), spec.get(key), "workload", True, key)
    frag = as_dict(spec.get("fragmentedPodSpecDefinition"))
    for key in FRAGMENTED_PATHS:
        yield from _field((*spath, "fragmentedPodSpecDefinition", key), frag.get(key), "workload", True, key)
    scale = as_dict(comp.get("scaleDefinition"))
    for key in SCALE_PATHS:
        yield from _field((*path, "scaleDefinition", key), scale.get(key), "workload", False, key)
    selector = as_dict(comp.get("podSelector"))
    ppath = (*path, "podSelector")
    yield from _field(
        (*ppath, "componentTypeSelector", "keyPath"),
        as_dict(selector.get("componentTypeSelector")).get("keyPath"),
        "pod",
        False,
        "keyPath",
    )
    yield from _field(
        (*ppath, "componentInstanceSelector", "idPath"),
        as_dict(selector.get("componentInstanceSelector")).get("idPath"),
        "pod",
        False,
        "idPath",
    )
    yield from _field(
        (*ppath, "replicaSelector", "keyPath"),
        as_dict(selector.get("replicaSelector")).get("keyPath"),
        "pod",
        False,
        "keyPath",
    )
    status = as_dict(comp.get("statusDefinition"))
    stpath = (*path, "statusDefinition")
    yield from _field(
        (*stpath, "phaseDefinition", "path"),
        as_dict(status.get("phaseDefinition")).get("path"),
        "workload",
        False,
        "phasePath",
    )
    yield from _field(
        (*stpath, "conditionsDefinition", "path"),
        as_dict(status.get("conditionsDefinition")).get("path"),
        "workload",
        False,
        "conditionsPath",
    )
    mappings = as_dict(status.get("statusMappings"))
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
    if not isinstance(kind, dict):
        return None
    return (str(kind.get("group") or ""), str(kind.get("version") or ""), str(kind.get("kind") or ""))


# Codes of evaluation field errors (``FieldError.code``), for code that acts on an error; the
# message is for people and may change.
FIELD_ERROR = "error"  # a jq error, a value that does not convert, anything else
COUNT_MISMATCH = "count-mismatch"  # a path gave a different number of values than there are instance ids
