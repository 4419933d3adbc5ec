"""``kartalint diff``: what a definition change does to every fixture and recording.

Cases are discovered in the working tree; each is evaluated with its definition as it is at the
base revision and at the head (default: the working tree), the two views are summarised
(statuses, roles and replicas, resources, gang groups, extraction errors) and compared. Lint
findings of every changed definition are compared too (new and fixed, positions ignored).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from kartalint import karta

from kartalint.evaluation import quantity
from kartalint.testing.cases import Case, Confinement, discover
from kartalint.rules.config import Config
from kartalint.load.definitions import DefinitionFile, DefinitionIndex, object_gvk
from kartalint.evaluation import Evaluator, WorkloadView
from kartalint.load.git import Revision, renames
from kartalint.rules.lint import lint_source
from kartalint.load.documents import load_text
from kartalint.load.discovery import missing_reason
from kartalint.model import Severity, format_path

SCHEMA_VERSION = 1


@dataclass
class RevisionDefinitions:
    """The definitions of one revision: texts by repo path, and a ``DefinitionIndex`` of them
    (entries carry absolute paths, as in the working tree, so cases resolve against it)."""

    revision: Revision
    files: Dict[str, Tuple[str, dict]]  # repo path -> (text, data)
    indexed: Optional[List[str]] = None  # the paths found by name or GVK (default: all)

    def __post_init__(self) -> None:
        root = self.revision.root
        self.index = DefinitionIndex(searched=[f"{self.revision.label} of {root}"])
        for path, (_, data) in self.files.items():
            if self.indexed is None or path in self.indexed:
                self.index.add_definition(os.path.join(root, path), data, self.revision.label)

    def repo_path(self, entry: Optional[DefinitionFile]) -> Optional[str]:
        return os.path.relpath(entry.path, self.revision.root) if entry is not None else None


def summarize(view: Optional[WorkloadView]) -> Optional[Dict[str, Any]]:
    if view is None:
        return None
    gang = view.gang or {}
    summary = {
        "statuses": sorted(view.statuses),
        "components": {c.name: {("" if i.id is None else i.id): i.desired for i in c.instances} for c in view.components},
        "resources": view.resources.to_dict(),
        "gang": {"minAvailable": gang.get("minAvailable"), "minSubGroup": gang.get("minSubGroup"),
                 "subGroups": {s["name"]: s["minAvailable"] for s in gang.get("subGroups", []) or []}} if gang else None,
        "errors": sorted(f"{comp + '.' if comp else ''}{e.field}: {e.message}" for comp, e in view.all_errors),
    }
    if view.pods_given:  # pod placement: which instance each pod lands in, and the pods nothing selects
        summary["pods"] = {c.name: {("" if i.id is None else i.id): sorted(p.name for p in i.pods) for i in c.instances}
                           for c in view.components if c.pods}
        summary["unmatchedPods"] = sorted(view.unmatched_pods)
    return summary


def show(value: Any) -> str:
    """A value as a reviewer reads it: JSON scalars and compact JSON, never a Python repr."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


RESOURCE_LABELS = {"gpus": "GPUs", "cpuMillis": "CPU", "memoryBytes": "memory"}


def show_resource(key: str, base: int, head: int) -> Tuple[str, str, str]:
    """(base, head, signed delta) in Kubernetes units, one unit for the three."""
    if key == "memoryBytes":
        texts = quantity.memory_column([base, head, head - base])
    elif key == "cpuMillis":
        texts = quantity.cpu_column([base, head, head - base])
    else:
        texts = [str(base), str(head), str(head - base)]
    return texts[0], texts[1], quantity.signed(texts[2])


def delta_text(before: Any, after: Any) -> str:
    """`` (+4)`` between two integers, else nothing."""
    if isinstance(before, int) and isinstance(after, int) and not isinstance(before, bool) and not isinstance(after, bool):
        return f" ({quantity.signed(str(after - before))})"
    return ""


def _change(what: str, base: Any, head: Any, component: Optional[str] = None, text: str = "",
            instance: Optional[str] = None, field_name: Optional[str] = None) -> Dict[str, Any]:
    """One change; ``before``/``after`` (and the older ``base``/``head``) hold the values,
    ``component``, ``instance`` and ``field`` say where."""
    return {"what": what, "component": component, "instance": instance, "field": field_name or what,
            "before": base, "after": head, "base": base, "head": head,
            "text": text or f"{what}: {show(base)} -> {show(head)}"}


def compare_summaries(base: Optional[Dict[str, Any]], head: Optional[Dict[str, Any]]) -> List[Dict[str, Any]]:
    if base is None and head is None:
        return []
    if base is None:
        return [_change("definition", None, "added", text="no definition at base; evaluated at head only")]
    if head is None:
        return [_change("definition", "present", None, text="no definition at head (deleted or renamed away)")]
    out = []
    if base["statuses"] != head["statuses"]:
        gone = [s for s in base["statuses"] if s not in head["statuses"]]
        new = [s for s in head["statuses"] if s not in base["statuses"]]
        detail = "; ".join(x for x in (f"stops matching {', '.join(gone)}" if gone else "", f"now matches {', '.join(new)}" if new else "") if x)
        out.append(_change("statuses", base["statuses"], head["statuses"],
                           text=f"statuses: {show(base['statuses'])} -> {show(head['statuses'])} ({detail})"))
    for name in sorted(set(base["components"]) | set(head["components"])):
        b, h = base["components"].get(name), head["components"].get(name)
        if b is None:
            out.append(_change("component-added", None, h, name, f"component {name} added", field_name="component"))
            continue
        if h is None:
            out.append(_change("component-removed", b, None, name, f"component {name} removed", field_name="component"))
            continue
        gone = [i for i in b if i not in h]
        new = [i for i in h if i not in b]
        if gone and len(gone) == len(new):  # same number of roles, other names: renamed, paired in order
            for old_id, new_id in zip(sorted(gone), sorted(new)):
                out.append(_change("role-renamed", old_id, new_id, name, f"{name}: role {show(old_id)} renamed to {show(new_id)}",
                                   instance=new_id, field_name="instanceId"))
        else:
            for i in gone:
                out.append(_change("role-removed", i, None, name, f"{name}: role {show(i)} disappeared", instance=i, field_name="instanceId"))
            for i in new:
                out.append(_change("role-added", None, i, name, f"{name}: role {show(i)} appeared", instance=i, field_name="instanceId"))
        for i in sorted(set(b) & set(h)):
            if b[i] != h[i]:
                label = f"{name}[{i}]" if i else name
                out.append(_change("replicas", b[i], h[i], name, f"{label}.replicas: {show(b[i])} -> {show(h[i])}{delta_text(b[i], h[i])}",
                                   instance=i or None, field_name="replicas"))
    for key, label in RESOURCE_LABELS.items():
        before, after = base["resources"][key], head["resources"][key]
        if before != after:
            b_text, h_text, delta = show_resource(key, before, after)
            out.append(_change(key, before, after, text=f"total {label}: {b_text} -> {h_text} ({delta})", field_name=key))
    out.extend(_gang_changes(base["gang"], head["gang"]))
    out.extend(_pod_changes(base, head))
    for error in head["errors"]:
        if error not in base["errors"]:
            out.append(_change("error-appeared", None, error, text=f"extraction error appeared: {error}", field_name="errors"))
    for error in base["errors"]:
        if error not in head["errors"]:
            out.append(_change("error-fixed", error, None, text=f"extraction error went away: {error}", field_name="errors"))
    return out


def _gang_changes(base: Optional[Dict[str, Any]], head: Optional[Dict[str, Any]]) -> List[Dict[str, Any]]:
    if base == head:
        return []
    if base is None or head is None:
        return [_change("gang", base, head, text=f"gang: {show(base)} -> {show(head)}", field_name="gang")]
    out = []
    for key in ("minAvailable", "minSubGroup"):
        if base.get(key) != head.get(key):
            out.append(_change("gang", base.get(key), head.get(key),
                               text=f"gang.{key}: {show(base.get(key))} -> {show(head.get(key))}{delta_text(base.get(key), head.get(key))}",
                               field_name=f"gang.{key}"))
    b_groups, h_groups = base.get("subGroups") or {}, head.get("subGroups") or {}
    for name in sorted(set(b_groups) | set(h_groups)):
        if b_groups.get(name) != h_groups.get(name):
            out.append(_change("gang", b_groups.get(name), h_groups.get(name), name,
                               f"gang.subGroups[{show(name)}].minAvailable: {show(b_groups.get(name))} -> {show(h_groups.get(name))}"
                               f"{delta_text(b_groups.get(name), h_groups.get(name))}",
                               field_name="gang.subGroups.minAvailable"))
    return out


def _pod_changes(base: Dict[str, Any], head: Dict[str, Any]) -> List[Dict[str, Any]]:
    """Pods that move between components or instances, or that nothing selects any more."""
    if "pods" not in base or "pods" not in head:
        return []
    def placement(summary: Dict[str, Any]) -> Dict[str, str]:
        return {pod: f"{comp}[{inst}]" if inst else comp
                for comp, instances in summary["pods"].items() for inst, pods in instances.items() for pod in pods}
    b, h = placement(base), placement(head)
    out = []
    for pod in sorted(set(b) | set(h)):
        if b.get(pod) != h.get(pod):
            out.append(_change("pod-moved", b.get(pod), h.get(pod), text=f"pod {show(pod)}: {show(b.get(pod))} -> {show(h.get(pod))}",
                               field_name=f"pods[{pod}]"))
    return out


def lint_keys(path: str, text: str) -> List[Tuple[str, str, str]]:
    findings = lint_source(load_text(text, path), Config())[0]
    return sorted({(f.rule, format_path(f.path), f.message) for f in findings if f.severity >= Severity.WARNING})


@dataclass
class DiffReport:
    base: str
    head: str
    changes: List[Dict[str, Any]] = field(default_factory=list)
    definitions: List[Dict[str, Any]] = field(default_factory=list)
    cases: int = 0
    problems: List[str] = field(default_factory=list)
    warnings: List[str] = field(default_factory=list)

    def to_dict(self) -> Dict[str, Any]:
        return {"schemaVersion": SCHEMA_VERSION, "base": self.base, "head": self.head, "cases": self.cases,
                "changes": self.changes, "definitions": self.definitions, "problems": self.problems,
                "warnings": self.warnings}


def _project_files(files: Dict[str, Tuple[str, dict]], root: str, project: Any) -> Optional[List[str]]:
    """The definition files of a revision that belong to the project (its ``definitions:`` and
    ``exclude``): only these are found by name or GVK; a fixture's ``definition:`` reaches any."""
    if project is None:
        return None
    wanted = [os.path.abspath(p) for p in project.definition_paths()] if project.config.definitions else None

    def keep(path: str) -> bool:
        absolute = os.path.join(root, path)
        if project.excluded(absolute):
            return False
        return wanted is None or any(absolute == w or absolute.startswith(w.rstrip(os.sep) + os.sep) for w in wanted)

    return [path for path in files if keep(path)]


def run_diff(root: str, base_ref: str, head_ref: Optional[str], paths: List[str], timeout: float = 10.0,
             project: Any = None, confinement: Optional[Confinement] = None) -> DiffReport:
    base_rev, head_rev = Revision(root, base_ref), Revision(root, head_ref)
    base_files, head_files = base_rev.definitions(), head_rev.definitions()
    base = RevisionDefinitions(base_rev, base_files, _project_files(base_files, root, project))
    head = RevisionDefinitions(head_rev, head_files, _project_files(head_files, root, project))
    moved = renames(root, base.revision, head.revision)  # base path -> head path
    moved_back = {v: k for k, v in moved.items()}
    report = DiffReport(base=base.revision.label, head=head.revision.label)
    report.problems.extend(base_rev.problems + head_rev.problems)  # an unreadable definition never looks deleted
    report.warnings.extend(base_rev.warnings + head_rev.warnings)
    report.definitions = _definition_changes(base, head, moved)
    found = discover(paths, head.index, project.fixture_roots() if project is not None else (),
                     confinement)  # against the head definitions
    report.problems.extend(missing_reason(p) for p in found.missing)
    report.cases = len(found.cases)
    with Evaluator(timeout=timeout) as evaluator:
        for case in found.cases:
            if case.object is None:  # a fixture that cannot be read is an error, never a silent "no change"
                report.problems.extend(f"{case.file}: {problem}" for problem in case.problems)
                continue
            head_path = _resolve(case, head, root, {})
            base_path = _resolve(case, base, root, moved_back)
            views = []
            for revision, path in ((base, base_path), (head, head_path)):
                views.append(evaluator.evaluate(revision.files[path][1], case.object, case.pods) if path else None)
            changes = compare_summaries(summarize(views[0]), summarize(views[1]))
            if changes:
                report.changes.append({"workload": case.id, "file": case.file, "name": case.name, "definition": head_path or base_path,
                                       "baseDefinition": base_path, "changes": changes, "tree": _tree(views[1] or views[0], changes)})
    return report


def _resolve(case: Case, revision: RevisionDefinitions, root: str, moved_back: Dict[str, str]) -> Optional[str]:
    if case.definition is not None:
        rel = os.path.relpath(os.path.abspath(case.definition.path), root)
        rel = moved_back.get(rel, rel)
        if rel in revision.files:
            return rel
        if case.kind == "recording":
            return revision.repo_path(revision.index.by_basename.get(os.path.basename(rel)))
        if case.definition.name in revision.index.by_name:
            return revision.repo_path(revision.index.by_name[case.definition.name])
    return revision.repo_path(revision.index.find(object_gvk(case.object)))


def _definition_changes(base: RevisionDefinitions, head: RevisionDefinitions, moved: Dict[str, str]) -> List[Dict[str, Any]]:
    out = []
    for path in sorted(set(base.files) | set(head.files)):
        if path in moved and moved[path] in head.files:
            status, head_path = "renamed", moved[path]
        elif path in moved.values():
            continue  # reported under its base path
        elif path not in base.files:
            status, head_path = "added", path
        elif path not in head.files:
            status, head_path = "deleted", None
        else:
            # comments and formatting do not count: only a change of the parsed definition does
            status, head_path = ("modified" if base.files[path][1] != head.files[path][1] else "unchanged"), path
        if status == "unchanged":
            continue
        base_lint = lint_keys(path, base.files[path][0]) if path in base.files else []
        head_lint = lint_keys(head_path, head.files[head_path][0]) if head_path else []
        out.append({"path": path, "headPath": head_path, "status": status,
                    "expressions": expression_changes(base.files[path][1] if path in base.files else None,
                                                      head.files[head_path][1] if head_path else None),
                    "lint": {"new": [f"{r} at {p}: {m}" for r, p, m in head_lint if (r, p, m) not in base_lint],
                             "fixed": [f"{r} at {p}: {m}" for r, p, m in base_lint if (r, p, m) not in head_lint]}})
    return out


def _expressions(definition: Any) -> Dict[Tuple[str, str], str]:
    """``{(component or "gang", field path inside it): jq text}``, keyed by component name so
    that reordering components is no change."""
    if definition is None:
        return {}
    owners = sorted(((c.path, str(c.name)) for c in karta.components(definition)), key=lambda item: -len(item[0]))
    out = {}
    for jq_field in karta.jq_fields(definition):
        for path, name in owners:
            if tuple(jq_field.path[: len(path)]) == tuple(path):
                out[(name, format_path(jq_field.path[len(path):]))] = jq_field.expression
                break
        else:
            out[("gang", format_path(jq_field.path[3:]))] = jq_field.expression
    return out


def expression_changes(base: Any, head: Any) -> List[Dict[str, Any]]:
    """The jq fields whose expression differs between two versions of a definition."""
    before, after = _expressions(base), _expressions(head)
    return [{"component": key[0], "field": key[1], "before": before.get(key), "after": after.get(key)}
            for key in sorted(set(before) | set(after)) if before.get(key) != after.get(key)]


def _tree(view: Optional[WorkloadView], changes: List[Dict[str, Any]]) -> Dict[str, Any]:
    """The role tree of a workload with the changed components marked (for the mermaid chart)."""
    if view is None:
        return {}
    changed = {c["component"] for c in changes if c.get("component")}
    return {"nodes": [{"name": c.name, "owner": c.owner, "instances": [i.id for i in c.instances if i.id],
                       "replicas": sum(i.desired or 0 for i in c.instances), "changed": c.name in changed}
                      for c in view.components]}
