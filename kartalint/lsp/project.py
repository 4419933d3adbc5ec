"""The project around an open file, as kartalint's commands see it: its configuration (rules,
exclude, crds, definitions, fixtures), the fixtures of each definition, the CRDs, and a bounded
jq runner for hover values. Built once per project root and refreshed when a file is saved."""

from __future__ import annotations

import os
import threading
from typing import Any

from kartalint import karta
from kartalint.jqlang.runner import BoundedRunner
from kartalint.project import Project, load_project

HOVER_TIMEOUT = 2.0  # seconds per jq run behind a hover: an editor must not wait for a runaway


class LspProject:
    def __init__(self, project: Project) -> None:
        self.project = project
        self.config = project.config
        self._cases: list[Any] | None = None
        self._crds: Any = None
        self._runner: BoundedRunner | None = None
        self.lock = threading.Lock()  # one jq worker, used from the server's worker threads

    @classmethod
    def around(cls, path: str) -> LspProject:
        return cls(load_project(start=os.path.dirname(os.path.abspath(path))))

    def refresh(self) -> None:
        """Forget what was read from disk (fixtures, CRDs): a file was saved."""
        self._cases = None
        self._crds = None

    def runner(self) -> BoundedRunner:
        if self._runner is None:
            self._runner = BoundedRunner(timeout=HOVER_TIMEOUT, threaded=True)
        return self._runner

    def close(self) -> None:
        if self._runner is not None:
            self._runner.close()

    def cases(self) -> list[Any]:
        """Every fixture case of the project (read once, refreshed on save)."""
        if self._cases is None:
            from kartalint.testing.cases import discover

            paths = self.project.fixture_paths()
            index = self.project.index()
            found = discover(paths, index, self.project.fixture_roots()) if paths else None
            self._cases = [c for c in found.cases if c.object is not None] if found else []
        return self._cases

    def cases_for(self, path: str) -> list[Any]:
        """The fixture cases whose definition is the file at ``path``."""
        real = os.path.realpath(path)
        return [c for c in self.cases() if c.definition is not None and os.path.realpath(c.definition.path) == real]

    def crd_version(self, definition: Any) -> Any:
        """The configured CRD version of the definition's root kind, or None."""
        if not self.config.crds:
            return None
        if self._crds is None:
            from kartalint.rules.lint import crd_index

            self._crds = crd_index(self.config.crds)
        root = karta.as_dict(karta.structure(definition).get("rootComponent"))
        version = self._crds.get(karta.gvk_of(root.get("kind")))
        return version if version is not None and version.schema else None
