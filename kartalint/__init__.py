"""kartalint: lint, evaluate and test Karta (NVIDIA Workload-Map) definitions.

``kartalint.evaluate(definition, obj, pods=None)`` applies a definition to a workload object
(see docs/api.md). It is imported lazily so that ``kartalint lint`` starts fast.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

RELEASE: str  # the version being prepared (the CHANGELOG's top section): kartalint/scaffold/release.py
# this build's version: RELEASE from the tag v<RELEASE>, else <RELEASE>.dev0+g<commit>, found when
# first asked (a wheel recorded it; a checkout asks git)
__version__: str

__all__ = ["RELEASE", "Evaluator", "__version__", "evaluate"]


def __getattr__(name: str) -> Any:
    if name in ("RELEASE", "__version__"):
        from kartalint.scaffold import release  # lazy: asked for by --version and the API only

        value = globals()[name] = release.RELEASE if name == "RELEASE" else release.installed_version()
        return value
    if name in ("evaluate", "Evaluator"):
        from kartalint import evaluation  # lazy: the evaluation engine is not lint's (start-up of lint)

        return getattr(evaluation, name)
    raise AttributeError(f"module 'kartalint' has no attribute {name!r}")
