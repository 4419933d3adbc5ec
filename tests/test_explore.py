"""`kartalint explore`: objects generated from the CRD find the classic mistakes, shrunk to a
minimal object; the bundled definitions hold. Fixed seeds, small budgets (a few seconds)."""

from __future__ import annotations

import functools
import json
import os
import shutil
import sys

import pytest
import yaml
from conftest import REFERENCE, ROOT

from kartalint.cli import main

pytest.importorskip("hypothesis")

from kartalint.explore.search import explore
from kartalint.load.crds import CrdIndex

CRDS = os.path.join(REFERENCE, "crds")
JOBSET_CRD = os.path.join(CRDS, "jobset.x-k8s.io_jobsets.yaml")
PYTORCH_CRD = os.path.join(CRDS, "kubeflow.org_pytorchjobs.yaml")
JOBSET = os.path.join(ROOT, "catalog", "jobset-x-k8s-io-jobset-v1alpha2.yaml")
PYTORCH = os.path.join(ROOT, "catalog", "kubeflow-org-pytorchjob-v1.yaml")
JOBSET_GVK = ("jobset.x-k8s.io", "v1alpha2", "JobSet")
PYTORCH_GVK = ("kubeflow.org", "v1", "PyTorchJob")


@functools.cache
def crd(gvk):
    version = CrdIndex.from_paths([JOBSET_CRD, PYTORCH_CRD]).get(gvk)
    assert version is not None
    return version


def definition(path, old="", new=""):
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    assert old in text
    return yaml.safe_load(text.replace(old, new))


def only_failure(found):
    assert len(found.failures) == 1, [f.to_dict() for f in found.failures]
    return found.failures[0].to_dict()


def test_jobset_without_the_parallelism_default_is_found_and_shrunk():
    broken = definition(JOBSET, "(.template.spec.parallelism // 1)", ".template.spec.parallelism")
    failure = only_failure(explore(broken, crd(JOBSET_GVK), examples=200, seed=0, max_time=600))
    assert failure["property"] == "no-extraction-error"
    assert failure["field"] == "replicatedjob.scaleDefinition.replicasPath"
    assert "cannot be multiplied" in failure["message"]
    jobs = failure["object"]["spec"]["replicatedJobs"]
    assert len(jobs) == 1 and "parallelism" not in jobs[0]["template"].get("spec", {})  # minimal


def test_instance_id_path_iterating_an_optional_list_without_question_mark():
    broken = definition(
        JOBSET, "instanceIdPath: .spec.replicatedJobs[]?.name", "instanceIdPath: .spec.replicatedJobs[].name"
    )
    failure = only_failure(explore(broken, crd(JOBSET_GVK), examples=200, seed=0, max_time=600))
    assert (failure["field"], failure["message"]) == ("replicatedjob.instanceIdPath", "Cannot iterate over null (null)")
    assert failure["object"]["spec"] == {}  # shrunk: a JobSet with no replicated jobs at all


def test_pytorchjob_worker_replicas_read_without_a_default():
    broken = definition(PYTORCH, "(.[$role].replicas // 1)", "(.[$role].replicas | tonumber)")
    failure = only_failure(explore(broken, crd(PYTORCH_GVK), examples=200, seed=0, max_time=600))
    assert failure["field"] == "replica.scaleDefinition.replicasPath"
    assert "cannot be parsed as a number" in failure["message"]
    (spec,) = failure["object"]["spec"]["pytorchReplicaSpecs"].values()
    assert "replicas" not in spec


@pytest.mark.parametrize(("path", "gvk"), [(JOBSET, JOBSET_GVK), (PYTORCH, PYTORCH_GVK)])
def test_bundled_definitions_hold_on_generated_objects(path, gvk, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    found = explore(definition(path), crd(gvk), examples=150, seed=3, max_time=600)
    assert found.failures == [] and found.examples >= 150  # the budget is the one asked for (not hypothesis' 100)
    assert not (tmp_path / ".hypothesis").exists()  # no example database is written


def test_time_budget_ends_the_search():
    """The budget is set from the time a few objects take on this machine now (never a fixed
    figure: a loaded machine drew none in half a second)."""
    import time

    started = time.monotonic()
    small = explore(definition(JOBSET), crd(JOBSET_GVK), examples=5, seed=0, max_time=600)
    budget = max(0.5, 3 * (time.monotonic() - started))
    assert not small.out_of_time and small.examples >= 5  # (the status values the definition matches come first)
    found = explore(definition(JOBSET), crd(JOBSET_GVK), examples=10_000, seed=0, max_time=budget)
    assert found.out_of_time and found.failures == [] and 0 < found.examples < 10_000


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_command_json_is_deterministic_and_saved_fixtures_run(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".kartalint.yaml").write_text("definitions: [defs]\n")
    (tmp_path / "defs").mkdir()
    with open(JOBSET, encoding="utf-8") as handle:
        text = handle.read().replace("(.template.spec.parallelism // 1)", ".template.spec.parallelism")
    (tmp_path / "defs" / "jobset.yaml").write_text(
        text.replace("name: jobset-x-k8s-io-jobset-v1alpha2", "name: my-jobset")
    )
    argv = [
        "explore",
        "defs/jobset.yaml",
        "--crd",
        JOBSET_CRD,
        "--examples",
        "100",
        "--seed",
        "7",
        "--max-time",
        "600",
        "-f",
        "json",
    ]
    code, out, _ = run(capsys, *argv, "--save", "found")
    assert code == 1
    doc = json.loads(out)
    assert doc["schemaVersion"] == 1 and doc["definition"] == "defs/jobset.yaml" and doc["examples"] > 0
    assert doc["crd"].endswith("jobset.x-k8s.io_jobsets.yaml")
    (failure,) = doc["failures"]
    assert set(failure) == {"property", "field", "message", "object", "hint"}
    # lint's hint for that field, as `kartalint lint --crd` reports it (the CRD rule that replaces
    # scale-path-not-null-safe when the CRD says the field is optional)
    assert failure["hint"] == "write (.template.spec.parallelism // 1) (crd-optional-arithmetic)"
    assert doc["saved"] == ["found/my-jobset-explore-1.yaml"]
    again = json.loads(run(capsys, *argv)[1])
    assert again["failures"] == doc["failures"]  # the same seed finds the same minimal object
    # the saved fixture runs: expected to fail until the definition is fixed
    code, out, _ = run(capsys, "test", "found")
    assert code == 0 and "1 expected failure(s)" in out
    with open(JOBSET, encoding="utf-8") as handle:  # the fix: the bundled definition's default
        fixed = handle.read().replace("name: jobset-x-k8s-io-jobset-v1alpha2", "name: my-jobset")
    (tmp_path / "defs" / "jobset.yaml").write_text(fixed)
    code, out, _ = run(capsys, "test", "found")
    assert code == 1 and "XPASS" in out  # fixed: the fixture says to drop its xfail


def test_command_text_exit_codes_and_usage_errors(tmp_path, capsys):
    code, out, _ = run(capsys, "explore", JOBSET, "--crd", JOBSET_CRD, "--examples", "40")
    assert code == 0 and "0 failure(s)" in out
    code, out, _ = run(capsys, "explore", PYTORCH, "--crd", PYTORCH_CRD, "--examples", "30", "--property", "gang-fits")
    assert code == 0
    assert run(capsys, "explore", JOBSET, "--crd", JOBSET_CRD, "--property", "nope")[0] == 2
    assert run(capsys, "explore", JOBSET, "--crd", JOBSET_CRD, "--examples", "0")[0] == 2
    assert run(capsys, "explore", JOBSET)[0] == 2  # no CRD
    code, _, err = run(capsys, "explore", JOBSET, "--crd", os.path.join(ROOT, "tests", "data", "crds"))
    assert code == 2 and "no CRD for jobset.x-k8s.io/v1alpha2, Kind=JobSet" in err and "nothing was explored" in err
    broken = tmp_path / "broken.yaml"
    with open(JOBSET, encoding="utf-8") as handle:
        broken.write_text(handle.read().replace("(.template.spec.parallelism // 1)", ".template.spec.parallelism"))
    code, out, _ = run(capsys, "explore", str(broken), "--crd", JOBSET_CRD, "--examples", "100")
    assert code == 1
    assert "no-extraction-error: replicatedjob.scaleDefinition.replicasPath:" in out
    assert "    minimal object:" in out and "      kind: JobSet" in out


LWS = os.path.join(ROOT, "catalog", "leaderworkerset-x-k8s-io-leaderworkerset-v1.yaml")


def test_a_replica_default_other_than_the_crds_is_found():
    """Where the CRD makes the pods asked for computable (a replica field with a CRD default), the
    definition must give that count: `// 2` where the CRD defaults JobSet replicas to 1."""
    from kartalint.explore.properties import ReplicaField, replica_fields

    broken = definition(
        JOBSET,
        "replicasPath: .spec.replicatedJobs[]? | (.replicas // 1) * (.template.spec.parallelism // 1)",
        "replicasPath: .spec.replicatedJobs[]? | (.replicas // 2)",
    )
    assert replica_fields(broken, crd(JOBSET_GVK)) == [
        ReplicaField("replicatedjob", ("spec", "replicatedJobs", "[]", "replicas"), 1, ("name",))
    ]
    failure = only_failure(explore(broken, crd(JOBSET_GVK), examples=200, seed=0, max_time=600))
    assert failure["property"] == "replicas-match-spec"
    assert failure["message"].endswith("(the CRD's default is 1), the definition gives {'a': 2}")
    assert replica_fields(definition(JOBSET), crd(JOBSET_GVK)) == []  # arithmetic: not a plain field


CEL_RULES = [
    ("self in ['a', 'b']", "a", True),
    ("self in ['a', 'b']", "c", False),
    ("self >= 1", 0, False),
    ("has(self.x) || has(self.y)", {}, False),
    ("has(self.x) || has(self.y)", {"y": 1}, True),
    ("!(has(self.x) && has(self.y))", {"x": 1, "y": 2}, False),
    ("size(self.name) <= 3", {"name": "abcd"}, False),
    ("self.min <= self.max", {"min": 2, "max": 1}, False),
    ("self.min <= self.max", {"min": 1, "max": 1}, True),
    ("self.min <= self.max", {"max": 1}, False),  # an absent field fails the rule, as in CEL
]


@pytest.mark.parametrize(("rule", "value", "accepted"), CEL_RULES)
def test_cel_subset(rule, value, accepted):
    from kartalint.explore.cel import predicate

    test = predicate(rule)
    assert test is not None and test(value) is accepted


@pytest.mark.parametrize("rule", ["self == oldSelf", "self.name.matches('^a$')", "self.items.exists(x, has(x.a))"])
def test_cel_rules_outside_the_subset_are_left_out(rule):
    from kartalint.explore.cel import predicate

    assert predicate(rule) is None


@pytest.mark.parametrize(
    ("rule", "value", "accepted"),
    [
        (" && ".join(["self.a == 1"] * 3000), {"a": 1}, True),
        (" || ".join(["self.a == 2"] * 3000), {"a": 1}, False),
        ("!" * 3001 + "has(self.a)", {"a": 1}, False),
        ("!" * 3000 + "has(self.a)", {"a": 1}, True),
    ],
    ids=["and", "or", "odd-not", "even-not"],
)
def test_long_cel_rules_are_flat_not_deep(rule, value, accepted):
    """Issue 45 item 16: a rule of 3,000 terms was thousands of nested calls (a RecursionError
    while drawing objects, read as a failed property)."""
    from kartalint.explore.cel import predicate

    test = predicate(rule)
    assert test is not None and test(value) is accepted


@pytest.mark.parametrize(
    "rule", ["(" * 3000 + "self.a == 1" + ")" * 3000, "self.a in " + "[" * 3000 + "]" * 3000, "self.a == " + "9" * 5000]
)
def test_cel_rules_nested_too_deep_or_with_huge_integers_are_left_out(rule):
    from kartalint.explore.cel import predicate

    assert predicate(rule) is None  # (the CRD's validation refuses them first: test_bad_crds.py)


def test_generated_objects_satisfy_the_crds_cel_rules():
    from hypothesis import given, settings

    from kartalint.explore.generate import Focus, Generator
    from kartalint.load.crds import crd_versions

    schema = {
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "required": ["min", "max"],
                "properties": {"min": {"type": "integer"}, "max": {"type": "integer"}, "mode": {"type": "string"}},
                "x-kubernetes-validations": [
                    {"rule": "self.min <= self.max"},
                    {"rule": "!has(self.mode) || self.mode in ['fast', 'slow']"},
                ],
            }
        },
    }
    crd_doc = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "things.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": "Thing", "plural": "things"},
            "scope": "Namespaced",
            "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": schema}}],
        },
    }
    (version,) = crd_versions(crd_doc)
    seen = []

    @settings(max_examples=60, deadline=None, database=None)
    @given(Generator(version, Focus(reads={("spec", "mode")})).object())
    def check(obj):
        spec = obj["spec"]
        assert spec["min"] <= spec["max"]
        assert spec.get("mode", "fast") in ("fast", "slow")
        seen.append("mode" in spec)

    check()
    assert True in seen and False in seen  # the optional field is drawn both ways


def test_statuses_that_exclude_each_other_are_found():
    """An expression that ignores the terminal condition: Running and Failed together."""
    running = """          running:
          - byConditions:
            - type: Running
              status: "True"
"""
    always = """          running:
          - byExpression:
              expression: (.status.conditions // []) | length >= 0
              expectedResult: "true"
"""
    broken = definition(PYTORCH, running, always)
    failure = only_failure(explore(broken, crd(PYTORCH_GVK), examples=200, seed=0, max_time=600))
    assert failure["property"] == "statuses-agree"
    assert failure["message"] in ("Running and Failed matched together", "Running and Completed matched together")


TRAINERS_CRD = os.path.join(ROOT, "tests", "data", "crds", "example.com_trainers.yaml")


def _trainer_draft(tmp_path, capsys):
    """`new --crd`'s own draft for a CRD with roles in a list, its TODO pod label filled in."""
    draft = tmp_path / "trainer.yaml"
    assert main(["new", "--crd", TRAINERS_CRD, "-o", str(draft)]) == 0
    capsys.readouterr()
    text = draft.read_text()
    assert 'TODO/role"]' in text
    return yaml.safe_load(text.replace('TODO/role"]', 'example.com/role"]'))


def test_replicas_match_spec_compares_per_instance_id_not_by_position(tmp_path, capsys):
    """The view orders instances by id, the object by position: roles [b: 0, a: (default 1)] ask
    for a: 1 and b: 0, which is what the draft gives (issue 36 item 4, issue 34 item 16)."""
    from kartalint.evaluation import Evaluator
    from kartalint.explore.properties import Probe, replica_fields, replicas_match_spec

    draft = _trainer_draft(tmp_path, capsys)
    version = CrdIndex.from_paths([TRAINERS_CRD]).get(("example.com", "v1", "Trainer"))
    fields = replica_fields(draft, version)
    assert [(f.path, f.id_field) for f in fields] == [(("spec", "roles", "[]", "replicas"), ("name",))]
    obj = {
        "apiVersion": "example.com/v1",
        "kind": "Trainer",
        "metadata": {"name": "t"},
        "spec": {"roles": [{"name": "b", "replicas": 0, "template": {}}, {"name": "a", "template": {}}]},
    }
    wrong = yaml.safe_load(yaml.safe_dump(draft).replace("(.replicas // 1)", "(.replicas // 2)"))
    with Evaluator() as evaluator:
        assert replicas_match_spec(Probe(obj, evaluator.evaluate(draft, obj), fields)) == []
        (violation,) = replicas_match_spec(Probe(obj, evaluator.evaluate(wrong, obj), fields))
    assert violation.message.endswith("asks for {'a': 1} (the CRD's default is 1), the definition gives {'a': 2}")
    found = explore(draft, version, examples=200, seed=0, max_time=600)
    assert found.failures == []


def test_a_failures_hint_never_quotes_a_finding_the_definition_suppressed(tmp_path, capsys):
    """The crd-optional-arithmetic finding on the broken JobSet (what lint reports with the JobSet
    CRD) is silenced by a comment on its line: explore still reports the failure, but not lint's
    hint for it (issue 36 item 7)."""
    with open(JOBSET, encoding="utf-8") as handle:
        text = handle.read().replace("(.template.spec.parallelism // 1)", ".template.spec.parallelism")
    line = next(x for x in text.splitlines() if "* .template.spec.parallelism" in x)
    argv = ["explore", "--crd", JOBSET_CRD, "--examples", "20", "--max-time", "600", "-f", "json"]
    loud, quiet = tmp_path / "loud.yaml", tmp_path / "quiet.yaml"
    loud.write_text(text)
    quiet.write_text(text.replace(line, line + "  # kartalint: disable=crd-optional-arithmetic -- known"))
    code, out, _ = run(capsys, *argv, str(loud))
    assert code == 1 and json.loads(out)["failures"][0]["hint"].endswith("(crd-optional-arithmetic)")
    code, out, _ = run(capsys, *argv, str(quiet))
    (failure,) = json.loads(out)["failures"]
    assert code == 1 and failure["property"] == "no-extraction-error" and failure["hint"] == ""
    # a rule the configuration turns off is not quoted either
    (tmp_path / ".kartalint.yaml").write_text("rules:\n  crd-optional-arithmetic: off\n")
    code, out, _ = run(capsys, *argv, str(loud), "-c", str(tmp_path / ".kartalint.yaml"))
    assert code == 1 and json.loads(out)["failures"][0]["hint"] == ""


def test_a_failures_hint_is_what_lint_reports_with_the_crds_explore_was_given(tmp_path, capsys):
    """explore lints with its CRDs (`--crd`, else `crds:`), as `kartalint lint --crd` does: a
    CRD-only rule's hint reaches the failure (before, explore linted without CRDs and quoted the
    rule lint replaces when the CRD is known, or nothing when only a CRD rule fires)."""
    with open(JOBSET, encoding="utf-8") as handle:
        text = handle.read().replace("(.template.spec.parallelism // 1)", ".template.spec.parallelism")
    (tmp_path / "jobset.yaml").write_text(text)
    argv = ["--examples", "20", "--max-time", "600", "-f", "json"]
    code, out, _ = run(capsys, "lint", "-f", "json", "--crd", JOBSET_CRD, str(tmp_path / "jobset.yaml"))
    (finding,) = json.loads(out)["findings"]
    assert finding["rule"] == "crd-optional-arithmetic" and "replicasPath" in finding["path"]
    code, out, _ = run(capsys, "explore", "--crd", JOBSET_CRD, *argv, str(tmp_path / "jobset.yaml"))
    (failure,) = json.loads(out)["failures"]
    assert code == 1 and failure["hint"] == f"{finding['hint']} (crd-optional-arithmetic)"
    # the configuration's crds: are explore's CRDs when no --crd is given: the same hint
    (tmp_path / "crds").mkdir()
    shutil.copyfile(JOBSET_CRD, tmp_path / "crds" / "jobset.yaml")
    (tmp_path / ".kartalint.yaml").write_text("crds: [crds]\ndefinitions: [jobset.yaml]\n")
    code, out, _ = run(capsys, "explore", *argv, str(tmp_path / "jobset.yaml"), "-c", str(tmp_path / ".kartalint.yaml"))
    assert code == 1 and json.loads(out)["failures"][0]["hint"] == failure["hint"]


def _crd(tmp_path, spec_schema, name="Big"):
    """A small CRD file (example.com/v1) with the given spec schema."""
    doc = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{name.lower()}s.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": name, "plural": f"{name.lower()}s"},
            "scope": "Namespaced",
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": spec_schema}}},
                }
            ],
        },
    }
    path = tmp_path / f"{name.lower()}.crd.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


BIG_DEFINITION = """\
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: big}
spec:
  structureDefinition:
    rootComponent:
      name: big
      kind: {group: example.com, version: v1, kind: Big}
      specDefinition:
        podTemplateSpecPath: .spec.template
      scaleDefinition:
        replicasPath: .spec.roles[0].replicas // 1
      statusDefinition:
        phaseDefinition: {path: .status.phase}
        statusMappings:
          running: [{byPhase: Running}]
"""


def _big_spec(required):
    return {
        "type": "object",
        "required": required,
        "properties": {
            "label": {"type": "string", "minLength": 200_000_000},
            "roles": {
                "type": "array",
                "minItems": 100_000,
                "items": {
                    "type": "object",
                    "required": ["name"],
                    "properties": {"name": {"type": "string", "minLength": 100_000}, "replicas": {"type": "integer"}},
                },
            },
            "nested": {  # each list fits the limits, all of them together do not
                "type": "array",
                "minItems": 16,
                "items": {"type": "array", "minItems": 16, "items": {"type": "string", "minLength": 253}},
            },
        },
    }


@pytest.mark.parametrize(
    ("required", "where"),
    [(["label"], "spec.label: minLength 200000000"), (["roles"], "spec.roles: minItems 100000"), (["nested"], "spec:")],
)
def test_a_crd_asking_for_huge_values_is_an_error_not_a_gigabyte(tmp_path, capsys, required, where):
    """Issue 34 item 8: a 600-byte CRD with large minLength/minItems took 1.7 GB and 9 s with
    --max-time 5. Required fields beyond the limits: exit 2 naming the CRD and the field, at once."""
    import tracemalloc

    crd_path = _crd(tmp_path, _big_spec(required))
    (tmp_path / "big.yaml").write_text(BIG_DEFINITION)
    tracemalloc.start()
    try:
        code, out, err = run(capsys, "explore", str(tmp_path / "big.yaml"), "--crd", str(crd_path), "--max-time", "5")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert code == 2 and out == ""
    assert f"big.crd.yaml: example.com/v1, Kind=Big: {where}" in err and "big.yaml not explored" in err
    assert peak < 50 * 1024 * 1024


def test_optional_fields_beyond_the_limits_are_left_out(tmp_path):
    from kartalint.explore.generate import MAX_ITEMS, MAX_STRING

    crd_path = _crd(tmp_path, _big_spec([]))
    version = CrdIndex.from_paths([str(crd_path)]).get(("example.com", "v1", "Big"))
    read_all = yaml.safe_load(BIG_DEFINITION.replace(".spec.roles[0].replicas // 1", ".spec | length"))
    found = explore(read_all, version, examples=50, seed=0, max_time=600)
    assert found.failures == [] and found.examples >= 10  # a small space: hypothesis stops when it is exhausted
    assert MAX_STRING < 100_000 and MAX_ITEMS < 100_000


def test_drawing_counts_toward_the_time_budget(monkeypatch):
    """The clock is read while an object is drawn, not only between objects: a budget that ends
    during drawing stops the search there (a fake clock: no dependence on the machine's speed)."""
    from kartalint.explore import generate

    ticks = []
    real = generate.time.monotonic

    class Clock:
        @staticmethod
        def monotonic():
            ticks.append(1)
            return real() + (0 if len(ticks) < 40 else 10_000)  # the budget ends during the 40th read

    monkeypatch.setattr(generate, "time", Clock)
    found = explore(definition(JOBSET), crd(JOBSET_GVK), examples=10_000, seed=0, max_time=60)
    assert found.out_of_time and found.examples < 40 and len(ticks) == 40


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        # the same phase under two statuses
        (
            "          - byPhase: Failed\n",
            "          - byPhase: Failed\n          - byPhase: Running\n",
            "Running and Failed",
        ),
        # an expression that reads a terminal phase as running
        (
            "          - byPhase: Running\n",
            "          - byPhase: Running\n          - byExpression:\n              expression: .status.phase == "
            '"Succeeded" or .status.phase == "Running"\n              expectedResult: "true"\n',
            "Running and Completed",
        ),
        # a condition mapped to two statuses
        (
            "          - byPhase: Failed\n",
            "          - byPhase: Failed\n          - byConditions:\n            - type: Evicted\n"
            "          running:\n          - byConditions:\n            - type: Evicted\n",
            "Running and Failed",
        ),
    ],
)
def test_a_status_value_mapped_to_two_statuses_is_found_first(tmp_path, capsys, old, new, message):
    """Each status value the definition matches is tried on a minimal object before the random
    search: found with a budget of one random object, and on the default seed and budget (issue
    36 item 8)."""
    draft = _trainer_draft(tmp_path, capsys)
    text = yaml.safe_dump(draft, sort_keys=False)
    assert old in text
    broken = yaml.safe_load(text.replace(old, new, 1))
    version = CrdIndex.from_paths([TRAINERS_CRD]).get(("example.com", "v1", "Trainer"))
    budgets = [{"examples": 1}] + ([{}] if "byPhase: Running" in new else [])  # and the default budget
    for found in (explore(broken, version, **budget) for budget in budgets):
        (failure,) = [f.to_dict() for f in found.failures]
        assert (failure["property"], failure["message"]) == ("statuses-agree", f"{message} matched together")
    assert explore(draft, version, examples=1).failures == []  # the draft itself is fine


STOPPED = '.metadata.annotations["kubeflow-resource-stopped"]'


def test_labels_and_annotations_the_definition_reads_are_generated(tmp_path, capsys):
    """A notebook-style stop annotation: read by the definition, so drawn present and absent
    (issue 36 item 6). Suspended read apart from Running is found; read together it holds."""
    draft = _trainer_draft(tmp_path, capsys)
    text = yaml.safe_dump(draft, sort_keys=False)
    suspended = (
        f"          suspended:\n          - byExpression:\n              expression: {STOPPED} != null\n"
        '              expectedResult: "true"\n'
    )
    broken = yaml.safe_load(text.replace("          running:\n", suspended + "          running:\n"))
    version = CrdIndex.from_paths([TRAINERS_CRD]).get(("example.com", "v1", "Trainer"))
    (failure,) = [f.to_dict() for f in explore(broken, version, examples=200, seed=0, max_time=600).failures]
    assert failure["message"] == "Suspended and Running matched together"
    assert "kubeflow-resource-stopped" in failure["object"]["metadata"]["annotations"]
    running = (
        f'          running:\n          - byExpression:\n              expression: .status.phase == "Running" and'
        f' {STOPPED} == null\n              expectedResult: "true"\n'
    )
    fixed = yaml.safe_load(text.replace("          running:\n          - byPhase: Running\n", suspended + running))
    assert explore(fixed, version, examples=200, seed=0, max_time=600).failures == []


def test_metadata_values_are_the_compared_strings_or_realistic_ones():
    from hypothesis import given, settings

    from kartalint.explore.generate import ANNOTATION_VALUES, FIXED_METADATA, Focus, Generator

    version = CrdIndex.from_paths([TRAINERS_CRD]).get(("example.com", "v1", "Trainer"))
    focus = Focus(
        reads={
            ("metadata", "annotations", "example.com/mode"),
            ("metadata", "labels", "app"),
            ("metadata", "generation"),
        },
        constants={("metadata", "annotations", "example.com/mode"): ["fast"]},
    )
    seen = {"mode": set(), "app": set(), "generation": set()}

    @settings(max_examples=100, deadline=None, database=None)
    @given(Generator(version, focus).metadata())
    def check(meta):
        assert {k: meta[k] for k in FIXED_METADATA} == FIXED_METADATA
        seen["mode"].add(meta.get("annotations", {}).get("example.com/mode"))
        seen["app"].add(meta.get("labels", {}).get("app"))
        seen["generation"].add(meta.get("generation"))

    check()
    assert {"fast", None} <= seen["mode"] <= {"fast", None, *ANNOTATION_VALUES}
    assert None in seen["app"] and len(seen["app"]) > 1 and None in seen["generation"] and 1 in seen["generation"]


def test_free_strings_take_values_that_parse_as_what_their_name_says():
    """Issue 36 item 5: a CRD leaves coreRequest, memory, *Limit free strings; the operator only
    takes quantities. Counts and flags written as strings (map keys a definition reads) parse."""
    from kartalint.explore.values import CPU, MEMORY, QUANTITIES, int_or_string, meaning, strings

    assert meaning("coreRequest", {}) == CPU and meaning("coreLimit", {}) == CPU
    assert meaning("memory", {}) == MEMORY and meaning("memoryOverhead", {}) == MEMORY
    assert meaning("gpuLimit", {}) == QUANTITIES and meaning("x", {"description": "a resource.Quantity"}) == QUANTITIES
    assert meaning("spark.executor.instances", {}) == ("1", "2", "4")
    assert meaning("spark.dynamicAllocation.enabled", {}) == ("true", "false")
    assert meaning("image", {}) is None and strings("image", {}, [])[0] == "a"  # a short name
    assert strings("mode", {}, ["fast"])[0] == "fast"  # what the definition compares it with, first
    quantity = {
        "pattern": r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
    }
    assert "50%" not in int_or_string("storage", quantity) and int_or_string("storage", quantity)
    assert int_or_string("maxUnavailable", {}) == ["1", "50%"]


SPARKISH_CRD = {
    "type": "object",
    "properties": {
        "driver": {
            "type": "object",
            "properties": {"coreRequest": {"type": "string"}, "memoryLimit": {"type": "string"}},
        },
        "sparkConf": {"type": "object", "additionalProperties": {"type": "string"}},
    },
}
SPARKISH = """\
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: sparkish}
spec:
  structureDefinition:
    rootComponent:
      name: app
      kind: {group: example.com, version: v1, kind: Sparkish}
      statusDefinition:
        phaseDefinition: {path: .status.phase}
        statusMappings:
          running: [{byPhase: Running}]
    childComponents:
    - name: driver
      ownerRef: app
      kind: {group: "", version: v1, kind: Pod}
      specDefinition:
        fragmentedPodSpecDefinition:
          resourcesPath: '.spec.driver | {requests: {cpu: .coreRequest}, limits: {memory: .memoryLimit}}'  # kartalint: disable=not-assignable-path
      scaleDefinition:
        replicasPath: (.spec.sparkConf["spark.executor.instances"] // "2") | tonumber
"""


def test_a_definition_reading_quantities_and_counts_as_strings_holds(tmp_path):
    crd_path = _crd(tmp_path, SPARKISH_CRD, name="Sparkish")
    version = CrdIndex.from_paths([str(crd_path)]).get(("example.com", "v1", "Sparkish"))
    found = explore(yaml.safe_load(SPARKISH), version, examples=100, seed=0, max_time=600)
    assert found.failures == []
    from hypothesis import given, settings

    from kartalint.explore.generate import Generator, focus_of

    drawn = set()

    @settings(max_examples=100, deadline=None, database=None)
    @given(Generator(version, focus_of(yaml.safe_load(SPARKISH))).object())
    def check(obj):
        drawn.add(obj["spec"].get("sparkConf", {}).get("spark.executor.instances"))

    check()
    assert drawn - {None} and drawn <= {None, "1", "2", "4"}  # the key the definition reads, as a count


VOLCANOISH_CRD = {
    "type": "object",
    "properties": {
        "tasks": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "replicas": {"type": "integer", "format": "int32"},
                    "minAvailable": {"type": "integer", "format": "int32"},
                    "template": {
                        "type": "object",
                        "properties": {"spec": {"type": "object", "properties": {"containers": {"type": "array"}}}},
                    },
                },
            },
        }
    },
}
VOLCANOISH = """\
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: volcanoish}
spec:
  structureDefinition:
    rootComponent:
      name: job
      kind: {group: example.com, version: v1, kind: Volcanoish}
      statusDefinition:
        phaseDefinition: {path: .status.phase}
        statusMappings:
          running: [{byPhase: Running}]
    childComponents:
    - name: task
      ownerRef: job
      kind: {group: "", version: v1, kind: Pod}
      instanceIdPath: .spec.tasks // [] | keys[] as $i | .[$i].name // "default\\($i)"
      specDefinition:
        podTemplateSpecPath: .spec.tasks[]?.template
      scaleDefinition:
        replicasPath: .spec.tasks[]? | .replicas // 0
        minReplicasPath: .spec.tasks[]? | .minAvailable
      podSelector:
        componentTypeSelector:
          keyPath: .metadata.labels["volcano.sh/task-spec"]
        componentInstanceSelector:
          idPath: .metadata.labels["volcano.sh/task-spec"]
  optimizationInstructions:
    gangScheduling:
      podGroup: {name: job}
"""
ASSUME = """\
explore:
  assume:  # the admission policy: a task's minAvailable <= its replicas
    .spec.tasks[]: {if: {required: [minAvailable]}, then: {required: [replicas]}}
    .spec.tasks[].minAvailable: {maximum: 1}
    .spec.tasks[].replicas: {minimum: 1}
"""


def test_explore_assume_constrains_generation_for_rules_the_crd_does_not_state(tmp_path, capsys):
    """A Volcano task's minAvailable above its replicas is refused by an admission policy, not by
    the CRD: without `assume` the gang minimum fails, with it the definition holds."""
    crd_path = _crd(tmp_path, VOLCANOISH_CRD, name="Volcanoish")
    (tmp_path / "def.yaml").write_text(VOLCANOISH)
    argv = ["explore", str(tmp_path / "def.yaml"), "--crd", str(crd_path), "--max-time", "600", "-f", "json"]
    (tmp_path / "plain.yaml").write_text("{}\n")
    code, out, _ = run(capsys, *argv, "-c", str(tmp_path / "plain.yaml"))
    assert code == 1 and [f["property"] for f in json.loads(out)["failures"]] == ["gang-fits"]
    (tmp_path / ".kartalint.yaml").write_text(ASSUME)
    code, out, _ = run(capsys, *argv, "-c", str(tmp_path / ".kartalint.yaml"))
    assert code == 0 and json.loads(out)["failures"] == []


@pytest.mark.parametrize(
    ("assume", "message"),
    [
        ("explore: {assume: {'.spec | keys': {}}}", "'.spec | keys' is not a plain jq path"),
        ("explore: {assume: {.spec.x: {minimum: abc}}}", "'.spec.x': not a JSON Schema: 'abc' is not of type 'number'"),
        ("explore: {assume: [.spec.x]}", "'explore.assume' must map jq paths to JSON Schemas"),
        ("explore: {assumes: {}}", "'explore' must be a mapping with the keys 'assume' and 'min-path-coverage'"),
    ],
)
def test_a_bad_assumption_is_a_usage_error(tmp_path, capsys, assume, message):
    (tmp_path / ".kartalint.yaml").write_text(assume + "\n")
    code, _, err = run(capsys, "explore", JOBSET, "--crd", JOBSET_CRD, "-c", str(tmp_path / ".kartalint.yaml"))
    assert code == 2 and message in err and ".kartalint.yaml" in err


def test_status_seeds_write_one_compared_condition_type_at_a_time(tmp_path, capsys):
    """An expression that compares the conditions' type with several strings gets one seed per
    type: writing them all at once would make a condition set no operator writes (Complete and
    Failed both True) and report a contradiction the definition does not have."""
    from kartalint.explore.seeds import status_seeds

    draft = _trainer_draft(tmp_path, capsys)
    text = yaml.safe_dump(draft, sort_keys=False)
    running = (
        "          running:\n          - byExpression:\n              expression: (.status.conditions // []) | "
        'any(.type == "Complete" or .type == "Failed") | not\n              expectedResult: "true"\n'
    )
    changed = yaml.safe_load(text.replace("          running:\n          - byPhase: Running\n", running))
    version = CrdIndex.from_paths([TRAINERS_CRD]).get(("example.com", "v1", "Trainer"))
    base = {"apiVersion": "example.com/v1", "kind": "Trainer", "metadata": {"name": "t"}, "spec": {"roles": []}}
    seeds = status_seeds(changed, version, base)
    written = [[c["type"] for c in s.get("status", {}).get("conditions", [])] for s in seeds]
    assert ["Complete"] in written and ["Failed"] in written
    assert all(len(types) <= 1 for types in written)


def test_without_the_explore_extra_the_command_says_what_to_install(monkeypatch, capsys, tmp_path):
    """hypothesis is the explore extra: without it, `kartalint explore` says what to install (exit 2)
    and its help still works (cli/explore.py imports the explorer at its top, in a ``try``)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, "hypothesis", None)
    for name in ("kartalint.cli.explore", "kartalint.explore.generate", "kartalint.explore.search"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    try:
        assert main(["explore", "definition.yaml"]) == 2
        assert "explore needs hypothesis: python3 -m pip install 'kartalint[explore]'" in capsys.readouterr().err
        with pytest.raises(SystemExit) as stop:
            main(["explore", "--help"])
        assert stop.value.code == 0 and "--examples" in capsys.readouterr().out
    finally:
        sys.modules.pop("kartalint.cli.explore", None)  # the module without the explorer is not kept
