"""The evaluation engine (spec §3) on hand-computed cases: zip rule, conversion, status order,
scale, resources, pods, gang scheduling, robustness."""

from __future__ import annotations

import time

import pytest
import yaml
from conftest import base

import kartalint
from kartalint.evaluation import Evaluator
from kartalint.evaluation.values import tostring


@pytest.fixture(scope="module")
def ev():
    with Evaluator(timeout=5) as evaluator:
        yield evaluator


def pod_template(
    gpus=None, cpu=None, memory=None, limits_only=False, init=(), sidecars=(), overhead=None, pod_resources=None
):
    resources = {}
    amounts = {k: v for k, v in (("nvidia.com/gpu", gpus), ("cpu", cpu), ("memory", memory)) if v is not None}
    if amounts:
        resources = {"limits": amounts} if limits_only else {"requests": amounts}
    spec = {"containers": [{"name": "main", "image": "x", "resources": resources}]}
    inits = [{"name": f"init{i}", "resources": r} for i, r in enumerate(init)]
    inits += [{"name": f"side{i}", "restartPolicy": "Always", "resources": r} for i, r in enumerate(sidecars)]
    if inits:
        spec["initContainers"] = inits
    if overhead:
        spec["overhead"] = overhead
    if pod_resources:
        spec["resources"] = pod_resources
    return {"metadata": {"labels": {}}, "spec": spec}


def trainer(roles, phase="Running", conditions=(), uid="u-1"):
    return {
        "apiVersion": "example.com/v1",
        "kind": "Trainer",
        "metadata": {"name": "t", "namespace": "ns", "uid": uid},
        "spec": {"roles": roles},
        "status": {"phase": phase, "conditions": list(conditions)},
    }


def role(name, replicas=None, **template):
    out = {"name": name, "template": pod_template(**template)}
    if replicas is not None:
        out["replicas"] = replicas
    return out


# -- instances and the zip rule ----------------------------------------------------------------


def test_array_based_instances_sorted_with_replicas_and_gpus(ev):
    view = ev.evaluate(base(), trainer([role("worker", 4, gpus=8), role("leader", None, gpus=1)]))
    worker = view.component("worker")
    assert [i.id for i in worker.instances] == ["leader", "worker"]  # sorted lexicographically
    assert [i.desired for i in worker.instances] == [1, 4]  # `.replicas // 1`
    assert [i.resources.gpus for i in worker.instances] == [1, 32]
    assert view.resources.gpus == 33
    assert worker.errors == [] and view.statuses == ["Running"]


def test_map_based_instances(ev):
    definition = base()
    child = definition["spec"]["structureDefinition"]["childComponents"][0]
    child["instanceIdPath"] = ".spec.services | keys_unsorted[]"
    child["specDefinition"]["podTemplateSpecPath"] = ".spec.services[].template"
    child["scaleDefinition"]["replicasPath"] = ".spec.services[] | .replicas"
    obj = trainer([])
    obj["spec"]["services"] = {
        "prefill": {"replicas": 2, "template": pod_template(gpus=2)},
        "decode": {"replicas": 3, "template": pod_template(gpus=1)},
    }
    view = ev.evaluate(definition, obj)
    comp = view.component("worker")
    assert [(i.id, i.desired, i.resources.gpus) for i in comp.instances] == [("decode", 3, 3), ("prefill", 2, 4)]


def test_instance_count_mismatch_is_an_error_on_the_field(ev):
    definition = base()
    child = definition["spec"]["structureDefinition"]["childComponents"][0]
    child["specDefinition"]["podTemplateSpecPath"] = ".spec.roles[0].template"  # one result for two ids
    view = ev.evaluate(definition, trainer([role("a", 1), role("b", 2)]))
    comp = view.component("worker")
    assert [e.to_dict() for e in comp.errors] == [
        {
            "field": "specDefinition.podTemplateSpecPath",
            "message": "instance ids count (2) does not match results count (1)",
        }
    ]
    assert [i.desired for i in comp.instances] == [1, 2]  # the rest is still computed
    assert view.statuses == ["Running"]
    assert [e.code for e in comp.errors] == ["count-mismatch"]  # what test-time rules act on, not the words


def test_field_errors_other_than_a_count_mismatch_have_the_general_code(ev):
    definition = base()
    definition["spec"]["structureDefinition"]["childComponents"][0]["instanceIdPath"] = ".spec.roles | keys[]"
    view = ev.evaluate(definition, trainer([role("a", 1)]))
    assert [e.code for e in view.component("worker").errors] == ["error"]


def test_numeric_instance_ids_fail_conversion(ev):
    definition = base()
    definition["spec"]["structureDefinition"]["childComponents"][0]["instanceIdPath"] = ".spec.roles | keys[]"
    view = ev.evaluate(definition, trainer([role("a", 1)]))
    comp = view.component("worker")
    assert comp.instances == []
    assert comp.errors[0].field == "instanceIdPath"
    assert comp.errors[0].message == "failed to convert object at index 0 to type string"


def test_empty_instance_id_is_an_error(ev):
    view = ev.evaluate(base(), trainer([{"name": "", "template": pod_template()}]))
    assert view.component("worker").errors[0].message.startswith("instance id path contained empty string values")


def test_zero_ids_means_zero_instances(ev):
    view = ev.evaluate(base(), trainer([]))
    comp = view.component("worker")
    assert comp.instances == [] and comp.errors == []


def test_duplicate_ids_collapse_last_wins(ev):
    view = ev.evaluate(base(), trainer([role("w", 1, gpus=1), role("w", 5, gpus=2)]))
    comp = view.component("worker")
    assert [(i.id, i.desired, i.per_replica.gpus) for i in comp.instances] == [("w", 5, 2)]


def test_single_instance_paths_must_emit_one_value(ev):
    definition = base()
    child = definition["spec"]["structureDefinition"]["childComponents"][0]
    del child["instanceIdPath"]
    del child["podSelector"]["componentInstanceSelector"]
    child["specDefinition"]["podTemplateSpecPath"] = ".spec.roles[0].template"
    child["scaleDefinition"] = {}
    view = ev.evaluate(definition, trainer([role("a", 3)]))
    comp = view.component("worker")
    assert comp.instances[0].id is None
    # `scaleDefinition: {}` gives zero scale records: an error for a single-instance component
    assert [e.to_dict() for e in comp.errors] == [
        {"field": "scaleDefinition", "message": "instance ids count (1) does not match results count (0)"}
    ]
    assert comp.instances[0].desired is None


def test_jobset_without_parallelism(ev):
    definition = base()
    child = definition["spec"]["structureDefinition"]["childComponents"][0]
    child["scaleDefinition"]["replicasPath"] = ".spec.roles[] | .replicas * .template.spec.parallelism"
    view = ev.evaluate(definition, trainer([role("worker", 4)]))
    error = view.component("worker").errors[0]
    assert error.field == "scaleDefinition.replicasPath"
    assert error.message == "number (4) and null (null) cannot be multiplied"
    assert view.component("worker").instances[0].to_dict()["replicas"]["desired"] is None
    assert view.statuses == ["Running"]  # statuses are still computed


# -- value conversion ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, desired, error",
    [
        (3, 3, None),
        ("3", 3, None),
        (0, 0, None),
        (2.0, 2, None),
        (None, 1, None),
        ("three", None, 'replicas value "three" at index 0 is not a number'),
        (1.5, None, "failed to convert object at index 0 to type int32"),
        (True, None, "failed to convert object at index 0 to type int32"),
        (2**31, None, "failed to convert object at index 0 to type int32"),
    ],
)
def test_replica_conversion(ev, value, desired, error):
    definition = base()
    definition["spec"]["structureDefinition"]["childComponents"][0]["scaleDefinition"]["replicasPath"] = (
        ".spec.roles[] | .replicas"
    )
    view = ev.evaluate(definition, trainer([role("w", value)]))
    comp = view.component("worker")
    assert comp.instances[0].desired == desired
    assert [e.message for e in comp.errors] == ([error] if error else [])


def test_desired_replicas_cli_rule_and_gang_minimum(ev):
    definition = base()
    scale = definition["spec"]["structureDefinition"]["childComponents"][0]["scaleDefinition"]
    scale.clear()
    scale.update(
        minReplicasPath=".spec.roles[] | .min",
        maxReplicasPath=".spec.roles[] | .max",
        replicasPath=".spec.roles[] | .replicas",
    )
    roles = [
        dict(role("a"), min=2, max=9),
        dict(role("b", 0), min=None),
        dict(role("c"), min=None),
        dict(role("d", 4), min=1),
    ]
    view = ev.evaluate(definition, trainer(roles))
    got = {i.id: (i.desired, i.scale.gang_minimum, i.to_dict()["replicas"]) for i in view.component("worker").instances}
    assert got["a"] == (2, 2, {"desired": 2, "replicas": None, "min": 2, "max": 9})  # min when replicas unset
    assert got["b"][:2] == (0, 0)  # replicas 0 is allowed
    assert got["c"][:2] == (1, 0)  # nothing set: 1 desired, gang minimum 0
    assert got["d"][:2] == (4, 1)  # gang prefers minReplicas


def test_tostring_follows_gojq():
    assert tostring("Running") == "Running"
    assert tostring(True) == "true"
    assert tostring(3.0) == "3"
    assert tostring(0.5) == "0.5"
    assert tostring(None) == "null"
    assert tostring({"b": 1, "a": [1, "x"]}) == '{"a":[1,"x"],"b":1}'
    assert tostring(1e21) == "1e+21"


# -- status -------------------------------------------------------------------------------------


def status_def(mappings, **extra):
    definition = base()
    status = definition["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]
    status["statusMappings"] = mappings
    status.update(extra)
    return definition


def test_all_matched_statuses_in_fixed_order(ev):
    definition = status_def(
        {
            "degraded": [{"byConditions": [{"type": "Degraded", "status": "True"}]}],
            "running": [{"byPhase": "Running"}],
            "initializing": [{"byPhase": "Pending"}, {"byConditions": [{"type": "Ready", "reason": "Starting"}]}],
        }
    )
    obj = trainer(
        [],
        conditions=[{"type": "Degraded", "status": "True"}, {"type": "Ready", "status": "False", "reason": "Starting"}],
    )
    view = ev.evaluate(definition, obj)
    assert view.statuses == ["Running", "Initializing", "Degraded"]
    assert view.phase == "Running"


def test_undefined_when_nothing_matches_and_empty_matcher_always_matches(ev):
    assert ev.evaluate(status_def({"failed": [{"byPhase": "Failed"}]}), trainer([])).statuses == ["Undefined"]
    assert ev.evaluate(status_def({"failed": [{}], "running": [{"byPhase": "Nope"}]}), trainer([])).statuses == [
        "Failed"
    ]


def test_by_conditions_needs_every_entry_and_exact_values(ev):
    definition = status_def(
        {
            "running": [{"byConditions": [{"type": "A", "status": "True"}, {"type": "B"}]}],
            "failed": [{"byConditions": [{"type": "A", "status": "true"}]}],
        }
    )
    assert ev.evaluate(definition, trainer([], conditions=[{"type": "A", "status": "True"}])).statuses == ["Undefined"]
    both = [{"type": "A", "status": "True"}, {"type": "B", "status": "False"}]
    assert ev.evaluate(definition, trainer([], conditions=both)).statuses == ["Running"]
    # duplicate condition types: the last one wins
    dup = [*both, {"type": "A", "status": "False"}]
    assert ev.evaluate(definition, trainer([], conditions=dup)).statuses == ["Undefined"]


def test_by_expression_first_output_tostring(ev):
    definition = status_def(
        {
            "running": [{"byExpression": {"expression": ".status.phase", "expectedResult": "Running"}}],
            "completed": [{"byExpression": {"expression": ".spec.n, 7", "expectedResult": "3"}}],
            "failed": [{"byExpression": {"expression": ".status.missing", "expectedResult": "null"}}],
            "degraded": [{"byExpression": {"expression": "empty", "expectedResult": ""}}],
            "suspended": [{"byExpression": {"expression": "{b: 1, a: true}", "expectedResult": '{"a":true,"b":1}'}}],
        }
    )
    obj = trainer([])
    obj["spec"]["n"] = 3.0
    assert ev.evaluate(definition, obj).statuses == ["Suspended", "Running", "Failed", "Completed"]


def test_condition_field_names_default_as_in_the_cluster(ev):
    definition = status_def({"failed": [{"byConditions": [{"type": "Failed", "reason": "Boom"}]}]})
    conditions = definition["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]["conditionsDefinition"]
    for key in ("typeFieldName", "statusFieldName", "reasonFieldName", "messageFieldName"):
        conditions.pop(key)
    view = ev.evaluate(definition, trainer([], conditions=[{"type": "Failed", "status": "True", "reason": "Boom"}]))
    assert view.statuses == ["Failed"]


def test_custom_condition_field_names(ev):
    definition = status_def({"running": [{"byConditions": [{"type": "Up", "status": "yes"}]}]})
    conditions = definition["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]["conditionsDefinition"]
    conditions.update(typeFieldName="kind", statusFieldName="state")
    view = ev.evaluate(definition, trainer([], conditions=[{"kind": "Up", "state": "yes"}]))
    assert view.statuses == ["Running"]


def test_status_errors_are_reported_and_other_matchers_still_run(ev):
    definition = status_def(
        {
            "running": [
                {"byExpression": {"expression": ".status.phase | error", "expectedResult": "x"}},
                {"byPhase": "Running"},
            ]
        }
    )
    view = ev.evaluate(definition, trainer([]))
    assert view.statuses == ["Running"]
    assert view.root.errors[0].field == "statusDefinition.statusMappings.running[0]"
    assert view.root.errors[0].message == "failed to match status: failed to evaluate matcher: Running"


def test_conditions_path_must_yield_arrays(ev):
    definition = status_def({"running": [{"byPhase": "Running"}]})
    definition["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]["conditionsDefinition"]["path"] = (
        ".status"
    )
    view = ev.evaluate(definition, trainer([]))
    assert view.root.errors[0].message == "failed to convert object at index 0 to type []map[string]interface {}"
    assert view.statuses == ["Running"]


def test_phase_null_is_empty_and_non_string_phase_is_an_error(ev):
    definition = status_def({"running": [{"byPhase": "Running"}]})
    obj = trainer([])
    obj["status"]["phase"] = None
    assert ev.evaluate(definition, obj).phase == ""
    obj["status"]["phase"] = 3
    view = ev.evaluate(definition, obj)
    assert view.phase is None and view.root.errors[0].field == "statusDefinition.phaseDefinition.path"


# -- components, subtree scale, gang ----------------------------------------------------------

LWS_LIKE = """
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: lws-like}
spec:
  structureDefinition:
    rootComponent:
      name: root
      kind: {group: example.com, version: v1, kind: Set}
      statusDefinition:
        phaseDefinition: {path: .status.phase}
        statusMappings:
          running: [{byPhase: Running}]
    childComponents:
    - name: group
      ownerRef: root
      scaleDefinition: {replicasPath: .spec.replicas}
    - name: leader
      ownerRef: group
      kind: {group: "", version: v1, kind: Pod}
      specDefinition: {podTemplateSpecPath: .spec.leader}
      scaleDefinition: {replicasPath: "1"}
      podSelector:
        componentTypeSelector: {keyPath: '.metadata.labels.role', value: leader}
    - name: worker
      ownerRef: group
      kind: {group: "", version: v1, kind: Pod}
      specDefinition: {podTemplateSpecPath: .spec.worker}
      scaleDefinition: {replicasPath: .spec.size - 1}
      podSelector:
        componentTypeSelector: {keyPath: '.metadata.labels.role', value: worker}
  optimizationInstructions:
    gangScheduling:
      podGroup:
        name: group
        subGroups:
        - componentName: leader
        - componentName: worker
"""


def lws_object(replicas=2, size=4):
    return {
        "apiVersion": "example.com/v1",
        "kind": "Set",
        "metadata": {"name": "s", "uid": "abc"},
        "spec": {"replicas": replicas, "size": size, "leader": pod_template(gpus=1), "worker": pod_template(gpus=8)},
        "status": {"phase": "Running"},
    }


def test_logical_component_and_subtree_scale(ev):
    definition = yaml.safe_load(LWS_LIKE)
    view = ev.evaluate(definition, lws_object())
    group = view.component("group")
    assert group.kind is None and group.to_dict()["kind"] is None
    assert [c.name for c in group.children] == ["leader", "worker"]
    # resources: per replica x desired plus children's totals (the group's scale is not applied)
    assert group.resources.gpus == 1 * 1 + 8 * 3
    gang = view.gang
    assert gang.name == "pg-abc-group"
    assert (gang.min_available, gang.min_sub_group) == (0, 2)
    assert [(s.name, s.min_available) for s in gang.sub_groups] == [("leader", 1), ("worker", 3)]
    assert gang.to_dict()["subGroups"][0] == {"name": "leader", "minAvailable": 1, "topology": None}
    # without subGroups the group minimum is the root subtree: group 2 x (1 + 3) = 8
    del definition["spec"]["optimizationInstructions"]["gangScheduling"]["podGroup"]["subGroups"]
    gang = ev.evaluate(definition, lws_object()).gang
    assert (gang.min_available, gang.min_sub_group, gang.sub_groups) == (8, None, [])


def test_replicas_vocabulary_of_a_logical_group(ev):
    view = ev.evaluate(yaml.safe_load(LWS_LIKE), lws_object(replicas=2, size=4))
    replicas = {
        c.name: (c.desired, c.desired_if_known, c.has_replicas, c.scaled_desired, c.row_replicas)
        for c in view.components
    }
    assert replicas == {
        "root": (1, 1, False, 0, 1),  # no scaleDefinition: one replica, but nothing the gang counts
        "group": (2, 2, True, 2, 1 + 3),  # a logical row shows its children's sum, not its own 2
        "leader": (1, 1, True, 1, 1),
        "worker": (3, 3, True, 3, 3),
    }
    assert [c.name for c in view.table_components] == ["leader", "worker"]
    assert view.replicas == 4
    assert view.component("group").to_dict()["replicas"] == {"own": 2, "row": 4}


def test_replicas_vocabulary_sums_instances_and_marks_a_failed_count(ev):
    definition = base()
    view = ev.evaluate(definition, trainer([role("a", 3), role("b", None), role("c", 0)]))
    worker = view.component("worker")
    assert (worker.desired, worker.desired_if_known, worker.has_replicas, worker.scaled_desired) == (4, 4, True, 4)
    scale = definition["spec"]["structureDefinition"]["childComponents"][0]["scaleDefinition"]
    scale["replicasPath"] = ".spec.roles[] | .replicas"
    worker = ev.evaluate(definition, trainer([role("a", 3), role("b", "three")])).component("worker")
    assert [e.field for e in worker.errors] == ["scaleDefinition.replicasPath"]
    # a failed count: 0 in sums (describe's table, TOTAL), unknown where it is shown on its own
    assert (worker.desired, worker.desired_if_known, worker.has_replicas, worker.scaled_desired) == (0, None, False, 0)
    del definition["spec"]["structureDefinition"]["childComponents"][0]["scaleDefinition"]
    worker = ev.evaluate(definition, trainer([role("a", 3), role("b")])).component("worker")
    assert (worker.desired, worker.desired_if_known, worker.has_replicas, worker.scaled_desired) == (2, 2, False, 0)


def test_subtree_scale_multiplies_parent_by_children_sum(ev):
    from kartalint.evaluation.gang import subtree_scale

    definition = yaml.safe_load(LWS_LIKE)
    definition["spec"]["structureDefinition"]["rootComponent"]["scaleDefinition"] = {"replicasPath": "2"}
    definition["spec"]["structureDefinition"]["childComponents"][0]["scaleDefinition"] = {"replicasPath": "0"}
    view = ev.evaluate(definition, lws_object(size=5))  # leader 1 + worker 4 under a group of 0
    prepared = ev.prepare(definition)
    assert subtree_scale(view, prepared.any_scale, view.root) == 2 * (1 + 4)


def test_subtree_scale_counts_leaves_without_any_scale(ev):
    from kartalint.evaluation.gang import subtree_scale

    definition = yaml.safe_load(LWS_LIKE)
    for comp in definition["spec"]["structureDefinition"]["childComponents"]:
        comp.pop("scaleDefinition", None)
    view = ev.evaluate(definition, lws_object())
    assert subtree_scale(view, False, view.root) == 2
    assert subtree_scale(view, False, view.component("worker")) == 1


def test_subgroup_without_scale_is_reported(ev):
    definition = yaml.safe_load(LWS_LIKE)
    gang = ev.evaluate(definition, lws_object(size=1)).gang
    assert "component worker must expose a replica scale definition" in gang.errors


def test_alpha_pod_groups_with_pods(ev):
    definition = yaml.safe_load(LWS_LIKE)
    definition["spec"]["optimizationInstructions"]["gangScheduling"] = {
        "podGroups": [
            {
                "name": "per-group",
                "members": [{"componentName": "group", "groupByKeyPaths": ['.metadata.labels["group-index"]']}],
            },
        ]
    }
    pods = [
        {"metadata": {"name": "s-0", "labels": {"role": "leader", "group-index": "0"}}, "spec": {"containers": []}},
        {"metadata": {"name": "s-0-1", "labels": {"role": "worker", "group-index": "0"}}, "spec": {"containers": []}},
        {"metadata": {"name": "stray", "labels": {}}, "spec": {"containers": []}},
    ]
    gang = ev.evaluate(definition, lws_object(), pods).gang
    assert gang.groups[0].members[0].min_available == 8
    by_pod = {p["pod"]: p for p in gang.to_dict()["pods"]}
    assert by_pod["s-0"]["podGroup"] == "pg-abc-0" and by_pod["s-0"]["member"] == "group"
    assert by_pod["s-0"]["minAvailable"] == 8
    assert by_pod["stray"]["error"] == "no component found for pod `stray`"


# -- resources ------------------------------------------------------------------------------------


def resources_of(ev, template):
    view = ev.evaluate(base(), trainer([{"name": "w", "replicas": 2, "template": template}]))
    assert view.component("worker").errors == []
    return view.component("worker").instances[0].per_replica


def test_requests_then_limits_and_limits_only(ev):
    assert resources_of(ev, pod_template(gpus=2, cpu="500m", memory="1Gi")).to_dict() == {
        "gpus": 2,
        "cpuMillis": 500,
        "memoryBytes": 2**30,
    }
    assert resources_of(ev, pod_template(gpus=4, cpu=2, memory="70M", limits_only=True)).to_dict() == {
        "gpus": 4,
        "cpuMillis": 2000,
        "memoryBytes": 70_000_000,
    }
    template = pod_template()
    template["spec"]["containers"][0]["resources"] = {
        "requests": {"nvidia.com/gpu": 0},
        "limits": {"nvidia.com/gpu": 8, "cpu": "1"},
    }
    assert resources_of(ev, template).to_dict() == {"gpus": 0, "cpuMillis": 1000, "memoryBytes": 0}  # explicit 0 counts


def test_init_containers_sidecars_overhead_and_pod_level(ev):
    big_init = {"requests": {"cpu": "4", "nvidia.com/gpu": 1}}
    sidecar = {"requests": {"cpu": "250m", "memory": "100Mi"}}
    template = pod_template(
        gpus=2, cpu="1", memory="1Gi", init=[big_init], sidecars=[sidecar], overhead={"cpu": "100m"}
    )
    # running = main + sidecar = (2 gpu, 1250m, 1Gi+100Mi); init max = (1 gpu, 4000m, 0) -> element-wise max
    got = resources_of(ev, template).to_dict()
    assert got == {"gpus": 2, "cpuMillis": 4000 + 100, "memoryBytes": 2**30 + 100 * 2**20}
    template = pod_template(gpus=1, cpu="1", memory="1Gi", pod_resources={"limits": {"cpu": "3", "memory": "2Gi"}})
    assert resources_of(ev, template).to_dict() == {"gpus": 1, "cpuMillis": 3000, "memoryBytes": 2 * 2**30}


def test_fragmented_spec_resources(ev):
    definition = base()
    child = definition["spec"]["structureDefinition"]["childComponents"][0]
    child["specDefinition"] = {
        "fragmentedPodSpecDefinition": {"resourcesPath": ".spec.roles[].resources", "imagePath": ".spec.roles[].image"}
    }
    obj = trainer([{"name": "w", "replicas": 3, "image": "img", "resources": {"limits": {"nvidia.com/gpu": 2}}}])
    view = ev.evaluate(definition, obj)
    instance = view.component("worker").instances[0]
    assert instance.fragments == {"resources": {"limits": {"nvidia.com/gpu": 2}}, "image": "img"}
    assert instance.resources.gpus == 6


def test_bad_quantity_is_an_error_not_a_crash(ev):
    view = ev.evaluate(base(), trainer([role("w", 1, cpu="lots")]))
    assert "cpu: quantities must match" in view.component("worker").errors[0].message


# -- pods -------------------------------------------------------------------------------------------


def pod(name, role_name, ready=True, node="n1", gpus=0):
    return {
        "metadata": {"name": name, "labels": {"example.com/role": role_name}},
        "spec": {"nodeName": node, "containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": gpus}}}]},
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]},
    }


def test_pods_are_mapped_to_components_and_instances(ev):
    pods = [
        pod("w-0", "worker", gpus=8),
        pod("w-1", "worker", ready=False, node="n2"),
        pod("l-0", "leader"),
        {"metadata": {"name": "other", "labels": {}}, "spec": {}},
    ]
    view = ev.evaluate(base(), trainer([role("worker", 2), role("leader", 1)]), pods)
    comp = view.component("worker")
    got = {i.id: [(p.name, p.ready, p.node) for p in i.pods] for i in comp.instances}
    assert got == {"leader": [("l-0", True, "n1")], "worker": [("w-0", True, "n1"), ("w-1", False, "n2")]}
    assert view.unmatched_pods == ["other"]
    data = comp.to_dict()["pods"]
    assert (data["current"], data["ready"], data["nodes"]) == (3, 2, ["n1", "n2"])
    assert data["items"][0]["resources"]["gpus"] == 8 or data["items"][1]["resources"]["gpus"] == 8
    # the subgroup lists the pods matched by its component's selector
    assert view.gang.sub_groups[0].pods == ["w-0", "w-1", "l-0"]


def test_sole_pod_component_without_selector_takes_all_pods(ev):
    definition = base()
    child = definition["spec"]["structureDefinition"]["childComponents"][0]
    del child["podSelector"]
    del child["instanceIdPath"]
    child["specDefinition"]["podTemplateSpecPath"] = ".spec.roles[0].template"
    child["scaleDefinition"]["replicasPath"] = ".spec.roles[0].replicas"
    view = ev.evaluate(definition, trainer([role("w", 2)]), [pod("a", "x"), pod("b", "y")])
    assert [p.name for p in view.component("worker").pods] == ["a", "b"]
    assert view.unmatched_pods == []


# -- robustness -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "obj",
    [
        {},
        {"spec": None},
        {"spec": {"roles": "nope"}},
        {"spec": {"roles": [None, 3, "x"]}},
        [],
        "text",
        None,
        {"status": {"conditions": {"type": "x"}}},
    ],
)
def test_malformed_objects_give_errors_not_tracebacks(ev, obj):
    view = ev.evaluate(base(), obj)
    assert isinstance(view.to_dict(), dict)
    assert view.statuses  # a status list is always computed


def test_huge_lists_hit_the_result_cap(ev):
    obj = trainer([role(f"r{i}", 1) for i in range(10_000)])
    started = time.monotonic()
    view = ev.evaluate(base(), obj)
    assert time.monotonic() - started < 30
    assert view.component("worker").errors[0].message == "query results exceed the allowed number 1000"


@pytest.mark.parametrize("count, fails", [(999, False), (1000, True)])
def test_result_cap_boundary_in_the_batched_engine(ev, count, fails):
    """Exactly 1000 results already fail (spec: the error comes once 1000 are collected)."""
    view = ev.evaluate(base(), trainer([role(f"r{i}", 1) for i in range(count)]))
    errors = [e.message for e in view.component("worker").errors]
    if fails:
        assert errors and errors[0] == "query results exceed the allowed number 1000"
    else:
        assert errors == [] and len(view.component("worker").instances) == 999


def test_deeply_nested_object(ev):
    deep: dict = {}
    node = deep
    for _ in range(5000):
        node["a"] = {}
        node = node["a"]
    obj = trainer([role("w", 1)])
    obj["spec"]["deep"] = deep
    view = ev.evaluate(base(), obj)
    assert [e.to_dict() for e in view.errors] == [
        {"field": "object", "message": "the object cannot be handed to jq (nested deeper than 256 levels)"}
    ]
    assert view.statuses == ["Undefined"]
    # 200 levels are fine (YAML files are limited earlier by the loader)
    obj["spec"]["deep"] = {"a": {"a": {"a": {}}}}
    for _ in range(200):
        obj["spec"]["deep"] = {"a": obj["spec"]["deep"]}
    assert ev.evaluate(base(), obj).statuses == ["Running"]


def test_runaway_expression_is_stopped_and_attributed():
    definition = status_def(
        {"running": [{"byExpression": {"expression": "def f: f; f", "expectedResult": "x"}}, {"byPhase": "Running"}]}
    )
    with Evaluator(timeout=1) as evaluator:
        view = evaluator.evaluate(definition, trainer([role("w", 2)]))
    assert view.statuses == ["Running"]
    assert "did not finish within 1 s" in view.root.errors[0].message
    assert view.component("worker").instances[0].desired == 2


def test_invalid_definition_is_reported_not_evaluated(ev):
    """As upstream's tree builder: an invalid definition gives "invalid karta: ..." and nothing else."""
    definition = base()
    definition["spec"]["structureDefinition"]["childComponents"][0]["ownerRef"] = "nobody"
    view = ev.evaluate(definition, trainer([role("w", 2)]))
    assert view.errors and view.errors[0].message.startswith("invalid karta: ")
    assert view.components == [] and view.component("worker") is None


def test_public_api_and_json_document():
    view = kartalint.evaluate(base(), trainer([role("w", 2, gpus=1)]))
    doc = view.to_dict()
    assert doc["schemaVersion"] == 1
    assert doc["workload"] == {"apiVersion": "example.com/v1", "kind": "Trainer", "name": "t", "namespace": "ns"}
    assert doc["definition"] == "example-com-trainer-v1" and doc["statuses"] == ["Running"]
    worker = doc["components"][1]
    assert set(worker) >= {"name", "kind", "owner", "instances", "resources", "pods", "errors"}
    assert worker["instances"][0]["replicas"] == {"desired": 2, "replicas": 2, "min": None, "max": None}
    assert worker["instances"][0]["resources"] == {"gpus": 2, "cpuMillis": 0, "memoryBytes": 0}
    assert doc["components"][0]["instances"][0]["id"] is None
    assert doc["resources"]["gpus"] == 2


def test_an_empty_status_definition_gives_undefined(ev):
    """Found by the fuzz suite: a present but empty statusDefinition matched nothing and said
    nothing; upstream computes [Undefined] (spec §3.5: no match)."""
    definition = base()
    definition["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"] = {}
    assert ev.evaluate(definition, trainer([role("w", 1)])).statuses == ["Undefined"]


def test_a_pod_with_a_quantity_that_does_not_parse_is_an_error_not_zero_gpus(ev):
    pods = [
        {
            "metadata": {"name": "w-0", "labels": {"example.com/role": "worker"}},
            "spec": {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": "two"}}}]},
        }
    ]
    view = ev.evaluate(base(), trainer([role("a", 1)]), pods)
    assert [(e.field, e.message.split(":")[0]) for e in view.errors] == [("pods", "pod w-0")]
    assert "(its resources are not counted)" in view.errors[0].message


# -- evaluate_many: objects streamed through the worker give what one-by-one evaluation gives ------


def _all_cases():
    import os

    from conftest import REFERENCE, ROOT

    from kartalint.load.definitions import DefinitionIndex
    from kartalint.testing.cases import discover

    index = DefinitionIndex.from_paths([os.path.join(ROOT, "catalog")])
    paths = [
        os.path.join(ROOT, "fixtures"),
        os.path.join(REFERENCE, "real-data"),
        os.path.join(REFERENCE, "recorded_data"),
    ]
    found = discover([p for p in paths if os.path.isdir(p)], index)
    return [c for c in found.cases if c.definition is not None and c.object is not None]


@pytest.mark.slow  # every fixture and recording twice: ~16 s on two cores
def test_batched_evaluation_equals_one_by_one_on_every_fixture_and_recording():
    cases = _all_cases()
    assert len(cases) > 250
    items = [(c.definition.data, c.object, c.pods) for c in cases]
    with Evaluator(timeout=5) as batched, Evaluator(timeout=5) as single:
        many = batched.evaluate_all(items)
        one = [single.evaluate(*item) for item in items]
    assert [v.to_dict() for v in many] == [v.to_dict() for v in one]
    assert sum(1 for c in cases if c.pods is None) > 200  # most went through the stream


def test_evaluate_many_keeps_a_runaway_object_to_itself():
    hang = 'if .spec.hang then last(repeat(1)) else "x" end'
    definition = status_def(
        {"running": [{"byExpression": {"expression": hang, "expectedResult": "y"}}, {"byPhase": "Running"}]}
    )
    objects = [trainer([role("w", i + 1)]) for i in range(6)]
    objects[2]["spec"]["hang"] = True
    with Evaluator(timeout=1) as evaluator:
        start = time.perf_counter()
        views = evaluator.evaluate_many(definition, objects)
        assert time.perf_counter() - start < 8
    assert [v.statuses for v in views] == [["Running"]] * 6
    assert "did not finish within 1 s" in views[2].root.errors[0].message
    assert [v.root.errors for i, v in enumerate(views) if i != 2] == [[]] * 5
    assert [v.component("worker").instances[0].desired for v in views] == [1, 2, 3, 4, 5, 6]


def test_evaluate_many_with_bad_objects_pods_and_expressions_equals_evaluate(ev):
    definition = status_def({"running": [{"byExpression": {"expression": ".status | nosuch", "expectedResult": "y"}}]})
    objects = [trainer([role("w", 2)]), {"kind": float("nan")}, trainer([role("w", 1)]), "not an object"]
    pods = [None, None, [{"metadata": {"name": "p"}, "status": {"phase": "Running"}}], None]
    many = ev.evaluate_many(definition, objects, pods)
    assert [v.to_dict() for v in many] == [
        ev.evaluate(definition, o, p).to_dict() for o, p in zip(objects, pods, strict=True)
    ]
    assert many[2].pods_given and not many[0].pods_given
    with pytest.raises(kartalint.errors.ArgumentError):
        ev.evaluate_many(definition, objects, pods[:2])


def test_expressions_collected_whole_hit_the_cap_as_upstream(ev):
    """Finite expressions run without jq's `limit` in the combined program; the cap, and the cap
    reached before a later error, come out as when each expression runs alone and is capped."""
    from kartalint.jqlang.finite import finite_output
    from kartalint.jqlang.parser import parse

    expressions = [".big[]", '(.big[]), error("late")', ".big[:999][]", '.small[] | error("early")']
    assert all(finite_output(parse(e)) for e in expressions)
    value = {"big": list(range(1500)), "small": [1]}
    joined = ev.session.run(expressions, value)
    alone = {e: ev.runner.run(e, value) for e in expressions}
    assert joined[".big[]"].error == alone[".big[]"].error == "query results exceed the allowed number 1000"
    assert joined['(.big[]), error("late")'].error == "query results exceed the allowed number 1000"
    assert joined[".big[:999][]"].results == alone[".big[:999][]"].results == list(range(999))
    assert joined['.small[] | error("early")'].error == "early"
