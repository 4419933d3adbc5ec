"""Gang: KAI Scheduler's pod groups (``optimizationInstructions.gangScheduling``)."""

from __future__ import annotations

from collections.abc import Iterator

from kartalint import karta
from kartalint.mutation.mutant import Mutant, Subject, with_value, without
from kartalint.mutation.operators.base import Operator

GANG = ("spec", "optimizationInstructions", "gangScheduling")


def _members(subject: Subject) -> Iterator[tuple[tuple, str]]:
    """(path, componentName) of every sub-group (``podGroup``) and member (``podGroups``)."""
    gang = karta.gang_scheduling(subject.definition)
    for index, sub in enumerate(karta.as_list(karta.as_dict(gang.get("podGroup")).get("subGroups"))):
        name = karta.as_dict(sub).get("componentName")
        if isinstance(name, str):
            yield (*GANG, "podGroup", "subGroups", index), name
    for group_index, group in enumerate(karta.as_list(gang.get("podGroups"))):
        for index, member in enumerate(karta.as_list(karta.as_dict(group).get("members"))):
            name = karta.as_dict(member).get("componentName")
            if isinstance(name, str):
                yield (*GANG, "podGroups", group_index, "members", index), name


def drop_member(subject: Subject) -> Iterator[Mutant]:
    """Drop a gang member: a ``podGroup.subGroups`` entry or a ``podGroups[].members`` entry.

    Killed by a fixture whose ``expect.gang`` pins the sub-groups (or ``minSubGroup``)."""
    for path, name in _members(subject):
        yield subject.mutant(
            "drop-gang-member", "gang", path, f"componentName: {name}", "(dropped)", without(subject.definition, path)
        )


def min_available_source(subject: Subject) -> Iterator[Mutant]:
    """Take a gang minimum from another component: a sub-group's or member's ``componentName`` ->
    the first other component (root first, then children in order).

    Killed by a fixture whose ``expect.gang`` pins the minimums, on an object where the two
    components have different replica counts."""
    names = [ref.name for ref in subject.components if isinstance(ref.name, str)]
    for path, name in _members(subject):
        other = next((n for n in names if n != name), None)
        if other is None:
            continue
        where = (*path, "componentName")
        yield subject.mutant(
            "min-available-source",
            "gang",
            where,
            f"componentName: {name}",
            f"componentName: {other}",
            with_value(subject.definition, where, other),
        )


OPERATORS = (
    Operator("drop-gang-member", "gang", drop_member),
    Operator("min-available-source", "gang", min_available_source),
)
