"""The replicas of a role drafted from real objects (`new --crd --from`): the expression, among
products of the counts on the way from the object's root to the role's template, that gives the
observed number of pods of every instance on every running object that has pods.

Candidates are the integer fields of every object on that way (``.spec.replicas``, the entry's
``replicas``, ``leaderWorkerPattern.size``, a replicated job's ``parallelism``), the integer fields
the CRD declares there, and for a group size beside a leader template the workers' ``size - 1``.
An absent field reads as the CRD's default, else as what the evidence shows (0 or 1 pods without
it), else as the CRD's description says, else 1. Among the products that fit, the one with the
most count fields (``replicas``, ``size``, ``parallelism``, ...) wins, then the one with fewest
other fields: a count that is 1 on every object is kept in the product, because Karta's consumers
do not multiply a parent's scale (docs/parity.md). When none fits, the role keeps the CRD's
factors and a TODO names the counts seen.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Any

from kartalint.load.observed import value_at
from kartalint.scaffold.crd_schema import COUNT_FIELDS, count_default, jq_path, schema_at

GROUP_SIZE_FIELDS = ("size", "podGroupSize", "groupSize", "numOfHosts", "numNodes", "numHosts", "nodes")
_COUNT_LIKE = re.compile(r"(?i)(replicas|parallelism|size|count|instances|nodes|hosts|workers|completions)$")
_NOT_COUNT = re.compile(
    r"(?i)^(min|max)|seconds|limit|port|deadline|generation|index|percent|threshold|gpu|cpu|memory|revision|"
    r"history|retr|backoff|concurrency|timeout|surge|unavailable|partition|weight|priority|length|bytes"
)
MAX_FACTORS = 4
MAX_CANDIDATE_FIELDS = 10


@dataclass(frozen=True)
class Factor:
    """One count on the way to a role: the level it is at (a prefix of the role's path), its key,
    what an absent value reads as, and whether the workers of a leader group are ``value - 1``."""

    level: tuple[str, ...]
    key: str
    default: int
    minus_one: bool = False
    fallback: str | None = None  # a sibling read when the key is absent (KubeRay: replicas, else minReplicas)

    @property
    def preferred(self) -> bool:
        """Whether the key is a count field (``replicas``, a group's size): preferred to others that give the same
        pods."""
        return self.key in COUNT_FIELDS or self.key in GROUP_SIZE_FIELDS


@dataclass
class Observation:
    """The pods of one instance of a role on one running object."""

    obj: dict[str, Any]
    entry: int | None
    pods: int
    where: str  # "ns/name" or "ns/name[3]", for the TODO


@dataclass
class CountChoice:
    """The chosen factors (None: no product fits), and the notes for the draft."""

    factors: list[Factor] | None
    notes: list[str] = field(default_factory=list)
    fields: list[str] = field(default_factory=list)  # the counts considered, as jq paths


def _concrete(level: tuple[str, ...], entry: int | None) -> tuple[str | int, ...]:
    return tuple(entry if p == "[]" and entry is not None else p for p in level)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def candidate_fields(
    role_path: tuple[str, ...], observations: list[Observation], schema: dict[str, Any]
) -> list[tuple[tuple[str, ...], str]]:
    """(level, key) of every count-like integer on the way to the role (objects and CRD alike)."""
    found: dict[tuple[tuple[str, ...], str], None] = {}
    for depth in range(len(role_path)):
        level = role_path[:depth]  # (ending in "[]": the list's entry)
        keys: list[str] = []
        for seen in observations:
            node = value_at(seen.obj, _concrete(level, seen.entry))
            if isinstance(node, dict):
                keys.extend(k for k, v in node.items() if isinstance(k, str) and _is_int(v))
        properties = schema_at(schema, level).get("properties") if schema else None
        if isinstance(properties, dict):
            keys.extend(k for k, v in properties.items() if isinstance(v, dict) and v.get("type") == "integer")
        for key in keys:
            if key != role_path[depth] and _COUNT_LIKE.search(key) and not _NOT_COUNT.search(key):
                found[(level, key)] = None
    return list(found)[:MAX_CANDIDATE_FIELDS]


def _default(
    level: tuple[str, ...], key: str, schema: dict[str, Any], observations: list[Observation]
) -> tuple[list[int], str | None]:
    """The values an absent count may read as: the CRD's default, else 0 and 1 (the evidence decides)."""
    spec = schema_at(schema, (*level, key)) if schema else {}
    if isinstance(spec.get("default"), int):
        return [spec["default"]], None
    stated, unstated = count_default(spec, key) if spec else (1, None)
    if spec and unstated is None:
        return [stated], None
    absent = any(key not in (value_at(o.obj, _concrete(level, o.entry)) or {}) for o in observations)
    return ([0, 1] if absent else [1]), unstated


def _value(factor: Factor, seen: Observation) -> int:
    node = value_at(seen.obj, _concrete(factor.level, seen.entry))
    found = node.get(factor.key) if isinstance(node, dict) else None
    if not _is_int(found) and factor.fallback and isinstance(node, dict):
        found = node.get(factor.fallback)
    value: int = found if isinstance(found, int) and not isinstance(found, bool) else factor.default
    return value - 1 if factor.minus_one else value


def _fits(factors: tuple[Factor, ...], observations: list[Observation]) -> bool:
    for seen in observations:
        product = 1
        for factor in factors:
            product *= _value(factor, seen)
        if product != seen.pods:
            return False
    return True


def choose_count(
    role_path: tuple[str, ...], observations: list[Observation], schema: dict[str, Any], leader_beside: bool
) -> CountChoice:
    """The product of counts that explains every observation (see the module's docstring)."""
    fields = candidate_fields(role_path, observations, schema)
    factors: list[Factor] = []
    for level, key in fields:
        defaults, _ = _default(level, key, schema, observations)
        for default in defaults:
            factors.append(Factor(level, key, default))
            if key == "replicas" and any(
                _is_int((value_at(o.obj, _concrete(level, o.entry)) or {}).get("minReplicas")) for o in observations
            ):
                factors.append(Factor(level, key, default, fallback="minReplicas"))
            if leader_beside and key in GROUP_SIZE_FIELDS:
                factors.append(Factor(level, key, default, minus_one=True))
    choice = CountChoice(None, fields=[jq_path((*level, key)) for level, key in fields])
    if not observations:
        return choice
    best: tuple[tuple[int, int, int], tuple[Factor, ...]] | None = None
    for size in range(0, min(MAX_FACTORS, len(factors)) + 1):
        for combo in itertools.combinations(factors, size):
            if len({(f.level, f.key) for f in combo}) < len(combo):
                continue  # one field once (with one default, whole or minus one)
            if not _fits(combo, observations):
                continue
            rank = (
                -sum(f.preferred for f in combo),
                sum(not f.preferred for f in combo),
                sum(f.minus_one for f in combo),
            )
            if best is None or rank < best[0]:
                best = (rank, combo)
    if best is None:
        seen = ", ".join(f"{o.pods} on {o.where}" for o in observations[:8])
        choice.notes.append(
            f"TODO: no product of the counts on the way ({', '.join(choice.fields) or 'none found'}) gives the pods "
            f"seen ({seen}{', ...' if len(observations) > 8 else ''}): write the replicas as the operator computes them"
        )
        return choice
    choice.factors = list(best[1])
    return choice
