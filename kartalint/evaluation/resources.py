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
from kartalint.karta import as_dict

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


_NOTHING = (0, 0, 0)
_NO_VALUES: dict[str, Any] = {}


def _counted(requirements: Any) -> tuple[int, int, int]:
    """(GPUs, CPU millicores, memory bytes) of a ``ResourceRequirements`` object: per resource the
    request when declared (not null), else the limit; measured in that order (GPU, CPU, memory)."""
    if not isinstance(requirements, dict):
        return _NOTHING
    requests = requirements.get("requests")
    limits = requirements.get("limits")
    if not isinstance(requests, dict):
        requests = _NO_VALUES
    if not isinstance(limits, dict):
        limits = _NO_VALUES
    if not requests and not limits:
        return _NOTHING
    gpu = requests.get(GPU)
    if gpu is None:
        gpu = limits.get(GPU)
    cpu = requests.get("cpu")
    if cpu is None:
        cpu = limits.get("cpu")
    mem = requests.get("memory")
    if mem is None:
        mem = limits.get("memory")
    try:  # the measures of the quantities seen before (every value here is a scalar, as a rule)
        return (
            0 if gpu is None else _measured(gpu, False),
            0 if cpu is None else _measured(cpu, True),
            0 if mem is None else _measured(mem, False),
        )
    except (quantity.QuantityError, TypeError):  # not a quantity, or not a scalar: said with its name
        return (
            0 if gpu is None else _measure(gpu, GPU, False),
            0 if cpu is None else _measure(cpu, "cpu", True),
            0 if mem is None else _measure(mem, "memory", False),
        )


@functools.lru_cache(maxsize=1024)
def _resources(gpus: int, cpu_millis: int, memory_bytes: int) -> Resources:
    """``Resources`` of these counts, made once: views of many objects share the few that recur
    (the record is frozen; making one took longer than counting a pod's containers)."""
    return Resources(gpus, cpu_millis, memory_bytes)


def from_requirements(requirements: Any) -> Resources:
    """A ``ResourceRequirements`` object (``requests``/``limits``) as counted resources."""
    return _resources(*_counted(requirements))


def _containers(containers: Any) -> tuple[int, int, int]:
    gpus = cpu = memory = 0
    if isinstance(containers, list):
        for container in containers:
            if isinstance(container, dict):
                g, c, m = _counted(container.get("resources"))
                gpus, cpu, memory = gpus + g, cpu + c, memory + m
    return gpus, cpu, memory


def pod_spec(spec: Any) -> Resources:
    """Per-pod resources of a PodSpec: containers + sidecars vs. init containers, pod-level
    resources, overhead."""
    if not isinstance(spec, dict):
        return ZERO
    gpus = cpu = memory = 0
    containers = spec.get("containers")
    if isinstance(containers, list):
        for container in containers:
            if isinstance(container, dict):
                g, c, m = _counted(container.get("resources"))
                gpus, cpu, memory = gpus + g, cpu + c, memory + m
    init_gpus = init_cpu = init_memory = 0  # (no init container: 0, which a negative count is raised to)
    init_containers = spec.get("initContainers")
    if init_containers and isinstance(init_containers, list):
        for container in init_containers:
            container = as_dict(container)
            g, c, m = _counted(container.get("resources"))
            if container.get("restartPolicy") == "Always":  # a sidecar runs beside the containers
                gpus, cpu, memory = gpus + g, cpu + c, memory + m
            else:
                init_gpus, init_cpu, init_memory = max(init_gpus, g), max(init_cpu, c), max(init_memory, m)
    gpus, cpu, memory = max(init_gpus, gpus), max(init_cpu, cpu), max(init_memory, memory)
    pod_level = spec.get("resources")
    if pod_level and isinstance(pod_level, dict):
        pod_cpu, pod_memory = _amount("cpu", pod_level), _amount("memory", pod_level)
        if pod_cpu is not None:
            cpu = _measure(pod_cpu, "cpu", True)
        if pod_memory is not None:
            memory = _measure(pod_memory, "memory", False)
    overhead = spec.get("overhead")
    if isinstance(overhead, dict) and overhead:
        g, c, m = _counted({"requests": overhead})
        gpus, cpu, memory = gpus + g, cpu + c, memory + m
    return _resources(gpus, cpu, memory)


def fragments(record: dict[str, Any]) -> Resources:
    """Per-pod resources of a fragmented spec: ``containers`` + ``container``, falling back to
    ``resources`` when those count nothing; init containers are not part of fragments."""
    gpus, cpu, memory = _containers(record.get("containers"))
    if record.get("container") is not None:
        g, c, m = _counted(as_dict(record.get("container")).get("resources"))
        gpus, cpu, memory = gpus + g, cpu + c, memory + m
    total = _resources(gpus, cpu, memory)
    if total.is_zero and record.get("resources") is not None:
        return from_requirements(record.get("resources"))
    return total
