"""Stage 5: output formats, plug-ins with one lifecycle (``kartalint.report.base``).

``REPORTERS``: the lint formats by name, over the findings model. ``DOCUMENTS``: the formats of
the other commands' documents (``diff``, ``describe``, ``catalog``, ``rules``), each a render
function loaded when used (so a one-file lint does not import them). ``SUMMARIES`` and
``COMPARISONS``: the streamed formats of ``describe --summary`` (and ``--compare``).
"""

from __future__ import annotations

import importlib
import io
import os
from typing import IO, Any

from kartalint.report.base import DocumentReporter, Lifecycle, Reporter

# The lint formats: name -> "module:class", loaded when used (SARIF's imports are not free).
REPORTERS: dict[str, str] = {
    "text": "kartalint.report.text:TextReporter",
    "json": "kartalint.report.json:JsonReporter",
    "github": "kartalint.report.github:GithubReporter",
    "sarif": "kartalint.report.sarif:SarifReporter",
}


def reporter_class(name: str) -> type[Reporter]:
    module, _, cls = REPORTERS[name].partition(":")
    found: type[Reporter] = getattr(importlib.import_module(module), cls)
    return found


def format_name(name: str) -> str:
    """``auto`` is ``github`` inside GitHub Actions and ``text`` elsewhere."""
    if name == "auto":
        return "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
    return name


def make_reporter(name: str, stream: IO[str], color: bool = False, root: str | None = None) -> Reporter:
    """``auto`` picks ``github`` inside GitHub Actions and ``text`` elsewhere."""
    return reporter_class(format_name(name))(stream, color=color, root=root)


DOCUMENTS: dict[str, dict[str, str]] = {
    "diff": {
        "text": "kartalint.report.diff:render_text",
        "json": "kartalint.report.diff:render_json",
        "markdown": "kartalint.report.diff:render_markdown",
    },
    "describe": {
        "tree": "kartalint.report.describe:render_trees",
        "json": "kartalint.report.describe:render_json",
        "yaml": "kartalint.report.describe:render_yaml",
    },
    "catalog": {
        "text": "kartalint.report.catalog:render_text",
        "json": "kartalint.report.catalog:render_json",
        "markdown": "kartalint.report.catalog:render_markdown",
    },
    "rules": {
        "text": "kartalint.report.rules_doc:render_text",
        "json": "kartalint.report.rules_doc:render_json",
        "markdown": "kartalint.report.rules_doc:render_markdown",
    },
}


# `describe --summary`: lifecycles over a FleetSummary that write each row as it is evaluated, and
# with `--compare FILE` what differs from the user's figures; name -> "module:class".
SUMMARIES: dict[str, str] = {
    "table": "kartalint.report.summary:TableSummary",
    "csv": "kartalint.report.summary:CsvSummary",
    "json": "kartalint.report.summary:JsonSummary",
    "markdown": "kartalint.report.summary:MarkdownSummary",
}
COMPARISONS: dict[str, str] = {
    "table": "kartalint.report.summary_compare:TableComparison",
    "csv": "kartalint.report.summary_compare:CsvComparison",
    "json": "kartalint.report.summary_compare:JsonComparison",
    "markdown": "kartalint.report.summary_compare:MarkdownComparison",
}


def make_summary_reporter(fmt: str, stream: IO[str], comparison: Any = None) -> Lifecycle:
    """The summary format ``fmt``, or with ``comparison`` (a ``diff.figures.Comparison``) the
    format of what differs."""
    module, _, cls = (COMPARISONS if comparison is not None else SUMMARIES)[fmt].partition(":")
    found = getattr(importlib.import_module(module), cls)
    reporter: Lifecycle = found(stream, comparison) if comparison is not None else found(stream)
    return reporter


def make_document_reporter(kind: str, fmt: str, stream: IO[str]) -> DocumentReporter:
    module, _, function = DOCUMENTS[kind][fmt].partition(":")
    return DocumentReporter(stream, getattr(importlib.import_module(module), function), f"{kind}:{fmt}")


def render_document(kind: str, fmt: str, whole: Any) -> str:
    """The text of a document in one of its formats (the reporter's lifecycle, into a string)."""
    buffer = io.StringIO()
    make_document_reporter(kind, fmt, buffer).report(whole)
    return buffer.getvalue()
