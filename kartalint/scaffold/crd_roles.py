"""Roles that are not a PodTemplateSpec, for drafting (`kartalint new --crd`): pods described by
fields (Spark's driver and executor: cores, memory, ``gpu: {name, quantity}``, image, labels) and
the pod sets of a wrapped resource (AppWrapper's ``podSets[].path`` into an embedded Job)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from kartalint.karta import as_dict
from kartalint.scaffold.crd_schema import (
    COUNT_FIELDS,
    LIBRARY_NAME,
    TEMPLATE_NAME,
    Role,
    embedded,
    free_form,
    is_base,
    jq_path,
    properties_of,
    required_of,
    role_templates_below,
    type_of,
)
from kartalint.scaffold.crd_status import text_of

CPU_REQUEST_FIELDS = ("coreRequest", "cpuRequest", "coresRequest")
CPU_FIELDS = ("cores", "cpu", "cpus", "vcores", "numCores")
MEMORY_FIELDS = ("memory", "memoryRequest", "mem")
GPU_COUNT_FIELDS = ("gpus", "gpu", "numGpus", "gpuCount", "gpusPerNode", "nvidiaGpus")
PLAIN_FIELDS = {  # fragment path -> field names that hold it as is
    "imagePath": ("image",),
    "labelsPath": ("labels",),
    "annotationsPath": ("annotations",),
    "schedulerNamePath": ("schedulerName",),
    "priorityClassNamePath": ("priorityClassName",),
}
_POD_SET_TEXT = re.compile(r"template|pod", re.I)
CONTAINER_NAME = re.compile(r"^(container|.+Container)$")
CONTAINER_TEXT = re.compile(r"\bcontainer\b(?! images?\b)", re.I)


def _free_spec(props: dict[str, Any]) -> bool:
    """A template-shaped object whose ``spec`` the CRD leaves free (``metadata`` and a free-form ``spec``)."""
    return set(props) <= {"metadata", "spec"} and "spec" in props and free_form(props["spec"])


def _is_pod_holder(node: Any) -> bool:
    props = properties_of(node)
    if "containers" in props:
        return True
    return "spec" in props and "containers" in properties_of(props["spec"])


def pod_fields(node: Any) -> dict[str, str]:
    """What each field of a pod described by fields is (``cpu``, ``cpuRequest``, ``memory``,
    ``gpu`` or ``gpuCount``, ``count``, and the plain fragment paths), or {} when ``node`` is
    not one: it needs a compute field (CPU, memory or GPUs) and an image, labels or a count, and
    no child that is a real pod template or pod spec (then that is the role)."""
    props = properties_of(node)
    if not props or any(_is_pod_holder(child) for child in props.values()):
        return {}
    found: dict[str, str] = {}
    kinds: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
        ("cpuRequest", CPU_REQUEST_FIELDS, ("string", "integer", "number")),
        ("cpu", CPU_FIELDS, ("string", "integer", "number")),
        ("memory", MEMORY_FIELDS, ("string",)),
        ("gpuCount", GPU_COUNT_FIELDS, ("integer",)),
        ("count", COUNT_FIELDS, ("integer",)),
    )
    for kind, names, types in kinds:
        key = next((n for n in names if type_of(props.get(n)) in types), None)
        if key:
            found[kind] = key
    for key in ("gpu", "gpus"):
        gpu = props.get(key)
        if {"name", "quantity"} <= set(properties_of(gpu)) and type_of(properties_of(gpu)["quantity"]) in (
            "integer",
            "number",
            "string",
        ):
            found["gpu"] = key
            found.pop("gpuCount", None)
            if "name" not in required_of(gpu):
                found["gpuNameOptional"] = "yes"
    for fragment, names in PLAIN_FIELDS.items():
        expected = "string" if fragment in ("imagePath", "schedulerNamePath", "priorityClassNamePath") else "object"
        key = next((n for n in names if type_of(props.get(n)) == expected), None)
        if key:
            found[fragment] = key
    compute = {"cpu", "cpuRequest", "memory", "gpu", "gpuCount"} & set(found)
    described = {"imagePath", "labelsPath", "annotationsPath", "count"} & set(found)
    return found if compute and described else {}


def pod_sets(node: Any) -> dict[str, str]:
    """The pod sets beside a wrapped resource: ``{"embedded": <field>, "list": <field>, "path":
    <field>, "count": <field>}`` when ``node`` holds an x-kubernetes-embedded-resource and a
    list whose entries carry a string path into it (AppWrapper's ``podSets[].path``), else {}."""
    props = properties_of(node)
    wrapped = next((k for k, v in props.items() if embedded(v)), None)
    if wrapped is None:
        return {}
    for key, child in props.items():
        if type_of(child) != "array" or not isinstance(child, dict):
            continue
        item = properties_of(child.get("items"))
        path = next((k for k, v in item.items() if k.lower().endswith("path") and type_of(v) == "string"), None)
        if path is None or not (_POD_SET_TEXT.search(text_of(item[path])) or _POD_SET_TEXT.search(key)):
            continue
        out = {"embedded": wrapped, "list": key, "path": path}
        count = next((n for n in COUNT_FIELDS if type_of(item.get(n)) == "integer"), None)
        if count:
            out["count"] = count
        return out
    return {}


def find_roles(node: Any, path: tuple, out: list[Role]) -> None:
    """Add to ``out`` each place under ``node`` (at schema path ``path``) that holds pods: pod templates, pod
    specs, wrapped objects and their pod sets."""
    props = properties_of(node)
    if len(path) > 40:  # deeper than any real workload keeps a pod
        return
    if embedded(node):  # its pods are inside the wrapped object: where its pod sets say, if anywhere
        out.append(Role("", path, "wrapped"))
        return
    if "metadata" in props and "spec" in props and "containers" in properties_of(props["spec"]):
        out.append(Role("", path, "template"))
        return
    if path and TEMPLATE_NAME.match(str(path[-1])) and (free_form(node) or _free_spec(props)):
        # a pod template the CRD does not describe (x-kubernetes-preserve-unknown-fields), or whose
        # spec it leaves free: by name
        out.append(
            Role("", path, "template", ["guessed by its name: the CRD does not declare its fields (TODO: confirm)"])
        )
        return
    if path and free_form(node) and (CONTAINER_NAME.match(str(path[-1])) or CONTAINER_TEXT.search(text_of(node))):
        # a single container the CRD leaves free-form (named or described as one): the pod's container
        out.append(Role("", path, "container", ["a free-form field named or described as a container (TODO: confirm)"]))
        return
    if "containers" in props and type_of(props["containers"]) == "array":
        out.append(Role("", path, "podspec"))
        return
    resources = [
        k for k in props if k.startswith("resources") and {"limits", "requests"} & set(properties_of(props[k]))
    ]
    counted = any(type_of(props.get(k)) == "integer" for k in COUNT_FIELDS)
    if resources and counted and type_of(props.get("image")) == "string":
        out.append(Role("", path, "fragments", [resources[0]]))
        return
    described = pod_fields(node)
    if described:  # a pod described by fields (Spark's driver: cores, memory, gpu, image, labels)
        merged = [k for k, v in props.items() if TEMPLATE_NAME.match(k) and free_form(v)]
        note = [
            f"TODO: the operator also merges .{k} (a pod template the CRD leaves free) into the pod: "
            "fields set only there are not read"
            for k in merged
        ]
        out.append(Role("", path, "fields", note, fields=described))
        return
    sets = pod_sets(node)
    if sets:  # a wrapped resource beside the pod sets that say where its pods are (AppWrapper)
        out.append(Role("", (*path, sets["list"], "[]"), "podsets", fields=sets))
        for key, child in props.items():
            if key != sets["list"] and not embedded(child):
                find_roles(child, (*path, key), out)
        return
    for key, child in props.items():
        find_roles(child, (*path, key), out)
    if isinstance(node, dict) and isinstance(node.get("items"), dict):
        find_roles(node["items"], (*path, "[]"), out)
    if isinstance(node, dict) and isinstance(node.get("additionalProperties"), dict):
        find_roles(node["additionalProperties"], (*path, "{}"), out)


def _iterations(role: Role) -> int:
    return sum(p in ("[]", "{}") for p in role.path)


@dataclass
class PodBearingFields:
    """The pod-bearing fields of a schema: the roles, and those that are not roles."""

    roles: list[Role]
    skipped: list[Role]  # templates nested in two lists or maps
    wrapped: list[Role]  # wrapped resources (x-kubernetes-embedded-resource)
    libraries: list[Role]  # template libraries, referenced by name from the roles
    bases: list[Role]  # base templates merged into the role templates


def pod_bearing_fields(schema: dict[str, Any]) -> PodBearingFields:
    """The schema's pod-bearing fields (outside status), sorted into roles and the others."""
    found: list[Role] = []
    for key, child in as_dict(schema.get("properties")).items():  # roles may live outside spec (KAITO's `inference`)
        if isinstance(key, str) and key not in ("apiVersion", "kind", "metadata", "status"):
            find_roles(child, (key,), found)
    wrapped = [r for r in found if r.shape == "wrapped"]
    found = [r for r in found if r.shape != "wrapped"]
    skipped = [
        r
        for r in found
        if _iterations(r) > (2 if r.shape == "podsets" else 1)
        or (r.shape == "podsets" and "{}" in r.path[: r.path.index(r.fields["list"])])
    ]
    sorted_out = {id(r) for r in skipped}  # by identity: Role compares by value, slowly
    libraries = [r for r in found if id(r) not in sorted_out and any(LIBRARY_NAME.match(str(p)) for p in r.path)]
    sorted_out |= {id(r) for r in libraries}
    below = role_templates_below(found)
    bases = [r for r in found if id(r) not in sorted_out and is_base(r, found, below)]
    sorted_out |= {id(r) for r in bases}
    roles = [r for r in found if id(r) not in sorted_out]
    return PodBearingFields(roles, skipped, wrapped, libraries, bases)


def resources_expression(base: str, fields: dict[str, str]) -> tuple[str, list[str]]:
    """A ResourceRequirements built from the fields of a pod described by fields, and the
    comments that say how each value is computed."""
    requests: list[str] = []
    notes = []
    cpu = [fields[k] for k in ("cpuRequest", "cpu") if k in fields]
    if cpu:
        requests.append(f"cpu: ({' // '.join('.' + c for c in cpu)})")
        notes.append(
            "cpu: "
            + (f".{cpu[0]}, else .{cpu[1]}" if len(cpu) > 1 else f".{cpu[0]}")
            + " (a request the operator passes on to the pod)"
        )
    gpu_part = ""
    if "gpu" in fields:
        gpu = fields["gpu"]
        name = f'(.{gpu}.name // "nvidia.com/gpu")' if "gpuNameOptional" in fields else f".{gpu}.name"
        gpu_part = f" + (if .{gpu} then {{({name}): .{gpu}.quantity}} else {{}} end)"
        notes.append(
            f"GPUs: .{gpu}.quantity of the resource named .{gpu}.name (only nvidia.com/gpu is counted by consumers)"
        )
    elif "gpuCount" in fields:
        requests.append(f'"nvidia.com/gpu": .{fields["gpuCount"]}')
        notes.append(f".{fields['gpuCount']} GPUs, TODO: confirm the resource is nvidia.com/gpu")
    if "memory" in fields:
        notes.append(
            f"TODO: memory (.{fields['memory']}) is not counted: its unit may not be a Kubernetes quantity "
            '(Spark writes "4g" and adds an overhead); add it once you know how the operator sizes the pod'
        )
    expression = (
        f"{base} | {{requests: ({{{', '.join(requests)}}}{gpu_part}"
        " | with_entries(select(.value != null) | {key, value: (.value | tostring)}))}"
    )
    notes.append("absent fields are left out (select(.value != null)); values become quantity strings")
    return expression, notes


def fragments(base: str, fields: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """The fragmentedPodSpecDefinition of a pod described by fields (``base``: the jq path of the
    object that holds them) and the comments above its resourcesPath."""
    definition = {fragment: f"{base}.{fields[fragment]}" for fragment in PLAIN_FIELDS if fragment in fields}
    expression, notes = resources_expression(base, fields)
    definition["resourcesPath"] = expression
    return dict(sorted(definition.items(), key=lambda kv: kv[0] != "resourcesPath")), notes


_SPLIT_PATH = '[splits("[.\\\\[\\\\]]+") | select(length > 0) | tonumber? // .]'


def status_pod_sets(schema: dict[str, Any], fields: dict[str, str]) -> str | None:
    """The list under .status whose entries carry the same pod-set list as the spec's entries
    (AppWrapper's ``.status.componentStatus[].podSets``: the pod sets the operator validated or
    inferred, one entry per component), as a jq path; None when the status keeps none."""
    status = properties_of(schema).get("status")
    stack: list[tuple[Any, tuple[str, ...]]] = [(status, ("status",))]
    while stack:
        node, path = stack.pop(0)
        for key, child in properties_of(node).items():
            if type_of(child) == "array" and isinstance(child, dict):
                sets = properties_of(child.get("items")).get(fields["list"])
                item = properties_of(sets.get("items")) if isinstance(sets, dict) else {}
                if type_of(sets) == "array" and type_of(item.get(fields["path"])) == "string":
                    return jq_path((*path, key))
            elif type_of(child) == "object" and len(path) < 3:
                stack.append((child, (*path, key)))
    return None


def pod_set_paths(role_path: tuple, fields: dict[str, str], default: int, mirror: str | None = None) -> dict[str, str]:
    """instanceIdPath, podTemplateSpecPath and replicasPath of the pod sets of a wrapped resource:
    one instance per pod set, its template read with ``getpath`` over the set's parsed path
    (``template.spec.replicatedJobs[0].template.spec.template``). With ``mirror`` (the status list
    that keeps each entry's pod sets), those are read first and the spec's when it has none."""
    holder = role_path[: role_path.index(fields["list"])]  # the object holding the wrapped resource
    iters = [i for i, p in enumerate(holder) if p in ("[]", "{}")]
    wrapped, sets, path_field = fields["embedded"], fields["list"], fields["path"]
    count = f"(.{fields['count']} // {default})" if "count" in fields else "1"
    parse = f"(.{path_field} | {_SPLIT_PATH})"
    read = f'if $path[0] == "{wrapped}" then getpath($path) else .{wrapped} | getpath($path) end'
    if iters:
        outer = jq_path(holder[: iters[0]])
        start, entry_sets = f"({outer} // []) | to_entries[] | .key as $i", f"(.value.{sets} // [])"
        if mirror:
            start, entry_sets = f". as $o | {start}", f"($o{mirror}[$i].{sets} // .value.{sets} // [])"
        return {
            "instanceIdPath": f'{start} | {entry_sets} | to_entries[] | "\\($i)-\\(.key)"',
            "podTemplateSpecPath": f"({start} | {entry_sets} | .[] | [$i, {parse}]) as [$i, $path] | {outer}[$i] | {read}",
            "replicasPath": f"{start} | {entry_sets} | .[] | {count}"
            if mirror
            else f"{outer}[]? | .{sets}[]? | {count}",
        }
    parent = jq_path(holder)
    return {
        "instanceIdPath": f'({parent}.{sets} // []) | to_entries[] | "\\(.key)"',
        "podTemplateSpecPath": f"({parent}.{sets} // [] | .[] | {parse}) as $path | {parent} | {read}",
        "replicasPath": f"{parent}.{sets}[]? | {count}",
    }
