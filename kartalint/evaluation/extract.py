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


# (field name, expression, Go type, Instance attribute) of a set specDefinition path
SpecField = tuple[str, str, str, str]
# (scaleDefinition key, field name, expression) of a set path
ScaleField = tuple[str, str, str]
# (fragmentedPodSpecDefinition key, field name, expression, pod field it fills) of a set path
FragmentField = tuple[str, str, str, str]

_SPEC_ATTRS = {"podTemplateSpecPath": "pod_template", "podSpecPath": "pod_spec", "metadataPath": "metadata"}


def _set(expression: Any) -> str | None:
    """The expression of a path field, or None when it is not set (missing, not a string or empty)."""
    return expression if isinstance(expression, str) and expression != "" else None


def plan_specs(data: dict[str, Any]) -> tuple[SpecField, ...]:
    """The set ``specDefinition`` paths of a component, in the order they are extracted."""
    spec = as_dict(data.get("specDefinition"))
    return tuple(
        (f"specDefinition.{key}", expression, type_name, _SPEC_ATTRS[key])
        for key, type_name in SPEC_PATHS
        if (expression := _set(spec.get(key))) is not None
    )


def plan_scale(data: dict[str, Any]) -> tuple[ScaleField, ...] | None:
    """The set ``scaleDefinition`` paths of a component (None without a ``scaleDefinition`` mapping:
    the instances then have no scale; an empty tuple: they have one, with nothing set)."""
    scale_def = data.get("scaleDefinition")
    if not isinstance(scale_def, dict):
        return None
    return tuple(
        (key, f"scaleDefinition.{key}", expression)
        for key in SCALE_PATHS
        if (expression := _set(scale_def.get(key))) is not None
    )


def plan_fragments(data: dict[str, Any]) -> tuple[FragmentField, ...] | None:
    """The set ``fragmentedPodSpecDefinition`` paths of a component (None without that mapping)."""
    frag = as_dict(data.get("specDefinition")).get("fragmentedPodSpecDefinition")
    if not isinstance(frag, dict):
        return None
    return tuple(
        (key, f"specDefinition.fragmentedPodSpecDefinition.{key}", expression, _FRAGMENT_KEYS[key])
        for key in FRAGMENTED_PATHS
        if (expression := _set(frag.get(key))) is not None
    )


def extract_specs(
    fields: tuple[SpecField, ...],
    ids: list[str],
    ordered: list[Instance],
    outcomes: dict[str, Outcome],
    comp: Component,
) -> None:
    """Set each instance's ``pod_template``, ``pod_spec`` and ``metadata`` from the set paths of the
    component's ``specDefinition`` (``plan_specs``; one result per instance id). A path whose run
    fails, whose result does not convert, or that gives a different count records a field error on
    ``comp`` and sets nothing."""
    for field_name, expression, type_name, attr in fields:
        outcome = outcomes.get(expression)
        if outcome is not None and outcome.error is not None:
            comp.errors.append(field_error(field_name, ExtractionError(outcome.error)))
            continue
        values: list[Any] = [] if outcome is None else outcome.results
        try:
            if any(type(value) is not dict for value in values):  # objects as they are, null as {}
                values = [convert.to_object(v, i, type_name) for i, v in enumerate(values)]
            zip_check(ids, len(values))
        except (ExtractionError, convert.ConversionError) as exc:
            comp.errors.append(field_error(field_name, exc))
            continue
        for instance, value in zip(ordered, values, strict=False):
            setattr(instance, attr, value)


def extract_scale(
    fields: tuple[ScaleField, ...],
    ids: list[str],
    ordered: list[Instance],
    outcomes: dict[str, Outcome],
    comp: Component,
) -> None:
    """Set each instance's ``scale`` from the ``scaleDefinition`` paths (``plan_scale``: replicas,
    min, max; None where a path is not set or gives null). When a path fails or the counts differ
    from the instance ids, the error goes on ``comp`` and every instance is marked ``scale_failed``
    (its desired replicas unknown)."""
    columns: dict[str, list[int | None]] = {}
    failed = False
    for key, field_name, expression in fields:
        outcome = outcomes.get(expression)
        if outcome is None:
            results = []
        elif outcome.error is not None:
            comp.errors.append(field_error(field_name, ExtractionError(outcome.error)))
            failed = True
            continue
        else:
            results = outcome.results
        try:
            columns[key] = [convert.to_replicas(v, i) for i, v in enumerate(results)]
        except convert.ConversionError as exc:
            comp.errors.append(field_error(field_name, exc))
            failed = True
    if failed:
        for instance in ordered:
            instance.scale_failed = True
        return
    count = max((len(column) for column in columns.values()), default=0)
    try:
        zip_check(ids, count)
    except ExtractionError as exc:
        comp.errors.append(field_error("scaleDefinition", exc))
        for instance in ordered:
            instance.scale_failed = True
        return
    replicas = columns.get("replicasPath", [])
    low = columns.get("minReplicasPath", [])
    high = columns.get("maxReplicasPath", [])
    if len(replicas) == len(ordered) and not low and not high:  # a replicas path alone (the usual)
        for instance, value in zip(ordered, replicas, strict=True):
            instance.scale = Scale(value)
        return
    for index, instance in enumerate(ordered):
        instance.scale = Scale(
            replicas[index] if index < len(replicas) else None,
            low[index] if index < len(low) else None,
            high[index] if index < len(high) else None,
        )


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
    fields: tuple[FragmentField, ...],
    ids: list[str],
    ordered: list[Instance],
    outcomes: dict[str, Outcome],
    comp: Component,
) -> None:
    """Set each instance's ``fragments`` from the set ``fragmentedPodSpecDefinition`` paths
    (``plan_fragments``), keyed by the pod field each fills (``labels``, ``containers``,
    ``resources``, ...). On any error the error goes on ``comp`` and no instance gets fragments
    (they stay None)."""
    columns: dict[str, list[Any]] = {}
    failed = False
    for key, field_name, expression, filled in fields:
        try:
            results = expression_results(outcomes, expression)
        except ExtractionError as exc:
            comp.errors.append(field_error(field_name, exc))
            failed = True
            continue
        try:
            columns[filled] = [_fragment_value(key, v, i) for i, v in enumerate(results)]
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
        instance.fragments = {filled: column[index] for filled, column in columns.items() if index < len(column)}


def account(instance: Instance, comp: Component) -> None:
    """Set ``instance.per_replica`` from its pod template or pod spec, else from its fragments. A
    quantity Kubernetes would refuse records a ``specDefinition`` error on ``comp`` and counts nothing."""
    try:
        if instance.pod_template is not None or instance.pod_spec is not None:
            instance.per_replica = resources.pod_spec(instance.effective_pod_spec)
        elif instance.fragments is not None:
            instance.per_replica = resources.fragments(instance.fragments)
    except resources.ResourceError as exc:
        label = "" if instance.id is None else f"[{instance.id}]"
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
