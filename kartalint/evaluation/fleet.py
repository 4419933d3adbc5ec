"""Fleet accounting (``kartalint describe --summary``): one entry per workload object.

``summarise`` takes objects one at a time (``load.objects.stream_objects``, or ``kubectl get``'s
output), finds each one's definition, evaluates them in one stream through the jq worker
(``evaluation.stream.evaluate_stream``: the objects are read, and the entries of the ones before
made and written, while the worker runs) and yields one ``Entry`` per object, in input order.
Memory is bounded by the objects waiting in the stream (at most ``BATCH``), not by the input. An
entry is

- ``counted``: evaluated without an error; its replicas and resources are describe's TOTAL row,
  its ``roles`` the rows of describe's Resources table, ``active``/``activity`` whether it holds
  its pods now and why (``evaluation.usage``), ``allocated_gpus`` what its pods hold (with pods);
- ``failed``: its definition is refused (invalid, without ``--force``) or the evaluation has
  errors: reported with the error, left out of the totals;
- ``uncovered``: no definition for its group/version/kind (counted by kind);
- ``owned``: part of a workload of another covered kind (a live summary's Jobs of a CronJob, Pods
  of a Deployment): counted by kind, its figures are its owner's;
- ``unreadable``: the input could not be read there (the error says where).

``fleet_totals`` adds the entries up.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from kartalint.evaluation.engine import Evaluator
from kartalint.evaluation.owners import PodIndex
from kartalint.evaluation.resources import Resources
from kartalint.evaluation.stream import Job, evaluate_stream
from kartalint.evaluation.usage import RoleFigures, activity, allocated_gpus, workload_figures
from kartalint.evaluation.view import WorkloadView
from kartalint.karta import as_dict
from kartalint.load.definitions import DefinitionFile
from kartalint.load.objects import LoadedObject, LoadProblem

SCHEMA_VERSION = 2  # of the summary's JSON document (kartalint/schema/data/summary.schema.json)
# objects waiting in the stream at most (the texts in flight are two messages of up to 256, whatever
# their definitions), and entries between two collections of the cyclic garbage collector
BATCH = 1024
FULL_COLLECTION = 64  # batches of entries between two full collections of the cyclic garbage collector
UNDEFINED = "Undefined"  # the status of a workload no status mapping matches (as `kli get`)


Outcome = Literal["counted", "failed", "uncovered", "owned", "filtered", "unreadable"]  # what became of one object


@dataclass(slots=True)
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
    ready: int | None = None  # ready pods, with pods given; None otherwise
    resources: Resources | None = None  # None unless counted
    errors: list[str] = field(default_factory=list)
    active: bool | None = None  # holds its pods now (evaluation.usage); None unless counted
    activity: str = ""  # why it is active or not ("status Completed", ...); or the owner of an owned one
    allocated_gpus: int | None = None  # GPUs its pods hold, with pods given; None otherwise
    roles: list[RoleFigures] = field(default_factory=list)

    @property
    def status(self) -> str:
        """The matched statuses joined by commas (``Undefined`` when none matched); empty unless the
        entry was evaluated without error."""
        if self.outcome not in ("counted", "filtered"):
            return ""
        return ",".join(self.statuses) or UNDEFINED

    @property
    def group(self) -> str:
        """The API group of the object's apiVersion (``""`` for the core group)."""
        return self.api_version.rpartition("/")[0]

    @property
    def gpus(self) -> int:
        """The desired GPUs (0 unless counted)."""
        return self.resources.gpus if self.resources is not None else 0

    @property
    def active_gpus(self) -> int:
        """The desired GPUs of an active workload, 0 for one that holds no pod now."""
        return self.gpus if self.active else 0

    def value(self, key: str) -> str:
        """The entry's value for a group-by or comparison key."""
        return str(getattr(self, "api_version" if key == "apiVersion" else key))


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _entry(outcome: Outcome, origin: str, obj: Any, **more: Any) -> Entry:
    """An entry for ``obj`` with its namespace, kind, name and apiVersion."""
    obj = as_dict(obj)
    meta = as_dict(obj.get("metadata"))
    return Entry(
        outcome,
        origin,
        namespace=_text(meta.get("namespace")),
        kind=_text(obj.get("kind")),
        name=_text(meta.get("name")),
        api_version=_text(obj.get("apiVersion")),
        **more,
    )


def entry_of(
    origin: str, obj: Any, definition: DefinitionFile, view: WorkloadView, pods: list[Any] | None = None
) -> Entry:
    """The entry of an evaluated object (``pods``: the pods given for it, None without pods):
    counted, or failed when the view has errors."""
    errors = (
        [
            f"{component + ': ' if component else ''}{error.field}: {error.message}"
            for component, error in view.all_errors
        ]
        if view.errors or any(comp.errors for comp in view.components)
        else []
    )
    named = {"definition": definition.name}
    if errors:
        return _entry("failed", origin, obj, errors=errors, **named)
    active, why = activity(obj, view.statuses)
    resources, replicas, roles = workload_figures(view)
    return _entry(
        "counted",
        origin,
        obj,
        statuses=list(view.statuses),
        replicas=replicas,
        ready=view.ready_pods,
        resources=resources,
        active=active,
        activity=why,
        allocated_gpus=None if pods is None else allocated_gpus(pods),
        roles=roles,
        **named,
    )


Choose = Callable[[dict[str, Any]], "DefinitionFile | None"]
Owned = Callable[[dict[str, Any]], "str | None"]  # the covered owner of an object (a live summary)
Evaluated = tuple[LoadedObject, DefinitionFile, "list[Any] | None"]  # an object evaluated, its definition, its pods


def summarise(
    items: Iterable[LoadedObject | LoadProblem],
    choose: Choose,
    evaluator: Evaluator,
    pods: PodIndex | None = None,
    batch: int = BATCH,
    owned: Owned | None = None,
) -> Iterator[Entry]:
    """One entry per item, in order, the objects evaluated in one stream (see the module's docstring);
    ``batch``: the cyclic garbage collector runs after that many entries, and at most that many items
    wait to be yielded; ``owned``: which covered workload an object belongs to (None: a workload of its own)."""
    invalid: dict[int, list[str]] = {}  # id of a definition's data -> why upstream refuses it

    def jobs() -> Iterator[Job[Entry | Evaluated]]:  # read while the jq worker runs the texts before
        for item in items:
            found = _classified(item, choose, evaluator, invalid, owned)
            if isinstance(found, Entry):
                yield None, None, None, None, found
            else:
                loaded, definition = found
                given = pods.of(loaded.data) if pods is not None else None
                yield definition.data, loaded.data, given, loaded.text, (loaded, definition, given)

    with _collected_between_batches() as batch_done:
        # no gang part: an entry reads none of it (its problems are not the workload's errors)
        for count, (tag, view) in enumerate(evaluate_stream(evaluator, jobs(), batch, gang=False), 1):
            if isinstance(tag, Entry):
                yield tag
            elif view is not None:
                item, definition, given = tag
                yield entry_of(item.origin, item.data, definition, view, given)
            if count % batch == 0:
                batch_done()


@contextlib.contextmanager
def _collected_between_batches() -> Iterator[Callable[[], None]]:
    """Python's cyclic garbage collector off while the objects are read, evaluated and written, and
    run (on the young objects; every ``FULL_COLLECTION`` batches on all of them) after every
    ``BATCH`` entries. Left on, its collections are triggered by the allocations of reading each
    object and walk the objects in the stream again and again (a tenth of the summary's time); the entries and views
    hold no cycles, so what a batch leaves is freed as it goes and the collections between batches
    keep memory bounded whatever the input holds. A collector already off stays off."""
    enabled = gc.isenabled()
    done = 0

    def batch_done() -> None:
        nonlocal done
        done += 1
        if enabled:
            gc.collect(2 if done % FULL_COLLECTION == 0 else 0)

    gc.disable()
    try:
        yield batch_done
    finally:
        if enabled:
            gc.enable()


def _classified(
    item: LoadedObject | LoadProblem,
    choose: Choose,
    evaluator: Evaluator,
    invalid: dict[int, list[str]],
    owned: Owned | None,
) -> Entry | tuple[LoadedObject, DefinitionFile]:
    """The entry of an item that is not evaluated (unreadable, owned, uncovered, of an invalid
    definition without ``--force``), else the object and the definition that evaluates it."""
    if isinstance(item, LoadProblem):
        return Entry("unreadable", item.message.split(": ", 1)[0], errors=[item.message])
    owner = owned(item.data) if owned is not None else None
    if owner is not None:
        return _entry("owned", item.origin, item.data, activity=owner)
    definition = choose(item.data)
    if definition is None:
        return _entry("uncovered", item.origin, item.data)
    if id(definition.data) not in invalid:  # prepared once per definition, not per object
        invalid[id(definition.data)] = evaluator.prepare(definition.data).invalid
    problems = invalid[id(definition.data)]
    if problems and not evaluator.force:
        reason = (
            f"the definition {definition.path} is invalid (upstream refuses it): {problems[0]}; "
            "nothing was evaluated (--force evaluates it anyway)"
        )
        return _entry("failed", item.origin, item.data, definition=definition.name, errors=[reason])
    return item, definition
