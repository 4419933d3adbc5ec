"""Build hook: record the git revision a wheel is built from (kartalint/_build_info.json), so that
`kartalint init` can pin hooks and the Action to a revision that exists. Metadata is in pyproject.toml."""

import json
import os
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py


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


class BuildWithRevision(build_py):
    def run(self):
        super().run()
        commit = _git("rev-parse", "HEAD")
        if commit and not self.dry_run:
            info = {"commit": commit, "tag": _git("describe", "--tags", "--exact-match", "HEAD")}
            with open(os.path.join(self.build_lib, "kartalint", "_build_info.json"), "w", encoding="utf-8") as handle:
                json.dump(info, handle)


setup(cmdclass={"build_py": BuildWithRevision})
