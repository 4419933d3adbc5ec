"""What a check sees of one document: its data and, when it was read from YAML, its positions.

Plain data works too (``Context(None, data, rules)``), so evaluation runs the same checks on a
definition built in Python without going through YAML text."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from kartalint import karta
from kartalint.load.documents import Document
from kartalint.model import Finding, Frozen, Path, Rule, set_field

TYPE_CHECKING = False
if TYPE_CHECKING:  # the CRD loader is imported only when CRDs are configured
    from typing import Any

    from kartalint.load.crds import CrdIndex


class Context:
    """Collects findings for one document; positions are looked up only when reported."""

    def __init__(
        self, document: Document | None, data: Any = None, *, rules: Mapping[str, Rule], crds: CrdIndex | None = None
    ) -> None:
        """A document read from YAML (findings carry its positions), or ``None`` and plain ``data``
        (a definition built in Python: findings have no position). ``rules`` are the rules the
        checks may report (the registry's, or one module's); ``crds`` (a ``CrdIndex``) enables the
        CRD-aware checks."""
        self.rules = rules
        self.document = document
        self.data: Any = document.data if document is not None else data
        self.crds = crds
        self.findings: list[Finding] = []
        self.superseded: set = set()  # (field path, offset): null-safety settled by the CRD
        self._jq_fields: list[karta.JqField] | None = None

    @property
    def jq_fields(self) -> list[karta.JqField]:
        """The definition's jq expressions (``karta.jq_fields``), listed once per document: the jq
        rules and the house rules' expression units read the same list."""
        if self._jq_fields is None:
            self._jq_fields = list(karta.jq_fields(self.data))
        return self._jq_fields

    def report(
        self,
        rule_id: str,
        path: Path,
        message: str,
        *,
        key: bool = False,
        hint: str | None = None,
        scalar_range: tuple | None = None,
    ) -> None:
        """Add a finding of ``rule_id`` at ``path`` (its key with ``key``, characters of a scalar
        with ``scalar_range``); ``hint`` replaces the rule's fix hint."""
        rule = self.rules[rule_id]
        if self.document is None:
            self.findings.append(
                Finding(
                    "<definition>",
                    0,
                    0,
                    0,
                    0,
                    rule_id,
                    rule.severity,
                    message,
                    tuple(path),
                    rule.hint if hint is None else hint,
                )
            )
            return
        if scalar_range is not None:
            span = self.document.scalar_span(path, scalar_range[0], scalar_range[1])
        else:
            span = self.document.span(path, key=key)
        self.findings.append(
            Finding(
                self.document.source.path,
                span.line,
                span.column,
                span.end_line,
                span.end_column,
                rule_id,
                rule.severity,
                message,
                tuple(path),
                rule.hint if hint is None else hint,
            )
        )


class Check(Frozen):
    """One check of a Karta document: ``run(ctx)`` reports the rules ``rules`` (their ids).

    A module declares its checks in ``CHECKS`` next to its ``RULES``; the registry collects them
    and ``check_document`` runs them in the registry's order."""

    __slots__ = ("rules", "run")
    rules: tuple[str, ...]
    run: Callable[[Context], None]

    def __init__(self, rules: tuple[str, ...], run: Callable[[Context], None]) -> None:
        """The check ``run`` reporting ``rules``."""
        set_field(self, "rules", rules)
        set_field(self, "run", run)
