"""karta-verify predictions (docs/replay-and-verify.md in ../shared): the observation a prediction is compared with, and the comparison."""

from __future__ import annotations

from typing import Any

from kartalint.evaluation.view import Component, WorkloadView
from kartalint.testing.compare import Diff


def verify_observation(view: WorkloadView) -> dict[str, Any]:
    """karta-verify's observation: ``status`` and one entry per component instance, keyed
    ``parent/child[instance]`` from the root's children down."""
    entries: list[dict[str, Any]] = []

    def walk(comp: Component, prefix: str, depth: int) -> None:
        if depth > 32:
            return
        for instance in comp.instances:
            key = prefix + comp.name + (f"[{instance.id}]" if instance.id is not None else "")
            entry: dict[str, Any] = {"key": key}
            if instance.scale is not None:
                for name, attr in (("replicas", "replicas"), ("minReplicas", "min"), ("maxReplicas", "max")):
                    if getattr(instance.scale, attr) is not None:
                        entry[name] = getattr(instance.scale, attr)
            if comp.has_pod_definition:
                spec = instance.effective_pod_spec
                containers = list((spec or {}).get("containers") or []) if spec is not None else []
                if instance.fragments is not None:
                    containers = list(instance.fragments.get("containers") or [])
                    if instance.fragments.get("container"):
                        containers.append(instance.fragments["container"])
                entry["podSpec"] = spec is not None or instance.fragments is not None
                entry["containers"] = [c.get("name") for c in containers if isinstance(c, dict)]
            entries.append(entry)
            for child in comp.children:
                walk(child, key + "/", depth + 1)

    if view.root is not None:
        for child in view.root.children:
            walk(child, "", 0)
    return {"status": list(view.statuses), "components": entries}


def compare_prediction(prediction: dict[str, Any], view: WorkloadView) -> list[Diff]:
    """The differences between a karta-verify prediction and ``view``: its status, and each component's replicas
    and instances."""
    observation = verify_observation(view)
    diffs = []
    if "status" in prediction:
        expected = sorted(prediction.get("status") or [])
        if expected != sorted(observation["status"]):
            diffs.append(Diff("status", expected, sorted(observation["status"])))
    by_key = {e["key"]: e for e in observation["components"]}
    for item in prediction.get("components") or []:
        item = item if isinstance(item, dict) else {}
        key = item.get("key")
        got = by_key.get(key)
        if got is None:
            diffs.append(
                Diff(
                    f"components[{key}]",
                    "a component instance",
                    f"not extracted (extracted: {', '.join(by_key) or 'none'})",
                )
            )
            continue
        for name, value in item.items():
            if name == "key":
                continue
            actual = got.get(name)
            if name == "containers":
                if sorted(value or []) != sorted(actual or []):
                    diffs.append(Diff(f"components[{key}].containers", sorted(value or []), sorted(actual or [])))
            elif value != actual:
                diffs.append(Diff(f"components[{key}].{name}", value, actual))
    return diffs
