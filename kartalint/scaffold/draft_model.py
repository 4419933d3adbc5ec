"""What a draft of `kartalint new --crd` is: its text, its data, the roles it found, its fixture object,
its problems and TODOs, and (drafted ``--from`` real objects) the evidence behind it."""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import Any

from kartalint.scaffold.crd_schema import Role

Comments = dict[tuple[str, str | None], list[str]]  # (component, field or None) -> comment lines


@dataclass
class Draft:
    """A draft definition: its name, text and data, its fixture's object, the roles found, why the skeleton object
    is not valid for its CRD, and the status TODOs."""

    name: str
    text: str
    data: dict[str, Any]
    fixture_object: dict[str, Any]
    roles: list[Role] = dc_field(default_factory=list)
    problems: list[str] = dc_field(default_factory=list)  # why the skeleton object is not valid for its CRD
    todo: list[str] = dc_field(default_factory=list)  # the status TODOs written inside statusMappings
    # drafted from real objects: role -> its evidence ("12 pods on 3 objects"), the fixtures (state,
    # text) and what the evidence showed
    evidence: dict[str, str] = dc_field(default_factory=dict)
    cases: list[Any] = dc_field(default_factory=list)  # observed_checks.FixtureCase: one per distinct state
    notes: list[str] = dc_field(default_factory=list)
