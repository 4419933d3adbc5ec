"""Which revision of kartalint is installed, for pinning hooks and the Action (`kartalint init`).

Releases are tagged ``v<version>`` on main (docs/ci.md). A wheel records the commit and tag it was
built from (setup.py writes ``_build_info.json``); an editable install asks git in its checkout.
"""

from __future__ import annotations

import json
import os
import subprocess

from kartalint import __version__

REPOSITORY = "https://github.com/kartalint/kartalint"  # where the hooks and the Action live
ACTION = "kartalint/kartalint"

_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the kartalint package


def _git(*args: str) -> str | None:
    checkout = os.path.dirname(_HERE)
    if not os.path.exists(os.path.join(checkout, ".git")):
        return None
    try:
        out = subprocess.run(["git", *args], cwd=checkout, capture_output=True, text=True, check=False, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 and out.stdout.strip() else None


def build_info() -> dict[str, str | None]:
    """``{"commit", "tag"}`` of the installed kartalint (values may be None)."""
    try:
        with open(os.path.join(_HERE, "_build_info.json"), encoding="utf-8") as handle:
            data = json.load(handle)
        if isinstance(data, dict) and isinstance(data.get("commit"), str):
            return {"commit": data["commit"], "tag": data.get("tag") if isinstance(data.get("tag"), str) else None}
    except (OSError, ValueError):
        pass
    commit = _git("rev-parse", "HEAD")
    return {"commit": commit, "tag": _git("describe", "--tags", "--exact-match", "HEAD") if commit else None}


def libjq_version() -> str | None:
    """The version of the libjq the ``jq`` bindings carry, read from the build path the bindings'
    extension records (``.../jq-1.8.2/src``); None when it cannot be told."""
    import re

    try:
        import jq
    except ImportError:
        return None
    try:
        with open(jq.__file__, "rb") as handle:
            data = handle.read(64 << 20)
    except (OSError, AttributeError, TypeError):
        return None
    found = re.search(rb"jq-(\d+\.\d+(?:\.\d+)?)[/\\]src", data)
    return found.group(1).decode() if found else None


def version_report() -> str:
    """What ``kartalint --version`` prints: the version, the commit and tag when built from git,
    Python, and the jq bindings with the libjq they carry."""
    import platform
    from importlib import metadata

    info = build_info()
    head = f"kartalint {__version__}"
    if info.get("commit"):
        head += f" (commit {str(info['commit'])[:12]}" + (f", tag {info['tag']}" if info.get("tag") else "") + ")"
    lines = [head, f"Python {platform.python_version()} ({platform.python_implementation()})"]
    try:
        bindings = metadata.version("jq")
    except metadata.PackageNotFoundError:
        bindings = None
    libjq = libjq_version()
    if bindings or libjq:
        lines.append(f"jq bindings {bindings or 'unknown'}, libjq {libjq or 'unknown'}")
    return "\n".join(lines) + "\n"


def pinned_revision() -> tuple:
    """(revision, how it was found): the release tag when there is one, else the commit, else
    ``v<version>`` as a guess that must be checked."""
    info = build_info()
    if info.get("tag"):
        return info["tag"], "release tag"
    if info.get("commit"):
        return info["commit"], "commit (no release tag at this revision)"
    return f"v{__version__}", "guessed from the version: check that the tag exists"
