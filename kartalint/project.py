"""The user's project: its root, configuration, definitions and fixtures.

* Root: the folder holding the configuration file (``.kartalint.yaml`` or ``pyproject.toml`` with
  ``[tool.kartalint]``), else the top of the git work tree, else the current folder.
* Definitions: the configuration's ``definitions:`` (files, folders or globs, relative to the
  root); without it, every Karta document under the root (``exclude`` and ``.gitignore``
  honoured, hidden folders skipped).
* Fixtures: the configuration's ``fixtures:`` (folders); without it ``fixtures/`` under the root
  when it exists, else the whole root.

Definitions are resolved in layers: explicit flags first, then the project's definitions, then the
bundled catalog. A later layer never replaces an earlier one; a project definition that takes the
place of a bundled one (same GVK or name) is noted once.
"""

from __future__ import annotations

import glob
import os
import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field

from kartalint.load.definitions import DefinitionIndex, bundled_catalog
from kartalint.load.documents import display_path
from kartalint.rules.config import Config, find_config, load_config

_KARTA_TEXT = re.compile(r"""^\s*["']?kind["']?\s*:\s*["']?Karta["']?\s*,?\s*$|structureDefinition""", re.M)
_FIXTURE_TEXT = re.compile(r"KartaFixture|^\s*events\s*:|^schemaVersion\s*:", re.M)
MAX_SCANNED_FILES = 20_000
_SKIP_DIRS = {"node_modules", "site-packages", "__pycache__"}


def git_toplevel(start: str) -> str | None:
    directory = os.path.abspath(start)
    while True:
        if os.path.exists(os.path.join(directory, ".git")):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


@dataclass
class Project:
    root: str
    config: Config
    config_file: str | None = None
    notes: list[str] = field(default_factory=list)

    # -- files ------------------------------------------------------------------------------
    def _rel(self, path: str) -> str:
        return os.path.relpath(os.path.abspath(path), self.root)

    def excluded(self, path: str) -> bool:
        return self.config.excluded(path) or self.config.excluded(self._rel(path))

    def yaml_files(self) -> list[str]:
        """Every YAML file of the project (git's view when the root is in a work tree)."""
        names: list[str] | None = None
        if git_toplevel(self.root):
            try:
                proc = subprocess.run(
                    ["git", "ls-files", "-z", "-co", "--exclude-standard"],
                    cwd=self.root,
                    capture_output=True,
                    check=False,
                    timeout=60,
                )
                if proc.returncode == 0:
                    names = [n for n in proc.stdout.decode("utf-8", "surrogateescape").split("\0") if n]
            except (OSError, subprocess.SubprocessError):
                names = None
        if names is None:
            names = []
            for top, dirs, files in os.walk(self.root):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS)
                names.extend(os.path.relpath(os.path.join(top, f), self.root) for f in sorted(files))
                if len(names) > MAX_SCANNED_FILES:
                    break
        if len(names) > MAX_SCANNED_FILES:
            self.notes.append(
                f"the project at {self.root} holds over {MAX_SCANNED_FILES} files: only the first "
                f"{MAX_SCANNED_FILES} were searched (set `definitions:` and `fixtures:` in .kartalint.yaml)"
            )
            names = sorted(names)[:MAX_SCANNED_FILES]
        out = []
        for name in sorted(names):
            if not name.endswith((".yaml", ".yml")) or any(part.startswith(".") for part in name.split("/")[:-1]):
                continue
            path = os.path.join(self.root, name)
            if os.path.isfile(path) and not os.path.islink(path) and not self.excluded(path):
                out.append(path)
        return out

    def _matching(self, pattern: re.Pattern) -> list[str]:
        out = []
        for path in self.yaml_files():
            try:
                if os.path.getsize(path) > self.config.max_file_size:
                    continue
                with open(path, "rb") as handle:
                    text = handle.read().decode("utf-8", "replace")
            except OSError:
                continue
            if pattern.search(text):
                out.append(path)
        return out

    def definition_paths(self) -> list[str]:
        """Files and folders holding the project's definitions."""
        if self.config.definitions:
            return _expand(self.config.definitions, self.root)
        return [display_path(p) for p in self._matching(_KARTA_TEXT)]

    def fixture_paths(self) -> list[str]:
        """Where ``kartalint test`` and ``diff`` look for cases without a PATH."""
        if self.config.fixtures:
            return _expand(self.config.fixtures, self.root)
        default = os.path.join(self.root, "fixtures")
        if os.path.isdir(default):
            return [display_path(default)]
        found = self._matching(_FIXTURE_TEXT) + [p for p in self.yaml_files() if p.endswith(".predict.yaml")]
        return [display_path(p) for p in sorted(set(found))]

    def fixture_roots(self) -> list[str]:
        """Folders whose fixtures may be matched to a definition by group/version/kind (no folder name needed)."""
        roots = [self.root, os.path.join(self.root, "fixtures")]
        roots += [p for p in _expand(self.config.fixtures, self.root) if os.path.isdir(p)]
        return [os.path.abspath(r) for r in roots]

    # -- definitions ------------------------------------------------------------------------
    def index(self, explicit: Sequence[str] = (), bundled: bool = True) -> DefinitionIndex:
        """Definitions in resolution order: ``explicit`` paths, the project's, the bundled catalog."""
        index = DefinitionIndex()
        if explicit:
            index.add_layer("explicit", list(explicit))
        index.add_layer("project", [display_path(p) for p in self.definition_paths()], excluded=self.excluded)
        if bundled:
            catalog = bundled_catalog()
            if catalog:
                index.add_layer("bundled", [display_path(catalog)])
        return index


def _expand(entries: Sequence[str], root: str) -> list[str]:
    out: list[str] = []
    for entry in entries:
        path = entry if os.path.isabs(entry) else os.path.join(root, entry)
        if any(ch in entry for ch in "*?["):
            out.extend(sorted(glob.glob(path, recursive=True)))
        else:
            out.append(path)
    return [display_path(p) for p in out]


def load_project(config_path: str | None = None, start: str | None = None) -> Project:
    """The project around ``start`` (default: the current folder)."""
    found = config_path or find_config(start)
    config = load_config(found) if found else Config()
    if found:
        root = os.path.dirname(os.path.abspath(found))
    else:
        root = git_toplevel(start or os.getcwd()) or os.path.abspath(start or os.getcwd())
    return Project(root=root, config=config, config_file=found)
