"""Lint findings as LSP diagnostics, and the code actions that fix them mechanically.

A diagnostic carries the rule id as ``code``, the rule's documentation as ``codeDescription``,
the finding's hint as related information, and the finding itself as ``data`` (so a code action
knows what to change). Fixes are text edits of the finding's own range, or of its line's end
(an inline suppression comment); the rest of the file is left byte for byte.
"""

from __future__ import annotations

import pathlib
import re
from typing import Any

import yaml
from lsprotocol import types

from kartalint.lsp.document import OpenFile, utf16_length
from kartalint.model import Finding, Severity
from kartalint.report.sarif import RULES_DOC
from kartalint.rules.crd_paths import PATH_NOT_IN_CRD
from kartalint.rules.karta_schema import UNKNOWN_FIELD
from kartalint.rules.suppress import DIRECTIVE, scan

SEVERITIES = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}
_REPLACEMENT_HINTS = (
    re.compile(r"^write (\[\]\?) here"),  # crd-optional-iteration: [] -> []?
    re.compile(r"^write (\(.*\))$"),  # crd-optional-arithmetic: write (.a.b // 1)
    re.compile(r"^give it a default, e\.g\. (\(.*\))$"),  # arithmetic on an absent path
)
_DID_YOU_MEAN = re.compile(r"^did you mean '([^']+)'")
_MISSING_FIELD = re.compile(r"has no field '([^']+)'")


def to_range(open_file: OpenFile, finding: Finding) -> types.Range:
    """The editor's range of ``finding`` (UTF-16 columns, 0-based)."""
    start = open_file.position(finding.line, finding.column)
    end = open_file.position(finding.end_line, finding.end_column)
    return types.Range(types.Position(*start), types.Position(*end))


def diagnostics(open_file: OpenFile, uri: str) -> list[types.Diagnostic]:
    """The diagnostics of the findings of ``open_file``."""
    return [diagnostic(open_file, finding, uri) for finding in open_file.findings]


def diagnostic(open_file: OpenFile, finding: Finding, uri: str) -> types.Diagnostic:
    """``finding`` as a diagnostic: its rule, severity and message, its hint as related information, and the data
    its fixes are made from."""
    where = to_range(open_file, finding)
    related = (
        [types.DiagnosticRelatedInformation(types.Location(uri, where), f"fix: {finding.hint}")]
        if finding.hint
        else None
    )
    return types.Diagnostic(
        range=where,
        message=finding.message,
        severity=SEVERITIES.get(finding.severity, types.DiagnosticSeverity.Warning),
        code=finding.rule,
        code_description=types.CodeDescription(href=documentation(open_file, finding.rule)),
        source="kartalint",
        related_information=related,
        data={"rule": finding.rule, "hint": finding.hint, "message": finding.message},
    )


def documentation(open_file: OpenFile, rule_id: str) -> str:
    """Where a rule is documented: docs/rules.md, or for a house rule the place in the
    configuration file that declares it."""
    house = open_file.config.house_rules.get(rule_id)
    if house is None:
        return f"{RULES_DOC}#{rule_id}"

    return f"{pathlib.Path(house.source).absolute().as_uri()}#L{house.at[0]}"


def code_actions(open_file: OpenFile, uri: str, wanted: list[types.Diagnostic]) -> list[types.CodeAction]:
    """The quick fixes of the diagnostics ``wanted``: each hint that says what to write, and a suppression comment
    for the line."""
    actions: list[types.CodeAction] = []
    for diagnostic in wanted:
        data: Any = diagnostic.data if isinstance(diagnostic.data, dict) else {}
        rule = str(diagnostic.code or data.get("rule") or "")
        if not rule:
            continue
        hint = str(data.get("hint") or "")
        fix = _replacement(open_file, diagnostic.range, rule, hint, str(data.get("message") or diagnostic.message))
        if fix is not None:
            title, new_text = fix
            actions.append(_action(title, uri, diagnostic, diagnostic.range, new_text, preferred=True))
        suppression = _suppression(open_file, diagnostic.range, rule)
        if suppression is not None:
            where, new_text = suppression
            actions.append(_action(f"Silence {rule} on this line", uri, diagnostic, where, new_text))
    return actions


def _action(
    title: str, uri: str, diagnostic: types.Diagnostic, where: types.Range, new_text: str, preferred: bool = False
) -> types.CodeAction:
    return types.CodeAction(
        title=title,
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diagnostic],
        is_preferred=preferred or None,
        edit=types.WorkspaceEdit(changes={uri: [types.TextEdit(range=where, new_text=new_text)]}),
    )


def _text_in(open_file: OpenFile, where: types.Range) -> str:
    start = open_file.offset((where.start.line, where.start.character))
    end = open_file.offset((where.end.line, where.end.character))
    return open_file.text[start:end]


def _replacement(open_file: OpenFile, where: types.Range, rule: str, hint: str, message: str) -> tuple[str, str] | None:
    """(title, the finding range's new text) when the hint names the fix exactly."""
    current = _text_in(open_file, where)
    for pattern in _REPLACEMENT_HINTS:
        match = pattern.match(hint)
        if match and current and current in match.group(1):
            return f"Write {match.group(1)}", match.group(1)
    match = _DID_YOU_MEAN.match(hint)
    if match is None:
        return None
    better = match.group(1)
    if rule == UNKNOWN_FIELD and current and "\n" not in current:
        return f"Rename to '{better}'", better
    missing = _MISSING_FIELD.search(message)
    if rule == PATH_NOT_IN_CRD and missing and current.count(missing.group(1)) >= 1:
        head, _, tail = current.rpartition(missing.group(1))
        return f"Read '{better}' instead of '{missing.group(1)}'", head + better + tail
    return None


def _suppression(open_file: OpenFile, where: types.Range, rule: str) -> tuple[types.Range, str] | None:
    """An inline ``# kartalint: disable=RULE`` at the end of the finding's line, where a comment
    can go: not inside a block scalar, a multi-line or an unclosed quoted string."""
    line = where.start.line
    text = open_file.line_text(line)
    if _inside_block_or_open_quote(open_file, line):
        return None
    end = types.Position(line, utf16_length(text))
    written = scan(text)[0]  # a directive that is one (a malformed one silences nothing: one is added after it)
    match = re.compile(DIRECTIVE).match(text, written[0].column - 1) if written else None
    if match and match.group(1) == "disable":
        if match.group(2) is None:  # `# kartalint: disable` silences every rule there already
            return None
        rules = [r.strip() for r in match.group(2).split(",")]
        if rule in rules:
            return None
        start = types.Position(line, utf16_length(text[: match.start(2)]))
        stop = types.Position(line, utf16_length(text[: match.end(2)]))
        return types.Range(start, stop), ",".join([*rules, rule])
    return types.Range(end, end), f"  # kartalint: disable={rule}"


def _inside_block_or_open_quote(open_file: OpenFile, line: int) -> bool:
    """Whether ``line`` (from 0) is inside a scalar written over several lines, where a ``#``
    would become part of the value (a block scalar's ``key: |`` line itself is fine)."""

    for document in open_file.source.documents:
        stack = [document.node] if document.node is not None else []
        while stack:
            node = stack.pop()
            if isinstance(node, yaml.MappingNode):
                stack.extend(v for pair in node.value for v in pair)
            elif isinstance(node, yaml.SequenceNode):
                stack.extend(node.value)
            elif isinstance(node, yaml.ScalarNode):
                first = node.start_mark.line
                last = node.end_mark.line - (1 if node.end_mark.column == 0 and node.end_mark.line > first else 0)
                if first == last or not first <= line <= last:
                    continue
                if node.style in ("|", ">") and line == first:
                    continue
                return True
    return False
