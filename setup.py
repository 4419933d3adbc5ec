"""Build hook: the version of this build, and the revision it is built from.

``RELEASE`` (kartalint/scaffold/release.py) names the version being prepared; a build from the tag ``v<RELEASE>`` is that
version, any other build ``<RELEASE>.dev0+g<commit>`` (kartalint/scaffold/release.py decides, for
this file and for an editable install alike). The commit, tag and version are recorded in
kartalint/_build_info.json, so that ``kartalint --version`` and ``kartalint init`` (which pins the
hooks and the Action to the tag or the commit) tell the same. Where git does not know the
revision: an sdist's recorded one (a wheel built from the sdist, as ``python -m build`` does), else
``KARTALINT_BUILD_REF`` (the ref the GitHub Action runs at: its download has no history), else an
unknown commit (``<RELEASE>.dev0``). Metadata is in pyproject.toml."""

import importlib.util
import json
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = os.path.dirname(os.path.abspath(__file__))
INFO = os.path.join("kartalint", "_build_info.json")


def _release_module():
    spec = importlib.util.spec_from_file_location(
        "kartalint_release_at_build", os.path.join(HERE, "kartalint", "scaffold", "release.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _info():
    """``{"commit", "tag", "version"}`` of this build."""
    module = _release_module()
    release = module.RELEASE
    found = module.git_revision(HERE, release)
    if found is None:
        try:
            with open(os.path.join(HERE, INFO), encoding="utf-8") as handle:
                recorded = json.load(handle)
            if isinstance(recorded, dict) and isinstance(recorded.get("version"), str):
                return recorded
        except (OSError, ValueError):
            pass
        found = module.revision_from_ref(os.environ.get("KARTALINT_BUILD_REF"), release)
    found = found or {"commit": None, "tag": None}
    return {**found, "version": module.version_of(release, found["commit"], found["tag"])}


BUILD = _info()


def _write_info(folder):
    with open(os.path.join(folder, INFO), "w", encoding="utf-8") as handle:
        json.dump(BUILD, handle)


class BuildWithRevision(build_py):
    def run(self):
        # a build folder left by an earlier build keeps modules since removed from the sources, and
        # the wheel would ship them (pip builds in the source tree): the package is copied afresh
        shutil.rmtree(os.path.join(self.build_lib, "kartalint"), ignore_errors=True)
        super().run()
        if not self.dry_run:
            _write_info(self.build_lib)


class SdistWithRevision(sdist):
    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        if not self.dry_run:
            _write_info(base_dir)


setup(version=BUILD["version"], cmdclass={"build_py": BuildWithRevision, "sdist": SdistWithRevision})
