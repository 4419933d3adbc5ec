"""``kartalint new``: drafts of fixtures and, from CRDs, of definitions.

``fixture_text(obj, view, ...)`` renders a fixture whose ``expect`` block is what the definition
makes of the object now: a snapshot to review, not a truth. ``drafts_from_crd(path, version)``
drafts one definition per kind of a CRD file (see docs/crd.md for the heuristics).
"""

from __future__ import annotations

import copy
import os
import re
from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import Any, Dict, List, Optional, Sequence, Tuple

import yaml

from .check.fixture import FIXTURE_API_VERSION, FIXTURE_KIND
from .compare import snapshot
from .crd import CrdIndex, CrdVersion
from .evaluation.view import WorkloadView
from .karta import as_dict
from .load import load_file

_NOISE_ANNOTATIONS = ("kubectl.kubernetes.io/last-applied-configuration",)


def trim_object(obj: Dict[str, Any]) -> Dict[str, Any]:
    """The object without server-side noise (managedFields, last-applied annotation)."""
    out = copy.deepcopy(obj)
    meta = out.get("metadata")
    if isinstance(meta, dict):
        meta.pop("managedFields", None)
        annotations = meta.get("annotations")
        if isinstance(annotations, dict):
            for key in _NOISE_ANNOTATIONS:
                annotations.pop(key, None)
            if not annotations:
                meta.pop("annotations", None)
    return out


class _Dumper(yaml.SafeDumper):
    pass


def _str(dumper: yaml.SafeDumper, value: str) -> Any:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def dump(data: Any) -> str:
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, default_flow_style=False, allow_unicode=True, width=120)


def fixture_text(obj: Dict[str, Any], view: WorkloadView, *, name: str, source: str,
                 definition: Optional[str] = None, pods: Optional[List[Any]] = None,
                 lint_rules: Optional[List[str]] = None, description: Optional[str] = None) -> str:
    doc: Dict[str, Any] = {"apiVersion": FIXTURE_API_VERSION, "kind": FIXTURE_KIND, "name": name}
    if description:
        doc["description"] = description
    doc["source"] = source
    if definition:
        doc["definition"] = definition
    doc["object"] = trim_object(obj)
    if pods is not None:
        doc["pods"] = [trim_object(p) for p in pods]
    doc["expect"] = snapshot(view, lint_rules)
    header = ("# kartalint fixture (docs/fixtures.md). The expect block was generated from what the definition\n"
              "# computed: review every value against the object before committing.\n")
    return header + dump(doc)


# -- drafts from CRDs (`kartalint new --crd`) -------------------------------------------------------


COUNT_FIELDS = ("replicas", "parallelism", "size", "numOfHosts", "numNodes", "instances", "count")
GENERIC_KEYS = {"template", "spec", "podTemplate", "podSpec"}
COND_GUESSES = (
    ("running", ("Running", "Ready", "Available")),
    ("completed", ("Succeeded", "Complete", "Completed")),
    ("failed", ("Failed",)),
    ("suspended", ("Suspended",)),
)
PHASE_WORDS = {
    "initializing": ("pending", "initializing", "creating", "starting", "provisioning", "new", "submitted"),
    "running": ("running", "ready", "healthy", "active", "available"),
    "completed": ("succeeded", "complete", "completed", "finished", "done"),
    "failed": ("failed", "error", "errored"),
    "suspended": ("suspended", "stopped"),
}


@dataclass
class Role:
    name: str
    path: tuple  # schema path of the template (or fragment holder), "[]" / "{}" for iteration
    shape: str  # "template", "podspec" or "fragments"
    note: List[str] = dc_field(default_factory=list)
    pattern: Optional[str] = None  # the optional object of a list entry this alternative lives in


def _props(node: Any) -> Dict[str, Any]:
    return (node or {}).get("properties") or {} if isinstance(node, dict) else {}


_DERIVED = re.compile(r"\b(derived?|computed?|calculated?|inferred|if not (set|specified)|when (not set|unset|omitted))\b", re.I)
_TEMPLATE_NAME = re.compile(r"^(template|podTemplate|.*Template)$")
_LIBRARY_NAME = re.compile(r"^.+Templates$")  # reusable fragments referenced by name (`roleTemplates`)


def _free_form(node: Any) -> bool:
    return isinstance(node, dict) and not _props(node) and (
        bool(node.get("x-kubernetes-preserve-unknown-fields")) or node.get("type") in (None, "object")) \
        and "items" not in node and not isinstance(node.get("additionalProperties"), dict)


def _find_roles(node: Any, path: tuple, out: List[Role]) -> None:
    props = _props(node)
    if "metadata" in props and "spec" in props and "containers" in _props(props["spec"]):
        out.append(Role("", path, "template"))
        return
    if path and _TEMPLATE_NAME.match(str(path[-1])) and _free_form(node):
        # a pod template the CRD does not describe (x-kubernetes-preserve-unknown-fields): by name
        out.append(Role("", path, "template", ["guessed by its name: the CRD does not declare its fields (TODO: confirm)"]))
        return
    if "containers" in props and (props["containers"] or {}).get("type") == "array":
        out.append(Role("", path, "podspec"))
        return
    resources = [k for k in props if k.startswith("resources") and {"limits", "requests"} & set(_props(props[k]))]
    counted = any((props.get(k) or {}).get("type") == "integer" for k in COUNT_FIELDS)
    if resources and counted and (props.get("image") or {}).get("type") == "string":
        out.append(Role("", path, "fragments", [resources[0]]))
        return
    for key, child in props.items():
        _find_roles(child, path + (key,), out)
    if isinstance((node or {}).get("items"), dict):
        _find_roles(node["items"], path + ("[]",), out)
    if isinstance((node or {}).get("additionalProperties"), dict):
        _find_roles(node["additionalProperties"], path + ("{}",), out)


def _is_base(role: Role, found: List[Role]) -> bool:
    """A template whose parent also holds role templates of the same name one level down
    (Flink's ``spec.podTemplate`` beside ``spec.jobManager.podTemplate`` and
    ``spec.taskManager.podTemplate``): a base the operator merges into them, not a role."""
    if role.shape != "template":
        return False
    parent, name = role.path[:-1], role.path[-1]
    deeper = [other for other in found if other is not role and other.shape == "template" and other.path[-1] == name
              and other.path[:len(parent)] == parent and len(other.path) == len(role.path) + 1]
    return len(deeper) >= 1


def _schema_at(schema: Dict[str, Any], path: tuple) -> Dict[str, Any]:
    node = schema
    for part in path:
        if part == "[]":
            node = node.get("items") or {}
        elif part == "{}":
            node = node.get("additionalProperties") or {}
        else:
            node = _props(node).get(part) or {}
    return node


def _jq(parts: tuple) -> str:
    out = ""
    for part in parts:
        if part in ("[]", "{}"):
            out += "[]"
        else:
            out += f".{part}" if re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", part) else f'["{part}"]'
    return out or "."


def _role_name(path: tuple, used: set) -> str:
    iters = [i for i, p in enumerate(path) if p in ("[]", "{}")]
    if iters:
        base = path[iters[0] - 1]
    else:
        base = next((p for p in reversed(path) if p not in GENERIC_KEYS), path[-1])
    name = "replica" if base.endswith("ReplicaSpecs") else (re.sub(r"(GroupSpecs?|PodTemplate|Template|Specs?)$", "", base) or base)
    name = name.lower()
    if iters and name.endswith("s") and not name.endswith("ss"):
        name = name[:-1]
    candidate, n = name, 2
    while candidate in used:
        candidate, n = f"{name}{n}", n + 1
    used.add(candidate)
    return candidate


def _id_field(item: Dict[str, Any]) -> Optional[str]:
    props = _props(item)
    if "name" in props:
        return "name"
    for key in item.get("required") or []:
        if key.lower().endswith("name") and (props.get(key) or {}).get("type") == "string":
            return key
    return None


def _count_factors(schema: Dict[str, Any], role: Role, siblings: List[Role]) -> Tuple[List[str], Dict[str, str], List[str]]:
    """(multiplicative factors, min/max paths, notes) along the role's path, relative to the
    iterated item (or to the object when the role is not iterated)."""
    path = role.path
    iters = [i for i, p in enumerate(path) if p in ("[]", "{}")]
    start = iters[0] + 1 if iters else 0
    factors, bounds, notes = [], {}, []
    stop = len(path) if role.shape != "fragments" else len(path) + 1
    for depth in range(start, stop):
        level = path[start:depth]
        node = _schema_at(schema, path[:depth])
        props = _props(node)
        for key in COUNT_FIELDS:
            spec = props.get(key)
            if not spec or spec.get("type") != "integer":
                continue
            default = spec.get("default", 1)
            description = " ".join(str(spec.get("description") or "").split())
            if _DERIVED.search(description):  # the operator computes it when it is left out
                notes.append(f"TODO: the operator may derive {key} when it is not set; the CRD says: \"{description[:160]}\"")
            expr = f"({_jq(level + (key,)) if level or iters else _jq(path[:depth] + (key,))} // {default})"
            group = [s for s in siblings if s.path[:depth] == path[:depth] and len(s.path) > depth]
            if key == "size" and len(group) > 1 and any("leader" in s.path[depth].lower() for s in group):
                if "leader" in path[depth].lower():
                    notes.append(f"`{key}` counts the group; this is its leader (1 per group)")
                    continue
                expr = f"({expr} - 1)"
                notes.append(f"`{key}` counts the group including its leader: workers are {key} - 1 per group")
            factors.append(expr)
            if key == "replicas":
                for bound, names in (("minReplicasPath", ("minReplicas", "minAvailable")), ("maxReplicasPath", ("maxReplicas",))):
                    found = next((n for n in names if (props.get(n) or {}).get("type") == "integer"), None)
                    if found:
                        bound_default = props[found].get("default")
                        ref = _jq(level + (found,)) if level or iters else _jq(path[:depth] + (found,))
                        bounds[bound] = f"{ref} // {bound_default}" if bound_default is not None else ref
    return factors, bounds, notes


def _status(schema: Dict[str, Any], printer_types: Sequence[str] = ()) -> Tuple[Dict[str, Any], List[str]]:
    status = _props(schema).get("status") or {}
    props = _props(status)
    definition: Dict[str, Any] = {}
    mappings: Dict[str, Any] = {}
    notes = []
    if (props.get("conditions") or {}).get("type") == "array":
        definition["conditionsDefinition"] = {"path": ".status.conditions // []", "typeFieldName": "type", "statusFieldName": "status",
                                              "reasonFieldName": "reason", "messageFieldName": "message"}
        item = (props.get("conditions") or {}).get("items") or {}
        declared = [t for t in (_props(item).get("type") or {}).get("enum") or [] if isinstance(t, str)]
        declared += [t for t in printer_types if t not in declared]
        unmapped = []
        for kind in declared:  # only types the CRD names (an enum, printer columns): nothing invented
            key = next((k for k, types in COND_GUESSES if kind in types), None)
            if key is None:
                unmapped.append(kind)
            else:
                mappings.setdefault(key, []).append({"byConditions": [{"type": kind, "status": "True"}]})
        if declared:
            notes.append(f"condition types named by the CRD: {', '.join(declared)}"
                         + (f"; TODO: map {', '.join(unmapped)} to a status if it means one" if unmapped else ""))
        else:
            notes.append("TODO: the CRD does not name its condition types; add byConditions matchers for the ones the controller writes")
    for name in ("phase", "state", "status"):
        spec = props.get(name) or {}
        if spec.get("type") == "string":
            definition["phaseDefinition"] = {"path": f".status.{name}"}
            values = [v for v in spec.get("enum") or [] if isinstance(v, str)]
            for key, words in PHASE_WORDS.items():
                hits = [v for v in values if v.lower() in words]
                if hits:
                    mappings.setdefault(key, []).extend({"byPhase": v} for v in hits)
            known = {w for words in PHASE_WORDS.values() for w in words}
            unmapped = [v for v in values if v.lower() not in known]
            notes.append(f".status.{name} read as the phase" + ("" if values else "; TODO: its values are not declared in the CRD, add byPhase matchers")
                         + (f"; TODO: map {', '.join(unmapped)} to a status if it means one" if unmapped else ""))
            break
    if not definition:
        notes.append("TODO: the CRD declares no status conditions or phase; write byExpression matchers")
    definition["statusMappings"] = mappings
    return definition, notes


@dataclass
class Draft:
    name: str
    text: str
    data: Dict[str, Any]
    fixture_object: Dict[str, Any]
    roles: List[Role] = dc_field(default_factory=list)
    problems: List[str] = dc_field(default_factory=list)  # why the skeleton object is not valid for its CRD


def draft_definition(version: CrdVersion) -> Draft:
    schema = version.schema
    name = f"{(version.group or 'core').replace('.', '-')}-{version.kind.lower()}-{version.version}"
    found: List[Role] = []
    for key, child in _props(schema).items():  # roles may live outside spec (KAITO's `inference`, `tuning`)
        if key not in ("apiVersion", "kind", "metadata", "status"):
            _find_roles(child, (key,), found)
    skipped = [r for r in found if sum(p in ("[]", "{}") for p in r.path) > 1]
    libraries = [r for r in found if r not in skipped and any(_LIBRARY_NAME.match(str(p)) for p in r.path)]
    bases = [r for r in found if r not in skipped and r not in libraries and _is_base(r, found)]
    roles = [r for r in found if r not in skipped and r not in libraries and r not in bases]
    root_name = version.kind.lower()
    used = {root_name}
    for role in roles:
        role.name = _role_name(role.path, used)
    comments: Dict[str, List[str]] = {}
    children = []
    pod_roles = len(roles)
    for role in roles:
        iters = [i for i, p in enumerate(role.path) if p in ("[]", "{}")]
        comp: Dict[str, Any] = {"name": role.name, "kind": {"group": "", "version": "v1", "kind": "Pod"}, "ownerRef": root_name}
        notes = [f"pod {'template' if role.shape == 'template' else 'spec' if role.shape == 'podspec' else 'fields'} found at {_jq(role.path)}"]
        if role.shape != "fragments":
            notes.extend(role.note)  # how sure the guess is
        prefix = ""
        if iters:
            coll = role.path[:iters[0]]
            rel = role.path[iters[0] + 1:]
            if role.path[iters[0]] == "[]":
                item = _schema_at(schema, coll + ("[]",))
                id_field = _id_field(item) or "name"
                guard = ""
                pattern = rel[0] if len(rel) > 1 else None
                others = {r.path[len(coll) + 1] for r in roles if r is not role and r.path[:len(coll) + 1] == coll + ("[]",)
                          and len(r.path) > len(coll) + 2}
                if pattern and pattern not in (item.get("required") or []) and others - {pattern}:
                    # alternatives (RoleBasedGroup's leaderWorkerPattern / standalonePattern): an entry is an
                    # instance of this component only when it uses this pattern
                    guard = f"select(.{pattern} != null) | "
                    role.pattern = pattern
                    stem = re.sub(r"\d+$", "", role.name)
                    role.name = comp["name"] = f"{stem}-{re.sub(r'Pattern$', '', pattern).lower() or pattern.lower()}"
                    notes.append(f"only entries that set .{pattern} (the entry's other patterns are other components)")
                comp["instanceIdPath"] = f"{_jq(coll)}[]? | {guard}.{id_field}"
                prefix = f"{_jq(coll)}[]? | {guard}"
                notes.append(f"one instance per entry of {_jq(coll)}, identified by .{id_field}")
            else:
                comp["instanceIdPath"] = f"{_jq(coll)} | keys[]"
                prefix = f"{_jq(coll)} | keys[] as $key | .[$key] | "
                notes.append(f"one instance per key of the map {_jq(coll)} (walked in `keys` order so that every path lines up)")
            spec_path = f"{prefix}{_jq(rel)}" if rel else prefix.rstrip(" |")
        else:
            spec_path = _jq(role.path)
        if role.shape == "template":
            comp["specDefinition"] = {"podTemplateSpecPath": spec_path}
        elif role.shape == "podspec":
            comp["specDefinition"] = {"podSpecPath": spec_path}
        else:
            base = spec_path
            comp["specDefinition"] = {"fragmentedPodSpecDefinition": {"resourcesPath": f"{base}.{role.note[0]}", "imagePath": f"{base}.image"}}
        factors, bounds, count_notes = _count_factors(schema, role, roles)
        notes.extend(count_notes)
        if factors:
            scale = {"replicasPath": f"{prefix}{' * '.join(factors)}" if iters else " * ".join(factors)}
            scale.update({k: (f"{prefix}{v}" if iters else v) for k, v in bounds.items()})
            comp["scaleDefinition"] = scale
            notes.append("replicas: " + " * ".join(factors) + " (defaults: the CRD's, else 1)")
        elif pod_roles > 1 or iters:
            comp["scaleDefinition"] = {"replicasPath": "1"}
            notes.append("no count field next to this template: 1 pod (TODO: confirm)")
        if pod_roles > 1 or iters:
            label = f'.metadata.labels["TODO/{role.name}"]'
            comp["podSelector"] = {"componentTypeSelector": {"keyPath": label}}
            if iters:
                comp["podSelector"]["componentInstanceSelector"] = {"idPath": label}
            notes.append("TODO: podSelector: the pod label that carries this role is not in the CRD; replace TODO/... with it")
        comments[role.name] = notes
        children.append(comp)
    from .crd import printer_condition_types

    status, status_notes = _status(schema, printer_condition_types(version))
    root: Dict[str, Any] = {"name": root_name, "kind": {"group": version.group, "version": version.version, "kind": version.kind},
                            "statusDefinition": status}
    data: Dict[str, Any] = {"apiVersion": "run.ai/v1alpha1", "kind": "Karta", "metadata": {"name": name},
                            "spec": {"structureDefinition": {"rootComponent": root}}}
    if children:
        data["spec"]["structureDefinition"]["childComponents"] = children
    data["spec"]["optimizationInstructions"] = {"gangScheduling": {"podGroup": {"name": root_name}}} if (pod_roles > 1 or any("instanceIdPath" in c for c in children)) else {}
    header = [f"# Draft generated by `kartalint new --crd` from {os.path.basename(version.source)} ({version.kind} {version.group}/{version.version}).",
              "# Every guess is commented; TODO marks what must be confirmed against the operator and real objects.",
              f"# Roles: {', '.join(r.name for r in roles) or 'none found (TODO: no pod template or pod spec in the CRD schema)'}.",
              f"# Reads: {', '.join(sorted({_jq(r.path[:2]) for r in roles} | {'.status'}))}."]
    header += [f"# Status: {n}" for n in status_notes]
    header += [f"# Skipped {_jq(r.path)}: templates nested in two lists or maps are not modelled (TODO if they are pods of this workload)." for r in skipped]
    header += [f"# Not a role: {_jq(r.path)} is a template library (entries referenced by name from the roles)." for r in libraries]
    header += [f"# Not a role: {_jq(r.path)} is a base template beside the role templates (the operator merges it into them; "
               "TODO: read it with `*` where a role's own template leaves fields out)." for r in bases]
    if not roles:
        header.append("# TODO: no pod-bearing field was found; add components by hand.")
    text = "\n".join(header) + "\n" + _render(data, comments)
    return Draft(name, text, data, minimal_object(version, roles), roles)


def review(draft: Draft) -> Dict[str, Any]:
    """What a draft found and how sure each guess is (for the review report and its JSON)."""
    children = {c.get("name"): c for c in draft.data["spec"]["structureDefinition"].get("childComponents", [])}
    roles = []
    for role in draft.roles:
        component = children.get(role.name, {})
        scale = component.get("scaleDefinition") or {}
        roles.append({"name": role.name, "path": _jq(role.path), "shape": role.shape,
                      "confidence": "guessed by name" if role.note and role.shape != "fragments" else f"schema shape ({role.shape})",
                      "instanceIdPath": component.get("instanceIdPath"), "replicas": scale.get("replicasPath", "1")})
    kind = draft.fixture_object.get("kind")
    return {"name": draft.name, "kind": kind, "apiVersion": draft.fixture_object.get("apiVersion"), "roles": roles,
            "notes": [line[2:] for line in draft.text.splitlines()[2:] if line.startswith("# ")
                      and ("Not a role" in line or "Skipped" in line or "TODO" in line)],
            "problems": list(draft.problems)}


def skeleton_problems(crd: Dict[str, Any], version: str, obj: Dict[str, Any]) -> List[str]:
    """Why ``obj`` is not valid for the CRD's schema (with the CEL rules kartalint translates)."""
    import jsonschema

    from .schema.convert import crd_to_json_schema

    schema = crd_to_json_schema(crd, version)
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(obj), key=lambda e: [str(p) for p in e.path])
    return [f"{'.'.join(str(p) for p in e.path) or '.'}: {e.message}" for e in errors]


def _render(data: Dict[str, Any], comments: Dict[str, List[str]]) -> str:
    text = dump(data)
    for name, notes in comments.items():
        marker = f"    - name: {name}\n"
        if marker in text:
            block = "".join(f"    # {n}\n" for n in notes)
            text = text.replace(marker, block + marker, 1)
    return text


def _minimal(node: Dict[str, Any], depth: int = 0) -> Any:
    if depth > 12:
        return None
    if "default" in node:
        return node["default"]
    kind = node.get("type")
    if node.get("x-kubernetes-int-or-string"):
        return 1
    if kind == "object" or "properties" in node:
        out = {}
        for key in node.get("required") or []:
            child = _props(node).get(key)
            if child is not None:
                out[key] = _minimal(child, depth + 1)
        return out
    if kind == "array":
        return []
    if kind == "integer":
        return max(1, int(node.get("minimum", 1)))
    if kind == "number":
        return 1
    if kind == "boolean":
        return False
    if kind == "string":
        enum = node.get("enum")
        return enum[0] if enum else "example"
    return None


def minimal_object(version: CrdVersion, roles: List[Role]) -> Dict[str, Any]:
    """A minimal object of the CRD: required fields and defaults, plus one entry on every path
    that leads to a pod template, with one container."""
    schema = version.schema
    obj: Dict[str, Any] = {"apiVersion": f"{version.group}/{version.version}" if version.group else version.version,
                           "kind": version.kind, "metadata": {"name": f"example-{version.kind.lower()}", "namespace": "default"}}
    for key in schema.get("required") or []:  # required top-level fields (KAITO's `resource`)
        if key not in ("apiVersion", "kind", "metadata", "status") and key in _props(schema):
            obj[key] = _minimal(_props(schema)[key])
    if "spec" in _props(schema):  # only when the CRD has one (KAITO's Workspace has none)
        spec = _minimal(_props(schema).get("spec") or {})
        obj["spec"] = spec if isinstance(spec, dict) else {}
    for role in roles:
        node_schema: Dict[str, Any] = schema
        cursor: Any = obj
        parts = role.path
        for i, part in enumerate(parts):
            child_schema = _schema_at(node_schema, (part,))
            if part == "[]":
                if role.pattern and i == parts.index("[]"):
                    # an alternative: an entry of its own that sets only this pattern (never two at once)
                    entry = next((e for e in cursor if isinstance(e, dict) and role.pattern in e), None)
                    if entry is None:
                        entry = _minimal(child_schema) or {}
                        id_field = _id_field(child_schema)
                        if id_field:
                            entry[id_field] = f"example-{role.pattern.lower()}"
                        entry[role.pattern] = {}
                        cursor.append(entry)
                    cursor = entry
                else:
                    if not cursor:
                        item = _minimal(child_schema) or {}
                        id_field = _id_field(child_schema)
                        if id_field:
                            item[id_field] = "example"
                        cursor.append(item)
                    cursor = cursor[0]
            elif part == "{}":
                if not cursor:
                    cursor["Example"] = _minimal(child_schema) or {}
                cursor = next(iter(cursor.values()))
            else:
                if not isinstance(cursor.get(part), (dict, list)):
                    value = _minimal(child_schema)
                    cursor[part] = value if isinstance(value, (dict, list)) else {}
                cursor = cursor[part]
            node_schema = child_schema
        container = {"name": "main", "image": "registry.example.com/TODO:latest"}
        if role.shape == "template":
            cursor.setdefault("spec", {}).setdefault("containers", [container])
        elif role.shape == "podspec":
            cursor.setdefault("containers", [container])
        else:
            cursor.setdefault("image", container["image"])
    return obj


class ScaffoldError(Exception):
    pass


def drafts_from_crd(path: str, version: Optional[str] = None) -> List[Draft]:
    """One draft per kind in the CRD file: the stored version, or ``version``."""
    index = CrdIndex.from_paths([path])
    if index.problems:
        raise ScaffoldError("; ".join(index.problems))
    kinds: Dict[Tuple[str, str], List[CrdVersion]] = {}
    for found in index.versions.values():
        kinds.setdefault((found.group, found.kind), []).append(found)
    if not kinds:
        raise ScaffoldError(f"{path}: no CustomResourceDefinition with a schema found")
    documents = [d.data for d in load_file(path).documents if isinstance(d.data, dict) and d.data.get("kind") == "CustomResourceDefinition"]
    drafts = []
    for (group, kind), versions in sorted(kinds.items()):
        if version:
            chosen = [v for v in versions if v.version == version]
            if not chosen:
                raise ScaffoldError(f"{kind}.{group} has no version {version} (versions: {', '.join(v.version for v in versions)})")
        else:
            chosen = [v for v in versions if v.storage] or versions[:1]
        draft = draft_definition(chosen[0])
        crd = next((d for d in documents if as_dict(as_dict(d.get("spec")).get("names")).get("kind") == kind
                    and as_dict(d.get("spec")).get("group") == group), None)
        if crd is not None and chosen[0].schema:  # a version without a schema has nothing to validate against
            draft.problems = skeleton_problems(crd, chosen[0].version, draft.fixture_object)
        drafts.append(draft)
    return drafts
