"""kartalint: lint, evaluate and test Karta (NVIDIA Workload-Map) definitions.

``kartalint.evaluate(definition, obj, pods=None)`` applies a definition to a workload object
(see docs/api.md). It is imported lazily so that ``kartalint lint`` starts fast.
"""

from typing import Any

# The version being prepared: the CHANGELOG's top section names it. A build from the tag
# v<RELEASE> is that version; any other build is <RELEASE>.dev0+g<commit>, a development
# version of it (``__version__``, kartalint/scaffold/release.py). Raise it right after a release.
RELEASE = "0.2.0"

__version__: str  # this build's version, found when first asked (a wheel recorded it; a checkout asks git)

__all__ = ["RELEASE", "Evaluator", "__version__", "evaluate"]


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from kartalint.scaffold.release import installed_version

        version = globals()["__version__"] = installed_version()
        return version
    if name in ("evaluate", "Evaluator"):
        from kartalint import evaluation

        return getattr(evaluation, name)
    raise AttributeError(f"module 'kartalint' has no attribute {name!r}")
