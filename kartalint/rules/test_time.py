"""Test-time rules: what only objects and pods reveal about a definition (``kartalint test``).

``findings(file, line, view)`` inspects one evaluation (a ``WorkloadView``, read by attribute so
this rule layer does not import the evaluation stage) and reports at the case's place.
"""

from __future__ import annotations

from kartalint.karta import COUNT_MISMATCH
from kartalint.model import Finding, Rule, Severity

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kartalint.evaluation.view import WorkloadView

# The ids of the rules this module reports (constants: a misspelt id is an import error).
SELECTORS_NOT_EXCLUSIVE = "selectors-not-exclusive"
POD_UNMATCHED = "pod-unmatched"
CONTRADICTORY_STATUSES = "contradictory-statuses"
INSTANCES_OUT_OF_STEP = "instances-out-of-step"


# The rules this module reports (collected by kartalint.rules.registry; docs/rules.md renders them).
RULES = (
    Rule(
        SELECTORS_NOT_EXCLUSIVE,
        Severity.WARNING,
        "test",
        "A pod is selected by more than one pod-bearing component, so consumers may place it in either.",
        "make the componentTypeSelectors exclusive (e.g. key existence vs. a value)",
        why="A pod selected by two components may be counted in either by each consumer: GPUs and roles differ between tools.",
    ),
    Rule(
        POD_UNMATCHED,
        Severity.WARNING,
        "test",
        "A pod of the workload is selected by no component; kli hides it and schedulers cannot group it.",
        "add or widen a componentTypeSelector",
        why="A pod no component selects is invisible: kli hides it and KAI cannot put it in a gang.",
    ),
    Rule(
        CONTRADICTORY_STATUSES,
        Severity.WARNING,
        "test",
        "Statuses that exclude each other matched together (Running with Failed or Completed, Failed with Completed, Suspended with Running).",
        "tighten the status mappings so that only one of them holds",
        why="Consumers pick one status by priority; two exclusive statuses matching together means one mapping is too loose, and the workload shows the wrong one.",
    ),
    Rule(
        INSTANCES_OUT_OF_STEP,
        Severity.ERROR,
        "test",
        "Instance ids and extracted results do not line up (count mismatch or duplicate ids that collapse).",
        "make every path of the component emit one value per instance id, in the same order",
        why="Each path of a component must give one value per instance id, in order; when the counts differ, upstream pairs the wrong values with the roles or fails the component.",
    ),
)
_RULES = {rule.id: rule for rule in RULES}

CONTRADICTORY = (("Running", "Failed"), ("Running", "Completed"), ("Failed", "Completed"), ("Suspended", "Running"))


def _finding(file: str, line: int, rule_id: str, message: str) -> Finding:
    rule = _RULES[rule_id]
    return Finding(file, line, 1, line, 1, rule_id, rule.severity, message, (), rule.hint)


def findings(file: str, line: int, view: WorkloadView) -> list[Finding]:
    """The test-time findings of one evaluated case, at ``file:line`` (the fixture document)."""
    out: list[Finding] = []
    if view.pods_given:
        owners: dict[str, list[str]] = {}
        for comp in view.components:
            if comp.has_pod_definition:
                for pod in comp.pods:
                    owners.setdefault(pod.name, [])
                    if comp.name not in owners[pod.name]:
                        owners[pod.name].append(comp.name)
        for pod_name, names in owners.items():
            if len(names) > 1:
                out.append(
                    _finding(file, line, SELECTORS_NOT_EXCLUSIVE, f"pod {pod_name} is selected by {', '.join(names)}")
                )
        for pod_name in view.unmatched_pods:
            out.append(_finding(file, line, POD_UNMATCHED, f"pod {pod_name} is selected by no component"))
    statuses = set(view.statuses)
    for first, second in CONTRADICTORY:
        if first in statuses and second in statuses:
            out.append(_finding(file, line, CONTRADICTORY_STATUSES, f"{first} and {second} matched together"))
    for comp in view.components:
        if comp.duplicate_ids:
            out.append(
                _finding(
                    file,
                    line,
                    INSTANCES_OUT_OF_STEP,
                    f"{comp.name}: duplicate instance ids {comp.duplicate_ids} collapse (last wins)",
                )
            )
        for error in comp.errors:
            if error.code == COUNT_MISMATCH:
                out.append(_finding(file, line, INSTANCES_OUT_OF_STEP, f"{comp.name}.{error.field}: {error.message}"))
    return out
