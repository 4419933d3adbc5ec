"""Edge cases of the definition rules, beyond their examples (every rule's bad and good example
runs in tests/test_rule_examples.py: a new rule needs nothing here).

Each case mutates the clean base definition (``conftest.BASE_DEFINITION``) twice: once so that
the rule fires, once into a near miss that must stay clean for that rule.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from conftest import BASE_DEFINITION, base, lint_data, lint_text

from kartalint.rules import registry

Mutation = Callable[[dict[str, Any]], None]


def sd(d):
    return d["spec"]["structureDefinition"]


def root(d):
    return sd(d)["rootComponent"]


def child(d):
    return sd(d)["childComponents"][0]


def status(d):
    return root(d)["statusDefinition"]


def selector(d):
    return child(d)["podSelector"]


def gang(d):
    return d["spec"]["optimizationInstructions"]["gangScheduling"]


def _set(getter, key, value):
    def mutate(d):
        getter(d)[key] = value

    return mutate


def _del(getter, key):
    def mutate(d):
        getter(d).pop(key, None)

    return mutate


def _both(*mutations):
    def mutate(d):
        for m in mutations:
            m(d)

    return mutate


def _add_child(**fields):
    def mutate(d):
        sd(d)["childComponents"].append(dict(fields))

    return mutate


def _noop(d):
    pass


# rule id -> (mutation that makes it fire, near-miss mutation that must not fire it)
CASES: dict[str, tuple[Mutation, Mutation]] = {
    "karta-api-version": (_set(lambda d: d, "apiVersion", "run.ai/v1"), _noop),
    "unknown-field": (_set(child, "ownerName", "trainer"), _noop),
    "missing-required-field": (_del(status, "statusMappings"), _noop),
    "wrong-type": (_set(child, "instanceIdPath", 3), _noop),
    "null-value": (_set(lambda d: status(d)["conditionsDefinition"], "messageFieldName", None), _noop),
    "invalid-value": (_set(lambda d: selector(d)["componentTypeSelector"], "keyPath", ""), _noop),
    "duplicate-list-key": (
        lambda d: gang(d)["podGroup"]["subGroups"].append({"componentName": "worker"}),
        lambda d: None,
    ),
    "duplicate-component-name": (
        _add_child(name="worker", ownerRef="trainer"),
        _add_child(name="worker2", ownerRef="trainer"),
    ),
    "empty-component-name": (_set(child, "name", ""), _set(child, "name", "w")),
    "root-incomplete-kind": (
        _set(lambda d: root(d)["kind"], "group", ""),
        _both(_set(lambda d: root(d)["kind"], "group", ""), _set(lambda d: root(d)["kind"], "kind", "Pod")),
    ),
    "root-has-owner-ref": (_set(root, "ownerRef", ""), _noop),
    "root-missing-status-definition": (_del(root, "statusDefinition"), _noop),
    "child-missing-owner-ref": (_set(child, "ownerRef", ""), _noop),
    "unknown-owner-ref": (_set(child, "ownerRef", "nobody"), _noop),
    "multiple-pod-spec-definitions": (
        lambda d: child(d)["specDefinition"].update(podSpecPath=".spec.x"),
        lambda d: child(d)["specDefinition"].update(metadataPath=".spec.roles[].template.metadata"),
    ),
    "selector-empty-match-labels": (
        _set(lambda d: selector(d)["componentTypeSelector"], "matchLabels", {}),
        _set(lambda d: selector(d)["componentTypeSelector"], "matchLabels", {"a": "b"}),
    ),
    "selector-missing-key": (
        lambda d: selector(d).update(componentTypeSelector={"value": "x"}),
        lambda d: selector(d).update(componentTypeSelector={"matchLabels": {"app": "x"}}),
    ),
    "selector-value-without-key-path": (
        lambda d: selector(d).update(componentTypeSelector={"matchLabels": {"app": "x"}, "value": "x"}),
        lambda d: selector(d).update(componentTypeSelector={"keyPath": ".a", "value": "x"}),
    ),
    "selector-invalid-match-labels": (
        _set(lambda d: selector(d)["componentTypeSelector"], "matchLabels", {"app name": "x"}),
        _set(lambda d: selector(d)["componentTypeSelector"], "matchLabels", {"example.com/app-name": "x_y.z"}),
    ),
    "instance-id-without-instance-selector": (_del(selector, "componentInstanceSelector"), _noop),
    "instance-selector-without-instance-id": (
        _both(
            _del(child, "instanceIdPath"),
            _set(lambda d: child(d)["scaleDefinition"], "replicasPath", ".spec.replicas // 1"),
        ),
        _noop,
    ),
    "ownership-cycle": (
        _both(_add_child(name="a", ownerRef="b"), _add_child(name="b", ownerRef="a")),
        _both(_add_child(name="a", ownerRef="trainer"), _add_child(name="b", ownerRef="a")),
    ),
    "unknown-gang-member": (
        lambda d: gang(d).update(podGroups=[{"name": "g", "members": [{"componentName": "nobody"}]}]),
        lambda d: gang(d).update(podGroups=[{"name": "g", "members": [{"componentName": "worker"}]}]),
    ),
    "jq-syntax-error": (_set(child, "instanceIdPath", ".spec.roles[].name |"), _noop),
    "jq-compile-error": (
        _set(child, "instanceIdPath", ".spec.roles[] | nme"),
        _set(child, "instanceIdPath", ".spec.roles[] | .nme"),
    ),
    "jq-forbidden-function": (
        _set(child, "instanceIdPath", "[paths] | .[0]"),
        _set(child, "instanceIdPath", "[leaf_paths] | .[0]"),
    ),
    "jq-recursive-descent": (
        _set(child, "instanceIdPath", "[..] | .[0]"),
        _set(child, "instanceIdPath", "[.[]] | .[0]"),
    ),
    "jq-assignment": (_set(child, "instanceIdPath", ".spec.x |= 1"), _set(child, "instanceIdPath", ".spec.x == 1")),
    "jq-not-portable": (
        _set(child, "instanceIdPath", ".spec.roles | keys_unsorted[]"),
        _set(child, "instanceIdPath", ".spec.roles | keys[]"),
    ),
    "jq-unsafe": (_set(child, "instanceIdPath", "$ENV.ROLE"), _set(child, "instanceIdPath", ".env.ROLE")),
    "jq-unbounded-recursion": (
        _set(child, "instanceIdPath", "def f: f; f"),
        _set(child, "instanceIdPath", "def f: if . > 3 then . else (. + 1 | f) end; f"),
    ),
    "not-assignable-path": (
        _set(lambda d: child(d)["specDefinition"], "podTemplateSpecPath", ".spec.roles[].template // {}"),
        _set(lambda d: child(d)["specDefinition"], "podTemplateSpecPath", ".spec.roles[] | select(.name) | .template"),
    ),
    "conditions-without-definition": (_del(status, "conditionsDefinition"), _noop),
    "phase-without-definition": (_del(status, "phaseDefinition"), _noop),
    "condition-without-expectation": (
        lambda d: status(d)["statusMappings"]["failed"][0]["byConditions"][0].pop("status"),
        lambda d: status(d)["statusMappings"]["failed"][0]["byConditions"][0].update(status=None, reason="Boom"),
    ),
    "condition-field-name-missing": (
        _del(lambda d: status(d)["conditionsDefinition"], "statusFieldName"),
        _del(lambda d: status(d)["conditionsDefinition"], "messageFieldName"),
    ),
    "empty-scale-definition": (
        _set(child, "scaleDefinition", {}),
        _set(child, "scaleDefinition", {"minReplicasPath": ".spec.roles[] | 1"}),
    ),
    "empty-fragmented-spec": (
        _set(child, "specDefinition", {"fragmentedPodSpecDefinition": {}}),
        _set(child, "specDefinition", {"fragmentedPodSpecDefinition": {"containersPath": ".spec.roles[].containers"}}),
    ),
    "metadata-without-pod-spec": (
        _set(
            child,
            "specDefinition",
            {
                "metadataPath": ".spec.roles[].template.metadata",
                "fragmentedPodSpecDefinition": {"imagePath": ".spec.roles[].image"},
            },
        ),
        _set(
            child,
            "specDefinition",
            {"metadataPath": ".spec.roles[].template.metadata", "podSpecPath": ".spec.roles[].template.spec"},
        ),
    ),
    "duplicate-additional-kind": (
        _set(
            sd,
            "additionalChildKinds",
            [{"group": "", "version": "v1", "kind": "Service"}, {"group": "", "version": "v1", "kind": "Service"}],
        ),
        _set(sd, "additionalChildKinds", [{"group": "", "version": "v1", "kind": "Service"}]),
    ),
    "additional-kind-overlaps-component": (
        _set(sd, "additionalChildKinds", [{"group": "", "version": "v1", "kind": "Pod"}]),
        _set(sd, "additionalChildKinds", [{"group": "", "version": "v1", "kind": "ConfigMap"}]),
    ),
    "child-status-definition": (_set(child, "statusDefinition", {"statusMappings": {}}), _noop),
    "child-incomplete-kind": (_set(lambda d: child(d)["kind"], "version", ""), _noop),
    "always-matching-status": (
        lambda d: status(d)["statusMappings"].update(degraded=[{}]),
        lambda d: status(d)["statusMappings"].update(degraded=[{"byPhase": "Degraded"}]),
    ),
    "scale-path-not-null-safe": (
        _set(lambda d: child(d)["scaleDefinition"], "replicasPath", ".spec.roles[] | .replicas * .parallelism"),
        _set(
            lambda d: child(d)["scaleDefinition"],
            "replicasPath",
            ".spec.roles[] | (.replicas // 1) * (.parallelism // 1)",
        ),
    ),
    "condition-status-never-matches": (
        _set(lambda d: status(d)["statusMappings"]["failed"][0]["byConditions"][0], "status", "true"),
        _set(lambda d: status(d)["statusMappings"]["failed"][0]["byConditions"][0], "status", "Unknown"),
    ),
    "expected-result-never-matches": (
        lambda d: status(d)["statusMappings"].update(
            degraded=[{"byExpression": {"expression": ".status.ready == 0", "expectedResult": "yes"}}]
        ),
        lambda d: status(d)["statusMappings"].update(
            degraded=[{"byExpression": {"expression": ".status.ready == 0", "expectedResult": "false"}}]
        ),
    ),
    "no-pod-component": (
        _both(_del(child, "specDefinition"), _del(child, "podSelector"), _del(child, "instanceIdPath")),
        _del(child, "podSelector"),
    ),
    "draft-placeholder": (
        _set(lambda d: selector(d)["componentTypeSelector"], "keyPath", '.metadata.labels["TODO/role"]'),
        _set(lambda d: selector(d)["componentTypeSelector"], "keyPath", '.metadata.labels["todo.example.com/role"]'),
    ),
    "gang-unknown-subgroup-component": (
        _set(lambda d: gang(d)["podGroup"]["subGroups"][0], "componentName", "nobody"),
        _noop,
    ),
    "gang-subgroup-without-scale": (
        _both(_del(child, "scaleDefinition"), _set(root, "scaleDefinition", {"replicasPath": "1"})),
        _noop,
    ),
    "gang-subgroup-without-selector": (_del(selector, "componentTypeSelector"), _noop),
    "gang-topology-incomplete": (
        lambda d: gang(d)["podGroup"].update(
            topology={"topologyName": "t", "preferredTopologyLevel": "", "requiredTopologyLevel": ""}
        ),
        lambda d: gang(d)["podGroup"].update(
            topology={"topologyName": "t", "preferredTopologyLevel": "rack", "requiredTopologyLevel": ""}
        ),
    ),
}

CASES.update(
    {
        # a computed key whose type the expression decides (no CRD needed)
        "object-key-not-string": (
            _set(child, "instanceIdPath", ".spec.roles[] | {(.replicas | length): .name} | .[]"),
            _set(child, "instanceIdPath", ".spec.roles[] | {(.name | tostring): .name} | .[]"),
        ),
        # the same byPhase value under Running and Failed; near miss: Running with Degraded (they hold together)
        "contradictory-matchers": (
            lambda d: status(d)["statusMappings"].update(failed=[{"byPhase": "Running"}]),
            lambda d: status(d)["statusMappings"].update(degraded=[{"byPhase": "Running"}]),
        ),
        # Failed's matcher is contained in Running's (earlier); near miss: the narrower one is the earlier
        # status's only when it excludes the other (a condition that must be False)
        "shadowed-matcher": (
            lambda d: status(d)["statusMappings"].update(
                failed=[{"byPhase": "Running", "byConditions": [{"type": "Failed", "status": "True"}]}]
            ),
            lambda d: status(d)["statusMappings"].update(
                running=[{"byPhase": "Running", "byConditions": [{"type": "Failed", "status": "False"}]}],
                failed=[{"byPhase": "Running", "byConditions": [{"type": "Failed", "status": "True"}]}],
            ),
        ),
        "empty-status-mappings": (
            _set(status, "statusMappings", {"running": [], "failed": []}),
            _set(status, "statusMappings", {"running": [], "failed": [{"byPhase": "Failed"}]}),
        ),
        # the trainer runs .spec.copies copies of its roles; near miss: the worker's count reads it
        "parent-scale-not-multiplied": (
            _set(root, "scaleDefinition", {"replicasPath": ".spec.copies // 1"}),
            _both(
                _set(root, "scaleDefinition", {"replicasPath": ".spec.copies // 1"}),
                _set(
                    lambda d: child(d)["scaleDefinition"],
                    "replicasPath",
                    "(.spec.copies // 1) as $n | .spec.roles[] | $n * (.replicas // 1)",
                ),
            ),
        ),
    }
)

# CASES hold rules of a definition alone; the others are tested where their inputs are (files:
# test_load.py; a CRD: test_crd_rules.py, test_path_analysis.py; fixtures, objects and pods:
# test_testing.py; outcomes: test_ci_outputs.py; configuration: test_user_repository.py), and
# every rule by its examples (test_rule_examples.py).
TESTED_ELSEWHERE = {r.id for r in registry.iter_rules(["yaml", "fixture", "test", "crd", "outcome", "config"])}


def test_base_definition_is_clean():
    assert lint_text(BASE_DEFINITION) == []


def test_cases_name_rules_of_a_definition():
    assert set(CASES) - set(registry.RULES) == set(), "CASES names rules that do not exist"
    assert set(CASES) & TESTED_ELSEWHERE == set(), "CASES names rules of a category tested elsewhere"


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_rule_fires(rule_id):
    data = base()
    CASES[rule_id][0](data)
    findings = lint_data(data)
    fired = [f for f in findings if f.rule == rule_id]
    assert fired, f"{rule_id} did not fire; got {[(f.rule, f.message) for f in findings]}"
    for finding in fired:
        assert finding.severity == registry.get(rule_id).severity
        assert finding.line >= 1 and finding.column >= 1
        assert finding.hint


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_rule_near_miss_is_clean(rule_id):
    data = base()
    CASES[rule_id][1](data)
    findings = lint_data(data)
    assert rule_id not in {f.rule for f in findings}, [(f.rule, f.message) for f in findings]


def test_every_problem_reported_in_one_run():
    """Upstream stops at the first failing stage; kartalint reports all problems at once."""
    data = base()
    data["spec"]["structureDefinition"]["childComponents"].append({"name": "worker", "ownerRef": "trainer"})
    root(data).pop("statusDefinition")
    child(data)["ownerRef"] = "ghost"
    child(data)["instanceIdPath"] = ".spec.roles[].name | del(.x)"
    ids = {f.rule for f in lint_data(data)}
    assert {
        "duplicate-component-name",
        "root-missing-status-definition",
        "unknown-owner-ref",
        "jq-forbidden-function",
    } <= ids


def test_unknown_field_suggests_the_right_name():
    data = base()
    child(data)["specDefinition"]["fragmentedPodDefinition"] = {"imagePath": ".spec.image"}
    finding = next(f for f in lint_data(data) if f.rule == "unknown-field")
    assert "fragmentedPodDefinition" in finding.message
    assert finding.hint == "did you mean 'fragmentedPodSpecDefinition'?"


def test_jobset_without_parallelism_default_is_flagged_at_the_operand():
    text = BASE_DEFINITION.replace(
        "replicasPath: .spec.roles[] | (.replicas // 1)",
        "replicasPath: .spec.replicatedJobs[] | .replicas * .template.spec.parallelism",
    )
    findings = [f for f in lint_text(text) if f.rule == "scale-path-not-null-safe"]
    assert [f.message.split(",")[0] for f in findings] == [
        "'*' on .spec.replicatedJobs[].replicas",
        "'*' on .spec.replicatedJobs[].template.spec.parallelism",
    ]
    line = text.splitlines()[findings[1].line - 1]
    assert line[findings[1].column - 1 : findings[1].end_column - 1] == ".template.spec.parallelism"


def test_forbidden_inside_as_body_is_flagged_with_upstream_note():
    data = base()
    child(data)["instanceIdPath"] = ". as $x | $x.spec.roles[] | .name | del(.a)"
    finding = next(f for f in lint_data(data) if f.rule == "jq-forbidden-function")
    assert "upstream's validator does not look inside" in finding.message


def test_forbidden_in_def_body_has_no_upstream_note():
    data = base()
    child(data)["instanceIdPath"] = "def f: [paths]; .spec.roles[].name"
    finding = next(f for f in lint_data(data) if f.rule == "jq-forbidden-function")
    assert finding.message == "function 'paths' may produce excessive output and is not allowed"


def test_path_without_leading_dot_gets_a_hint():
    data = base()
    child(data)["instanceIdPath"] = "spec.roles[].name"
    finding = next(f for f in lint_data(data) if f.rule == "jq-compile-error")
    assert finding.hint == "jq paths start with a dot: write .spec.roles[].name"
