"""Search for objects a definition gets wrong, and shrink each to a minimal one (hypothesis).

``explore(definition, version, ...)`` draws objects valid for the CRD version (``generate``),
evaluates the definition on each and checks the properties (``properties``). A violation is an
exception of its own class per (property, component, field), so hypothesis keeps each apart and
shrinks each; the smallest object seen for each (shrinking included) is kept and reported.
Deterministic for a seed; bounded by a number of examples and a time budget (when it is spent, the
search stops with what it has).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, find, given, reject, settings
from hypothesis import seed as with_seed
from hypothesis.errors import NoSuchExample, Unsatisfiable

from kartalint import karta
from kartalint.evaluation import Evaluator
from kartalint.explore.generate import Generator, OutOfTime, focus_of
from kartalint.explore.properties import (
    DEFAULT_PROPERTIES,
    PROPERTIES,
    Probe,
    Violation,
    chosen_counts,
    replica_fields,
)
from kartalint.explore.seeds import status_seeds
from kartalint.jqlang import parse_cached
from kartalint.jqlang.paths import path_facts, path_text
from kartalint.load.crds import CrdVersion


@dataclass
class Failure:
    """An object on which a property does not hold (shrunk), with the violation and a hint."""

    violation: Violation
    object: dict[str, Any]
    hint: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The failure as ``--format json`` writes it."""
        where = f"{self.violation.component}." if self.violation.component else ""
        return {
            "property": self.violation.property,
            "field": where + self.violation.field,
            "message": self.violation.message,
            "object": self.object,
            "hint": self.hint,
        }


@dataclass
class Exploration:
    """What ``kartalint explore`` found for one definition: the objects evaluated, the failures, whether time ran
    out, and the paths the definition reads with those some object reached."""

    examples: int = 0  # objects evaluated (shrinking included)
    failures: list[Failure] = field(default_factory=list)
    out_of_time: bool = False
    paths: list[tuple[str, ...]] = field(default_factory=list)  # the input paths the definition reads
    reached: set[tuple[str, ...]] = field(default_factory=set)  # those some object evaluated has a value at

    @property
    def unreached(self) -> list[str]:
        """The paths the definition reads that no object evaluated had (as jq): free-form fields,
        fields of a schema-less CRD, enum values no object could take; what they decide went untested."""
        return [path_text(path) for path in self.paths if path not in self.reached]

    def paths_document(self) -> dict[str, Any]:
        """``paths`` of the report: how many the definition reads, how many objects exercised, and
        those never reached."""
        return {
            "read": len(self.paths),
            "exercised": len(self.paths) - len(self.unreached),
            "unreached": self.unreached,
        }


def read_paths(definition: dict[str, Any]) -> list[tuple[str, ...]]:
    """The input paths a definition's workload expressions read (the longest of each: a path that
    leads to another read is not counted apart), ``[]`` for every element or map value."""
    found: dict[tuple[str, ...], None] = {}
    for jq_field in karta.jq_fields(definition):
        if jq_field.target != "workload" or jq_field.kind == "actionPath":
            continue
        tree, error = parse_cached(jq_field.expression)
        if error is None and tree is not None:
            for read in path_facts(tree).reads:
                path = tuple("[]" if part.startswith("[") else part for part in read.path)
                if path:
                    found[path] = None
    return [p for p in found if not any(len(q) > len(p) and q[: len(p)] == p for q in found)]


def _present(node: Any, path: tuple[str, ...]) -> bool:
    """Whether ``node`` has a value (not null) at ``path`` (``[]``: some element or map value)."""
    if not path:
        return node is not None
    head, rest = path[0], path[1:]
    if head == "[]":
        items = node if isinstance(node, list) else list(node.values()) if isinstance(node, dict) else []
        return any(_present(item, rest) for item in items)
    return isinstance(node, dict) and _present(node.get(head), rest)


MAX_OBJECT_BYTES = 1 << 20  # a drawn object larger than this (as JSON) is not evaluated


class NothingDrawn(Exception):
    """No object valid for the CRD version could be drawn (its rules refuse every one tried)."""


class _Violated(Exception):
    def __init__(self, violation: Violation, obj: dict[str, Any]) -> None:
        super().__init__(violation.message)
        self.violation = violation
        self.object = obj


def _flatten(exc: BaseException) -> list[BaseException]:
    inner = getattr(exc, "exceptions", None)
    if inner:
        return [e for sub in inner for e in _flatten(sub)]
    return [exc]


def _minimal(strategy: Any) -> dict[str, Any]:
    """The simplest object the strategy draws (deterministic: hypothesis shrinks to it)."""

    quiet = settings(
        database=None,
        derandomize=True,
        max_examples=10,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.generate, Phase.shrink],
    )
    try:
        return find(strategy, lambda obj: True, settings=quiet)
    except (NoSuchExample, Unsatisfiable):
        return {}


def _truths(runner: Evaluator, conditions: list[str], obj: dict[str, Any]) -> dict[str, bool | None]:
    """Whether each condition holds on ``obj`` (its first output, as jq's ``if`` reads it; None when
    it gives nothing or fails)."""
    out: dict[str, bool | None] = {}
    for condition, outcome in runner.session.run(conditions, value=obj).items():
        first = outcome.results[0] if outcome.error is None and outcome.results else None
        out[condition] = None if outcome.error is not None or not outcome.results else first not in (None, False)
    return out


def explore(
    definition: dict[str, Any],
    version: CrdVersion,
    *,
    examples: int = 200,
    seed: int = 0,
    max_time: float = 60.0,
    properties: Sequence[str] = DEFAULT_PROPERTIES,
    evaluator: Evaluator | None = None,
    assume: dict[tuple[str, ...], dict[str, Any]] | None = None,
) -> Exploration:
    """Draw up to ``examples`` objects of ``version`` (for at most ``max_time`` seconds, from ``seed``), evaluate
    ``definition`` on each, and find the objects that break ``properties``, shrunk (seeded first with each
    status the definition matches)."""
    started = time.monotonic()
    generator = Generator(version, focus_of(definition), deadline=started + max_time, assume=assume)
    strategy = generator.object()
    counted = replica_fields(definition, version)
    chosen = chosen_counts(definition, version)
    conditions = [c for count in chosen for c in count.conditions()]
    result = Exploration(paths=read_paths(definition))
    classes: dict[tuple[str, str, str], type[_Violated]] = {}
    smallest: dict[tuple[str, str, str], tuple[int, Failure]] = {}
    own = evaluator is None
    runner = evaluator or Evaluator()

    def violated(violation: Violation) -> type[_Violated]:
        key = (violation.property, violation.component, violation.field)
        if key not in classes:
            classes[key] = type(f"Violated_{len(classes)}", (_Violated,), {})
        return classes[key]

    def check(obj: dict[str, Any], size: int) -> list[Violation]:
        """Evaluate one object; keep the smallest object seen for each failure."""
        if time.monotonic() - started > max_time:
            raise OutOfTime
        result.examples += 1
        result.reached.update(path for path in result.paths if path not in result.reached and _present(obj, path))
        truths = _truths(runner, conditions, obj) if conditions else {}
        probe = Probe(obj, runner.evaluate(definition, obj), counted, chosen, truths)
        found = [violation for name in properties for violation in PROPERTIES[name](probe)]
        for violation in found:
            key = (violation.property, violation.component, violation.field)
            if key not in smallest or size < smallest[key][0]:
                smallest[key] = (size, Failure(violation, obj))
        return found

    @settings(
        max_examples=max(1, examples),
        deadline=None,
        database=None,
        report_multiple_bugs=True,
        verbosity=Verbosity.quiet,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.explicit, Phase.generate, Phase.shrink],
        print_blob=False,
    )
    @with_seed(seed)
    @given(strategy)
    def probe(obj: dict[str, Any]) -> None:
        size = len(json.dumps(obj, sort_keys=True))
        if size > MAX_OBJECT_BYTES:
            reject()
        for violation in check(obj, size)[:1]:
            raise violated(violation)(violation, obj)

    try:
        # first the status values the definition matches, each on a minimal object, then random ones
        # (on a minimal object, and on one with every label and annotation the definition reads)
        base = _minimal(strategy)
        seeded: list[dict[str, Any]] = []
        for one in [base, {**base, "metadata": generator.full_metadata()}] if base else []:
            seeded += [obj for obj in status_seeds(definition, version, one) if obj not in seeded]
        for obj in seeded:
            check(obj, len(json.dumps(obj, sort_keys=True)))
        probe()
    except Unsatisfiable:
        pass  # nothing could be drawn
    except OutOfTime:  # the search stops with what it found (the smallest object seen per failure)
        result.out_of_time = True
    except BaseException as exc:  # hypothesis re-raises what failed (a group when several)
        unexpected = [e for e in _flatten(exc) if not isinstance(e, _Violated)]
        if unexpected:
            raise unexpected[0] from None
    finally:
        if own:
            runner.close()
    if result.examples == 0 and not result.out_of_time:
        raise NothingDrawn("no object valid for the CRD could be drawn: its rules refused every one tried")
    result.failures = [smallest[key][1] for key in sorted(smallest)]
    return result
