"""Per-instance fields (spec §3.3-3.5): pod templates, scale and fragments, read from jq results and accounted."""

from __future__ import annotations

from typing import Any

from kartalint.evaluation import resources
from kartalint.evaluation import values as convert
from kartalint.evaluation.jqexec import Outcome, results_of
from kartalint.evaluation.view import Component, FieldError, Instance, Scale
from kartalint.karta import COUNT_MISMATCH, FIELD_ERROR, FRAGMENTED_PATHS, SCALE_PATHS, as_dict

SPEC_PATHS = (
    ("podTemplateSpecPath", "v1.PodTemplateSpec"),
    ("podSpecPath", "v1.PodSpec"),
    ("metadataPath", "v1.ObjectMeta"),
)


_FRAGMENT_TYPES = {
    "schedulerNamePath": "string",
    "labelsPath": "map",
    "annotationsPath": "map",
    "resourcesPath": "v1.ResourceRequirements",
    "resourceClaimsPath": "[]v1.PodResourceClaim",
    "podAffinityPath": "v1.PodAffinity",
    "nodeAffinityPath": "v1.NodeAffinity",
    "containersPath": "[]v1.Container",
    "containerPath": "v1.Container",
    "priorityClassNamePath": "string",
    "imagePath": "string",
}


_FRAGMENT_KEYS = {
    "schedulerNamePath": "schedulerName",
    "labelsPath": "labels",
    "annotationsPath": "annotations",
    "resourcesPath": "resources",
    "resourceClaimsPath": "resourceClaims",
    "podAffinityPath": "podAffinity",
    "nodeAffinityPath": "nodeAffinity",
    "containersPath": "containers",
    "containerPath": "container",
    "priorityClassNamePath": "priorityClassName",
    "imagePath": "image",
}


def extract_specs(
    data: dict[str, Any], ids: list[str], ordered: list[Instance], outcomes: dict[str, Outcome], comp: Component
) -> None:
    spec = as_dict(data.get("specDefinition"))
    for key, type_name in SPEC_PATHS:
        field_name = f"specDefinition.{key}"
        results = field_results(comp, field_name, spec.get(key), outcomes)
        if results is None:
            continue
        try:
            values = [convert.to_object(v, i, type_name) for i, v in enumerate(results)]
            zip_check(ids, len(values))
        except (ExtractionError, convert.ConversionError) as exc:
            comp.errors.append(field_error(field_name, exc))
            continue
        attr = {"podTemplateSpecPath": "pod_template", "podSpecPath": "pod_spec", "metadataPath": "metadata"}[key]
        for instance, value in zip(ordered, values, strict=False):
            setattr(instance, attr, value)


def extract_scale(
    data: dict[str, Any], ids: list[str], ordered: list[Instance], outcomes: dict[str, Outcome], comp: Component
) -> None:
    scale_def = data.get("scaleDefinition")
    if not isinstance(scale_def, dict):
        return
    columns: dict[str, list[int | None]] = {}
    failed = False
    for key in SCALE_PATHS:
        field_name = f"scaleDefinition.{key}"
        expression = scale_def.get(key)
        if not isinstance(expression, str) or expression == "":
            columns[key] = []
            continue
        results = field_results(comp, field_name, expression, outcomes)
        if results is None:
            failed = True
            continue
        try:
            columns[key] = [convert.to_replicas(v, i) for i, v in enumerate(results)]
        except convert.ConversionError as exc:
            comp.errors.append(field_error(field_name, exc))
            failed = True
    if failed:
        for instance in ordered:
            instance.scale_failed = True
        return
    count = max(len(column) for column in columns.values())
    try:
        zip_check(ids, count)
    except ExtractionError as exc:
        comp.errors.append(field_error("scaleDefinition", exc))
        for instance in ordered:
            instance.scale_failed = True
        return
    for index, instance in enumerate(ordered):

        def at(key: str, index: int = index) -> int | None:
            column = columns.get(key, [])
            return column[index] if index < len(column) else None

        instance.scale = Scale(replicas=at("replicasPath"), min=at("minReplicasPath"), max=at("maxReplicasPath"))


def _fragment_value(key: str, value: Any, index: int) -> Any:
    kind = _FRAGMENT_TYPES[key]
    if kind == "string":
        return convert.to_string(value, index)
    if kind == "map":
        return convert.to_string_map(value, index)
    if kind.startswith("[]"):
        return convert.to_object_list(value, index, kind)
    return convert.to_object(value, index, kind) if value is not None else None


def extract_fragments(
    data: dict[str, Any], ids: list[str], ordered: list[Instance], outcomes: dict[str, Outcome], comp: Component
) -> None:
    frag = as_dict(data.get("specDefinition")).get("fragmentedPodSpecDefinition")
    if not isinstance(frag, dict):
        return
    columns: dict[str, list[Any]] = {}
    failed = False
    for key in FRAGMENTED_PATHS:
        field_name = f"specDefinition.fragmentedPodSpecDefinition.{key}"
        results = field_results(comp, field_name, frag.get(key), outcomes)
        if results is None:
            failed = failed or (isinstance(frag.get(key), str) and frag.get(key) != "")
            continue
        try:
            columns[key] = [_fragment_value(key, v, i) for i, v in enumerate(results)]
        except convert.ConversionError as exc:
            comp.errors.append(field_error(field_name, exc))
            failed = True
    if failed:
        return
    count = max((len(c) for c in columns.values()), default=0)
    try:
        zip_check(ids, count)
    except ExtractionError as exc:
        comp.errors.append(field_error("specDefinition.fragmentedPodSpecDefinition", exc))
        return
    for index, instance in enumerate(ordered):
        instance.fragments = {
            _FRAGMENT_KEYS[key]: column[index] for key, column in columns.items() if index < len(column)
        }


def account(instance: Instance, comp: Component) -> None:
    label = "" if instance.id is None else f"[{instance.id}]"
    try:
        if instance.pod_template is not None or instance.pod_spec is not None:
            instance.per_replica = resources.pod_spec(instance.effective_pod_spec)
        elif instance.fragments is not None:
            instance.per_replica = resources.fragments(instance.fragments)
    except resources.ResourceError as exc:
        comp.errors.append(FieldError("specDefinition", f"instance{label}: {exc}"))


class ExtractionError(Exception):
    def __init__(self, message: str, code: str = FIELD_ERROR) -> None:
        super().__init__(message)
        self.code = code


def field_error(field_name: str, exc: Exception) -> FieldError:
    return FieldError(field_name, str(exc), getattr(exc, "code", FIELD_ERROR))


def expression_results(outcomes: dict[str, Outcome], expression: str) -> list[Any]:
    return results_of(outcomes, expression, ExtractionError)


def zip_check(ids: list[str], count: int) -> None:
    if count != len(ids):
        raise ExtractionError(f"instance ids count ({len(ids)}) does not match results count ({count})", COUNT_MISMATCH)


def field_results(comp: Component, field_name: str, expression: Any, outcomes: dict[str, Outcome]) -> list[Any] | None:
    if not isinstance(expression, str) or expression == "":
        return None
    try:
        return expression_results(outcomes, expression)
    except ExtractionError as exc:
        comp.errors.append(field_error(field_name, exc))
        return None
