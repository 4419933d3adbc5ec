"""``kartalint rules --check``: each house rule's (and plugin rule's) examples checked, as text, JSON
(``schemaVersion: 1``) or GitHub workflow commands (an annotation at each problem's place)."""

from __future__ import annotations

import json

from kartalint.lint.house_check import CheckRun
from kartalint.report.escape import visible
from kartalint.report.github import escape_data, escape_property, workflow_file

_LABEL = {"passed": "PASS", "failed": "FAIL", "no-examples": "NO EXAMPLES"}


def _place(file: str, line: int, column: int) -> str:
    return f"{file}:{line}:{column}" if line else file


def render_text(run: CheckRun) -> str:
    """One line per rule (PASS, FAIL, NO EXAMPLES, where it is declared; with ``-q`` FAIL lines alone),
    each problem under it at its place, then the summary."""
    lines = []
    for check in run.shown():
        lines.append(f"{_LABEL[check.outcome]} {check.rule.id} ({check.declared})")
        for problem in check.problems:
            lines.append(f"    {_place(problem.file, problem.line, problem.column)}: {problem.message}")
    lines.append(run.summary())
    return "".join(visible(line) + "\n" for line in lines)


def render_json(run: CheckRun) -> str:
    """``{"schemaVersion": 1, "rules": [{id, origin, declared, outcome, bad, good, marked,
    problems: [{file, line, column, message}]}], "summary"}``."""
    rules = [
        {
            "id": check.rule.id,
            "origin": check.rule.origin,
            "declared": check.declared,
            "outcome": check.outcome,
            "bad": check.bad,
            "good": check.good,
            "marked": check.marked or None,
            "problems": [
                {"file": p.file, "line": p.line, "column": p.column, "message": p.message} for p in check.problems
            ],
        }
        for check in run.checks
    ]
    return json.dumps({"schemaVersion": 1, "rules": rules, "summary": run.summary()}, indent=2) + "\n"


def render_github(run: CheckRun) -> str:
    """An ``::error`` annotation at the place of each problem, titled with the rule."""
    out = []
    for check in run.checks:
        for problem in check.problems:
            props = [f"file={escape_property(workflow_file(problem.file))}"]
            if problem.line:
                props += [f"line={problem.line}", f"col={max(1, problem.column)}"]
            props.append(f"title={escape_property('kartalint rules --check ' + check.rule.id)}")
            out.append(f"::error {','.join(props)}::{escape_data(problem.message)}\n")
    return "".join(out)
