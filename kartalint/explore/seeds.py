"""Objects tried before the random search: one per status value the definition matches.

A mistake in the status mappings (the same phase under two statuses, a condition read apart from
a phase) shows on the object that carries that phase or condition, and random drawing may not
reach it within the budget. So explore first takes a minimal valid object and, for each matcher
of the root's ``statusMappings``, writes what the matcher asks for into it:

* ``byPhase: X``: the phase path (``phaseDefinition.path``, when it is a plain path) set to ``X``;
* ``byConditions``: the conditions list (``conditionsDefinition.path``) holding those entries
  (type, status, reason; status ``True`` where the matcher names none);
* ``byExpression``: each ``P == "s"`` of the expression on a plain path ``P`` set to ``"s"``, and
  ``select(.type == "T")`` over the conditions as a condition of type ``T`` set to ``True``.

A value outside the CRD's ``enum`` is not written (the CRD forbids it; the matcher is dead).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from kartalint import karta
from kartalint.jqlang import parse_cached, paths
from kartalint.load.crds import CrdVersion, lookup

Path = tuple[str, ...]


def _plain(expression: Any) -> Path | None:
    """The input path an expression outputs, when it is a plain path (no iteration)."""
    if not isinstance(expression, str):
        return None
    tree, error = parse_cached(expression)
    out = paths.output_path(tree) if error is None and tree is not None else None
    return tuple(out) if out and not any(part.startswith("[") for part in out) else None


class StatusWriter:
    """Writes a matcher's status into a copy of an object, where the definition reads it."""

    def __init__(self, definition: Any, version: CrdVersion) -> None:
        """A writer of the statuses ``definition`` matches, into objects of ``version``: its phase path, conditions
        path and the names of their fields."""
        refs = karta.components(definition)
        root = karta.as_dict(refs[0].data) if refs else {}
        self.status = karta.as_dict(root.get("statusDefinition"))
        self.version = version
        self.phase_path = _plain(karta.as_dict(self.status.get("phaseDefinition")).get("path"))
        conditions = karta.as_dict(self.status.get("conditionsDefinition"))
        self.conditions_path = _plain(conditions.get("path"))
        self.names = {
            key: name if isinstance(name, str) else key
            for key, name in (
                ("type", conditions.get("typeFieldName", "type")),
                ("status", conditions.get("statusFieldName", "status")),
                ("reason", conditions.get("reasonFieldName", "reason")),
            )
        }

    def matchers(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """Each status mapping's matchers, with the status they give."""
        for status, listed in karta.as_dict(self.status.get("statusMappings")).items():
            for matcher in karta.as_list(listed):
                if isinstance(matcher, dict):
                    yield status, matcher

    def writes(self, matcher: dict[str, Any]) -> list[list[tuple[Path, Any]]]:
        """Ways to make the matcher hold, each a list of (path, value) to write ([] when none is
        known): one for a phase or conditions; for an expression comparing one path with
        several strings, one per string."""
        fixed: list[tuple[Path, Any]] = []
        phase = matcher.get("byPhase")
        if isinstance(phase, str) and phase:
            if self.phase_path is None:
                return []
            fixed.append((self.phase_path, phase))
        entries = [karta.as_dict(e) for e in karta.as_list(matcher.get("byConditions"))]
        compared: dict[Path, list[str]] = {}
        expression = karta.as_dict(matcher.get("byExpression")).get("expression")
        if isinstance(expression, str):
            tree, error = parse_cached(expression)
            for path, value, _, _ in paths.compared_constants(tree) if error is None and tree is not None else []:
                if not any(part.startswith("[") for part in path):
                    compared.setdefault(tuple(path), []).append(value)
                elif self.conditions_path and tuple(path) == (*self.conditions_path, "[]", self.names["type"]):
                    compared.setdefault(self.conditions_path, []).append(value)  # one condition type at a time
        if (entries or self.conditions_path in compared) and self.conditions_path is None:
            return []
        ways = max((len(values) for values in compared.values()), default=1)
        out = []
        for i in range(ways):
            way = list(fixed)
            chosen = {path: values[i] if i < len(values) else values[0] for path, values in compared.items()}
            listed = entries + ([{"type": chosen.pop(self.conditions_path)}] if self.conditions_path in chosen else [])
            if listed and self.conditions_path is not None:
                way.append(
                    (self.conditions_path, [self._condition(e) for e in listed if isinstance(e.get("type"), str)])
                )
            way += list(chosen.items())
            out.append(way)
        return [way for way in out if way]

    def _condition(self, entry: dict[str, Any]) -> dict[str, Any]:
        status = entry.get("status")
        condition = {self.names["type"]: entry["type"], self.names["status"]: status or "True"}
        if isinstance(entry.get("reason"), str) and entry["reason"]:
            condition[self.names["reason"]] = entry["reason"]
        return condition

    def allowed(self, path: Path, value: Any) -> bool:
        """The CRD has the field (or leaves the place free) and its ``enum`` allows the value."""
        found = lookup(self.version.schema, path)
        enum = found.schema.get("enum") if found.found and isinstance(found.schema, dict) else None
        return found.found and (not isinstance(enum, list) or isinstance(value, list) or value in enum)

    def apply(self, base: dict[str, Any], writes: list[tuple[Path, Any]]) -> dict[str, Any] | None:
        """A copy of ``base`` with each value of ``writes`` at its path, or None when the CRD refuses one."""
        if not all(self.allowed(path, value) for path, value in writes):
            return None
        obj = copy.deepcopy(base)
        for path, value in writes:
            node = obj
            for part in path[:-1]:
                child = node.get(part)
                if not isinstance(child, dict):
                    child = node[part] = {}
                node = child
            node[path[-1]] = copy.deepcopy(value)
        return obj


def status_seeds(definition: Any, version: CrdVersion, base: dict[str, Any]) -> list[dict[str, Any]]:
    """The base object with each matcher's status written in (duplicates dropped, in the order of
    the mappings)."""
    writer = StatusWriter(definition, version)
    out: list[dict[str, Any]] = []
    for _, matcher in writer.matchers():
        for writes in writer.writes(matcher):
            obj = writer.apply(base, writes)
            if obj is not None and obj not in out:
                out.append(obj)
    return out
