"""A baseline of lint findings, for adopting kartalint in a repository that already has some:
``kartalint lint --write-baseline FILE`` records today's findings, ``--baseline FILE`` reports
only the findings that are not in it.

A finding is recorded by a fingerprint that survives edits elsewhere in the file: its rule, its
file relative to the project root, the YAML path of the value it is about and its message, never
its line. The same fingerprint may be recorded several times (two identical findings); each
recorded entry absorbs one finding. Entries of a checked file that no finding matches any more
are *stale* (fixed since): counted, so the baseline can be rewritten.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Sequence

from kartalint.errors import UsageError
from kartalint.lint.result import LintResult
from kartalint.load.bounded import ParseError, json_loads
from kartalint.load.confinement import ReadRefused, read_confined
from kartalint.model import Finding, Record, format_path

SCHEMA_VERSION = 1


def _relative(path: str, root: str) -> str:
    rel = os.path.relpath(os.path.abspath(path), root) if path not in ("-", "<stdin>") else path
    return rel.replace(os.sep, "/")


def fingerprint(finding: Finding, root: str) -> str:
    """A finding's identity in a baseline: rule, file relative to ``root``, path and message."""
    import hashlib  # (OpenSSL's: loaded when a baseline is used, not by every lint's start-up)

    key = "\0".join((finding.rule, _relative(finding.file, root), format_path(finding.path), finding.message))
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:20]


def render(findings: Sequence[Finding], root: str) -> str:
    """The baseline document of ``findings`` (JSON, ``schemaVersion`` 1)."""
    entries = sorted(
        (
            {
                "fingerprint": fingerprint(f, root),
                "rule": f.rule,
                "file": _relative(f.file, root),
                "line": f.line,
                "message": f.message,
            }
            for f in findings
        ),
        key=lambda e: (e["file"], e["line"], e["rule"], e["fingerprint"]),
    )
    return json.dumps({"schemaVersion": SCHEMA_VERSION, "tool": "kartalint", "findings": entries}, indent=2) + "\n"


class Baseline(Record):
    """The findings of a baseline file, as fingerprints counted, with their files."""

    __slots__ = ("counts", "files")
    counts: Counter  # fingerprint -> entries
    files: dict[str, str]  # fingerprint -> file (relative to the root)

    def __init__(self, counts: Counter, files: dict[str, str]) -> None:
        """The baseline of ``counts`` fingerprints, each in one of ``files``."""
        self.counts = counts
        self.files = files

    @classmethod
    def read(cls, path: str, root: str | None = None, given_as: str | None = None) -> Baseline:
        """The baseline of the file at ``path`` (``read``)."""
        return read(path, root, given_as)

    def filter(self, findings: Sequence[Finding], root: str, checked: Sequence[str]) -> tuple[list[Finding], int, int]:
        """(findings not in the baseline, findings absorbed by it, stale entries of the checked files)."""
        left = Counter(self.counts)
        new, absorbed = [], 0
        for finding in findings:
            key = fingerprint(finding, root)
            if left[key] > 0:
                left[key] -= 1
                absorbed += 1
            else:
                new.append(finding)
        files = {_relative(path, root) for path in checked}
        stale = sum(n for key, n in left.items() if n > 0 and self.files.get(key) in files)
        return new, absorbed, stale


MAX_BASELINE_BYTES = 64 * 1024 * 1024


def read(path: str, root: str | None = None, given_as: str | None = None) -> Baseline:
    """The baseline of the file at ``path``, however it was named (``--baseline``, the
    configuration, the environment): the one reader of baselines. The file must resolve inside the
    project ``root`` or the folder ``path`` names (a committed symbolic link to ``/dev/zero`` or a
    file outside is refused, never read), be a regular file of at most ``MAX_BASELINE_BYTES``, and
    JSON within the bounded parser's depth and number limits; a ``UsageError`` naming the file (and
    the place) otherwise, and ``given_as`` (how the user named it: the configuration's key, the
    environment variable) when the file cannot be read at all."""

    folders = [os.path.dirname(os.path.abspath(path)), *([root] if root else [])]
    try:
        raw = read_confined(path, folders, MAX_BASELINE_BYTES, "the baseline")
    except ReadRefused as exc:
        if given_as:
            raise UsageError(f"{given_as}: {str(exc)[len(exc.path) + 2 :]}") from None
        raise UsageError(f"baseline {exc}") from None
    try:
        data = json_loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise UsageError(f"baseline {path}: not a kartalint baseline (not UTF-8 at byte {exc.start})") from None
    except ParseError as exc:
        raise UsageError(f"baseline {exc.where(path)} (not a kartalint baseline)") from None
    entries = data.get("findings") if isinstance(data, dict) else None
    if (
        not isinstance(data, dict)
        or data.get("schemaVersion") != SCHEMA_VERSION
        or not isinstance(entries, list)
        or not all(isinstance(e, dict) and isinstance(e.get("fingerprint"), str) for e in entries)
    ):
        raise UsageError(
            f"{path}: not a kartalint baseline (schemaVersion {SCHEMA_VERSION} with a list of findings, "
            "each with a fingerprint; `kartalint lint --write-baseline FILE` writes one)"
        )
    return Baseline(Counter(e["fingerprint"] for e in entries), {e["fingerprint"]: str(e.get("file")) for e in entries})


def apply(result: LintResult, baseline: Baseline, root: str) -> None:
    """``--baseline``: the findings of ``result`` not in ``baseline`` (``root``: the project's, to
    which recorded files are relative); the absorbed ones and the stale entries are counted."""
    result.findings, result.baselined, result.stale = baseline.filter(
        result.findings, root, [*result.checked, *result.templates]
    )
