"""What ``kartalint describe`` makes of the objects it reads (one file, or one object of the
cluster with its pods): each object with the definition chosen for it, the objects left out (no
definition covers them, or upstream refuses theirs), the views of the others, and the exit code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from kartalint.evaluation.owners import OwnerIndex, PodIndex, left_out_notes, pods_of_each
from kartalint.karta import as_dict
from kartalint.load.definitions import DefinitionFile, DefinitionIndex, object_gvk
from kartalint.load.kubectl import pods_and_owners
from kartalint.load.objects import LoadedObject

if TYPE_CHECKING:
    from kartalint.evaluation.engine import Evaluator
    from kartalint.evaluation.view import WorkloadView
    from kartalint.load.kubectl import Cluster, ClusterProblem


@dataclass
class Subject:
    """What ``describe`` read: where from, the objects, the problems met reading them, and their
    pods (None: none given)."""

    source: str
    objects: list[LoadedObject]
    errors: list[str]
    pods: list[dict[str, object]] | None
    owners: list[dict[str, object]] = field(default_factory=list)  # given with the pods (file mode)


def live_subject(cluster: Cluster, words: Sequence[str], limit: int) -> tuple[Subject, list[ClusterProblem]]:
    """The object ``kubectl get WORDS`` gives and its pods (found as kli's live mode finds them: the
    pods of its namespace whose owners lead to it), and what kubectl refused on the way (a
    warning: the pods may be incomplete)."""
    obj = cluster.get(list(words), limit)
    namespace = as_dict(obj.get("metadata")).get("namespace")
    problems: list[ClusterProblem] = []
    pods, owners = pods_and_owners(cluster, limit, problems, namespace if isinstance(namespace, str) else None)
    source = f"kubectl:{'/'.join(words)}"
    return Subject(source, [LoadedObject(source, obj)], [], PodIndex(pods + owners).of(obj), owners), problems


Outcome = Literal["chosen", "uncovered", "refused"]  # what became of one object

_LEFT_OUT = {  # why pods given went to no object described (owners.why_left_out), said after "N pod(s) given"
    "elsewhere": "are in {}, where no object is described: left out",
    "unowned": "have no owner and several objects are described in their namespace: left out",
    "other": "belong to {} (through the owners given), which is not described: left out",
    "absent": "are owned by {}, not in the file: left out; a pod counts when its owners lead to the object "
    "described: give the owners in between with the pods (kubectl get pods,{kinds} -o yaml)",
}


def pods_of_one(
    obj: dict[str, object], pods: list[dict[str, object]], owners: list[object]
) -> tuple[list[dict[str, object]], list[str]]:
    """The pods of one object among those given (and their owners), as ``describe`` gives it them
    (``pods_of_each``), and what to say of the others (``kartalint new fixture``: a fixture holds
    the pods its object gets, not every pod of the file)."""
    found, left_out = pods_of_each([obj], pods, owners)
    namespace = as_dict(obj.get("metadata")).get("namespace")
    return found[0], left_out_notes(left_out, OwnerIndex([*pods, *owners]), _LEFT_OUT, {namespace})


@dataclass
class Choice:
    """One object and what became of it: ``chosen`` with its definition, ``uncovered`` (no
    definition for its group/version/kind), or ``refused`` (upstream refuses its definition)."""

    item: LoadedObject
    definition: DefinitionFile | None
    outcome: Outcome


@dataclass
class Description:
    """What ``describe`` made of its subject: each object's choice, in order, and the views of the
    chosen ones (each with its definition)."""

    subject: Subject
    choices: list[Choice]
    views: list[tuple[DefinitionFile, WorkloadView]] = field(default_factory=list)
    pods_left_out: list[dict[str, object]] = field(default_factory=list)  # pods given of no object described

    def pods_notes(self) -> list[str]:
        """What to say of the pods given that no object described got, by why (none left out: [])."""
        owners = OwnerIndex([*(self.subject.pods or []), *self.subject.owners])
        namespaces = {as_dict(as_dict(c.item.data).get("metadata")).get("namespace") for c in self.choices}
        return left_out_notes(self.pods_left_out, owners, _LEFT_OUT, namespaces)

    def exit_code(self) -> int:
        """The exit code of ``kartalint describe``: what the last object left out says (2: no
        definition covers it, 1: upstream refuses its definition), else 1 when a place of the input
        could not be read or a view has errors, else 0."""
        code = 1 if self.subject.errors else 0
        for choice in self.choices:
            if choice.outcome != "chosen":
                code = 2 if choice.outcome == "uncovered" else 1
        if code == 0 and any(view.all_errors for _, view in self.views):
            return 1
        return code


def describe(
    subject: Subject, index: DefinitionIndex, fixed: DefinitionFile | None, evaluator: Evaluator
) -> Description:
    """Each object of ``subject`` with its definition (``fixed``, else the one ``index`` finds for
    its group/version/kind; one upstream refuses is left out unless the evaluator is forced), and
    the chosen ones evaluated with the subject's pods."""
    choices = []
    for item in subject.objects:
        entry = fixed or index.find(object_gvk(item.data))
        if entry is None:
            choices.append(Choice(item, None, "uncovered"))
        elif not evaluator.force and evaluator.prepare(entry.data).invalid:
            choices.append(Choice(item, entry, "refused"))
        else:
            choices.append(Choice(item, entry, "chosen"))
    chosen = [(c.item, c.definition) for c in choices if c.definition is not None and c.outcome == "chosen"]
    pods: list[list[dict[str, object]] | None] = [subject.pods] * len(chosen)
    left_out: list[dict[str, object]] = []
    if subject.pods is not None:  # each object its own pods, not every pod given
        found, left_out = pods_of_each([item.data for item, _ in chosen], subject.pods, subject.owners)
        pods = list(found)
    views = evaluator.evaluate_all(
        [(entry.data, item.data, mine) for (item, entry), mine in zip(chosen, pods, strict=True)]
    )
    described = [(entry, view) for (_, entry), view in zip(chosen, views, strict=True)]
    return Description(subject, choices, described, left_out if chosen else [])
