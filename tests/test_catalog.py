"""The bundled catalog: naming, headers, lint, fixtures with full status-mapping coverage,
gang scheduling where the workload is gang-scheduled, the generated docs, and the replay of
every reference recording."""

from __future__ import annotations

import glob
import os

import pytest
import yaml
from conftest import HAVE_SHARED_REFERENCE, REFERENCE, ROOT

from kartalint.evaluation import Evaluator
from kartalint.karta import as_dict, gang_scheduling, gvk_of, structure
from kartalint.load.definitions import DefinitionIndex
from kartalint.model import Severity
from kartalint.report.catalog import render_markdown, rows
from kartalint.rules.config import Config
from kartalint.rules.lint import lint_paths
from kartalint.testing.cases import discover
from kartalint.testing.run import run

CATALOG = os.path.join(ROOT, "catalog")
FIXTURES = os.path.join(ROOT, "fixtures")
FILES = sorted(glob.glob(os.path.join(CATALOG, "*.yaml")))
GANG_SCHEDULED = {  # distributed training and multi-node / multi-role workloads
    "JobSet",
    "LeaderWorkerSet",
    "PyTorchJob",
    "TFJob",
    "XGBoostJob",
    "JAXJob",
    "PaddleJob",
    "MPIJob",
    "TrainJob",
    "RayCluster",
    "RayJob",
    "RayService",
    "DynamoGraphDeployment",
    "PodCliqueSet",
    "SparkApplication",
}
EXPECTED_TYPES = {
    ("apps", "v1", "Deployment"),
    ("apps", "v1", "StatefulSet"),
    ("batch", "v1", "Job"),
    ("batch", "v1", "CronJob"),
    ("", "v1", "Pod"),
    ("jobset.x-k8s.io", "v1alpha2", "JobSet"),
    ("leaderworkerset.x-k8s.io", "v1", "LeaderWorkerSet"),
    ("kubeflow.org", "v1", "PyTorchJob"),
    ("kubeflow.org", "v2beta1", "MPIJob"),
    ("kubeflow.org", "v1", "TFJob"),
    ("kubeflow.org", "v1", "XGBoostJob"),
    ("kubeflow.org", "v1", "JAXJob"),
    ("kubeflow.org", "v1", "PaddleJob"),
    ("trainer.kubeflow.org", "v1alpha1", "TrainJob"),
    ("ray.io", "v1", "RayCluster"),
    ("ray.io", "v1", "RayJob"),
    ("ray.io", "v1", "RayService"),
    ("serving.kserve.io", "v1beta1", "InferenceService"),
    ("serving.kserve.io", "v1alpha1", "LLMInferenceService"),
    ("serving.kserve.io", "v1alpha2", "LLMInferenceService"),
    ("serving.knative.dev", "v1", "Service"),
    ("apps.nvidia.com", "v1alpha1", "NIMService"),
    ("apps.nvidia.com", "v1alpha1", "NIMCache"),
    ("nvidia.com", "v1alpha1", "DynamoGraphDeployment"),
    ("nvidia.com", "v1beta1", "DynamoGraphDeployment"),
    ("grove.io", "v1alpha1", "PodCliqueSet"),
    ("milvus.io", "v1beta1", "Milvus"),
    ("agents.x-k8s.io", "v1beta1", "Sandbox"),
    ("batch.volcano.sh", "v1alpha1", "Job"),
    ("sparkoperator.k8s.io", "v1beta2", "SparkApplication"),
    ("argoproj.io", "v1alpha1", "Workflow"),
}


def load(path):
    with open(path, encoding="utf-8") as handle:
        return yaml.load(handle, Loader=yaml.CSafeLoader)  # libyaml: the same data, faster


def root_gvk(data):
    return gvk_of(as_dict(structure(data).get("rootComponent")).get("kind"))


def test_catalog_covers_every_listed_type():
    assert {root_gvk(load(p)) for p in FILES} == EXPECTED_TYPES


@pytest.mark.parametrize("path", FILES, ids=os.path.basename)
def test_file_name_and_metadata_follow_the_convention(path):
    data = load(path)
    group, version, kind = root_gvk(data)
    expected = f"{(group or 'core').replace('.', '-')}-{kind.lower()}-{version}"
    assert os.path.basename(path) == expected + ".yaml"
    assert data["metadata"]["name"] == expected


@pytest.mark.parametrize("path", FILES, ids=os.path.basename)
def test_header_says_roles_and_fields_read(path):
    with open(path, encoding="utf-8") as handle:
        header = "".join(line for line in handle if line.startswith("#"))
    assert "Roles:" in header and "Reads:" in header


def test_catalog_lints_clean_under_strict():
    result = lint_paths([CATALOG], Config())
    assert [f for f in result.findings if f.severity >= Severity.WARNING] == []
    assert result.karta_documents == len(FILES)


@pytest.mark.parametrize("path", FILES, ids=os.path.basename)
def test_gang_scheduling_where_gang_scheduled_in_practice(path):
    data = load(path)
    kind = root_gvk(data)[2]
    if kind in GANG_SCHEDULED:
        assert gang_scheduling(data), f"{kind} is gang-scheduled in practice"


@pytest.fixture(scope="module")
def fixture_run():
    index = DefinitionIndex.from_paths([CATALOG])
    found = discover([FIXTURES], index)
    catalog_paths = {d.path for d in index.definitions}
    cases = [c for c in found.cases if c.definition is not None and c.definition.path in catalog_paths]
    with Evaluator() as evaluator:
        return index, cases, run(cases, evaluator)


def test_every_definition_has_passing_fixtures_covering_every_status_mapping(fixture_run):
    index, _cases, report = fixture_run
    assert all(r.outcome == "passed" for r in report.results), [
        r.case.id for r in report.results if r.outcome != "passed"
    ]
    for definition in index.definitions:
        coverage = report.coverage.get(definition.path)
        assert coverage is not None, f"{definition.name} has no fixture"
        assert coverage.unmatched == [], (definition.name, coverage.unmatched)


def test_fixtures_say_where_their_object_comes_from():
    for path in glob.glob(os.path.join(FIXTURES, "*", "*.yaml")):
        data = load(path)
        if isinstance(data, dict) and data.get("kind") == "KartaFixture":
            source = data.get("source", "")
            assert source.startswith(
                ("recording ../shared/reference/", "written from", "object from", "object file")
            ), (path, source)


def test_recorded_types_have_fixtures_from_recordings():
    recorded = {
        os.path.basename(os.path.dirname(p))
        for p in glob.glob(os.path.join(REFERENCE, "*data", "*", "*", "*", "*.yaml"))
    }
    for name in recorded:
        sources = [load(p).get("source", "") for p in glob.glob(os.path.join(FIXTURES, name, "*.yaml"))]
        assert any(s.startswith("recording ") for s in sources), name


def test_our_catalog_reproduces_every_recorded_state():
    index = DefinitionIndex.from_paths([CATALOG])
    found = discover([os.path.join(REFERENCE, "real-data"), os.path.join(REFERENCE, "recorded_data")], index)
    with Evaluator() as evaluator:
        report = run(found.cases, evaluator)
    assert len(report.results) == (242 if HAVE_SHARED_REFERENCE else 50)  # every frame: the full set, or the subset
    assert [r.case.id for r in report.results if r.outcome != "passed"] == []


def test_docs_catalog_is_generated_from_the_catalog():
    index = DefinitionIndex.from_paths([CATALOG])
    with open(os.path.join(ROOT, "docs", "catalog.md"), encoding="utf-8") as handle:
        assert handle.read() == render_markdown(rows(index, FIXTURES)), (
            "run `kartalint catalog --format markdown > docs/catalog.md`"
        )
