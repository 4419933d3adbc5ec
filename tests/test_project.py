"""The user's repository: the project model, `kartalint init`, the kubectl workflow, a consistent CLI."""

from __future__ import annotations

import io
import json
import os
import sys

import pytest
import yaml
from conftest import BASE_DEFINITION, ROOT, trainer_object

from kartalint.cli import main

BROKEN_SCALE = BASE_DEFINITION.replace(
    "replicasPath: .spec.roles[] | (.replicas // 1)", "replicasPath: .spec.roles[] | .replicas * 3"
)


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def trainer_fixture(expect=None, **extra):
    doc = {"apiVersion": "kartalint/v1", "kind": "KartaFixture", "name": "running", "source": "test"}
    doc.update(extra)
    doc["object"] = trainer_object()
    doc["expect"] = expect or {"statuses": ["Running"], "components": {"worker": {"replicas": 2}}}
    return yaml.safe_dump(doc, sort_keys=False)


@pytest.fixture
def user_repo(tmp_path, monkeypatch):
    """A user's repository outside this one: definitions/ layout, no configuration, a git work tree."""
    repo = tmp_path / "user"
    (repo / ".git").mkdir(parents=True)  # the project root marker; git itself is not needed here
    (repo / "definitions" / "example-com-trainer-v1").mkdir(parents=True)
    (repo / "definitions" / "trainer.yaml").write_text(BASE_DEFINITION)
    (repo / "definitions" / "example-com-trainer-v1" / "running.yaml").write_text(trainer_fixture())
    (repo / "deploy").mkdir()
    monkeypatch.chdir(repo / "deploy")  # commands run from a sub-folder find the project root
    monkeypatch.delenv("CI", raising=False)
    return repo


def test_test_without_flags_tests_the_projects_definitions(user_repo, capsys):
    code, out, err = run(capsys, "test", "-f", "json")
    doc = json.loads(out)
    assert code == 0, out + err
    # paths outside the current folder are absolute, so that a terminal can open them
    assert [c["definition"] for c in doc["cases"]] == [str(user_repo / "definitions" / "trainer.yaml")]
    (user_repo / "definitions" / "trainer.yaml").write_text(BROKEN_SCALE)
    code, out, _ = run(capsys, "test")
    assert code == 1
    assert (
        f"FAIL  {user_repo}/definitions/example-com-trainer-v1/running.yaml  [{user_repo}/definitions/trainer.yaml]"
        in out
    )
    assert "worker.replicas: expected 2, got 6" in out
    os.chdir(user_repo)
    code, out, _ = run(capsys, "test")
    assert "FAIL  definitions/example-com-trainer-v1/running.yaml  [definitions/trainer.yaml]" in out


def test_a_project_definition_shadows_a_bundled_one(tmp_path, monkeypatch, capsys):
    """catalog/ + fixtures/ layout with a broken JobSet definition: the user's, not the bundled one, is tested."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    with open(os.path.join(ROOT, "catalog", "jobset-x-k8s-io-jobset-v1alpha2.yaml"), encoding="utf-8") as handle:
        bundled = handle.read()
    (tmp_path / "catalog").mkdir()
    broken = bundled.replace("name: jobset-x-k8s-io-jobset-v1alpha2", "name: my-jobset").replace(
        "instanceIdPath: .spec.replicatedJobs[]?.name", "instanceIdPath: .spec.replicatedJobs[]?.nam"
    )
    assert broken != bundled.replace("name: jobset-x-k8s-io-jobset-v1alpha2", "name: my-jobset")
    (tmp_path / "catalog" / "my-jobset.yaml").write_text(broken)
    with open(
        os.path.join(ROOT, "fixtures", "jobset-x-k8s-io-jobset-v1alpha2", "running-running-v0_12_0.yaml"),
        encoding="utf-8",
    ) as handle:
        fixture = handle.read()
    (tmp_path / "fixtures" / "my-jobset").mkdir(parents=True)
    (tmp_path / "fixtures" / "my-jobset" / "running.yaml").write_text(fixture)
    code, out, err = run(capsys, "test")
    assert code == 1, out
    assert "[catalog/my-jobset.yaml]" in out
    assert err.count("shadows the bundled") == 1 and "catalog/my-jobset.yaml shadows the bundled" in err
    # a fixture folder that names no definition is an error, never a silent fallback by GVK
    os.rename(tmp_path / "fixtures" / "my-jobset", tmp_path / "fixtures" / "jobsets")
    code, out, _ = run(capsys, "test", "-f", "json")
    case = json.loads(out)["cases"][0]
    assert code == 1 and case["outcome"] == "error"
    assert "fixture folder 'jobsets' names no definition" in case["messages"][0] and "searched" in case["messages"][0]


def test_kartalint_own_repository_finds_its_catalog(monkeypatch, capsys):
    monkeypatch.chdir(os.path.join(ROOT, "docs"))
    code, out, err = run(capsys, "catalog", "-f", "json")
    assert code == 0, err
    names = {row["name"] for row in json.loads(out)["definitions"]} if isinstance(json.loads(out), dict) else set()
    assert "jobset-x-k8s-io-jobset-v1alpha2" in (names or out)
    assert "shadows" not in err  # the project's catalog/ is the bundled catalog: no note


def test_require_fixtures_judges_the_projects_definitions_and_counts(user_repo, capsys):
    (user_repo / "definitions" / "second.yaml").write_text(
        BASE_DEFINITION.replace("name: example-com-trainer-v1", "name: second").replace(
            "group: example.com", "group: second.example.com"
        )
    )
    code, out, _err = run(capsys, "test", "--require-fixtures", "-f", "json")
    doc = json.loads(out)
    assert code == 1
    assert doc["definitionsWithoutFixtures"] == [
        str(user_repo / "definitions" / "second.yaml")
    ]  # not the 31 bundled ones
    assert doc["summary"]["errors"] == 1 and doc["summary"]["withoutFixtures"] == 1
    code, out, _ = run(capsys, "test", "--require-fixtures")
    assert "0 failed, 1 error(s)" in out


def test_update_takes_paths_after_it(user_repo, capsys):
    path = user_repo / "definitions" / "example-com-trainer-v1" / "running.yaml"
    path.write_text(trainer_fixture(expect={"statuses": ["Failed"]}))
    _code, _, err = run(capsys, "test", "--update", str(path))
    assert "updated 1 fixture(s)" in err
    assert run(capsys, "test", str(path))[0] == 0


def test_output_files_create_folders_and_unwritable_paths_are_usage_errors(user_repo, capsys, tmp_path):
    target = tmp_path / "reports" / "deep" / "lint.json"
    code, _, _ = run(capsys, "lint", "-f", "json", "-o", str(target), str(user_repo / "definitions"))
    assert code == 0 and json.loads(target.read_text())["kartaDocuments"] == 1
    code, _, _ = run(capsys, "test", "--junit-xml", str(tmp_path / "junit" / "x.xml"))
    assert code == 0 and (tmp_path / "junit" / "x.xml").is_file()
    (tmp_path / "afile").write_text("")
    (tmp_path / "demo.yaml").write_text(KUBECTL_JOBSET)
    for argv in (
        ["lint", "-o", str(tmp_path / "afile" / "x.json"), str(user_repo / "definitions")],
        ["test", "-o", str(tmp_path)],
        ["describe", str(tmp_path / "demo.yaml"), "-o", str(tmp_path)],
    ):
        code, _out, err = run(capsys, *argv)
        assert code == 2 and err.startswith("kartalint: error: cannot write ") and err.count("\n") == 1, (argv, err)


KUBECTL_JOBSET = """\
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: |
      {"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","metadata":{"annotations":{},"name":"demo","namespace":"default"}}
  creationTimestamp: "2026-11-30T09:00:00Z"
  generation: 1
  managedFields:
  - apiVersion: jobset.x-k8s.io/v1alpha2
    fieldsType: FieldsV1
    fieldsV1:
      f:spec:
        f:replicatedJobs: {}
    manager: kubectl-client-side-apply
    operation: Update
    time: "2026-11-30T09:00:00Z"
  name: demo
  namespace: default
  resourceVersion: "48213"
  uid: 5b0f3c5e-2a7b-4e0c-9d8e-1f2a3b4c5d6e
spec:
  replicatedJobs:
  - name: leader
    replicas: 1
    template:
      spec:
        completions: 1
        parallelism: 1
        template:
          spec:
            containers:
            - name: leader
              image: trainer:1
              resources:
                limits:
                  nvidia.com/gpu: "1"
  - name: workers
    replicas: 2
    template:
      spec:
        completions: 2
        parallelism: 2
        template:
          spec:
            containers:
            - name: worker
              image: trainer:1
              resources:
                limits:
                  nvidia.com/gpu: "4"
status:
  replicatedJobsStatus:
  - active: 1
    failed: 0
    name: leader
    ready: 1
    succeeded: 0
    suspended: 0
  - active: 2
    failed: 0
    name: workers
    ready: 2
    succeeded: 0
    suspended: 0
"""


def kubectl_pods():
    """`kubectl get pods -o yaml`: a List with resourceVersion and managedFields on every item."""
    items = []
    for job, count in (("leader", 1), ("workers", 4)):
        for i in range(count):
            items.append(
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": {
                        "name": f"demo-{job}-0-{i}",
                        "namespace": "default",
                        "resourceVersion": str(48300 + i),
                        "uid": f"pod-{job}-{i}",
                        "managedFields": [{"manager": "kubelet", "operation": "Update"}],
                        "labels": {
                            "jobset.sigs.k8s.io/jobset-name": "demo",
                            "jobset.sigs.k8s.io/replicatedjob-name": job,
                        },
                        "ownerReferences": [
                            {
                                "apiVersion": "batch/v1",
                                "kind": "Job",
                                "name": f"demo-{job}-0",
                                "uid": "job",
                                "controller": True,
                            }
                        ],
                    },
                    "spec": {
                        "nodeName": f"node-{i % 2}",
                        "containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": "1"}}}],
                    },
                    "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]},
                }
            )
    return yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items, "metadata": {"resourceVersion": ""}})


def test_kubectl_workflow_describe_from_stdin_with_pods(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pods.yaml").write_text(kubectl_pods())
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(KUBECTL_JOBSET.encode())))
    code, out, err = run(capsys, "describe", "-", "--pods", "pods.yaml")
    assert code == 0, err
    assert out.startswith("JobSet/demo   namespace: default   definition: jobset-x-k8s-io-jobset-v1alpha2")
    assert "leader" in out and "workers" in out and "demo-workers-0-3" in out
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(KUBECTL_JOBSET.encode())))
    code, out, err = run(capsys, "describe", "-", "--pods", "pods.yaml", "-f", "json")
    view = json.loads(out)
    assert code == 0 and view["resources"]["gpus"] == 17  # leader 1 x 1 GPU + workers 2 jobs x 2 pods x 4 GPUs
    assert view["unmatchedPods"] == []


def test_kubectl_workflow_new_fixture_from_stdin(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pods.yaml").write_text(kubectl_pods())
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(KUBECTL_JOBSET.encode())))
    target = tmp_path / "fixtures" / "jobset-x-k8s-io-jobset-v1alpha2" / "demo.yaml"
    code, _, err = run(capsys, "new", "fixture", "-", "--pods", "pods.yaml", "-o", str(target))
    assert code == 0, err
    doc = yaml.safe_load(target.read_text())
    assert doc["source"] == "kubectl output on stdin" and len(doc["pods"]) == 5
    assert run(capsys, "test", str(target))[0] == 0
    code, _, err = run(capsys, "describe", "-", "--pods", "-")
    assert code == 2 and "cannot both be read from stdin" in err


def test_describe_format_and_deprecated_output(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "demo.yaml").write_text(KUBECTL_JOBSET)
    code, out, err = run(capsys, "describe", "demo.yaml", "-f", "yaml")
    assert code == 0 and yaml.safe_load(out)["workload"]["name"] == "demo" and not err
    code, out, err = run(capsys, "describe", "demo.yaml", "-o", "json")
    assert code == 0 and json.loads(out)["workload"]["name"] == "demo" and "deprecated" in err
    code, out, err = run(capsys, "describe", "demo.yaml", "-f", "json", "-o", "out/view.json")
    assert (
        code == 0
        and out == ""
        and json.loads((tmp_path / "out" / "view.json").read_text())["workload"]["name"] == "demo"
    )


def test_a_file_without_karta_is_counted_once_in_the_summary(tmp_path, monkeypatch, capsys):
    """`kartalint lint notes.txt` (or a YAML file of another kind): one file without Karta skipped,
    not also "1 other document(s) skipped" (its documents are the file's, said once); the other
    documents of a file that holds a Karta are still counted. JSON's `skippedDocuments` keeps
    counting every non-Karta document of the inputs (docs/output.md)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("remember the rollout\n")
    (tmp_path / "config.yaml").write_text("apiVersion: v1\nkind: ConfigMap\n---\napiVersion: v1\nkind: Secret\n")
    (tmp_path / "def.yaml").write_text(BASE_DEFINITION + "---\napiVersion: v1\nkind: ConfigMap\n")
    for files, said in (
        (["notes.txt"], "0 file(s), 0 Karta definition(s), 1 file(s) without Karta skipped: "),
        (["config.yaml"], "0 file(s), 0 Karta definition(s), 1 file(s) without Karta skipped: "),
        (
            ["notes.txt", "config.yaml", "def.yaml"],
            "1 file(s), 1 Karta definition(s), 1 other document(s) skipped, 2 file(s) without Karta skipped: ",
        ),
    ):
        code, _, err = run(capsys, "lint", "--allow-empty", *files)
        assert code == 0 and f"kartalint: {said}0 error(s)" in err, err
    code, out, _ = run(capsys, "lint", "-f", "json", "notes.txt", "config.yaml", "def.yaml")
    assert json.loads(out)["skippedDocuments"] == 4


HELM = 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n  labels: {{- include "x" . | nindent 4 }}\n'
CLOUDFORMATION = "Resources:\n  Bucket:\n    Type: AWS::S3::Bucket\n    Properties:\n      BucketName: !Ref Name\n"


def test_lint_skips_yaml_that_is_not_karta(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "helm.yaml").write_text(HELM)
    (tmp_path / "cfn.yaml").write_text(CLOUDFORMATION)
    (tmp_path / "dup.yaml").write_text("a: 1\na: 2\n")
    (tmp_path / "big.yaml").write_text("x: " + "y" * (6 * 1024 * 1024) + "\n")
    (tmp_path / "def.yaml").write_text(BASE_DEFINITION)
    files = ["helm.yaml", "cfn.yaml", "dup.yaml", "big.yaml", "def.yaml"]
    code, out, err = run(capsys, "lint", "--allow-empty", "-f", "json", *files)
    doc = json.loads(out)
    assert code == 0, out
    assert doc["skippedFiles"] == ["helm.yaml", "cfn.yaml", "dup.yaml", "big.yaml"] and doc["checked"] == ["def.yaml"]
    assert "4 file(s) without Karta skipped" in err
    code, out, _ = run(capsys, "lint", "--strict-files", "-f", "json", *files)
    rules = {f["rule"] for f in json.loads(out)["findings"]}
    assert code == 1 and {"yaml-syntax-error", "yaml-duplicate-key", "yaml-too-large"} <= rules
    # a broken file that mentions kind: Karta is still reported
    (tmp_path / "broken.yaml").write_text("apiVersion: run.ai/v1alpha1\nkind: Karta\nspec: [\n")
    code, out, _ = run(capsys, "lint", "-f", "json", "broken.yaml")
    assert code == 1 and json.loads(out)["findings"][0]["rule"] == "yaml-syntax-error"


def test_init_writes_a_project_and_refuses_to_overwrite(tmp_path, capsys):
    code, out, err = run(
        capsys,
        "init",
        "--root",
        str(tmp_path),
        "--layout",
        "catalog",
        "--rev",
        "v9.9.9",
        "--hooks-repo",
        "https://example.com/kartalint",
    )
    assert code == 0, err
    config = yaml.safe_load((tmp_path / ".kartalint.yaml").read_text())
    assert config["definitions"] == ["catalog"] and config["fixtures"] == ["fixtures"]
    hooks = yaml.safe_load((tmp_path / ".pre-commit-config.yaml").read_text())
    assert hooks["repos"][0] == {
        "repo": "https://example.com/kartalint",
        "rev": "v9.9.9",
        "hooks": [{"id": "kartalint-lint", "args": ["--strict", "--"]}, {"id": "kartalint-test"}],
    }
    workflow = yaml.safe_load((tmp_path / ".github" / "workflows" / "kartalint.yml").read_text())
    assert workflow["jobs"]["kartalint"]["steps"][1]["uses"] == "kartalint/kartalint@v9.9.9"
    assert "Next steps:" in out
    before = (tmp_path / ".kartalint.yaml").read_text()
    code, _, err = run(capsys, "init", "--root", str(tmp_path))
    assert code == 2 and "refusing to overwrite" in err and (tmp_path / ".kartalint.yaml").read_text() == before


def test_init_pins_a_revision_that_exists():
    import subprocess

    from kartalint.scaffold.release import pinned_revision

    revision, how = pinned_revision()
    if not os.path.exists(os.path.join(ROOT, ".git")):
        pytest.skip("not a git checkout")
    proc = subprocess.run(
        ["git", "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"], cwd=ROOT, capture_output=True
    )
    assert proc.returncode == 0, (revision, how)


@pytest.mark.parametrize(
    ("build", "said"),
    [
        ({"commit": "c44b2bf45b2d729c23dfbfa24cd881f50338cfbd"}, "commit, no release tag at this revision"),
        ({"tag": "v0.2.0", "commit": "c44b2bf45b2d729c23dfbfa24cd881f50338cfbd"}, "release tag"),
    ],
    ids=["commit", "tag"],
)
def test_init_says_the_pinned_revision_in_one_pair_of_parentheses(tmp_path, capsys, monkeypatch, build, said):
    """`kartalint init` from a build without a release tag said `pinned to <sha> (commit (no release
    tag at this revision))`: one pair of parentheses, and the workflow's comment says the same."""
    from kartalint.scaffold import release

    monkeypatch.setattr(release, "build_info", lambda: build)
    revision = build.get("tag") or build["commit"]
    code, out, err = run(capsys, "init", "--root", str(tmp_path))
    assert code == 0, err
    assert f"note: hooks and Action pinned to {revision} ({said})\n" in out, out
    assert "((" not in out and "))" not in out
    workflow = (tmp_path / ".github" / "workflows" / "kartalint.yml").read_text()
    assert f"@{revision}  # {said}\n" in workflow


def test_an_unknown_configuration_key_names_the_version_that_refuses_it(tmp_path, capsys, monkeypatch):
    """A `.kartalint.yaml` written for a newer kartalint, read by an older one installed elsewhere
    (a stale `pip install` in the base interpreter): the error says which version knows which keys."""
    from kartalint import __version__

    monkeypatch.chdir(tmp_path)
    (tmp_path / ".kartalint.yaml").write_text("definitions: [defs]\nexplorr: {}\n")
    (tmp_path / "defs").mkdir()
    (tmp_path / "defs" / "d.yaml").write_text(BASE_DEFINITION)
    assert main(["lint"]) == 2
    err = capsys.readouterr().err
    assert f".kartalint.yaml:2:1: unknown configuration key(s) explorr (known to kartalint {__version__}: " in err
    assert "explore, extends" in err and "a key of a newer version needs that version" in err


def test_a_configured_folder_not_made_yet_is_said_with_the_configuration_that_names_it(tmp_path, capsys, monkeypatch):
    """Right after `kartalint init` (no --crd), `definitions/` does not exist: lint says which
    configuration names it (exit 2: nothing to check; a misspelt folder is never a silent green);
    a path given on the command line is said as before."""
    code, _, err = run(capsys, "init", "--root", str(tmp_path), "--hooks-repo", "https://example.com/k", "--rev", "v1")
    assert code == 0, err
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "lint")
    assert code == 2
    assert "kartalint: error: definitions: no such file or directory (named in .kartalint.yaml)" in err
    code, _, err = run(capsys, "lint", "nope.yaml")
    assert code == 2 and "kartalint: error: nope.yaml: no such file or directory\n" in err
