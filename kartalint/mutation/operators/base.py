"""What an operator is: a named generator of mutants in a family."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from kartalint.mutation.mutant import Mutant, Subject

FAMILIES = ("defaults", "counts", "status", "structure", "resources", "selectors", "gang")


@dataclass(frozen=True)
class Operator:
    """A mutation operator: its name, its family, and the function that generates its mutants of a subject."""

    name: str
    family: str
    generate: Callable[[Subject], Iterator[Mutant]]

    @property
    def doc(self) -> str:
        """The first paragraph of the operator's docstring, on one line."""
        text = (self.generate.__doc__ or "").strip().split("\n\n")[0]
        return " ".join(text.split())
