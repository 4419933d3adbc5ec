"""`kartalint new --crd` / `init --crd` on hostile CRDs (issue 45, items 12 and 14): a property name
or a value with a line break never injects YAML into the saved draft, and the time grows with the
CRD, not with its square."""

from __future__ import annotations

import time

import yaml
from conftest import crd_document, spec_and_status

from kartalint.cli import main

POD_TEMPLATE = {
    "type": "object",
    "properties": {
        "metadata": {"type": "object"},
        "spec": {"type": "object", "properties": {"containers": {"type": "array", "items": {"type": "object"}}}},
    },
}
INJECTED = "x\nspec:\n  injected: true\n#"  # a property name that, written raw in a comment, is YAML


def crd(spec_properties, status_properties=None, columns=None):
    return crd_document(spec_and_status(spec_properties, status_properties), "Hostile", columns)


def test_a_line_break_in_a_crd_name_or_value_never_leaves_its_comment(tmp_path, capsys):
    document = crd(
        {
            INJECTED: {
                "type": "object",
                "description": "the count\u2028injected: 2",
                "properties": {
                    "replicas": {"type": "integer", "description": "Defaults to\n1"},
                    "template": POD_TEMPLATE,
                },
            },
            "suspend": {"type": "boolean", "description": "Suspend deletes every pod.\nannotation: x"},
        },
        {
            "phase": {"type": "string", "enum": ["Running", "Odd\nphase: 1", "Next\x85line"]},
            "conditions": {
                "type": "array",
                "items": {"type": "object", "properties": {"type": {"type": "string"}, "status": {"type": "string"}}},
            },
        },
        columns=[
            {"name": "Ready\nx: 1", "type": "string", "jsonPath": '.status.conditions[?(@.type=="Ready\\ny")].status'}
        ],
    )
    path = tmp_path / "crd.yaml"
    path.write_text(yaml.safe_dump(document))
    out = tmp_path / "draft.yaml"
    assert main(["new", "--crd", str(path), "-o", str(out)]) == 0
    capsys.readouterr()
    text = out.read_text()
    documents = list(yaml.safe_load_all(text))
    assert len(documents) == 1  # the header is comments only: nothing of the CRD became a document or a key
    karta = documents[0]
    assert set(karta) == {"apiVersion", "kind", "metadata", "spec"}
    assert set(karta["spec"]) == {"structureDefinition", "optimizationInstructions"}
    assert "injected" not in karta["spec"]
    for line in text.splitlines():
        stripped = line.lstrip()
        # no line starts with what followed a line break in the CRD; the name is in comments and
        # quoted jq strings only
        assert not stripped.startswith(("injected:", "phase: 1", "x: 1", "annotation: x", "spec:\n")), line
        if "injected: true" in line:
            assert stripped.startswith("#") or "'" in stripped or '"' in stripped, line
    assert "\\n" in text  # the line breaks are shown, escaped
    (child,) = karta["spec"]["structureDefinition"]["childComponents"]
    # the jq path still reads the property itself (a jq string with JSON escapes)
    assert child["specDefinition"]["podTemplateSpecPath"] == '.spec["x\\nspec:\\n  injected: true\\n#"].template'
    assert main(["test", str(tmp_path / "draft.fixture.yaml")]) == 0


def _wide_crd(roles):
    return crd(
        {
            f"role{i}": {"type": "object", "properties": {"replicas": {"type": "integer"}, "template": POD_TEMPLATE}}
            for i in range(roles)
        }
    )


def _draft_seconds(tmp_path, roles, capsys):
    """How long one draft of a CRD with ``roles`` roles takes (its CRD written once)."""
    path = tmp_path / f"crd{roles}.yaml"
    if not path.exists():
        path.write_text(yaml.safe_dump(_wide_crd(roles)))
    started = time.perf_counter()
    assert main(["new", "--crd", str(path), "-o", str(tmp_path / f"draft{roles}.yaml")]) == 0
    elapsed = time.perf_counter() - started
    capsys.readouterr()
    (tmp_path / f"draft{roles}.yaml").unlink()
    (tmp_path / f"draft{roles}.fixture.yaml").unlink()
    return elapsed


def test_drafting_time_grows_with_the_crd_not_its_square(tmp_path, capsys):
    # 800 roles took 13-17 s and 3,000 did not finish in a minute (a walk of the whole schema per
    # role, a scan of every role per role, one jq program too long for libjq to compile); the
    # limit comes from times measured here, the two sizes taken in turn and the best of three of
    # each (a busy machine slows some runs, rarely all): 4x the roles in under 10x the time, where
    # work that grows with the square of the roles takes 16x
    small, large = [], []
    for _ in range(3):
        small.append(_draft_seconds(tmp_path, 150, capsys))
        large.append(_draft_seconds(tmp_path, 600, capsys))
    assert min(large) < 10 * min(small), f"150 roles: {min(small):.2f} s, 600 roles: {min(large):.2f} s"
    text = (tmp_path / "crd600.yaml").read_text()
    assert len(text) > 50_000


def test_hostile_objects_and_pods_never_inject_yaml_into_the_draft(tmp_path, capsys):
    """Keys, names, labels and status values of the objects given with --from, with line breaks and
    quotes, stay inside comments and quoted jq strings."""
    crd_path = tmp_path / "crd.yaml"
    document = crd({})
    document["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = {
        "type": "object",
        "properties": {"spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
    }
    crd_path.write_text(yaml.safe_dump(document))
    evil = 'a"b\nspec:\n  injected: true'
    container = {"name": "c", "image": "img:1", "resources": {"requests": {"nvidia.com/gpu": "1"}}}
    objects, pods = [], []
    for n, (phase, ready) in enumerate([("Run\nning", True), ("Wait\u2028ing", False)]):
        name = f"w{n}"
        objects.append(
            {
                "apiVersion": "example.com/v1",
                "kind": "Hostile",
                "metadata": {"name": name, "namespace": "ns", "uid": f"u{n}"},
                "spec": {evil: [{"name": f"entry\n{n}", "replicas": 2, "tmpl": {"spec": {"containers": [container]}}}]},
                "status": {"phase": phase, "conditions": [{"type": evil, "status": "True"}]},
            }
        )
        for i in range(2):
            pods.append(
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": {
                        "name": f"{name}-{i}",
                        "namespace": "ns",
                        "labels": {evil: f"entry\n{n}", "role\nkey": "x\ny"},
                        "ownerReferences": [{"kind": "Hostile", "name": name, "uid": f"u{n}"}],
                    },
                    "spec": {"containers": [container]},
                    "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": str(ready)}]},
                }
            )
    (tmp_path / "objects.yaml").write_text(yaml.safe_dump({"kind": "List", "apiVersion": "v1", "items": objects}))
    (tmp_path / "pods.yaml").write_text(yaml.safe_dump({"kind": "List", "apiVersion": "v1", "items": pods}))
    out = tmp_path / "draft.yaml"
    code = main(
        [
            "new",
            "--crd",
            str(crd_path),
            "--from",
            str(tmp_path / "objects.yaml"),
            "--from",
            str(tmp_path / "pods.yaml"),
            "-o",
            str(out),
        ]
    )
    capsys.readouterr()
    assert code == 0
    text = out.read_text()
    (karta,) = list(yaml.safe_load_all(text))
    assert set(karta["spec"]) == {"structureDefinition", "optimizationInstructions"}
    for line in text.splitlines():
        assert not line.lstrip().startswith(("injected:", "spec:\n")), line
    (child,) = karta["spec"]["structureDefinition"]["childComponents"]
    assert child["specDefinition"]["podTemplateSpecPath"] == '.spec["a\\"b\\nspec:\\n  injected: true"][]? | .tmpl'
    assert main(["test", str(tmp_path)]) == 0  # the fixtures it wrote pass: every path is valid jq
    capsys.readouterr()
