"""Issue 43, items 2 and 3, on the operators' own CRDs (tests/data/operator-crds, tests/data/from-objects):
a `// D` fallback on a field whose CRD default is not D (`default-differs-from-crd`), and
comparisons and string tests a field's enum makes impossible, in any expression
(`enum-comparison-never-matches`), an error in a replica count (`scale-comparison-never-true`).
Each mistake is made once in a definition that is otherwise clean, next to its near miss."""

from __future__ import annotations

import os

import pytest
from conftest import ROOT, lint_text

from kartalint.project import Config

OPERATOR_CRDS = os.path.join(ROOT, "tests", "data", "operator-crds")
FROM_OBJECTS = os.path.join(ROOT, "tests", "data", "from-objects")

# A Sandbox (agents.x-k8s.io/v1beta1: spec.operatingMode, enum Running/Suspended, default Running)
SANDBOX = """\
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: agents-x-k8s-io-sandbox-v1beta1}
spec:
  structureDefinition:
    rootComponent:
      name: sandbox
      kind: {group: agents.x-k8s.io, version: v1beta1, kind: Sandbox}
      specDefinition: {podTemplateSpecPath: .spec.podTemplate}
      scaleDefinition:
        replicasPath: REPLICAS
      statusDefinition:
        conditionsDefinition: {path: '.status.conditions // []', typeFieldName: type, statusFieldName: status}
        statusMappings:
          running: [{byConditions: [{type: Ready, status: "True"}]}]
          suspended:
          - byExpression: {expression: 'SUSPENDED', expectedResult: "true"}
"""

# A RoleBasedGroupSet (workloads.x-k8s.io/v1alpha2: roles[].replicas default 1, leaderWorkerPattern.size default 1)
RBGS = """\
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: workloads-x-k8s-io-rolebasedgroupset-v1alpha2}
spec:
  structureDefinition:
    rootComponent:
      name: set
      kind: {group: workloads.x-k8s.io, version: v1alpha2, kind: RoleBasedGroupSet}
      statusDefinition:
        conditionsDefinition: {path: '.status.conditions // []', typeFieldName: type, statusFieldName: status}
        statusMappings:
          running: [{byConditions: [{type: Ready, status: "True"}]}]
    childComponents:
    - name: role
      ownerRef: set
      kind: {group: "", version: v1, kind: Pod}
      instanceIdPath: .spec.groupTemplate.spec.roles[]?.name
      specDefinition: {podTemplateSpecPath: '.spec.groupTemplate.spec.roles[]?.leaderWorkerPattern.template'}
      scaleDefinition:
        replicasPath: REPLICAS
      podSelector:
        componentTypeSelector: {keyPath: '.metadata.labels["rolebasedgroup.workloads.x-k8s.io/role"]'}
        componentInstanceSelector: {idPath: '.metadata.labels["rolebasedgroup.workloads.x-k8s.io/role"]'}
"""


@pytest.fixture(scope="module")
def sandbox_config():
    return Config(crds=[os.path.join(OPERATOR_CRDS, "agents.x-k8s.io_sandboxes.yaml")])


@pytest.fixture(scope="module")
def rbgs_config():
    return Config(crds=[os.path.join(FROM_OBJECTS, "rbgs", "crd.yaml")])


def sandbox(config, replicas="1", suspended='.spec.operatingMode == "Suspended"'):
    text = SANDBOX.replace("REPLICAS", f"'{replicas}'").replace("SUSPENDED", suspended.replace("'", "''"))
    return text, lint_text(text, config=config)


def rules(findings):
    return [f.rule for f in findings]


def test_the_sandbox_definition_is_clean(sandbox_config, rbgs_config):
    assert sandbox(sandbox_config)[1] == []
    text = RBGS.replace(
        "REPLICAS", "'.spec.replicas as $n | .spec.groupTemplate.spec.roles[]? | $n * (.replicas // 1)'"
    )
    assert lint_text(text, config=rbgs_config) == []


@pytest.mark.parametrize(
    ("expression", "shown", "crd"),
    [
        ('.spec.operatingMode // "Suspended" | . == "Suspended"', '"Suspended"', '"Running"'),
        ('(.spec.shutdownPolicy // "Delete") == "Delete"', '"Delete"', '"Retain"'),
    ],
)
def test_a_string_fallback_the_sandbox_crd_contradicts(sandbox_config, expression, shown, crd):
    text, findings = sandbox(sandbox_config, suspended=expression)
    [found] = [f for f in findings if f.rule == "default-differs-from-crd"]
    assert f"// {shown}: Sandbox agents.x-k8s.io/v1beta1 declares default {crd} for it" in found.message
    assert found.hint.endswith(f"// {crd}")
    line = text.splitlines()[found.line - 1]
    assert line[found.column - 1 : found.end_column - 1].endswith(shown)


def test_a_fallback_equal_to_the_crd_default_is_silent(sandbox_config):
    _, findings = sandbox(sandbox_config, suspended='(.spec.operatingMode // "Running") == "Suspended"')
    assert findings == []


@pytest.mark.parametrize(
    ("replicas", "crd"),
    [
        (".spec.groupTemplate.spec.roles[]? | .replicas // 2", "1"),  # through []?
        (".spec.groupTemplate.spec.roles | to_entries[]? | .value.replicas // 0", "1"),  # through to_entries
        (".spec.groupTemplate.spec.roles[]? as $r | ($r.leaderWorkerPattern.size // 2) * ($r.replicas // 1)", "1"),
    ],
)
def test_a_count_fallback_the_rbgs_crd_contradicts(rbgs_config, replicas, crd):
    findings = lint_text(RBGS.replace("REPLICAS", f"'{replicas}'"), config=rbgs_config)
    found = [f for f in findings if f.rule == "default-differs-from-crd"]
    assert len(found) == 1 and f"declares default {crd} for it" in found[0].message, rules(findings)


def test_a_boolean_fallback_on_the_real_pytorchjob_crd():
    """runPolicy.suspend defaults to false: `// true` reads every manifest without it as suspended."""
    from conftest import REFERENCE

    config = Config(crds=[os.path.join(REFERENCE, "crds", "kubeflow.org_pytorchjobs.yaml")])
    with open(os.path.join(ROOT, "catalog", "kubeflow-org-pytorchjob-v1.yaml"), encoding="utf-8") as handle:
        text = handle.read()
    assert lint_text(text, config=config) == []
    old = "          suspended:\n          - byConditions:\n            - type: Suspended\n"
    assert old in text
    for fallback, expected in (("true", ["default-differs-from-crd"]), ("false", [])):
        matcher = f"          suspended:\n          - byExpression: {{expression: '.spec.runPolicy.suspend // {fallback}', expectedResult: 'true'}}\n          - byConditions:\n            - type: Suspended\n"
        findings = lint_text(text.replace(old, matcher), config=config)
        assert rules(findings) == expected, [f.message for f in findings]
        if expected:
            assert "declares default false for it" in findings[0].message


@pytest.mark.parametrize(
    ("expression", "what"),
    [
        ('.spec.operatingMode == "Suspend"', 'is compared with "Suspend"'),
        ('.spec | select(.operatingMode == "suspended") | true', 'is compared with "suspended"'),
        ('if .spec.operatingMode == "Paused" then true else false end', 'is compared with "Paused"'),
        ('.spec.operatingMode | test("^Suspend$")', '| test("^Suspend$") passes none of the values'),
        ('.spec.operatingMode | startswith("Pause")', '| startswith("Pause") passes none'),
    ],
)
def test_a_status_test_the_sandbox_enum_makes_impossible(sandbox_config, expression, what):
    _, findings = sandbox(sandbox_config, suspended=expression)
    [found] = findings
    assert found.rule == "enum-comparison-never-matches" and what in found.message, found.message


@pytest.mark.parametrize(
    "expression",
    [
        '.spec.operatingMode == "Suspended"',
        '.spec.operatingMode | test("^suspend"; "i")',
        '.spec.operatingMode | endswith("ded")',
        '.spec.operatingMode | ascii_downcase == "suspended"',  # computed: not judged
        '.spec.operatingMode | test("(?<x>Susp)")',  # Oniguruma syntax Python does not read: not judged
    ],
)
def test_string_tests_a_value_of_the_enum_passes_are_silent(sandbox_config, expression):
    _, findings = sandbox(sandbox_config, suspended=expression)
    assert findings == [], [(f.rule, f.message) for f in findings]


def test_a_comparison_never_true_in_a_replica_count_is_an_error(sandbox_config):
    replicas = 'if .spec.operatingMode == "suspended" then 0 else 1 end'
    _, findings = sandbox(sandbox_config, replicas=replicas)
    [found] = findings
    assert found.rule == "scale-comparison-never-true" and found.severity.name == "ERROR"
    assert (
        "replicasPath never takes the branch it selects" in found.message and found.hint == 'compare with "Suspended"'
    )
    _, findings = sandbox(sandbox_config, replicas=replicas.replace('"suspended"', '"Suspended"'))
    assert findings == []
    # `!=` with a value outside the enum is always true: a warning wherever it is
    _, findings = sandbox(sandbox_config, replicas='if .spec.operatingMode != "Paused" then 1 else 0 end')
    assert rules(findings) == ["enum-comparison-never-matches"] and "always true" in findings[0].message


def test_enum_comparisons_in_instance_ids_and_pod_paths_of_the_rbgs_crd(rbgs_config):
    """`podManagementPolicy` (enum OrderedReady, Parallel) compared in an instance id path and a
    pod template path: both are reported, each at its string."""
    ids = '.spec.groupTemplate.spec.roles[]? | select(.podManagementPolicy != "parallel") | .name'
    text = RBGS.replace("REPLICAS", "'.spec.groupTemplate.spec.roles[]? | .replicas // 1'")
    text = text.replace("instanceIdPath: .spec.groupTemplate.spec.roles[]?.name", f"instanceIdPath: '{ids}'")
    text = text.replace(
        "podTemplateSpecPath: '.spec.groupTemplate.spec.roles[]?.leaderWorkerPattern.template'",
        'podTemplateSpecPath: \'.spec.groupTemplate.spec.roles[]? | select(.podManagementPolicy != "parallel") '
        "| .leaderWorkerPattern.template'",
    )
    findings = [f for f in lint_text(text, config=rbgs_config) if f.rule == "enum-comparison-never-matches"]
    assert [f.path[-1] for f in findings] == ["instanceIdPath", "podTemplateSpecPath"]
    assert all("always true" in f.message and f.hint == 'compare with "Parallel"' for f in findings)


def test_the_items_of_a_list_that_preserves_unknown_fields_are_checked_against_their_fields(rbgs_config):
    """RoleBasedGroupSet's roles list is marked x-kubernetes-preserve-unknown-fields and declares its
    items: reads into a role are checked (they were taken as free-form, so no value was judged)."""
    text = RBGS.replace("REPLICAS", "'.spec.groupTemplate.spec.roles[]? | .replicaz // 1'")
    [found] = [f for f in lint_text(text, config=rbgs_config) if f.rule == "path-not-in-crd"]
    assert "did you mean 'replicas'?" in found.hint
