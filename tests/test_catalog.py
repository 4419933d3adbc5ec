"""The bundled catalog: naming, headers, lint, fixtures with full status-mapping coverage,
gang scheduling where the workload is gang-scheduled, the generated docs, and the replay of
every reference recording."""

from __future__ import annotations

import functools
import glob
import json
import os
import shutil

import pytest
from conftest import HAVE_SHARED_REFERENCE, REFERENCE, ROOT, build_wheel, read_yaml

from kartalint.evaluation import Evaluator
from kartalint.karta import as_dict, gang_scheduling, gvk_of, structure
from kartalint.lint import lint_paths
from kartalint.load.confinement import Confinement
from kartalint.load.definitions import DefinitionIndex
from kartalint.model import Severity
from kartalint.project import Config
from kartalint.report.catalog import MUTATION_HEADING, render_markdown
from kartalint.rules import registry
from kartalint.testing.cases import discover
from kartalint.testing.catalog import catalog_rows
from kartalint.testing.run import LintCache, run_cases

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


def root_gvk(data):
    return gvk_of(as_dict(structure(data).get("rootComponent")).get("kind"))


def test_catalog_covers_every_listed_type():
    assert {root_gvk(read_yaml(p)) for p in FILES} == EXPECTED_TYPES


@pytest.mark.parametrize("path", FILES, ids=os.path.basename)
def test_file_name_and_metadata_follow_the_convention(path):
    data = read_yaml(path)
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
    data = read_yaml(path)
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
        return index, cases, run_cases(cases, evaluator, LintCache(Config()))


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
        data = read_yaml(path)
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
        sources = [read_yaml(p).get("source", "") for p in glob.glob(os.path.join(FIXTURES, name, "*.yaml"))]
        assert any(s.startswith("recording ") for s in sources), name


def test_our_catalog_reproduces_every_recorded_state():
    index = DefinitionIndex.from_paths([CATALOG])
    found = discover([os.path.join(REFERENCE, "real-data"), os.path.join(REFERENCE, "recorded_data")], index)
    with Evaluator() as evaluator:
        report = run_cases(found.cases, evaluator, LintCache(Config()))
    assert len(report.results) == (242 if HAVE_SHARED_REFERENCE else 55)  # every frame: the full set, or the subset
    assert [r.case.id for r in report.results if r.outcome != "passed"] == []


REGENERATE = "run `kartalint catalog --format markdown --mutants > docs/catalog.md`"


def _docs_catalog() -> str:
    with open(os.path.join(ROOT, "docs", "catalog.md"), encoding="utf-8") as handle:
        return handle.read()


def test_docs_catalog_is_generated_from_the_catalog():
    index = DefinitionIndex.from_paths([CATALOG])
    table, _, _ = _docs_catalog().partition("\n" + MUTATION_HEADING)
    assert table == render_markdown(catalog_rows(index, [FIXTURES], Confinement([ROOT]), LintCache(Config()))), (
        REGENERATE
    )


def test_docs_catalog_records_the_mutation_score_of_every_definition():
    """The mutation section lists every definition; a sample of rows is recomputed here (the whole
    catalog takes about a minute: bench/mutants.py)."""
    from kartalint.mutation.run import MutationOptions, scores_by_definition
    from kartalint.project import read_config

    _, heading, section = _docs_catalog().partition("\n" + MUTATION_HEADING)
    assert heading, REGENERATE
    recorded = {
        line.split("|")[1].strip().strip("`"): [cell.strip() for cell in line.split("|")[2:-1]]
        for line in section.splitlines()
        if line.startswith("| `")
    }
    index = DefinitionIndex.from_paths([CATALOG])
    assert set(recorded) == {d.name for d in index.definitions}
    options = MutationOptions(
        equivalent=read_config(os.path.join(ROOT, ".kartalint.yaml"), rules=registry.RULES).mutants_equivalent
    )
    for name in ("jobset-x-k8s-io-jobset-v1alpha2", "batch-job-v1"):
        one = DefinitionIndex.from_paths([os.path.join(CATALOG, f"{name}.yaml")])
        scores = functools.partial(scores_by_definition, definitions=one.definitions, options=options)
        [row] = catalog_rows(one, [os.path.join(FIXTURES, name)], Confinement([ROOT]), LintCache(Config()), scores)
        found = row["mutation"]
        expected = [found[k] for k in ("mutants", "killed", "survived", "equivalent", "untested", "invalid")]
        assert recorded[name] == [*map(str, expected), f"{found['score']:.2f}"], REGENERATE


@pytest.mark.slow
def test_the_wheel_ships_the_catalog_with_its_fixtures(tmp_path):
    """Issue 28 item 10: from a regular (non-editable) install, `kartalint catalog` shows every
    definition's fixtures and coverage and `kartalint test --catalog` runs them. The wheel is built
    from the tracked files in a temporary folder, and used from there, never from the checkout."""
    import subprocess
    import sys
    import zipfile

    source = tmp_path / "source"
    listed = subprocess.run(["git", "ls-files", "-z", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    for name in filter(None, listed.stdout.decode().split("\0")):
        if os.path.isfile(os.path.join(ROOT, name)):
            os.makedirs(os.path.dirname(source / name), exist_ok=True)
            shutil.copyfile(os.path.join(ROOT, name), source / name)
    build_wheel(source, tmp_path)
    [wheel] = tmp_path.glob("kartalint-*.whl")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        archive.extractall(site)
    shipped = {n for n in names if n.startswith("kartalint/fixtures/")}
    assert len(shipped) == len(glob.glob(os.path.join(ROOT, "fixtures", "**", "*.yaml"), recursive=True))
    elsewhere = tmp_path / "elsewhere"  # not a project, not the checkout
    elsewhere.mkdir()
    env = dict(os.environ, PYTHONPATH=str(site))
    env.pop("CI", None)

    def kartalint(*argv):
        return subprocess.run(
            [sys.executable, "-m", "kartalint", *argv],
            cwd=elsewhere,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )

    where = subprocess.run(
        [sys.executable, "-c", "import kartalint; print(kartalint.__file__)"],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
    )
    assert where.stdout.startswith(str(site)), where.stdout
    proc = kartalint("catalog", "-f", "json")
    rows = json.loads(proc.stdout)["definitions"]
    assert proc.returncode == 0 and len(rows) == len(glob.glob(os.path.join(ROOT, "catalog", "*.yaml")))
    assert all(row["fixtures"] > 0 and row["coverage"] == 100 for row in rows), [r for r in rows if not r["fixtures"]]
    proc = kartalint("test", "--catalog")
    assert proc.returncode == 0 and " 0 failed, 0 error(s)" in proc.stdout, proc.stdout[-2000:] + proc.stderr


@pytest.fixture(scope="module")
def evaluator():
    with Evaluator() as running:
        yield running


@pytest.mark.parametrize("path", FILES, ids=os.path.basename)
def test_every_value_the_operator_writes_reads_as_the_written_values_say(path, evaluator):
    """Issue 36 item 3: each definition's fixtures/<name>/written-values.yaml lists every phase or
    condition set its operator writes (from the operator's source, cited in `source`); the
    definition gives each the status listed (Undefined only with a note), and maps nothing the
    operator never writes."""
    from kartalint.testing import written

    data = read_yaml(path)
    found = written.find(FIXTURES, data["metadata"]["name"])
    assert found, f"fixtures/{data['metadata']['name']}/{written.FILE_NAME} lists what the operator writes"
    values = written.load(found)
    assert "@" in values.source  # a repository at a commit
    wrong = [
        (v.label, v.status, got)
        for v, got in written.evaluate(data, values, evaluator)
        if sorted(got) != sorted(v.status)
    ]
    assert wrong == []
    assert written.unwritten(data, values) == []


def test_written_values_files_are_checked(tmp_path):
    from kartalint.testing import written

    bad = tmp_path / "written-values.yaml"
    bad.write_text("kind: KartaWrittenValues\nsource: x@1\nvalues:\n- phase: UNKNOWN\n  status: Undefined\n")
    with pytest.raises(written.WrittenValuesError, match="needs a 'note'"):
        written.load(str(bad))
    bad.write_text("kind: KartaWrittenValues\nvalues: [{phase: A, status: Running}]\n")
    with pytest.raises(written.WrittenValuesError, match="'source'"):
        written.load(str(bad))
    definition = read_yaml(os.path.join(CATALOG, "batch-volcano-sh-job-v1alpha1.yaml"))
    bad.write_text("kind: KartaWrittenValues\nsource: x@1\nvalues: [{phase: Running, status: Running}]\n")
    assert "failed: byPhase Failed" in written.unwritten(definition, written.load(str(bad)))
