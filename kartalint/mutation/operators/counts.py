"""Counts: the replica paths of ``scaleDefinition`` (what kli shows and KAI's gang minimum reads)."""

from __future__ import annotations

from collections.abc import Iterator

from kartalint import karta
from kartalint.mutation.mutant import JqEdit, Mutant, Subject, jq_mutant, jq_trees, settings, with_value
from kartalint.mutation.operators.base import Operator

SCALE = karta.SCALE_PATHS


def scale_arithmetic(subject: Subject) -> Iterator[Mutant]:
    """Off by one or by a factor: a replica path ``E`` -> ``(E) + 1``, ``(E) - 1``, ``(E) * 2``.

    Killed by any fixture whose ``expect`` pins the replicas (or the gang minimum)."""
    for jq_field, _tree in jq_trees(subject, SCALE):
        text = jq_field.expression
        for suffix in (" + 1", " - 1", " * 2"):
            new = f"({text}){suffix}"
            yield jq_mutant(subject, "scale-arithmetic", "counts", jq_field, JqEdit(0, len(text), new, text, new))


def swap_replicas_min(subject: Subject) -> Iterator[Mutant]:
    """Swap ``replicasPath`` and ``minReplicasPath`` of a component that has both.

    Killed by a fixture whose object has different values for the two and whose ``expect`` pins
    ``replicas`` (kli shows replicas) or ``min``."""
    for ref in subject.components:
        scale = karta.as_dict(ref.data.get("scaleDefinition"))
        replicas, minimum = scale.get("replicasPath"), scale.get("minReplicasPath")
        if not isinstance(replicas, str) or not isinstance(minimum, str) or replicas == minimum:
            continue
        path = (*ref.path, "scaleDefinition")
        swapped = dict(scale, replicasPath=minimum, minReplicasPath=replicas)
        yield subject.mutant(
            "swap-replicas-min",
            "counts",
            (*path, "replicasPath"),
            f"replicasPath: {replicas}",
            f"replicasPath: {minimum}",
            with_value(subject.definition, path, swapped),
        )


def drop_factor(subject: Subject) -> Iterator[Mutant]:
    """Drop a factor of a product in a replica path: ``(.replicas // 1) * (.parallelism // 1)`` ->
    ``(.replicas // 1)``, and -> ``(.parallelism // 1)``.

    Killed by a fixture whose object has the dropped factor other than 1."""
    for jq_field, tree in jq_trees(subject, SCALE):
        text = jq_field.expression
        for node in tree.walk():
            if node.kind != "binop" or node.value != "*" or None in node.children[:2]:
                continue
            left, right = node.children[0], node.children[1]
            for kept, dropped in ((left, right), (right, left)):
                assert kept is not None and dropped is not None
                probes = settings(tree, dropped.start, dropped.end, 3)
                edit = JqEdit(node.start, node.end, kept.source(text), node.source(text), kept.source(text), probes)
                yield jq_mutant(subject, "drop-factor", "counts", jq_field, edit)


OPERATORS = (
    Operator("scale-arithmetic", "counts", scale_arithmetic),
    Operator("swap-replicas-min", "counts", swap_replicas_min),
    Operator("drop-factor", "counts", drop_factor),
)
