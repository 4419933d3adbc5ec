"""Resources: where a fragmented pod spec reads containers and resources from."""

from __future__ import annotations

from collections.abc import Iterator

from kartalint import karta
from kartalint.mutation.mutant import JqEdit, Mutant, Subject, jq_mutant, jq_trees, without
from kartalint.mutation.operators.base import Operator

_SWAP = {"requests": "limits", "limits": "requests"}


def requests_limits(subject: Subject) -> Iterator[Mutant]:
    """Read ``limits`` instead of ``requests`` and vice versa: ``.resources.requests`` ->
    ``.resources.limits`` in any path of a component.

    Killed by a fixture whose object requests less than its limits, with the resources pinned."""
    for jq_field, tree in jq_trees(subject):
        text = jq_field.expression
        for node in tree.walk():
            name = node.value if node.kind == "field" else None
            if node.kind == "index" and len(node.children) > 1 and node.children[1] is not None:
                key = node.children[1]
                name = key.value if key.kind == "literal" else None
                if name in _SWAP:
                    new = text[node.start : key.start] + f'"{_SWAP[str(name)]}"' + text[key.end : node.end]
                    edit = JqEdit(node.start, node.end, new, node.source(text), new)
                    yield jq_mutant(subject, "requests-limits", "resources", jq_field, edit)
                continue
            if isinstance(name, str) and name in _SWAP:
                source = node.source(text)
                new = source[: len(source) - len(name)] + _SWAP[name]
                if source.endswith(name):
                    edit = JqEdit(node.start, node.end, new, source, new)
                    yield jq_mutant(subject, "requests-limits", "resources", jq_field, edit)


def drop_container_list(subject: Subject) -> Iterator[Mutant]:
    """Drop a container source of a fragmented pod spec: ``containersPath``, ``containerPath`` or
    ``resourcesPath`` removed.

    Killed by a fixture whose ``expect`` pins the resources (``gpus``, ``cpuMillis``, ``memoryBytes``)
    on an object whose containers request them."""
    for ref in subject.components:
        fragmented = karta.as_dict(karta.as_dict(ref.data.get("specDefinition")).get("fragmentedPodSpecDefinition"))
        for key in ("containersPath", "containerPath", "resourcesPath"):
            value = fragmented.get(key)
            if not isinstance(value, str) or len(fragmented) < 2:
                continue
            where = (*ref.path, "specDefinition", "fragmentedPodSpecDefinition", key)
            yield subject.mutant(
                "drop-container-list",
                "resources",
                where,
                f"{key}: {value}",
                f"{key}: (dropped)",
                without(subject.definition, where),
            )


OPERATORS = (
    Operator("requests-limits", "resources", requests_limits),
    Operator("drop-container-list", "resources", drop_container_list),
)
