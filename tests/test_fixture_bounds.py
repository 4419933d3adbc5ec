"""Issue 43, item 6, on Seldon Core v2's Server (a CRD and objects the catalog lacks,
tests/data/from-objects/seldon-server): `new fixture` pins `min` and `max` where a component has
them, at a key a person can type for a one-instance component (`expect.components.pod.max`), and
the mutation family `zero-means-unset` asks, where the CRD documents 0 as "not set" (Server's
`maxReplicas`: "default equal to 0"), for a fixture that says what the definition makes of a 0."""

from __future__ import annotations

import json
import os
import pathlib
import shutil

import pytest
import yaml
from conftest import ROOT

from kartalint.cli import main

SELDON = os.path.join(ROOT, "tests", "data", "from-objects", "seldon-server")

# A Server's pods are one StatefulSet (operator/controllers/reconcilers/server/statefulset_reconciler.go
# in SeldonIO/seldon-core at 7b77f8b): one component, the Server's replicas, and the bounds its
# scheduler autoscales within (spec.minReplicas, spec.maxReplicas), read as they are.
DEFINITION = """\
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
    childComponents:
    - name: pod
      kind: {group: "", version: v1, kind: Pod}
      ownerRef: server
      specDefinition: {podSpecPath: .spec.podSpec}
      scaleDefinition:
        replicasPath: .spec.replicas // 1
        minReplicasPath: .spec.minReplicas
        maxReplicasPath: .spec.maxReplicas
"""


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def servers():
    with open(os.path.join(SELDON, "objects.yaml"), encoding="utf-8") as handle:
        return yaml.safe_load(handle)["items"]


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A team's repository: the Server definition, Seldon's CRD, one fixture drafted from triton-gpu
    with its autoscaling bounds set (2 to 4 replicas)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "server.yaml").write_text(DEFINITION)
    shutil.copyfile(os.path.join(SELDON, "crd.yaml"), tmp_path / "crd.yaml")
    (tmp_path / ".kartalint.yaml").write_text("definitions: [server.yaml]\nfixtures: [fixtures]\ncrds: [crd.yaml]\n")
    server = servers()[0]
    server["spec"].update(minReplicas=2, maxReplicas=4)
    (tmp_path / "triton.yaml").write_text(yaml.safe_dump(server))
    (tmp_path / "fixtures" / "mlops-seldon-io-server-v1alpha1").mkdir(parents=True)
    return tmp_path


def test_new_fixture_pins_min_and_max_of_a_one_instance_component_at_its_own_keys(project, capsys):
    out_path = "fixtures/mlops-seldon-io-server-v1alpha1/triton.yaml"
    code, _, _ = run(capsys, "new", "fixture", "triton.yaml", "-o", out_path)
    assert code == 0
    expect = yaml.safe_load((project / out_path).read_text().split("---\n", 1)[1])["expect"]
    assert expect["components"]["pod"] == {"replicas": 2, "min": 2, "max": 4, "gpus": 2}
    code, out, _ = run(capsys, "test")
    assert code == 0 and "1 passed" in out
    # the pinned bounds are compared: a definition that swaps them fails the fixture
    (project / "server.yaml").write_text(
        DEFINITION.replace("minReplicasPath: .spec.minReplicas", "minReplicasPath: .spec.maxReplicas")
    )
    code, out, _ = run(capsys, "test")
    assert code == 1 and "pod.min: expected 2, got 4" in out


def test_new_fixture_pins_the_bounds_of_each_instance_and_leaves_out_those_a_component_lacks(tmp_path, capsys):
    """RayCluster's worker groups (the catalog's fixtures, from recordings) have min and max per
    instance; the head, which has neither, pins neither."""
    fixture = os.path.join(ROOT, "fixtures", "ray-io-raycluster-v1")
    with_workers = next(
        os.path.join(fixture, name)
        for name in sorted(os.listdir(fixture))
        if name.endswith(".yaml") and "maxReplicas" in pathlib.Path(fixture, name).read_text(encoding="utf-8")
    )
    obj = yaml.safe_load(pathlib.Path(with_workers).read_text(encoding="utf-8"))["object"]
    (tmp_path / "ray.yaml").write_text(yaml.safe_dump(obj))
    code, _, _ = run(capsys, "new", "fixture", str(tmp_path / "ray.yaml"), "-o", str(tmp_path / "f.yaml"))
    expect = yaml.safe_load((tmp_path / "f.yaml").read_text().split("---\n", 1)[1])["expect"]
    workers = expect["components"]["worker"]["instances"]
    assert code == 0 and workers
    for group, spec in zip(
        sorted(workers), sorted(obj["spec"]["workerGroupSpecs"], key=lambda g: g["groupName"]), strict=True
    ):
        pinned = workers[group]
        assert ("max" in pinned) == ("maxReplicas" in spec), (group, pinned)
    assert any("max" in pinned for pinned in workers.values()), workers
    assert "min" not in expect["components"]["head"] and "max" not in expect["components"]["head"]


def test_zero_means_unset_asks_for_a_fixture_with_a_zero_where_the_crd_documents_it(project, capsys):
    out_path = "fixtures/mlops-seldon-io-server-v1alpha1/triton.yaml"
    assert run(capsys, "new", "fixture", "triton.yaml", "-o", out_path)[0] == 0
    code, out, _ = run(capsys, "test", "--mutants", "-f", "json")
    assert code == 0, "survivors are notes without a minimum score"
    results = json.loads(out)["mutation"]["definitions"][0]["results"]
    zero = {r["id"].split(":")[0]: r for r in results if r["operator"] == "zero-means-unset"}
    assert sorted(zero) == ["pod.scaleDefinition.maxReplicasPath", "pod.scaleDefinition.minReplicasPath"]
    maximum = zero["pod.scaleDefinition.maxReplicasPath"]
    assert maximum["outcome"] == "survived"
    assert (
        maximum["hint"]
        == "add a fixture from a real object with .spec.maxReplicas = 0, pinning expect.components.pod.max: 0"
    )
    # the fixture the hint asks for: a Server whose bounds are left at 0 (the CRD's "default equal to 0")
    server = servers()[2]
    server["spec"].update(minReplicas=0, maxReplicas=0)
    (project / "zero.yaml").write_text(yaml.safe_dump(server))
    assert (
        run(capsys, "new", "fixture", "zero.yaml", "-o", "fixtures/mlops-seldon-io-server-v1alpha1/zero.yaml")[0] == 0
    )
    pinned = (project / "fixtures/mlops-seldon-io-server-v1alpha1/zero.yaml").read_text()
    assert "max: 0" in pinned, "a maximum of 0 is what this definition shows: the author sees it and decides"
    _, out, _ = run(capsys, "test", "--mutants", "-f", "json")
    results = json.loads(out)["mutation"]["definitions"][0]["results"]
    assert all(r["outcome"] == "killed" for r in results if r["operator"] == "zero-means-unset")


def test_zero_means_unset_needs_the_project_s_crds(project, capsys):
    (project / ".kartalint.yaml").write_text("definitions: [server.yaml]\nfixtures: [fixtures]\n")
    assert run(capsys, "new", "fixture", "triton.yaml", "-o", "fixtures/mlops-seldon-io-server-v1alpha1/t.yaml")[0] == 0
    code, out, _ = run(capsys, "test", "--mutants", "-f", "json")
    results = json.loads(out)["mutation"]["definitions"][0]["results"]
    assert code == 0 and results and not [r for r in results if r["operator"] == "zero-means-unset"]
