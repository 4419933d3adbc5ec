"""The configuration of a project (docs/configuration.md), merged from its files: ``Config``.
``kartalint.project`` reads it (``load_config``) and hands it to every stage with the project."""

from __future__ import annotations

import os

from kartalint.load.documents import MAX_FILE_BYTES
from kartalint.load.patterns import PatternSet
from kartalint.model import Record, Severity

TYPE_CHECKING = False
if TYPE_CHECKING:  # read only when a configuration has house rules
    from typing import Any

    from kartalint.load.house_rules import HouseRule


class Config(Record):
    """The configuration (docs/configuration.md), merged from its files; every path in it is absolute."""

    __slots__ = (
        "_excluded",
        "_ignores",
        "baseline",
        "baseline_from",
        "crds",
        "definitions",
        "exclude",
        "exclude_from",
        "explore_assume",
        "explore_min_path_coverage",
        "files",
        "fixtures",
        "house_rules",
        "max_file_size",
        "mutants_equivalent",
        "mutants_min_score",
        "per_file_ignores",
        "root",
        "severities",
        "source",
    )
    severities: dict[str, Severity | None]  # None = disabled
    exclude: list[str]
    exclude_from: list[str]  # the configuration file of each pattern
    per_file_ignores: dict[str, list[str]]  # gitignore pattern -> rule ids
    max_file_size: int
    crds: list[str]
    baseline: str | None  # `baseline:` (absolute), and the configuration file naming it
    baseline_from: str | None
    definitions: list[str]
    fixtures: list[str]
    mutants_min_score: float | None  # `mutants: {min-score}` (kartalint test --mutants)
    mutants_equivalent: dict[tuple[str, str], str]  # (definition, mutant id) -> reason
    explore_assume: dict[str, Any]  # `explore: {assume}`: jq path -> JSON Schema
    house_rules: dict[str, HouseRule]  # `house-rules:` by id, in declaration order
    explore_min_path_coverage: float | None  # `explore: {min-path-coverage}`: percent
    source: str | None
    root: str | None  # patterns are relative to it (the project root)
    files: list[str]  # every file read, the most basic first
    _excluded: PatternSet | None  # the patterns of `exclude`, made when first matched
    _ignores: list[tuple[PatternSet, set[str]]] | None  # those of `per-file-ignores`

    def __init__(
        self,
        severities: dict[str, Severity | None] | None = None,
        exclude: list[str] | None = None,
        exclude_from: list[str] | None = None,
        per_file_ignores: dict[str, list[str]] | None = None,
        max_file_size: int = MAX_FILE_BYTES,
        crds: list[str] | None = None,
        baseline: str | None = None,
        baseline_from: str | None = None,
        definitions: list[str] | None = None,
        fixtures: list[str] | None = None,
        mutants_min_score: float | None = None,
        mutants_equivalent: dict[tuple[str, str], str] | None = None,
        explore_assume: dict[str, Any] | None = None,
        house_rules: dict[str, HouseRule] | None = None,
        explore_min_path_coverage: float | None = None,
        source: str | None = None,
        root: str | None = None,
        files: list[str] | None = None,
    ) -> None:
        """The configuration of no file (defaults everywhere), or the one given."""
        self.severities = {} if severities is None else severities
        self.exclude = [] if exclude is None else exclude
        self.exclude_from = [] if exclude_from is None else exclude_from
        self.per_file_ignores = {} if per_file_ignores is None else per_file_ignores
        self.max_file_size = max_file_size
        self.crds = [] if crds is None else crds
        self.baseline = baseline
        self.baseline_from = baseline_from
        self.definitions = [] if definitions is None else definitions
        self.fixtures = [] if fixtures is None else fixtures
        self.mutants_min_score = mutants_min_score
        self.mutants_equivalent = {} if mutants_equivalent is None else mutants_equivalent
        self.explore_assume = {} if explore_assume is None else explore_assume
        self.house_rules = {} if house_rules is None else house_rules
        self.explore_min_path_coverage = explore_min_path_coverage
        self.source = source
        self.root = root
        self.files = [] if files is None else files
        self._excluded = None
        self._ignores = None

    def relative(self, path: str) -> str | None:
        """``path`` relative to the root (the current folder for a ``Config`` made without one),
        ``/``-separated; None outside the root."""
        if path in ("-", "<stdin>"):
            return None
        rel = os.path.relpath(os.path.abspath(path), self.root or os.getcwd()).replace(os.sep, "/")
        return None if rel == ".." or rel.startswith("../") else rel

    def _matched(self, path: str) -> str | None:
        """``path`` as the ``exclude`` patterns match it: relative to the root, ending in ``/`` when
        ``path`` does (a folder); None outside the root."""
        rel = self.relative(path)
        if rel is not None and rel != "." and path.endswith(("/", os.sep)):
            return rel + "/"
        return rel

    def excluded(self, path: str) -> bool:
        """Whether ``exclude`` selects ``path`` (gitignore patterns relative to the root only: a
        pattern never matches a folder above the root, such as the checkout's own name; a path ending
        in ``/`` is a folder, which a folder pattern such as ``charts/`` matches)."""
        if not self.exclude:
            return False
        rel = self._matched(path)
        if rel is None:
            return False
        if self._excluded is None:
            self._excluded = PatternSet(self.exclude)
        return self._excluded.match(rel)

    def exclusion(self, path: str) -> tuple[str, str] | None:
        """(the ``exclude`` pattern that excludes ``path``, the configuration file holding it), or
        None when ``path`` is not excluded (the last pattern that matches decides)."""
        if not self.excluded(path):
            return None
        import pathspec  # lazy: pathspec only where a pattern could match (start-up of lint)

        rel = self._matched(path) or ""
        sources = [*self.exclude_from, *[self.source or "the configuration"] * len(self.exclude)]
        for pattern, source in reversed(list(zip(self.exclude, sources[: len(self.exclude)], strict=True))):
            if pathspec.GitIgnoreSpec.from_lines([pattern.lstrip("!")]).match_file(rel):
                return pattern, source
        return None  # pragma: no cover - an excluded path matches a pattern

    def ignored_rules(self, path: str) -> set[str]:
        """The rules ``per-file-ignores`` turns off for ``path``."""
        if not self.per_file_ignores:
            return set()
        rel = self.relative(path)
        if rel is None:
            return set()
        if self._ignores is None:
            self._ignores = [(PatternSet([p]), set(ids)) for p, ids in self.per_file_ignores.items()]
        out: set[str] = set()
        for patterns, ids in self._ignores:
            if patterns.match(rel):
                out |= ids
        return out
