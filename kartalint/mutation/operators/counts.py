"""Counts: the replica paths of ``scaleDefinition`` (what kli shows and KAI's gang minimum reads)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from kartalint import karta
from kartalint.jqlang.paths import path_facts
from kartalint.load.crds import CrdVersion, lookup
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


def zero_means_unset(subject: Subject) -> Iterator[Mutant]:
    """Read 0 or a negative count as unset: a replica path ``E`` -> ``(E) | if . != null and . <= 0
    then null else . end``, where the CRD documents 0 (or a negative count) of a field it reads as
    "not set" (``maxReplicas: 0``, ``replicas: -1`` for an autoscaled workload), or defaults a
    minimum or maximum to 0 (needs the project's ``crds:``).

    Killed by a fixture from an object whose count is 0 (or negative) and whose ``expect`` pins the
    value (``new fixture`` pins ``min`` and ``max``): it says which reading the definition means."""
    if subject.crd is None:
        return
    for jq_field, tree in jq_trees(subject, SCALE):
        text = jq_field.expression
        if not any(_documents_unset(subject.crd, read.path, jq_field.kind) for read in path_facts(tree).reads):
            continue
        new = f"({text}) | if . != null and . <= 0 then null else . end"
        probes = settings(tree, 0, len(text), 0)  # the field at 0, whether the fixtures' objects have it or not
        yield jq_mutant(subject, "zero-means-unset", "counts", jq_field, JqEdit(0, len(text), new, text, new, probes))


_UNSET = re.compile(
    r"(\b0\b|\bzero\b|-1\b|\bnegative\b)[^.;]{0,60}\b(unset|not set|unlimited|no limit|no maximum|no minimum|"
    r"disabled?|ignored|infinite|autoscal\w*)|\b(unset|unlimited|no limit|disabled?)\b[^.;]{0,40}(\b0\b|\bzero\b|-1\b)",
    re.IGNORECASE,
)
_DEFAULT_ZERO = re.compile(r"\bdefaults?\b[^.;]{0,20}\b(0|zero)\b", re.IGNORECASE)


def _documents_unset(crd: CrdVersion, path: tuple[str, ...], kind: str) -> bool:
    """Whether the CRD says 0 (or a negative count) at ``path`` means "not set": in its
    description, or a minimum or maximum whose default is 0."""
    found = lookup(crd.schema, path) if crd.schema else None
    schema = found.schema if found is not None and found.found else None
    if not schema or schema.get("type") not in ("integer", "number", None):
        return False
    description = str(schema.get("description") or "")
    if _UNSET.search(description):
        return True
    bound = kind in ("minReplicasPath", "maxReplicasPath")
    return bound and (schema.get("default") == 0 or bool(_DEFAULT_ZERO.search(description)))


OPERATORS = (
    Operator("scale-arithmetic", "counts", scale_arithmetic),
    Operator("swap-replicas-min", "counts", swap_replicas_min),
    Operator("drop-factor", "counts", drop_factor),
    Operator("zero-means-unset", "counts", zero_means_unset),
)
