"""Mutation testing (kartalint/mutation/): every operator makes valid definitions, the run tells
killed, surviving and equivalent mutants apart, the same inputs give the same mutants, probes."""

from __future__ import annotations

import copy
import json
import os

import pytest
import yaml
from conftest import ROOT, lint_data

from kartalint.evaluation import Evaluator
from kartalint.load.definitions import DefinitionFile, DefinitionIndex
from kartalint.model import Severity
from kartalint.mutation.mutant import Perturbation, Subject, get_at
from kartalint.mutation.operators import FAMILIES, OPERATORS, generate
from kartalint.mutation.probes import perturbed, probes
from kartalint.mutation.run import MutationOptions, run_mutants, select
from kartalint.project import Config
from kartalint.rules import registry
from kartalint.testing.cases import Case, discover
from kartalint.testing.run import LintCache, run_cases

# A small definition with every construct an operator changes: defaults, `?` on iterations, a
# product of factors, replicas and a minimum, a phase, conditions, an expression, instances from a
# list with a sibling list, a pod template, a fragmented spec, selectors, a child owner, a gang.
RICH = """\
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: example-com-trainer-v1}
spec:
  structureDefinition:
    rootComponent:
      name: trainer
      kind: {group: example.com, version: v1, kind: Trainer}
      statusDefinition:
        phaseDefinition: {path: .status.phase}
        conditionsDefinition: {path: '.status.conditions // []', typeFieldName: type, statusFieldName: status}
        statusMappings:
          running: [{byPhase: Running}]
          failed: [{byConditions: [{type: Failed, status: "True"}, {type: Ready, status: "False"}]}]
          completed: [{byExpression: {expression: '(.status.succeeded // 0) > 0', expectedResult: "true"}}]
    childComponents:
    - name: worker
      kind: {group: "", version: v1, kind: Pod}
      ownerRef: trainer
      instanceIdPath: .spec.roles[]?.name
      specDefinition: {podTemplateSpecPath: '.spec.roles[]?.template'}
      scaleDefinition:
        replicasPath: .spec.roles[]? | (.replicas // 1) * (.parallelism // 1)
        minReplicasPath: .spec.roles[]? | .minReplicas
      podSelector:
        componentTypeSelector: {keyPath: '.metadata.labels["example.com/role"]', matchLabels: {app: trainer}}
        componentInstanceSelector: {idPath: '.metadata.labels["example.com/role"]'}
    - name: launcher
      kind: {group: "", version: v1, kind: Pod}
      ownerRef: trainer
      specDefinition:
        fragmentedPodSpecDefinition:
          containersPath: .spec.launcher.containers
          resourcesPath: '.spec.launcher.resources | {requests: .requests}'
      scaleDefinition: {replicasPath: "1"}
      podSelector:
        componentTypeSelector: {keyPath: '.metadata.labels["example.com/kind"]', value: launcher}
  optimizationInstructions:
    gangScheduling:
      podGroup:
        name: trainer
        subGroups: [{componentName: worker}, {componentName: launcher}]
"""
RICH_OBJECT = {
    "apiVersion": "example.com/v1",
    "kind": "Trainer",
    "metadata": {"name": "t", "namespace": "default", "uid": "u-1"},
    "spec": {
        "roles": [
            {"name": "leader", "replicas": 1, "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}},
            {"name": "worker", "replicas": 4, "parallelism": 2, "minReplicas": 2, "template": {"spec": {}}},
        ],
        "volumes": [{"name": "data"}],
        "launcher": {"containers": [{"name": "l", "image": "i"}], "resources": {"requests": {"cpu": "1"}}},
    },
    "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]},
}


def rich() -> dict:
    return yaml.safe_load(RICH)


def rich_crd():
    """The Trainer CRD version RICH reads, its roles' minReplicas documented as unset when 0 (what
    `zero-means-unset` looks for in the project's CRDs)."""
    from kartalint.load.crds import crd_versions

    role = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "replicas": {"type": "integer", "default": 1},
            "parallelism": {"type": "integer"},
            "minReplicas": {"type": "integer", "description": "The autoscaler's minimum; 0 leaves it unset."},
            "template": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
        },
    }
    schema = {
        "type": "object",
        "properties": {"spec": {"type": "object", "properties": {"roles": {"type": "array", "items": role}}}},
    }
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "trainers.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": "Trainer", "plural": "trainers"},
            "scope": "Namespaced",
            "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": schema}}],
        },
    }
    (version,) = crd_versions(crd)
    return version


@pytest.mark.parametrize("operator", OPERATORS, ids=[op.name for op in OPERATORS])
def test_every_operator_is_a_documented_unit_that_makes_valid_definitions(operator):
    assert operator.family in FAMILIES and operator.doc, "each operator says what it changes"
    original = rich()
    mutants = list(operator.generate(Subject(original, [RICH_OBJECT], rich_crd())))
    assert mutants, f"{operator.name} finds something to change in the rich definition"
    assert original == rich(), "operators change copies only"
    with Evaluator() as evaluator:
        for mutant in mutants:
            assert mutant.operator == operator.name and mutant.family == operator.family
            assert mutant.definition != original and mutant.before != mutant.after
            assert not evaluator.prepare(mutant.definition).invalid, mutant.id
            errors = [f for f in lint_data(mutant.definition) if f.severity == Severity.ERROR]
            assert not [f for f in errors if registry.get(f.rule).category in ("schema", "parity", "jq")], (
                mutant.id,
                [(f.rule, f.message) for f in errors],
            )
            assert get_at(original, mutant.path[:1]) is not None
            if mutant.span is not None:  # the characters changed are those of the field written
                expression = get_at(original, mutant.path)
                assert isinstance(expression, str) and 0 <= mutant.span[0] < mutant.span[1] <= len(expression)


def test_operators_change_what_their_docs_say():
    found = {m.id for m in generate(Subject(rich(), [RICH_OBJECT]))}
    for expected in (
        "worker.scaleDefinition.replicasPath: drop-default: .replicas // 1 -> .replicas",
        "worker.scaleDefinition.replicasPath: change-default: .replicas // 1 -> .replicas // 2",
        "worker.instanceIdPath: drop-optional: .spec.roles[]? -> .spec.roles[]",
        "worker.scaleDefinition.replicasPath: drop-factor: (.replicas // 1) * (.parallelism // 1) -> (.replicas // 1)",
        "worker.scaleDefinition.replicasPath: swap-replicas-min: replicasPath: .spec.roles[]? | (.replicas // 1) * "
        "(.parallelism // 1) -> replicasPath: .spec.roles[]? | .minReplicas",
        "trainer.statusDefinition.statusMappings.running[0].byPhase: change-phase: byPhase: Running -> byPhase: running",
        "trainer.statusDefinition.statusMappings.failed[0].byConditions[0].status: flip-condition-status: "
        "failed: Failed=True and Ready=False -> failed: Failed=False and Ready=False",
        "trainer.statusDefinition.statusMappings.failed[0].byConditions[1]: drop-matcher: "
        "failed: Failed=True and Ready=False -> failed: Failed=True",
        "worker.instanceIdPath: sibling-instance-list: .spec.roles -> .spec.volumes",
        "worker.specDefinition.podTemplateSpecPath: neighbour-level: .spec.roles[]?.template -> .spec.roles[]?",
        "worker.ownerRef: owner-ref: ownerRef: trainer -> ownerRef: launcher",
        "launcher.specDefinition.fragmentedPodSpecDefinition.resourcesPath: requests-limits: .requests -> .limits",
        "launcher.specDefinition.fragmentedPodSpecDefinition.containersPath: drop-container-list: "
        "containersPath: .spec.launcher.containers -> containersPath: (dropped)",
        'worker.podSelector.componentTypeSelector.keyPath: selector-label: .metadata.labels["example.com/role"] -> '
        '.metadata.labels["role"]',
        "launcher.podSelector.componentTypeSelector.value: selector-label: value: launcher -> value: launcher-x",
        "optimizationInstructions.gangScheduling.podGroup.subGroups[1]: drop-gang-member: "
        "componentName: launcher -> (dropped)",
        "optimizationInstructions.gangScheduling.podGroup.subGroups[0].componentName: min-available-source: "
        "componentName: worker -> componentName: trainer",
    ):
        assert expected in found, expected


def test_the_same_definition_and_objects_give_the_same_mutants_in_the_same_order():
    first = [m.id for m in generate(Subject(rich(), [RICH_OBJECT]))]
    again = [m.id for m in generate(Subject(copy.deepcopy(rich()), [copy.deepcopy(RICH_OBJECT)]))]
    assert first == again and len(first) == len(set(first)), "ids are unique and stable"
    mutants = generate(Subject(rich(), [RICH_OBJECT]))
    assert [m.id for m in select(mutants, 10, None)] == [m.id for m in select(mutants, 10, None)]
    assert [m.id for m in select(mutants, 10, 7)] == [m.id for m in select(mutants, 10, 7)]
    assert len(select(mutants, 10, 7)) == 10 and select(mutants, 10, 7) != select(mutants, 10, 8)
    assert select(mutants, 10_000, None) == mutants


def test_perturbations_remove_and_set_paths_through_lists():
    obj = {"spec": {"roles": [{"name": "a", "replicas": 2}, {"name": "b"}]}}
    removed = perturbed(obj, Perturbation((("remove", ("spec", "roles", "[]", "replicas"), None),), "without"))
    assert removed == {"spec": {"roles": [{"name": "a"}, {"name": "b"}]}} and obj["spec"]["roles"][0]["replicas"] == 2
    made = perturbed(obj, Perturbation((("set", ("status", "conditions"), [{"type": "Failed"}]),), "with"))
    assert made is not None and made["status"] == {"conditions": [{"type": "Failed"}]}
    assert perturbed(obj, Perturbation((("remove", ("spec", "missing"), None),), "without")) is None
    assert perturbed(obj, Perturbation((("set", ("spec", "roles", "[0]", "name"), "a"),), "same")) is None
    found = probes([Perturbation((("remove", ("spec", "roles"), None),), "without the roles")], [obj, obj, {}])
    assert [p for p, _, _ in found] == [{"spec": {}}], "no duplicates, no probe where nothing changes"


# -- a weak suite and a strong suite on the same definition ---------------------------------------------

DEFINITION = """\
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: example-com-trainer-v1}
spec:
  structureDefinition:
    rootComponent:
      name: trainer
      kind: {group: example.com, version: v1, kind: Trainer}
      specDefinition: {podTemplateSpecPath: .spec.template}
      scaleDefinition: {replicasPath: .spec.replicas // 1}
      statusDefinition:
        conditionsDefinition: {path: '.status.conditions // []', typeFieldName: type, statusFieldName: status}
        statusMappings:
          running: [{byConditions: [{type: Running, status: "True"}]}]
          failed: [{byConditions: [{type: Failed, status: "True"}]}]
"""


def trainer(replicas=2, condition="Running", cpu="500m"):
    spec = {
        "template": {"spec": {"containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": cpu}}}]}}
    }
    if replicas is not None:
        spec["replicas"] = replicas
    return {
        "apiVersion": "example.com/v1",
        "kind": "Trainer",
        "metadata": {"name": "t"},
        "spec": spec,
        "status": {"conditions": [{"type": condition, "status": "True"}]},
    }


def mutation_of(tmp_path, cases_expect, definition_text=DEFINITION, options=None):
    (tmp_path / "def.yaml").write_text(definition_text)
    definition = DefinitionFile(str(tmp_path / "def.yaml"), yaml.safe_load(definition_text))
    cases = [
        Case(f"case-{i}", "case.yaml", "fixture", i + 1, f"case {i}", definition, obj, None, expect)
        for i, (obj, expect) in enumerate(cases_expect)
    ]
    with Evaluator() as evaluator:
        report = run_cases(cases, evaluator, LintCache(Config()))
        assert report.ok, [r.diffs for r in report.results]
        return run_mutants(report, evaluator, [definition], options or MutationOptions()).definitions[0]


WEAK = [(trainer(), {"statuses": ["Running"]})]
STRONG = [
    (trainer(), {"statuses": ["Running"], "components": {"trainer": {"replicas": 2, "cpuMillis": 1000}}}),
    (trainer(condition="Failed"), {"statuses": ["Failed"]}),
    (trainer(replicas=None), {"components": {"trainer": {"replicas": 1}}}),
]


def test_a_weak_suite_scores_low_and_names_the_surviving_lines(tmp_path):
    result = mutation_of(tmp_path, WEAK)
    assert result.score is not None and result.score < 0.5
    survivors = {r.mutant.id: r for r in result.survivors}
    flipped = survivors["trainer.statusDefinition.statusMappings.failed[0].byConditions[0].status: flip-condition-status: "
        "failed: Failed=True -> failed: Failed=False"]  # fmt: skip
    assert 'with .status.conditions = [{"status": "True", "type": "Failed"}]' in flipped.detail
    assert flipped.hint.startswith("add a fixture from a real object with .status.conditions")
    doubled = survivors[
        "trainer.scaleDefinition.replicasPath: scale-arithmetic: .spec.replicas // 1 -> (.spec.replicas // 1) * 2"
    ]
    assert doubled.detail == "on case 0, trainer.replicas is 4 instead of 2, but its expect does not pin it"
    assert doubled.hint == "pin it in case.yaml: expect.components.trainer.replicas: 2"
    default = survivors[
        "trainer.scaleDefinition.replicasPath: change-default: .spec.replicas // 1 -> .spec.replicas // 2"
    ]
    assert "without .spec.replicas" in default.detail and "is 2 instead of 1" in default.detail
    lines = {r.location[0] for r in result.survivors}
    assert lines == {9, 10, 15}, "survivors are placed on the lines of what they change (running, line 14, is pinned)"


def test_a_strong_suite_kills_every_mutant(tmp_path):
    result = mutation_of(tmp_path, STRONG)
    assert result.score == 1.0 and not result.survivors
    assert result.counts["killed"] >= 10
    killed = next(r for r in result.results if r.mutant.operator == "swap-status-matchers")
    assert killed.killed_by == "case-0" and killed.detail == 'statuses: expected ["Running"], got ["Failed"]'


def test_a_mutant_identical_on_every_object_is_equivalent_not_a_survivor(tmp_path):
    result = mutation_of(tmp_path, STRONG)
    equivalent = {r.mutant.id: r for r in result.results if r.outcome == "equivalent"}
    # null conditions give no condition, as [] does; a null replicas is "not set", which kli shows as 1
    assert (
        "trainer.statusDefinition.conditionsDefinition.path: drop-default: .status.conditions // [] -> .status.conditions"
        in equivalent
    )
    assert "trainer.scaleDefinition.replicasPath: drop-default: .spec.replicas // 1 -> .spec.replicas" in equivalent
    assert all(r.detail == "the same view on every case's object and every probe object" for r in equivalent.values())
    assert result.score == 1.0, "equivalent mutants do not count against the score"


def test_listed_equivalents_leave_the_score_and_stale_entries_are_named(tmp_path):
    change = "trainer.scaleDefinition.replicasPath: change-default: .spec.replicas // 1 -> .spec.replicas // 2"
    options = MutationOptions(
        equivalent={
            ("example-com-trainer-v1", change): "every Trainer sets spec.replicas (a webhook defaults it)",
            ("example-com-trainer-v1", "no such mutant"): "stale",
        }
    )
    result = mutation_of(tmp_path, WEAK, options=options)
    listed = next(r for r in result.results if r.mutant.id == change)
    assert listed.outcome == "equivalent" and listed.detail.endswith("(a webhook defaults it)")
    assert result.stale == ["no such mutant"]


def test_a_mutant_that_does_not_compile_or_that_upstream_refuses_is_invalid(monkeypatch, tmp_path):
    import kartalint.mutation.run as mutation_run

    def broken(subject):
        yield subject.mutant("x", "defaults", ("spec",), "a", "b", dict(subject.definition, kind="Karta"))
        bad = copy.deepcopy(subject.definition)
        bad["spec"]["structureDefinition"]["rootComponent"]["scaleDefinition"]["replicasPath"] = "nosuchfunction(1)"
        yield subject.mutant("y", "defaults", ("spec",), "c", "d", bad)
        refused = copy.deepcopy(subject.definition)
        refused["spec"]["structureDefinition"]["rootComponent"]["ownerRef"] = "x"
        yield subject.mutant("z", "structure", ("spec",), "e", "f", refused)

    monkeypatch.setattr(mutation_run, "generate", lambda subject: list(broken(subject)))
    result = mutation_of(tmp_path, STRONG)
    outcomes = {r.mutant.operator: (r.outcome, r.detail) for r in result.results}
    assert outcomes["y"][0] == "invalid" and "nosuchfunction" in outcomes["y"][1]
    assert outcomes["z"] == ("invalid", "upstream refuses it: root component cannot have owner ref")
    assert outcomes["x"][0] == "equivalent"


def test_selector_mutants_need_pods_and_are_judged_with_them():
    catalog_argo = os.path.join(ROOT, "fixtures", "argoproj-io-workflow-v1alpha1")
    index = DefinitionIndex.from_paths([os.path.join(ROOT, "catalog")])
    found = discover([catalog_argo], index)
    with Evaluator() as evaluator:
        report = run_cases(found.cases, evaluator, LintCache(Config()))
        definition = found.cases[0].definition
        with_pods = run_mutants(report, evaluator, [definition], MutationOptions()).definitions[0]
        report.results = [r for r in report.results if r.case.pods is None]
        without_pods = run_mutants(report, evaluator, [definition], MutationOptions()).definitions[0]
    selectors = [r for r in with_pods.results if r.mutant.family == "selectors"]
    assert selectors and all(r.outcome in ("killed", "survived") for r in selectors), [
        (r.mutant.id, r.outcome) for r in selectors
    ]
    untested = [r for r in without_pods.results if r.mutant.family == "selectors"]
    assert untested and all(r.outcome == "untested" for r in untested)
    assert "no case gives pods" in untested[0].detail


def test_a_definition_whose_cases_fail_is_not_mutated():
    definition = DefinitionFile("def.yaml", yaml.safe_load(DEFINITION))
    case = Case("c", "case.yaml", "fixture", 1, "c", definition, trainer(), None, {"statuses": ["Failed"]})
    with Evaluator() as evaluator:
        report = run_cases([case], evaluator, LintCache(Config()))
        result = run_mutants(report, evaluator, [definition], MutationOptions()).definitions[0]
    assert result.results == [] and result.score is None
    assert result.note == "1 case(s) did not pass: mutants are run on a passing suite only"


def test_results_are_deterministic_and_json_ready(tmp_path):
    first = mutation_of(tmp_path, WEAK).to_dict(0.8)
    again = mutation_of(tmp_path, WEAK).to_dict(0.8)
    assert json.dumps(first) == json.dumps(again)
    assert first["belowMinimum"] is True and first["score"] < 0.5
    assert {r["outcome"] for r in first["results"]} <= {"killed", "survived", "equivalent", "invalid", "untested"}


def test_the_fixtures_doc_lists_every_operator_in_its_family():
    with open(os.path.join(ROOT, "docs", "fixtures.md"), encoding="utf-8") as handle:
        rows = [line for line in handle if line.startswith("| ") and "` |" in line]
    listed = {(row.split("|")[1].strip(), row.split("|")[2].strip().strip("`")) for row in rows}
    assert {(op.family, op.name) for op in OPERATORS} <= listed


def test_a_mutant_of_a_component_no_case_reaches_survives(tmp_path):
    """Every object has a Running trainer and no roles: the worker role's mutants are never
    evaluated, so they are survivors (no coverage), not equivalent."""
    definition = DEFINITION + (
        "    childComponents:\n"
        "    - name: worker\n"
        "      ownerRef: trainer\n"
        "      kind: {group: '', version: v1, kind: Pod}\n"
        "      instanceIdPath: '.spec.roles[]?.name'\n"
        "      specDefinition: {podTemplateSpecPath: '.spec.roles[]?.template'}\n"
        "      scaleDefinition: {replicasPath: '.spec.roles[]? | (.replicas // 1) * 2'}\n"
        "      podSelector:\n"
        "        componentTypeSelector: {keyPath: '.metadata.labels.role'}\n"
        "        componentInstanceSelector: {idPath: '.metadata.labels.role'}\n"
    )
    result = mutation_of(tmp_path, STRONG, definition)
    worker = [r for r in result.results if r.mutant.component == "worker"]
    assert worker and all(r.outcome in ("killed", "survived") for r in worker), "none is taken as equivalent"
    unreached = next(r for r in worker if r.mutant.operator == "scale-arithmetic")
    assert unreached.detail == "no case's object has an instance of worker: no case evaluates what changed"
    assert unreached.hint == "add a fixture from a real object that has a worker"


def test_numbers_a_changed_expression_reads_are_probed_with_3(tmp_path):
    """Every object has replicas 0: `* 2` hides behind it until a probe sets 3."""
    cases = [
        (trainer(replicas=0), {"statuses": ["Running"], "components": {"trainer": {"replicas": 0, "cpuMillis": 0}}}),
        (trainer(replicas=0, condition="Failed"), {"statuses": ["Failed"]}),
    ]
    result = mutation_of(tmp_path, cases)
    doubled = next(r for r in result.results if r.mutant.after == "(.spec.replicas // 1) * 2")
    assert doubled.outcome == "survived" and "with .spec.replicas = 3" in doubled.detail
    assert "trainer.replicas is 6 instead of 3" in doubled.detail
    found = probes(
        [Perturbation((("set-number", ("spec", "replicas"), 3),), "with")], [trainer(), trainer(replicas=None)]
    )
    assert [p["spec"]["replicas"] for p, _, _ in found] == [3], "set-number changes numbers only, never adds one"


def test_catalog_mutants_adds_the_score_of_each_definition(tmp_path, monkeypatch, capsys):
    from kartalint.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / ".kartalint.yaml").write_text("definitions: [def.yaml]\nfixtures: [fixtures]\n")
    (tmp_path / "def.yaml").write_text(DEFINITION)
    folder = tmp_path / "fixtures" / "example-com-trainer-v1"
    folder.mkdir(parents=True)
    fixture = {
        "apiVersion": "kartalint/v1",
        "kind": "KartaFixture",
        "object": trainer(),
        "expect": {"statuses": ["Running"]},
    }
    (folder / "running.yaml").write_text(yaml.safe_dump(fixture))
    assert main(["catalog", "--format", "json", "--mutants"]) == 0
    [row] = json.loads(capsys.readouterr().out)["definitions"]
    assert row["mutation"]["score"] == 0.25 and row["mutation"]["survived"] == 9
    assert main(["catalog", "--format", "markdown", "--mutants"]) == 0
    out = capsys.readouterr().out
    assert "| `example-com-trainer-v1` | 14 | 3 | 9 | 2 | 0 | 0 | 0.25 |" in out and "| **all** | 14 |" in out
    assert main(["catalog"]) == 0 and "MUTANTS" not in capsys.readouterr().out
    assert main(["catalog", "--mutants"]) == 0 and "0.25" in capsys.readouterr().out


def test_one_real_running_jobset_pins_little_of_the_catalog_definition():
    """The catalog's JobSet definition with one recorded Running frame as its only fixture: most of
    the definition is unpinned, and the survivors name the lines (the whole folder scores 1.0:
    docs/catalog.md, tests/test_catalog.py)."""
    name = "jobset-x-k8s-io-jobset-v1alpha2"
    index = DefinitionIndex.from_paths([os.path.join(ROOT, "catalog", f"{name}.yaml")])
    found = discover([os.path.join(ROOT, "fixtures", name, "running-running-v0_12_0.yaml")], index)
    with Evaluator() as evaluator:
        report = run_cases(found.cases, evaluator, LintCache(Config()))
        result = run_mutants(report, evaluator, index.definitions, MutationOptions()).definitions[0]
    assert result.score is not None and result.score < 0.6
    lines = {r.location[0] for r in result.survivors}
    # the completed, failed and suspended mappings (their matcher lines) and the replicas path
    with open(index.definitions[0].path, encoding="utf-8") as handle:
        text = handle.read().splitlines()
    mappings = {n + 2 for n, line in enumerate(text) if line.strip() in ("completed:", "failed:", "suspended:")}
    replicas = {n + 1 for n, line in enumerate(text) if line.strip().startswith("replicasPath:")}
    assert len(mappings) == 3 and len(replicas) == 1
    assert mappings | replicas <= lines
    swap = next(
        r for r in result.survivors if r.mutant.operator == "swap-status-matchers" and "failed" in r.mutant.before
    )
    assert swap.hint.startswith("add a fixture from a real object with .status.conditions")
