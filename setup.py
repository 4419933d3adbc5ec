"""Build hook: record the git revision a wheel is built from (kartalint/_build_info.json), so that
`kartalint init` can pin hooks and the Action to a revision that exists and `kartalint --version`
names it. An sdist carries the file too, so a wheel built from the sdist (as `python -m build`
does) keeps the revision. Metadata is in pyproject.toml."""

import json
import os
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

INFO = os.path.join("kartalint", "_build_info.json")


def _git(*args):
    try:
        out = subprocess.run(
            ["git", *args],
            cwd=os.path.dirname(os.path.abspath(__file__)),
            capture_output=True,
            text=True,
            check=False,
            timeout=20,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 and out.stdout.strip() else None


def _write_info(folder):
    """Write the revision into ``folder``/kartalint/_build_info.json when git knows it."""
    commit = _git("rev-parse", "HEAD")
    if not commit:
        return False
    info = {"commit": commit, "tag": _git("describe", "--tags", "--exact-match", "HEAD")}
    with open(os.path.join(folder, INFO), "w", encoding="utf-8") as handle:
        json.dump(info, handle)
    return True


class BuildWithRevision(build_py):
    def run(self):
        super().run()
        if self.dry_run or _write_info(self.build_lib):
            return
        # no git (a build from an sdist): keep the revision the sdist recorded
        here = os.path.dirname(os.path.abspath(__file__))
        if os.path.isfile(os.path.join(here, INFO)):
            self.copy_file(os.path.join(here, INFO), os.path.join(self.build_lib, INFO))


class SdistWithRevision(sdist):
    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        if not self.dry_run:
            _write_info(base_dir)


setup(cmdclass={"build_py": BuildWithRevision, "sdist": SdistWithRevision})
