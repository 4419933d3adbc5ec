"""kartalint: lint, evaluate and test Karta (NVIDIA Workload-Map) definitions.

``kartalint.evaluate(definition, obj, pods=None)`` applies a definition to a workload object
(see docs/api.md). It is imported lazily so that ``kartalint lint`` starts fast.
"""

from typing import Any

__version__ = "0.2.0"

__all__ = ["Evaluator", "__version__", "evaluate"]


def __getattr__(name: str) -> Any:
    if name in ("evaluate", "Evaluator"):
        from kartalint import evaluation

        return getattr(evaluation, name)
    raise AttributeError(f"module 'kartalint' has no attribute {name!r}")
