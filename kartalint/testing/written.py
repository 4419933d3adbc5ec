"""What an operator writes, and what a definition makes of it: ``written-values.yaml``.

Next to a definition's fixtures (``fixtures/<definition name>/written-values.yaml``) a file of
``kind: KartaWrittenValues`` lists every phase or condition the operator writes in the status the
definition reads, taken from the operator's source (``source:`` names the repository, commit and
files), each with the status the definition should give it (``Undefined`` when it deliberately
claims none, with a ``note`` saying why)::

    kind: KartaWrittenValues
    source: kubeflow/spark-operator@38082f3 api/v1beta2/sparkapplication_types.go
    base: {spec: {...}}                 # optional: fields every value is evaluated with
    values:
    - phase: RUNNING                    # written at the definition's phase path
      status: Running
    - condition: {type: Failed, status: "True"}   # or conditions: [...], at its conditions path
      status: Failed
    - value: active jobs, none ready    # anything else: a label and the object fields
      object: {status: {replicatedJobsStatus: [{name: a, active: 1}]}}
      status: Initializing
    - phase: UNKNOWN
      status: Undefined
      note: the driver pod's state cannot be read

An operator that writes its status differently per deployment mode lists the modes, with the
versions each covers, and then names the mode of every value and cites the code that writes it::

    modes:
    - mode: serverless
      versions: KServe v0.19.0, v0.20.0
      source: kserve/kserve@aaac4e2 pkg/apis/serving/v1beta1/inference_service_status.go
    values:
    - mode: serverless                  # or a list of modes written alike
      source: PropagateStatus (the Knative Service's conditions)
      conditions: [...]
      status: Initializing

With ``modes`` every value names modes it lists and has its ``source``, and every mode has a
value.

``evaluate`` applies the definition to each value (docs/catalog.md shows what it gives, a test
compares it with ``status``); ``unwritten`` lists the definition's phases and condition types
that no written value carries (a mapping of something the operator never writes).
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass, field
from typing import Any

from kartalint import karta
from kartalint.errors import UsageError
from kartalint.jqlang import parse_cached, paths
from kartalint.load.confinement import ReadRefused, read_confined, repository_of
from kartalint.load.documents import MAX_FILE_BYTES, load_text
from kartalint.model import Severity

FILE_NAME = "written-values.yaml"
KIND = "KartaWrittenValues"


class WrittenValuesError(UsageError, ValueError):
    """A written-values file that cannot be read or does not follow the format (its path and the
    place or entry in the message; a command stops with exit code 2)."""


@dataclass
class WrittenValue:
    """A value the operator writes, as its docs show it: its label, the statuses the definition should give, and
    the object's phase, conditions and fields (in the modes that write it)."""

    label: str  # what the docs show: the phase, Type=Status, or the entry's `value`
    status: list[str]  # what the definition should give
    note: str = ""
    phase: str | None = None
    conditions: list[dict[str, Any]] | None = None
    fields: dict[str, Any] = field(default_factory=dict)  # `object`
    modes: list[str] = field(default_factory=list)  # the deployment modes that write it (`mode`)
    source: str = ""  # the code that writes it


@dataclass
class WrittenMode:
    """A deployment mode of the operator: its name, the versions its values cover, its source."""

    name: str
    versions: str
    source: str = ""


@dataclass
class WrittenValues:
    """The written values of one definition, read from its file: the base object, the deployment modes, the values."""

    path: str
    source: str
    values: list[WrittenValue]
    base: dict[str, Any] = field(default_factory=dict)
    modes: list[WrittenMode] = field(default_factory=list)


def find(fixtures: str, definition_name: str) -> str | None:
    """The written values' file of ``definition_name`` under ``fixtures``, or None."""
    path = os.path.join(fixtures, definition_name, FILE_NAME)
    return path if os.path.isfile(path) else None


def _text(value: Any, where: str, key: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str) or not value.strip():
        raise WrittenValuesError(f"{where}: '{key}' must be a non-empty string")
    return " ".join(value.split())


def _modes(data: Any, path: str) -> list[WrittenMode]:
    out: list[WrittenMode] = []
    for number, entry in enumerate(karta.as_list(data), 1):
        where = f"{path}: modes[{number}]"
        if not isinstance(entry, dict):
            raise WrittenValuesError(f"{where}: must be a mapping with 'mode' and 'versions'")
        name, versions = _text(entry.get("mode"), where, "mode"), _text(entry.get("versions"), where, "versions")
        if not name or not versions:
            raise WrittenValuesError(f"{where}: a mode needs 'mode' (its name) and 'versions' (the versions covered)")
        if any(m.name == name for m in out):
            raise WrittenValuesError(f"{where}: mode '{name}' is listed twice")
        out.append(WrittenMode(name, versions, _text(entry.get("source"), where, "source")))
    return out


def _value_modes(entry: dict[str, Any], modes: list[WrittenMode], where: str) -> list[str]:
    named = entry.get("mode")
    listed = named if isinstance(named, list) else [] if named is None else [named]
    if not all(isinstance(m, str) and m for m in listed):
        raise WrittenValuesError(f"{where}: 'mode' must be a mode name or a list of them")
    known = [m.name for m in modes]
    if not known:
        if listed:
            raise WrittenValuesError(f"{where}: 'mode' names a mode, but the file lists no 'modes'")
        return []
    if not listed:
        raise WrittenValuesError(f"{where}: the file lists modes, so each value names its 'mode' ({', '.join(known)})")
    unknown = [m for m in listed if m not in known]
    if unknown:
        raise WrittenValuesError(f"{where}: mode {unknown[0]!r} is not among the modes listed ({', '.join(known)})")
    return list(listed)


def _statuses(value: Any, where: str) -> list[str]:
    listed = value if isinstance(value, list) else [value]
    if not listed or not all(isinstance(s, str) and s for s in listed):
        raise WrittenValuesError(f"{where}: 'status' must be a status name or a list of them")
    return list(listed)


def load(path: str) -> WrittenValues:
    """The written values of the file at ``path``, read as every project file is (inside its
    repository, a regular file, bounded: ``read_confined``) and parsed by the positioned loader
    (its limits on aliases, nesting and values)."""

    try:
        text = read_confined(path, [repository_of(path)], MAX_FILE_BYTES, "the written-values file").decode(
            "utf-8", "replace"
        )
    except ReadRefused as exc:
        raise WrittenValuesError(str(exc)) from None
    loaded = load_text(text, path)
    bad = [f for f in loaded.findings if f.severity == Severity.ERROR]
    if bad:
        raise WrittenValuesError(f"{path}:{bad[0].line}:{bad[0].column}: {bad[0].message}")
    data = loaded.documents[0].data if len(loaded.documents) == 1 else None
    if not isinstance(data, dict) or data.get("kind") != KIND:
        raise WrittenValuesError(f"{path}: not a {KIND} document")
    source = data.get("source")
    if not isinstance(source, str) or not source.strip():
        raise WrittenValuesError(f"{path}: 'source' must say where the values come from")
    out = WrittenValues(path, source.strip(), [], karta.as_dict(data.get("base")), _modes(data.get("modes"), path))
    for number, entry in enumerate(karta.as_list(data.get("values")), 1):
        where = f"{path}: values[{number}]"
        if not isinstance(entry, dict):
            raise WrittenValuesError(f"{where}: must be a mapping")
        conditions = entry.get("conditions") or ([entry["condition"]] if "condition" in entry else None)
        phase = entry.get("phase")
        if conditions is not None and not all(
            isinstance(c, dict) and isinstance(c.get("type"), str) for c in conditions
        ):
            raise WrittenValuesError(f"{where}: a condition is a mapping with a 'type'")
        label = entry.get("value")
        if label is None:
            parts = [f'"{phase}"' if phase == "" else str(phase)] if isinstance(phase, str) else []
            parts += [
                f"{c['type']}={c.get('status', 'True')}" + (f" ({c['reason']})" if c.get("reason") else "")
                for c in conditions or []
            ]
            label = ", ".join(parts)
        if not isinstance(label, str) or not label:
            raise WrittenValuesError(f"{where}: give a 'phase', a 'condition' or a 'value' label with 'object'")
        value = WrittenValue(
            label=label,
            status=_statuses(entry.get("status"), where),
            note=str(entry.get("note") or ""),
            phase=phase if isinstance(phase, str) else None,
            conditions=conditions,
            fields=karta.as_dict(entry.get("object")),
            modes=_value_modes(entry, out.modes, where),
            source=_text(entry.get("source"), where, "source"),
        )
        if value.status == ["Undefined"] and not value.note:
            raise WrittenValuesError(f"{where}: a value left Undefined needs a 'note' saying why")
        if out.modes and not value.source:
            raise WrittenValuesError(
                f"{where}: the file lists modes, so each value cites the code that writes it in 'source'"
            )
        out.values.append(value)
    if not out.values:
        raise WrittenValuesError(f"{path}: 'values' lists nothing")
    silent = [m.name for m in out.modes if not any(m.name in v.modes for v in out.values)]
    if silent:
        raise WrittenValuesError(f"{path}: mode {silent[0]!r} is listed, but no value is written in it")
    return out


def _merge(into: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = copy.deepcopy(value)
    return into


def _plain(expression: Any) -> tuple[str, ...] | None:
    if not isinstance(expression, str):
        return None
    tree, error = parse_cached(expression)
    out = paths.output_path(tree) if error is None and tree is not None else None
    return tuple(out) if out and not any(part.startswith("[") for part in out) else None


def _put(obj: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    node = obj
    for part in path[:-1]:
        if not isinstance(node.get(part), dict):
            node[part] = {}
        node = node[part]
    node[path[-1]] = value


def _status_definition(definition: Any) -> dict[str, Any]:
    refs = karta.components(definition)
    return karta.as_dict(refs[0].data.get("statusDefinition")) if refs else {}


def object_for(definition: Any, written: WrittenValues, value: WrittenValue) -> dict[str, Any]:
    """The object a written value is evaluated on."""
    gvk = karta.gvk_of(karta.as_dict(karta.structure(definition).get("rootComponent")).get("kind")) or ("", "", "")
    obj: dict[str, Any] = {
        "apiVersion": f"{gvk[0]}/{gvk[1]}" if gvk[0] else gvk[1],
        "kind": gvk[2],
        "metadata": {"name": "written", "namespace": "default", "uid": "written-uid"},
        "spec": {},
    }
    _merge(obj, written.base)
    _merge(obj, value.fields)
    status = _status_definition(definition)
    if value.phase is not None:
        where = _plain(karta.as_dict(status.get("phaseDefinition")).get("path"))
        if where is None:
            raise WrittenValuesError(f"{written.path}: {value.label}: the definition reads no plain phase path")
        _put(obj, where, value.phase)
    if value.conditions is not None:
        definition_of = karta.as_dict(status.get("conditionsDefinition"))
        where = _plain(definition_of.get("path"))
        if where is None:
            raise WrittenValuesError(f"{written.path}: {value.label}: the definition reads no plain conditions path")
        names = {k: definition_of.get(f"{k}FieldName") or k for k in ("type", "status", "reason")}
        listed = []
        for condition in value.conditions:
            entry = {names["type"]: condition["type"], names["status"]: condition.get("status", "True")}
            if "reason" in condition:
                entry[names["reason"]] = condition["reason"]
            listed.append(entry)
        _put(obj, where, listed)
    return obj


def evaluate(definition: Any, written: WrittenValues, evaluator: Any) -> list[tuple[WrittenValue, list[str]]]:
    """(value, the statuses the definition gives it) for every written value."""
    return [
        (value, list(evaluator.evaluate(definition, object_for(definition, written, value)).statuses))
        for value in written.values
    ]


def unwritten(definition: Any, written: WrittenValues) -> list[str]:
    """The definition's ``byPhase`` values and ``byConditions`` types no written value carries."""
    phases = {v.phase for v in written.values if v.phase is not None}
    types = {c["type"] for v in written.values for c in v.conditions or []}
    for value in written.values:  # conditions written through `object`
        for listed in _find_lists(value.fields):
            types |= {c.get("type") for c in listed if isinstance(c, dict) and isinstance(c.get("type"), str)}
    out = []
    for status, matchers in karta.as_dict(_status_definition(definition).get("statusMappings")).items():
        for matcher in karta.as_list(matchers):
            matcher = karta.as_dict(matcher)
            phase = matcher.get("byPhase")
            if isinstance(phase, str) and phase and phase not in phases:
                out.append(f"{status}: byPhase {phase}")
            for entry in karta.as_list(matcher.get("byConditions")):
                kind = karta.as_dict(entry).get("type")
                if isinstance(kind, str) and kind not in types:
                    out.append(f"{status}: byConditions type {kind}")
    return out


def _find_lists(node: Any) -> list[list[Any]]:
    if isinstance(node, list):
        return [node] + [found for item in node for found in _find_lists(item)]
    if isinstance(node, dict):
        return [found for value in node.values() for found in _find_lists(value)]
    return []
