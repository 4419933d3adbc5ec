"""`kartalint new --crd` on CRD shapes the catalog's operators do not have (small CRDs written for
these tests, shaped like Apache Flink's FlinkDeployment, SGLang's RoleBasedGroup and KAITO's
Workspace): base templates and template libraries are not roles, roles outside `spec` and pod
templates under x-kubernetes-preserve-unknown-fields are found, and no condition type is invented."""

from __future__ import annotations

import json

import pytest
import yaml
from conftest import crd_document, unwrapped

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
    return crd_document({"type": "object", "properties": dict(properties, status=status or {"type": "object"})}, kind)


def draft(tmp_path, capsys, document):
    path = tmp_path / "crd.yaml"
    path.write_text(yaml.safe_dump(document))
    assert main(["new", "--crd", str(path), "-o", str(tmp_path / "draft.yaml")]) == 0
    capsys.readouterr()
    text = unwrapped((tmp_path / "draft.yaml").read_text())  # (what it says, each note and expression on a line)
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
    # no type named: a placeholder per status (never an empty mapping), never an invented type
    assert status["statusMappings"] == {
        key: [{"byConditions": [{"type": f"TODO-{key}", "status": "True"}]}]
        for key in ("initializing", "running", "completed", "failed")
    }
    assert "conditionsDefinition" in status and "does not name its condition types" in text
    text, data, _ = draft(tmp_path, capsys, crd("Named", spec, conditions(["Ready", "Failed", "Degrading"])))
    mappings = data["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]["statusMappings"]
    assert mappings == {  # the enum names every type: no placeholder for statuses none of them means
        "running": [{"byConditions": [{"type": "Ready", "status": "True"}]}],
        "failed": [{"byConditions": [{"type": "Failed", "status": "True"}]}],
    }
    assert "TODO: condition Degrading: map it to a status if it means one" in text
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
    assert any("TODO: Draining is between two statuses" in note for note in draft["notes"])
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


def docs_excerpts():
    import os
    import re

    from conftest import ROOT

    with open(os.path.join(ROOT, "docs", "crd.md"), encoding="utf-8") as handle:
        docs = handle.read()
    return [
        (kind, path, block)
        for kind, path, block in re.findall(r"<!-- (draft|crd)-excerpt: (\S+) -->\n```yaml\n(.*?)```", docs, re.S)
    ]


def test_docs_show_every_shape():
    shown = {path for kind, path, _ in docs_excerpts() if kind == "draft"}
    import glob
    import os

    from conftest import ROOT

    shapes = {os.path.relpath(p, ROOT) for p in glob.glob(shape("*.yaml"))}
    assert shapes <= shown and "tests/data/crds/example.com_rolebasedgroups.yaml" in shown


@pytest.mark.parametrize(
    "kind, path, block", docs_excerpts(), ids=lambda v: v if isinstance(v, str) and "/" in v else None
)
def test_the_excerpts_in_the_docs_are_what_the_crd_and_the_command_say(tmp_path, capsys, kind, path, block):
    import os

    from conftest import ROOT

    crd_path = os.path.join(ROOT, path)
    if kind == "crd":
        with open(crd_path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
        what = "CRD"
    else:
        assert main(["new", "--crd", crd_path, "-o", str(tmp_path / "draft.yaml")]) in (0, 1)
        capsys.readouterr()
        lines = (tmp_path / "draft.yaml").read_text().splitlines()
        what = "draft"
    for line in block.splitlines():
        assert line in lines, f"docs/crd.md shows a line the {what} of {path} does not have: {line!r}"


def test_the_rolebasedgroup_skeleton_has_an_entry_per_pattern(tmp_path, capsys):
    import os

    from conftest import ROOT

    crd_path = os.path.join(ROOT, "tests", "data", "crds", "example.com_rolebasedgroups.yaml")
    assert main(["new", "--crd", crd_path, "-o", str(tmp_path / "rbg.yaml")]) == 0
    capsys.readouterr()
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


# -- shapes of real operators the drafting did not know (issue 31), one small CRD each in
# tests/data/crds/shapes/, the draft checked field by field and evaluated on objects of that shape


def shape(name):
    import os

    from conftest import ROOT

    return os.path.join(ROOT, "tests", "data", "crds", "shapes", name)


def draft_of(tmp_path, capsys, crd_file, code=0):
    out = tmp_path / "draft.yaml"
    assert main(["new", "--crd", crd_file, "-o", str(out)]) == code
    err = capsys.readouterr().err
    text = unwrapped(out.read_text())
    data = yaml.safe_load(text)
    root = data["spec"]["structureDefinition"]["rootComponent"]
    children = {c["name"]: c for c in data["spec"]["structureDefinition"].get("childComponents", [])}
    return text, root["statusDefinition"], children, err


def comments_above(text, line):
    """The comment lines right above the first line that is ``line`` (stripped; ``...`` at its end:
    that starts with it)."""
    lines = text.splitlines()
    index = next(
        i
        for i, candidate in enumerate(lines)
        if candidate.strip() == line or (line.endswith("...") and candidate.strip().startswith(line[:-3]))
    )
    above = []
    for candidate in reversed(lines[:index]):
        if not candidate.strip().startswith("#"):
            break
        above.insert(0, candidate.strip()[2:])
    return above


def evaluate(data, obj):
    from kartalint.evaluation import Evaluator

    with Evaluator() as evaluator:
        return evaluator.evaluate(data, obj)


def component_named(view, name):
    return next(c for c in view.components if c.name == name)


def placeholder_findings(tmp_path, capsys, crd_file):
    import json

    code = main(["lint", "--strict", "--crd", crd_file, "-f", "json", str(tmp_path / "draft.yaml")])
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert code == 1
    assert {f["rule"] for f in findings if f["severity"] != "info"} == {"draft-placeholder"}, findings
    return findings


def test_the_phase_a_printer_column_shows_with_the_values_its_description_names(tmp_path, capsys):
    text, status, _, _ = draft_of(tmp_path, capsys, shape("example.com_pipelines.yaml"))
    # the printer column's field, nested; not the date or the counter columns, nor .status.message
    assert status["phaseDefinition"] == {"path": ".status.state.phase"} and "conditionsDefinition" not in status
    assert status["statusMappings"] == {
        "initializing": [{"byPhase": "Pending"}],
        "running": [{"byPhase": "Running"}],
        "completed": [{"byPhase": "Succeeded"}],
        "failed": [{"byPhase": "Failed"}],
    }
    assert comments_above(text, "running:") == ["Running: 'Running' means running"]
    assert comments_above(text, "initializing:") == ["Pending: 'Pending' means initializing"]
    assert "(the printer column 'Phase' shows it); values from its description" in text
    data = yaml.safe_load(text)
    obj = {"apiVersion": "example.com/v1", "kind": "Pipeline", "metadata": {"name": "p"}, "spec": {}}
    assert evaluate(data, {**obj, "status": {"state": {"phase": "Succeeded"}}}).statuses == ["Completed"]
    assert evaluate(data, obj).statuses == ["Undefined"]


def test_a_phase_without_declared_values_gets_a_placeholder_per_status(tmp_path, capsys):
    crd_file = shape("example.com_sparkjobs.yaml")
    text, status, _, _ = draft_of(tmp_path, capsys, crd_file)
    # the Status column (a string field); not Attempts (an integer), Start (a date) or Suspend (spec)
    assert status["phaseDefinition"] == {"path": ".status.applicationState.state"}
    assert status["statusMappings"] == {
        key: [{"byPhase": f"TODO-{key}"}] for key in ("initializing", "running", "completed", "failed", "suspended")
    }, "suspended: the CRD has .spec.suspend"
    assert "replace each TODO-<status> with the values" in text
    assert "(the CRD says .spec.suspend suspends it)" in comments_above(text, "suspended:")[0]
    findings = placeholder_findings(tmp_path, capsys, crd_file)
    placeholders = {f["message"].split(": ", 1)[1] for f in findings if "left in the definition" in f["message"]}
    assert {f"'TODO-{key}'" for key in ("initializing", "running", "completed", "failed", "suspended")} <= placeholders


def test_an_enum_deep_under_status_is_the_phase_mapped_by_meaning(tmp_path, capsys):
    text, status, _, _ = draft_of(tmp_path, capsys, shape("example.com_batchruns.yaml"))
    # not the conditions' status enum, not the per-worker state inside a list
    assert status["phaseDefinition"] == {"path": ".status.run.lifecycle.stage"}
    assert status["statusMappings"] == {  # an enum is complete: no placeholder for the statuses it lacks
        "initializing": [{"byPhase": "Queued"}],
        "running": [{"byPhase": "Running"}],
        "completed": [{"byPhase": "Succeeded"}],
        "failed": [{"byPhase": "Error"}],
        "suspended": [{"byPhase": "Stopped"}],
    }
    todo = comments_above(text, "statusMappings:")
    assert todo == [
        "TODO: Completing is between two statuses: running (pods still finishing) or completed? "
        "Map it as the operator's docs say",
        "Unknown: left Undefined (it means nothing is known)",
    ]
    data = yaml.safe_load(text)
    obj = {"apiVersion": "example.com/v1", "kind": "BatchRun", "metadata": {"name": "b"}, "spec": {}}
    for stage, expected in (("Stopped", ["Suspended"]), ("Completing", ["Undefined"]), ("Queued", ["Initializing"])):
        assert evaluate(data, {**obj, "status": {"run": {"lifecycle": {"stage": stage}}}}).statuses == expected


def test_conditions_without_a_type_field_are_not_read_as_conditions(tmp_path, capsys):
    text, status, _, _ = draft_of(tmp_path, capsys, shape("example.com_gangjobs.yaml"))
    assert "conditionsDefinition" not in status
    assert (
        "# Status: .status.conditions has no condition type field (its items have: lastTransitionTime, status)" in text
    )
    assert status["phaseDefinition"] == {"path": ".status.state.phase"}
    assert status["statusMappings"] == {
        "initializing": [{"byPhase": "Pending"}],
        "running": [{"byPhase": "Running"}],
        "completed": [{"byPhase": "Completed"}],
        "failed": [{"byPhase": "Aborted"}, {"byPhase": "Failed"}],
    }
    assert "Aborted: 'Aborted' means failed (TODO: suspended if the operator aborts to suspend)" in comments_above(
        text, "failed:"
    )
    todo = comments_above(text, "statusMappings:")
    assert [line.split(" is between")[0] for line in todo] == [
        f"TODO: {value}" for value in ("Aborting", "Restarting", "Completing", "Terminating", "Terminated")
    ]


def test_condition_field_names_come_from_the_crd(tmp_path, capsys):
    text, status, _, _ = draft_of(tmp_path, capsys, shape("example.com_servegroups.yaml"))
    # items {conditionType, state}: no `type`, no reason or message to read
    assert status["conditionsDefinition"] == {
        "path": ".status.conditions // []",
        "typeFieldName": "conditionType",
        "statusFieldName": "state",
    }
    assert status["statusMappings"] == {
        "running": [{"byConditions": [{"type": "Available", "status": "True"}]}],
        "degraded": [{"byConditions": [{"type": "Degraded", "status": "True"}]}],
    }
    assert "TODO: condition Progressing: map it to a status if it means one" in comments_above(text, "statusMappings:")
    data = yaml.safe_load(text)
    obj = {"apiVersion": "example.com/v1", "kind": "ServeGroup", "metadata": {"name": "s"}, "spec": {}}
    conditions = [{"conditionType": "Available", "state": "True"}, {"conditionType": "Degraded", "state": "False"}]
    assert evaluate(data, {**obj, "status": {"conditions": conditions}}).statuses == ["Running"]


SPARK_OBJECT = {  # RAPIDS-style: 4 executors with one GPU each, the driver without
    "apiVersion": "example.com/v1beta2",
    "kind": "SparkJob",
    "metadata": {"name": "rapids-etl", "namespace": "spark"},
    "spec": {
        "image": "nvcr.io/nvidia/spark/rapids:24.10",
        "driver": {"cores": 1, "coreRequest": "500m", "memory": "4g", "labels": {"version": "3.5.1"}},
        "executor": {"cores": 4, "instances": 4, "memory": "16g", "gpu": {"name": "nvidia.com/gpu", "quantity": 1}},
    },
    "status": {"applicationState": {"state": "RUNNING"}},
}


def test_roles_described_by_fields_count_their_gpus_and_cpu(tmp_path, capsys):
    crd_file = shape("example.com_sparkjobs.yaml")
    text, _, roles, err = draft_of(tmp_path, capsys, crd_file)
    assert set(roles) == {"driver", "executor"} and "schema shape (fields)" in err
    driver = roles["driver"]["specDefinition"]["fragmentedPodSpecDefinition"]
    executor = roles["executor"]["specDefinition"]["fragmentedPodSpecDefinition"]
    assert {k: v for k, v in driver.items() if k != "resourcesPath"} == {
        "imagePath": ".spec.driver.image",
        "labelsPath": ".spec.driver.labels",
        "annotationsPath": ".spec.driver.annotations",
        "schedulerNamePath": ".spec.driver.schedulerName",
    }
    assert executor["resourcesPath"] == (
        ".spec.executor | {requests: ({cpu: (.coreRequest // .cores)} + (if .gpu then {(.gpu.name): .gpu.quantity} "
        "else {} end) | with_entries(select(.value != null) | {key, value: (.value | tostring)}))}"
    )
    assert roles["driver"]["scaleDefinition"] == {"replicasPath": "1"}
    assert roles["executor"]["scaleDefinition"] == {"replicasPath": "(.spec.executor.instances // 1)"}
    above = comments_above(text, "resourcesPath: '.spec.executor | ...")
    assert above[0] == "resources built from the role's fields, so that consumers count its GPUs and CPU:"
    assert any(line.startswith("TODO: memory (.memory) is not counted") for line in [a.strip() for a in above])
    assert above[-2:] == [  # the directive last, right above the key it silences; its reason above it
        "built from the role's fields: consumers read it; a write-back goes to the fields themselves",
        "kartalint: disable=not-assignable-path",
    ]
    assert "TODO: the operator also merges .template (a pod template the CRD leaves free)" in text
    # the built resources are not assignable: suppressed with their reason, nothing else but placeholders
    import json

    main(["lint", "--strict", "--crd", crd_file, "-f", "json", str(tmp_path / "draft.yaml")])
    report = json.loads(capsys.readouterr().out)
    assert report["suppressed"] == 2, report["counts"]
    assert {f["rule"] for f in report["findings"] if f["severity"] != "info"} == {"draft-placeholder"}
    view = evaluate(yaml.safe_load(text), SPARK_OBJECT)
    assert not view.all_errors, view.all_errors
    components = {c.name: c for c in view.components}
    assert components["executor"].resources.gpus == 4 and components["executor"].resources.cpu_millis == 16000
    assert components["driver"].resources.gpus == 0 and components["driver"].resources.cpu_millis == 500
    bare = {**SPARK_OBJECT, "spec": {"driver": {}, "executor": {"instances": 2}}}  # no cores, no gpu: nothing counted
    view = evaluate(yaml.safe_load(text), bare)
    assert not view.all_errors and sum(c.resources.cpu_millis + c.resources.gpus for c in view.components) == 0


WRAPPER_OBJECT = {
    "apiVersion": "example.com/v1beta2",
    "kind": "Wrapper",
    "metadata": {"name": "wrapped-jobset", "namespace": "default"},
    "spec": {
        "components": [
            {
                "podSets": [
                    {"path": "template.spec.replicatedJobs[0].template.spec.template", "replicas": 1},
                    {"path": "template.spec.replicatedJobs[1].template.spec.template", "replicas": 4},
                ],
                "template": {
                    "apiVersion": "jobset.x-k8s.io/v1alpha2",
                    "kind": "JobSet",
                    "metadata": {"name": "trainer"},
                    "spec": {
                        "replicatedJobs": [
                            {
                                "name": "driver",
                                "template": {"spec": {"template": {"spec": {"containers": [{"name": "d"}]}}}},
                            },
                            {
                                "name": "workers",
                                "replicas": 2,
                                "template": {
                                    "spec": {
                                        "parallelism": 2,
                                        "template": {
                                            "spec": {
                                                "containers": [
                                                    {"name": "w", "resources": {"limits": {"nvidia.com/gpu": "8"}}}
                                                ]
                                            }
                                        },
                                    }
                                },
                            },
                        ]
                    },
                },
            },
            {  # a wrapped pod: the path is the wrapped object itself
                "podSets": [{"path": "template"}],
                "template": {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": {"name": "single"},
                    "spec": {"containers": [{"name": "p", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]},
                },
            },
        ]
    },
    "status": {"phase": "Running", "conditions": [{"type": "PodsReady", "status": "True"}]},
}


def test_a_wrapped_resource_is_not_a_pod_template_its_pod_sets_are_the_roles(tmp_path, capsys):
    crd_file = shape("example.com_wrappers.yaml")
    text, status, roles, _ = draft_of(tmp_path, capsys, crd_file)
    [component] = roles.values()
    # one instance per pod set: those the status keeps per component first (the operator's validated
    # or inferred sets), else the spec's
    sets = "(.spec.components // []) | to_entries[] | .key as $i | ($o.status.componentStatus[$i].podSets // .value.podSets // [])"
    assert component["instanceIdPath"] == f'. as $o | {sets} | to_entries[] | "\\($i)-\\(.key)"'
    assert component["specDefinition"] == {
        "podTemplateSpecPath": f"(. as $o | {sets} | .[] | "
        '[$i, (.path | [splits("[.\\\\[\\\\]]+") | select(length > 0) | tonumber? // .])]) as [$i, $path] | '
        '.spec.components[$i] | if $path[0] == "template" then getpath($path) else .template | getpath($path) end'
    }
    assert component["scaleDefinition"] == {"replicasPath": f". as $o | {sets} | .[] | (.replicas // 1)"}
    assert "optional for known GVKs whose PodSets can be automatically inferred" in text  # quoted in a TODO
    # running from a condition type the CRD's description names; the phase's values are placeholders
    assert status["statusMappings"]["running"] == [{"byConditions": [{"type": "PodsReady", "status": "True"}]}]
    assert status["statusMappings"]["degraded"] == [{"byConditions": [{"type": "Unhealthy", "status": "True"}]}]
    placeholder_findings(tmp_path, capsys, crd_file)  # no path-not-in-crd (components have no name)
    view = evaluate(yaml.safe_load(text), WRAPPER_OBJECT)
    assert not view.all_errors, view.all_errors
    [sets] = [c for c in view.components if c.name == component["name"]]
    assert [(i.id, i.desired, i.resources.gpus) for i in sets.instances] == [
        ("0-0", 1, 0),
        ("0-1", 4, 32),
        ("1-0", 1, 1),
    ]
    assert view.statuses == ["Running"]
    # the pod sets the operator inferred for a wrapped Job declared without any, kept in the status
    inferred = {
        **WRAPPER_OBJECT,
        "spec": {"components": [{"template": WRAPPER_OBJECT["spec"]["components"][1]["template"]}]},
        "status": {"componentStatus": [{"name": "single", "podSets": [{"path": "template", "replicas": 2}]}]},
    }
    view = evaluate(yaml.safe_load(text), inferred)
    [sets] = [c for c in view.components if c.name == component["name"]]
    assert not view.all_errors and [(i.id, i.desired, i.resources.gpus) for i in sets.instances] == [("0-0", 2, 2)]
    assert main(["test", str(tmp_path / "draft.fixture.yaml")]) == 0  # the skeleton wraps a Job with one pod set


def test_a_wrapped_resource_without_pod_sets_is_a_todo_not_a_role(tmp_path, capsys):
    wrapped = {"type": "object", "x-kubernetes-embedded-resource": True, "x-kubernetes-preserve-unknown-fields": True}
    document = crd("Holder", {"spec": {"type": "object", "properties": {"template": wrapped}}})
    path = tmp_path / "crd.yaml"
    path.write_text(yaml.safe_dump(document))
    text, _, roles, _ = draft_of(tmp_path, capsys, str(path))
    assert roles == {} and "podTemplateSpecPath" not in text
    assert (
        "# Not a role: .spec.template is a wrapped resource (x-kubernetes-embedded-resource), not a pod template; "
        "TODO: the CRD does not say where its pods are" in text
    )


def test_optional_names_get_the_operator_style_fallback(tmp_path, capsys):
    text, _, roles, _ = draft_of(tmp_path, capsys, shape("example.com_gangjobs.yaml"))
    task = roles["task"]
    # the CRD's pattern refuses "": `//` catches the absent name
    assert task["instanceIdPath"] == '(.spec.tasks // []) | to_entries[] | .value.name // "default\\(.key)"'
    assert task["specDefinition"] == {"podTemplateSpecPath": ".spec.tasks[]? | .template"}
    obj = {
        "apiVersion": "example.com/v1alpha1",
        "kind": "GangJob",
        "metadata": {"name": "g"},
        "spec": {"tasks": [{"name": "ps", "replicas": 1, "template": {}}, {"replicas": 3, "template": {}}]},
    }
    view = evaluate(yaml.safe_load(text), obj)
    assert not view.all_errors and [(i.id, i.desired) for i in component_named(view, "task").instances] == [
        ("default1", 3),
        ("ps", 1),
    ]
    # a name the CRD lets be "": the fallback covers the empty string too (an empty id is an extraction error)
    item = {"type": "object", "properties": {"name": {"type": "string"}, "template": POD_TEMPLATE}}
    document = crd("Loose", {"spec": {"type": "object", "properties": {"parts": {"type": "array", "items": item}}}})
    path = tmp_path / "crd.yaml"
    path.write_text(yaml.safe_dump(document))
    text, _, roles, _ = draft_of(tmp_path, capsys, str(path))
    assert roles["part"]["instanceIdPath"] == (
        '(.spec.parts // []) | to_entries[] | (.value.name // "") as $name | '
        'if $name == "" then "default\\(.key)" else $name end'
    )
    obj = {
        "apiVersion": "example.com/v1",
        "kind": "Loose",
        "metadata": {"name": "l"},
        "spec": {"parts": [{"name": ""}]},
    }
    view = evaluate(yaml.safe_load(text), obj)
    assert not view.all_errors and [i.id for i in component_named(view, "part").instances] == ["default0"]


def test_entries_without_a_name_or_a_count_keep_one_result_per_instance(tmp_path, capsys):
    text, _, roles, _ = draft_of(tmp_path, capsys, shape("example.com_servegroups.yaml"))
    sidecar = roles["sidecar"]
    assert sidecar["instanceIdPath"] == '(.spec.sidecars // []) | to_entries[] | "sidecar-\\(.key)"'
    assert sidecar["scaleDefinition"] == {"replicasPath": ".spec.sidecars[]? | 1"}  # never a bare '1' (zip rule)
    obj = {
        "apiVersion": "example.com/v1",
        "kind": "ServeGroup",
        "metadata": {"name": "s"},
        "spec": {"sidecars": [{"template": {}}, {"template": {}}]},
    }
    view = evaluate(yaml.safe_load(text), obj)
    [component] = [c for c in view.components if c.name == "sidecar"]
    assert not view.all_errors and [(i.id, i.desired) for i in component.instances] == [
        ("sidecar-0", 1),
        ("sidecar-1", 1),
    ]


def test_counts_follow_the_crds_default_and_description(tmp_path, capsys):
    text, _, roles, _ = draft_of(tmp_path, capsys, shape("example.com_servegroups.yaml"))
    replicas = {name: c["scaleDefinition"]["replicasPath"] for name, c in roles.items()}
    assert replicas == {
        "router": "(.spec.router.replicas // 2)",  # the CRD's default
        "servers": "(.spec.servers.replicas // 0)",  # "If unset, defaults to 0: no server runs."
        "cache": "(.spec.cache.replicas // 1)",  # nothing said: 1, and a TODO
        "sidecar": ".spec.sidecars[]? | 1",
    }
    assert comments_above(text, "replicasPath: (.spec.cache.replicas // 1)") == [
        "TODO: the CRD states no default for replicas: an absent replicas is read as 1; write // 0 if the operator "
        "creates no pod without it (an int32 left unset)"
    ]
    assert comments_above(text, "replicasPath: (.spec.servers.replicas // 0)") == []
    obj = {"apiVersion": "example.com/v1", "kind": "ServeGroup", "metadata": {"name": "s"}, "spec": {}}
    view = evaluate(yaml.safe_load(text), obj)
    assert {c.name: c.desired for c in view.components if c.has_pod_definition} == {
        "router": 2,
        "servers": 0,
        "cache": 1,
        "sidecar": 0,
    }
    # a suspend field is a TODO next to the replicas
    text, _, _, _ = draft_of(tmp_path, capsys, shape("example.com_sparkjobs.yaml"))
    assert comments_above(text, "replicasPath: (.spec.executor.instances // 1)")[-1].startswith(
        "TODO: .spec.suspend suspends the workload (the CRD has it)"
    )


def test_a_single_role_gets_a_todo_selector(tmp_path, capsys):
    crd_file = shape("example.com_notebooks.yaml")
    text, status, roles, _ = draft_of(tmp_path, capsys, crd_file)
    assert list(roles) == ["pod"]
    assert roles["pod"]["specDefinition"] == {"podSpecPath": ".spec.template.spec"}
    assert roles["pod"]["podSelector"] == {"componentTypeSelector": {"keyPath": '.metadata.labels["TODO/pod"]'}}
    assert comments_above(text, "podSelector:") == [
        "TODO: the pod label that carries this role (and its instance) is not in the CRD; replace TODO/... with it"
    ]
    assert "scaleDefinition" not in roles["pod"]  # one pod, no count to read
    findings = placeholder_findings(tmp_path, capsys, crd_file)
    assert any(f["message"].endswith("""'.metadata.labels["TODO/pod"]'""") for f in findings)
    assert set(status["statusMappings"]) == {"initializing", "running", "completed", "failed"}


def test_odd_keyword_types_never_crash_the_drafting(tmp_path, capsys):
    """The drafting reads what it understands and skips a keyword of the wrong type (rejecting
    such CRDs is the CRD validation's job, before drafting)."""
    from kartalint.load.crds import CrdVersion
    from kartalint.scaffold.drafts import draft_definition

    with open(shape("example.com_sparkjobs.yaml"), encoding="utf-8") as handle:
        document = yaml.safe_load(handle)
    version = document["spec"]["versions"][0]
    schema = version["schema"]["openAPIV3Schema"]
    spec = schema["properties"]["spec"]["properties"]
    spec["driver"]["properties"]["gpu"]["properties"] = ["name"]
    spec["driver"]["properties"]["gpu"]["required"] = "name"
    spec["executor"]["description"] = 5
    spec["executor"]["properties"]["instances"]["default"] = "one"
    spec["executor"]["properties"]["instances"]["description"] = ["defaults to 3"]
    spec["executor"]["properties"]["template"]["x-kubernetes-embedded-resource"] = "yes"
    spec["executor"]["properties"]["labels"] = "labels"
    schema["properties"]["status"]["properties"]["applicationState"]["properties"]["state"]["enum"] = "RUNNING"
    schema["properties"]["status"]["properties"]["conditions"] = {"type": "array", "items": ["type"]}
    schema["required"] = {"spec": True}
    details = (("3", "5", "[]"), ("Status", ".status.applicationState.state", ""))
    odd = CrdVersion("example.com", "v1beta2", "SparkJob", "sparkjobs", schema, True, True, "odd.yaml", details)
    draft = draft_definition(odd)
    children = {c["name"]: c for c in draft.data["spec"]["structureDefinition"]["childComponents"]}
    assert set(children) == {"driver", "executor"}
    assert children["executor"]["scaleDefinition"]["replicasPath"] == "(.spec.executor.instances // 1)"
    status = draft.data["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]
    assert "conditionsDefinition" not in status and status["statusMappings"]["running"] == [{"byPhase": "TODO-running"}]
    # through the command: a clear outcome, never a traceback
    version["additionalPrinterColumns"] = [{"name": 3, "jsonPath": 5, "description": []}, "x"]
    path = tmp_path / "odd.yaml"
    path.write_text(yaml.safe_dump(document))
    code = main(["new", "--crd", str(path), "-o", str(tmp_path / "draft.yaml")])
    err = capsys.readouterr().err
    assert "Traceback" not in err and code in (0, 1, 2), err


# -- `init --crd` and `new --crd` are one path (issue 31 item 7)


def sizer_crd(tmp_path, cpu):
    """A role described by fields whose `cpu` the CRD requires (the skeleton fills it in)."""
    worker = {
        "type": "object",
        "required": ["cpu"],
        "properties": {"cpu": cpu, "image": {"type": "string"}, "count": {"type": "integer", "default": 1}},
    }
    document = crd("Sizer", {"spec": {"type": "object", "required": ["worker"], "properties": {"worker": worker}}})
    path = tmp_path / "sizer.yaml"
    path.write_text(yaml.safe_dump(document))
    return str(path)


def run_init(tmp_path, capsys, crd_path):
    root = tmp_path / "repo"
    root.mkdir()
    code = main(["init", "--root", str(root), "--crd", crd_path, "--rev", "v0.0.0"])
    out, err = capsys.readouterr()
    return code, root, out, err


def test_init_and_new_write_the_same_draft_skeleton_and_review(tmp_path, capsys):
    crd_path = shape("example.com_sparkjobs.yaml")
    assert main(["new", "--crd", crd_path, "-o", str(tmp_path / "def.yaml")]) == 0
    new_err = capsys.readouterr().err
    code, root, _, init_err = run_init(tmp_path, capsys, crd_path)
    assert code == 0, init_err
    name = "example-com-sparkjob-v1beta2"
    assert (root / "definitions" / f"{name}.yaml").read_text() == (tmp_path / "def.yaml").read_text()
    by_new = yaml.safe_load((tmp_path / "def.fixture.yaml").read_text())
    by_init = yaml.safe_load((root / "definitions" / name / "minimal.yaml").read_text())
    assert by_new.pop("definition") == "def.yaml" and by_new == by_init
    review = [line for line in new_err.splitlines() if "role(s) found" in line or line.startswith("kartalint:   ")]
    assert len(review) == 3 and all(line in init_err.splitlines() for line in review)


def test_init_refuses_a_skeleton_the_crd_refuses_as_new_does(tmp_path, capsys):
    spec = {
        "spec": {
            "type": "object",
            "required": ["mode", "template"],
            "properties": {"mode": {"type": "string", "pattern": "^[A-Z]{3}$"}, "template": POD_TEMPLATE},
        }
    }
    path = tmp_path / "crd.yaml"
    path.write_text(yaml.safe_dump(crd("Strict", spec)))
    code, root, _, err = run_init(tmp_path, capsys, str(path))
    assert code == 1
    assert (
        "kartalint: error: the skeleton Strict object is not valid for its CRD: spec.mode: 'example' does not match"
        in err
    )
    assert (root / "definitions" / "example-com-strict-v1.yaml").exists()
    assert not (root / "definitions" / "example-com-strict-v1").exists(), "no fixture of an object the CRD refuses"


def test_a_skeleton_the_draft_cannot_evaluate_is_written_without_expect(tmp_path, capsys):
    # the CRD's `cpu` is a size class, not a quantity: the draft's guess fails on the skeleton
    crd_path = sizer_crd(tmp_path, {"type": "string", "enum": ["small", "large"]})
    assert main(["new", "--crd", crd_path, "-o", str(tmp_path / "def.yaml")]) == 1
    err = capsys.readouterr().err
    message = "kartalint: error: the draft cannot evaluate its skeleton Sizer object: worker: specDefinition"
    assert message in err and "'small'" in err
    fixture = yaml.safe_load((tmp_path / "def.fixture.yaml").read_text())
    assert fixture["expect"] == {} and fixture["object"]["spec"]["worker"]["cpu"] == "small"
    assert main(["test", str(tmp_path / "def.fixture.yaml")]) == 1  # needs expectations: not a pass
    assert "expect is empty" in capsys.readouterr().out
    assert main(["new", "--crd", crd_path, "-f", "json"]) == 1
    [problem] = json.loads(capsys.readouterr().out)["drafts"][0]["problems"]
    assert problem.startswith("the draft cannot evaluate its skeleton Sizer object: worker: specDefinition")
    code, root, _, init_err = run_init(tmp_path, capsys, crd_path)
    assert code == 1 and message in init_err
    by_init = yaml.safe_load((root / "definitions" / "example-com-sizer-v1" / "minimal.yaml").read_text())
    assert by_init["expect"] == {} and by_init["object"] == fixture["object"]
    # a quantity the skeleton can fill in is a number
    crd_path = sizer_crd(tmp_path, {"type": "string"})
    assert main(["new", "--crd", crd_path, "-o", str(tmp_path / "ok.yaml")]) == 0
    capsys.readouterr()
    fixture = yaml.safe_load((tmp_path / "ok.fixture.yaml").read_text())
    assert fixture["object"]["spec"]["worker"]["cpu"] == "1" and fixture["expect"]["components"]


def test_a_stop_annotation_the_crd_describes_is_a_todo_next_to_the_replicas(tmp_path, capsys):
    spec = {
        "type": "object",
        "description": "The server. Set the annotation `example.com/stopped` to stop its pod; remove it to start again.",
        "properties": {"replicas": {"type": "integer", "default": 1}, "template": POD_TEMPLATE},
    }
    path = tmp_path / "crd.yaml"
    path.write_text(yaml.safe_dump(crd("Server", {"spec": spec})))
    text, status, _, _ = draft_of(tmp_path, capsys, str(path))
    assert comments_above(text, "replicasPath: (.spec.replicas // 1)") == [
        "TODO: the annotation example.com/stopped suspends the workload (the CRD has it): while it is set the "
        "operator runs no pod, which these replicas do not show"
    ]
    assert status["statusMappings"]["suspended"] == [
        {"byExpression": {"expression": '"TODO-suspended"', "expectedResult": "true"}}
    ]
    assert "the CRD says the annotation example.com/stopped suspends it" in comments_above(text, "suspended:")[0]


def test_a_transitional_value_the_crd_explains_is_mapped_as_it_says(tmp_path, capsys):
    phase = {
        "type": "string",
        "enum": ["Running", "Completing", "Restarting"],
        "description": "The phase.\n- Running: pods are up\n- Completing: all pods finished and the job succeeded\n"
        "- Restarting: the job is restarting",
    }
    spec = {"spec": {"type": "object", "properties": {"template": POD_TEMPLATE}}}
    text, status, _, _ = draft_of(
        tmp_path, capsys, _write(tmp_path, crd("Explained", spec, {"type": "object", "properties": {"phase": phase}}))
    )
    assert status["statusMappings"] == {
        "running": [{"byPhase": "Running"}],
        "completed": [{"byPhase": "Completing"}],
    }
    assert comments_above(text, "completed:") == [
        "Completing: the CRD says Completing: 'all pods finished and the job succeeded'"
    ]
    assert "TODO: Restarting is between two statuses" in comments_above(text, "statusMappings:")[0]


def _write(tmp_path, document):
    path = tmp_path / "crd.yaml"
    path.write_text(yaml.safe_dump(document))
    return str(path)
