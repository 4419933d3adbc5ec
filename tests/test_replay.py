"""Upstream's replay contract on every recording in ../shared/reference with the upstream
catalog: the recorded state must be among the computed statuses (docs/parity.md lists the
frames where upstream's own definitions miss, and the extraction errors they produce)."""

from __future__ import annotations

import glob
import os
from collections import Counter

import pytest
import yaml
from conftest import REFERENCE, ROOT, needs_reference

from kartalint.evaluation import Evaluator
from kartalint.testing.recording import definition_basename, is_recording, state_events

pytestmark = needs_reference

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


@pytest.fixture(scope="module")
def replay():
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
    return misses, extraction, totals


def test_every_recording_is_replayed(replay):
    _, _, totals = replay
    assert totals == {"real-data": 236, "recorded_data": 6}


def test_upstream_contract_holds_except_documented_misses(replay):
    misses, _, _ = replay
    assert misses == KNOWN_STATUS_MISSES


def test_extraction_errors_of_upstream_definitions_are_the_documented_ones(replay):
    _, extraction, _ = replay
    assert dict(extraction) == KNOWN_EXTRACTION_ERRORS


def test_docs_list_every_known_difference():
    with open(os.path.join(ROOT, "docs", "parity.md"), encoding="utf-8") as handle:
        text = handle.read()
    for (name, index), (state, computed) in KNOWN_STATUS_MISSES.items():
        assert f"| `{name}` | {index} | {state} | {', '.join(computed)} |" in text
    for (name, comp, field), count in KNOWN_EXTRACTION_ERRORS.items():
        assert f"| `{name}` | {comp} | `{field}` | {count} |" in text
