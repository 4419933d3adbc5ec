"""GPU/CPU/memory accounting as ``kli describe`` does it (spec §3.9).

Only ``nvidia.com/gpu``, ``cpu`` and ``memory`` are counted. Per resource the request is used
when declared, else the limit (an explicit 0 counts as declared). GPUs and memory are integers
rounded up, CPU is in millicores.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from kartalint.evaluation import quantity
from kartalint.karta import as_dict, as_list

GPU = "nvidia.com/gpu"


class ResourceError(ValueError):
    """A quantity that Kubernetes would not accept (the pod template fails to decode)."""


@dataclass(frozen=True)
class Resources:
    """Counted resources of a pod or of many: ``nvidia.com/gpu`` devices, CPU in millicores, memory in bytes."""

    gpus: int = 0
    cpu_millis: int = 0
    memory_bytes: int = 0

    def __add__(self, other: Resources) -> Resources:
        """The sum, per resource."""
        return Resources(
            self.gpus + other.gpus, self.cpu_millis + other.cpu_millis, self.memory_bytes + other.memory_bytes
        )

    def times(self, factor: int) -> Resources:
        """Every resource times ``factor`` (a replica count)."""
        return Resources(self.gpus * factor, self.cpu_millis * factor, self.memory_bytes * factor)

    def max(self, other: Resources) -> Resources:
        """The larger value per resource (what init containers need against what runs after them)."""
        return Resources(
            max(self.gpus, other.gpus),
            max(self.cpu_millis, other.cpu_millis),
            max(self.memory_bytes, other.memory_bytes),
        )

    @property
    def is_zero(self) -> bool:
        """Whether nothing is counted: no GPU, no CPU, no memory."""
        return not (self.gpus or self.cpu_millis or self.memory_bytes)

    def to_dict(self) -> dict[str, int]:
        """``{"gpus", "cpuMillis", "memoryBytes"}``: the resources object of the JSON documents."""
        return {"gpus": self.gpus, "cpuMillis": self.cpu_millis, "memoryBytes": self.memory_bytes}


ZERO = Resources()


def _amount(name: str, requirements: dict[str, Any]) -> Any | None:
    """The declared request for ``name``, else the limit, else None."""
    for key in ("requests", "limits"):
        values = requirements.get(key)
        if isinstance(values, dict) and name in values and values[name] is not None:
            return values[name]
    return None


def _measure(raw: Any, name: str, millis: bool) -> int:
    try:
        if isinstance(raw, (str, int, float)):  # the same few quantities recur in every pod spec
            return _measured(raw, millis)
        return _measured.__wrapped__(raw, millis)
    except quantity.QuantityError as exc:
        raise ResourceError(f"{name}: {exc}") from None


@functools.lru_cache(maxsize=4096, typed=True)  # typed: True and 1 are different quantities
def _measured(raw: Any, millis: bool) -> int:
    parsed = quantity.parse(raw)
    return quantity.milli_value(parsed) if millis else quantity.value(parsed)


def from_requirements(requirements: Any) -> Resources:
    """A ``ResourceRequirements`` object (``requests``/``limits``) as counted resources."""
    req = as_dict(requirements)
    gpu, cpu, mem = _amount(GPU, req), _amount("cpu", req), _amount("memory", req)
    return Resources(
        0 if gpu is None else _measure(gpu, GPU, False),
        0 if cpu is None else _measure(cpu, "cpu", True),
        0 if mem is None else _measure(mem, "memory", False),
    )


def from_resource_list(values: Any) -> Resources:
    """A plain resource list (``spec.overhead``)."""
    return from_requirements({"requests": as_dict(values)})


def _containers_sum(containers: Any) -> Resources:
    total = ZERO
    for container in as_list(containers):
        total = total + from_requirements(as_dict(container).get("resources"))
    return total


def pod_spec(spec: Any) -> Resources:
    """Per-pod resources of a PodSpec: containers + sidecars vs. init containers, pod-level
    resources, overhead."""
    spec = as_dict(spec)
    running = _containers_sum(spec.get("containers"))
    init_max = ZERO
    for container in as_list(spec.get("initContainers")):
        container = as_dict(container)
        amount = from_requirements(container.get("resources"))
        if container.get("restartPolicy") == "Always":
            running = running + amount
        else:
            init_max = init_max.max(amount)
    total = init_max.max(running)
    pod_level = as_dict(spec.get("resources"))
    if pod_level:
        cpu, mem = _amount("cpu", pod_level), _amount("memory", pod_level)
        total = Resources(
            total.gpus,
            total.cpu_millis if cpu is None else _measure(cpu, "cpu", True),
            total.memory_bytes if mem is None else _measure(mem, "memory", False),
        )
    return total + from_resource_list(spec.get("overhead"))


def fragments(record: dict[str, Any]) -> Resources:
    """Per-pod resources of a fragmented spec: ``containers`` + ``container``, falling back to
    ``resources`` when those count nothing; init containers are not part of fragments."""
    total = _containers_sum(record.get("containers"))
    if record.get("container") is not None:
        total = total + from_requirements(as_dict(record.get("container")).get("resources"))
    if total.is_zero and record.get("resources") is not None:
        total = from_requirements(record.get("resources"))
    return total
