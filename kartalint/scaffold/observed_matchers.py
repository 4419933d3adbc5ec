"""The features of an object's status and the matchers a status can be drafted with, for drafting
with the pods as evidence (`new --crd --from`, ``observed_status``): its phase, conditions (with
their reasons), short strings, counts, whether it has a status at all, and the set of its True
conditions; each matcher both as Karta data and as the Python test of it on those features.

The counts are the status's integers, those of an object under it (``.status.replicas.ready``) and
the sums over the entries of a list under it (JobSet's ``.status.replicatedJobsStatus[].ready``, one
entry per replicated Job); ``count_jq`` writes each as the jq that reads it. Where no one matcher
tells a status's objects from the others, two that do together are one matcher (``pairs``)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from kartalint.scaffold.crd_status import CONDITION_MEANINGS, meaning

_READY = re.compile(r"(?i)^(ready|available)(replicas|pods|count)?$|^ready$")
_TOTAL = re.compile(r"(?i)^(replicas|desired|desiredReplicas|all|total|current|currentReplicas)$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# integers of a status that count no pod or Job there is now (the generation seen, restarts so
# far): left out of "nothing counted yet"
_NOT_COUNTED = re.compile(r"(?i)generation|restart")


@dataclass
class Features:
    """What the status of one object says: its phase, its conditions (type -> status), its counts."""

    phase: str | None
    conditions: dict[str, str]
    counts: dict[str, int]  # path (see count_jq) -> value, of the status's and the spec's integers
    empty: bool = False  # no status at all yet
    reasons: dict[str, str] = field(default_factory=dict)  # condition type -> its reason
    strings: dict[str, str] = field(default_factory=dict)  # jq path -> value, of the status's short strings

    @property
    def true_set(self) -> tuple[str, ...]:
        """The condition types whose status is "True", sorted."""
        return tuple(sorted(k for k, v in self.conditions.items() if v == "True"))


def get_path(obj: Any, path: tuple[str, ...]) -> Any:
    """The value at ``path`` in ``obj``, or None."""
    for part in path:
        obj = obj.get(part) if isinstance(obj, dict) else None
    return obj


def features(
    obj: dict[str, Any], phase_path: tuple[str, ...] | None, type_field: str, status_field: str, desired: list[str]
) -> Features:
    """What the status of ``obj`` says: its phase (at ``phase_path``), its conditions (with their reasons), its
    counts (of the status, and the spec's ``desired`` ones) and its short strings."""
    phase = get_path(obj, phase_path) if phase_path else None
    conditions: dict[str, str] = {}
    reasons: dict[str, str] = {}
    listed = get_path(obj, ("status", "conditions"))
    for item in listed if isinstance(listed, list) else []:
        if isinstance(item, dict) and isinstance(item.get(type_field), str):
            value = item.get(status_field)
            conditions[item[type_field]] = value if isinstance(value, str) else ""
            if isinstance(item.get("reason"), str) and item["reason"]:
                reasons[item[type_field]] = item["reason"]
    counts: dict[str, int] = {}
    status = obj.get("status")
    for key, value in status.items() if isinstance(status, dict) else []:
        if isinstance(key, str) and isinstance(value, int) and not isinstance(value, bool):
            counts[f".status.{key}"] = value
        elif isinstance(key, str) and isinstance(value, dict):  # KubeAI's status.replicas.{all,ready}
            for inner, number in value.items():
                if isinstance(inner, str) and isinstance(number, int) and not isinstance(number, bool):
                    counts[f".status.{key}.{inner}"] = number
        elif isinstance(key, str) and _NAME.match(key) and key != "conditions" and isinstance(value, list):
            counts.update(_list_sums(key, value))  # JobSet's status.replicatedJobsStatus[].{active,ready,...}
    for path in desired:
        value = get_path(obj, tuple(path.strip(".").split(".")))
        counts[path] = value if isinstance(value, int) and not isinstance(value, bool) else -1
    empty = not (isinstance(status, dict) and status)
    return Features(phase if isinstance(phase, str) else None, conditions, counts, empty, reasons, _strings(status))


def _list_sums(key: str, entries: list[Any]) -> dict[str, int]:
    """The sum over the entries of a list under the status of each integer field they have."""
    sums: dict[str, int] = {}
    for entry in entries:
        for inner, number in entry.items() if isinstance(entry, dict) else []:
            if (
                isinstance(inner, str)
                and _NAME.match(inner)
                and isinstance(number, int)
                and not isinstance(number, bool)
            ):
                path = f".status.{key}[].{inner}"
                sums[path] = sums.get(path, 0) + number
    return sums


def count_jq(path: str) -> str:
    """The jq that reads a count of ``Features.counts``: a path, or the sum over a list's entries
    (absent: 0)."""
    if "[]." not in path:
        return f"({path} // 0)"
    listed, inner = path.rsplit("[].", 1)
    return f"([{listed}[]? | .{inner} // 0] | add // 0)"


_DATE = re.compile(r"^\d{4}-\d\d-\d\d")


def _strings(status: Any, prefix: str = ".status", depth: int = 0) -> dict[str, str]:
    """The short strings of a status (not dates, not messages), through objects, 3 levels down:
    RayJob's jobDeploymentStatus beside the phase the CRD shows."""
    out: dict[str, str] = {}
    if not isinstance(status, dict) or depth > 2:
        return out
    for key, value in status.items():
        if not isinstance(key, str) or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", key) or key == "conditions":
            continue
        if isinstance(value, str) and 0 < len(value) <= 40 and " " not in value and not _DATE.match(value):
            out[f"{prefix}.{key}"] = value
        elif isinstance(value, dict):
            out.update(_strings(value, f"{prefix}.{key}", depth + 1))
    return out


@dataclass(frozen=True)
class CounterTest:
    """A ready counter compared with a desired count: ``running`` when as many are ready as
    wanted, ``initializing`` when fewer (and some are wanted). Without a desired count (``total``
    empty: JobSet's Jobs ready, of no total its status keeps): ``running`` when any is ready,
    ``initializing`` when none is."""

    status: str
    ready: str
    total: str
    default: int

    @property
    def expression(self) -> str:
        """The jq of the test."""
        have = count_jq(self.ready)
        if not self.total:
            return f"{have} {'>' if self.status == 'running' else '=='} 0"
        want = f"({self.total} // {self.default})"
        return f"{want} > 0 and {have} {'>=' if self.status == 'running' else '<'} {want}"

    @property
    def said(self) -> str:
        """How a draft's comment says what the test reads."""
        if self.total:
            return "counts"
        return f"{self.ready} {'above' if self.status == 'running' else 'at'} 0"

    @property
    def rank(self) -> int:
        """A comparison with the desired count before a ready count alone."""
        return 2 if self.total else 3

    def holds(self, found: Features) -> bool:
        """Whether the test holds on what an object's status says."""
        have = max(found.counts.get(self.ready, 0), 0)
        if not self.total:
            return have > 0 if self.status == "running" else have == 0
        got = found.counts.get(self.total, -1)
        want = self.default if got < 0 else got
        return want > 0 and (have >= want if self.status == "running" else have < want)


def counter_tests(names: set[str], desired: dict[str, int]) -> list[CounterTest]:
    """Every ready counter against every desired count (the spec's first, then the status's own
    total beside it), then every ready counter alone."""
    tests: list[CounterTest] = []
    readies = sorted(n for n in names if _READY.match(n.rsplit(".", 1)[-1]))
    totals = list(desired.items()) + [(n, 0) for n in sorted(names) if _TOTAL.match(n.rsplit(".", 1)[-1])]
    for ready in readies:
        for total, default in totals:
            if total == ready or (total.startswith(".status") and ready.rsplit(".", 1)[0] != total.rsplit(".", 1)[0]):
                continue
            tests += [CounterTest(status, ready, total, default) for status in ("running", "initializing")]
    return tests + [CounterTest(status, ready, "", 0) for ready in readies for status in ("running", "initializing")]


def counted_paths(names: set[str]) -> list[str]:
    """The counts of a status that count pods or Jobs there are now (not the generation the
    operator saw, not the restarts so far)."""
    return sorted(n for n in names if n.startswith(".status.") and not _NOT_COUNTED.search(n.rsplit(".", 1)[-1]))


def nothing_counted(members: list[Features], counted: list[str]) -> Candidate | None:
    """``initializing`` where every count the objects' statuses show (``counted``) is 0 or absent:
    nothing active, ready, succeeded or failed yet (JobSet before its first Job is counted, a
    TrainJob whose list of Jobs is still empty); None when no count is seen or no member shows it."""
    if not counted or not any(all(f.counts.get(p, 0) == 0 for p in counted) for f in members):
        return None
    listed: dict[str, list[str]] = {}
    for path in counted:
        prefix, inner = path.rsplit("[].", 1) if "[]." in path else (path, "")
        listed.setdefault(prefix, []).append(inner)
    parts = [
        f"({prefix} // 0) == 0"
        if inner == [""]
        else f"([{prefix}[]? | {', '.join('.' + i for i in inner)} | numbers] | all(. == 0))"
        for prefix, inner in listed.items()
    ]
    return Candidate(
        {"byExpression": {"expression": " and ".join(parts), "expectedResult": "true"}},
        lambda f: all(f.counts.get(p, 0) == 0 for p in counted),
        "nothing counted yet (every count of the status is 0)",
        3,
    )


@dataclass
class Candidate:
    """A matcher that may map a status: its data, the test it is in Python, what it says, its rank."""

    matcher: dict[str, Any]
    holds: Callable[[Features], bool]
    said: str
    rank: int


def _phase_is(value: str) -> Callable[[Features], bool]:
    return lambda f: f.phase == value


def _condition_is(kind: str, value: str, reason: str | None = None) -> Callable[[Features], bool]:
    return lambda f: f.conditions.get(kind) == value and (reason is None or f.reasons.get(kind) == reason)


def _string_is(path: str, value: str) -> Callable[[Features], bool]:
    return lambda f: f.strings.get(path) == value


def _no_phase(found: Features) -> bool:
    return not found.phase


def _true_set_is(true_set: tuple[str, ...]) -> Callable[[Features], bool]:
    return lambda f: not f.empty and f.true_set == true_set


def candidates(
    status: str,
    members: list[Features],
    counters: list[CounterTest],
    fields: tuple[str, str],
    phase_path: str | None,
    counted: list[str] | None = None,
) -> list[Candidate]:
    """Every matcher a status could be drafted with, simplest first: a phase value (or none yet), a
    condition (a True one whose type names the status first), a ready count against the desired
    one (or above 0), nothing counted yet, no status yet, the exact set of True conditions
    (Kubeflow's Created alone)."""
    out: list[Candidate] = []
    for value in sorted({f.phase or "" for f in members}):
        if value:
            out.append(Candidate({"byPhase": value}, _phase_is(value), value, 0))
        elif phase_path:  # a byPhase of "" matches every object (an empty matcher): an expression instead
            expression = f'({phase_path} // "") == ""'
            out.append(
                Candidate(
                    {"byExpression": {"expression": expression, "expectedResult": "true"}},
                    _no_phase,
                    "no phase yet",
                    0,
                )
            )
    pairs = sorted({pair for f in members for pair in f.conditions.items()})
    for kind, value in sorted(pairs, key=lambda p: (p[1] != "True", meaning(p[0], CONDITION_MEANINGS)[0] != status, p)):
        out.append(
            Candidate(
                {"byConditions": [{"type": kind, "status": value}]},
                _condition_is(kind, value),
                f"condition {kind}={value}",
                1,
            )
        )
    reasoned = sorted({(k, v, f.reasons[k]) for f in members for k, v in f.conditions.items() if k in f.reasons})
    for kind, value, reason in reasoned:
        out.append(
            Candidate(
                {"byConditions": [{"type": kind, "status": value, "reason": reason}]},
                _condition_is(kind, value, reason),
                f"condition {kind}={value} ({reason})",
                2,
            )
        )
    for path, value in sorted({item for f in members for item in f.strings.items()}):
        if phase_path and path == phase_path:
            continue  # the phase itself: byPhase above
        expression = f'({path} // "") == {json.dumps(value)}'
        out.append(
            Candidate(
                {"byExpression": {"expression": expression, "expectedResult": "true"}},
                _string_is(path, value),
                f"{path} is {value}",
                2,
            )
        )
    for test in counters:
        if test.status == status:
            out.append(
                Candidate(
                    {"byExpression": {"expression": test.expression, "expectedResult": "true"}},
                    test.holds,
                    test.said,
                    test.rank,
                )
            )
    nothing = nothing_counted(members, counted or []) if status == "initializing" else None
    if nothing is not None:
        out.append(nothing)
    out.append(
        Candidate(
            {"byExpression": {"expression": "(.status // {}) == {}", "expectedResult": "true"}},
            lambda f: f.empty,
            "no status yet",
            3,
        )
    )
    kind_field, status_field = fields
    for true_set in sorted({f.true_set for f in members}):
        listed = json.dumps(list(true_set))
        expression = (
            f'[(.status.conditions // [])[]? | select(.[{json.dumps(status_field)}] == "True") | '
            f".[{json.dumps(kind_field)}]] | unique == {listed}"
        )
        out.append(
            Candidate(
                {"byExpression": {"expression": expression, "expectedResult": "true"}},
                _true_set_is(true_set),
                f"the True conditions are exactly {', '.join(true_set) or 'none'}",
                4,
            )
        )
    return out


MAX_PAIRED = 40  # the candidates paired at most (those holding on most objects left first)


def pairs(pool: list[Candidate], left: list[Features], others: list[Features]) -> list[Candidate]:
    """Where no one matcher tells the objects ``left`` from the ``others``, two that hold together
    on some of them and on no other: one Karta matcher that sets both (RayJob's running: the phase
    RUNNING, also written on a job past its deadline, and ``jobDeploymentStatus`` Running, also
    written while its cluster starts)."""
    useful = sorted(
        (c for c in pool if any(c.holds(f) for f in left)), key=lambda c: (-sum(c.holds(f) for f in left), c.rank)
    )[:MAX_PAIRED]
    out: list[Candidate] = []
    for first, second in combinations(useful, 2):
        if "byPhase" in first.matcher and "byPhase" in second.matcher:
            continue  # one phase has one value
        both = _both(first.holds, second.holds)
        if any(both(f) for f in left) and not any(both(f) for f in others):
            said = f"{first.said} and {second.said}"
            out.append(Candidate(_merged(first.matcher, second.matcher), both, said, first.rank + second.rank + 1))
    return out


def _both(first: Callable[[Features], bool], second: Callable[[Features], bool]) -> Callable[[Features], bool]:
    return lambda f: first(f) and second(f)


def _merged(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """One matcher that sets the parts of both (Karta ANDs the parts of a matcher)."""
    merged = dict(first)
    for part, value in second.items():
        if part == "byConditions" and part in merged:
            merged[part] = [*merged[part], *value]
        elif part == "byExpression" and part in merged:
            expression = f"({merged[part]['expression']}) and ({value['expression']})"
            merged[part] = {"expression": expression, "expectedResult": "true"}
        else:
            merged[part] = value
    return merged
