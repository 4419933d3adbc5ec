"""What an author already has of a workload type, for drafting from it (`new --crd CRD --from PATH`):
the workload objects of a kind and the pods, read from files and folders of YAML or JSON in any mix
(multi-document streams, ``List`` kinds, ``kubectl get ... -o yaml|json`` output), and the other
objects among them (Jobs, ReplicaSets, StatefulSets: the intermediate owners of the pods).

Every object is kept once (the same ``uid``, or the same kind, namespace and name, read twice is
one object); a file that cannot be read is a problem naming it, never a traceback.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from kartalint.load.discovery import is_regular_file, missing_reason
from kartalint.load.objects import load_objects

OBSERVED_SUFFIXES = (".yaml", ".yml", ".json")
MAX_OBSERVED_FILES = 10_000


@dataclass
class ObservedObject:
    """One object read: where it came from (``file.yaml#2.items[3]``) and its data."""

    origin: str
    data: dict[str, Any]

    @property
    def kind(self) -> str:
        """The object's ``kind`` ("" when not text)."""
        kind = self.data.get("kind")
        return kind if isinstance(kind, str) else ""

    @property
    def group(self) -> str:
        """The group of the object's ``apiVersion`` ("" for the core group or when not text)."""
        api = self.data.get("apiVersion")
        return api.rpartition("/")[0] if isinstance(api, str) else ""

    @property
    def metadata(self) -> dict[str, Any]:
        """The object's ``metadata`` ({} when not a mapping)."""
        meta = self.data.get("metadata")
        return meta if isinstance(meta, dict) else {}

    @property
    def name(self) -> str:
        """The object's name ("" when not text)."""
        name = self.metadata.get("name")
        return name if isinstance(name, str) else ""

    @property
    def namespace(self) -> str | None:
        """The object's namespace, or None."""
        namespace = self.metadata.get("namespace")
        return namespace if isinstance(namespace, str) else None

    @property
    def uid(self) -> str | None:
        """The object's uid, or None when it has none."""
        uid = self.metadata.get("uid")
        return uid if isinstance(uid, str) and uid else None

    @property
    def labels(self) -> dict[str, str]:
        """The object's labels whose keys and values are text."""
        labels = self.metadata.get("labels")
        return (
            {k: v for k, v in labels.items() if isinstance(k, str) and isinstance(v, str)}
            if isinstance(labels, dict)
            else {}
        )

    @property
    def owners(self) -> list[dict[str, Any]]:
        """The object's owner references that are mappings."""
        owners = self.metadata.get("ownerReferences")
        return [o for o in owners if isinstance(o, dict)] if isinstance(owners, list) else []

    @property
    def key(self) -> str:
        """``namespace/name``: the object's key among those read."""
        return f"{self.namespace or ''}/{self.name}"


@dataclass
class ObservedInput:
    """The objects read from the ``--from`` paths: pods, and everything else by kind."""

    files: list[str] = field(default_factory=list)
    pods: list[ObservedObject] = field(default_factory=list)
    others: list[ObservedObject] = field(default_factory=list)  # workloads of every kind, intermediate owners
    problems: list[str] = field(default_factory=list)

    def workloads(self, group: str, kind: str) -> list[ObservedObject]:
        """The objects of ``group``/``kind`` (any version of it), in the order read."""
        return [o for o in self.others if o.kind == kind and o.group == group]


def observed_files(paths: Iterable[str], problems: list[str]) -> list[str]:
    """The files of ``paths``: a file as given, a folder walked for ``*.yaml``, ``*.yml`` and
    ``*.json`` (sorted, hidden folders left out, links out of the folder skipped); a path that
    cannot be read is a problem."""
    files: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            top = os.path.realpath(path)
            for root, dirs, names in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(names):
                    full = os.path.join(root, name)
                    if not name.endswith(OBSERVED_SUFFIXES):
                        continue
                    real = os.path.realpath(full)
                    if real != top and not real.startswith(top.rstrip(os.sep) + os.sep):
                        problems.append(f"{full}: a symbolic link out of {path}: skipped (name the file to read it)")
                    elif is_regular_file(full):
                        files.append(full)
        elif is_regular_file(path):
            files.append(path)
        else:
            problems.append(f"--from {missing_reason(path)}")
        if len(files) > MAX_OBSERVED_FILES:
            problems.append(f"--from {path}: more than {MAX_OBSERVED_FILES} files: the rest is not read")
            return files[:MAX_OBSERVED_FILES]
    return files


def read_observed(paths: Iterable[str]) -> ObservedInput:
    """Every object of every file of ``paths`` (see ``observed_files``), each kept once."""
    observed = ObservedInput()
    observed.files = observed_files(paths, observed.problems)
    seen: set[str] = set()
    for path in observed.files:
        objects, errors = load_objects(path)
        observed.problems.extend(errors)
        for loaded in objects:
            item = ObservedObject(loaded.origin, loaded.data)
            # one object read twice is kept once; two states of one object (another resourceVersion
            # or status) are two observations
            identity = "|".join(
                (
                    item.uid or f"{item.group}/{item.kind}/{item.key}",
                    str(item.metadata.get("resourceVersion", "")),
                    json.dumps(item.data.get("status"), sort_keys=True, default=str),
                )
            )
            if not item.kind or (item.name and identity in seen):
                continue
            seen.add(identity)
            (observed.pods if item.kind == "Pod" and item.group == "" else observed.others).append(item)
    return observed


def value_at(node: Any, path: tuple[str | int, ...]) -> Any:
    """The value at ``path`` (keys and list indexes) inside an object, None where a step is missing."""
    for part in path:
        if isinstance(part, int):
            node = node[part] if isinstance(node, list) and part < len(node) else None
        else:
            node = node.get(part) if isinstance(node, dict) else None
    return node
