"""The bundled catalog: naming, headers, lint, fixtures with full status-mapping coverage,
gang scheduling where the workload is gang-scheduled, the generated docs, and the replay of
every reference recording."""

from __future__ import annotations

import functools
import glob
import json
import os
import re
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


DEPARTURES = os.path.join(ROOT, "tests", "data", "catalog-replay-departures.yaml")


def test_our_catalog_reproduces_every_recorded_state_but_the_listed_departures():
    """Every recorded frame passes upstream's replay contract (the recorded state is among the
    computed statuses), except the frames tests/data/catalog-replay-departures.yaml lists (issue
    50: frames the recorder left Undefined where the operator has written that the workload
    starts, resumes or suspends, and LLMInferenceService frames it judged Failed while the model
    server starts), which give exactly the statuses listed there, each with its reason."""
    from kartalint.testing.run import mark_known_failures

    index = DefinitionIndex.from_paths([CATALOG])
    found = discover([os.path.join(REFERENCE, "real-data"), os.path.join(REFERENCE, "recorded_data")], index)
    mark_known_failures(found.cases, DEPARTURES)
    with Evaluator() as evaluator:
        report = run_cases(found.cases, evaluator, LintCache(Config()))
    assert len(report.results) == (242 if HAVE_SHARED_REFERENCE else 55)  # every frame: the full set, or the subset
    assert [r.case.id for r in report.results if r.outcome not in ("passed", "xfailed")] == []
    listed = {entry["id"]: entry for entry in read_yaml(DEPARTURES)}
    departed = {
        next(i for i in listed if r.case.id.endswith("/" + i)): list(r.view.statuses) if r.view else None
        for r in report.results
        if r.outcome == "xfailed"
    }
    assert departed == ({i: e["computed"] for i, e in listed.items()} if HAVE_SHARED_REFERENCE else {})
    assert all(e["reason"] and e["recorded"] not in e["computed"] for e in listed.values())
    # Only states the recorder left Undefined depart, but for the one flow that judges a starting
    # model server Failed (KServe writes the same reasons before any failure is known).
    assert {i for i, e in listed.items() if e["recorded"] != "Undefined"} == {
        i for i in listed if "serving-kserve-io-llminferenceservice-v1alpha2" in i
    }
    assert {e["recorded"] for e in listed.values()} == {"Undefined", "Failed"}


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
    # a module an earlier build left in build/ (since removed from the sources) is not shipped
    stale = source / "build" / "lib" / "kartalint" / "rules" / "removed_family.py"
    stale.parent.mkdir(parents=True)
    stale.write_text("raise ImportError('a module of an earlier build')\n")
    build_wheel(source, tmp_path)
    [wheel] = tmp_path.glob("kartalint-*.whl")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        archive.extractall(site)
    assert "kartalint/rules/removed_family.py" not in names and "kartalint/rules/registry.py" in names
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


def _written_file(tmp_path, text):
    path = tmp_path / "written-values.yaml"
    path.write_text("kind: KartaWrittenValues\nsource: op/erator@1 status.go\n" + text)
    return str(path)


MODES = "modes:\n- {mode: a, versions: v1 to v2, source: op/erator@1 a.go}\n- {mode: b, versions: v2}\n"


def test_written_values_name_their_mode_and_cite_their_code(tmp_path):
    """Issue 50: a written-values file may list the operator's deployment modes with the versions
    they cover; each value then names its modes and the code that writes it."""
    from kartalint.testing import written

    loaded = written.load(
        _written_file(
            tmp_path,
            MODES + "values:\n- {phase: A, mode: a, source: a.go Reconcile, status: Running}\n"
            "- {phase: B, mode: [a, b], source: b.go Sync, status: Failed}\n",
        )
    )
    assert [(m.name, m.versions, m.source) for m in loaded.modes] == [
        ("a", "v1 to v2", "op/erator@1 a.go"),
        ("b", "v2", ""),
    ]
    assert [(v.label, v.modes, v.source) for v in loaded.values] == [
        ("A", ["a"], "a.go Reconcile"),
        ("B", ["a", "b"], "b.go Sync"),
    ]
    plain = written.load(_written_file(tmp_path, "values:\n- {phase: A, status: Running}\n"))
    assert plain.modes == [] and plain.values[0].modes == [] and plain.values[0].source == ""


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (MODES + "values:\n- {phase: A, source: a.go, status: Running}\n", "each value names its 'mode'"),
        (MODES + "values:\n- {phase: A, mode: c, source: a.go, status: Running}\n", "mode 'c' is not among"),
        (MODES + "values:\n- {phase: A, mode: [a, b], status: Running}\n", "cites the code that writes it"),
        (MODES + "values:\n- {phase: A, mode: a, source: a.go, status: Running}\n", "mode 'b' is listed, but no value"),
        ("values:\n- {phase: A, mode: a, status: Running}\n", "the file lists no 'modes'"),
        ("modes:\n- {mode: a, versions: v1}\n- {mode: a, versions: v2}\nvalues: []\n", "listed twice"),
        ("modes:\n- {mode: a}\nvalues: []\n", r"needs 'mode' \(its name\) and 'versions'"),
        ("modes: [x]\nvalues: []\n", "must be a mapping with 'mode' and 'versions'"),
        (
            MODES + "values:\n- {phase: A, mode: [a, 3], source: a.go, status: Running}\n",
            "a mode name or a list of them",
        ),
        (
            MODES + "values:\n- {phase: A, mode: [a, b], source: '  ', status: Running}\n",
            "'source' must be a non-empty string",
        ),
    ],
)
def test_written_values_modes_are_checked(tmp_path, text, message):
    from kartalint.testing import written

    with pytest.raises(written.WrittenValuesError, match=message):
        written.load(_written_file(tmp_path, text))


@pytest.mark.parametrize(
    "content, message",
    [
        (
            b"kind: KartaWrittenValues\nsource: x\nvalues: [\n",
            r"written-values.yaml:4:1: YAML syntax error: did not find expected node content",
        ),
        (
            b"kind: KartaWrittenValues\nsource: x\nvalues: [\xff\n",
            r"written-values.yaml:4:1: YAML syntax error: did not find expected ','",
        ),
        (b"kind: KartaWrittenValues\nsource: x\nvalues: 3\n", r"written-values.yaml: 'values' lists nothing"),
    ],
)
def test_a_broken_written_values_file_stops_the_catalog_with_its_place(tmp_path, monkeypatch, capsys, content, message):
    """`kartalint catalog` on a project whose written-values.yaml does not load, or does not follow
    the format, ends with one error line naming the file (and the place in it), exit 2: no traceback."""
    from kartalint.cli import main

    name = "batch-job-v1"
    (tmp_path / ".kartalint.yaml").write_text("definitions: [definitions]\n")
    (tmp_path / "definitions").mkdir()
    shutil.copyfile(os.path.join(CATALOG, f"{name}.yaml"), tmp_path / "definitions" / f"{name}.yaml")
    (tmp_path / "fixtures" / name).mkdir(parents=True)
    shutil.copyfile(os.path.join(FIXTURES, name, "completed.yaml"), tmp_path / "fixtures" / name / "completed.yaml")
    (tmp_path / "fixtures" / name / "written-values.yaml").write_bytes(content)
    monkeypatch.chdir(tmp_path)
    assert main(["catalog"]) == 2
    err = capsys.readouterr().err
    assert re.search(message, err) and "Traceback" not in err and len(err.strip().splitlines()) == 1, err


WRITTEN_MODES = {  # per definition, the operator's modes its written values cover, and the statuses each mode reads
    "agents-x-k8s-io-sandbox-v1beta1": {
        "Sandbox controller": {"Initializing", "Running", "Completed", "Failed", "Suspending", "Suspended", "Resuming"},
    },
    "apps-deployment-v1": {"Deployment controller": {"Initializing", "Running", "Failed", "Degraded"}},
    "apps-nvidia-com-nimcache-v1alpha1": {"caching job": {"Initializing", "Running", "Completed", "Failed"}},
    "apps-nvidia-com-nimservice-v1alpha1": {
        "standalone": {"Initializing", "Running", "Failed"},
        "KServe": {"Initializing", "Running", "Failed"},
    },
    "apps-statefulset-v1": {"StatefulSet controller": {"Initializing", "Running", "Suspended"}},
    "argoproj-io-workflow-v1alpha1": {
        "workflow controller": {"Initializing", "Running", "Completed", "Failed", "Suspended"},
    },
    "batch-cronjob-v1": {"CronJob controller": {"Initializing", "Running", "Degraded", "Suspended"}},
    "batch-job-v1": {
        "Job controller 1.31 and later": {"Initializing", "Running", "Completed", "Failed", "Degraded", "Suspended"},
        "Job controller 1.24 to 1.30": {"Initializing", "Running", "Completed", "Failed", "Degraded", "Suspended"},
    },
    "batch-volcano-sh-job-v1alpha1": {
        "job state machine": {"Initializing", "Running", "Completed", "Failed", "Suspending", "Suspended"},
    },
    "core-pod-v1": {"kubelet": {"Initializing", "Running", "Completed", "Failed", "Degraded"}},
    "grove-io-podcliqueset-v1alpha1": {"Grove operator": {"Initializing", "Running", "Degraded", "Suspended"}},
    "jobset-x-k8s-io-jobset-v1alpha2": {
        "JobSet controller": {"Initializing", "Running", "Completed", "Failed", "Suspended"},
    },
    "kubeflow-org-jaxjob-v1": {"training-operator": {"Initializing", "Running", "Completed", "Failed", "Suspended"}},
    "kubeflow-org-mpijob-v2beta1": {"mpi-operator": {"Initializing", "Running", "Completed", "Failed", "Suspended"}},
    "kubeflow-org-paddlejob-v1": {"training-operator": {"Initializing", "Running", "Completed", "Failed", "Suspended"}},
    "kubeflow-org-pytorchjob-v1": {
        "training-operator": {"Initializing", "Running", "Completed", "Failed", "Suspended"},
    },
    "kubeflow-org-tfjob-v1": {"training-operator": {"Initializing", "Running", "Completed", "Failed", "Suspended"}},
    "kubeflow-org-xgboostjob-v1": {
        "training-operator": {"Initializing", "Running", "Completed", "Failed", "Suspended"},
    },
    "leaderworkerset-x-k8s-io-leaderworkerset-v1": {"LeaderWorkerSet controller": {"Initializing", "Running"}},
    "milvus-io-milvus-v1beta1": {"milvus-operator": {"Initializing", "Running", "Degraded", "Suspended"}},
    "nvidia-com-dynamographdeployment-v1alpha1": {
        "Grove": {"Initializing", "Running", "Failed"},
        "component deployments": {"Initializing", "Running", "Failed"},
    },
    "nvidia-com-dynamographdeployment-v1beta1": {
        "Grove": {"Initializing", "Running", "Failed"},
        "component deployments": {"Initializing", "Running", "Failed"},
    },
    "ray-io-raycluster-v1": {
        "status conditions": {"Initializing", "Running", "Degraded", "Suspended", "Resuming"},
        "state only": {"Initializing", "Running", "Suspended", "Resuming"},
    },
    "ray-io-rayjob-v1": {
        "K8sJobMode": {"Initializing", "Running", "Completed", "Failed", "Suspending", "Suspended"},
        "SidecarMode": {"Initializing", "Running", "Completed", "Failed", "Suspending", "Suspended"},
        "HTTPMode": {"Initializing", "Running", "Completed", "Failed", "Suspending", "Suspended"},
        "InteractiveMode": {"Initializing", "Running", "Completed", "Failed", "Suspending", "Suspended"},
    },
    "ray-io-rayservice-v1": {
        "RayService controller": {"Initializing", "Running", "Failed", "Degraded", "Suspending", "Suspended"},
    },
    "serving-knative-dev-service-v1": {"Knative Serving": {"Initializing", "Running", "Failed", "Degraded"}},
    "serving-kserve-io-inferenceservice-v1beta1": {
        "serverless": {"Initializing", "Running", "Failed", "Degraded", "Suspended"},
        "raw deployment": {"Initializing", "Running", "Failed", "Degraded", "Suspended"},
        "ModelMesh": {"Initializing", "Running", "Failed", "Degraded"},
    },
    "serving-kserve-io-llminferenceservice-v1alpha1": {
        "single-node": {"Initializing", "Running", "Failed", "Suspended"},
        "multi-node": {"Initializing", "Running", "Failed", "Suspended"},
    },
    "serving-kserve-io-llminferenceservice-v1alpha2": {
        "single-node": {"Initializing", "Running", "Failed", "Suspended"},
        "multi-node": {"Initializing", "Running", "Failed", "Suspended"},
    },
    "sparkoperator-k8s-io-sparkapplication-v1beta2": {
        "spark-operator": {"Initializing", "Running", "Completed", "Failed", "Suspending", "Suspended", "Resuming"},
    },
    "trainer-kubeflow-org-trainjob-v1alpha1": {
        "JobSet runtime": {"Initializing", "Running", "Completed", "Failed", "Suspended"},
    },
}
# Values of a written-values file left Undefined although the operator wrote them (besides a status
# nobody has written yet), each for the reason its note gives.
DELIBERATELY_UNDEFINED = {
    ("argoproj-io-workflow-v1alpha1", '""'),  # WorkflowUnknown: the controller has not taken it up
    ("core-pod-v1", "Unknown"),  # declared, not set by any component since 2015
    ("milvus-io-milvus-v1beta1", "Deleting"),  # the object is being deleted: no lifecycle status is true
    ("nvidia-com-dynamographdeployment-v1alpha1", 'state "" (Dynamo 1.2.1 stores it'),  # nothing decided yet
    ("nvidia-com-dynamographdeployment-v1beta1", 'state "" (Dynamo 1.2.1 stores it'),
    ("sparkoperator-k8s-io-sparkapplication-v1beta2", "UNKNOWN"),  # a pod phase Kubernetes no longer writes
}


def test_every_definition_has_its_written_values_per_mode():
    """Issue 50 item 1: every catalog definition's written-values.yaml lists the operator's modes with
    the versions each covers, and every value names its mode and cites the code that writes it."""
    from kartalint.testing import written

    names = [os.path.basename(p)[: -len(".yaml")] for p in FILES]
    assert sorted(WRITTEN_MODES) == names
    for name in names:
        values = written.load(written.find(FIXTURES, name))
        assert values.modes and all(m.versions and m.source for m in values.modes), name
        assert all(v.source and v.modes for v in values.values), name


@pytest.mark.parametrize("name", sorted(WRITTEN_MODES))
def test_the_written_values_cover_every_mode_with_its_starting_failing_and_serving_states(name, evaluator):
    """Issue 50: each deployment mode the operator has is listed with its versions, and in every mode
    the definition reads the starting, serving and failing states the operator writes (evaluated,
    not taken from the file). Undefined only where the operator has written no status, and for the
    few values listed in DELIBERATELY_UNDEFINED."""
    from kartalint.testing import written

    data = read_yaml(os.path.join(CATALOG, f"{name}.yaml"))
    values = written.load(written.find(FIXTURES, name))
    assert [m.name for m in values.modes] == list(WRITTEN_MODES[name])
    shown: dict[str, set[str]] = {mode: set() for mode in WRITTEN_MODES[name]}
    for value, statuses in written.evaluate(data, values, evaluator):
        for mode in value.modes:
            shown[mode].update(statuses)
    for mode, wanted in WRITTEN_MODES[name].items():
        assert shown[mode] - {"Undefined"} == wanted, mode
    for value in values.values:
        if value.status == ["Undefined"]:
            nothing_written = value.phase is None and not value.conditions and not value.fields
            listed = any(n == name and value.label.startswith(label) for n, label in DELIBERATELY_UNDEFINED)
            assert nothing_written or listed, value.label


def test_the_catalog_page_lists_the_modes_and_versions_of_the_written_values():
    """Issue 50 item 4: docs/catalog.md names, per definition, the modes and versions its written
    values cover, and each value's mode and source."""
    page = _docs_catalog()
    section = page.partition("### InferenceService (serving.kserve.io/v1beta1)")[2].partition("\n### ")[0]
    assert "Modes and versions:" in section
    for mode in ("serverless", "raw deployment", "ModelMesh"):
        assert f"- **{mode}**: " in section
    assert "KServe v0.10.0 to v0.20.0" in section and "modelmesh-serving v0.11.0 to v0.12.0" in section
    assert "| mode | written | status | note | source |" in section
    assert "| ModelMesh | PredictorReady=True with BlockedByFailedLoad" in section
    cron = page.partition("### CronJob (batch/v1)")[2].partition("\n### ")[0]
    assert "- **CronJob controller**: Kubernetes v1.21 and later" in cron
    assert "| Degraded |" in cron
    sandbox = page.partition("### Sandbox (agents.x-k8s.io/v1beta1)")[2].partition("\n### ")[0]
    assert "- **Sandbox controller**: agent-sandbox v0.5.0" in sandbox
    assert "one set of values, from the source above" not in page  # every definition lists its modes


def test_a_written_values_file_without_modes_shows_one_set_of_values(tmp_path):
    """A project's own written-values.yaml may leave `modes` out: the catalog page then says the
    values are one set, from the file's source, and shows no mode or source columns."""
    name = "batch-job-v1"
    shutil.copyfile(os.path.join(CATALOG, f"{name}.yaml"), tmp_path / f"{name}.yaml")
    (tmp_path / "fixtures" / name).mkdir(parents=True)
    shutil.copyfile(os.path.join(FIXTURES, name, "completed.yaml"), tmp_path / "fixtures" / name / "completed.yaml")
    (tmp_path / "fixtures" / name / "written-values.yaml").write_text(
        "kind: KartaWrittenValues\nsource: kubernetes/api@10b39a3 batch/v1/types.go\n"
        "values:\n- {conditions: [{type: Complete}], status: Completed}\n"
    )
    index = DefinitionIndex.from_paths([str(tmp_path / f"{name}.yaml")])
    page = render_markdown(
        catalog_rows(index, [str(tmp_path / "fixtures")], Confinement([str(tmp_path)]), LintCache(Config()))
    )
    section = page.partition("### Job (batch/v1)")[2]
    assert "Modes and versions: one set of values, from the source above." in section
    assert "| written | status | note |" in section and "| mode |" not in section
    assert "| Complete=True | Completed |  |" in section
