"""Which kartalint this is: its version, and the revision to pin hooks and the Action to (`init`).

The version comes from where the code was built: ``RELEASE`` names the version being prepared
(the CHANGELOG's top section names it too); a build from the tag ``v<RELEASE>`` is that version,
any other build a development version of it, ``<RELEASE>.dev0+g<commit>`` (PEP 440: it sorts
before the release, and says which commit it is). A wheel records the commit, the release tag and
the version it was built from (setup.py writes ``_build_info.json``); an editable install asks git
in its checkout. setup.py loads this module by its path, before kartalint is installed: it imports
nothing of kartalint.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from typing import Any

# The version being prepared: raise it (and open its CHANGELOG section) right after a release.
# .ci/release-check and setup.py read it here; ``kartalint.RELEASE`` is this.
RELEASE = "0.2.0"

REPOSITORY = "https://github.com/kartalint/kartalint"  # where the hooks and the Action live
ACTION = "kartalint/kartalint"

# The third-party actions the workflow `init` writes uses, each pinned to a full commit with its
# release (the same commits as this repository's action.yml and workflows: tests/test_action.py).
THIRD_PARTY_ACTIONS = {
    "actions/checkout": ("d23441a48e516b6c34aea4fa41551a30e30af803", "v6.1.0"),
    "github/codeql-action/upload-sarif": ("8aad20d150bbac5944a9f9d289da16a4b0d87c1e", "v4.36.2"),
    "actions/upload-artifact": ("b7c566a772e6b6bfb58ed0dc250532a479d7789f", "v6.0.0"),
}

_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the kartalint package
INFO_FILE = "_build_info.json"
COMMIT = re.compile(r"[0-9a-f]{40}")


def release_tag(release: str) -> str:
    """The tag that releases ``release``."""
    return f"v{release}"


def version_of(release: str, commit: str | None, tag: str | None) -> str:
    """The version of a build of ``commit`` (None: unknown) carrying ``tag`` (None: none that
    releases it): the release itself only from its own tag."""
    if tag == release_tag(release):
        return release
    return f"{release}.dev0+g{commit[:12]}" if commit else f"{release}.dev0"


def _git(checkout: str, *args: str) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=checkout, capture_output=True, text=True, check=False, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 and out.stdout.strip() else None


def git_revision(checkout: str, release: str) -> dict[str, str | None] | None:
    """``{"commit", "tag"}`` of the git checkout at ``checkout`` (its own ``.git``, not a
    repository it happens to sit in), the tag being ``v<release>`` when it points at the commit;
    None when ``checkout`` is no checkout or git cannot tell."""
    if not os.path.exists(os.path.join(checkout, ".git")):
        return None
    commit = _git(checkout, "rev-parse", "--verify", "HEAD^{commit}")
    if not commit or not COMMIT.fullmatch(commit):
        return None
    tagged = _git(checkout, "tag", "--points-at", commit, "--list", release_tag(release))
    return {"commit": commit, "tag": tagged if tagged == release_tag(release) else None}


def revision_from_ref(ref: str | None, release: str) -> dict[str, str | None] | None:
    """What a git ref says of a build without git (the Action's source, downloaded by the runner
    without its history, knows the ref it was used at): the release tag, or a full commit."""
    ref = (ref or "").strip()
    if ref == release_tag(release):
        return {"commit": None, "tag": ref}
    if COMMIT.fullmatch(ref):
        return {"commit": ref, "tag": None}
    return None


def build_info() -> dict[str, str | None]:
    """``{"commit", "tag", "version"}`` of the installed kartalint (commit and tag may be None)."""
    found = git_revision(os.path.dirname(_HERE), RELEASE)  # a checkout (an editable install)
    if found is None:
        recorded = _recorded(os.path.join(_HERE, INFO_FILE))  # a wheel
        if recorded is not None:
            return recorded
        found = {"commit": None, "tag": None}
    return {**found, "version": version_of(RELEASE, found["commit"], found["tag"])}


def _recorded(path: str) -> dict[str, str | None] | None:
    try:
        with open(path, encoding="utf-8") as handle:
            data: Any = json.load(handle)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("version"), str):
        return None
    text = {key: value if isinstance(value, str) else None for key, value in data.items()}
    return {"commit": text.get("commit"), "tag": text.get("tag"), "version": text["version"]}


def installed_version() -> str:
    """``kartalint.__version__``: the version of this build."""
    return str(build_info()["version"])


def semantic_version(version: str) -> str:
    """The version as SemVer 2.0 (SARIF's ``semanticVersion``): ``0.2.0.dev0+gabc`` is
    ``0.2.0-dev.0+gabc``."""
    found = re.fullmatch(r"(\d+\.\d+\.\d+)\.dev(\d+)(\+.*)?", version)
    return f"{found.group(1)}-dev.{found.group(2)}{found.group(3) or ''}" if found else version


def libjq_version() -> str | None:
    """The version of the libjq the ``jq`` bindings carry, read from the build path the bindings'
    extension records (``.../jq-1.8.2/src``); None when it cannot be told."""
    try:
        import jq  # lazy: --version only; setup.py runs this module where jq may not be installed
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
    """What ``kartalint --version`` prints: the version, the commit and tag when known, Python,
    and the jq bindings with the libjq they carry."""
    import platform  # lazy: only for --version (start-up of every command)
    from importlib import metadata

    info = build_info()
    head = f"kartalint {info['version']}"
    known = [f"commit {str(info['commit'])[:12]}" if info.get("commit") else "commit unknown: built without git"]
    known += [f"tag {info['tag']}"] if info.get("tag") else []
    head += f" ({', '.join(known)})"
    lines = [head, f"Python {platform.python_version()} ({platform.python_implementation()})"]
    try:
        bindings = metadata.version("jq")
    except metadata.PackageNotFoundError:
        bindings = None
    libjq = libjq_version()
    if bindings or libjq:
        lines.append(f"jq bindings {bindings or 'unknown'}, libjq {libjq or 'unknown'}")
    lines.extend(plugin_lines())
    return "\n".join(lines) + "\n"


def plugin_lines() -> list[str]:
    """One line per plugin loaded (the ``kartalint.rules`` entry points): its distribution, entry
    point and rules."""
    # lazy: setup.py runs this module alone, where kartalint and its dependencies may not be installed
    from kartalint.rules import registry

    return [
        f"plugin {p.label}: {p.name} = {p.value} ({len(p.rules)} rule(s): {', '.join(p.rules)})"
        for p in registry.PLUGINS
    ]


def pinned_revision() -> tuple:
    """(revision, how it was found): the release tag of a release, else the commit built from,
    else the release tag of the version being prepared, as a guess that must be checked."""
    info = build_info()
    if info.get("tag"):
        return info["tag"], "release tag"
    if info.get("commit"):
        return info["commit"], "commit, no release tag at this revision"
    return release_tag(RELEASE), "no commit recorded in this build: check that the tag exists"
