"""Real-world definitions: the upstream catalog must raise no parity error; known-broken samples must."""

from __future__ import annotations

import glob
import os

import pytest
from conftest import REFERENCE, needs_reference

from kartalint.jqlang import parse_cached
from kartalint.karta import jq_fields
from kartalint.load.documents import load_file
from kartalint.rules import registry as rules
from kartalint.rules.config import Config
from kartalint.rules.lint import lint_paths

PARITY = {r.id for r in rules.iter_rules(["parity", "schema", "yaml"])} - {"null-value"}


def _files(folder):
    return sorted(glob.glob(os.path.join(REFERENCE, folder, "*.yaml")))


@needs_reference
@pytest.mark.parametrize("path", _files("upstream-catalog"), ids=os.path.basename)
def test_upstream_catalog_has_no_parity_or_schema_errors(path):
    result = lint_paths([path], Config())
    assert result.karta_documents == 1
    assert [f for f in result.findings if f.rule in PARITY] == []
    assert [f for f in result.findings if f.severity.name == "ERROR"] == []


@needs_reference
def test_upstream_samples_real_mistakes_are_caught():
    result = lint_paths(_files("upstream-samples"), Config())
    by_file = {}
    for f in result.findings:
        by_file.setdefault(os.path.basename(f.file), set()).add(f.rule)
    # paths written without a leading dot: upstream accepts them (gojq parses), they fail at run time
    assert "jq-compile-error" in by_file["karta--argo-workflow.yaml"]
    assert "null-value" in by_file["workload-map--rayjob.yaml"]
    assert not any(f.rule in PARITY for f in result.findings)


@needs_reference
def test_parser_accepts_every_reference_expression():
    expressions = set()
    for path in _files("upstream-catalog") + _files("upstream-samples"):
        for doc in load_file(path).karta_documents:
            expressions.update(f.expression for f in jq_fields(doc.data))
    assert len(expressions) > 300
    for expression in expressions:
        tree, error = parse_cached(expression)
        assert error is None, (expression, error.message)
        assert (tree.start, tree.end) == (0, len(expression.rstrip())) or tree.end <= len(expression)
