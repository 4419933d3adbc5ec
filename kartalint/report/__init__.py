"""Stage 5: output formats, plug-ins with one lifecycle (``kartalint.report.base``).

``REPORTERS``: the lint formats by name, over the findings model. ``DOCUMENTS``: the formats of
the other commands' documents (``diff``, ``describe``, ``catalog``, ``rules``), each a render
function loaded when used (so a one-file lint does not import them).
"""

from __future__ import annotations

import importlib
import io
import os
from typing import IO, Any

from kartalint.report.base import DocumentReporter, Reporter
from kartalint.report.github import GithubReporter
from kartalint.report.json import JsonReporter
from kartalint.report.sarif import SarifReporter
from kartalint.report.text import TextReporter

REPORTERS: dict[str, type[Reporter]] = {
    cls.name: cls for cls in (TextReporter, JsonReporter, GithubReporter, SarifReporter)
}


def make_reporter(name: str, stream: IO[str], color: bool = False, root: str | None = None) -> Reporter:
    """``auto`` picks ``github`` inside GitHub Actions and ``text`` elsewhere."""
    if name == "auto":
        name = "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
    return REPORTERS[name](stream, color=color, root=root)


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


def make_document_reporter(kind: str, fmt: str, stream: IO[str]) -> DocumentReporter:
    module, _, function = DOCUMENTS[kind][fmt].partition(":")
    return DocumentReporter(stream, getattr(importlib.import_module(module), function), f"{kind}:{fmt}")


def render_document(kind: str, fmt: str, whole: Any) -> str:
    """The text of a document in one of its formats (the reporter's lifecycle, into a string)."""
    buffer = io.StringIO()
    make_document_reporter(kind, fmt, buffer).report(whole)
    return buffer.getvalue()
