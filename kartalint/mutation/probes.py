"""Probe objects: fixture objects changed so that they may tell a mutant from its original.

A mutant that gives the same view as its original on every fixture object is either equivalent
or merely not reached by the fixtures. Its ``Perturbation`` records (an absent field, a status's
conditions) are applied to the fixture objects; if the mutant differs from the original on such
a probe, a fixture from a real object like it would kill the mutant (a survivor, with that
object described in its hint); if not, the mutant is taken as equivalent.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import Any

from kartalint.mutation.mutant import Perturbation

MAX_PROBES = 16  # per mutant
OBJECTS_PER_PERTURBATION = 3


def _apply(node: Any, path: tuple[str, ...], action: str, value: Any) -> bool:
    """Change ``node`` in place at ``path``; whether anything changed."""
    if not path:
        return False
    head, rest = path[0], path[1:]
    if head in ("[]", "[?]"):
        items = node if isinstance(node, list) else list(node.values()) if isinstance(node, dict) else []
        return any([_apply(item, rest, action, value) for item in items])  # every element, not the first
    if head.startswith("["):
        index = int(head[1:-1]) if head[1:-1].lstrip("-").isdigit() else None
        if not isinstance(node, list) or index is None or not -len(node) <= index < len(node):
            return False
        return _apply(node[index], rest, action, value)
    if not isinstance(node, dict):
        return False
    if not rest:
        if action == "remove":
            return node.pop(head, _MISSING) is not _MISSING
        current = node.get(head, _MISSING)
        if current == value or (action == "set-number" and not _number(current)):
            return False
        node[head] = copy.deepcopy(value)
        return True
    if head not in node and action == "set" and not rest[0].startswith("["):  # set-number never creates
        node[head] = {}
    return _apply(node.get(head), rest, action, value)


_MISSING = object()


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def perturbed(obj: Any, perturbation: Perturbation) -> Any | None:
    """A copy of ``obj`` changed as the perturbation says, or None when it changes nothing there."""
    out = copy.deepcopy(obj)
    changed = False
    for action, path, value in perturbation.steps:
        changed = _apply(out, path, action, value) or changed
    return out if changed else None


def probes(
    perturbations: Sequence[Perturbation], objects: Sequence[Any], first: Sequence[int] = ()
) -> list[tuple[Any, Perturbation, int]]:
    """(probe object, perturbation, index of the object it came from), at most ``MAX_PROBES``,
    without duplicates, in a fixed order; the objects at the indexes ``first`` are tried first
    (those where what the mutant changes is evaluated)."""
    out: list[tuple[Any, Perturbation, int]] = []
    seen: set[str] = set()
    order = [*dict.fromkeys(first), *(i for i in range(len(objects)) if i not in set(first))]
    for perturbation in perturbations:
        used = 0
        for index in order:
            obj = objects[index]
            if used >= OBJECTS_PER_PERTURBATION or len(out) >= MAX_PROBES:
                break
            probe = perturbed(obj, perturbation)
            if probe is None:
                continue
            key = json.dumps(probe, sort_keys=True, default=str)
            if key in seen:
                continue
            seen.add(key)
            out.append((probe, perturbation, index))
            used += 1
    return out
