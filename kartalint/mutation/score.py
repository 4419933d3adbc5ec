"""The results of mutation testing: per mutant, per definition (the score, per field), per run.

Outcomes: ``killed`` (a case fails or errors on the mutant), ``survived`` (no case notices it,
though an object tells it apart), ``equivalent`` (nothing tells it apart, or listed as such),
``invalid`` (upstream refuses it or jq cannot compile it), ``untested`` (it changes only what is
evaluated on pods and no case gives pods). The score counts killed and survived only:
killed / (killed + survived).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

from kartalint.load.definitions import DefinitionFile
from kartalint.mutation.mutant import Mutant

SCHEMA_VERSION = 1
MutantOutcome = Literal["killed", "survived", "equivalent", "invalid", "untested"]
OUTCOMES: tuple[MutantOutcome, ...] = ("killed", "survived", "equivalent", "invalid", "untested")


@dataclass
class MutantResult:
    """What became of one mutant: its outcome, where it is, what told it apart or what it changed, the fixture that
    would kill it, and the case that did."""

    mutant: Mutant
    outcome: MutantOutcome
    location: tuple[int, int, int, int] = (1, 1, 0, 0)  # line, column, end line, end column
    detail: str = ""  # killed: the first difference; survived: what changed where; else why
    hint: str = ""  # survived: the fixture that would kill it
    killed_by: str | None = None  # the id of the first case that failed

    @property
    def area(self) -> str:
        """The component and field for per-field scores (``replicatedjob.scaleDefinition.replicasPath``)."""
        field_name = self.mutant.field.split("[")[0]
        return f"{self.mutant.component}.{field_name}" if self.mutant.component is not None else field_name

    def message(self, cases: int, kinds: set[str]) -> str:
        """A survivor in words: the change, and how many cases missed it."""
        what = "fixture(s)" if kinds == {"fixture"} else "case(s)"
        return f"`{self.mutant.before}` -> `{self.mutant.after}` was not noticed by any of {cases} {what}"

    def to_dict(self) -> dict[str, Any]:
        """The result as the JSON report writes it."""
        line, column, end_line, end_column = self.location
        return {
            "id": self.mutant.id,
            "operator": self.mutant.operator,
            "family": self.mutant.family,
            "component": self.mutant.component,
            "field": self.mutant.field,
            "line": line,
            "column": column,
            "endLine": end_line,
            "endColumn": end_column,
            "before": self.mutant.before,
            "after": self.mutant.after,
            "outcome": self.outcome,
            "killedBy": self.killed_by,
            "detail": self.detail,
            "hint": self.hint or None,
        }


def _score(counts: Counter) -> float | None:
    judged = counts["killed"] + counts["survived"]
    return counts["killed"] / judged if judged else None


@dataclass
class DefinitionMutation:
    """The mutants of one definition: the cases run on them, their results, how many were generated, and why none
    ran."""

    definition: DefinitionFile
    cases: int = 0
    kinds: set[str] = field(default_factory=set)
    results: list[MutantResult] = field(default_factory=list)
    generated: int = 0  # mutants before --mutants-limit
    note: str = ""  # why no mutant was run
    stale: list[str] = field(default_factory=list)  # listed equivalents that match no surviving mutant

    @property
    def counts(self) -> Counter:
        """How many mutants ended with each outcome."""
        return Counter(r.outcome for r in self.results)

    @property
    def score(self) -> float | None:
        """The share of mutants killed of those judged (killed or survived), or None when none was."""
        return _score(self.counts)

    @property
    def survivors(self) -> list[MutantResult]:
        """The mutants that no case told apart."""
        return [r for r in self.results if r.outcome == "survived"]

    def areas(self) -> dict[str, Counter]:
        """The outcomes of the mutants by area of the definition."""
        out: dict[str, Counter] = {}
        for result in self.results:
            out.setdefault(result.area, Counter())[result.outcome] += 1
        return out

    def to_dict(self, min_score: float | None = None) -> dict[str, Any]:
        """The definition's mutants as the JSON report writes them (``min_score``: whether its score is below it)."""
        counts = self.counts
        return {
            "definition": self.definition.name,
            "file": self.definition.path,
            "cases": self.cases,
            "note": self.note or None,
            "generated": self.generated,
            "mutants": len(self.results),
            **{outcome: counts[outcome] for outcome in OUTCOMES},
            "score": _rounded(self.score),
            "belowMinimum": min_score is not None and self.score is not None and self.score < min_score,
            "fields": [
                {
                    "field": area,
                    "mutants": sum(c.values()),
                    **{outcome: c[outcome] for outcome in OUTCOMES},
                    "score": _rounded(_score(c)),
                }
                for area, c in self.areas().items()
            ],
            "results": [r.to_dict() for r in self.results],
            "staleEquivalents": list(self.stale),
        }


def _rounded(score: float | None) -> float | None:
    return None if score is None else round(score, 4)


@dataclass
class MutationRun:
    """A ``--mutants`` run: each definition's mutants, the minimum score and the time it took."""

    definitions: list[DefinitionMutation] = field(default_factory=list)
    min_score: float | None = None
    seconds: float = 0.0

    @property
    def counts(self) -> Counter:
        """How many mutants of every definition ended with each outcome."""
        total: Counter = Counter()
        for item in self.definitions:
            total.update(item.counts)
        return total

    @property
    def score(self) -> float | None:
        """The share of mutants killed over every definition, or None."""
        return _score(self.counts)

    @property
    def below_minimum(self) -> list[DefinitionMutation]:
        """The definitions whose score is below the minimum."""
        if self.min_score is None:
            return []
        return [d for d in self.definitions if d.score is not None and d.score < self.min_score]

    @property
    def ok(self) -> bool:
        """Whether every definition reached the minimum score."""
        return not self.below_minimum

    def to_dict(self) -> dict[str, Any]:
        """The run as the JSON report writes it (``schemaVersion``)."""
        counts = self.counts
        return {
            "schemaVersion": SCHEMA_VERSION,
            "minScore": self.min_score,
            "summary": {
                "definitions": len(self.definitions),
                "mutants": sum(counts.values()),
                **{outcome: counts[outcome] for outcome in OUTCOMES},
                "score": _rounded(self.score),
                "belowMinimum": len(self.below_minimum),
                "seconds": round(self.seconds, 2),
            },
            "definitions": [d.to_dict(self.min_score) for d in self.definitions],
        }
