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
    """Set each instance's ``pod_template``, ``pod_spec`` and ``metadata`` from the paths of the
    component's ``specDefinition`` (one result per instance id). A path whose run fails, whose result
    does not convert, or that gives a different count records a field error on ``comp`` and sets
    nothing."""
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
    """Set each instance's ``scale`` from the ``scaleDefinition`` paths (replicas, min, max; None where
    a path is not set or gives null). When a path fails or the counts differ from the instance ids, the
    error goes on ``comp`` and every instance is marked ``scale_failed`` (its desired replicas
    unknown)."""
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
    """Set each instance's ``fragments`` from the ``fragmentedPodSpecDefinition`` paths, keyed by the
    pod field each fills (``labels``, ``containers``, ``resources``, ...). On any error the error goes
    on ``comp`` and no instance gets fragments (they stay None)."""
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
    """Set ``instance.per_replica`` from its pod template or pod spec, else from its fragments. A
    quantity Kubernetes would refuse records a ``specDefinition`` error on ``comp`` and counts nothing."""
    label = "" if instance.id is None else f"[{instance.id}]"
    try:
        if instance.pod_template is not None or instance.pod_spec is not None:
            instance.per_replica = resources.pod_spec(instance.effective_pod_spec)
        elif instance.fragments is not None:
            instance.per_replica = resources.fragments(instance.fragments)
    except resources.ResourceError as exc:
        comp.errors.append(FieldError("specDefinition", f"instance{label}: {exc}"))


class ExtractionError(Exception):
    """A jq result that cannot become its field's value; ``code`` is one of ``kartalint.karta``'s error
    codes (``FIELD_ERROR``, ``COUNT_MISMATCH``) and travels into the ``FieldError``."""

    def __init__(self, message: str, code: str = FIELD_ERROR) -> None:
        """``message`` is the error's text; ``code`` says what kind of problem it is (``FIELD_ERROR`` unless given)."""
        super().__init__(message)
        self.code = code


def field_error(field_name: str, exc: Exception) -> FieldError:
    """The ``FieldError`` of ``field_name`` for ``exc``, with the exception's ``code`` when it has one
    (else ``FIELD_ERROR``)."""
    return FieldError(field_name, str(exc), getattr(exc, "code", FIELD_ERROR))


def expression_results(outcomes: dict[str, Outcome], expression: str) -> list[Any]:
    """The jq results of ``expression`` (empty when it was not run); its jq error raises ``ExtractionError``."""
    return results_of(outcomes, expression, ExtractionError)


def zip_check(ids: list[str], count: int) -> None:
    """Raise an ``ExtractionError`` (``COUNT_MISMATCH``) unless a path gave one value per instance id."""
    if count != len(ids):
        raise ExtractionError(f"instance ids count ({len(ids)}) does not match results count ({count})", COUNT_MISMATCH)


def field_results(comp: Component, field_name: str, expression: Any, outcomes: dict[str, Outcome]) -> list[Any] | None:
    """The jq results of a field's expression, or None when the field has no expression (missing, not a
    string or empty) or its run failed (the error is then recorded on ``comp``)."""
    if not isinstance(expression, str) or expression == "":
        return None
    try:
        return expression_results(outcomes, expression)
    except ExtractionError as exc:
        comp.errors.append(field_error(field_name, exc))
        return None
