"""An honest version (issue 48): a build from the tag v<RELEASE> is RELEASE, any other build a
development version of it that names its commit; `--version`, the wheel's metadata, `init`'s pins
and the Action's build agree; the release workflow refuses a tag or a CHANGELOG that disagree."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile

import pytest
from conftest import ROOT, build_wheel, git
from packaging.version import Version

import kartalint
from kartalint.scaffold.release import revision_from_ref, semantic_version, version_of

RELEASE = kartalint.RELEASE
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def test_the_version_is_the_release_only_from_its_own_tag():
    assert version_of("0.3.0", COMMIT, "v0.3.0") == "0.3.0"
    assert version_of("0.3.0", None, "v0.3.0") == "0.3.0"
    assert version_of("0.3.0", COMMIT, None) == "0.3.0.dev0+g0123456789ab"
    assert version_of("0.3.0", COMMIT, "v0.2.0") == "0.3.0.dev0+g0123456789ab"  # another version's tag
    assert version_of("0.3.0", None, None) == "0.3.0.dev0"  # no commit known: still not the release
    for text in ("0.3.0", "0.3.0.dev0+g0123456789ab", "0.3.0.dev0"):
        assert str(Version(text)) == text, "PEP 440, as written"
    assert Version("0.3.0.dev0+g0123456789ab") < Version("0.3.0"), "a development build sorts before its release"
    assert Version("0.3.0.dev0+g0123456789ab").is_devrelease and Version("0.3.0").is_devrelease is False


def test_a_ref_tells_a_build_without_git_only_a_release_tag_or_a_commit():
    assert revision_from_ref("v0.3.0", "0.3.0") == {"commit": None, "tag": "v0.3.0"}
    assert revision_from_ref(COMMIT, "0.3.0") == {"commit": COMMIT, "tag": None}
    for ref in ("", None, "main", "v0.2.0", COMMIT[:12], COMMIT.upper()):
        assert revision_from_ref(ref, "0.3.0") is None, ref


def test_sarif_gets_a_semantic_version():
    assert semantic_version("0.3.0") == "0.3.0"
    assert semantic_version("0.3.0.dev0+g0123456789ab") == "0.3.0-dev.0+g0123456789ab"
    semver = re.compile(r"\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?")
    assert semver.fullmatch(semantic_version(kartalint.__version__))


def test_this_checkout_reports_what_git_says_of_it():
    """An editable install asks git: the release only at its tag, else the commit it is at."""
    if not os.path.exists(os.path.join(ROOT, ".git")):
        pytest.skip("not a git checkout")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    tags = subprocess.run(["git", "tag", "--points-at", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout
    expected = RELEASE if f"v{RELEASE}" in tags.split() else f"{RELEASE}.dev0+g{head[:12]}"
    assert kartalint.__version__ == expected


def test_the_changelogs_top_section_is_the_version_being_prepared():
    with open(os.path.join(ROOT, "CHANGELOG.md"), encoding="utf-8") as handle:
        sections = [line for line in handle if line.startswith("## ")]
    assert sections and sections[0].split()[1] == RELEASE, (sections[:1], RELEASE)
    assert str(Version(RELEASE)) == RELEASE and not Version(RELEASE).is_devrelease


# -- the release workflow's check -------------------------------------------------------------


def _release_repo(tmp_path, release="0.3.0", changelog="## 0.3.0 (not yet tagged)\n\n- a change\n"):
    repo = tmp_path / "repo"
    (repo / ".ci").mkdir(parents=True)
    (repo / "kartalint" / "scaffold").mkdir(parents=True)
    shutil.copy(os.path.join(ROOT, ".ci", "release-check"), repo / ".ci" / "release-check")
    (repo / "kartalint" / "scaffold" / "release.py").write_text(f'RELEASE = "{release}"\n')
    (repo / "CHANGELOG.md").write_text(f"# Changelog\n\n{changelog}")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "release")
    return repo


def _check(repo, *args):
    return subprocess.run(
        ["bash", str(repo / ".ci" / "release-check"), *args], cwd=repo, capture_output=True, text=True, timeout=60
    )


def test_the_release_check_passes_the_tag_of_the_version_with_its_changelog_section(tmp_path):
    repo = _release_repo(tmp_path)
    git(repo, "tag", "v0.3.0")
    proc = _check(repo, "v0.3.0")
    assert proc.returncode == 0 and proc.stdout == "0.3.0\n", proc.stdout + proc.stderr


@pytest.mark.parametrize(
    ("tag", "changelog", "refusal"),
    [
        ("v0.3.1", None, "::error title=release::tag v0.3.1 is not v0.3.0, the version being prepared"),
        ("0.3.0", None, "::error title=release::tag 0.3.0 is not v0.3.0"),
        (
            "v0.3.0",
            "## 0.2.0\n\n- older\n",
            '::error title=release::CHANGELOG.md has no section "## 0.3.0": write what v0.3.0 changes first',
        ),
        (
            "v0.3.0",
            "## 0.3.01\n\n- a near miss\n",
            '::error title=release::CHANGELOG.md has no section "## 0.3.0"',
        ),
    ],
)
def test_the_release_check_refuses_another_tag_or_a_changelog_without_the_section(tmp_path, tag, changelog, refusal):
    repo = _release_repo(tmp_path, **({"changelog": changelog} if changelog else {}))
    git(repo, "tag", tag)
    proc = _check(repo, tag)
    assert proc.returncode == 1 and proc.stdout.startswith(refusal), proc.stdout + proc.stderr
    assert len(proc.stdout.splitlines()) == 1


def test_the_release_check_refuses_a_tag_that_is_not_the_commit_built(tmp_path):
    repo = _release_repo(tmp_path)
    git(repo, "tag", "v0.3.0")
    (repo / "later").write_text("x")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "later")
    proc = _check(repo, "v0.3.0")
    assert proc.returncode == 1 and "tag v0.3.0 does not point at the commit being built" in proc.stdout


# -- builds of a temporary clone --------------------------------------------------------------


BUILT_FROM = (
    "kartalint/",
    "catalog/",
    "fixtures/",
    ".ci/",
    "pyproject.toml",
    "setup.py",
    "README.md",
    "LICENSE",
    "CHANGELOG.md",
)


def _copy_sources(target, with_git):
    """The checkout's tracked (and new, not ignored) files, as a fresh repository of one commit
    when ``with_git``: what a clone of this working tree gives, uncommitted changes included."""
    listed = subprocess.run(["git", "ls-files", "-z", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    for name in filter(None, listed.stdout.decode().split("\0")):
        if os.path.isfile(os.path.join(ROOT, name)) and name.startswith(BUILT_FROM):
            os.makedirs(os.path.dirname(target / name), exist_ok=True)
            shutil.copy2(os.path.join(ROOT, name), target / name)
    if with_git:
        git(target, "init", "-q", "-b", "main")
        git(target, "add", "-A")
        git(target, "commit", "-qm", "the working tree")
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=target, capture_output=True, text=True).stdout.strip()
    return None


def _built(source, out, env=None):
    """Build the wheel of ``source`` into ``out``; (metadata version, recorded build info,
    `kartalint --version`'s first line, the revision `init` pins) of the unpacked wheel."""
    old = {name: os.environ.get(name) for name in (env or {})}
    os.environ.update(env or {})
    try:
        build_wheel(source, out)
    finally:
        for name, value in old.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    [wheel] = out.glob("kartalint-*.whl")
    site = out / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
        metadata = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        version = re.search(r"^Version: (.+)$", archive.read(metadata).decode(), re.MULTILINE).group(1)
    info = json.loads((site / "kartalint" / "_build_info.json").read_text())
    elsewhere = out / "project"
    elsewhere.mkdir()
    git(elsewhere, "init", "-q")
    run_env = dict(os.environ, PYTHONPATH=str(site))
    run_env.pop("KARTALINT_BUILD_REF", None)

    def kartalint_(*argv):
        proc = subprocess.run(
            [sys.executable, "-m", "kartalint", *argv], cwd=elsewhere, env=run_env, capture_output=True, text=True
        )
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    head = kartalint_("--version").splitlines()[0]
    kartalint_("init", "--root", str(elsewhere))
    pinned = re.search(r"^    rev: (\S+)", (elsewhere / ".pre-commit-config.yaml").read_text(), re.MULTILINE).group(1)
    workflow = (elsewhere / ".github" / "workflows" / "kartalint.yml").read_text()
    assert f"uses: kartalint/kartalint@{pinned}  #" in workflow, "the hooks and the Action pinned alike"
    return version, info, head, pinned, wheel


@pytest.mark.slow
def test_a_tagged_and_an_untagged_build_of_a_clone_report_their_versions(tmp_path):
    """Untagged: <RELEASE>.dev0+g<commit> in the metadata, `--version` and the recorded build,
    `init` pins the commit; tagged v<RELEASE>: <RELEASE> everywhere, `init` pins the tag, and the
    release check accepts what was built (and refuses the untagged build)."""
    clone = tmp_path / "clone"
    commit = _copy_sources(clone, with_git=True)
    dev = f"{RELEASE}.dev0+g{commit[:12]}"

    version, info, head, pinned, wheel = _built(clone, tmp_path / "untagged")
    assert version == dev and info == {"commit": commit, "tag": None, "version": dev}
    assert head == f"kartalint {dev} (commit {commit[:12]})"
    assert pinned == commit
    proc = subprocess.run(
        ["bash", ".ci/release-check", f"v{RELEASE}", str(wheel.parent)], cwd=clone, capture_output=True, text=True
    )
    assert proc.returncode == 1, proc.stdout  # (no tag yet)

    git(clone, "tag", "-a", f"v{RELEASE}", "-m", "release")
    version, info, head, pinned, wheel = _built(clone, tmp_path / "tagged")
    assert version == RELEASE and info == {"commit": commit, "tag": f"v{RELEASE}", "version": RELEASE}
    assert head == f"kartalint {RELEASE} (commit {commit[:12]}, tag v{RELEASE})"
    assert pinned == f"v{RELEASE}"
    dist = tmp_path / "dist"
    dist.mkdir()
    shutil.copy(wheel, dist)
    proc = subprocess.run(
        ["bash", ".ci/release-check", f"v{RELEASE}", str(dist)], cwd=clone, capture_output=True, text=True
    )
    assert proc.returncode == 0 and proc.stdout == f"{RELEASE}\n", proc.stdout + proc.stderr
    for name in os.listdir(tmp_path / "untagged"):
        if name.endswith(".whl"):
            shutil.copy(tmp_path / "untagged" / name, dist)
    proc = subprocess.run(
        ["bash", ".ci/release-check", f"v{RELEASE}", str(dist)], cwd=clone, capture_output=True, text=True
    )
    assert proc.returncode == 1 and f"is not kartalint {RELEASE}" in proc.stdout

    # a later commit, even tagged otherwise, is a development build again
    (clone / "README.md").write_text("changed\n")
    git(clone, "commit", "-qam", "after the release")
    git(clone, "tag", "experiment")
    later = subprocess.run(["git", "rev-parse", "HEAD"], cwd=clone, capture_output=True, text=True).stdout.strip()
    version, info, head, pinned, _ = _built(clone, tmp_path / "later")
    assert version == f"{RELEASE}.dev0+g{later[:12]}" and pinned == later


@pytest.mark.slow
def test_a_build_without_git_knows_its_revision_from_the_sdist_or_the_actions_ref(tmp_path):
    """The Action's source comes without history: the ref it runs at (KARTALINT_BUILD_REF) tells
    a release tag or a commit; without one the version is still a development version. A wheel
    built from an sdist (`python -m build`) keeps the sdist's revision."""
    clone = tmp_path / "clone"
    commit = _copy_sources(clone, with_git=True)
    git(clone, "tag", f"v{RELEASE}")
    sdists = tmp_path / "sdist"
    proc = subprocess.run(
        [sys.executable, "setup.py", "-q", "sdist", "-d", str(sdists)], cwd=clone, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    [sdist] = sdists.glob("kartalint-*.tar.gz")
    assert sdist.name == f"kartalint-{RELEASE}.tar.gz"
    with tarfile.open(sdist) as archive:  # (the "data" filter: Python 3.12, and 3.10.12/3.11.4 on)
        archive.extractall(sdists, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    unpacked = sdists / f"kartalint-{RELEASE}"
    assert not (unpacked / ".git").exists()
    version, info, _, pinned, _ = _built(unpacked, tmp_path / "from-sdist", {"KARTALINT_BUILD_REF": "main"})
    assert version == RELEASE and info["commit"] == commit and pinned == f"v{RELEASE}"

    downloaded = tmp_path / "downloaded"  # as the runner fetches an action: files, no history
    _copy_sources(downloaded, with_git=False)
    cases = [
        ({"KARTALINT_BUILD_REF": f"v{RELEASE}"}, RELEASE, f"v{RELEASE}"),
        ({"KARTALINT_BUILD_REF": COMMIT}, f"{RELEASE}.dev0+g{COMMIT[:12]}", COMMIT),
        ({"KARTALINT_BUILD_REF": "main"}, f"{RELEASE}.dev0", f"v{RELEASE}"),
    ]
    for number, (env, expected, expected_pin) in enumerate(cases):
        version, _, head, pinned, _ = _built(downloaded, tmp_path / f"ref-{number}", env)
        assert version == expected and head.startswith(f"kartalint {expected}"), (env, version, head)
        assert pinned == expected_pin, env
    assert head == f"kartalint {RELEASE}.dev0 (commit unknown: built without git)"  # the last: no commit known
