"""Whether a mutant's view is told apart: by a case (killed), by what a fixture could pin
(noticed by no ``expect``), or by nothing the objects show (equivalent on them).

``full_expectation(view)`` is every value a fixture's ``expect`` can state about a view (statuses,
phase, each component's and instance's replicas, minimum, maximum and resources, pods, gang,
errors); comparing it with a mutant's view (``testing.compare``) gives the differences in the
words of a fixture, so each survivor's hint is the key to add and the value to pin.
"""

from __future__ import annotations

import json
import re
from typing import Any

from kartalint.evaluation import WorkloadView
from kartalint.testing.compare import Diff, compare, expect_path, observed

COMPONENT_KEYS = ("replicas", "gpus", "cpuMillis", "memoryBytes")
INSTANCE_KEYS = ("replicas", "min", "max", "gpus", "cpuMillis", "memoryBytes")
GANG_KEYS = ("name", "minAvailable", "minSubGroup", "subGroups")


def full_expectation(view: WorkloadView) -> dict[str, Any]:
    """The ``expect`` block that pins everything a fixture can pin about ``view``."""
    pods = ("pods",) if view.pods_given else ()
    components: dict[str, Any] = {}
    for comp in view.components:
        fields: dict[str, Any] = dict.fromkeys((*COMPONENT_KEYS, *pods))
        ids = [str(i.id if i.id is not None else "") for i in comp.instances]
        if ids == [""]:  # one unnamed instance: the component's own keys say the rest (min, max too)
            fields.update(min=None, max=None)
        elif ids:
            fields["instances"] = {i: dict.fromkeys((*INSTANCE_KEYS, *pods)) for i in ids}
        components[comp.name] = fields
    shape: dict[str, Any] = {
        "statuses": None,
        "phase": None,
        "components": components,
        "gpus": None,
        "cpuMillis": None,
        "memoryBytes": None,
    }
    if view.gang is not None:
        shape["gang"] = dict.fromkeys(GANG_KEYS)
    if view.pods_given:
        shape["unmatchedPods"] = None
    expect = {key: observed(key, stated, view, None) for key, stated in shape.items()}
    expect["errors"] = observed("errors", None, view, None)
    return expect


def unnoticed(expectation: dict[str, Any], view: WorkloadView) -> list[Diff]:
    """What differs between the original's full expectation and a mutant's view, what a person
    looks at first first: statuses, replicas, instances, the gang, GPUs, errors, CPU and memory."""
    return sorted(compare(expectation, view, None), key=_rank)


def _rank(diff: Diff) -> int:
    path = diff.path
    for rank, test in enumerate(
        (
            lambda p: p in ("statuses", "phase"),
            lambda p: p.endswith(".replicas"),
            lambda p: p.endswith((".instances", ".min", ".max")),
            lambda p: p.startswith("gang."),
            lambda p: p.endswith("gpus"),
            lambda p: p.startswith("errors["),
        )
    ):
        if test(path):
            return rank
    return 9


def difference(diff: Diff) -> str:
    """A difference between the original (``expected``) and a mutant (``actual``) in words."""
    return f"{diff.path} is {_value(diff.actual)} instead of {_value(diff.expected)}"


def _value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def pin_hint(diff: Diff) -> str:
    """The key a fixture would add to pin what ``diff`` shows, with the original's value."""

    path = expect_path(diff.path)
    if diff.path.startswith("errors["):
        return "expect.errors (the extraction errors the object gives)"
    keys = ".".join(json.dumps(p) if not str(p) or not _PLAIN.match(str(p)) else str(p) for p in path)
    return f"{keys}: {json.dumps(diff.expected)}"


_PLAIN = re.compile(r"^[A-Za-z0-9_-]+$")
