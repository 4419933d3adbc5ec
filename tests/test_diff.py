"""`kartalint diff` on a throwaway repository with history."""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest
import yaml
from conftest import BASE_DEFINITION, git

from kartalint.cli import main

FIXTURE = {
    "apiVersion": "kartalint/v1",
    "kind": "KartaFixture",
    "name": "two roles",
    "source": "test",
    "object": {
        "apiVersion": "example.com/v1",
        "kind": "Trainer",
        "metadata": {"name": "t", "uid": "u"},
        "spec": {
            "roles": [
                {
                    "name": "leader",
                    "replicas": 1,
                    "template": {
                        "spec": {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": 1}}}]}
                    },
                },
                {
                    "name": "worker",
                    "replicas": 4,
                    "template": {
                        "spec": {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": 8}}}]}
                    },
                },
            ]
        },
        "status": {"phase": "Running"},
    },
    "expect": {"statuses": ["Running"]},
}


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "catalog").mkdir()
    (tmp_path / "catalog" / "trainer.yaml").write_text(BASE_DEFINITION)
    (tmp_path / "fixtures" / "example-com-trainer-v1").mkdir(parents=True)
    (tmp_path / "fixtures" / "example-com-trainer-v1" / "two-roles.yaml").write_text(
        yaml.safe_dump(FIXTURE, sort_keys=False)
    )
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "base")
    return tmp_path


def edit(repo, old, new):
    path = repo / "catalog" / "trainer.yaml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def diff_json(capsys, *extra):
    code, out, err = run(capsys, "diff", "--base", "main", "-f", "json", *extra)
    assert code == 0, err
    return json.loads(out)


def test_comment_only_change_reports_nothing(repo, capsys):
    (repo / "catalog" / "trainer.yaml").write_text(
        "# a new comment\n" + BASE_DEFINITION.replace("name: trainer\n", "name: trainer  # root\n")
    )
    doc = diff_json(capsys)
    assert doc["changes"] == [] and doc["definitions"] == []
    assert doc["schemaVersion"] == 1 and doc["base"] == "main" and doc["head"] == "working tree"
    code, out, _ = run(capsys, "diff", "--base", "main", "--fail-on-change")
    assert code == 0 and out.startswith("No change: 1 workload(s)")


def test_gpu_total_change(repo, capsys):
    edit(repo, "replicasPath: .spec.roles[] | (.replicas // 1)", "replicasPath: .spec.roles[] | (.replicas // 1) * 2")
    doc = diff_json(capsys)
    changes = {c["what"]: c for c in doc["changes"][0]["changes"]}
    assert changes["gpus"]["base"] == 33 and changes["gpus"]["head"] == 66
    assert changes["replicas"]["text"] in (
        "worker[leader].replicas: 1 -> 2 (+1)",
        "worker[worker].replicas: 4 -> 8 (+4)",
    )
    assert doc["definitions"] == [
        {
            "path": "catalog/trainer.yaml",
            "headPath": "catalog/trainer.yaml",
            "status": "modified",
            "expressions": [
                {
                    "component": "worker",
                    "field": "scaleDefinition.replicasPath",
                    "before": ".spec.roles[] | (.replicas // 1)",
                    "after": ".spec.roles[] | (.replicas // 1) * 2",
                }
            ],
            "lint": {"new": [], "fixed": []},
        }
    ]
    assert run(capsys, "diff", "--base", "main", "--fail-on-change")[0] == 1


def test_renamed_role(repo, capsys):
    edit(repo, "instanceIdPath: .spec.roles[].name", "instanceIdPath: .spec.roles[] | .name | ascii_upcase")
    doc = diff_json(capsys)
    texts = [c["text"] for c in doc["changes"][0]["changes"]]
    assert 'worker: role "leader" renamed to "LEADER"' in texts
    assert 'worker: role "worker" renamed to "WORKER"' in texts


def test_status_that_stops_matching(repo, capsys):
    edit(repo, "- byPhase: Running", "- byPhase: Active")
    doc = diff_json(capsys)
    change = doc["changes"][0]["changes"][0]
    assert change["what"] == "statuses" and change["base"] == ["Running"] and change["head"] == ["Undefined"]
    assert "stops matching Running" in change["text"]


def test_extraction_error_and_new_lint_finding(repo, capsys):
    edit(
        repo, "replicasPath: .spec.roles[] | (.replicas // 1)", "replicasPath: .spec.roles[] | .replicas * .parallelism"
    )
    doc = diff_json(capsys)
    whats = [c["what"] for c in doc["changes"][0]["changes"]]
    assert "error-appeared" in whats
    assert any("scale-path-not-null-safe" in f for f in doc["definitions"][0]["lint"]["new"])


def test_a_finding_on_the_whole_definition_is_placed_at_the_document(repo, capsys):
    """A house rule of `for-each: definition` finds on the document (its path is empty): diff said
    `new finding: acme-no-gang at : ...`."""
    (repo / ".kartalint.yaml").write_text(
        "house-rules:\n  - {id: acme-no-gang, for-each: definition, when: '.metadata.name | endswith(\"-v2\")',"
        " message: 'a v2 without a gang'}\n"
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "house rules")
    edit(repo, "name: example-com-trainer-v1", "name: example-com-trainer-v2")
    doc = diff_json(capsys)
    assert doc["definitions"][0]["lint"]["new"] == ["acme-no-gang at the document: a v2 without a gang"], doc


def test_markdown_comment_has_summary_table_and_mermaid(repo, capsys):
    edit(repo, "replicasPath: .spec.roles[] | (.replicas // 1)", "replicasPath: .spec.roles[] | (.replicas // 1) * 2")
    code, out, _ = run(capsys, "diff", "--base", "main", "-f", "markdown")
    assert code == 0
    assert "1 of 1 workload(s) change" in out
    assert "### `catalog/trainer.yaml`" in out and "| workload | change | base | head |" in out
    assert "```mermaid" in out and "class n_worker changed" in out


def test_renamed_added_and_deleted_definitions(repo, capsys):
    git(repo, "mv", "catalog/trainer.yaml", "catalog/example-com-trainer-v1.yaml")
    (repo / "catalog" / "other.yaml").write_text(
        BASE_DEFINITION.replace("example-com-trainer-v1", "other-v1").replace("kind: Trainer", "kind: Other")
    )
    doc = diff_json(capsys)
    statuses = {d["path"]: d["status"] for d in doc["definitions"]}
    assert statuses == {"catalog/trainer.yaml": "renamed", "catalog/other.yaml": "added"}
    assert doc["changes"] == []  # the renamed file evaluates the same
    git(repo, "rm", "-q", "-f", "catalog/example-com-trainer-v1.yaml")
    doc = diff_json(capsys)
    assert doc["changes"][0]["changes"][0]["text"] == "no definition at head (deleted or renamed away)"
    assert {d["path"]: d["status"] for d in doc["definitions"]}["catalog/trainer.yaml"] == "deleted"


def test_head_revision_and_bad_base(repo, capsys):
    edit(repo, "replicasPath: .spec.roles[] | (.replicas // 1)", "replicasPath: .spec.roles[] | (.replicas // 1) * 2")
    git(repo, "commit", "-qam", "double")
    assert diff_json(capsys, "--head", "main")["changes"] == []
    assert len(diff_json(capsys, "--head", "HEAD")["changes"]) == 0
    code, out, err = run(capsys, "diff", "--base", "HEAD~1", "--head", "HEAD", "-f", "json")
    assert code == 0 and json.loads(out)["changes"]
    code, _, err = run(capsys, "diff", "--base", "does-not-exist")
    assert code == 2 and "revision 'does-not-exist' does not exist" in err


def test_outside_a_repository(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "fixtures").mkdir()
    code, _, err = run(capsys, "diff", "--base", "main")
    assert code == 2 and "not inside a git repository" in err


# -- odd repositories: paths git would quote, missing blobs, huge and unreadable files ----------------

ODD_NAMES = ["sp ace.yaml", "tab\there.yaml", "new\nline.yaml", 'quo"te.yaml', "back\\slash.yaml", "ünïcødé-定义.yaml"]


@pytest.mark.parametrize("name", ODD_NAMES)
def test_paths_git_would_quote_are_read_exactly(repo, capsys, name):
    os.rename(repo / "catalog" / "trainer.yaml", repo / "catalog" / name)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "odd name")
    path = repo / "catalog" / name
    path.write_text(
        path.read_text().replace(
            "replicasPath: .spec.roles[] | (.replicas // 1)", "replicasPath: .spec.roles[] | (.replicas // 1) * 2"
        )
    )
    code, out, err = run(capsys, "diff", "--base", "HEAD", "-f", "json")
    assert code == 0, err
    report = json.loads(out)
    assert [d["path"] for d in report["definitions"]] == [f"catalog/{name}"]
    assert report["definitions"][0]["status"] == "modified"
    assert report["changes"] and report["changes"][0]["definition"] == f"catalog/{name}"


def test_renamed_odd_path(repo, capsys):
    name = "new\nline.yaml"
    git(repo, "mv", "catalog/trainer.yaml", f"catalog/{name}")
    code, out, err = run(capsys, "diff", "--base", "main", "-f", "json")
    assert code == 0, err
    [definition] = json.loads(out)["definitions"]
    assert definition["status"] == "renamed" and definition["headPath"] == f"catalog/{name}"


def test_a_missing_blob_is_a_problem_not_a_deletion(repo, capsys):
    sha = subprocess.run(
        ["git", "rev-parse", "HEAD:catalog/trainer.yaml"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()
    os.remove(repo / ".git" / "objects" / sha[:2] / sha[2:])
    code, _out, err = run(capsys, "diff", "--base", "main")
    assert code == 2
    assert f"catalog/trainer.yaml at main: blob {sha} is missing from the repository" in err
    assert "Traceback" not in err


def test_oversized_and_broken_definitions(repo, capsys):
    big = repo / "catalog" / "big.yaml"
    big.write_text("kind: Karta\n" + "# padding\n" * 600_000)  # over 5 MiB
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "big")
    code, out, err = run(capsys, "diff", "--base", "HEAD", "-f", "json")
    assert code == 0, err
    report = json.loads(out)
    assert any(
        "catalog/big.yaml at HEAD: skipped" in w and "over the 5242880-byte limit" in w for w in report["warnings"]
    )
    assert any("catalog/big.yaml at working tree: skipped" in w for w in report["warnings"])
    # a definition that no longer parses is an error, never a deleted definition
    edit(repo, "kind: Karta", "kind: Karta\n  bad: [indent")
    code, out, err = run(capsys, "diff", "--base", "HEAD")
    assert code == 2 and "catalog/trainer.yaml at working tree: cannot be read as YAML" in err
    (repo / "catalog" / "trainer.yaml").write_bytes(b"kind: Karta\nname: \xff\xfe\n")
    code, out, err = run(capsys, "diff", "--base", "HEAD")
    assert code == 2 and "catalog/trainer.yaml at working tree: file is not valid UTF-8" in err


# -- output for reviewers: golden text, markdown and JSON ----------------------------------------------


def _resourced(repo):
    """A fixture whose roles ask for CPU and memory (cores and millicores, Gi and Ti)."""

    def template(gpus, memory, cpu):
        return {
            "spec": {
                "containers": [
                    {"name": "c", "resources": {"limits": {"nvidia.com/gpu": gpus, "memory": memory, "cpu": cpu}}}
                ]
            }
        }

    doc = dict(FIXTURE, name="resourced")
    doc["object"] = dict(
        FIXTURE["object"],
        spec={
            "roles": [
                {"name": "leader", "replicas": 1, "template": template(1, "64Gi", "500m")},
                {"name": "worker", "replicas": 4, "template": template(8, "1Ti", "16")},
            ]
        },
    )
    path = repo / "fixtures" / "example-com-trainer-v1" / "resourced.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "resourced fixture")
    edit(repo, "replicasPath: .spec.roles[] | (.replicas // 1)", "replicasPath: .spec.roles[] | (.replicas // 1) * 2")
    return "fixtures/example-com-trainer-v1/resourced.yaml"


GOLDEN_TEXT = """\
1 of 1 workload(s) change; 1 definition file(s) changed (modified) between main and working tree.
modified  catalog/trainer.yaml
    worker scaleDefinition.replicasPath:
      - .spec.roles[] | (.replicas // 1)
      + .spec.roles[] | (.replicas // 1) * 2
fixtures/example-com-trainer-v1/resourced.yaml (catalog/trainer.yaml)
    worker[leader].replicas: 1 -> 2 (+1)
    worker[worker].replicas: 4 -> 8 (+4)
    total GPUs: 33 -> 66 (+33)
    total CPU: 64500m -> 129000m (+64500m)
    total memory: 4160Gi -> 8320Gi (+4160Gi)
    gang.subGroups["worker"].minAvailable: 5 -> 10 (+5)
"""

GOLDEN_TABLE = """\
| workload | change | base | head |
|---|---|---|---|
| `fixtures/example-com-trainer-v1/resourced.yaml` | replicas (worker.leader) | 1 | 2 (+1) |
| `fixtures/example-com-trainer-v1/resourced.yaml` | replicas (worker.worker) | 4 | 8 (+4) |
| `fixtures/example-com-trainer-v1/resourced.yaml` | gpus | 33 | 66 (+33) |
| `fixtures/example-com-trainer-v1/resourced.yaml` | cpuMillis | 64500m | 129000m (+64500m) |
| `fixtures/example-com-trainer-v1/resourced.yaml` | memoryBytes | 4160Gi | 8320Gi (+4160Gi) |
| `fixtures/example-com-trainer-v1/resourced.yaml` | gang (worker) | 5 | 10 (+5) |
"""


def test_golden_text_for_replicas_gpu_memory_and_gang(repo, capsys):
    fixture = _resourced(repo)
    code, out, err = run(capsys, "diff", "--base", "main", fixture)
    assert code == 0, err
    assert out == GOLDEN_TEXT
    assert "None" not in out and "'" not in out  # never a Python repr


def test_golden_markdown_keeps_tables_and_the_role_tree(repo, capsys):
    fixture = _resourced(repo)
    _, out, _ = run(capsys, "diff", "--base", "main", "-f", "markdown", fixture)
    assert GOLDEN_TABLE in out
    assert (
        "| worker | `scaleDefinition.replicasPath` | <code>.spec.roles[] &#124; (.replicas // 1)</code> | "
        "<code>.spec.roles[] &#124; (.replicas // 1) * 2</code> |"
    ) in out
    assert out.index("scaleDefinition.replicasPath") < out.index("| workload | change |")  # the cause above its effects
    assert "```mermaid" in out and "class n_worker changed" in out


def test_golden_json_names_component_instance_and_field(repo, capsys):
    fixture = _resourced(repo)
    doc = json.loads(run(capsys, "diff", "--base", "main", "-f", "json", fixture)[1])
    changes = doc["changes"][0]["changes"]
    slim = [{k: c[k] for k in ("what", "component", "instance", "field", "before", "after")} for c in changes]
    assert slim == [
        {"what": "replicas", "component": "worker", "instance": "leader", "field": "replicas", "before": 1, "after": 2},
        {"what": "replicas", "component": "worker", "instance": "worker", "field": "replicas", "before": 4, "after": 8},
        {"what": "gpus", "component": None, "instance": None, "field": "gpus", "before": 33, "after": 66},
        {
            "what": "cpuMillis",
            "component": None,
            "instance": None,
            "field": "cpuMillis",
            "before": 64500,
            "after": 129000,
        },
        {
            "what": "memoryBytes",
            "component": None,
            "instance": None,
            "field": "memoryBytes",
            "before": 4160 * 2**30,
            "after": 8320 * 2**30,
        },
        {
            "what": "gang",
            "component": "worker",
            "instance": None,
            "field": "gang.subGroups.minAvailable",
            "before": 5,
            "after": 10,
        },
    ]
    assert all(c["base"] == c["before"] and c["head"] == c["after"] for c in changes)  # the older names stay


def test_pod_placement_is_part_of_diff(repo, capsys):
    doc = dict(FIXTURE, name="with pods")
    doc["pods"] = [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": n, "labels": {"example.com/role": r}},
            "status": {"phase": "Running"},
        }
        for n, r in (("l-0", "leader"), ("w-0", "worker"))
    ]
    path = repo / "fixtures" / "example-com-trainer-v1" / "pods.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "pods")
    edit(repo, 'idPath: .metadata.labels["example.com/role"]', 'idPath: .metadata.labels["example.com/rolle"]')
    _, out, _ = run(capsys, "diff", "--base", "main", "fixtures/example-com-trainer-v1/pods.yaml")
    assert 'pod "l-0": "worker[leader]" -> null' in out and 'pod "w-0": "worker[worker]" -> null' in out


def test_a_definition_that_does_not_parse_at_head_is_broken_not_deleted(repo, capsys):
    """Present at both revisions but unreadable at one: status ``broken`` at that revision with
    the parse error and its place, no workload reported as losing its definition, exit 2."""
    edit(repo, "  structureDefinition:", "  structureDefinition: [")
    line = (repo / "catalog" / "trainer.yaml").read_text().split("\n").index("  structureDefinition: [") + 1
    git(repo, "commit", "-qam", "broken")
    for argv in (["--base", "HEAD~1", "--head", "HEAD"], ["--base", "HEAD~1"]):  # head a commit, then the tree
        code, out, err = run(capsys, "diff", *argv, "-f", "json")
        assert code == 2 and "Traceback" not in err
        report = json.loads(out)
        [definition] = report["definitions"]
        assert definition["status"] == "broken" and definition["path"] == "catalog/trainer.yaml"
        assert definition["brokenAt"] in ("HEAD", "working tree")
        place = re.match(
            r"cannot be read as YAML \(catalog/trainer\.yaml:(\d+):(\d+): YAML syntax error", definition["problem"]
        )
        assert place and line < int(place.group(1)) <= line + 3, definition["problem"]
        assert report["changes"] == []  # the fixture is not "without a definition at head"
        assert "deleted" not in out
    code, out, err = run(capsys, "diff", "--base", "HEAD~1")
    assert code == 2 and "broken    catalog/trainer.yaml at working tree: cannot be read as YAML" in out
    code, out, err = run(capsys, "diff", "--base", "HEAD", "--head", "HEAD~1", "-f", "markdown")  # broken at base
    assert code == 2 and "- broken: `catalog/trainer.yaml` at HEAD: cannot be read as YAML" in out
