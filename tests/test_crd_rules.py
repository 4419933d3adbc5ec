"""What the CRD decides about a definition (issue 30): pod templates at the wrong level, condition
field names, values written back, contradictory matchers, and path facts followed through the
constructs real definitions use (to_entries, with_entries, keys, getpath, `//`, if, reduce).

Each mistake class is made once in a correct definition of a wrapper-style CRD (a map of roles
with pod templates, a list of components wrapping whole resources, optional podSets, optional
accelerator settings): it must be found on its line with a hint that names the CRD field, and the
correct construct next to it (the near miss) must stay silent.
"""

from __future__ import annotations

import pytest
import yaml
from conftest import lint_text

from kartalint.jqlang import parse_cached
from kartalint.jqlang.paths import path_facts, path_text
from kartalint.project import Config

TEMPLATE = {
    "type": "object",
    "properties": {
        "metadata": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
        "spec": {
            "type": "object",
            "required": ["containers"],
            "properties": {
                "containers": {
                    "type": "array",
                    "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                }
            },
        },
    },
}
CONDITION = {
    "type": "object",
    "properties": {k: {"type": "string"} for k in ("type", "status", "reason", "message", "lastTransitionTime")},
}
SPEC = {
    "type": "object",
    "required": ["roles"],
    "properties": {
        "suspend": {"type": "boolean"},
        "priority": {"type": "integer"},
        "mode": {"type": "string", "enum": ["Active", "Paused"]},
        "queue": {"x-kubernetes-int-or-string": True},
        "accelerator": {"type": "object", "properties": {"name": {"type": "string"}, "count": {"type": "integer"}}},
        "partitionPolicy": {
            "type": "object",
            "required": ["partitionSize"],
            "properties": {"minPartitions": {"type": "integer"}, "partitionSize": {"type": "integer"}},
        },
        "resources": {
            "type": "object",
            "properties": {"limits": {"type": "object", "additionalProperties": {"x-kubernetes-int-or-string": True}}},
        },
        "roles": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "required": ["template"],
                "properties": {"replicas": {"type": "integer"}, "template": TEMPLATE},
            },
        },
        "components": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["template"],
                "properties": {
                    "podSets": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {"replicas": {"type": "integer"}, "path": {"type": "string"}},
                        },
                    },
                    "template": {
                        "type": "object",
                        "x-kubernetes-embedded-resource": True,
                        "x-kubernetes-preserve-unknown-fields": True,
                    },
                },
            },
        },
    },
}
STATUS = {
    "type": "object",
    "properties": {
        "phase": {"type": "string"},
        "conditions": {"type": "array", "items": CONDITION},
        "componentStatus": {
            "type": "array",
            "items": {"type": "object", "properties": {"name": {"type": "string"}, "podSets": {"type": "array"}}},
        },
    },
}
CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "wrappers.example.com"},
    "spec": {
        "group": "example.com",
        "names": {"kind": "Wrapper", "plural": "wrappers"},
        "scope": "Namespaced",
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": SPEC, "status": STATUS}}},
            }
        ],
    },
}

DEFINITION = """\
apiVersion: run.ai/v1alpha1
kind: Karta
metadata:
  name: example-com-wrapper-v1
spec:
  structureDefinition:
    rootComponent:
      name: wrapper
      kind: {group: example.com, version: v1, kind: Wrapper}
      statusDefinition:
        phaseDefinition:
          path: .status.phase
        conditionsDefinition:
          path: .status.conditions
          typeFieldName: type
          statusFieldName: status
          reasonFieldName: reason
        statusMappings:
          running:
          - byPhase: Running
          completed:
          - byPhase: Succeeded
          failed:
          - byPhase: Failed
          - byConditions: [{type: Failed, status: "True"}]
      suspendDefinition:
        suspendActions:
        - path: .spec.suspend
          value: "true"
        resumeActions:
        - path: .spec.suspend
          value: "false"
    childComponents:
    - name: role
      ownerRef: wrapper
      instanceIdPath: .spec.roles | keys[]
      specDefinition:
        podTemplateSpecPath: .spec.roles | keys[] as $k | .[$k].template
      scaleDefinition:
        replicasPath: .spec.roles | to_entries[] | (.value.replicas // 1)
      podSelector:
        componentTypeSelector:
          keyPath: .metadata.labels["example.com/role"]
        componentInstanceSelector:
          idPath: .metadata.labels["example.com/role"]
"""


@pytest.fixture(scope="module")
def config(tmp_path_factory):
    path = tmp_path_factory.mktemp("crd") / "crd.yaml"
    path.write_text(yaml.safe_dump(CRD))
    return Config(crds=[str(path)])


def lint(config, old=None, new=None):
    text = DEFINITION
    if old is not None:
        assert old in text, old
        text = text.replace(old, new)
    return text, lint_text(text, config=config)


def only(findings, rule):
    return [f for f in findings if f.rule == rule]


def line_of(text, needle):
    return text.splitlines().index(next(line for line in text.splitlines() if needle in line)) + 1


def test_the_correct_definition_is_clean(config):
    _, findings = lint(config)
    assert findings == [], [(f.rule, f.message) for f in findings]


# -- 1. pod template or pod spec at the wrong level -----------------------------------------------------

TEMPLATE_PATH = "podTemplateSpecPath: .spec.roles | keys[] as $k | .[$k].template"


@pytest.mark.parametrize(
    ("written", "what", "hint"),
    [
        (
            "podTemplateSpecPath: .spec.roles | keys[] as $k | .[$k].template.spec",
            "is a PodSpec (it has containers)",
            "write .spec.roles[].template (the PodTemplateSpec), or use podSpecPath",
        ),
        (
            "podSpecPath: .spec.roles | keys[] as $k | .[$k].template",
            "is a PodTemplateSpec (its containers are under spec)",
            "write .spec.roles[].template.spec",
        ),
        (
            "podSpecPath: .spec.roles | keys[] as $k | .[$k]",
            "is a wrapper around the PodSpec at .spec.roles[].template.spec",
            "write .spec.roles[].template.spec",
        ),
        (
            "podTemplateSpecPath: .spec.components[]?.template",
            "is a whole wrapped resource (x-kubernetes-embedded-resource",
            "inside the resource .spec.components[].template wraps",
        ),
        (
            "podTemplateSpecPath: .spec.priority",
            "is an integer, not an object",
            "point podTemplateSpecPath at an object",
        ),
    ],
)
def test_pod_template_at_the_wrong_level(config, written, what, hint):
    text, findings = lint(config, TEMPLATE_PATH, written)
    [found] = only(findings, "pod-template-wrong-level")
    assert what in found.message and "Wrapper example.com/v1" in found.message
    assert hint in found.hint
    assert found.line == line_of(text, written.split(":")[0] + ":")


def test_pod_template_in_a_block_scalar_is_reported_on_the_jq_text(config):
    written = "podTemplateSpecPath: >-\n          .spec.roles | keys[] as $k\n          | .[$k].template.spec"
    text, findings = lint(config, TEMPLATE_PATH, written)
    [found] = only(findings, "pod-template-wrong-level")
    assert text.splitlines()[found.line - 1].strip() == ".spec.roles | keys[] as $k"


def test_pod_template_inside_a_free_form_wrapped_resource_gives_no_finding(config):
    # the near miss: the path into the wrapped resource, which the CRD leaves free-form
    _, findings = lint(config, TEMPLATE_PATH, "podTemplateSpecPath: .spec.components[]?.template.spec.template")
    assert not only(findings, "pod-template-wrong-level")


def test_pod_template_through_an_if_is_checked_in_every_branch(config):
    written = "podTemplateSpecPath: 'if .spec.mode then .spec.roles.a.template else .spec.roles.a.template.spec end'"
    _, findings = lint(config, TEMPLATE_PATH, written)
    assert "is a PodSpec" in only(findings, "pod-template-wrong-level")[0].message


# -- 2. condition field names ----------------------------------------------------------------------------


def test_condition_field_names_the_crd_lacks(config):
    text, findings = lint(config, "typeFieldName: type", "typeFieldName: condition")
    [found] = only(findings, "condition-field-not-in-crd")
    assert found.line == line_of(text, "typeFieldName: condition")
    assert "have no field 'condition'" in found.message and ".status.conditions[]" in found.message
    assert "lastTransitionTime, message, reason, status, type" in found.hint
    _, findings = lint(config, "reasonFieldName: reason", "reasonFieldName: reasons")
    assert only(findings, "condition-field-not-in-crd")[0].hint.startswith("did you mean 'reason'?")


def test_condition_field_names_of_free_form_conditions_are_not_judged(config, tmp_path):
    crd = yaml.safe_load(yaml.safe_dump(CRD))
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["status"]["properties"]["conditions"] = {
        "type": "array",
        "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
    }
    path = tmp_path / "crd.yaml"
    path.write_text(yaml.safe_dump(crd))
    _, findings = lint(Config(crds=[str(path)]), "typeFieldName: type", "typeFieldName: condition")
    assert not only(findings, "condition-field-not-in-crd")


# -- 3. contradictory, shadowed, empty (no CRD needed) ----------------------------------------------------


def test_contradictory_and_shadowed_matchers(config):
    text, findings = lint(config, "- byPhase: Succeeded", "- byPhase: Running")
    [found] = only(findings, "contradictory-matchers")
    assert found.line == line_of(text, "completed:") + 1 and "running[0] (line" in found.message
    text, findings = lint(
        config,
        '- byConditions: [{type: Failed, status: "True"}]',
        "- {byPhase: Running, byConditions: [{type: Failed}]}",
    )
    [found] = only(findings, "shadowed-matcher")
    assert "Running takes precedence" in found.message
    # narrower in the earlier status: every object it matches is Failed too
    text, findings = lint(
        config, "- byPhase: Running", '- {byPhase: Failed, byConditions: [{type: Ready, status: "True"}]}'
    )
    [found] = only(findings, "contradictory-matchers")
    assert found.line == line_of(text, "{byPhase: Failed, byConditions")


def test_matchers_that_only_look_alike_are_not_contradictory(config):
    # the same condition type with another status, another reason, or an expression of its own
    for old, new in [
        ("- byPhase: Succeeded", '- byConditions: [{type: Failed, status: "False"}]'),
        (
            "- byPhase: Succeeded",
            '- byConditions: [{type: Complete, status: "True"}]',
        ),
        (
            "- byPhase: Running",
            '- {byPhase: Running, byExpression: {expression: ".spec.suspend | not", expectedResult: "true"}}',
        ),
    ]:
        _, findings = lint(config, old, new)
        assert not only(findings, "contradictory-matchers") and not only(findings, "shadowed-matcher"), new


def test_empty_status_mappings_fail_strict_and_a_draft_without_todos_no_longer_passes(config, tmp_path):
    text = (
        DEFINITION.split("        statusMappings:")[0]
        + "        statusMappings: {}\n"
        + DEFINITION.split('          - byConditions: [{type: Failed, status: "True"}]\n')[1]
    )
    findings = lint_text(text, config=config)
    assert [f.rule for f in findings] == ["empty-status-mappings"]
    path = tmp_path / "def.yaml"
    path.write_text(text)
    from kartalint.cli import main

    assert main(["lint", "--strict", str(path)]) == 1


# -- 4. values written back -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "value", "what", "hint"),
    [
        (".spec.suspend", "'\"true\"'", "which is a string, but the field is a boolean", 'write value: "true"'),
        (".spec.priority", "'\"3\"'", "which is a string, but the field is an integer", 'write value: "3"'),
        (".spec.mode", "'\"paused\"'", "not one of the field's values", "write value: '\"Paused\"'"),
        (".spec.mode", "'true'", "which is a boolean, but the field is a string", "write value: '\"True\"'"),
    ],
)
def test_action_value_the_crd_refuses(config, path, value, what, hint):
    text, findings = lint(
        config, '- path: .spec.suspend\n          value: "true"', f"- path: {path}\n          value: {value}"
    )
    [found] = only(findings, "action-value-refused")
    assert what in found.message and path in found.message and found.hint.startswith(hint)
    assert found.line == line_of(text, f"value: {value}")


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (".spec.suspend", "'true'"),
        (".spec.priority", "'3'"),
        (".spec.mode", "'\"Paused\"'"),
        (".spec.queue", "'2'"),
        (".spec.queue", "'\"a\"'"),
        (".spec.suspend", "'null'"),
        (".spec.accelerator", "'{\"count\": 1}'"),
    ],
)
def test_action_value_the_crd_accepts(config, path, value):
    _, findings = lint(
        config, '- path: .spec.suspend\n          value: "true"', f"- path: {path}\n          value: {value}"
    )
    assert not only(findings, "action-value-refused")


# -- 5. reads followed through the constructs real definitions use --------------------------------------

REPLICAS = "replicasPath: .spec.roles | to_entries[] | (.value.replicas // 1)"


@pytest.mark.parametrize(
    ("expression", "typo"),
    [
        (".spec.roles | to_entries[] | (.value.replicaz // 1)", ".value.replicaz"),
        (".spec.roles | to_entries | map(.value.replicaz // 1) | .[]", ".value.replicaz"),
        (".spec.roles | with_entries(select(.value.replicaz > 0)) | .[] | 1", ".value.replicaz"),
        (".spec.roles | keys[] as $k | (.[$k].replicaz // 1)", ".[$k].replicaz"),
        ('getpath(["spec", "priorty"]) // 1', 'getpath(["spec", "priorty"])'),
        ('getpath("spec.priorty" | split(".")) // 1', 'getpath("spec.priorty" | split("."))'),
        ("(.spec.components // []) | map(.podSetz) | length", ".podSetz"),
        ("if .status.phase then .status.componentStatus else .spec.components end | .[]? | .nmae | length", ".nmae"),
        ("reduce (.spec.components[]?.podSets // [])[] as $p (0; . + ($p.replicaz // 1))", "$p.replicaz"),
    ],
)
def test_reads_after_constructs_are_checked_against_the_crd(config, expression, typo):
    text, findings = lint(config, REPLICAS, f"replicasPath: '{expression}'")
    found = only(findings, "path-not-in-crd")
    assert found, [(f.rule, f.message) for f in findings]
    assert not only(findings, "path-not-followed")
    line = text.splitlines()[found[0].line - 1]
    assert line[found[0].column - 1 : found[0].end_column - 1] == typo


@pytest.mark.parametrize(
    ("expression", "before", "absent"),
    [
        ("(.spec.components // []) | to_entries[] | (.value.podSets)[] | (.replicas // 1)", "podSets)", "[].podSets"),
        (".status.componentStatus[] | 1", "componentStatus", ".status"),
        ("reduce .spec.components[]?.podSets[] as $p (0; . + 1)", "podSets", "[].podSets"),
    ],
)
def test_iterating_an_optional_list_reached_through_a_construct(config, expression, before, absent):
    text, findings = lint(config, REPLICAS, f"replicasPath: '{expression}'")
    [found] = only(findings, "crd-optional-iteration")
    assert f"{absent} is optional in Wrapper" in found.message
    line = text.splitlines()[found.line - 1]
    assert line[found.column - 1 : found.end_column - 1] == "[]" and line[: found.column - 1].endswith(before)


@pytest.mark.parametrize(
    "expression",
    [
        "(.spec.components // []) | to_entries[] | (.value.podSets // [])[] | 1",
        "if .status.componentStatus then .status.componentStatus else [] end | .[] | 1",
        ".status.componentStatus[]? | 1",
        "(.status | select(.componentStatus != null) | .componentStatus[]) | 1",
    ],
)
def test_protected_iterations_stay_silent(config, expression):
    _, findings = lint(config, REPLICAS, f"replicasPath: '{expression}'")
    assert not only(findings, "crd-optional-iteration"), [f.message for f in findings]


@pytest.mark.parametrize(
    ("expression", "call", "absent"),
    [
        (".status.componentStatus | to_entries[] | 1", "to_entries", ".status"),
        (".status.componentStatus | keys[] | 1", "keys", ".status"),
        (".status.componentStatus | map(.name) | length", "map", ".status"),
        (".spec.components | with_entries(.) | length", "with_entries", ".spec.components"),
        (".spec.components[]? | .podSets | add | length", "add", ".spec.components[].podSets"),
        (".status.componentStatus as $c | $c | keys | length", "keys", ".status"),
        (".spec.components | any(.podSets != null) | if . then 1 else 0 end", "any", ".spec.components"),
    ],
)
def test_builtins_that_fail_on_null_applied_to_an_optional_field(config, expression, call, absent):
    """Issue 43 item 4: `.status.componentStatus | to_entries[]` fails on every object without it."""
    text, findings = lint(config, REPLICAS, f"replicasPath: '{expression}'")
    [found] = only(findings, "crd-optional-iteration")
    assert f"| {call}: {absent} is optional in Wrapper" in found.message and "// " in found.hint
    line = text.splitlines()[found.line - 1]
    assert line[found.column - 1 : found.end_column - 1].startswith(call)


@pytest.mark.parametrize(
    "expression",
    [
        # `length` gives 0 on null; a default, `?`, `try`, a test and a built value guard the others
        ".status.componentStatus | length",
        "(.status.componentStatus // []) | to_entries[] | 1",
        ".status.componentStatus // [] | map(.name) | length",
        ".status.componentStatus | to_entries? | length",
        ".status.componentStatus | to_entries[]? | 1",
        "try (.status.componentStatus | keys | length) catch 0",
        "if .status.componentStatus then (.status.componentStatus | map(.name) | length) else 1 end",
        ".status | select(.componentStatus != null) | .componentStatus | keys | length",
        "[.status.componentStatus[]?] | map(.name) | length",
        ".spec.roles | to_entries | map(.value.replicas // 1) | add",
        ".status.componentStatus | arrays | map(.name) | length",  # a type filter drops null
        "(.status.componentStatus // []) as $c | $c | map(.name) | length",
    ],
)
def test_guarded_builtins_on_optional_fields_stay_silent(config, expression):
    _, findings = lint(config, REPLICAS, f"replicasPath: '{expression}'")
    assert not only(findings, "crd-optional-iteration"), [f.message for f in findings]


def test_arithmetic_on_the_sum_of_an_optional_field(config):
    _, findings = lint(config, REPLICAS, "replicasPath: '(.spec.roles | map(.replicas) | add) * 2'")
    [found] = only(findings, "crd-optional-arithmetic")
    assert found.message.startswith("'*' on the sum of .spec.roles[].replicas, optional in Wrapper")
    assert "add gives null when no element has it" in found.message
    for safe in [
        "(.spec.roles | map(.replicas // 1) | add) * 2",
        "([.spec.roles[] | .replicas // 0] | add) - 1",
        "(.spec.roles | length) * 2",
        "(.spec.roles | map(.replicas) | add // 1) * 2",
    ]:
        _, findings = lint(config, REPLICAS, f"replicasPath: '{safe}'")
        assert not only(findings, "crd-optional-arithmetic"), safe


# -- 6. object keys and arithmetic on optional fields ---------------------------------------------------


def test_object_key_from_an_optional_field(config):
    expression = "{(.spec.accelerator.name): (.spec.accelerator.count // 0)} | length"
    text, findings = lint(config, REPLICAS, f"replicasPath: '{expression}'")
    [found] = only(findings, "crd-optional-object-key")
    assert ".spec.accelerator is optional in Wrapper" in found.message
    line = text.splitlines()[found.line - 1]
    assert line[found.column - 1 : found.end_column - 1] == ".spec.accelerator.name"
    # near misses: a default, a test, a required string
    for safe in [
        '{(.spec.accelerator.name // "none"): 1} | length',
        ".spec.accelerator | select(.name != null) | {(.name): 1} | length",
        ".spec.roles | keys[] as $k | {($k): 1} | length",
    ]:
        _, findings = lint(config, REPLICAS, f"replicasPath: '{safe}'")
        assert not only(findings, "crd-optional-object-key"), safe


def test_object_key_of_a_type_that_is_never_a_string(config):
    _, findings = lint(config, REPLICAS, "replicasPath: '{(.spec.priority // 0): 1} | length'")
    [found] = only(findings, "object-key-not-string")
    assert ".spec.priority is an integer in Wrapper" in found.message and "tostring" in found.hint


def test_arithmetic_on_optional_fields_in_any_expression(config):
    expression = '.spec.resources.limits["nvidia.com/gpu"] * 2 > 4'
    _, findings = lint(
        config,
        "- byPhase: Succeeded",
        f"- byExpression: {{expression: '{expression}', expectedResult: \"true\"}}",
    )
    [found] = only(findings, "crd-optional-arithmetic")
    assert found.message.startswith("'*' on .spec.resources.limits[\"nvidia.com/gpu\"], optional in Wrapper")
    assert found.hint == 'write (.spec.resources.limits["nvidia.com/gpu"] // 0)'


@pytest.mark.parametrize(
    "expression",
    [
        # a test on `(x // d) > c` guards x in the then branch, as `x != null and x > c` does
        "if (.spec.partitionPolicy.minPartitions // 0) > 0 then .spec.partitionPolicy.minPartitions * "
        ".spec.partitionPolicy.partitionSize else 1 end",
        "if .spec.partitionPolicy.minPartitions > 0 then .spec.partitionPolicy.minPartitions * 2 else 1 end",
        "if .spec.partitionPolicy.minPartitions != null and .spec.partitionPolicy.minPartitions > 0 then "
        ".spec.partitionPolicy.minPartitions * .spec.partitionPolicy.partitionSize else 1 end",
    ],
)
def test_guarded_arithmetic_is_silent(config, expression):
    _, findings = lint(config, REPLICAS, f"replicasPath: '{expression}'")
    assert not only(findings, "crd-optional-arithmetic") and not only(findings, "scale-path-not-null-safe")


def test_a_default_that_passes_the_test_does_not_guard(config):
    expression = (
        "if (.spec.partitionPolicy.minPartitions // 1) > 0 then .spec.partitionPolicy.minPartitions * 2 else 1 end"
    )
    _, findings = lint(config, REPLICAS, f"replicasPath: '{expression}'")
    assert only(findings, "crd-optional-arithmetic")


# -- messages ----------------------------------------------------------------------------------------------


def test_not_followed_names_the_construct_as_written(config):
    _, findings = lint(config, REPLICAS, "replicasPath: '(.spec.roles | length) as $n | $n | .x'")
    assert "after $n " in only(findings, "path-not-followed")[0].message
    _, findings = lint(config, REPLICAS, "replicasPath: '.spec.roles | map_values({n: 1}) | .[].count'")
    assert "after map_values " in only(findings, "path-not-followed")[0].message


def test_paths_in_messages_are_valid_jq():
    assert path_text(("spec", "resources", "limits", "nvidia.com/gpu")) == '.spec.resources.limits["nvidia.com/gpu"]'
    assert path_text(("spec", "roles", "[?]", "replicas")) == ".spec.roles[].replicas"
    assert path_text(("[]", "x")) == ".[].x" and path_text(("a-b",)) == '.["a-b"]' and path_text(()) == "."
    import jq

    for path in [("spec", "resources", "limits", "nvidia.com/gpu"), ("[]", "x"), ("a-b", "[0]")]:
        jq.compile(path_text(path))


def test_path_facts_through_constructs():
    def reads(expression):
        tree, _ = parse_cached(expression)
        return [r.text() for r in path_facts(tree).reads]

    assert ".spec.roles[].template" in reads(".spec.roles | to_entries[] | .value.template")
    assert ".spec.roles[].x" in reads(".spec.roles | with_entries(select(.value.x)) | .[]")
    assert ".spec.a.b" in reads('getpath(["spec", "a", "b"])')
    assert {".status.x.y", ".spec.x.y"} <= set(reads("(if .a then .status.x else .spec.x end).y"))
    assert {".status.x.y", ".spec.x.y"} <= set(reads("(.status.x // .spec.x) | .y"))
    assert ".status.conditions[].type" in reads('any(.status.conditions[]?; .type == "Ready")')
    assert reads(".spec.roles | to_entries[] | .key") == [".spec.roles", ".spec.roles[]"]


def test_a_pod_template_one_level_too_high_in_the_real_jobset_crd(tmp_path):
    import os

    from conftest import REFERENCE, ROOT

    with open(os.path.join(ROOT, "catalog", "jobset-x-k8s-io-jobset-v1alpha2.yaml"), encoding="utf-8") as handle:
        text = handle.read()
    good = ".spec.replicatedJobs[]?.template.spec.template"
    assert good in text
    config = Config(crds=[os.path.join(REFERENCE, "crds", "jobset.x-k8s.io_jobsets.yaml")])
    assert not only(lint_text(text, config=config), "pod-template-wrong-level")
    [found] = only(
        lint_text(text.replace(good, ".spec.replicatedJobs[]?.template"), config=config), "pod-template-wrong-level"
    )
    assert "a wrapper around the PodTemplateSpec at .spec.replicatedJobs[].template.spec.template" in found.message
    assert found.hint == "write .spec.replicatedJobs[].template.spec.template"


def test_a_template_whose_spec_the_operator_completes_is_not_judged(config, tmp_path):
    # a template with a spec that declares some pod fields but no containers (the operator adds them)
    crd = yaml.safe_load(yaml.safe_dump(CRD))
    role = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["roles"]
    role["additionalProperties"]["properties"]["template"] = {
        "type": "object",
        "properties": {"spec": {"type": "object", "properties": {"nodeSelector": {"type": "object"}}}},
    }
    path = tmp_path / "crd.yaml"
    path.write_text(yaml.safe_dump(crd))
    for written in (TEMPLATE_PATH, "podSpecPath: .spec.roles | keys[] as $k | .[$k].template"):
        _, findings = lint(Config(crds=[str(path)]), TEMPLATE_PATH, written)
        assert not only(findings, "pod-template-wrong-level"), written
