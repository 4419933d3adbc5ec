"""Leaf values for explore: strings that mean what their field says they hold.

A CRD often leaves a string free (``type: string``, no pattern) where the operator only accepts a
Kubernetes quantity (Spark's ``coreRequest``, ``memory``, ``*Limit``), an integer written as a
string (``sparkConf["spark.executor.instances"]``), a flag or a duration. Drawing ``"a"`` there
makes a correct definition fail on an object no operator accepts, so a free string takes values
that parse as what its name or description says; the rest are short names. The strings a
definition compares a field with (``.spec.mode == "x"``) are drawn too.
"""

from __future__ import annotations

import re
from typing import Any

NAMES = ("a", "b", "leader", "worker", "head")
CPU = ("100m", "500m", "1", "2")
MEMORY = ("256Mi", "1Gi", "4Gi")
QUANTITIES = ("1", "500m", "2Gi")
COUNTS = ("1", "2", "4")
FLAGS = ("true", "false")
DURATIONS = ("30s", "5m")
# strings tried for an int-or-string field, kept where the field's pattern accepts them
INT_OR_STRING = ("1", "50%", "500m", "1Gi")

_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


def _words(name: str) -> list[str]:
    """``coreRequest`` -> [core, request]; ``spark.executor.instances`` -> [spark, executor, instances]."""
    return [w.lower() for part in re.split(r"[^A-Za-z0-9]+", name) for w in _WORDS.findall(part)]


def meaning(name: str, node: dict[str, Any]) -> tuple[str, ...] | None:
    """Realistic values for a free string field named ``name`` (a property or a map key), from
    what its name or description says it holds; None when neither says."""
    words = _words(name)
    last = words[-1] if words else ""
    described = str(node.get("description") or "").lower()
    if {"cpu", "cpus", "core", "cores"} & set(words):
        return CPU
    if {"memory", "mem", "storage"} & set(words) or (
        "size" in words and ("quantity" in described or "gi" in described)
    ):
        return MEMORY
    if last in ("limit", "request", "quantity") or "resource.quantity" in described or "quantity" in described:
        return QUANTITIES
    if last in ("enabled", "enable", "disabled") or (words[:1] in (["enable"], ["is"]) and len(words) > 1):
        return FLAGS
    if last in ("instances", "replicas", "count", "executors", "retries", "port", "workers", "number") or (
        "number of" in described
    ):
        return COUNTS
    if last in ("timeout", "interval", "duration", "period") or "duration" in described:
        return DURATIONS
    return None


def fitting(values: tuple[str, ...] | list[str], node: dict[str, Any]) -> list[str]:
    """The values that fit the field's length limits and pattern."""
    pattern = node.get("pattern")
    compiled = None
    if isinstance(pattern, str):
        try:
            compiled = re.compile(pattern)
        except re.error:
            compiled = None
    low = node.get("minLength", 0)
    high = node.get("maxLength", 1 << 30)
    low = low if isinstance(low, int) else 0
    high = high if isinstance(high, int) else 1 << 30
    return [
        value
        for value in values
        if low <= len(value) <= high and (compiled is None or compiled.search(value) is not None)
    ]


def strings(name: str, node: dict[str, Any], compared: list[str]) -> list[str]:
    """Candidates for a string field: the strings compared with it, then what its name means
    (else short names), each fitting its pattern and length; [] when none fits."""
    if node.get("format") == "date-time":
        return ["2026-01-01T00:00:00Z"]
    meant = meaning(name, node)
    pool = [*compared, *(meant or NAMES)]
    found = fitting(list(dict.fromkeys(pool)), node)
    if not found and meant and isinstance(node.get("pattern"), str):
        found = fitting(list(NAMES), node)
    return found


def int_or_string(name: str, node: dict[str, Any]) -> list[str]:
    """The strings drawn for an int-or-string field (beside integers): what its name means (else
    a count or a percentage), kept where its pattern takes them (a quantity pattern refuses
    ``50%``); else whichever of a few forms the pattern takes."""
    return fitting(list(meaning(name, node) or ("1", "50%")), node) or fitting(list(INT_OR_STRING), node)
