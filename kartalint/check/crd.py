"""CRD-aware rules: every path a workload expression reads must exist in the CRD schema of the
definition's root kind (``path-not-in-crd``), and arithmetic on optional fields needs a default
(``crd-optional-arithmetic``, with the CRD's declared default in the hint).

Active only when the CRD of the root group/version/kind is known (``--crd`` or ``crds:`` in the
configuration). Where the CRD proves a field present (required), the generic
``scale-path-not-null-safe`` finding is withdrawn; where the field is optional the CRD-aware
finding replaces it.
"""

from __future__ import annotations

from typing import Optional, Set, Tuple

from .. import karta
from ..crd import CrdIndex, lookup
from ..jqlang import analysis, parse_cached
from . import Context


def check(ctx: Context, crds: Optional[CrdIndex]) -> Set[Tuple[tuple, int]]:
    """Run the rules; returns the (field path, offset) places where the generic null-safety
    finding is superseded."""
    superseded: Set[Tuple[tuple, int]] = set()
    if crds is None:
        return superseded
    root = karta.as_dict(karta.structure(ctx.data).get("rootComponent"))
    version = crds.get(karta.gvk_of(root.get("kind")))
    if version is None or not version.schema:
        return superseded
    where = f"{version.kind} {version.group}/{version.version}"
    for jq_field in karta.jq_fields(ctx.data):
        if jq_field.target != "workload":
            continue
        tree, _ = parse_cached(jq_field.expression)
        if tree is None:
            continue
        reported = set()
        for read in analysis.path_facts(tree):
            result = lookup(version.schema, read.path)
            if result.found or (read.path[:result_depth(result)], result.missing) in reported:
                continue
            reported.add((read.path[:result_depth(result)], result.missing))
            parent = "".join(p if p.startswith("[") else "." + p for p in result.at) or "."
            hint = f"did you mean {' or '.join(repr(s) for s in result.suggestions)}?" if result.suggestions \
                else f"check the field names of {where} (kubectl explain {version.plural}.{'.'.join(p for p in result.at if not p.startswith('['))})"
            ctx.report("path-not-in-crd", jq_field.path,
                       f"{read.text()}: {where} has no field '{result.missing}' under {parent}; the expression always reads null here",
                       scalar_range=(read.start, read.end), hint=hint)
        if jq_field.kind not in karta.SCALE_PATHS:
            continue
        for operator, read in analysis.unguarded_arithmetic(tree):
            result = lookup(version.schema, read.path)
            if not result.found or result.schema is None:
                continue
            superseded.add((tuple(jq_field.path), read.start))
            if result.required:
                continue
            default = result.default if isinstance(result.default, (int, float)) and not isinstance(result.default, bool) else None
            text = jq_field.expression[read.start:read.end]
            note = f"the CRD declares default {default}, which the API server fills in, but objects from files and fixtures may omit it" \
                if default is not None else "the CRD does not require it"
            ctx.report("crd-optional-arithmetic", jq_field.path,
                       f"'{operator.value}' on {read.text()}, optional in {where} ({note}): the {jq_field.kind} extraction fails without it",
                       scalar_range=(read.start, read.end), hint=f"write ({text} // {default if default is not None else 1})")
    return superseded


def result_depth(result) -> int:
    return len(result.at) + 1
