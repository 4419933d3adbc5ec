"""Stage 3: evaluation (the public entry point is ``kartalint.evaluate``). ``evaluate(definition, obj, pods=None) -> WorkloadView``.

See docs/api.md for the Python API and the JSON document of ``WorkloadView.to_dict()``.
"""

from kartalint.evaluation.engine import Evaluator, PreparedDefinition, evaluate, prepare
from kartalint.evaluation.resources import Resources
from kartalint.evaluation.view import SCHEMA_VERSION, Component, FieldError, Instance, PodView, Scale, WorkloadView

__all__ = [
    "SCHEMA_VERSION",
    "Component",
    "Evaluator",
    "FieldError",
    "Instance",
    "PodView",
    "PreparedDefinition",
    "Resources",
    "Scale",
    "WorkloadView",
    "evaluate",
    "prepare",
]
