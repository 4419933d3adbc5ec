"""Fleet accounting (``kartalint describe --summary``): one entry per workload object, totals by group.

``summarise`` takes objects one at a time (``load.objects.stream_objects``), finds each one's
definition, evaluates them in batches through ``Evaluator.evaluate_many`` (``evaluate_all`` groups
a batch by definition) and yields one ``Entry`` per object, in input order, as soon as its batch
is done. Memory is bounded by the batch, not by the input. An entry is

- ``counted``: evaluated without an error; its replicas and resources are describe's TOTAL row;
- ``failed``: its definition is refused (invalid, without ``--force``) or the evaluation has
  errors: reported with the error, left out of the totals;
- ``uncovered``: no definition for its group/version/kind (counted by kind);
- ``unreadable``: the input could not be read there (the error says where).

``Totals`` adds the counted entries up by the group-by keys (``namespace``, ``kind``,
``definition``, ``status``); ``FleetSummary`` is the whole a reporter walks (entries as they come,
then the totals).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from kartalint.evaluation.engine import Evaluator
from kartalint.evaluation.resources import ZERO, Resources
from kartalint.evaluation.view import WorkloadView
from kartalint.karta import as_dict, as_list
from kartalint.load.definitions import DefinitionFile
from kartalint.load.objects import LoadedObject, LoadProblem

SCHEMA_VERSION = 1  # of the summary's JSON document (kartalint/schema/data/summary.schema.json)
GROUP_KEYS = ("namespace", "kind", "definition", "status")
DEFAULT_GROUP_BY = ("namespace", "kind")
BATCH = 256  # objects evaluated together: what the summary holds at a time
OWNER_LEVELS = 6  # how far up owner references are followed from a pod (as kli's live mode)
UNDEFINED = "Undefined"  # the status of a workload no status mapping matches (as `kli get`)


Outcome = Literal["counted", "failed", "uncovered", "unreadable"]  # what became of one object


@dataclass
class Entry:
    """What the summary says of one object (or of a place in the input that could not be read)."""

    outcome: Outcome
    origin: str  # file:line
    namespace: str = ""
    kind: str = ""
    name: str = ""
    api_version: str = ""
    definition: str = ""  # the definition's metadata.name ("" when none covers the object)
    statuses: list[str] = field(default_factory=list)
    replicas: int | None = None  # desired replicas (describe's TOTAL row); None unless counted
    ready: int | None = None  # ready pods, with --pods; None otherwise
    resources: Resources | None = None  # None unless counted
    errors: list[str] = field(default_factory=list)

    @property
    def status(self) -> str:
        """The matched statuses joined by commas (``Undefined`` when none matched); empty unless the
        entry is counted."""
        if self.outcome != "counted":
            return ""
        return ",".join(self.statuses) or UNDEFINED

    def value(self, key: str) -> str:
        """The entry's value for a group-by key."""
        return str(getattr(self, key))


def _entry(outcome: Outcome, origin: str, obj: Any, **more: Any) -> Entry:
    """An entry for ``obj`` with its namespace, kind, name and apiVersion."""
    obj = as_dict(obj)
    meta = as_dict(obj.get("metadata"))

    def text(value: Any) -> str:
        return value if isinstance(value, str) else ""

    return Entry(
        outcome,
        origin,
        namespace=text(meta.get("namespace")),
        kind=text(obj.get("kind")),
        name=text(meta.get("name")),
        api_version=text(obj.get("apiVersion")),
        **more,
    )


def entry_of(origin: str, obj: Any, definition: DefinitionFile, view: WorkloadView) -> Entry:
    """The entry of an evaluated object: counted, or failed when the view has errors."""
    errors = [
        f"{component + ': ' if component else ''}{error.field}: {error.message}" for component, error in view.all_errors
    ]
    named = {"definition": definition.name}
    if errors:
        return _entry("failed", origin, obj, errors=errors, **named)
    return _entry(
        "counted",
        origin,
        obj,
        statuses=list(view.statuses),
        replicas=view.replicas,
        ready=view.ready_pods,
        resources=view.resources,
        **named,
    )


class PodIndex:
    """Pods by the workload that owns them, as kli's live mode finds them: a pod belongs to a
    workload in its namespace when an owner reference of the pod, or of an owner up to six levels
    up, names the workload's uid. Owners in between (the Jobs of a JobSet) are followed when they
    are in the pods file too (``kubectl get pods,jobs -o yaml``)."""

    def __init__(self, objects: Sequence[Any]) -> None:
        """Index the pods among ``objects`` (kind ``Pod``, or no kind) under every uid their owner
        references reach, following the owners found in ``objects`` up to ``OWNER_LEVELS`` levels."""
        owners: dict[str, list[str]] = {}
        pods: list[tuple[dict[str, Any], list[str]]] = []
        for obj in objects:
            meta = as_dict(as_dict(obj).get("metadata"))
            refs = [r["uid"] for r in as_list(meta.get("ownerReferences")) if isinstance(as_dict(r).get("uid"), str)]
            if isinstance(meta.get("uid"), str):
                owners[meta["uid"]] = refs
            if as_dict(obj).get("kind") in ("Pod", None):
                pods.append((obj, refs))
        self.by_owner: dict[str, list[dict[str, Any]]] = {}
        for pod, refs in pods:
            reached: set[str] = set()
            level = refs
            for _ in range(OWNER_LEVELS):
                level = [uid for uid in level if uid not in reached]
                reached.update(level)
                level = [up for uid in level for up in owners.get(uid, [])]
            for uid in reached:
                self.by_owner.setdefault(uid, []).append(pod)

    def of(self, workload: Any) -> list[dict[str, Any]]:
        """The pods of ``workload``: those whose owners reach its uid and that share its namespace
        (none without a uid)."""
        meta = as_dict(as_dict(workload).get("metadata"))
        uid, namespace = meta.get("uid"), meta.get("namespace")
        if not isinstance(uid, str):
            return []
        return [p for p in self.by_owner.get(uid, []) if as_dict(p.get("metadata")).get("namespace") == namespace]


Choose = Callable[[dict[str, Any]], "DefinitionFile | None"]


def summarise(
    items: Iterable[LoadedObject | LoadProblem],
    choose: Choose,
    evaluator: Evaluator,
    pods: PodIndex | None = None,
    batch: int = BATCH,
) -> Iterator[Entry]:
    """One entry per item, in order, each batch evaluated together (see the module's docstring)."""
    pending: list[LoadedObject | LoadProblem] = []
    invalid: dict[int, list[str]] = {}  # id of a definition's data -> why upstream refuses it
    for item in items:
        pending.append(item)
        if len(pending) >= batch:
            yield from _evaluate(pending, choose, evaluator, pods, invalid)
            pending = []
    if pending:
        yield from _evaluate(pending, choose, evaluator, pods, invalid)


def _evaluate(
    batch: list[LoadedObject | LoadProblem],
    choose: Choose,
    evaluator: Evaluator,
    pods: PodIndex | None,
    invalid: dict[int, list[str]],
) -> list[Entry]:
    entries: list[Entry | None] = [None] * len(batch)
    work: list[tuple[int, LoadedObject, DefinitionFile]] = []
    for index, item in enumerate(batch):
        if isinstance(item, LoadProblem):
            entries[index] = Entry("unreadable", item.message.split(": ", 1)[0], errors=[item.message])
            continue
        definition = choose(item.data)
        if definition is None:
            entries[index] = _entry("uncovered", item.origin, item.data)
            continue
        if id(definition.data) not in invalid:  # prepared once per definition, not per object
            invalid[id(definition.data)] = evaluator.prepare(definition.data).invalid
        problems = invalid[id(definition.data)]
        if problems and not evaluator.force:
            reason = (
                f"the definition {definition.path} is invalid (upstream refuses it): {problems[0]}; "
                "nothing was evaluated (--force evaluates it anyway)"
            )
            entries[index] = _entry(
                "failed",
                item.origin,
                item.data,
                definition=definition.name,
                errors=[reason],
            )
            continue
        work.append((index, item, definition))
    views = evaluator.evaluate_all(
        [(definition.data, item.data, pods.of(item.data) if pods else None) for _, item, definition in work]
    )
    for (index, item, definition), view in zip(work, views, strict=True):
        entries[index] = entry_of(item.origin, item.data, definition, view)
    return [entry for entry in entries if entry is not None]


@dataclass
class Total:
    """What a group of counted entries adds up to."""

    workloads: int = 0
    replicas: int = 0
    ready: int = 0
    resources: Resources = ZERO

    def add(self, entry: Entry) -> None:
        """Count one counted entry (a missing replica or ready count adds 0)."""
        self.workloads += 1
        self.replicas += entry.replicas or 0
        self.ready += entry.ready or 0
        self.resources = self.resources + (entry.resources or ZERO)


class Totals:
    """Counted entries added up by ``group_by``; the others counted (uncovered by kind) or kept
    (failed and unreadable entries, with their errors)."""

    def __init__(self, group_by: Sequence[str] = DEFAULT_GROUP_BY) -> None:
        """``group_by`` holds keys of ``GROUP_KEYS`` (a repeated one counts once); another key raises ``ValueError``."""
        unknown = [key for key in group_by if key not in GROUP_KEYS]
        if unknown:
            raise ValueError(f"cannot group by {', '.join(unknown)} (choose from {', '.join(GROUP_KEYS)})")
        self.group_by = tuple(dict.fromkeys(group_by))
        self.groups: dict[tuple[str, ...], Total] = {}
        self.all = Total()
        self.uncovered: dict[tuple[str, str], int] = {}  # (apiVersion, kind) -> objects
        self.failed: list[Entry] = []
        self.unreadable: list[Entry] = []
        self.objects = 0

    def add(self, entry: Entry) -> None:
        """Take one entry: a counted one into its group and into ``all``, an uncovered one counted by
        (apiVersion, kind), a failed or unreadable one kept. Every entry but an unreadable one counts
        in ``objects``."""
        if entry.outcome == "unreadable":
            self.unreadable.append(entry)
            return
        self.objects += 1
        if entry.outcome == "counted":
            key = tuple(entry.value(k) for k in self.group_by)
            self.groups.setdefault(key, Total()).add(entry)
            self.all.add(entry)
        elif entry.outcome == "uncovered":
            kind = (entry.api_version, entry.kind)
            self.uncovered[kind] = self.uncovered.get(kind, 0) + 1
        else:
            self.failed.append(entry)

    @property
    def uncovered_count(self) -> int:
        """How many objects no definition covers."""
        return sum(self.uncovered.values())

    def sorted_groups(self) -> list[tuple[tuple[str, ...], Total]]:
        """The groups as (key values in ``group_by`` order, total) pairs, sorted by the key values."""
        return sorted(self.groups.items())


class FleetSummary:
    """The whole a summary reporter walks: ``entries()`` as they are evaluated (each also added to
    the totals and handed to every observer, e.g. a comparison), then ``totals``."""

    def __init__(
        self,
        entries: Iterable[Entry],
        group_by: Sequence[str] = DEFAULT_GROUP_BY,
        pods_given: bool = False,
        observers: Sequence[Any] = (),
    ) -> None:
        """``entries`` as ``summarise`` yields them (read once, by ``entries()``); ``group_by``: the
        keys of the totals; ``pods_given``: whether pods were read (``--pods``, so ready counts mean
        something); ``observers``: objects whose ``add(entry)`` sees every entry."""
        self._entries = entries
        self.totals = Totals(group_by)
        self.pods_given = pods_given
        self.observers = list(observers)

    def entries(self) -> Iterator[Entry]:
        """Each entry as it comes, once added to ``totals`` and handed to the observers (the entries
        can be walked once)."""
        for entry in self._entries:
            self.totals.add(entry)
            for observer in self.observers:
                observer.add(entry)
            yield entry
