"""The fleet summary's totals, and the whole a reporter walks (``describe --summary``).

``Totals`` adds the counted entries up by the group-by keys (``namespace``, ``kind``,
``definition``, ``status``) and counts the others: uncovered and owned objects by kind, workloads
the ``--status`` filter left out, failed objects and unreadable places of the input. Memory does
not grow with the input: of the failed and unreadable entries only the first ``KEPT`` are kept
(with their errors), the rest counted. ``FleetSummary`` is the whole a reporter walks (entries as
they come, then the totals), with the status filter and the rows per workload or per role.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from kartalint.evaluation.fleet import Entry
from kartalint.evaluation.resources import ZERO, Resources
from kartalint.karta import STATUS_ORDER

GROUP_KEYS = ("namespace", "kind", "definition", "status")
DEFAULT_GROUP_BY = ("namespace", "kind")
_GROUP = "\0"  # between a kind and its API group in a group's key (shown by ``Totals.sorted_groups``)
ROW_KINDS = ("workload", "role")
STATUSES = (*STATUS_ORDER, "Undefined")  # what --status takes (kli get's --phase values)
KEPT = 100  # failed entries and unreadable places kept with their errors; the rest are counted


class Observer(Protocol):
    """What sees every entry of a summary as it goes by (a comparison with the user's figures)."""

    def add(self, entry: Entry) -> None:
        """Take one entry."""


@dataclass
class Total:
    """What a group of counted entries adds up to."""

    workloads: int = 0
    replicas: int = 0
    ready: int = 0
    resources: Resources = ZERO
    active_gpus: int = 0
    allocated_gpus: int = 0

    def add(self, entry: Entry) -> None:
        """Count one counted entry (a missing replica, ready or allocated count adds 0)."""
        self.workloads += 1
        self.replicas += entry.replicas or 0
        self.ready += entry.ready or 0
        if entry.resources is not None:
            self.resources = self.resources + entry.resources
            if entry.active:
                self.active_gpus += entry.resources.gpus
        self.allocated_gpus += entry.allocated_gpus or 0


@dataclass
class Kept:
    """The first ``KEPT`` entries of an outcome (with their errors), and how many there were."""

    entries: list[Entry]
    count: int = 0

    def add(self, entry: Entry) -> None:
        """Count ``entry``; keep it while fewer than ``KEPT`` are kept."""
        self.count += 1
        if len(self.entries) < KEPT:
            self.entries.append(entry)

    @property
    def more(self) -> int:
        """How many were counted and not kept."""
        return self.count - len(self.entries)


class Totals:
    """Counted entries added up by ``group_by``; the others counted (see the module's docstring)."""

    def __init__(self, group_by: Sequence[str] = DEFAULT_GROUP_BY) -> None:
        """``group_by`` holds keys of ``GROUP_KEYS`` (a repeated one counts once); another key raises ``ValueError``."""
        unknown = [key for key in group_by if key not in GROUP_KEYS]
        if unknown:
            raise ValueError(f"cannot group by {', '.join(unknown)} (choose from {', '.join(GROUP_KEYS)})")
        self.group_by = tuple(dict.fromkeys(group_by))
        self.groups: dict[tuple[str, ...], Total] = {}
        self.all = Total()
        self.uncovered: dict[tuple[str, str], int] = {}  # (apiVersion, kind) -> objects
        self.owned: dict[tuple[str, str], int] = {}  # (kind, owner) -> objects
        self.filtered: dict[str, int] = {}  # status -> workloads left out by --status
        self.inactive: dict[str, tuple[int, int]] = {}  # why -> (counted workloads not active, their GPUs)
        self.failed_kept = Kept([])
        self.unreadable_kept = Kept([])
        self.objects = 0

    @property
    def failed(self) -> list[Entry]:
        """The first ``KEPT`` failed entries (``failed_count`` says how many there were)."""
        return self.failed_kept.entries

    @property
    def unreadable(self) -> list[Entry]:
        """The first ``KEPT`` unreadable places (``unreadable_count`` says how many there were)."""
        return self.unreadable_kept.entries

    @property
    def failed_count(self) -> int:
        """How many objects failed."""
        return self.failed_kept.count

    @property
    def unreadable_count(self) -> int:
        """How many places of the input could not be read."""
        return self.unreadable_kept.count

    def add(self, entry: Entry) -> None:
        """Take one entry: a counted one into its group and into ``all``, the others counted (and the
        first failed and unreadable ones kept). Every entry but an unreadable one counts in ``objects``."""
        if entry.outcome == "unreadable":
            self.unreadable_kept.add(entry)
            return
        self.objects += 1
        if entry.outcome == "counted":
            key = tuple(
                [entry.value(k) if k != "kind" else f"{entry.kind}{_GROUP}{entry.group}" for k in self.group_by]
            )
            group = self.groups.get(key)
            if group is None:
                group = self.groups[key] = Total()
            group.add(entry)
            self.all.add(entry)
            if not entry.active:
                workloads, gpus = self.inactive.get(entry.activity, (0, 0))
                self.inactive[entry.activity] = (workloads + 1, gpus + entry.gpus)
        elif entry.outcome == "uncovered":
            kind = (entry.api_version, entry.kind)
            self.uncovered[kind] = self.uncovered.get(kind, 0) + 1
        elif entry.outcome == "owned":
            owned = (entry.kind, entry.activity)
            self.owned[owned] = self.owned.get(owned, 0) + 1
        elif entry.outcome == "filtered":
            self.filtered[entry.status] = self.filtered.get(entry.status, 0) + 1
        else:
            self.failed_kept.add(entry)

    @property
    def uncovered_count(self) -> int:
        """How many objects no definition covers."""
        return sum(self.uncovered.values())

    def sorted_groups(self) -> list[tuple[tuple[str, ...], Total]]:
        """The groups as (key values in ``group_by`` order, total) pairs, sorted by the key values. A
        kind is grouped with its API group: a kind that two groups serve (a Volcano ``Job`` and a
        ``batch/v1`` Job) is shown with its group, ``Job (batch.volcano.sh)``, so the two never merge."""
        return [(key, total) for key, _group, total in self.sorted_groups_with_api_group()]

    def sorted_groups_with_api_group(self) -> list[tuple[tuple[str, ...], str | None, Total]]:
        """``sorted_groups``, each with the API group of its kind (``""`` for the core group; None
        when the totals are not grouped by kind), in the same order."""
        if "kind" not in self.group_by:
            return [(key, None, total) for key, total in sorted(self.groups.items())]
        at = self.group_by.index("kind")
        groups: dict[str, set[str]] = {}
        for key in self.groups:
            kind, _, group = key[at].partition(_GROUP)
            groups.setdefault(kind, set()).add(group)

        def shown(value: str) -> str:
            kind, _, group = value.partition(_GROUP)
            return kind if len(groups[kind]) == 1 else f"{kind} ({group or 'core'})"

        return sorted(
            (((*key[:at], shown(key[at]), *key[at + 1 :]), key[at].partition(_GROUP)[2], total)
             for key, total in self.groups.items()),
            key=lambda found: (found[0], found[1]),
        )  # fmt: skip


def status_filter(values: Iterable[str]) -> frozenset[str]:
    """The statuses of ``--status`` values (repeatable, comma-separated, any case); ``ValueError``
    naming an unknown one."""
    known = {s.lower(): s for s in STATUSES}
    chosen = set()
    for value in values:
        for part in value.split(","):
            if part.strip().lower() not in known:
                raise ValueError(f"--status {part.strip()!r}: not a status (choose from {', '.join(STATUSES)})")
            chosen.add(known[part.strip().lower()])
    return frozenset(chosen)


class FleetSummary:
    """The whole a summary reporter walks: ``entries()`` as they are evaluated (each also added to
    the totals and handed to every observer, e.g. a comparison), then ``totals``."""

    def __init__(
        self,
        entries: Iterable[Entry],
        group_by: Sequence[str] = DEFAULT_GROUP_BY,
        pods_given: bool = False,
        observers: Sequence[Observer] = (),
        statuses: frozenset[str] = frozenset(),
        rows: str = "workload",
    ) -> None:
        """``entries`` as ``summarise`` yields them (read once, by ``entries()``); ``group_by``: the
        keys of the totals; ``pods_given``: whether pods were read (so ready and allocated counts mean
        something); ``observers``: objects whose ``add(entry)`` sees every entry; ``statuses``: keep
        only the workloads with one of them (``--status``; empty: all); ``rows``: ``workload`` or
        ``role`` (one row per role of each workload)."""
        if rows not in ROW_KINDS:
            raise ValueError(f"rows are per {' or '.join(ROW_KINDS)}, not {rows}")
        self._entries = entries
        self.totals = Totals(group_by)
        self.pods_given = pods_given
        self.observers = list(observers)
        self.statuses = statuses
        self.rows = rows

    def entries(self) -> Iterator[Entry]:
        """Each entry as it comes (a counted one the ``--status`` filter leaves out becomes
        ``filtered``), once added to ``totals`` and handed to the observers (walked once)."""
        for entry in self._entries:
            if self.statuses and entry.outcome == "counted" and not self.statuses.intersection(entry.status.split(",")):
                entry.outcome = "filtered"
            self.totals.add(entry)
            for observer in self.observers:
                observer.add(entry)
            yield entry

    def unreadable_lines(self) -> list[str]:
        """The places of the input that could not be read, in words: the first ``KEPT``, then how
        many more."""
        totals = self.totals
        lines = [entry.errors[0] for entry in totals.unreadable]
        if totals.unreadable_kept.more:
            lines.append(f"and {totals.unreadable_kept.more} more places that could not be read")
        return lines

    def _empty(self, refused: int) -> Literal["nothing read", "nothing covered"] | None:
        """Whether the summary has nothing to say (unless kubectl refused ``refused`` lists: then it
        is not whole, which is said)."""
        totals = self.totals
        if refused:
            return None
        if totals.objects == 0:
            return "nothing read"
        if not totals.all.workloads and not totals.failed_count and not totals.filtered:
            return "nothing covered"
        return None

    def nothing_read(self, refused: int) -> bool:
        """Whether no object could be read (every input missing, unreadable or empty; ``refused``: the
        lists kubectl refused, when it refused any the summary is partial, not empty): the run exits 2
        and the command writes no report but the JSON document, which says what could not be read."""
        return self._empty(refused) == "nothing read"

    def empty_problem(self, what: str, refused: int) -> str | None:
        """Why a summary that has nothing to say is an error (once walked): no object in ``what``
        (None when its places could not be read: said already), or no object covered by a
        definition; None for a summary with something to say."""
        empty = self._empty(refused)
        if empty == "nothing read":
            return None if self.totals.unreadable_count else f"{what}: no Kubernetes object found"
        if empty == "nothing covered":
            return "no object is covered by a definition (the summary counts them by kind)"
        return None

    def exit_code(self, refused: int, differs: bool) -> int:
        """The exit code of ``describe --summary`` (once walked): 2 when nothing was read or no object
        is covered; 1 when an object failed, a place could not be read, kubectl refused ``refused``
        lists, or the figures differ from the user's (``differs``); else 0."""
        if self._empty(refused) is not None:
            return 2
        totals = self.totals
        return 1 if totals.failed_count or totals.unreadable_count or refused or differs else 0
