"""``kartalint diff``: what a definition change does to every fixture and recording.

Cases are discovered in the working tree; each is evaluated with its definition as it is at the
base revision and at the head (default: the working tree), the two views are summarised
(statuses, roles and replicas, resources, gang groups, extraction errors) and compared. Lint
findings of every changed definition are compared too (new and fixed, positions ignored).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from kartalint import karta
from kartalint.diff.summary import compare_summaries, summarize
from kartalint.evaluation import Evaluator, WorkloadView
from kartalint.lint import lint_source
from kartalint.load.definitions import DefinitionFile, DefinitionIndex, object_gvk
from kartalint.load.discovery import missing_reason
from kartalint.load.documents import load_text
from kartalint.load.git import Revision, renames
from kartalint.model import Severity, format_path
from kartalint.project import Config, Project
from kartalint.testing.cases import Case, Confinement, discover

SCHEMA_VERSION = 1


@dataclass
class RevisionDefinitions:
    """The definitions of one revision: texts by repo path, and a ``DefinitionIndex`` of them
    (entries carry absolute paths, as in the working tree, so cases resolve against it).
    ``named``: definition files outside the project's selection that a fixture names by
    ``definition:`` (read at this revision, never found by name or GVK)."""

    revision: Revision
    files: dict[str, tuple[str, dict]]  # repo path -> (text, data)
    named: dict[str, tuple[str, dict]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """Index the revision's definitions, under their paths in the working tree."""
        root = self.revision.root
        self.index = DefinitionIndex(searched=[f"{self.revision.label} of {root}"])
        for path, (_, data) in self.files.items():
            self.index.add_definition(os.path.join(root, path), data, "revision")

    def data(self, path: str) -> dict:
        """The data of the definition at repo path ``path``."""
        return (self.files.get(path) or self.named[path])[1]

    def has(self, path: str) -> bool:
        """Whether the revision has a definition at repo path ``path``."""
        return path in self.files or path in self.named

    def repo_path(self, entry: DefinitionFile | None) -> str | None:
        """The repo path of ``entry`` (None for none)."""
        return os.path.relpath(entry.path, self.revision.root) if entry is not None else None


def lint_keys(path: str, text: str, config: Config) -> list[tuple[str, str, str]]:
    """What lint reports (warnings and errors) on a definition file's text at one revision, by rule,
    path and message (positions left out: a line moved is no change; a finding on the whole
    definition, a house rule's of `for-each: definition`, is at "the document")."""
    findings = lint_source(load_text(text, path), config, strict_files=True).findings
    return sorted(
        {(f.rule, format_path(f.path) or "the document", f.message) for f in findings if f.severity >= Severity.WARNING}
    )


@dataclass
class DiffReport:
    """What ``kartalint diff`` found between ``base`` and ``head``: the changes of each case, each definition file
    added, deleted, renamed or modified (with what lint says new or no more), the cases compared and the problems
    met."""

    base: str
    head: str
    changes: list[dict[str, Any]] = field(default_factory=list)
    definitions: list[dict[str, Any]] = field(default_factory=list)
    cases: int = 0
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # Go/Helm templates skipped

    def exit_code(self, fail_on_change: bool = False) -> int:
        """The exit code of ``kartalint diff``: 2 for a problem (a fixture or a definition that cannot
        be read), 1 for a change with ``fail_on_change``, else 0."""
        if self.problems:
            return 2
        return 1 if fail_on_change and (self.changes or self.definitions) else 0

    def to_dict(self) -> dict[str, Any]:
        """The report as ``--format json`` writes it (``schemaVersion`` 1)."""
        return {
            "schemaVersion": SCHEMA_VERSION,
            "base": self.base,
            "head": self.head,
            "cases": self.cases,
            "changes": self.changes,
            "definitions": self.definitions,
            "problems": self.problems,
            "warnings": self.warnings,
            "notes": self.notes,
        }


def run_diff(
    root: str,
    base_ref: str,
    head_ref: str | None,
    paths: list[str],
    project: Project,
    *,
    timeout: float = 10.0,
    confinement: Confinement | None = None,
) -> DiffReport:
    """Evaluate the cases under ``paths`` with the definitions at both revisions. Only the
    ``project``'s definition files count (``definitions:``, ``exclude``, templates skipped), as for
    lint and test; a file outside them is never read, so never a problem. Lint changes are linted
    with the project's configuration."""
    base_rev, head_rev = Revision(root, base_ref), Revision(root, head_ref)

    def select(rel: str) -> bool:
        return bool(project.selects_definition(os.path.join(root, rel)))

    base = RevisionDefinitions(base_rev, base_rev.definitions(select))
    head = RevisionDefinitions(head_rev, head_rev.definitions(select))
    moved = renames(root, base.revision, head.revision)  # base path -> head path
    moved_back = {v: k for k, v in moved.items()}
    report = DiffReport(base=base.revision.label, head=head.revision.label)
    report.definitions = _definition_changes(base, head, moved, root, project.config)
    found = discover(paths, head.index, project.fixture_roots(), confinement, excluded=project.excluded)  # at head
    named = {
        os.path.relpath(os.path.abspath(c.definition.path), root)
        for c in found.cases
        if c.definition is not None and c.definition.origin == "explicit"
    }
    for revision in (base, head):  # what fixtures name by `definition:`, outside the selection
        wanted = {p for p in named if not revision.has(p)}
        if wanted:
            revision.named = revision.revision.definitions(wanted.__contains__)
    report.problems.extend(base_rev.problems + head_rev.problems)  # an unreadable definition never looks deleted
    report.warnings.extend(base_rev.warnings + head_rev.warnings)
    report.notes.extend(dict.fromkeys([*base_rev.notes, *head_rev.notes, *found.notes]))
    report.problems.extend(missing_reason(p) for p in found.missing)
    report.cases = len(found.cases)
    readable = []
    for case in found.cases:
        if case.object is None:  # a fixture that cannot be read is an error, never a silent "no change"
            report.problems.extend(f"{case.file}: {problem}" for problem in case.problems)
            continue
        readable.append((case, _resolve(case, base, root, moved_back), _resolve(case, head, root, {})))
    runs = [
        (revision.data(path), case.object, case.pods)
        for case, base_path, head_path in readable
        for revision, path in ((base, base_path), (head, head_path))
        if path
    ]
    with Evaluator(timeout=timeout) as evaluator:
        evaluated = iter(evaluator.evaluate_all(runs))  # in the order of `runs`
    for case, base_path, head_path in readable:
        views = [next(evaluated) if path else None for path in (base_path, head_path)]
        if (base_path and not head_path and base_path in head_rev.unreadable) or (
            head_path and not base_path and head_path in base_rev.unreadable
        ):
            continue  # its definition cannot be read at one side: a problem already, not a change
        changes = compare_summaries(summarize(views[0]), summarize(views[1]))
        if changes:
            report.changes.append(
                {
                    "workload": case.id,
                    "file": case.file,
                    "name": case.name,
                    "definition": head_path or base_path,
                    "baseDefinition": base_path,
                    "changes": changes,
                    "tree": _tree(views[1] or views[0], changes),
                }
            )
    return report


def _resolve(case: Case, revision: RevisionDefinitions, root: str, moved_back: dict[str, str]) -> str | None:
    if case.definition is not None:
        rel = os.path.relpath(os.path.abspath(case.definition.path), root)
        rel = moved_back.get(rel, rel)
        if revision.has(rel):
            return rel
        if case.kind == "recording":
            return revision.repo_path(revision.index.by_basename.get(os.path.basename(rel)))
        if case.definition.name in revision.index.by_name:
            return revision.repo_path(revision.index.by_name[case.definition.name])
    return revision.repo_path(revision.index.find(object_gvk(case.object)))


def _definition_changes(
    base: RevisionDefinitions, head: RevisionDefinitions, moved: dict[str, str], root: str, config: Config
) -> list[dict[str, Any]]:
    out = []
    for path in sorted(set(base.files) | set(head.files)):
        if path in moved and moved[path] in head.files:
            status, head_path = "renamed", moved[path]
        elif path in moved.values():
            continue  # reported under its base path
        elif path not in base.files:
            if path in base.revision.unreadable:  # it was there, unreadable: not added
                out.append(_broken(path, base.revision, path))
                continue
            status, head_path = "added", path
        elif path not in head.files:
            if path in head.revision.unreadable:  # still there, unreadable: not deleted
                out.append(_broken(path, head.revision, None))
                continue
            status, head_path = "deleted", None
        else:
            # comments and formatting do not count: only a change of the parsed definition does
            status, head_path = ("modified" if base.files[path][1] != head.files[path][1] else "unchanged"), path
        if status == "unchanged":
            continue
        base_lint = lint_keys(os.path.join(root, path), base.files[path][0], config) if path in base.files else []
        head_lint = lint_keys(os.path.join(root, head_path), head.files[head_path][0], config) if head_path else []
        out.append(
            {
                "path": path,
                "headPath": head_path,
                "status": status,
                "expressions": expression_changes(
                    base.files[path][1] if path in base.files else None, head.files[head_path][1] if head_path else None
                ),
                "lint": {
                    "new": [f"{r} at {p}: {m}" for r, p, m in head_lint if (r, p, m) not in base_lint],
                    "fixed": [f"{r} at {p}: {m}" for r, p, m in base_lint if (r, p, m) not in head_lint],
                },
            }
        )
    return out


def _broken(path: str, revision: Revision, head_path: str | None) -> dict[str, Any]:
    """A definition file present at both revisions that cannot be read at one of them."""
    return {
        "path": path,
        "headPath": head_path,
        "status": "broken",
        "brokenAt": revision.label,
        "problem": revision.unreadable[path],
        "expressions": [],
        "lint": {"new": [], "fixed": []},
    }


def _expressions(definition: Any) -> dict[tuple[str, str], str]:
    """``{(component or "gang", field path inside it): jq text}``, keyed by component name so
    that reordering components is no change."""
    if definition is None:
        return {}
    owners = sorted(((c.path, str(c.name)) for c in karta.components(definition)), key=lambda item: -len(item[0]))
    out = {}
    for jq_field in karta.jq_fields(definition):
        for path, name in owners:
            if tuple(jq_field.path[: len(path)]) == tuple(path):
                out[(name, format_path(jq_field.path[len(path) :]))] = jq_field.expression
                break
        else:
            out[("gang", format_path(jq_field.path[3:]))] = jq_field.expression
    return out


def expression_changes(base: Any, head: Any) -> list[dict[str, Any]]:
    """The jq fields whose expression differs between two versions of a definition."""
    before, after = _expressions(base), _expressions(head)
    return [
        {"component": key[0], "field": key[1], "before": before.get(key), "after": after.get(key)}
        for key in sorted(set(before) | set(after))
        if before.get(key) != after.get(key)
    ]


def _tree(view: WorkloadView | None, changes: list[dict[str, Any]]) -> dict[str, Any]:
    """The role tree of a workload with the changed components marked (for the mermaid chart)."""
    if view is None:
        return {}
    changed = {c["component"] for c in changes if c.get("component")}
    return {
        "nodes": [
            {
                "name": c.name,
                "owner": c.owner,
                "instances": [i.id for i in c.instances if i.id],
                "replicas": c.desired,
                "changed": c.name in changed,
            }
            for c in view.components
        ]
    }
