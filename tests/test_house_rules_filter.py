"""House rules cleared in kartalint's process (``_house_filter``): a definition on which no rule
finds anything does not go to the jq worker. Clear must mean exactly what libjq gives (every output
false or null, no error); anything else is left to the worker. Checked against libjq itself on the
catalog's units and on generated values, and end to end against linting the files one by one
(the worker decides every definition there)."""

from __future__ import annotations

import functools
import glob
import json
import os
import shutil
import textwrap

import jq
import pytest
from conftest import BASE_DEFINITION, ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from kartalint import karta
from kartalint.jqlang.runner import SANDBOX_PRELUDE, BoundedRunner
from kartalint.lint import paths as lint_paths_module
from kartalint.lint.paths import lint_paths
from kartalint.lint.pipeline import lint_file
from kartalint.load.documents import load_file
from kartalint.project import read_config
from kartalint.rules import registry
from kartalint.rules._house_filter import clear, compile_when
from kartalint.rules._house_values import Unsure
from kartalint.rules.house import status_mappings

# rules as organisations write them (docs/house-rules.md, bench/house_rules.py) and edge cases of jq
WHENS = [
    '.specDefinition != null and .podSelector != null and ((.podSelector.componentTypeSelector.keyPath // ".metadata.labels") | (contains(".metadata.labels") or contains(".metadata.annotations")) | not)',
    '.ownerRef != null and (.ownerRef | test("^[a-z0-9-]+$") | not)',
    '(.name // "") | test("^[a-z][a-z0-9-]*$") | not',
    ".specDefinition != null and .scaleDefinition == null and .instanceIdPath != null",
    '.kind != null and ((.kind.version // "") == "")',
    "length > 8",
    'map(select(.byPhase != null and (.byPhase | test("^[A-Za-z_ ]*$") | not))) | length > 0',
    "map(select(.byExpression != null and .byExpression.expectedResult == null)) | length > 0",
    'contains("limits") and test("\\\\blimits\\\\b[\\\\s\\\\S]*gpu"; "i")',
    'contains("$__loc__") or contains("input_filename")',
    "length > 2000",
    '$path[-1] == "replicasPath" and contains("tostring")',
    '$path[-1] == "keyPath" and ((contains("labels") or contains("annotations")) | not)',
    '(.spec.structureDefinition.rootComponent.kind.group // "") as $group | .metadata.name | startswith(if $group == "" then "core" else ($group | split(".") | join("-")) end) | not',
    '(.spec.structureDefinition.rootComponent.statusDefinition.statusMappings // {}) | has("running") | not',
    '(.metadata.labels // {}) | has("team.example.com/owner") and (.["team.example.com/owner"] | type != "string")',
    '.a == 1 or .a < 2 or .a >= "x" or (.a | length) == 0',
    "if .a then .b elif .c then false else null end",
    ".[0] // .x",
    "[.a, .b] | length > 1",
    "keys | length > 3",
    '.a | ascii_downcase == "x"',
    '(.a // "") | endswith("z")',
    ".a | not",
    "-(.a // 0) > 1",
    "[.[] | select(. == null)] | length > 0",
    'test("NVIDIA.COM/GPU"; "i")',
    '(.name // "") | test("^[A-Z]")',
]

OUTSIDE = [
    '.a | tostring == "1"',
    '"\\(.a)" == ""',
    ".a + 1 > 2",
    "try .a catch false",
    'test("(a+)+")',
    "$__loc__.line > 0",
    "{a: 1} == .",
    ".. | false",
    "reduce .[] as $x (0; . + 1) > 2",
]


@functools.lru_cache(maxsize=64)
def _program(when: str):
    """``when`` compiled by libjq as the house rules' program binds it: ``[path, unit]`` in."""
    return jq.compile(SANDBOX_PRELUDE + f"{{}} as $definition | .[0] as $path | .[1] | ({when}\n)")


def libjq(when: str, unit: object, path: list) -> tuple[list, str | None]:
    """libjq's outputs of ``when`` on ``unit``, or its error."""
    try:
        return _program(when).input_value([path, unit]).all(), None
    except ValueError as error:
        return [], str(error)


def agrees(when: str, unit: object, path: tuple = ()) -> bool | None:
    """Whether the filter's word on ``unit`` is libjq's (None: the filter was not sure)."""
    part = compile_when(when)
    assert part is not None, when
    try:
        clear(part, unit, {"path": path, "definition": {}})
    except Unsure:
        return None
    outputs, error = libjq(when, json.loads(json.dumps(unit)), list(path))
    return error is None and all(output is None or output is False for output in outputs)


def catalog_units() -> list[tuple[str, tuple, object]]:
    """Every unit of the bundled catalog's definitions: (kind, path, value)."""
    found = []
    for path in sorted(glob.glob(os.path.join(ROOT, "catalog", "*.yaml"))):
        for document in load_file(path, 10**8, keep=False).stream():
            if not document.is_karta:
                continue
            data = document.data
            components = karta.components(data)
            found.append(("definition", (), data))
            found += [("component", c.path, c.data) for c in components]
            found += [("status-mapping", p, m) for p, m in status_mappings(components)]
            found += [("expression", f.path, f.expression) for f in karta.jq_fields(data)]
    return found


def test_what_the_filter_clears_on_the_catalog_libjq_clears_too():
    units = catalog_units()
    cleared = 0
    for when in WHENS:
        for _, path, unit in units:
            verdict = agrees(when, unit, path)
            assert verdict is not False, (when, path)
            cleared += verdict is True
    assert cleared > len(units) * len(WHENS) / 5  # (the filter clears, not only doubts: each rule on each kind)


def test_rules_written_with_more_jq_are_left_to_the_worker():
    for when in OUTSIDE:
        assert compile_when(when) is None, when
    for when in WHENS:
        assert compile_when(when) is not None, when


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**60), 2**60)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.sampled_from("abcXYZ-_. 0\n\u00e9\x1c"), max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["a", "b", "c", "x", "name"]), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(unit=JSON, when=st.sampled_from(WHENS[5:7] + WHENS[14:]))
def test_what_the_filter_clears_on_any_value_libjq_clears_too(unit, when):
    assert agrees(when, unit, ("spec", "x", 0)) is not False


RULES = textwrap.dedent(
    """\
    house-rules:
      - id: acme-component-name
        for-each: component
        when: '(.name // "") | test("^[a-z][a-z0-9-]*$") | not'
        message: 'component \\(.name) is not lowercase'
      - id: acme-no-gpu-limits
        for-each: expression
        when: 'contains("limits") and test("\\\\blimits\\\\b[\\\\s\\\\S]*gpu"; "i")'
        message: '\\($path[-1]) counts GPUs from limits'
      - id: acme-phase
        for-each: status-mapping
        when: 'map(select(.byPhase == "Started")) | length > 0'
        message: '\\($path[-1]) matches Started'
      - id: acme-root-kind
        for-each: definition
        when: '(.spec.structureDefinition.rootComponent.kind.kind // "") == "Trainer" and (.metadata.name | endswith("v7"))'
        message: 'trainer v7'
    """
)


def test_a_run_sends_the_worker_only_what_the_filter_cannot_clear_and_reports_what_the_worker_alone_reports(
    tmp_path, monkeypatch
):
    (tmp_path / "defs").mkdir()
    for source in sorted(glob.glob(os.path.join(ROOT, "catalog", "*.yaml"))):
        shutil.copy(source, tmp_path / "defs" / os.path.basename(source))
    for i in range(12):
        text = BASE_DEFINITION.replace("trainer-v1", f"trainer-v{i}")
        if i == 3:
            text = text.replace("- name: worker", "- name: Worker")
        if i == 5:
            text = text.replace("          - byPhase: Running", "          - byPhase: Started")
        (tmp_path / "defs" / f"z-{i:02d}.yaml").write_text(text)
    (tmp_path / ".kartalint.yaml").write_text(RULES)
    config = read_config(str(tmp_path / ".kartalint.yaml"), rules=registry.RULES)
    monkeypatch.chdir(tmp_path)
    sent: list[str] = []
    submit = BoundedRunner.submit
    monkeypatch.setattr(BoundedRunner, "submit", lambda self, p, text: sent.append(text) or submit(self, p, text))
    queued = lint_paths(["defs"], config, jobs=1)
    definitions = sum(len(json.loads(text)) for text in sent if text.startswith("["))
    with monkeypatch.context() as patch:
        patch.setattr(
            lint_paths_module,
            "lint_files",
            lambda files, config, strict_files=False: (lint_file(f, config) for f in files),
        )
        alone = lint_paths(["defs"], config, jobs=1)
    assert list(queued.findings) == list(alone.findings)
    rules = [f.rule for f in queued.findings]
    assert (
        rules.count("acme-component-name") == 1
        and rules.count("acme-phase") >= 1
        and rules.count("acme-root-kind") == 1
    )
    assert queued.karta_documents > 40 and 3 <= definitions <= 12  # (the catalog's GPU expressions: a few)
    assert list(lint_paths(["defs"], config, jobs=2).findings) == list(alone.findings)


@pytest.mark.parametrize("when", [".a == null", '.a != "x"'])
def test_a_comparison_with_a_constant_is_jqs(when):
    for unit in [{}, {"a": None}, {"a": "x"}, {"a": 1}, {"a": False}, {"a": [None]}, None]:
        assert agrees(when, unit) is not False
