"""Stage 2: check Karta documents. Each module adds findings for one family of rules.

``check_document`` runs them all on one document and returns its findings; ``Context`` is what a
check module sees: the document, the registry and a ``report`` function that turns a rule id, a
path and a message into a positioned ``Finding``.
"""

from __future__ import annotations

from typing import Any, List, Optional

from .. import rules
from ..load import Document
from ..model import Finding, Path


class Context:
    """Collects findings for one document; positions are looked up only when reported."""

    def __init__(self, document: Document) -> None:
        self.document = document
        self.data: Any = document.data
        self.findings: List[Finding] = []
        self.superseded: set = set()  # (field path, offset): null-safety settled by the CRD

    def report(self, rule_id: str, path: Path, message: str, *, key: bool = False, hint: Optional[str] = None,
               scalar_range: Optional[tuple] = None) -> None:
        rule = rules.get(rule_id)
        if scalar_range is not None:
            span = self.document.scalar_span(path, scalar_range[0], scalar_range[1])
        else:
            span = self.document.span(path, key=key)
        self.findings.append(
            Finding(self.document.source.path, span.line, span.column, span.end_line, span.end_column, rule_id,
                    rule.severity, message, tuple(path), rule.hint if hint is None else hint)
        )


def check_document(document: Document, crds: Optional[Any] = None) -> List[Finding]:
    """All findings of one Karta document; ``crds`` (a ``CrdIndex``) enables the CRD-aware rules."""
    from . import crd, gang, jq, practice, schema, structure

    ctx = Context(document)
    schema.check(ctx)
    structure.check(ctx)
    ctx.superseded = crd.check(ctx, crds)  # before jq: the CRD may settle null-safety questions
    jq.check(ctx)
    practice.check(ctx)
    gang.check(ctx)
    return _dedupe(ctx.findings)


_SCHEMA_RULES = {"unknown-field", "missing-required-field", "wrong-type", "invalid-value", "duplicate-list-key", "null-value"}


def _dedupe(findings: List[Finding]) -> List[Finding]:
    """One problem, one finding: a schema finding is dropped when a more specific rule reported
    at the same path (e.g. ``duplicate-component-name`` vs list-map uniqueness)."""
    specific = {f.path for f in findings if f.rule not in _SCHEMA_RULES}
    out = []
    for finding in findings:
        if finding.rule in _SCHEMA_RULES and finding.path in specific:
            continue
        out.append(finding)
    return sorted(set(out), key=lambda f: (f.line, f.column, f.rule, f.message))


def parity_messages(definition: Any) -> List[str]:
    """Upstream validator problems (spec §2.1) of a definition given as plain data, as messages.

    Used by the evaluation engine, which (like upstream's tree builder) reports an invalid
    definition but, unlike upstream, still evaluates what it can.
    """
    import yaml

    from . import schema, structure
    from ..load import load_text

    try:
        text = yaml.safe_dump(definition, sort_keys=False)
    except yaml.YAMLError as exc:
        return [f"definition cannot be serialised: {exc}"]
    source = load_text(text, "<definition>")
    if not source.documents:
        return ["definition is empty"]
    ctx = Context(source.documents[0])
    schema.check(ctx)
    # A value of the wrong type cannot be decoded into upstream's Go structs (the definition is
    # refused); other schema findings (unknown fields, enums, lengths) are not enforced there.
    ctx.findings = [f for f in ctx.findings if f.rule == "wrong-type"]
    structure.check(ctx)
    return [f.message for f in ctx.findings]
