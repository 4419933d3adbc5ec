"""`kartalint new --crd CRD --from PATH`: drafts that explain the objects and pods an author already
has, checked field by field on operators the catalog lacks (tests/data/from-objects: CRDs, objects
and pods as their controllers write them; each file says from which source), for the four shapes of
issue 42: nested counts (RoleBasedGroupSet), a free-form pod template (KAITO's Workspace), an
embedded, unstructured PyTorchJob or Job under a CRD with or without a schema (AppWrapper), and a
pod spec that only holds overrides (Seldon Core v2's Server)."""

from __future__ import annotations

import functools
import json
import pathlib
import re
import shutil

import pytest
import yaml
from conftest import ROOT, run_cli, unwrapped

from kartalint.cli import main
from kartalint.evaluation import Evaluator
from kartalint.evaluation.resources import pod_spec
from kartalint.load.observed import ObservedObject
from kartalint.scaffold.observed_selectors import TypeSelector, type_selectors

DATA = pathlib.Path(ROOT) / "tests" / "data" / "from-objects"


def items(path):
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle)["items"]


@functools.cache
def drafted(operator, crd="crd.yaml", sources=None):
    """(draft text, definition, review JSON, {fixture name: text}) of `new --crd --from`, made once."""
    import contextlib
    import io
    import tempfile

    folder = pathlib.Path(tempfile.mkdtemp(prefix=f"from-{operator}-"))
    out = folder / "draft.yaml"
    sources = sources or (str(DATA / operator),)
    argv = ["new", "--crd", str(DATA / operator / crd), *(a for s in sources for a in ("--from", s)), "-o", str(out)]
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        assert main(argv) == 0, stderr.getvalue()
    with contextlib.redirect_stdout(stdout := io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main([*argv, "-f", "json"]) == 0
    text = unwrapped(out.read_text())
    fixtures = {p.name: p.read_text() for p in sorted(folder.glob("*/*.yaml"))}
    return text, yaml.safe_load(text), json.loads(stdout.getvalue()), fixtures, str(folder)


def children(definition):
    return {c["name"]: c for c in definition["spec"]["structureDefinition"].get("childComponents", [])}


def views(definition, operator):
    objects = items(DATA / operator / "objects.yaml")
    with Evaluator() as evaluator:
        return objects, evaluator.evaluate_many(definition, objects)


def pods_by_owner(operator, key):
    """The pods of each object, as the test data's generator wrote them (a label or owner name)."""
    out = {}
    for pod in items(DATA / operator / "pods.yaml"):
        out.setdefault(key(pod), []).append(pod)
    return out


# -- RoleBasedGroupSet: roles in a template replicated spec.replicas times, each with replicas and a group size


def test_rolebasedgroupset_roles_counts_and_selectors_from_its_pods():
    text, definition, review, fixtures, _ = drafted("rbgs")
    roles = children(definition)
    assert list(roles) == ["leaderworker"]
    role = roles["leaderworker"]
    assert role["instanceIdPath"] == ".spec.groupTemplate.spec.roles[]? | .name"
    assert role["specDefinition"] == {
        "podTemplateSpecPath": ".spec.groupTemplate.spec.roles[]? | .leaderWorkerPattern.template"
    }
    # pods = replicas x role replicas x group size, the three counts multiplied (consumers do not)
    assert role["scaleDefinition"]["replicasPath"] == (
        ". as $o | .spec.groupTemplate.spec.roles[]? | ($o.spec.replicas // 1) * (.replicas // 1) * "
        "(.leaderWorkerPattern.size // 1)"
    )
    assert "# every count multiplies: Karta's consumers do not multiply a parent's scale" in text
    # the only role: no type selector; the instance is the role-name label the RBG controller sets
    assert role["podSelector"] == {
        "componentInstanceSelector": {"idPath": '.metadata.labels["rbg.workloads.x-k8s.io/role-name"]'}
    }
    objects, found = views(definition, "rbgs")
    pods = pods_by_owner("rbgs", lambda p: p["metadata"]["ownerReferences"][0]["name"].rsplit("-", 3)[0])
    for obj, view in zip(objects, found, strict=True):
        name = obj["metadata"]["name"]
        instances = {i.id: i for i in view.component("leaderworker").instances}
        for spec_role in obj["spec"]["groupTemplate"]["spec"]["roles"]:
            want = obj["spec"]["replicas"] * spec_role["replicas"] * spec_role["leaderWorkerPattern"]["size"]
            assert instances[spec_role["name"]].desired == want, (name, spec_role["name"])
            gpus = int(
                spec_role["leaderWorkerPattern"]["template"]["spec"]["containers"][0]["resources"]["requests"][
                    "nvidia.com/gpu"
                ]
            )
            assert instances[spec_role["name"]].per_replica.gpus == gpus
        if name in pods and all(p["status"]["phase"] == "Running" for p in pods[name]):
            assert {p["metadata"]["labels"]["rbg.workloads.x-k8s.io/role-name"] for p in pods[name]} <= set(instances)
            for p in pods[name]:  # the draft's per-pod resources are what the pods request
                assert (
                    pod_spec(p["spec"])
                    == instances[p["metadata"]["labels"]["rbg.workloads.x-k8s.io/role-name"]].per_replica
                )
    # statuses: Ready=True where every pod is ready; fewer ready groups than wanted (or none yet): initializing
    assert [view.statuses for view in found] == [["Running"], ["Running"], ["Initializing"], ["Initializing"]]
    assert "# condition Ready=True: seen on 2 objects whose pods were Running and ready" in text
    # serving: no gang; a fixture per state seen, and the header lists what it was drafted from
    assert definition["spec"]["optimizationInstructions"] == {}
    assert "# Gang: none" in text
    assert set(fixtures) == {"running.yaml", "initializing.yaml", "initializing-no-pods.yaml"}
    assert (
        "# Drafted from 4 object(s) and 39 of their pod(s)" in text
        and "llm/qwen-tp8 (12 pod(s), Running and ready)" in text
    )
    assert review["drafts"][0]["roles"][0]["evidence"] == "39 pods on 3 objects"


def test_rolebasedgroupset_from_the_crd_alone_multiplies_every_count(tmp_path, capsys):
    out = tmp_path / "draft.yaml"
    assert main(["new", "--crd", str(DATA / "rbgs" / "crd.yaml"), "-o", str(out)]) == 0
    capsys.readouterr()
    text = unwrapped(out.read_text())
    roles = children(yaml.safe_load(text))
    assert roles["role-leaderworker"]["scaleDefinition"]["replicasPath"] == (
        ". as $o | .spec.groupTemplate.spec.roles[]? | select(.leaderWorkerPattern != null) | "
        "($o.spec.replicas // 1) * (.replicas // 1) * (.leaderWorkerPattern.size // 1)"
    )
    assert text.count("Karta's consumers do not multiply a parent's scale (docs/parity.md)") == 2
    # the rollout's `paused` is not a suspend: no suspended placeholder, no TODO next to the replicas
    assert "suspends the workload" not in text and "suspended:" not in text
    assert "# Gang: none" in text  # a serving workload


# -- AppWrapper: an embedded, unstructured PyTorchJob or Job, with the full CRD and with none


@pytest.mark.parametrize("crd", ["crd.yaml", "crd-schemaless.yaml"])
def test_appwrapper_roles_inside_the_wrapped_resources(crd):
    sources = (str(DATA / "appwrapper" / "objects.yaml"), str(DATA / "appwrapper" / "pods.yaml"))
    text, definition, _, fixtures, folder = drafted("appwrapper", crd, sources)
    roles = children(definition)
    assert list(roles) == ["master", "worker", "job"]
    wrapped = ".template.spec.pytorchReplicaSpecs"
    assert roles["worker"]["instanceIdPath"] == (
        f".spec.components[]? | select({wrapped}.Worker.template != null) | .template.metadata.name"
    )
    assert roles["worker"]["specDefinition"]["podTemplateSpecPath"].endswith(f"| {wrapped}.Worker.template")
    assert roles["worker"]["scaleDefinition"]["replicasPath"].endswith(f"| ({wrapped}.Worker.replicas // 1)")
    assert roles["job"]["scaleDefinition"]["replicasPath"].endswith("| (.template.spec.parallelism // 1)")
    # selectors: PyTorchJob's replica type for its two roles, the Job's own label for its pods; the
    # instance is the wrapped object's name, which the pods' job-name labels hold
    assert roles["master"]["podSelector"] == {
        "componentTypeSelector": {
            "keyPath": '.metadata.labels["training.kubeflow.org/replica-type"]',
            "value": "master",
        },
        "componentInstanceSelector": {"idPath": '.metadata.labels["training.kubeflow.org/job-name"]'},
    }
    assert roles["job"]["podSelector"] == {
        "componentTypeSelector": {"keyPath": '.metadata.labels["batch.kubernetes.io/job-name"]'},
        "componentInstanceSelector": {"idPath": '.metadata.labels["batch.kubernetes.io/job-name"]'},
    }
    objects, found = views(definition, "appwrapper")
    for obj, view in zip(objects, found, strict=True):
        for component in obj["spec"]["components"]:
            wrapped_obj = component["template"]
            name = wrapped_obj["metadata"]["name"]
            if wrapped_obj["kind"] == "PyTorchJob":
                for key, spec in wrapped_obj["spec"]["pytorchReplicaSpecs"].items():
                    (instance,) = [i for i in view.component(key.lower()).instances if i.id == name]
                    assert instance.desired == spec["replicas"]
                    assert instance.per_replica.gpus == int(
                        spec["template"]["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/gpu"]
                    )
            else:
                (instance,) = [i for i in view.component("job").instances if i.id == name]
                assert instance.desired == wrapped_obj["spec"]["parallelism"]
    phases = [obj["status"]["phase"] for obj in objects]
    assert [view.statuses for view in found] == [[{"Succeeded": "Completed"}.get(p, p)] for p in phases], (
        "each object's phase maps to what its pods showed"
    )
    assert "# Failed: seen on 1 object with a Failed pod and none running (team-a/prep-failed)" in text
    assert "# Gang: a podGroup, because its pods ran to completion (team-a/prep-done)." in text
    assert set(fixtures) == {"running.yaml", "completed.yaml", "failed.yaml", "suspended.yaml"}
    assert main(["test", folder]) == 0


def test_a_schemaless_crd_says_so_and_how_to_draft_it(tmp_path, capsys):
    out = tmp_path / "draft.yaml"
    assert main(["new", "--crd", str(DATA / "ome" / "crd-minimal.yaml"), "-o", str(out)]) == 0
    capsys.readouterr()
    text = unwrapped(out.read_text())
    assert "# The CRD has no schema (x-kubernetes-preserve-unknown-fields)" in text
    assert "kartalint new --crd crd-minimal.yaml --from objects.yaml --from pods.yaml" in text
    status = yaml.safe_load(text)["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]
    # the printer column reads .status.conditions[?(@.type=='Ready')]: conditions without a status schema
    assert status["conditionsDefinition"]["typeFieldName"] == "type"
    assert status["statusMappings"]["running"] == [{"byConditions": [{"type": "Ready", "status": "True"}]}]


# -- Seldon Core v2 Server: a pod spec of overrides merged into its ServerConfig's


def test_seldon_server_overrides_and_the_resources_the_operator_adds():
    text, definition, review, fixtures, _ = drafted("seldon-server")
    roles = children(definition)
    assert list(roles) == ["pod"]
    assert roles["pod"]["specDefinition"] == {"podSpecPath": ".spec.podSpec"}
    assert roles["pod"]["scaleDefinition"] == {"replicasPath": "(.spec.replicas // 1)"}
    assert "podSelector" not in roles["pod"]  # the only role
    objects, found = views(definition, "seldon-server")
    for obj, view in zip(objects, found, strict=True):
        (instance,) = view.component("pod").instances
        assert instance.desired == obj["spec"]["replicas"]
        override = obj["spec"]["podSpec"]["containers"][0].get("resources", {}).get("requests", {})
        assert instance.per_replica.gpus == int(override.get("nvidia.com/gpu", 0))
    # the GPUs agree; the CPU and memory the rclone and agent containers add are reported with their values
    (note,) = [n for n in review["drafts"][0]["evidence"] if "request other resources" in n]
    assert (
        "GPUs agree" in note and "seldon-mesh/triton-gpu (2 pod(s)): 1 GPU, 4700m CPU, 17.78G memory requested" in note
    )
    assert [view.statuses for view in found] == [["Running"], ["Running"], ["Running"], ["Initializing"]]
    assert "# Gang: none" not in text  # one role, one instance: nothing to gang
    assert set(fixtures) == {"running.yaml", "initializing.yaml"}


def test_seldon_server_from_the_crd_alone(tmp_path, capsys):
    out = tmp_path / "draft.yaml"
    assert main(["new", "--crd", str(DATA / "seldon-server" / "crd.yaml"), "-o", str(out)]) == 0
    capsys.readouterr()
    text = unwrapped(out.read_text())
    (role,) = children(yaml.safe_load(text)).values()
    assert role["specDefinition"] == {"podSpecPath": ".spec.podSpec"}
    # "Number of replicas - default 1": the description's default, no TODO
    assert role["scaleDefinition"] == {
        "replicasPath": "(.spec.replicas // 1)",
        "minReplicasPath": ".spec.minReplicas",
        "maxReplicasPath": ".spec.maxReplicas",
    }
    assert "the CRD states no default for replicas" not in text
    status = yaml.safe_load(text)["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]
    assert status["statusMappings"]["running"] == [{"byConditions": [{"type": "Ready", "status": "True"}]}]


# -- KAITO Workspace: a free-form pod template outside spec, its count in the status only


def test_kaito_workspace_free_form_template_and_a_count_no_field_explains():
    text, definition, _, fixtures, _ = drafted("kaito-workspace")
    (role,) = children(definition).values()
    assert role["specDefinition"] == {"podTemplateSpecPath": ".inference.template"}
    # the StatefulSet's replicas are the status's targetNodeCount: nothing on the way explains 1 and 2 pods
    # a placeholder lint --strict names (draft-placeholder), 1 meanwhile
    assert role["scaleDefinition"] == {"replicasPath": '"TODO-replicas" | 1'}
    assert (
        "# TODO: no product of the counts on the way (none found) gives the pods seen "
        "(1 on kaito-demo/workspace-custom-llm, 2 on kaito-demo/workspace-falcon-2node)"
    ) in text
    status = definition["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]
    assert status["phaseDefinition"] == {"path": ".status.state"}
    assert status["statusMappings"]["running"] == [{"byPhase": "Ready"}]
    assert status["statusMappings"]["initializing"] == [{"byPhase": "Pending"}]
    # WorkspaceSucceeded=True on a serving workspace whose pods run: the CRD-only 'completed' is dropped
    assert "completed" not in status["statusMappings"]
    assert "dropped [{'byConditions': [{'type': 'WorkspaceSucceeded', 'status': 'True'}]}]" in text
    assert set(fixtures) == {"running.yaml", "initializing-no-pods.yaml"}


def test_kaito_workspace_from_the_crd_alone(tmp_path, capsys):
    out = tmp_path / "draft.yaml"
    assert main(["new", "--crd", str(DATA / "kaito-workspace" / "crd.yaml"), "-o", str(out)]) == 0
    capsys.readouterr()
    text = unwrapped(out.read_text())
    (role,) = children(yaml.safe_load(text)).values()
    assert role["specDefinition"] == {"podTemplateSpecPath": ".inference.template"}  # a free-form template, by name
    status = yaml.safe_load(text)["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]
    # the printer columns name the condition types (ResourceReady and InferenceReady: running by their word)
    assert {"byConditions": [{"type": "InferenceReady", "status": "True"}]} in status["statusMappings"]["running"]


def _docs_blocks(marker):
    docs = (pathlib.Path(ROOT) / "docs" / "crd.md").read_text()
    return re.findall(rf"<!-- {marker}: (\S+) -->\n```[a-z]+\n(.*?)```", docs, re.S)


def test_the_docs_example_is_what_the_command_writes(tmp_path, monkeypatch):
    ((folder, excerpt),) = _docs_blocks("from-objects-excerpt")
    ((review_folder, review),) = _docs_blocks("from-objects-review")
    assert folder == review_folder == "tests/data/from-objects/rbgs"
    docs = (pathlib.Path(ROOT) / "docs" / "crd.md").read_text()
    command = "kartalint new --crd rbgs/crd.yaml --from rbgs/objects.yaml --from rbgs/pods.yaml -o rbgs.yaml"
    assert f"```text\n{command}\n```" in docs
    shutil.copytree(pathlib.Path(ROOT) / folder, tmp_path / "rbgs")
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(command.split()[1:])
    assert code == 0, err
    written = (tmp_path / "rbgs.yaml").read_text().splitlines()
    missing = [line for line in excerpt.splitlines() if line not in written]
    assert not missing, missing
    said = err.splitlines()
    assert not [line for line in review.splitlines() if line not in said]


def test_lint_strict_names_the_todos_left_in_a_drafts_header(tmp_path, capsys):
    """A Seldon Server drafted from its objects and pods: its header's TODO says the pods request more
    CPU and memory than the draft reads. `lint --strict` said only that the file is still marked as
    a draft; its finding names each TODO left in the header, with its line. Once the TODO is dealt
    with (its note removed), the header alone is said, as before."""
    out = tmp_path / "server.yaml"
    data = DATA / "seldon-server"
    argv = [
        "new",
        "--crd",
        str(data / "crd.yaml"),
        "--from",
        str(data / "objects.yaml"),
        "--from",
        str(data / "pods.yaml"),
    ]
    assert main([*argv, "-o", str(out)]) == 0
    lines = out.read_text().splitlines()
    (todo,) = [n for n, line in enumerate(lines, 1) if line.startswith("# Evidence: TODO: pod: the pods request other")]
    capsys.readouterr()
    assert main(["lint", "--strict", "-f", "json", str(out)]) == 1
    (header,) = [f for f in json.loads(capsys.readouterr().out)["findings"] if f["line"] == 1]
    assert header["rule"] == "draft-placeholder"
    assert header["message"].startswith(
        "the file is still marked as a draft of `kartalint new --crd`, whose header still has 1 TODO(s): "
        f"line {todo}: 'Evidence: TODO: pod: the pods request other resources than the draft reads per pod from "
        ".spec.podSpec (GPUs agree;"
    ), header["message"]
    assert "confirm each TODO of the header" in header["hint"]
    end = next(n for n in range(todo, len(lines)) if not lines[n].startswith("#     "))
    out.write_text("\n".join(lines[: todo - 1] + lines[end:]) + "\n")  # the TODO dealt with, the header kept
    assert main(["lint", "--strict", "-f", "json", str(out)]) == 1
    (header,) = [f for f in json.loads(capsys.readouterr().out)["findings"] if f["line"] == 1]
    assert header["message"] == "the file is still marked as a draft of `kartalint new --crd`", header


def test_a_label_whose_value_names_the_workload_is_never_a_roles_selector():
    """An AppWrapper puts `workload.codeflare.dev/appwrapper: NAME` on every pod it wraps
    (project-codeflare/appwrapper, internal/controller/appwrapper/resource_management.go). A role
    seen on one AppWrapper's pods alone has that label with one value, no other role's pod has it
    with that value: it was drafted as the role's selector, which finds the pods of that one
    AppWrapper. The workload's name is no role: the role takes a label of its own."""

    def pod(name: str, labels: dict[str, str]) -> ObservedObject:
        return ObservedObject(f"pods.yaml#{name}", {"kind": "Pod", "metadata": {"name": name, "labels": labels}})

    wrapped = "workload.codeflare.dev/appwrapper"
    pods_by_role = {
        "job": [pod("bert-eval-x1", {wrapped: "bert-eval", "batch.kubernetes.io/job-name": "bert-eval"})],
        "headgroupspec": [pod("ray-tune-head", {wrapped: "ray-tune", "ray.io/group": "headgroup"})],
    }
    chosen = type_selectors(pods_by_role, frozenset(["bert-eval", "ray-tune"]))
    assert chosen == {
        "job": TypeSelector("batch.kubernetes.io/job-name", None),
        "headgroupspec": TypeSelector("ray.io/group", "headgroup"),
    }
    # (without the workloads' names, the wrapper's label was taken)
    assert type_selectors(pods_by_role)["job"] == TypeSelector(wrapped, "bert-eval")
