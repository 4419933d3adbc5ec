"""The project around an open file, as kartalint's commands see it: its configuration (rules,
exclude, crds, definitions, fixtures), the fixtures of each definition (read through the same
confinement as ``kartalint test``), the CRDs, and a bounded jq runner for hover values. Built once
per project root and refreshed when a file is saved.

A configuration that cannot be used does not stop the server: the project goes on with the
default configuration, and the error is shown on the configuration file (``config_error``)."""

from __future__ import annotations

import os
from typing import Any

from kartalint import karta
from kartalint.errors import ConfigError
from kartalint.jqlang.runner import BoundedRunner
from kartalint.lint.pipeline import crd_index
from kartalint.load.configfile import MAX_FILE_BYTES, RULES, find_config
from kartalint.load.confinement import ReadRefused, read_confined, repository_of
from kartalint.load.house_rules import static_problem
from kartalint.model import Finding, Span
from kartalint.project import Config, Project, git_toplevel, load_project, read_config
from kartalint.rules import registry
from kartalint.rules._house_jq import Failure
from kartalint.rules.house import failure_finding
from kartalint.testing.cases import discover

HOVER_TIMEOUT = 2.0  # seconds per jq run behind a hover: an editor must not wait for a runaway


class LspProject:
    """The project of the files an editor opens: its configuration (the default one when it cannot be used, with
    the error), fixtures, CRDs and the jq worker of hovers."""

    def __init__(self, project: Project, config_error: ConfigError | None = None) -> None:
        """``project`` as loaded; ``config_error`` when its configuration could not be used."""
        self.project = project
        self.config = project.config
        self.config_error = config_error  # the configuration could not be used: the default one applies
        self._cases: list[Any] | None = None
        self._crds: Any = None
        self._runner: BoundedRunner | None = None

    @classmethod
    def around(cls, path: str) -> LspProject:
        """The project of the file ``path``; when its configuration cannot be used, the default configuration at
        the configuration's folder (else the repository's or the file's), with the error."""
        start = os.path.dirname(os.path.abspath(path))
        try:
            return cls(load_project(start=start, rules=registry.RULES))
        except ConfigError as exc:
            found = find_config(start)
            root = os.path.dirname(found) if found else git_toplevel(start) or start
            project = Project(root=root, config=Config(root=root), config_file=found, in_project=True)
            return cls(project, exc)

    @classmethod
    def unread(cls, path: str) -> LspProject:
        """The project of a document the editor has not opened: the default configuration, nothing
        searched, nothing read (its folder's configuration included)."""
        root = os.path.dirname(os.path.abspath(path))
        return cls(Project(root=root, config=Config(root=root), in_project=False))

    def refresh(self) -> None:
        """Forget what was read from disk (fixtures, CRDs): a file was saved."""
        self._cases = None
        self._crds = None

    def runner(self) -> BoundedRunner:
        """The bounded jq worker of hovers and code lenses, started on first use."""
        if self._runner is None:
            self._runner = BoundedRunner(timeout=HOVER_TIMEOUT, threaded=True)
        return self._runner

    def close(self) -> None:
        """Stop the jq worker, if it was started."""
        if self._runner is not None:
            self._runner.close()

    def cases(self) -> list[Any]:
        """Every fixture case of the project (read once, refreshed on save)."""
        if self._cases is None:
            paths = self.project.fixture_paths()
            index = self.project.index()
            found = (
                discover(
                    paths,
                    index,
                    self.project.fixture_roots(),
                    self.project.confinement(),  # as `kartalint test`: no file outside the project is read
                    excluded=self.project.excluded,
                )
                if paths
                else None
            )
            self._cases = [c for c in found.cases if c.object is not None and not c.problems] if found else []
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
            self._crds = crd_index(self.config.crds)
        root = karta.as_dict(karta.structure(definition).get("rootComponent"))
        version = self._crds.get(karta.gvk_of(root.get("kind")))
        return version if version is not None and version.schema else None


def config_text(path: str) -> str | None:
    """The text of the configuration file at ``path`` as the commands read it (inside its
    repository, a regular file, bounded), or None when it is refused."""

    try:
        return read_confined(path, [repository_of(path)], MAX_FILE_BYTES).decode("utf-8", "replace")
    except ReadRefused:
        return None


def config_findings(path: str, text: str | None, root: str | None = None) -> list[Finding]:
    """The problems of a configuration file being edited (``text``, saved or not; None: read it
    from disk, as the commands do): one ``config-invalid`` finding at the place the error names (at
    the top when it is in a file this one extends, or when the file is refused), or a
    ``house-rule-failed`` finding for each house rule it declares that cannot run (its jq does not
    compile or uses what the sandbox refuses)."""

    try:
        config = read_config(path, text, root, rules=registry.RULES)
    except ConfigError as exc:
        here = exc.file is None or os.path.abspath(exc.file) == os.path.abspath(path)
        line, column = (exc.line, exc.column) if here and exc.line else (1, 1)
        message = str(exc)
        prefix = f"{exc.file}:{exc.line}:{exc.column}: " if exc.line else f"{exc.file}: "
        if here and message.startswith(prefix):
            message = message[len(prefix) :]
        rule = RULES[0]
        span = Span.point(line, column)
        return [
            Finding(path, line, column, span.end_line, span.end_column, rule.id, rule.severity, message, (), rule.hint)
        ]
    return _house_problems(path, config)


def _house_problems(path: str, config: Config) -> list[Finding]:
    """The house rules declared in the file at ``path`` that cannot run, each where it fails."""

    found = []
    for rule in config.house_rules.values():
        problem = static_problem(rule)
        if problem is not None and os.path.abspath(rule.source) == os.path.abspath(path):
            finding = failure_finding(rule, Failure(problem.part, problem.message, static=True))
            found.append(finding.replace(file=path))
    return found
