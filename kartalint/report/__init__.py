"""Stage 5: output formats, plug-ins with one lifecycle (``kartalint.report.base``), registered
here, the one registry of formats: each command's ``--format`` choices come from it
(``format_choices``).

``REPORTERS``: the lint formats by name, over the findings model. ``TEST_REPORTERS``: the formats
of ``kartalint test``, over a test run. ``DOCUMENTS``: the formats of the other commands'
documents (``diff``, ``describe``, ``catalog``, ``rules``, ``explore``, ``new --crd``'s review),
each a render function. ``SUMMARIES`` and ``COMPARISONS``: the streamed formats of ``describe
--summary`` (and ``--compare``). Each is loaded when used (so a one-file lint does not import the
others).
"""

from __future__ import annotations

import io
import os
import sys

from kartalint.report.base import DocumentReporter, Reporter, TestReporter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO, Any

    from kartalint.report.summary import SummaryReporter

# The lint formats: name -> "module:class", loaded when used (SARIF's imports are not free).
REPORTERS: dict[str, str] = {
    "text": "kartalint.report.text:TextReporter",
    "json": "kartalint.report.json:JsonReporter",
    "github": "kartalint.report.github:GithubReporter",
    "sarif": "kartalint.report.sarif:SarifReporter",
}


# The formats of `kartalint test`: name -> "module:class".
TEST_REPORTERS: dict[str, str] = {
    "text": "kartalint.report.tests:TextTestReporter",
    "json": "kartalint.report.tests:JsonTestReporter",
    "junit": "kartalint.report.junit:JUnitTestReporter",
    "github": "kartalint.report.tests:GithubTestReporter",
    "sarif": "kartalint.report.tests:SarifTestReporter",
}


def _load(spec: str) -> Any:
    module, _, name = spec.partition(":")
    __import__(module)  # (importlib is not on a one-file lint's path)
    return getattr(sys.modules[module], name)


def reporter_class(name: str) -> type[Reporter]:
    """The lint format ``name`` (a key of ``REPORTERS``)."""
    found: type[Reporter] = _load(REPORTERS[name])
    return found


def test_reporter_class(name: str) -> type[TestReporter]:
    """The test format ``name`` (a key of ``TEST_REPORTERS``)."""
    found: type[TestReporter] = _load(TEST_REPORTERS[name])
    return found


def format_name(name: str) -> str:
    """``auto`` is ``github`` inside GitHub Actions and ``text`` elsewhere."""
    if name == "auto":
        return "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
    return name


def make_reporter(name: str, stream: IO[str], color: bool = False, project_root: str | None = None) -> Reporter:
    """The lint format ``name``; ``auto`` picks ``github`` inside GitHub Actions and ``text`` elsewhere."""
    return reporter_class(format_name(name))(stream, color=color, project_root=project_root)


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
    "rules-check": {  # `kartalint rules --check`: house rules on their examples
        "text": "kartalint.report.rules_check:render_text",
        "json": "kartalint.report.rules_check:render_json",
        "github": "kartalint.report.rules_check:render_github",
    },
    "explore": {
        "text": "kartalint.report.explore:render_text",
        "json": "kartalint.report.explore:render_json",
        "sarif": "kartalint.report.explore_ci:render_sarif",
        "junit": "kartalint.report.explore_ci:render_junit",
    },
    "new": {  # `new --crd`'s review of its drafts (the text: notes on standard error)
        "text": "kartalint.report.drafts:render_text",
        "json": "kartalint.report.drafts:render_json",
    },
}


# `describe --summary`: lifecycles over a FleetSummary that write each row as it is evaluated, and
# with `--compare FILE` what differs from the user's figures; name -> "module:class".
SUMMARIES: dict[str, str] = {
    "table": "kartalint.report.summary:TableSummary",
    "csv": "kartalint.report.summary_data:CsvSummary",
    "json": "kartalint.report.summary_data:JsonSummary",
    "markdown": "kartalint.report.summary:MarkdownSummary",
}
COMPARISONS: dict[str, str] = {
    "table": "kartalint.report.summary_compare:TableComparison",
    "csv": "kartalint.report.summary_compare:CsvComparison",
    "json": "kartalint.report.summary_compare:JsonComparison",
    "markdown": "kartalint.report.summary_compare:MarkdownComparison",
}


def format_choices(command: str) -> list[str]:
    """The ``--format`` choices of ``command``, in the order its help lists them."""
    if command == "lint":
        return ["auto", *sorted(REPORTERS)]
    if command == "test":
        return list(TEST_REPORTERS)
    if command == "describe":  # a workload's document, or with --summary the fleet's
        return list(dict.fromkeys([*DOCUMENTS["describe"], *SUMMARIES]))
    if command == "rules":  # the rules, or with --check what their examples gave
        return list(dict.fromkeys([*DOCUMENTS["rules"], *DOCUMENTS["rules-check"]]))
    return list(DOCUMENTS[command])


def make_summary_reporter(fmt: str, stream: IO[str], comparison: Any = None, explain: bool = False) -> SummaryReporter:
    """The summary format ``fmt``, or with ``comparison`` (a ``diff.figures_compare.Comparison``) the
    format of what differs; ``explain``: say which workloads count as active (``--explain``)."""
    found = _load((COMPARISONS if comparison is not None else SUMMARIES)[fmt])
    reporter: SummaryReporter = found(stream, comparison, explain) if comparison is not None else found(stream, explain)
    return reporter


def make_document_reporter(kind: str, fmt: str, stream: IO[str]) -> DocumentReporter:
    """The document of ``kind`` (a key of ``DOCUMENTS``: ``diff``, ``describe``, ...) in format ``fmt``."""
    return DocumentReporter(stream, _load(DOCUMENTS[kind][fmt]), f"{kind}:{fmt}")


def render_document(kind: str, fmt: str, whole: Any) -> str:
    """The text of a document in one of its formats (the reporter's lifecycle, into a string)."""
    buffer = io.StringIO()
    make_document_reporter(kind, fmt, buffer).report(whole)
    return buffer.getvalue()
