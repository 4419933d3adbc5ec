"""Which workload each observed pod belongs to, for drafting from real objects (`new --crd --from`).

A pod belongs to a workload through its ``ownerReferences``: directly, through intermediate objects
that are in the input (a Job, a ReplicaSet, a StatefulSet, up to 6 levels, as ``kli describe``
follows them), or through an owner that is absent but whose name starts with the workload's
(``<workload>-0-prefill-0`` of a RoleInstance the author did not export). A pod with no such owner
belongs to the workload whose name a label of the pod holds. Pods that belong to none are listed,
never guessed; so are pods that two workloads could claim by name or label alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kartalint.load.observed import ObservedInput, ObservedObject

MAX_OWNER_LEVELS = 6


@dataclass
class Ownership:
    """The pods of each workload (by index in ``workloads``), how each was matched, and the pods
    that belong to none (with the reason)."""

    workloads: list[ObservedObject]
    pods: dict[int, list[ObservedObject]] = field(default_factory=dict)
    how: dict[str, str] = field(default_factory=dict)  # pod origin -> "owner", "owner chain", "owner name", "label"
    unmatched: list[tuple[ObservedObject, str]] = field(default_factory=list)

    def pods_of(self, index: int) -> list[ObservedObject]:
        """The pods of the workload at ``index``."""
        return self.pods.get(index, [])

    @property
    def matched(self) -> int:
        """How many pods were matched to a workload."""
        return sum(len(p) for p in self.pods.values())


def match_pods(observed: ObservedInput, workloads: list[ObservedObject]) -> Ownership:
    """The pods of ``observed`` assigned to ``workloads`` (see the module's docstring)."""
    result = Ownership(workloads)
    by_uid = {w.uid: i for i, w in enumerate(workloads) if w.uid}
    by_name: dict[tuple[str | None, str, str], int] = {}
    for i, w in enumerate(workloads):
        by_name.setdefault((w.namespace, w.kind, w.name), i)
    others_uid = {o.uid: o for o in observed.others if o.uid}
    others_name = {(o.namespace, o.kind, o.name): o for o in observed.others}
    for pod in observed.pods:
        found, how = _through_owners(pod, by_uid, by_name, others_uid, others_name, workloads)
        if found is None:
            owners_said = how
            found, how = _by_label(pod, workloads)
            if found is None and owners_said != "no owner reference":
                how = f"{owners_said}; {how}"
        if isinstance(found, int):
            result.pods.setdefault(found, []).append(pod)
            result.how[pod.origin] = how
        else:
            result.unmatched.append((pod, how))
    return result


def _same_namespace(pod: ObservedObject, workload: ObservedObject) -> bool:
    return pod.namespace is None or workload.namespace is None or pod.namespace == workload.namespace


def _through_owners(
    pod: ObservedObject,
    by_uid: dict[str, int],
    by_name: dict[tuple[str | None, str, str], int],
    others_uid: dict[str, ObservedObject],
    others_name: dict[tuple[str | None, str, str], ObservedObject],
    workloads: list[ObservedObject],
) -> tuple[int | None, str]:
    """(the workload, how) found by following owner references, or (None, why not)."""
    frontier = [pod]
    absent: list[str] = []
    for level in range(MAX_OWNER_LEVELS):
        following = []
        for item in frontier:
            for owner in item.owners:
                uid, kind, name = owner.get("uid"), owner.get("kind"), owner.get("name")
                if isinstance(uid, str) and uid in by_uid and _same_namespace(pod, workloads[by_uid[uid]]):
                    return by_uid[uid], "owner" if level == 0 else "owner chain"
                key = (pod.namespace, kind, name)
                if not (isinstance(uid, str) and uid) and key in by_name:
                    return by_name[key], "owner" if level == 0 else "owner chain"
                if isinstance(uid, str) and uid in others_uid:
                    following.append(others_uid[uid])
                elif key in others_name:
                    following.append(others_name[key])
                elif isinstance(name, str) and name:
                    absent.append(name)
        if not following:
            break
        frontier = following
    if not absent:
        return None, "no owner reference"
    claims = {
        i
        for name in absent
        for i, w in enumerate(workloads)
        if w.name and _same_namespace(pod, w) and (name == w.name or name.startswith(w.name + "-"))
    }
    if not claims:
        return None, f"its owner {absent[0]} is not in the input and its name starts with no workload's"
    longest = max(len(workloads[i].name) for i in claims)
    best = [i for i in claims if len(workloads[i].name) == longest]
    if len(best) > 1:
        return None, f"its owner {absent[0]} could be of {', '.join(workloads[i].key for i in best)}"
    return best[0], "owner name"


def _by_label(pod: ObservedObject, workloads: list[ObservedObject]) -> tuple[int | None, str]:
    """(the workload whose name a label of the pod holds, "label"), or (None, why not)."""
    values = set(pod.labels.values())
    claims = [i for i, w in enumerate(workloads) if w.name and w.name in values and _same_namespace(pod, w)]
    if len(claims) == 1:
        return claims[0], "label"
    if claims:
        return None, f"labels name several workloads ({', '.join(workloads[i].key for i in claims)})"
    return None, "no label names a workload"
