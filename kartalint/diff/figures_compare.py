"""A fleet summary against the user's own figures (``describe --summary --compare FILE``).

``Comparison`` is an observer of ``FleetSummary``: it adds the summary's counted workloads (or
their roles, when FILE has a ``role`` column) up per key of FILE, and keeps small records of what
is behind each key, never the objects. Then ``differences()`` gives each key and column whose
figures differ, each with why:

- Workloads of different API groups never merge. When FILE names workloads (a ``name`` or
  ``kind`` column) without saying their group (no ``apiVersion`` nor ``group`` column), the
  summary still keeps them apart, and a line of FILE that matches workloads of two groups (a
  Volcano ``Job`` and a ``batch/v1`` Job, both ``train``) is a difference of its own, saying which.
- For a grouped FILE (no ``name`` column: per namespace, per kind), a difference is explained by
  the workloads behind it, largest first: the kinds that account for it exactly ("11 Job
  (batch.volcano.sh/v1alpha1): 286 the file counts as 0"), the workloads that are not active when
  the file counts desired GPUs as in use (or the other way), else the kinds behind the key.
- For a workload, a note says when it is not counted (no definition, failed, left out by
  ``--status``, counted under its owner), not active, or not in the input, or has no such role.

A ``role`` of FILE is what a script calls a role: the instance of a component with instances (a
JobSet's replicated job, a PyTorchJob's replica type: ``workers``, ``master``), else the component
(a LeaderWorkerSet's ``leader`` and ``worker``).

A key missing on one side counts as zero there, so a script that lists only GPU workloads agrees
with a summary whose other workloads have none.
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from kartalint.diff.figures import Expected
from kartalint.evaluation.fleet import Entry
from kartalint.evaluation.usage import RoleFigures

UNITS = {"cpu": "millicores", "cpuMillis": "millicores", "memory": "bytes", "memoryBytes": "bytes"}
SUBSET_KINDS = 8  # the largest kinds behind a key tried as the exact cause of a difference
SUBSET_INACTIVE = 6  # the largest groups of workloads not active now, tried with them
CAUSE_SIZE = 2  # at most this many of them named as the cause of a difference
NOTES_KEPT = 3


def figures(entry: Entry, role: RoleFigures | None) -> dict[str, int]:
    """Every comparable figure of a counted workload (or of one of its roles), in machine units."""
    resources = role.resources if role is not None else entry.resources
    assert resources is not None
    allocated = role.allocated_gpus if role is not None else entry.allocated_gpus
    return {
        "gpus": resources.gpus,
        "activeGpus": resources.gpus if entry.active else 0,
        "allocatedGpus": allocated or 0,
        "cpu": resources.cpu_millis,
        "cpuMillis": resources.cpu_millis,
        "memory": resources.memory_bytes,
        "memoryBytes": resources.memory_bytes,
        "replicas": (role.replicas if role is not None else entry.replicas) or 0,
    }


def hidden_keys(keys: tuple[str, ...]) -> tuple[str, ...]:
    """What the summary adds to FILE's keys so that it never merges workloads of different groups
    (or, for a file of names without kinds, of different kinds)."""
    out = []
    if ("name" in keys or "kind" in keys) and "apiVersion" not in keys and "group" not in keys:
        out.append("group")
    if "name" in keys and "kind" not in keys:
        out.append("kind")
    return tuple(out)


def _value(entry: Entry, role: RoleFigures | None, key: str) -> str:
    if key == "role":  # the role as a script names it: the instance of a component with instances
        return (role.instance or role.role) if role is not None else ""
    if key == "group":
        return entry.group
    return entry.value(key)


def _pods_text(entry: Entry, role: RoleFigures | None) -> str:
    """How a workload's (or a role's) desired GPUs are made: pods x GPUs per pod, per role that asks
    for GPUs (``""`` when none does)."""
    roles = [r for r in ([role] if role is not None else entry.roles) if r.gpus_per_pod]
    if role is None and len(roles) > 1:
        parts = [f"{r.instance or r.role} {r.replicas} x {r.gpus_per_pod}" for r in roles]
        return ", ".join(parts) + " (pods x GPUs per pod)"
    return f"{roles[0].replicas} pod(s) x {roles[0].gpus_per_pod} GPU(s)" if roles else ""


def _reason(entry: Entry, detailed: bool) -> str:
    """Why an entry is not in the summary's figures (with the object's error when ``detailed``)."""
    if entry.outcome == "uncovered":
        return f"no definition covers {entry.api_version} {entry.kind}"
    if entry.outcome == "owned":
        return f"counted under its owner {entry.activity}"
    if entry.outcome == "filtered":
        return f"left out by --status ({entry.status})"
    error = f": {entry.errors[0]}" if detailed and entry.errors else ""
    return f"not counted, the evaluation failed{error}"


@dataclass
class Behind:
    """What is behind a key of a grouped file: per (apiVersion, kind) and per reason a workload is
    not active, how many workloads and their figures; and what is not counted, by reason."""

    kinds: dict[tuple[str, str], tuple[int, dict[str, int]]] = field(default_factory=dict)
    inactive: dict[str, tuple[int, dict[str, int]]] = field(default_factory=dict)
    not_counted: dict[str, int] = field(default_factory=dict)

    @staticmethod
    def _add(table: dict[Any, tuple[int, dict[str, int]]], label: Any, values: dict[str, int]) -> None:
        count, sums = table.get(label, (0, {}))
        table[label] = (count + 1, {c: sums.get(c, 0) + v for c, v in values.items()})


@dataclass
class Difference:
    """A key whose figures differ: per column (summary, file), None where a side has no figure,
    why per column when it is known, and a note for the key as a whole."""

    key: tuple[str, ...]
    values: dict[str, tuple[int | None, Fraction | None]]
    note: str = ""
    notes: dict[str, str] = field(default_factory=dict)

    def note_of(self, column: str) -> str:
        """The key's note and the column's, joined."""
        return "; ".join(n for n in (self.note, self.notes.get(column, "")) if n)


class Comparison:
    """The summary's counted entries added up per key of ``expected``, then the differences."""

    def __init__(self, expected: Expected) -> None:
        """Compare with ``expected`` (the user's file)."""
        self.expected = expected
        self.keys = expected.keys
        self.hidden = hidden_keys(self.keys)
        self.per_role = "role" in self.keys
        self.grouped = "name" not in self.keys
        self.found: dict[tuple[str, ...], dict[str, int]] = {}  # full key (FILE's + hidden) -> sums
        self.full_keys: dict[tuple[str, ...], list[tuple[str, ...]]] = {}  # FILE's key -> full keys
        self.behind: dict[tuple[str, ...], Behind] = {}  # FILE's key -> what is behind it (grouped files)
        self.notes: dict[tuple[str, ...], list[str]] = {}  # FILE's key -> not counted (files of names)
        self.details: dict[tuple[str, ...], tuple[str, str]] = {}  # full key -> (pods x GPUs, why not active)
        self.roles: dict[tuple[str, ...], set[str]] = {}  # a workload's key without role -> its roles
        self.totals = dict.fromkeys(expected.columns, 0)

    def _key(self, entry: Entry, role: RoleFigures | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
        key = tuple(_value(entry, role, k) for k in self.keys)
        return key, key + tuple(_value(entry, role, k) for k in self.hidden)

    def add(self, entry: Entry) -> None:
        """Take one entry of the summary as it goes by."""
        if entry.outcome == "unreadable":
            return
        if entry.outcome != "counted":
            self._not_counted(entry)
            return
        units = [(r, figures(entry, r)) for r in entry.roles] if self.per_role else [(None, figures(entry, None))]
        for role, values in units:
            key, full = self._key(entry, role)
            sums = self.found.get(full)
            if sums is None:
                sums = self.found[full] = dict.fromkeys(self.expected.columns, 0)
                self.full_keys.setdefault(key, []).append(full)
            for column in self.expected.columns:
                sums[column] += values[column]
                self.totals[column] += values[column]
            if self.grouped:
                behind = self.behind.setdefault(key, Behind())
                Behind._add(behind.kinds, (entry.api_version, entry.kind), values)
                if not entry.active:
                    Behind._add(behind.inactive, entry.activity, values)
            else:
                self.details[full] = (_pods_text(entry, role), "" if entry.active else entry.activity)
            if self.per_role and not self.grouped and role is not None:
                self.roles.setdefault(full[: self.keys.index("role")], set()).add(role.instance or role.role)

    def _not_counted(self, entry: Entry) -> None:
        key = tuple(_value(entry, None, k) for k in self.keys)
        if self.grouped:
            behind = self.behind.setdefault(key, Behind())
            reason = _reason(entry, detailed=False)
            behind.not_counted[reason] = behind.not_counted.get(reason, 0) + 1
            return
        notes = self.notes.setdefault(key, [])
        if len(notes) < NOTES_KEPT:
            who = "/".join(part for part in (entry.namespace, entry.kind, entry.name) if part)
            notes.append(f"{who}: {_reason(entry, detailed=True)}")
        elif len(notes) == NOTES_KEPT:
            notes.append("...")

    def _sums(self, key: tuple[str, ...]) -> dict[str, int] | None:
        fulls = self.full_keys.get(key)
        if not fulls:
            return None
        return {c: sum(self.found[f][c] for f in fulls) for c in self.expected.columns}

    def differences(self) -> list[Difference]:
        """Each key (sorted) whose figures differ from the file's, with why."""
        out = []
        rows = self.expected.rows  # (millions of keys, maybe: never copied into a set of tuples)
        only_mine = sorted(k for k in {*self.full_keys, *self.notes, *self.behind} if k not in rows)
        for key in heapq.merge(rows.in_order(), only_mine):
            mine = self._sums(key)  # None: no counted workload has this key
            theirs = self.expected.rows.get(key)  # None: the file has no line with this key
            ambiguous = len(self.full_keys.get(key, [])) > 1
            values: dict[str, tuple[int | None, Fraction | None]] = {}
            for column in self.expected.columns:
                if theirs is not None and column not in theirs:
                    continue  # the file leaves it empty: not compared
                here = mine[column] if mine is not None else 0
                there = theirs[column] if theirs is not None else Fraction(0)
                if ambiguous:  # never their sum: each group's figure is in the note
                    values[column] = (None, there if theirs is not None else None)
                elif here != there:
                    values[column] = (here if mine is not None else None, there if theirs is not None else None)
            if values:  # an object not counted where the figures agree is said by the summary's own lines
                out.append(self._explained(key, values, mine is None, ambiguous))
        return out

    def _explained(
        self,
        key: tuple[str, ...],
        values: dict[str, tuple[int | None, Fraction | None]],
        missing: bool,
        ambiguous: bool,
    ) -> Difference:
        difference = Difference(key, values)
        if ambiguous:
            parts = ", ".join(
                f"{self._kind_of(key, full)}: "
                + " ".join(f"{c} {self.found[full][c]}{' ' + UNITS[c] if c in UNITS else ''}" for c in values)
                for full in sorted(self.full_keys[key])
            )
            difference.note = (
                f"workloads of {len(self.full_keys[key])} API groups have this key ({parts}): they are not added "
                "together; add an apiVersion or group column to the file to compare each"
            )
            return difference
        if self.grouped:
            behind = self.behind.get(key)
            for column, (mine, theirs) in values.items():
                difference.notes[column] = explain_group(behind, column, mine or 0, theirs or Fraction(0))
            return difference
        notes = self.notes.get(key, [])
        if missing and not notes:
            notes = [self._missing(key)]
        if key not in self.expected.rows:
            notes = ["no line in the file"]
        difference.note = "; ".join(notes)
        fulls = self.full_keys.get(key, [])
        if len(fulls) == 1 and fulls[0] in self.details:
            pods, why = self.details[fulls[0]]
            for column, (mine, _) in values.items():
                if column == "activeGpus" and why:
                    difference.notes[column] = f"{why}: holds no pod now (desired: {pods})"
                elif column in ("gpus", "activeGpus"):
                    difference.notes[column] = f"{mine} = {pods}" if pods else "no role of it asks for a GPU"
        return difference

    def _kind_of(self, key: tuple[str, ...], full: tuple[str, ...]) -> str:
        hidden = dict(zip(self.hidden, full[len(self.keys) :], strict=True))
        kind = hidden.get("kind") or (key[self.keys.index("kind")] if "kind" in self.keys else "")
        return f"{kind} ({hidden.get('group') or 'core'})"

    def _missing(self, key: tuple[str, ...]) -> str:
        if self.per_role:
            at = self.keys.index("role")
            for workload, roles in self.roles.items():
                if workload[:at] == key[:at]:
                    return f"the workload has no role {key[at]} (its roles: {', '.join(sorted(roles))})"
        return "not in the input"

    def total_differences(self) -> dict[str, tuple[int, Fraction]]:
        """Each column whose total differs: (summary, file)."""
        mine = self.totals
        theirs = {c: self.expected.rows.total(c) for c in mine}
        return {c: (mine[c], theirs[c]) for c in mine if mine[c] != theirs[c]}


def _causes(options: list[tuple[str, int, str]], target: int) -> list[tuple[str, int, str]] | None:
    """The one way of at most ``CAUSE_SIZE`` of ``options`` (label, signed value, what) to add up to
    ``target``: the fewest, and only when no other of as few does (a coincidence of many is no cause)."""
    for size in range(1, min(CAUSE_SIZE, len(options)) + 1):
        found = [list(c) for c in itertools.combinations(options, size) if sum(v for _, v, _ in c) == target]
        if found:
            return found[0] if len(found) == 1 else None
    return None


CAUSES = {
    "kind": "the file counts as 0",
    "left out": "the file leaves out workloads not active now",
    "counted": "the file counts the desired GPUs of workloads not active now",
}


def explain_group(behind: Behind | None, column: str, mine: int, theirs: Fraction) -> str:
    """Why a grouped key's figure differs, from the workloads behind it, largest first: one or two
    kinds the file counts as 0 or groups of workloads not active now (the file counting their
    desired GPUs as in use, or leaving them out of a desired figure) when they alone make the
    difference exactly, else the kinds behind the key and those of them not active now."""
    gap = mine - theirs
    unit = f" {UNITS[column]}" if column in UNITS else ""
    amount = int(abs(gap)) if abs(gap).denominator == 1 else float(abs(gap))
    head = f"{amount}{unit} {'more' if gap > 0 else 'less'} than the file"
    if behind is None:
        return f"{head}: no workload of the input has this key"
    kinds = sorted(
        ((f"{c} {kind} ({api})", s[column]) for (api, kind), (c, s) in behind.kinds.items()),
        key=lambda item: (-item[1], item[0]),
    )
    desired = "gpus" if column == "activeGpus" else column
    inactive = sorted(
        ((f"{c} {why}", s[desired]) for why, (c, s) in behind.inactive.items()), key=lambda item: (-item[1], item[0])
    )
    options = [(label, value, "kind") for label, value in kinds if value][:SUBSET_KINDS]
    if column == "activeGpus":
        options += [(label, -value, "counted") for label, value in inactive if value][:SUBSET_INACTIVE]
    elif column != "allocatedGpus":
        options += [(label, value, "left out") for label, value in inactive if value][:SUBSET_INACTIVE]
    chosen = _causes(options, int(gap)) if gap.denominator == 1 else None
    if chosen:
        parts = [
            f"{CAUSES[what]}: " + ", ".join(f"{label}: {abs(value)}{unit}" for label, value, w in chosen if w == what)
            for what in CAUSES
            if any(w == what for _, _, w in chosen)
        ]
        found = "; ".join(parts)
    else:
        shown = [f"{label}: {value}{unit}" for label, value in kinds[:5]]
        more = f", and {len(kinds) - 5} more kinds" if len(kinds) > 5 else ""
        found = f"behind it: {', '.join(shown) or 'no counted workload'}{more}"
        if inactive and column != "allocatedGpus":
            found += "; not active now: " + ", ".join(
                f"{label}: {value}{unit} desired" for label, value in inactive[:5]
            )
    not_counted = ", ".join(f"{n} {reason}" for reason, n in sorted(behind.not_counted.items(), key=lambda i: -i[1]))
    if not_counted:
        found += f"; not counted by the summary: {not_counted}"
    return f"{head}: {found}"
