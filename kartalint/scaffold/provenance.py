"""Where each observed pod comes from in its workload object, for drafting from real objects
(`new --crd --from`): the place its containers (names, images, resources, commands) were copied
from, wherever it is: a PodTemplateSpec, a PodSpec, a single container-shaped field, inside an
embedded object or under a free-form or schema-less field. The roles of a draft are the distinct
places, with list indices generalised (``spec.roles[2].template`` is ``spec.roles[].template``:
one instance per entry).

Places are compared with a pod by container (a name +2, an image +4, the same repository +2, the
same requests +1, the same command +1). Two places a pod matches equally (PyTorchJob's Master and
Worker run the same container) are told apart by the pod's labels and name: a key of the place's
path or the name of a list entry on it that a label holds (``replica-type: master``,
``role-name: prefill``). A pod no place explains is listed, never assigned.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from kartalint.load.observed import ObservedObject

MAX_DEPTH = 40
SKIPPED_TOP = ("apiVersion", "kind", "metadata", "status")


@dataclass(frozen=True)
class Place:
    """A place in one object that holds a pod's containers: its concrete path (keys and list
    indices), its shape (``template``, ``podspec`` or ``container``) and its containers."""

    path: tuple[str | int, ...]
    shape: str
    containers: tuple[dict[str, Any], ...]

    @property
    def role_path(self) -> tuple[str, ...]:
        """The path with every list index as ``[]`` (the role's path)."""
        return tuple("[]" if isinstance(p, int) else p for p in self.path)

    @property
    def entry(self) -> int | None:
        """The index in the first list on the path (the instance), None outside a list."""
        return next((p for p in self.path if isinstance(p, int)), None)


def _containers(spec: Any) -> tuple[dict[str, Any], ...] | None:
    if not isinstance(spec, dict):
        return None
    containers = spec.get("containers")
    if isinstance(containers, list) and containers and all(isinstance(c, dict) for c in containers):
        init = spec.get("initContainers")
        extra = tuple(c for c in init if isinstance(c, dict)) if isinstance(init, list) else ()
        return tuple(containers) + extra
    return None


def places_of(obj: dict[str, Any]) -> list[Place]:
    """Every place of ``obj`` (outside ``metadata`` and ``status``) that holds containers."""
    found: list[Place] = []
    stack: list[tuple[Any, tuple[str | int, ...]]] = [
        (value, (key,)) for key, value in reversed(list(obj.items())) if key not in SKIPPED_TOP and isinstance(key, str)
    ]
    while stack:
        node, path = stack.pop()
        if len(path) > MAX_DEPTH:
            continue
        if isinstance(node, dict):
            template = _containers(node.get("spec"))
            if template is not None:
                found.append(Place(path, "template", template))
                continue
            spec = _containers(node)
            if spec is not None:
                found.append(Place(path, "podspec", spec))
                continue
            if isinstance(node.get("image"), str) and node["image"]:
                found.append(Place(path, "container", (node,)))
                continue
            stack.extend((v, (*path, k)) for k, v in reversed(list(node.items())) if isinstance(k, str))
        elif isinstance(node, list):
            stack.extend((v, (*path, i)) for i, v in reversed(list(enumerate(node))))
    return found


def _repository(image: Any) -> str:
    return re.split(r"[:@]", image, maxsplit=1)[0] if isinstance(image, str) else ""


def _requests(container: dict[str, Any]) -> Any:
    resources = container.get("resources")
    return resources.get("requests") if isinstance(resources, dict) else None


def container_score(pod_container: dict[str, Any], place_container: dict[str, Any]) -> int:
    """How much ``pod_container`` looks like it came from ``place_container``: the same image counts most, then the
    same repository or name, then its requests, command and args; 0 when neither name nor image agree."""
    score = 0
    name = pod_container.get("name")
    if isinstance(name, str) and name and name == place_container.get("name"):
        score += 2
    image = pod_container.get("image")
    if isinstance(image, str) and image and image == place_container.get("image"):
        score += 4
    elif _repository(image) and _repository(image) == _repository(place_container.get("image")):
        score += 2
    if not score:
        return 0
    requests = _requests(place_container)
    if requests and requests == _requests(pod_container):
        score += 1
    for key in ("command", "args"):
        if place_container.get(key) and place_container.get(key) == pod_container.get(key):
            score += 1
    return score


def match_score(pod: dict[str, Any], place: Place) -> int:
    """How much of the pod's containers the place explains (0: nothing)."""
    spec = pod.get("spec") if isinstance(pod.get("spec"), dict) else {}
    containers = _containers(spec) or ()
    return sum(max((container_score(c, p) for p in place.containers), default=0) for c in containers)


def _tokens(obj: dict[str, Any], place: Place) -> list[tuple[str, int]]:
    """(word, weight) of the place's path: its keys (1) and the names of its list entries (2)."""
    out: list[tuple[str, int]] = []
    node: Any = obj
    for part in place.path:
        if isinstance(node, dict):
            node = node.get(part)
            if isinstance(part, str) and part not in ("spec", "template"):
                out.append((part.lower(), 1))
        elif isinstance(node, list) and isinstance(part, int) and part < len(node):
            node = node[part]
            names = [v for k, v in node.items() if k.lower().endswith("name")] if isinstance(node, dict) else []
            out.extend((name.lower(), 2) for name in names if isinstance(name, str) and name)  # name, groupName
    return out


def affinity(obj: dict[str, Any], place: Place, pod: ObservedObject) -> int:
    """How strongly the pod's labels and name point at the place (its keys, its entries' names)."""
    values = {v.lower() for v in pod.labels.values()}
    pieces = set(pod.name.lower().split("-"))
    words = [w.lower() for v in values for w in re.split(r"[-_./]", v)]
    score = 0
    for token, weight in _tokens(obj, place):
        if token in values:
            score += 2 * weight
        elif token in pieces or token in words:
            score += weight
    return score


@dataclass
class Provenance:
    """For each matched pod of one workload: its place; and the pods no place explains."""

    places: dict[str, Place] = field(default_factory=dict)  # pod origin -> place
    unexplained: list[ObservedObject] = field(default_factory=list)
    ambiguous: list[tuple[ObservedObject, list[Place]]] = field(default_factory=list)


def provenance(obj: dict[str, Any], pods: list[ObservedObject], candidates: list[Place] | None = None) -> Provenance:
    """The place of each pod of ``obj`` (see the module's docstring)."""
    result = Provenance()
    candidates = places_of(obj) if candidates is None else candidates
    for pod in pods:
        scored = [(match_score(pod.data, place), place) for place in candidates]
        top = max((s for s, _ in scored), default=0)
        if top == 0:
            result.unexplained.append(pod)
            continue
        best = [place for s, place in scored if s == top]
        if len(best) > 1:
            ranked = sorted(((affinity(obj, place, pod), place) for place in best), key=lambda item: -item[0])
            best = [place for a, place in ranked if a == ranked[0][0]]
            if len({p.role_path for p in best}) > 1 or len({p.entry for p in best}) > 1:
                result.ambiguous.append((pod, best))
                continue
        result.places[pod.origin] = best[0]
    return result
