"""What a CRD says about the workload as a whole, for drafting (`kartalint new --crd`): what stops its
pods (a suspend field the CRD documents as stopping them, or a stop annotation), whether it runs to
completion or declares a gang minimum (then it gets a gang; a serving workload gets none), the
counters of a status that has no phase and no conditions, and the conditions its printer columns
read when the status has no schema.

Names are not behaviour: ``paused`` that pauses a rollout stops no pod, so only a field whose
description says it stops, suspends or deletes the pods (jobs, workers, the workload) is a
suspend candidate.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from kartalint.karta import as_dict, as_list
from kartalint.scaffold.crd_status import (
    CONDITION_MEANINGS,
    MEANINGS,
    SUSPEND_FIELDS,
    PrinterColumn,
    described_values,
    meaning,
    text_of,
)

_STOPS = re.compile(
    r"\b(suspend(s|ed|ing)?|stop(s|ped|ping)?|delet(e|es|ed|ing)|terminat(e|es|ed|ing)|scal(e|es|ed) (down|to zero)|"
    r"no pods? (are|is|will be) created|create pods or not|should create pods)\b",
    re.I,
)
_STOPPED_THINGS = re.compile(
    r"\b(pods?|jobs?|containers?|workers?|replicas?|clusters?|applications?|workloads?|instances?|servers?|all)\b", re.I
)
_ROLLOUT = re.compile(r"\b(rollouts?|rolling|updates?|reconcil\w*|progress\w*)\b", re.I)
_STOP_WORD = re.compile(r"\b(stop|stops|stopped|suspend|suspends|suspended|pause|pauses|paused)\b", re.I)
_QUOTED_KEY = re.compile(r"[`\"']([A-Za-z0-9][-A-Za-z0-9_./]*)[`\"']")
COMPLETION_FIELDS = (  # fields only a workload that ends has: retries, deadlines, clean-up after it finished
    "backoffLimit",
    "backoffLimitPerIndex",
    "ttlSecondsAfterFinished",
    "timeToLiveSeconds",
    "completions",
    "completionMode",
    "successPolicy",
    "runPolicy",
    "activeDeadlineSeconds",
    "onFailureRetries",
    "maxRetries",
    "retryStrategy",
    "ttlStrategy",
)
MINIMUM_FIELDS = ("minAvailable", "minMember", "minSize", "minTaskMember", "minAvailableReplicas")
GANG_OBJECTS = re.compile(r"(?i)^(podGroupPolicy|gangPolicy|gangScheduling|gang|podGroup|schedulingPolicy)$")
READY_COUNTERS = ("readyReplicas", "availableReplicas", "readyInstances", "ready", "available")
DESIRED_COUNTERS = ("replicas", "desired", "desiredReplicas", "total", "all", "currentReplicas")


def _child(node: Any, key: str) -> dict[str, Any]:
    return as_dict(as_dict(as_dict(node).get("properties")).get(key))


def _is_pod(node: Any) -> bool:
    props = as_dict(as_dict(node).get("properties"))
    return "containers" in props or "containers" in as_dict(as_dict(props.get("spec")).get("properties"))


def documented_stop(text: str, kind: str = "") -> bool:
    """Whether a description says that the field stops the workload's pods (not a rollout's)."""
    if not text or not _STOPS.search(text) or _ROLLOUT.search(text):
        return False
    return bool(_STOPPED_THINGS.search(text) or (kind and kind.lower() in text.lower()))


def suspend_fields(schema: dict[str, Any], kind: str = "") -> list[tuple[str, str]]:
    """What stops a workload's pods, as the CRD documents it: (what, while when) for a boolean named
    suspend, stop, paused, ... under .spec (or one object down, Kubeflow's ``runPolicy.suspend``)
    whose description says it stops the pods, and for an annotation a description names for it."""
    found = []
    spec = _child(schema, "spec")
    levels = [((), spec)] + [
        ((key,), as_dict(child))
        for key, child in as_dict(spec.get("properties")).items()
        if isinstance(key, str) and as_dict(child).get("type") == "object" and not _is_pod(child)
    ]
    for prefix, level in levels:
        for key, child in as_dict(level.get("properties")).items():
            if not (isinstance(key, str) and key.lower() in SUSPEND_FIELDS and as_dict(child).get("type") == "boolean"):
                continue
            if documented_stop(text_of(child), kind):
                found.append((".spec." + ".".join((*prefix, key)), "while it is true"))
    stack: list[tuple[Any, int]] = [(schema, 0)]
    seen = 0
    while stack and seen < 5000:
        node, depth = stack.pop()
        seen += 1
        text = text_of(node)
        if "annotation" in text.lower() and _STOP_WORD.search(text):
            quoted = _QUOTED_KEY.search(text)
            what = f"the annotation {quoted.group(1)}" if quoted else f'an annotation (the CRD says: "{text[:100]}")'
            if (what, "while it is set") not in found:
                found.append((what, "while it is set"))
        if depth < 12:
            node = as_dict(node)
            props = as_dict(node.get("properties"))
            children = [v for k, v in props.items() if depth or k != "status"]
            children += [node.get("items"), node.get("additionalProperties")]
            stack.extend((child, depth + 1) for child in children if isinstance(child, dict))
    return found


def undocumented_suspends(schema: dict[str, Any], kind: str = "") -> list[str]:
    """Booleans named like a suspend under .spec whose description does not say they stop the pods."""
    spec = _child(schema, "spec")
    return [
        f".spec.{key}"
        for key, child in as_dict(spec.get("properties")).items()
        if isinstance(key, str)
        and key.lower() in SUSPEND_FIELDS
        and as_dict(child).get("type") == "boolean"
        and not documented_stop(text_of(child), kind)
    ]


def _walk_outside_pods(node: Any, depth: int = 0) -> list[tuple[str, dict[str, Any]]]:
    """(key, schema) of every property outside pod templates and specs, .status excluded."""
    out: list[tuple[str, dict[str, Any]]] = []
    if depth > 10 or _is_pod(node):
        return out
    node = as_dict(node)
    for key, child in as_dict(node.get("properties")).items():
        if not isinstance(key, str) or (depth == 0 and key == "status"):
            continue
        out.append((key, as_dict(child)))
        out.extend(_walk_outside_pods(child, depth + 1))
    for inner in (node.get("items"), node.get("additionalProperties")):
        if isinstance(inner, dict):
            out.extend(_walk_outside_pods(inner, depth + 1))
    return out


def gang_reason(schema: dict[str, Any], columns: Sequence[PrinterColumn] = ()) -> str | None:
    """Why the workload gets a gang (it runs to completion, or declares a minimum), or None (serving)."""
    fields = _walk_outside_pods(schema)
    minimum = next((k for k, _ in fields if k in MINIMUM_FIELDS), None)
    if minimum:
        return f"the CRD declares a gang minimum ({minimum})"
    gang = next((k for k, c in fields if GANG_OBJECTS.match(k) and c.get("type") in ("object", None)), None)
    if gang:
        return f"the CRD declares gang scheduling ({gang})"
    status = _child(schema, "status")
    values: list[str] = []
    for key, child in _walk_outside_pods(status):
        if child.get("type") == "string":
            values += [v for v in as_list(child.get("enum")) if isinstance(v, str)]
            if re.search(r"(?i)phase|state", key):
                values += described_values(text_of(child))
    values += [v for column in columns for v in described_values(column.description)]
    done = next((v for v in values if meaning(v)[0] == "completed"), None)
    if done:
        return f"it runs to completion (its status has {done})"
    finishing = next((k for k, _ in _walk_outside_pods(_child(schema, "spec")) if k in COMPLETION_FIELDS), None)
    if finishing:
        return f"it runs to completion (the CRD has {finishing})"
    return None


def status_counters(schema: dict[str, Any]) -> tuple[str | None, str | None]:
    """(ready counter, desired count) as jq paths: an integer under .status named like a ready
    count, and ``.spec.replicas`` or an integer under .status named like a total."""
    status = _child(schema, "status")
    props = as_dict(status.get("properties"))
    ready = next((f".status.{k}" for k in READY_COUNTERS if as_dict(props.get(k)).get("type") == "integer"), None)
    if ready is None:  # KubeAI's status.replicas.{all,ready}
        for key, child in props.items():
            inner = as_dict(as_dict(child).get("properties"))
            name = next((k for k in READY_COUNTERS if as_dict(inner.get(k)).get("type") == "integer"), None)
            total = next((k for k in DESIRED_COUNTERS if as_dict(inner.get(k)).get("type") == "integer"), None)
            if name and total:
                return f".status.{key}.{name}", f".status.{key}.{total}"
        return None, None
    spec_replicas = as_dict(_child(_child(schema, "spec"), "replicas"))
    if spec_replicas.get("type") == "integer":
        default = spec_replicas.get("default")
        return ready, f"(.spec.replicas // {default if isinstance(default, int) else 1})"
    total = next((f".status.{k}" for k in DESIRED_COUNTERS if as_dict(props.get(k)).get("type") == "integer"), None)
    return ready, total


__all__ = ["CONDITION_MEANINGS", "MEANINGS"]
