"""The components of a draft drafted from real objects (`new --crd --from`): each role the pods
show becomes a component whose paths read the place the pods came from, whose replicas are the
product of counts that gives the pods seen (``observed_counts``), and whose selectors are the
labels the operator put on them (``observed_selectors``)."""

from __future__ import annotations

from typing import Any

from kartalint.load.observed import ObservedObject, value_at
from kartalint.scaffold.crd_schema import jq_path
from kartalint.scaffold.draft_model import Comments
from kartalint.scaffold.observed_counts import CountChoice, Factor, Observation, choose_count
from kartalint.scaffold.observed_roles import Evidence, ObservedRole
from kartalint.scaffold.observed_selectors import TypeSelector, instance_selector, label_path, type_selectors

SPEC_FIELD = {"template": "podTemplateSpecPath", "podspec": "podSpecPath"}


class RolePaths:
    """The jq of one role: the prefix every path of an instanced role starts with, its instance
    ids (the entry's name, else a name inside it that a label of its pods holds, such as a wrapped
    object's ``metadata.name``, else its index), the label that holds them, and each path."""

    def __init__(self, observed: ObservedRole, workloads: list[ObservedObject], schema: dict[str, Any]) -> None:
        """The paths of the role ``observed``, drafted from ``workloads`` and the CRD's ``schema``: the instance
        ids and the label that holds them, found in the objects."""
        self.observed = observed
        path = observed.role.path
        self.notes: list[str] = []
        self.id_field: tuple[str, ...] | None = None
        self.id_label: str | None = None
        if not observed.iterated:
            self.prefix, self.ids, self.rel = "", None, path
            return
        at = observed.list_at
        coll, self.rel = jq_path(path[:at]), path[at + 1 :]
        entries = [e for w in workloads for e in (value_at(w.data, path[:at]) or []) if isinstance(e, dict)]
        holding = [e for e in entries if value_at(e, self.rel) is not None]
        guard = ""
        if len(holding) < len(entries) or observed.role.pattern:
            guard = f"select({jq_path(self.rel)} != null) | "
            self.notes.append(f"only entries of {coll} that hold {jq_path(self.rel)} (the others are not this role)")
        self.prefix = f"{coll}[]? | {guard}"
        select = f"select(.value{jq_path(self.rel)} != null) | " if guard else ""
        self.id_field, self.id_label = self._named_by_label(workloads)
        if self.id_field is not None:
            self.ids = f"{self.prefix}{jq_path(self.id_field)}"
            self.notes.append(
                f"one instance per entry of {coll}, identified by {jq_path(self.id_field)} (its pods' {self.id_label})"
            )
        elif holding and all(isinstance(e.get("name"), str) and e["name"] for e in holding):
            self.id_field = ("name",)
            self.ids = f"{self.prefix}.name"
            self.notes.append(f"one instance per entry of {coll}, identified by .name")
        elif any(isinstance(e.get("name"), str) and e["name"] for e in holding):
            self.ids = f'({coll} // []) | to_entries[] | {select}.value.name // "{observed.role.name}-\\(.key)"'
            self.notes.append(f"one instance per entry of {coll}, by .name (an entry without one: by its index)")
        else:
            self.ids = f'({coll} // []) | to_entries[] | {select}"{observed.role.name}-\\(.key)"'
            self.notes.append(f"one instance per entry of {coll}; entries have no name: identified by their index")

    def _named_by_label(self, workloads: list[ObservedObject]) -> tuple[tuple[str, ...] | None, str | None]:
        """(a name field of the entries, the pod label that holds it on every pod of the entry)."""
        candidates: list[tuple[str, ...]] = [("name",)]
        for w in workloads:  # every string field of the entries (Ray's groupName), in the order met
            for item in value_at(w.data, self.observed.role.path[: self.observed.list_at]) or []:
                if isinstance(item, dict):
                    candidates += [(k,) for k, v in item.items() if isinstance(v, str) and (k,) not in candidates]
        for depth in range(len(self.rel) + 1):
            candidates += [(*self.rel[:depth], "metadata", "name")]
        for field in candidates:
            by_value: dict[str, list[ObservedObject]] = {}
            complete = True
            for index, by_entry in self.observed.pods.items():
                items = value_at(workloads[index].data, self.observed.role.path[: self.observed.list_at]) or []
                for entry, pods in by_entry.items():
                    value = value_at(items[entry], field) if entry is not None and entry < len(items) else None
                    if not (isinstance(value, str) and value):
                        complete = False
                        break
                    by_value.setdefault(f"{index}/{value}", []).extend(pods)
            if not complete or not by_value:
                continue
            keys = set.intersection(*(set(p.labels) for pods in by_value.values() for p in pods))
            fitting = [
                k for k in keys if all(p.labels[k] == v.split("/", 1)[1] for v, ps in by_value.items() for p in ps)
            ]
            if fitting:
                return field, sorted(fitting, key=lambda k: ("/" not in k, len(k), k))[0]
        return None, None

    def path(self, rel: tuple[str, ...]) -> str:
        """The jq path of ``rel`` (a path inside the role's entry), after the role's prefix."""
        if not self.observed.iterated:
            return jq_path(rel)
        return f"{self.prefix}{jq_path(rel)}" if rel else self.prefix.rstrip(" |")

    def instance_id(self, workload: ObservedObject, entry: int | None) -> str | None:
        """The instance id that the draft gives the entry ``entry`` of ``workload`` (None outside a list)."""
        if entry is None:
            return None
        items = value_at(workload.data, self.observed.role.path[: self.observed.list_at])
        item = items[entry] if isinstance(items, list) and entry < len(items) else None
        if self.id_field is not None:
            value = value_at(item, self.id_field)
            if isinstance(value, str) and value:
                return value
        name = item.get("name") if isinstance(item, dict) else None
        return name if isinstance(name, str) and name else f"{self.observed.role.name}-{entry}"


def replicas_expression(paths: RolePaths, factors: list[Factor]) -> str:
    """The product of ``factors``: counts above the role's list read through ``$o`` (the object)."""
    if not factors:
        return f"{paths.prefix}1" if paths.observed.iterated else "1"
    at = paths.observed.list_at if paths.observed.iterated else None
    parts, above = [], False
    for factor in factors:
        if at is not None and len(factor.level) <= at:
            read, above = f"$o{jq_path((*factor.level, factor.key))}", True
        elif at is not None:
            read = jq_path((*factor.level[at + 1 :], factor.key))
        else:
            read = jq_path((*factor.level, factor.key))
        if factor.fallback:
            sibling = read.rsplit(".", 1)[0] + "." + factor.fallback if "." in read else f".{factor.fallback}"
            term = f"({read} // {sibling} // {factor.default})"
        else:
            term = f"({read} // {factor.default})"
        parts.append(f"({term} - 1)" if factor.minus_one else term)
    product = " * ".join(parts)
    if at is None:
        return product
    return f". as $o | {paths.prefix}{product}" if above else f"{paths.prefix}{product}"


def _observations(observed: ObservedRole, evidence: Evidence, paths: RolePaths) -> list[Observation]:
    """Pods per instance on the running objects (all Running and ready), else on every object with pods."""
    chosen = [i for i in observed.pods if evidence.states[i] == "running"]
    chosen = (
        chosen or [i for i in observed.pods if evidence.states[i] not in ("completed", "failed")] or list(observed.pods)
    )
    out = []
    for index in sorted(chosen):
        workload = evidence.workloads[index]
        entries: list[int | None] = list(observed.entries.get(index, [])) if observed.iterated else [None]
        for entry in entries:
            count = len(observed.pods[index].get(entry, []))
            where = workload.key + (f"[{paths.instance_id(workload, entry)}]" if entry is not None else "")
            out.append(Observation(workload.data, entry, count, where))
    return out


def observed_component(
    observed: ObservedRole,
    evidence: Evidence,
    schema: dict[str, Any],
    root_name: str,
    selector: TypeSelector | None,
    comments: Comments,
) -> tuple[dict[str, Any], CountChoice]:
    """The component of one observed role, its reasons commented."""
    role = observed.role
    paths = RolePaths(observed, evidence.workloads, schema)
    comp: dict[str, Any] = {
        "name": role.name,
        "kind": {"group": "", "version": "v1", "kind": "Pod"},
        "ownerRef": root_name,
    }
    where = {"template": "pod template", "podspec": "pod spec", "container": "container"}[role.shape]
    notes = [f"{where} the pods' containers came from: {jq_path(role.path)} ({observed.evidence})", *paths.notes]
    if paths.ids:
        comp["instanceIdPath"] = paths.ids
    spec_path = paths.path(paths.rel)
    if role.shape == "container":
        comp["specDefinition"] = {"fragmentedPodSpecDefinition": {"containerPath": spec_path}}
        notes.append("a single container-shaped field: read as the pod's container (fragmentedPodSpecDefinition)")
    else:
        comp["specDefinition"] = {SPEC_FIELD[role.shape]: spec_path}
    observations = _observations(observed, evidence, paths)
    leader = any("leader" in str(p).lower() for r in evidence.roles if r is not observed for p in r.role.path)
    choice = choose_count(role.path, observations, schema, leader and "leader" not in str(role.path).lower())
    replicas = replicas_expression(paths, choice.factors or [])
    if choice.factors is None:  # a placeholder `lint --strict` names (draft-placeholder), 1 meanwhile
        replicas = f'{paths.prefix}"TODO-replicas" | 1' if observed.iterated else '"TODO-replicas" | 1'
    scale_notes = list(choice.notes)
    absent = [w.key for w in evidence.workloads if not observed.iterated and value_at(w.data, role.path) is None]
    if absent:  # a role of fixed keys (PyTorchJob's Worker) that some objects do not have: no pod there
        replicas = f"if {jq_path(role.path)} == null then 0 else {replicas} end"
        scale_notes.append(
            f"0 where the object has no {jq_path(role.path)} ({', '.join(absent[:3])}{', ...' if len(absent) > 3 else ''})"
        )
    comp["scaleDefinition"] = {"replicasPath": replicas}
    if choice.factors is not None:
        described = (
            " * ".join(
                f"{jq_path((*f.level, f.key))}{' - 1' if f.minus_one else ''} (absent: {f.default})"
                for f in choice.factors
            )
            or "1 (no count on the way)"
        )
        scale_notes.insert(0, f"replicas: {described}: gives the pods seen on every object ({_seen(observations)})")
        if len(choice.factors) > 1:
            scale_notes.append(
                "every count multiplies: Karta's consumers do not multiply a parent's scale (docs/parity.md)"
            )
    comments[(role.name, "replicasPath")] = scale_notes
    label = f'.metadata.labels["TODO/{role.name}"]'
    if len(evidence.roles) == 1:  # the only leaf: every pod of the workload is its (no selector is evaluated)
        comp["podSelector"] = {}
        comments[(role.name, "podSelector")] = [
            "the only pod role: every pod of the workload is its (no type selector)"
        ]
    elif selector is not None:
        type_selector: dict[str, str] = {"keyPath": label_path(selector.key)}
        if selector.value is not None:
            type_selector["value"] = selector.value
        comp["podSelector"] = {"componentTypeSelector": type_selector}
        comments[(role.name, "podSelector")] = [
            f"the pods of this role carry {selector.key}={selector.value} (no pod of another role does)"
            if selector.value is not None
            else f"the pods of this role carry the label {selector.key} (no pod of another role has it)"
        ]
    else:
        comp["podSelector"] = {"componentTypeSelector": {"keyPath": label}}
        comments[(role.name, "podSelector")] = [
            "TODO: no label of the pods tells this role from the others; replace TODO/... with the label the operator sets"
        ]
    if paths.ids:
        by_instance: dict[str, list[ObservedObject]] = {}
        for index, by_entry in observed.pods.items():
            for entry, pods in by_entry.items():
                by_instance.setdefault(paths.instance_id(evidence.workloads[index], entry) or "", []).extend(pods)
        key = paths.id_label or instance_selector(by_instance)
        if key is not None:
            comp["podSelector"]["componentInstanceSelector"] = {"idPath": label_path(key)}
            comments[(role.name, "podSelector")].append(f"{key} holds the instance's id on every pod")
        else:
            comp["podSelector"]["componentInstanceSelector"] = {
                "idPath": f'.metadata.labels["TODO/{role.name}-instance"]'
            }
            comments[(role.name, "podSelector")].append(
                "TODO: no label of the pods holds the instance's id; replace TODO/... with the one the operator sets"
            )
    if not comp["podSelector"]:
        del comp["podSelector"]
        notes += comments.pop((role.name, "podSelector"))
    comments[(role.name, None)] = notes
    return comp, choice


def _seen(observations: list[Observation]) -> str:
    shown = ", ".join(f"{o.pods} on {o.where}" for o in observations[:4])
    return shown + (f", and {len(observations) - 4} more" if len(observations) > 4 else "") if shown else "none running"


def observed_components(
    evidence: Evidence, schema: dict[str, Any], root_name: str, comments: Comments
) -> tuple[list[dict[str, Any]], dict[str, CountChoice]]:
    """Every observed role's component, each with the label that tells its pods apart."""
    names = frozenset(workload.name for workload in evidence.workloads if workload.name)
    selectors = type_selectors({r.role.name: r.all_pods() for r in evidence.roles}, names)
    children, choices = [], {}
    for observed in evidence.roles:
        selector = selectors.get(observed.role.name)
        comp, choice = observed_component(observed, evidence, schema, root_name, selector, comments)
        children.append(comp)
        choices[observed.role.name] = choice
    return children, choices


__all__ = ["RolePaths", "observed_components", "replicas_expression"]
