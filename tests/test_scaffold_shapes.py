"""`kartalint new --crd` on CRD shapes the catalog's operators do not have (small CRDs written for
these tests, shaped like Apache Flink's FlinkDeployment, SGLang's RoleBasedGroup and KAITO's
Workspace): base templates and template libraries are not roles, roles outside `spec` and pod
templates under x-kubernetes-preserve-unknown-fields are found, and no condition type is invented."""

from __future__ import annotations

import yaml

from kartalint.cli import main

POD_TEMPLATE = {
    "type": "object",
    "properties": {
        "metadata": {"type": "object"},
        "spec": {"type": "object", "properties": {"containers": {"type": "array", "items": {"type": "object"}}}},
    },
}
FREE = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}


def crd(kind, properties, status=None):
    schema = {"type": "object", "properties": dict(properties, status=status or {"type": "object"})}
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{kind.lower()}s.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": kind, "plural": f"{kind.lower()}s"},
            "scope": "Namespaced",
            "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": schema}}],
        },
    }


def draft(tmp_path, capsys, document):
    path = tmp_path / "crd.yaml"
    path.write_text(yaml.safe_dump(document))
    assert main(["new", "--crd", str(path), "-o", str(tmp_path / "draft.yaml")]) == 0
    capsys.readouterr()
    text = (tmp_path / "draft.yaml").read_text()
    data = yaml.safe_load(text)
    children = data["spec"]["structureDefinition"].get("childComponents", [])
    return text, data, {c["name"]: c for c in children}


def lints_clean_but_for_placeholders(tmp_path, capsys):
    # a draft of a CRD that names no status maps none (empty-status-mappings keeps --strict failing)
    disable = ["--disable", "draft-placeholder", "--disable", "empty-status-mappings"]
    code = main(["lint", "--strict", *disable, str(tmp_path / "draft.yaml")])
    out = capsys.readouterr().out
    assert code == 0, out


def test_a_base_template_beside_role_templates_is_not_a_role(tmp_path, capsys):
    text, _, roles = draft(
        tmp_path,
        capsys,
        crd(
            "FlinkDeployment",
            {
                "spec": {
                    "type": "object",
                    "properties": {
                        "podTemplate": POD_TEMPLATE,
                        "jobManager": {
                            "type": "object",
                            "properties": {"replicas": {"type": "integer", "default": 1}, "podTemplate": POD_TEMPLATE},
                        },
                        "taskManager": {
                            "type": "object",
                            "properties": {"replicas": {"type": "integer"}, "podTemplate": POD_TEMPLATE},
                        },
                    },
                }
            },
        ),
    )
    assert set(roles) == {"jobmanager", "taskmanager"}
    assert "# Not a role: .spec.podTemplate is a base template" in text
    assert roles["jobmanager"]["specDefinition"]["podTemplateSpecPath"] == ".spec.jobManager.podTemplate"
    lints_clean_but_for_placeholders(tmp_path, capsys)


def test_a_template_library_is_not_a_role(tmp_path, capsys):
    item = {
        "type": "object",
        "required": ["name"],
        "properties": {"name": {"type": "string"}, "replicas": {"type": "integer"}, "template": POD_TEMPLATE},
    }
    text, _, roles = draft(
        tmp_path,
        capsys,
        crd(
            "RoleBasedGroup",
            {
                "spec": {
                    "type": "object",
                    "properties": {
                        "roles": {"type": "array", "items": item},
                        "roleTemplates": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "properties": {"name": {"type": "string"}, "template": POD_TEMPLATE},
                            },
                        },
                    },
                }
            },
        ),
    )
    assert list(roles) == ["role"]
    assert "# Not a role: .spec.roleTemplates[].template is a template library" in text
    assert roles["role"]["instanceIdPath"] == ".spec.roles[]? | .name"
    lints_clean_but_for_placeholders(tmp_path, capsys)


def test_roles_outside_spec_and_free_form_templates_are_found_by_name(tmp_path, capsys):
    text, _, roles = draft(
        tmp_path,
        capsys,
        crd(
            "Workspace",
            {
                "resource": {"type": "object", "properties": {"count": {"type": "integer"}}},
                "inference": {"type": "object", "properties": {"template": FREE}},
                "tuning": {"type": "object", "properties": {"template": FREE}},
            },
        ),
    )
    assert set(roles) == {"inference", "tuning"}
    assert roles["inference"]["specDefinition"]["podTemplateSpecPath"] == ".inference.template"
    assert "guessed by its name" in text
    assert "no pod-bearing field" not in text
    lints_clean_but_for_placeholders(tmp_path, capsys)


def conditions(enum=None):
    kind = {"type": "string"}
    if enum:
        kind["enum"] = enum
    return {
        "type": "object",
        "properties": {
            "conditions": {
                "type": "array",
                "items": {"type": "object", "properties": {"type": kind, "status": {"type": "string"}}},
            }
        },
    }


def test_condition_types_are_never_invented(tmp_path, capsys):
    spec = {"spec": {"type": "object", "properties": {"template": POD_TEMPLATE}}}
    text, data, _ = draft(tmp_path, capsys, crd("Plain", spec, conditions()))
    status = data["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]
    assert status["statusMappings"] == {} and "conditionsDefinition" in status
    assert "does not name its condition types" in text
    text, data, _ = draft(tmp_path, capsys, crd("Named", spec, conditions(["Ready", "Failed", "Degrading"])))
    mappings = data["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]["statusMappings"]
    assert mappings == {
        "running": [{"byConditions": [{"type": "Ready", "status": "True"}]}],
        "failed": [{"byConditions": [{"type": "Failed", "status": "True"}]}],
    }
    assert "TODO: map Degrading to a status" in text
    lints_clean_but_for_placeholders(tmp_path, capsys)


def test_skeletons_are_valid_for_their_crd_and_keep_to_its_fields(tmp_path, capsys):
    from kartalint.scaffold.drafts import skeleton_problems

    document = crd(
        "Workspace",
        {
            "resource": {
                "type": "object",
                "required": ["labelSelector"],
                "properties": {
                    "labelSelector": {"type": "object", "properties": {"matchLabels": {"type": "object"}}},
                    "count": {"type": "integer"},
                },
            },
            "inference": {"type": "object", "properties": {"template": FREE}},
        },
    )
    document["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["required"] = ["resource"]
    path = tmp_path / "crd.yaml"
    path.write_text(yaml.safe_dump(document))
    assert main(["new", "--crd", str(path), "-o", str(tmp_path / "draft.yaml")]) == 0
    err = capsys.readouterr().err
    assert "1 role(s) found" in err and ".inference.template" in err and "guessed by name" in err  # the review report
    skeleton = yaml.safe_load((tmp_path / "draft.fixture.yaml").read_text())["object"]
    assert "spec" not in skeleton, "the CRD has no spec"
    assert skeleton["resource"] == {"labelSelector": {}}
    assert skeleton_problems(document, "v1", skeleton) == []
    assert main(["test", str(tmp_path / "draft.fixture.yaml")]) == 0


def test_a_skeleton_the_crd_refuses_is_an_error_and_no_fixture(tmp_path, capsys):
    spec = {
        "spec": {
            "type": "object",
            "required": ["mode", "template"],
            "properties": {"mode": {"type": "string", "pattern": "^[A-Z]{3}$"}, "template": POD_TEMPLATE},
        }
    }
    path = tmp_path / "crd.yaml"
    path.write_text(yaml.safe_dump(crd("Strict", spec)))
    code = main(["new", "--crd", str(path), "-o", str(tmp_path / "draft.yaml")])
    err = capsys.readouterr().err
    assert (
        code == 1 and "the skeleton Strict object is not valid for its CRD: spec.mode: 'example' does not match" in err
    )
    assert (tmp_path / "draft.yaml").exists() and not (tmp_path / "draft.fixture.yaml").exists()


def test_review_as_json_and_unmapped_phase_values(tmp_path, capsys):
    import json

    status = {
        "type": "object",
        "properties": {"phase": {"type": "string", "enum": ["Running", "FINISHED", "Draining"]}},
    }
    document = crd(
        "Phased",
        {
            "spec": {
                "type": "object",
                "properties": {
                    "podTemplate": POD_TEMPLATE,
                    "jobManager": {
                        "type": "object",
                        "properties": {"replicas": {"type": "integer"}, "podTemplate": POD_TEMPLATE},
                    },
                },
            }
        },
        status,
    )
    path = tmp_path / "crd.yaml"
    path.write_text(yaml.safe_dump(document))
    assert main(["new", "--crd", str(path), "-f", "json"]) == 0
    review = json.loads(capsys.readouterr().out)
    assert review["schemaVersion"] == 1
    [draft] = review["drafts"]
    assert [(r["name"], r["path"], r["replicas"]) for r in draft["roles"]] == [
        ("jobmanager", ".spec.jobManager.podTemplate", "(.spec.jobManager.replicas // 1)")
    ]
    assert any("Not a role: .spec.podTemplate" in note for note in draft["notes"])
    assert any("TODO: map Draining to a status" in note for note in draft["notes"])
    assert draft["problems"] == []


def test_a_count_next_to_the_template_is_the_replicas(tmp_path, capsys):
    _, _, roles = draft(
        tmp_path,
        capsys,
        crd(
            "Counted",
            {
                "spec": {
                    "type": "object",
                    "properties": {
                        "workers": {
                            "type": "object",
                            "properties": {"count": {"type": "integer", "default": 2}, "template": POD_TEMPLATE},
                        }
                    },
                }
            },
        ),
    )
    assert roles["workers"]["scaleDefinition"]["replicasPath"] == "(.spec.workers.count // 2)"


def test_alternative_patterns_of_a_list_entry_are_guarded(tmp_path, capsys):
    item = {
        "type": "object",
        "required": ["name"],
        "properties": {
            "name": {"type": "string"},
            "replicas": {"type": "integer", "default": 1},
            "leaderWorkerPattern": {
                "type": "object",
                "properties": {"size": {"type": "integer"}, "template": POD_TEMPLATE},
            },
            "standalonePattern": {"type": "object", "properties": {"template": POD_TEMPLATE}},
        },
        "x-kubernetes-validations": [{"rule": "!(has(self.leaderWorkerPattern) && has(self.standalonePattern))"}],
    }
    _text, _data, roles = draft(
        tmp_path,
        capsys,
        crd("RoleBasedGroup", {"spec": {"type": "object", "properties": {"roles": {"type": "array", "items": item}}}}),
    )
    ids = sorted(c["instanceIdPath"] for c in roles.values())
    assert ids == [
        ".spec.roles[]? | select(.leaderWorkerPattern != null) | .name",
        ".spec.roles[]? | select(.standalonePattern != null) | .name",
    ]
    for component in roles.values():
        guard = component["instanceIdPath"].split("|")[1].strip()
        assert guard in component["specDefinition"]["podTemplateSpecPath"]
        assert guard in component["scaleDefinition"]["replicasPath"]
    lints_clean_but_for_placeholders(tmp_path, capsys)


def test_the_skeleton_gives_each_alternative_its_own_entry(tmp_path, capsys):
    item = {
        "type": "object",
        "required": ["name"],
        "properties": {
            "name": {"type": "string"},
            "leaderWorkerPattern": {
                "type": "object",
                "properties": {"size": {"type": "integer"}, "template": POD_TEMPLATE},
            },
            "standalonePattern": {"type": "object", "properties": {"template": POD_TEMPLATE}},
        },
    }
    draft(
        tmp_path,
        capsys,
        crd("RoleBasedGroup", {"spec": {"type": "object", "properties": {"roles": {"type": "array", "items": item}}}}),
    )
    skeleton = yaml.safe_load((tmp_path / "draft.fixture.yaml").read_text())["object"]
    entries = skeleton["spec"]["roles"]
    assert len(entries) == 2 and all(len({"leaderWorkerPattern", "standalonePattern"} & set(e)) == 1 for e in entries)
    assert len({e["name"] for e in entries}) == 2
    assert main(["test", str(tmp_path / "draft.fixture.yaml")]) == 0


def test_the_draft_excerpt_in_the_docs_is_what_the_command_writes(tmp_path, capsys):
    import os
    import re

    from conftest import ROOT

    with open(os.path.join(ROOT, "docs", "crd.md"), encoding="utf-8") as handle:
        docs = handle.read()
    excerpt = re.search(r"<!-- draft-excerpt:[^>]*-->\n```yaml\n(.*?)```", docs, re.S).group(1)
    crd_path = os.path.join(ROOT, "tests", "data", "crds", "example.com_rolebasedgroups.yaml")
    assert main(["new", "--crd", crd_path, "-o", str(tmp_path / "rbg.yaml")]) == 0
    capsys.readouterr()
    written = (tmp_path / "rbg.yaml").read_text().splitlines()
    for line in excerpt.splitlines():
        assert line in written, f"docs/crd.md shows a line the draft does not have: {line!r}"
    skeleton = yaml.safe_load((tmp_path / "rbg.fixture.yaml").read_text())["object"]
    assert len(skeleton["spec"]["roles"]) == 2


def test_a_count_the_operator_derives_is_a_todo_with_the_crd_description(tmp_path, capsys):
    replicas = {
        "type": "integer",
        "description": "Number of TaskManager replicas. If not set, it is derived from the job parallelism.",
    }
    text, _, _roles = draft(
        tmp_path,
        capsys,
        crd(
            "FlinkDeployment",
            {
                "spec": {
                    "type": "object",
                    "properties": {
                        "taskManager": {
                            "type": "object",
                            "properties": {"replicas": replicas, "podTemplate": POD_TEMPLATE},
                        }
                    },
                }
            },
        ),
    )
    assert (
        "TODO: the operator may derive replicas when it is not set" in text
        and "derived from the job parallelism" in text
    )
