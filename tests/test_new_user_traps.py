"""Issue 43, tried as a new user would: definitions for two operators the catalog lacks, written with
the mistakes that used to pass lint, explore and the mutation score while every consumer counted
wrong. Each is caught by lint (with the project's CRDs), explore or `test --mutants`, and the fixed
definition is clean.

- RoleBasedGroupSet (sgl-project/rbg, tests/data/from-objects/rbgs): `spec.replicas` copies of a
  group of roles (a replicated role template), roles' `replicas` with CRD default 1 (a count with a
  CRD default), `podManagementPolicy` enum `[OrderedReady, Parallel]` (an enum compared in a
  replicas path), `groupTemplate.labels` an optional map (iterated with `to_entries`).
- Seldon Core v2 Server (tests/data/from-objects/seldon-server): `replicas` "default 1" in its
  description (a count with a stated default), `status.annotations` an optional map, `maxReplicas`
  "default equal to 0" (a max where 0 means unset). Its pods are one StatefulSet (no replicated
  template) and its spec has no string enum.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest
import yaml
from conftest import ROOT

from kartalint.cli import main

FROM_OBJECTS = os.path.join(ROOT, "tests", "data", "from-objects")

RBGS_WRONG = """\
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: workloads-x-k8s-io-rolebasedgroupset-v1alpha2}
spec:
  structureDefinition:
    rootComponent:
      name: set
      kind: {group: workloads.x-k8s.io, version: v1alpha2, kind: RoleBasedGroupSet}
      scaleDefinition: {replicasPath: .spec.replicas // 1}
      statusDefinition:
        conditionsDefinition: {path: '.status.conditions // []', typeFieldName: type, statusFieldName: status}
        statusMappings:
          running: [{byConditions: [{type: Ready, status: "True"}]}]
          suspended:
          - byExpression:
              expression: '.spec.groupTemplate.labels | to_entries | any(.key == "rbg.workloads.x-k8s.io/paused")'
              expectedResult: "true"
    childComponents:
    - name: role
      ownerRef: set
      kind: {group: "", version: v1, kind: Pod}
      instanceIdPath: .spec.groupTemplate.spec.roles[]?.name
      specDefinition: {podTemplateSpecPath: '.spec.groupTemplate.spec.roles[]? | .leaderWorkerPattern.template'}
      scaleDefinition:
        replicasPath: >-
          .spec.groupTemplate.spec.roles[]?
          | if .podManagementPolicy == "parallel" then (.replicas // 2)
            else (.replicas // 2) * (.leaderWorkerPattern.size // 1) end
      podSelector:
        componentTypeSelector: {keyPath: '.metadata.labels["rolebasedgroup.workloads.x-k8s.io/role"]'}
        componentInstanceSelector: {idPath: '.metadata.labels["rolebasedgroup.workloads.x-k8s.io/role"]'}
"""
RBGS_RIGHT = (
    RBGS_WRONG.replace("      scaleDefinition: {replicasPath: .spec.replicas // 1}\n", "")
    .replace(
        ".spec.groupTemplate.labels | to_entries",
        "(.spec.groupTemplate.labels // {}) | to_entries",
    )
    .replace(
        """          .spec.groupTemplate.spec.roles[]?
          | if .podManagementPolicy == "parallel" then (.replicas // 2)
            else (.replicas // 2) * (.leaderWorkerPattern.size // 1) end""",
        """          (.spec.replicas // 1) as $copies | .spec.groupTemplate.spec.roles[]?
          | $copies * (.replicas // 1) * (.leaderWorkerPattern.size // 1)""",
    )
)

SELDON_WRONG = """\
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: mlops-seldon-io-server-v1alpha1}
spec:
  structureDefinition:
    rootComponent:
      name: server
      kind: {group: mlops.seldon.io, version: v1alpha1, kind: Server}
      statusDefinition:
        conditionsDefinition: {path: '.status.conditions // []', typeFieldName: type, statusFieldName: status}
        statusMappings:
          initializing: [{byConditions: [{type: Ready, status: "False"}]}]
          running: [{byConditions: [{type: Ready, status: "True"}]}]
          degraded:
          - byExpression:
              expression: '.status.annotations | to_entries | any(.key == "seldon.io/warning")'
              expectedResult: "true"
    childComponents:
    - name: pod
      kind: {group: "", version: v1, kind: Pod}
      ownerRef: server
      specDefinition: {podSpecPath: .spec.podSpec}
      scaleDefinition:
        replicasPath: .spec.replicas // 2
        minReplicasPath: .spec.minReplicas
        maxReplicasPath: .spec.maxReplicas
"""
SELDON_RIGHT = SELDON_WRONG.replace(".spec.replicas // 2", ".spec.replicas // 1").replace(
    ".status.annotations | to_entries", "(.status.annotations // {}) | to_entries"
)


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A new user's repository: the operators' CRDs under crds/, the project's configuration."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CI", raising=False)
    (tmp_path / "crds").mkdir()
    shutil.copyfile(os.path.join(FROM_OBJECTS, "rbgs", "crd.yaml"), tmp_path / "crds" / "rbgs.yaml")
    shutil.copyfile(os.path.join(FROM_OBJECTS, "seldon-server", "crd.yaml"), tmp_path / "crds" / "seldon.yaml")
    (tmp_path / ".kartalint.yaml").write_text("definitions: [definitions]\nfixtures: [fixtures]\ncrds: [crds]\n")
    (tmp_path / "definitions").mkdir()
    return tmp_path


def findings(capsys, path):
    code, out, _ = run(capsys, "lint", "-f", "json", path)
    return code, [(f["rule"], f["message"]) for f in json.loads(out)["findings"] if f["severity"] != "info"]


def test_the_rolebasedgroupset_mistakes_are_each_caught_by_lint(repo, capsys):
    (repo / "definitions" / "rbgs.yaml").write_text(RBGS_WRONG)
    code, found = findings(capsys, "definitions/rbgs.yaml")
    rules = sorted({rule for rule, _ in found})
    assert code == 1 and rules == [
        "crd-optional-iteration",  # an optional map iterated with to_entries
        "default-differs-from-crd",  # // 2 where the CRD defaults roles' replicas to 1
        "parent-scale-not-multiplied",  # 2 copies of a group shown as one
        "scale-comparison-never-true",  # "parallel" is not a value of podManagementPolicy
    ], found
    assert any("the replicas of 'role' do not read .spec.replicas" in message for _, message in found)
    (repo / "definitions" / "rbgs.yaml").write_text(RBGS_RIGHT)
    assert findings(capsys, "definitions/rbgs.yaml") == (0, [])


def test_the_rolebasedgroupset_copies_reach_describe(repo, capsys):
    """The real two-copy set (qwen-pd: 2 copies of prefill 1 x 2 and decode 2 x 2 pods, a GPU each):
    the wrong definition shows one copy, says so, and fails on the labels it iterates (the object
    has none); the right one counts 12 pods and 12 GPUs."""
    with open(os.path.join(FROM_OBJECTS, "rbgs", "objects.yaml"), encoding="utf-8") as handle:
        (repo / "qwen-pd.yaml").write_text(yaml.safe_dump(yaml.safe_load(handle)["items"][0]))
    (repo / "definitions" / "rbgs.yaml").write_text(RBGS_WRONG)
    code, out, _ = run(capsys, "describe", "qwen-pd.yaml")
    assert code == 1 and "role          2 instance(s)   gpu: 6" in out
    assert "note: set asks for 2 copies, but the totals of role count one copy" in out
    assert "suspended[0]: failed to match status: failed to evaluate matcher: null (null) has no keys" in out
    (repo / "definitions" / "rbgs.yaml").write_text(RBGS_RIGHT)
    code, out, _ = run(capsys, "describe", "qwen-pd.yaml")
    assert code == 0 and "role          2 instance(s)   gpu: 12" in out and "note:" not in out
    assert "TOTAL       12         12" in out


def test_the_seldon_server_mistakes_are_each_caught_by_lint_or_the_mutation_score(repo, capsys):
    (repo / "definitions" / "server.yaml").write_text(SELDON_WRONG)
    code, found = findings(capsys, "definitions/server.yaml")
    assert sorted({rule for rule, _ in found}) == ["crd-optional-iteration", "default-differs-from-crd"], found
    assert any("says it defaults to 1" in message for _, message in found)
    (repo / "definitions" / "server.yaml").write_text(SELDON_RIGHT)
    assert findings(capsys, "definitions/server.yaml") == (0, [])
    # a max where 0 means unset: lint cannot know what the definition means by it, the mutation score asks
    (repo / "fixtures" / "mlops-seldon-io-server-v1alpha1").mkdir(parents=True)
    with open(os.path.join(FROM_OBJECTS, "seldon-server", "objects.yaml"), encoding="utf-8") as handle:
        objects = yaml.safe_load(handle)
    for item in objects["items"][:2]:
        (repo / "object.yaml").write_text(yaml.safe_dump(item))
        name = item["metadata"]["name"]
        assert (
            run(capsys, "new", "fixture", "object.yaml", "-o", f"fixtures/mlops-seldon-io-server-v1alpha1/{name}.yaml")[
                0
            ]
            == 0
        )
    code, out, _ = run(capsys, "test", "--mutants", "--min-mutation-score", "1")
    assert code == 1 and "zero-means-unset: `.spec.maxReplicas`" in out
    assert (
        "hint: add a fixture from a real object with .spec.maxReplicas = 0, pinning expect.components.pod.max: 0" in out
    )
