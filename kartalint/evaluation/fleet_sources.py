"""Where a fleet summary's objects come from (``describe --summary``), and which definition each
one gets.

``FileSource``: the objects of files (``-``: stdin, read as it comes) and the pods of ``--pods``.
``ClusterSource``: every kind the definitions cover, listed by the user's kubectl
(``load.kubectl``), with the pods of the scope and their owners; an object whose controller chain
leads to a covered kind is counted under that owner. ``chooser``: the definition of an object,
searched in the indexes in order, and every (group, kind) they cover.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from kartalint.errors import ConfigError
from kartalint.evaluation.owners import PodIndex, left_out_notes
from kartalint.karta import as_dict
from kartalint.load.definitions import object_gvk
from kartalint.load.kubectl import pods_and_owners, workloads
from kartalint.load.objects import LoadedObject, LoadProblem, stream_objects

if TYPE_CHECKING:
    from kartalint.evaluation.fleet import Choose, Owned
    from kartalint.load.definitions import DefinitionFile, DefinitionIndex
    from kartalint.load.kubectl import Cluster, ClusterProblem

Covered = dict[tuple[str, str], list[str]]  # (group, kind) -> the versions the definitions cover


class FileSource:
    """The objects of the files given (``-``: stdin, read as it comes) and the pods of ``--pods``."""

    def __init__(self, paths: Sequence[str], pods: str | None, limit: int) -> None:
        """``paths``: the object files; ``pods``: the pods file (None: no pods); ``limit``: the
        largest file read (the configuration's ``max-file-size``). ``ConfigError`` for a pods file
        that cannot be read."""
        self.paths = list(paths)
        self.limit = limit
        self.pods: PodIndex | None = PodIndex(self._pods(pods)) if pods else None
        self.owned: Owned | None = None
        self.failed = 0  # places kubectl could not read (none here)
        self.again: list[str] = []  # objects met again in the same state: counted once
        self.twice: list[str] = []  # objects met again at another resourceVersion: counted twice
        self.files_again: list[str] = []  # files given twice: read once

    def _pods(self, path: str) -> list[dict[str, object]]:
        """The pods (and their owners) of a pods file of any size; a problem is a usage error."""
        found, problems = [], []
        for item in stream_objects(path, self.limit):
            if isinstance(item, LoadedObject):
                found.append(item.data)
            else:
                problems.append(item.message)
        if problems:
            raise ConfigError(
                "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
            )
        return found

    def items(self) -> Iterator[LoadedObject | LoadProblem]:
        """Every object of every file, one at a time. A file given twice is read once; an object met
        again in the same state (its uid and resourceVersion seen before, or its uid without a
        resourceVersion both times: dumps that overlap) is counted once; the same uid at another resourceVersion (dumps of two moments) is counted,
        and said (``again``)."""
        files: set[str] = set()
        seen: dict[str, tuple[object, int | None, str]] = {}  # uid -> (resourceVersion, content, where first met)
        for path in self.paths:
            real = os.path.realpath(path) if path != "-" else path
            if real in files:
                self.files_again.append(f"{path} is given twice: read once")
                continue
            files.add(real)
            for item in stream_objects(path, self.limit):
                if isinstance(item, LoadedObject) and not self._counted_once(item, seen):
                    continue
                yield item

    def _counted_once(self, item: LoadedObject, seen: dict[str, tuple[object, int | None, str]]) -> bool:
        """False for an object met before in the same state: a uid seen with the same
        resourceVersion, or, without one both times (objects trimmed of it), with the same content.
        An object of a uid seen in another state (another resourceVersion, one where the other has
        none, or other content and no resourceVersion) is counted, and said."""
        meta = as_dict(as_dict(item.data).get("metadata"))
        uid, version = meta.get("uid"), meta.get("resourceVersion")
        if not (isinstance(uid, str) and uid):
            return True
        content = _content(item.data) if version is None else None  # (the state of an object without one)
        if uid not in seen:
            seen[uid] = (version, content, item.origin)
            return True
        first_version, first_content, first = seen[uid]
        if first_version == version and first_content == content:
            self.again.append(f"{item.origin}: the object of {first} again (uid {uid}): counted once")
            return False
        if first_version == version:  # neither has a resourceVersion
            where = "in another state, neither with a resourceVersion to tell them apart"
        else:
            where = f"at another resourceVersion ({_said(version)}, there {_said(first_version)})"
        self.twice.append(
            f"{item.origin}: the object of {first} (uid {uid}) {where}: counted twice (dumps of two moments?)"
        )
        return True

    def what(self) -> str:
        """What was read, for a message."""
        return ", ".join(self.paths)

    def refusals(self) -> tuple[list[str], list[str]]:
        """(notes, errors) after the run: what was met again and read once, and what was counted
        twice (the first three of each, and how many more); nothing files refuse."""
        notes = []
        for said, more in (
            (self.files_again, "file(s) given twice: read once"),
            (self.again, "object(s) met again in the same state: counted once"),
            (self.twice, "object(s) met again at another resourceVersion: counted twice"),
        ):
            notes += said[:3] + ([f"and {len(said) - 3} more {more}"] if len(said) > 3 else [])
        if self.pods is not None:
            notes += pods_not_placed(self.pods)
        return notes, []


def _content(data: object) -> int:
    """What an object holds, as a number equal for equal objects (the state of an object without a
    resourceVersion)."""
    return hash(json.dumps(data, sort_keys=True, default=str))


def _said(version: object) -> str:
    """A resourceVersion as a note says it (``none`` when the object has none)."""
    return "none" if version is None else str(version)


def pods_not_placed(pods: PodIndex) -> list[str]:
    """What to say of the pods given (``--pods``) that no workload of the summary got, by why: in
    a namespace without a workload, belonging to something not summarised, or owned by owners not
    in the file (then the owners in between should be given)."""
    return left_out_notes(pods.not_placed(), pods.owners, _NOT_PLACED)


_NOT_PLACED = {  # after "N pod(s) given" (owners.why_left_out; every pod's namespace is taken as covered)
    "elsewhere": "are in {}: counted under no workload",
    "unowned": "have no owner reference: counted under no workload (a pod counts when its owners lead to it)",
    "other": "belong to {}, which is not a workload of this summary: counted under none",
    "absent": "are owned by {}, not in the pods file: counted under no workload; give the owners in between "
    "with the pods (kubectl get pods,{kinds} -A -o yaml)",
}


class ClusterSource(FileSource):
    """Every kind the definitions cover, listed by the user's kubectl (``load.kubectl``), the pods of
    the scope and their owners; an object whose controller chain leads to a covered kind is counted
    under that owner."""

    def __init__(self, cluster: Cluster, covered: Covered, limit: int) -> None:
        """The pods of ``cluster``'s scope and their owners, listed now; ``covered``: the kinds to
        list (``chooser``); ``limit``: the largest output read."""
        self.cluster = cluster
        self.limit = limit
        self.covered = covered
        self.problems: list[ClusterProblem] = []
        pods, owners = pods_and_owners(self.cluster, self.limit, self.problems)
        refused = any(p.command.split()[2:3] == ["pods"] for p in self.problems)
        index = PodIndex(pods + owners)
        self.listed = None if refused else pods
        self.pods = None if refused else index
        self.owned = lambda obj: index.owners.covered_owner(obj, lambda group, kind: (group, kind) in covered)
        self.failed = 0

    def items(self) -> Iterator[LoadedObject | LoadProblem]:
        """The objects of each covered kind, at the most stable version the cluster serves."""
        yield from workloads(self.cluster, self.covered, self.limit, self.problems, self.listed)

    def what(self) -> str:
        """What was read, for a message."""
        return "the cluster (kubectl get)"

    def refusals(self) -> tuple[list[str], list[str]]:
        """What kubectl refused: the kinds the cluster does not serve in one note, any other refusal
        one error each (counted in ``failed``: the run exits 1)."""
        unknown = [p for p in self.problems if p.kind == "unknown"]
        notes = []
        if unknown:
            kinds = ", ".join(p.command.split()[2] for p in unknown)
            notes.append(f"not served by the cluster (no such resource): {len(unknown)} kind(s): {kinds}")
        errors = [problem.line for problem in self.problems if problem.kind != "unknown"]
        self.failed += len(errors)
        return notes, errors


def chooser(indexes: Sequence[DefinitionIndex]) -> tuple[Choose, Covered]:
    """The definition of an object: the first of ``indexes`` that has one for its
    group/version/kind; and every (group, kind) they cover, with its versions."""
    covered: Covered = {}
    for index in indexes:
        for group, version, kind in index.by_gvk:
            covered.setdefault((group, kind), []).append(version)

    def choose(obj: dict[str, object]) -> DefinitionFile | None:
        gvk = object_gvk(obj)
        return next((found for index in indexes if (found := index.find(gvk)) is not None), None)

    return choose, covered
