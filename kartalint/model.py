"""Immutable records shared by every stage: severities, source spans, findings and rules."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

PathElement = str | int
Path = tuple[PathElement, ...]


class Severity(enum.IntEnum):
    """Finding severity; ordered so that ``max()`` gives the worst."""

    INFO = 1
    WARNING = 2
    ERROR = 3

    def __str__(self) -> str:  # "error", "warning", "info"
        """The severity as written: "error", "warning" or "info"."""
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Severity:
        """The severity ``text`` names (any case), or ``ValueError``."""
        try:
            return cls[str(text).strip().upper()]
        except KeyError:
            raise ValueError(f"unknown severity {text!r} (expected error, warning or info)") from None


@dataclass(frozen=True, order=True)
class Span:
    """A 1-based, end-exclusive region of a source file."""

    line: int
    column: int
    end_line: int
    end_column: int

    @classmethod
    def point(cls, line: int, column: int) -> Span:
        """A span of one character at ``line``, ``column``."""
        return cls(line, column, line, column + 1)


@dataclass(frozen=True, order=True)
class Finding:
    """One problem at one place. Equality covers every field (message and severity included)."""

    file: str
    line: int
    column: int
    end_line: int
    end_column: int
    rule: str
    severity: Severity
    message: str
    path: Path = field(default=())
    hint: str = ""

    def to_dict(self) -> dict:
        """The finding as the JSON report writes it."""
        return {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "endLine": self.end_line,
            "endColumn": self.end_column,
            "rule": self.rule,
            "severity": str(self.severity),
            "message": self.message,
            "path": list(self.path),
            "hint": self.hint,
        }


def format_path(path: Path) -> str:
    """Render a path as ``spec.structureDefinition.childComponents[0].name``."""
    out = []
    for element in path:
        if isinstance(element, int):
            out.append(f"[{element}]")
        elif out:
            out.append("." + element if _plain_key(element) else f"[{element!r}]")
        else:
            out.append(element if _plain_key(element) else f"[{element!r}]")
    return "".join(out)


def _plain_key(key: str) -> bool:
    return bool(key) and all(ch.isalnum() or ch in "_-" for ch in key)


@dataclass(frozen=True)
class Rule:
    """A rule: a stable id, a default severity, a category, a one-line summary (the doc line of
    ``kartalint rules``), the fix hint findings carry by default, and why the rule exists; a house
    rule (``house-rules:`` of the configuration) or a plugin's rule says where it comes from
    (``origin``).

    Each module declares the rules it reports (``RULES``); ``kartalint.rules.registry`` collects
    them and finds their bad and good examples in ``kartalint/rules/examples/<id>/``."""

    id: str
    severity: Severity
    category: str
    summary: str
    hint: str = ""
    why: str = ""
    security_severity: str = ""  # CVSS-like score for code scanning ("" when the rule is not about security)
    origin: str = ""  # where a rule not of kartalint's own comes from: a house rule's configuration file, a plugin
