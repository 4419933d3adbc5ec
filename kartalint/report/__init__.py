"""Stage 5: output formats, plug-ins over one findings model (``REPORTERS`` by name)."""

from __future__ import annotations

import os
from typing import IO

from kartalint.report.base import Reporter
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
