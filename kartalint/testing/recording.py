"""Upstream's recording format (spec §6, docs/replay-and-verify.md in ../shared).

A recording is one YAML document with ``schemaVersion: 1``, ``kartaFile`` (only its base name
matters) and ``events``; every ``kind: STATE`` event carries the full workload ``object`` and the
recorder's ``state``. ACTION events carry no object and are skipped. The replay contract: the
recorded ``state`` must be among the statuses the definition computes.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kartalint.karta import as_dict, as_list


@dataclass(frozen=True)
class StateEvent:
    """A ``STATE`` event of a recording: its index among the events, the operator's state and phases, the object."""

    index: int  # position in ``events`` (ACTION events included), 0-based
    state: Any
    phases: Any
    object: Any


def is_recording(data: Any) -> bool:
    """Whether ``data`` is a recording (schema version 1, with events and the definition's file)."""
    data = as_dict(data)
    return data.get("schemaVersion") == 1 and isinstance(data.get("events"), list) and "kartaFile" in data


def definition_basename(data: Any) -> str | None:
    """The file name of the definition a recording was made with, or None."""
    name = as_dict(data).get("kartaFile")
    return os.path.basename(name) if isinstance(name, str) and name else None


def state_events(data: Any) -> Iterator[StateEvent]:
    """The ``STATE`` events of a recording, in order."""
    for index, event in enumerate(as_list(as_dict(data).get("events"))):
        event = as_dict(event)
        if event.get("kind") != "STATE":
            continue
        yield StateEvent(index, event.get("state"), event.get("phases"), event.get("object"))
