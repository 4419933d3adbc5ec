"""Who owns what, as kli's live mode follows owner references: the pods of a workload, and whether
an object is a workload of its own or part of another (``describe --summary``, ``--kubectl``).

``PodIndex`` finds the pods of a workload: a pod belongs to a workload in its namespace when an
owner reference of the pod, or of an owner up to ``OWNER_LEVELS`` levels up, names the workload's
uid. Owners in between (the Jobs of a JobSet, the ReplicaSets of a Deployment) are followed when
they are among the objects given (``kubectl get pods,jobs -o yaml``).

``OwnerIndex.covered_owner(obj, covered)`` says which covered kind an object belongs to, if any:
the first owner up its controller chain (``ownerReferences`` with ``controller: true``, up to
``OWNER_LEVELS`` levels, through the owners it knows) whose group and kind ``covered`` accepts. A
live summary counts such an object under that owner, not as a workload of its own (kli's
``--all-types`` keeps only the roots whose controller chain holds no other covered kind).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from kartalint.karta import as_dict, as_list

OWNER_LEVELS = 6  # how far up owner references are followed (as kli's live mode)


def group_of(api_version: Any) -> str:
    """The API group of an ``apiVersion`` (``""`` for the core group ``v1``)."""
    return api_version.rpartition("/")[0] if isinstance(api_version, str) else ""


def _refs(meta: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in as_list(meta.get("ownerReferences")) if isinstance(as_dict(r).get("uid"), str)]


class OwnerIndex:
    """The owner references of the objects given, by uid, and the (group, kind) of each uid (from the
    object, or from a reference to it)."""

    def __init__(self, objects: Iterable[Any] = ()) -> None:
        """Index ``objects`` (pods and the owners fetched with them)."""
        self.refs: dict[str, list[dict[str, Any]]] = {}
        self.kinds: dict[str, tuple[str, str]] = {}
        for obj in objects:
            self.add(obj)

    def add(self, obj: Any) -> None:
        """Index one object: its uid's owner references and kind."""
        obj = as_dict(obj)
        meta = as_dict(obj.get("metadata"))
        refs = _refs(meta)
        if isinstance(meta.get("uid"), str):
            self.refs[meta["uid"]] = refs
            self.kinds[meta["uid"]] = (group_of(obj.get("apiVersion")), str(obj.get("kind") or ""))
        for ref in refs:
            self.kinds.setdefault(ref["uid"], (group_of(ref.get("apiVersion")), str(ref.get("kind") or "")))

    def covered_owner(self, obj: Any, covered: Callable[[str, str], bool]) -> str | None:
        """``Kind (group)`` of the first controller up ``obj``'s chain that ``covered(group, kind)``
        accepts, or None when its chain (as far as it is known) holds none."""
        level = [r for r in _refs(as_dict(as_dict(obj).get("metadata"))) if as_dict(r).get("controller") is True]
        seen: set[str] = set()
        for _ in range(OWNER_LEVELS):
            following = []
            for ref in level:
                uid = ref["uid"]
                if uid in seen:
                    continue
                seen.add(uid)
                group, kind = self.kinds.get(uid, (group_of(ref.get("apiVersion")), str(ref.get("kind") or "")))
                if covered(group, kind):
                    return f"{kind} ({group})" if group else kind
                following += [r for r in self.refs.get(uid, []) if as_dict(r).get("controller") is True]
            level = following
        return None


class PodIndex:
    """Pods by the workload that owns them (see the module's docstring)."""

    def __init__(self, objects: Sequence[Any]) -> None:
        """Index the pods among ``objects`` (kind ``Pod``, or no kind) under every uid their owner
        references reach, following the owners found in ``objects`` up to ``OWNER_LEVELS`` levels."""
        self.owners = OwnerIndex(objects)
        self.by_owner: dict[str, list[dict[str, Any]]] = {}
        self.pods: list[dict[str, Any]] = []  # every pod indexed
        self.placed: set[int] = set()  # the ids of the pods ``of`` gave to a workload
        for obj in objects:
            if as_dict(obj).get("kind") not in ("Pod", None):
                continue
            self.pods.append(obj)
            reached: set[str] = set()
            level = [r["uid"] for r in _refs(as_dict(as_dict(obj).get("metadata")))]
            for _ in range(OWNER_LEVELS):
                level = [uid for uid in level if uid not in reached]
                reached.update(level)
                level = [r["uid"] for uid in level for r in self.owners.refs.get(uid, [])]
            for uid in reached:
                self.by_owner.setdefault(uid, []).append(obj)

    def of(self, workload: Any) -> list[dict[str, Any]]:
        """The pods of ``workload``: those whose owners reach its uid and that share its namespace
        (none without a uid)."""
        meta = as_dict(as_dict(workload).get("metadata"))
        uid, namespace = meta.get("uid"), meta.get("namespace")
        if not isinstance(uid, str):
            return []
        found = [p for p in self.by_owner.get(uid, []) if as_dict(p.get("metadata")).get("namespace") == namespace]
        self.placed.update(id(p) for p in found)
        return found

    def not_placed(self) -> list[dict[str, Any]]:
        """The pods indexed that ``of`` gave to no workload (so far)."""
        return [p for p in self.pods if id(p) not in self.placed]


def pods_of_each(
    objects: Sequence[Any], pods: Sequence[Any], owners: Sequence[Any] = ()
) -> tuple[list[list[dict[str, Any]]], list[dict[str, Any]]]:
    """The pods of each of ``objects`` among ``pods`` given in a file with their ``owners``
    (``describe --pods``: `kubectl get pods,jobs -o yaml`), and the pods left out.

    One object and pods alone (`kubectl get pods -l ... -o yaml`): the pods of its namespace are
    its pods, as given, unless some of them are owned by something named after it (its name, or
    ``NAME-...`` as controllers name what they make): then the pods owned by something else are
    another workload's (`kubectl get pods -o yaml` of a namespace of several). Several objects, or owners given with the pods: a pod is an object's when
    its owner references, followed through the owners given, reach the object's uid (as kli's live
    mode follows them), or when an owner reference names the object by kind and name (an object
    written without a uid); a pod without owner references (written by hand) is the object's when
    it is the only object described in its namespace. The others are left out: they belong to
    something else, or to owners not in the file."""
    if len(objects) == 1 and not owners:
        namespace = as_dict(as_dict(objects[0]).get("metadata")).get("namespace")
        given = [p for p in pods if as_dict(as_dict(p).get("metadata")).get("namespace", namespace) == namespace]
        name = as_dict(as_dict(objects[0]).get("metadata")).get("name")
        named = [p for p in given if _owner_named_after(p, name)]
        if named:  # the others, owned by something else, are another workload's
            given = [p for p in given if not _refs(as_dict(p.get("metadata"))) or any(p is n for n in named)]
        return [given], [p for p in pods if not any(p is g for g in given)]
    index = PodIndex([*pods, *owners])
    traced = [index.of(obj) for obj in objects]
    namespaces = [as_dict(as_dict(obj).get("metadata")).get("namespace") for obj in objects]
    out: list[list[dict[str, Any]]] = []
    for obj, found, namespace in zip(objects, traced, namespaces, strict=True):
        meta = as_dict(as_dict(obj).get("metadata"))
        mine = {id(pod) for pod in found}
        alone = namespaces.count(namespace) == 1
        for pod in pods:
            pod_meta = as_dict(as_dict(pod).get("metadata"))
            if pod_meta.get("namespace", namespace) != namespace:
                continue
            refs = [as_dict(r) for r in as_list(pod_meta.get("ownerReferences"))]
            if (not refs and alone) or _chain_names(refs, as_dict(obj).get("kind"), meta, index.owners):
                mine.add(id(pod))
        out.append([pod for pod in pods if id(pod) in mine])
    placed = {id(pod) for found in out for pod in found}
    return out, [pod for pod in pods if id(pod) not in placed]


def _owner_named_after(pod: dict[str, Any], name: Any) -> bool:
    """Whether an owner reference of ``pod`` names ``name``, or something named ``name-...``."""
    if not isinstance(name, str) or not name:
        return False
    owners = [as_dict(r).get("name") for r in as_list(as_dict(pod.get("metadata")).get("ownerReferences"))]
    return any(isinstance(o, str) and (o == name or o.startswith(name + "-")) for o in owners)


def _chain_names(refs: list[dict[str, Any]], kind: Any, meta: dict[str, Any], owners: OwnerIndex) -> bool:
    """Whether an owner reference of ``refs``, or of an owner given up the chain (``OWNER_LEVELS``
    levels), names the object of ``kind`` and ``meta`` by kind and name."""
    seen: set[str] = set()
    for _ in range(OWNER_LEVELS):
        if any(_names(ref, kind, meta) for ref in refs):
            return True
        uids = [r["uid"] for r in refs if isinstance(r.get("uid"), str) and r["uid"] not in seen]
        seen.update(uids)
        refs = [as_dict(r) for uid in uids for r in owners.refs.get(uid, [])]
        if not refs:
            return False
    return False


def _names(ref: dict[str, Any], kind: Any, meta: dict[str, Any]) -> bool:
    """Whether the owner reference ``ref`` names the object of ``kind`` and ``meta`` by kind and
    name, neither side holding a uid that says otherwise."""
    name, uid = meta.get("name"), meta.get("uid")
    if not isinstance(name, str) or ref.get("kind") != kind or ref.get("name") != name:
        return False
    return not (isinstance(uid, str) and isinstance(ref.get("uid"), str) and ref["uid"] != uid)


def why_left_out(pod: Any, owners: OwnerIndex, namespaces: set[Any]) -> tuple[str, str]:
    """Why ``pod`` went to none of the objects described (``pods_of_each``): ("elsewhere", its
    namespace) when no object is described there, ("unowned", "") without owner references,
    ("other", the owner its chain reaches) when its owners, followed through those given, lead to
    an object not described, else ("absent", its owner, which is not among those given)."""
    meta = as_dict(as_dict(pod).get("metadata"))
    if meta.get("namespace", next(iter(namespaces), None)) not in namespaces:
        return "elsewhere", f"namespace {meta.get('namespace')}"
    refs = [as_dict(r) for r in as_list(meta.get("ownerReferences"))]
    if not refs:
        return "unowned", ""
    up = False
    for _ in range(OWNER_LEVELS):
        ref = refs[0]
        uid = ref.get("uid")
        following = owners.refs.get(uid) if isinstance(uid, str) else None
        if not following:
            return ("other" if up else "absent"), f"{ref.get('kind')} {ref.get('name')}"
        refs, up = [as_dict(r) for r in following], True
    return "other", f"{refs[0].get('kind')} {refs[0].get('name')}"


def left_out_notes(
    pods: Sequence[Any], owners: OwnerIndex, phrases: dict[str, str], namespaces: set[Any] | None = None
) -> list[str]:
    """One note per reason (``why_left_out``) for ``pods`` that went to no object: "N pod(s) given"
    and the reason's phrase of ``phrases``, its ``{}`` the owners or namespaces (the first three).
    ``namespaces``: where objects were described (None: each pod's own, as a summary takes them)."""
    why: dict[str, list[str]] = {}
    for pod in pods:
        here = namespaces if namespaces is not None else {as_dict(as_dict(pod).get("metadata")).get("namespace")}
        reason, label = why_left_out(pod, owners, here)
        why.setdefault(reason, []).append(label)
    notes = []
    for reason, said in why.items():
        labels = sorted(set(said))
        listed = ", ".join(labels[:3]) + (" and more" if len(labels) > 3 else "")
        notes.append(f"{len(said)} pod(s) given " + phrases[reason].format(listed, kinds=_resources(labels)))
    return notes


def _resources(labels: Sequence[str]) -> str:
    """The kubectl resources of the owner kinds in ``labels`` ("ReplicaSet web-5d8f" ->
    ``replicasets``), comma-separated: what to list with the pods (``kubectl get pods,{kinds}``)."""
    kinds = sorted({label.split(" ", 1)[0] for label in labels} - {"", "None"})
    return ",".join(_plural(kind.lower()) for kind in kinds) or "OWNER-KINDS"


def _plural(kind: str) -> str:
    """The resource name of a lower-case kind, pluralised as Kubernetes names resources (``job`` ->
    ``jobs``, ``networkpolicy`` -> ``networkpolicies``, ``ingress`` -> ``ingresses``)."""
    if kind.endswith("y") and kind[-2:-1] not in ("a", "e", "i", "o", "u", ""):
        return kind[:-1] + "ies"
    if kind.endswith(("s", "x", "z", "ch", "sh")):
        return kind + "es"
    return kind + "s"
