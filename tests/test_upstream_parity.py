"""Upstream parity: kartalint against upstream's own catalog definitions, samples and CRD on the
real-world data of ../shared/reference (upstream's definitions are not ours and are never copied
into this repository, so these tests need ../shared and skip without it; everything else runs on
the vendored subset in tests/data/reference).

1. Linting: upstream's catalog raises no parity, schema or error finding (upstream accepts it);
   the known-broken samples raise what they should; kartalint's parser accepts every expression;
   the vendored Karta CRD is upstream's.
2. Replay: upstream's contract on every recording with the upstream catalog (the recorded state
   is among the computed statuses), except the frames docs/parity.md lists, with exactly the
   extraction errors it lists; the same through `kartalint test --known-failures`, which fails
   without them.
"""

from __future__ import annotations

import glob
import os
from collections import Counter

import pytest
import yaml
from conftest import REFERENCE, ROOT, needs_upstream

from kartalint import schema
from kartalint.cli import main
from kartalint.evaluation import Evaluator
from kartalint.jqlang import parse_cached
from kartalint.karta import jq_fields
from kartalint.lint import lint_paths
from kartalint.load.documents import load_file
from kartalint.project import Config
from kartalint.rules import registry
from kartalint.testing.recording import definition_basename, is_recording, state_events

PARITY = {r.id for r in registry.iter_rules(["parity", "schema", "yaml"])} - {"null-value"}

# (recording, event index) -> (recorded state, statuses computed by the upstream definition),
# from the file `kartalint test --known-failures` reads too
with open(os.path.join(ROOT, "tests", "data", "upstream-replay-known-failures.yaml"), encoding="utf-8") as _handle:
    KNOWN_STATUS_MISSES = {
        (*tuple(_e["id"].rsplit("#", 1)[:1]), int(_e["id"].rsplit("#", 1)[1])): (_e["recorded"], tuple(_e["computed"]))
        for _e in yaml.safe_load(_handle)
    }

# (recording, component, field) -> number of frames with that extraction error (upstream's own
# definitions on real objects; the tree builder fails on these, the status is unaffected)
_GROVE = "real-data/grove/v0.1.0-alpha.13/grove-io-podcliqueset-v1alpha1/"
_LLMISVC = "recorded_data/kserve/v1.34.0/serving-kserve-io-llminferenceservice-v1alpha2/"
KNOWN_EXTRACTION_ERRORS = {
    (_GROVE + "initializing.yaml", "scalinggroup", "instanceIdPath"): 1,
    (_GROVE + "running.yaml", "scalinggroup", "instanceIdPath"): 5,
    (_GROVE + "scaled.yaml", "scalinggroup", "instanceIdPath"): 12,
}
for _flow, _frames in (("failed.yaml", 2), ("running.yaml", 4)):
    for _comp, _field in (
        ("leader", "scaleDefinition"),
        ("leader", "specDefinition.podSpecPath"),
        ("prefill-leader", "scaleDefinition"),
        ("prefill-leader", "specDefinition.podSpecPath"),
        ("prefill-worker", "scaleDefinition"),
        ("worker", "scaleDefinition"),
    ):
        KNOWN_EXTRACTION_ERRORS[(_LLMISVC + _flow, _comp, _field)] = _frames


def _files(folder):
    return sorted(glob.glob(os.path.join(REFERENCE, folder, "*.yaml")))


def _recordings():
    files = sorted(
        glob.glob(os.path.join(REFERENCE, "real-data", "**", "*.yaml"), recursive=True)
        + glob.glob(os.path.join(REFERENCE, "recorded_data", "**", "*.yaml"), recursive=True)
    )
    for path in files:
        with open(path, encoding="utf-8") as handle:
            data = yaml.load(handle, Loader=yaml.CSafeLoader)
        if is_recording(data):
            yield os.path.relpath(path, REFERENCE), data


@needs_upstream
def test_upstream_definitions_lint_as_upstream_accepts_them():
    catalog = _files("upstream-catalog")
    assert len(catalog) >= 20
    for path in catalog:
        result = lint_paths([path], Config())
        assert result.karta_documents == 1, path
        assert [f for f in result.findings if f.rule in PARITY] == [], path
        assert [f for f in result.findings if f.severity.name == "ERROR"] == [], path
    # real-world mistakes in upstream's samples are caught (paths without a leading dot: upstream
    # accepts them because gojq parses them, they fail at run time)
    result = lint_paths(_files("upstream-samples"), Config())
    by_file = {}
    for f in result.findings:
        by_file.setdefault(os.path.basename(f.file), set()).add(f.rule)
    assert "jq-compile-error" in by_file["karta--argo-workflow.yaml"]
    assert "null-value" in by_file["workload-map--rayjob.yaml"]
    assert not any(f.rule in PARITY for f in result.findings)
    # kartalint's parser accepts every expression of them
    expressions = set()
    for path in catalog + _files("upstream-samples"):
        for doc in load_file(path).karta_documents:
            expressions.update(f.expression for f in jq_fields(doc.data))
    assert len(expressions) > 300
    for expression in expressions:
        tree, error = parse_cached(expression)
        assert error is None, (expression, error.message)
        assert (tree.start, tree.end) == (0, len(expression.rstrip())) or tree.end <= len(expression)
    # the Karta CRD the schema is generated from is upstream's
    with (
        open(os.path.join(REFERENCE, "karta-crd", "run.ai_kartas.yaml"), encoding="utf-8") as a,
        open(schema.CRD_FILE, encoding="utf-8") as b,
    ):
        assert a.read() == b.read()


@pytest.mark.slow  # a walk over all the reference data
@needs_upstream
def test_upstream_replay_contract(capsys):
    catalog = {}
    for path in glob.glob(os.path.join(REFERENCE, "upstream-catalog", "*.yaml")):
        with open(path, encoding="utf-8") as handle:
            catalog[os.path.basename(path)] = yaml.safe_load(handle)
    misses, extraction, totals = {}, Counter(), Counter()
    with Evaluator() as evaluator:
        for name, data in _recordings():
            definition = catalog[definition_basename(data)]
            for event in state_events(data):
                view = evaluator.evaluate(definition, event.object)
                status_errors = [e for e in view.root.errors if e.field.startswith("statusDefinition")] + view.errors
                assert status_errors == [], (name, event.index, status_errors)
                totals[name.split("/")[0]] += 1
                if event.state not in view.statuses:
                    misses[(name, event.index)] = (event.state, tuple(view.statuses))
                for comp, error in view.all_errors:
                    extraction[(name, comp, error.field)] += 1
    assert totals == {"real-data": 236, "recorded_data": 6}
    assert misses == KNOWN_STATUS_MISSES
    assert dict(extraction) == KNOWN_EXTRACTION_ERRORS
    # the same through the command line: passes with the known failures, fails without them
    known = os.path.join(ROOT, "tests", "data", "upstream-replay-known-failures.yaml")
    upstream = os.path.join(REFERENCE, "upstream-catalog")
    data = [os.path.join(REFERENCE, "real-data"), os.path.join(REFERENCE, "recorded_data")]
    code = main(["test", *data, "--definitions", upstream, "--known-failures", known])
    out = capsys.readouterr().out
    assert code == 0, out[-2000:]
    assert "232 passed, 0 failed, 0 error(s), 10 expected failure(s)" in out
    code = main(["test", os.path.join(REFERENCE, "real-data", "jobset"), "--definitions", upstream])
    out = capsys.readouterr().out
    assert code == 1
    assert 'statuses: expected to contain Running, got ["Initializing"]' in out


def test_docs_list_every_known_difference():
    with open(os.path.join(ROOT, "docs", "parity.md"), encoding="utf-8") as handle:
        text = handle.read()
    for (name, index), (state, computed) in KNOWN_STATUS_MISSES.items():
        assert f"| `{name}` | {index} | {state} | {', '.join(computed)} |" in text
    for (name, comp, field), count in KNOWN_EXTRACTION_ERRORS.items():
        assert f"| `{name}` | {comp} | `{field}` | {count} |" in text
