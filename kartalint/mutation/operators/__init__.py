"""Mutation operators: each a small function ``(Subject) -> Iterator[Mutant]`` with a docstring
(docs/fixtures.md lists them from ``OPERATORS``), registered in family order.

Families: ``defaults`` (``//`` defaults, ``?`` on iterations), ``counts`` (replica paths),
``status`` (status mappings), ``structure`` (instances, pod template levels, ownership),
``resources`` (requests and limits, container lists), ``selectors`` (pod labels), ``gang`` (pod
groups). Every operator is deterministic: the same definition and objects give the same mutants
in the same order.
"""

from __future__ import annotations

from kartalint.mutation.mutant import Mutant, Subject
from kartalint.mutation.operators import counts, defaults, gang, resources, selectors, status, structure
from kartalint.mutation.operators.base import FAMILIES, Operator

__all__ = ["FAMILIES", "OPERATORS", "Operator", "generate"]

# every operator, in family order (then the order of its module)
OPERATORS: list[Operator] = [
    op for module in (defaults, counts, status, structure, resources, selectors, gang) for op in module.OPERATORS
]


def generate(subject: Subject, operators: list[Operator] | None = None) -> list[Mutant]:
    """Every mutant of the subject, in operator order then document order, without duplicates
    (two operators that make the same definition give one mutant: the first; a change that makes
    the definition itself gives none). Mutants that read the same (the same change written at two
    places of one field) get ``#2``, ``#3``... in their ids. No mutated definition is built here:
    a mutant builds its own when it is judged (``Mutant.definition``)."""
    seen: set[frozenset] = {frozenset()}  # the original: no leaf changed
    ids: dict[str, int] = {}
    out: list[Mutant] = []
    for op in operators if operators is not None else OPERATORS:
        for mutant in op.generate(subject):
            key = mutant.change.key
            if key in seen:
                continue
            seen.add(key)
            ids[mutant.id] = ids.get(mutant.id, 0) + 1
            if ids[mutant.id] > 1:
                mutant.occurrence = ids[mutant.id]
            out.append(mutant)
    return out
