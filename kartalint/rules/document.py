"""Stage 2: check Karta documents. Each module declares its rules (``RULES``) and the checks that
report them (``CHECKS``); the registry collects both.

``check_document`` runs the registry's checks on one document and returns its findings; ``Context`` is what a
check module sees: the document, the registry and a ``report`` function that turns a rule id, a
path and a message into a positioned ``Finding``.
"""

from __future__ import annotations

from kartalint.load.documents import Document
from kartalint.model import Finding
from kartalint.rules import karta_schema as schema
from kartalint.rules import registry, structure
from kartalint.rules.context import Context
from kartalint.rules.karta_schema import WRONG_TYPE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def check_document(document: Document, crds: Any | None = None) -> list[Finding]:
    """All findings of one Karta document; ``crds`` (a ``CrdIndex``) enables the CRD-aware rules."""
    return check_context(Context(document, rules=registry.RULES, crds=crds))


def check_context(ctx: Context) -> list[Finding]:
    """All findings of the document of ``ctx`` (``check_document``, for a caller that reads what
    the checks listed of it afterwards: ``Context.jq_fields``)."""
    for check in registry.CHECKS:
        check.run(ctx)
    return _dedupe(ctx.findings)


# The rules of the generated JSON Schema: a more specific rule at the same path replaces them.
_SCHEMA_RULES = {rule.id for rule in registry.iter_rules(["schema"])}


def _dedupe(findings: list[Finding]) -> list[Finding]:
    """One problem, one finding: a schema finding is dropped when a more specific rule reported
    at the same path (e.g. ``duplicate-component-name`` vs list-map uniqueness)."""
    specific = {f.path for f in findings if f.rule not in _SCHEMA_RULES}
    out = []
    for finding in findings:
        if finding.rule in _SCHEMA_RULES and finding.path in specific:
            continue
        out.append(finding)
    return sorted(set(out), key=lambda f: (f.line, f.column, f.rule, f.message))


def parity_messages(definition: Any) -> list[str]:
    """Upstream validator problems (spec §2.1) of a definition given as plain data, as messages.

    Used by the evaluation engine, which (like upstream's tree builder) reports an invalid
    definition but, unlike upstream, still evaluates what it can.
    """

    ctx = Context(None, definition, rules=registry.RULES)
    schema.check(ctx)
    # A value of the wrong type cannot be decoded into upstream's Go structs (the definition is
    # refused); other schema findings (unknown fields, enums, lengths) are not enforced there.
    ctx.findings = [f for f in ctx.findings if f.rule == WRONG_TYPE]
    structure.check(ctx)
    return [f.message for f in ctx.findings]
