"""Lint follows jq everywhere authors write paths: after `select`, inside `if` branches, through
`$var` bindings, `//` defaults, `reduce` and user `def`s; CRD subtrees marked
x-kubernetes-preserve-unknown-fields are checked against the properties they declare. Every
finding lands at its line:column inside the jq string, for block, quoted and plain scalars."""

from __future__ import annotations

import pytest
import yaml
from conftest import BASE_DEFINITION, lint_text

from kartalint.jqlang import parse_cached
from kartalint.jqlang.paths import path_facts
from kartalint.project import Config

# A small CRD shaped like SGLang's RoleBasedGroup (roles under preserve-unknown-fields, with
# declared properties) and KAITO's Workspace (top-level `inference` with a free-form template).
CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "groups.example.com"},
    "spec": {
        "group": "example.com",
        "names": {"kind": "Group", "plural": "groups"},
        "scope": "Namespaced",
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "properties": {
                            "spec": {
                                "type": "object",
                                "required": ["roles"],
                                "properties": {
                                    "roles": {
                                        "type": "array",
                                        "items": {
                                            "type": "object",
                                            "x-kubernetes-preserve-unknown-fields": True,
                                            "required": ["name", "replicas"],
                                            "properties": {
                                                "name": {"type": "string"},
                                                "replicas": {"type": "integer"},
                                                "leaderWorkerPattern": {
                                                    "type": "object",
                                                    "properties": {"size": {"type": "integer"}},
                                                },
                                                "template": {
                                                    "type": "object",
                                                    "x-kubernetes-preserve-unknown-fields": True,
                                                },
                                            },
                                        },
                                    }
                                },
                            },
                            "inference": {
                                "type": "object",
                                "properties": {
                                    "template": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
                                },
                            },
                            "resource": {"type": "object", "properties": {"count": {"type": "integer"}}},
                            "status": {
                                "type": "object",
                                "properties": {
                                    "phase": {"type": "string"},
                                    "conditions": {
                                        "type": "array",
                                        "items": {
                                            "type": "object",
                                            "properties": {
                                                "type": {"type": "string"},
                                                "status": {"type": "string"},
                                                "reason": {"type": "string"},
                                                "message": {"type": "string"},
                                            },
                                        },
                                    },
                                },
                            },
                        },
                    }
                },
            }
        ],
    },
}


@pytest.fixture
def crd_config(tmp_path):
    path = tmp_path / "crd.yaml"
    path.write_text(yaml.safe_dump(CRD))
    return Config(crds=[str(path)])


def definition(expression: str, style: str) -> str:
    text = BASE_DEFINITION.replace(
        "group: example.com\n        version: v1\n        kind: Trainer",
        "group: example.com\n        version: v1\n        kind: Group",
    )
    old = "replicasPath: .spec.roles[] | (.replicas // 1)"
    assert old in text
    if style == "block":
        value = ">-\n          " + expression
    elif style == "quoted":
        value = '"' + expression.replace("\\", "\\\\").replace('"', '\\"') + '"'
    else:
        value = expression
    return text.replace(old, f"replicasPath: {value}")


def position(text: str, needle: str, style: str) -> tuple:
    """1-based line and column of ``needle`` in the file (the jq text as written there)."""
    written = needle.replace('"', '\\"') if style == "quoted" else needle
    index = text.index(written, text.index("replicasPath:"))
    line = text.count("\n", 0, index) + 1
    return line, index - text.rfind("\n", 0, index)


STYLES = ["plain", "quoted", "block"]
CASES = [
    # (expression, rule, the part of the expression the finding points at)
    (
        ".spec.roles[]? | select(.leaderWorkerPattern != null) | .replicas * .leaderWorkerPattern.szie",
        "path-not-in-crd",
        ".leaderWorkerPattern.szie",
    ),
    (
        ".spec.roles[]? | if .leaderWorkerPattern then .replicas * .leaderWorkerPattern.size else .replicas end",
        "crd-optional-arithmetic",
        ".leaderWorkerPattern.size",
    ),
    (". as $w | .spec.roles[] | select(.name != null) | ($w.resorce.count * 1)", "path-not-in-crd", "$w.resorce.count"),
    (".inference | select(. != null) | .templat | length", "path-not-in-crd", ".templat"),
    (".spec.roles[] | .nmae | length", "path-not-in-crd", ".nmae"),
    ("def roles: .spec.roles[]; roles | .replicaz", "path-not-in-crd", ".replicaz"),
    ("reduce .spec.roles[] as $r (0; . + $r.replcas)", "path-not-in-crd", "$r.replcas"),
    ("(.spec.roles // []) | map(.sise) | length", "path-not-in-crd", ".sise"),
    (".inference.template.spec.containers | length", "crd-free-form", ".inference.template.spec.containers"),
    (".spec.roles | map({key: .name, value: .}) | from_entries | .worker.replicas", "path-not-followed", None),
]


# every style of YAML scalar, but a plain scalar cannot hold ': ' (those cases run in the others)
STYLED_CASES = [
    pytest.param(style, *case, id=f"{style}-{case[1]}:{(case[2] or case[1])[:24]}")
    for style in STYLES
    for case in CASES
    if not (style == "plain" and ": " in case[0])
]


@pytest.mark.parametrize("style, expression, rule, at", STYLED_CASES)
def test_findings_follow_the_expression_and_land_inside_the_string(crd_config, style, expression, rule, at):
    text = definition(expression, style)
    findings = [f for f in lint_text(text, config=crd_config) if f.rule == rule]
    assert len(findings) == 1, (rule, [(f.rule, f.message) for f in lint_text(text, config=crd_config)])
    if at is not None:
        assert (findings[0].line, findings[0].column) == position(text, at, style)
        assert findings[0].end_column - findings[0].column == len(at.replace('"', '\\"') if style == "quoted" else at)


def test_required_fields_after_a_guard_are_not_may_be_absent(crd_config):
    # `.replicas` is required by the CRD: neither the generic nor the CRD arithmetic rule fires
    text = definition(".spec.roles[] | select(.leaderWorkerPattern != null) | .replicas * 2", "plain")
    rules = {f.rule for f in lint_text(text, config=crd_config)}
    assert "scale-path-not-null-safe" not in rules and "crd-optional-arithmetic" not in rules
    # without the CRD, the generic rule still sees the arithmetic after `select`
    rules = {f.rule for f in lint_text(text)}
    assert "scale-path-not-null-safe" in rules


def test_a_tested_path_is_guarded():
    tree, _ = parse_cached(".spec.x as $x | if .spec.x then .spec.x * 2 else 1 end")
    facts = path_facts(tree)
    assert facts.arithmetic == []
    tree, _ = parse_cached('.spec | select(has("size")) | .size * 2')
    assert path_facts(tree).arithmetic == []
    tree, _ = parse_cached(".spec | select(.other) | .size * 2")
    [(_operator, read)] = path_facts(tree).arithmetic
    assert read.text() == ".spec.size"


def test_the_catalog_stays_clean_with_the_test_crd(crd_config, capsys):
    from kartalint.cli import main

    assert main(["lint", "--strict", "catalog"]) == 0


# -- matchers that can never match -----------------------------------------------------------------------


def with_status(crd_config, mappings, phase_path=".status.phase"):
    """The test definition with its root statusDefinition replaced; the CRD gets enums."""
    import copy

    crd = copy.deepcopy(CRD)
    status = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["status"]["properties"]
    status["phase"]["enum"] = ["Pending", "Running", "FINISHED", "FAILED"]
    status["lifecycleState"] = {"type": "string", "enum": ["RUNNING", "SUSPENDED"]}
    status["conditions"]["items"]["properties"]["type"]["enum"] = ["Ready", "Failed"]
    with open(crd_config.crds[0], "w") as handle:
        yaml.safe_dump(crd, handle)
    data = yaml.safe_load(definition(".spec.roles[] | (.replicas // 1)", "plain"))
    status_definition = data["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]
    status_definition["phaseDefinition"]["path"] = phase_path
    status_definition["statusMappings"] = mappings
    text = yaml.safe_dump(data, sort_keys=False)
    return text, lint_text(text, config=crd_config)


def only(findings, rule):
    return [f for f in findings if f.rule == rule]


def test_by_phase_outside_the_enum(crd_config):
    _text, findings = with_status(
        crd_config,
        {"completed": [{"byPhase": "SUCCEEDED"}, {"byPhase": "FINISHED"}], "failed": [{"byPhase": "Failed"}]},
    )
    found = only(findings, "phase-never-matches")
    assert [f.message.split("'")[1] for f in found] == ["SUCCEEDED", "Failed"]
    assert found[1].hint == "write byPhase: FAILED"
    # a phase path with a default still reads the phase field
    _, findings = with_status(crd_config, {"failed": [{"byPhase": "Failed"}]}, phase_path='.status.phase // "Pending"')
    assert only(findings, "phase-never-matches")


def test_expression_compared_outside_the_enum_points_inside_the_string(crd_config):
    expression = '.status.lifecycleState == "Suspended" or (.status | .lifecycleState != "RUNNING")'
    text, findings = with_status(
        crd_config, {"suspended": [{"byExpression": {"expression": expression, "expectedResult": "true"}}]}
    )
    [found] = only(findings, "enum-comparison-never-matches")
    assert '"Suspended"' in found.message and found.hint == 'compare with "SUSPENDED"'
    line = text.splitlines()[found.line - 1]
    assert line[found.column - 1 : found.end_column - 1] == '"Suspended"'


def test_condition_status_and_type_that_never_match(crd_config):
    text, findings = with_status(
        crd_config,
        {
            "failed": [
                {"byConditions": [{"type": "Failed", "status": "true"}]},
                {"byConditions": [{"type": "Errored", "status": "True"}]},
            ],
            "running": [{"byConditions": [{"type": "Ready", "status": "True"}]}],
        },
    )
    [status] = only(findings, "condition-status-never-matches")
    assert "'true'" in status.message and status.hint == 'write status: "True"'
    [kind] = only(findings, "condition-type-not-in-crd")
    assert "'Errored'" in kind.message
    # without the CRD, the status rule still fires; the type rule needs the CRD
    rules = {f.rule for f in lint_text(text)}
    assert "condition-status-never-matches" in rules and "condition-type-not-in-crd" not in rules


def test_expected_result_a_test_can_never_produce():
    data = yaml.safe_load(BASE_DEFINITION)
    data["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]["statusMappings"]["running"] = [
        {"byExpression": {"expression": ".status.ready > 0", "expectedResult": "yes"}},
        {"byExpression": {"expression": ".status.ready > 0", "expectedResult": "true"}},
        {"byExpression": {"expression": ".status.state", "expectedResult": "yes"}},
    ]
    findings = only(lint_text(yaml.safe_dump(data, sort_keys=False)), "expected-result-never-matches")
    assert len(findings) == 1 and findings[0].path[-3:] == (0, "byExpression", "expectedResult")


def test_expected_result_a_test_can_never_produce_whatever_form_the_test_takes():
    data = yaml.safe_load(BASE_DEFINITION)
    mappings = data["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]["statusMappings"]
    tests = (
        "if .status.ready > 0 then true else false end",  # every branch a boolean
        '.status.phase | IN("Running", "Ready")',
        "(.status.ready | not)",
    )
    mappings["running"] = [{"byExpression": {"expression": e, "expectedResult": "Running"}} for e in tests]
    # a branch that yields a string can print "Running": not reported
    mappings["failed"] = [
        {
            "byExpression": {
                "expression": 'if .status.ready > 0 then "Running" else false end',
                "expectedResult": "Running",
            }
        }
    ]
    findings = only(lint_text(yaml.safe_dump(data, sort_keys=False)), "expected-result-never-matches")
    assert sorted(f.path[-3] for f in findings) == [0, 1, 2]
    assert {f.path[-4] for f in findings} == {"running"}


def test_no_pod_component_and_draft_placeholders(tmp_path):
    data = yaml.safe_load(BASE_DEFINITION)
    del data["spec"]["structureDefinition"]["childComponents"][0]["specDefinition"]
    assert only(lint_text(yaml.safe_dump(data)), "no-pod-component")
    from kartalint.cli import main

    crd = tmp_path / "crd.yaml"
    crd.write_text(yaml.safe_dump(CRD))
    assert main(["new", "--crd", str(crd), "-o", str(tmp_path / "draft.yaml")]) == 0
    draft = (tmp_path / "draft.yaml").read_text()
    findings = only(lint_text(draft, name=str(tmp_path / "draft.yaml")), "draft-placeholder")
    assert findings and findings[0].line == 1, "the draft header is marked"
    assert main(["lint", "--strict", str(tmp_path / "draft.yaml")]) == 1  # a draft never passes --strict
