"""The user's project: its root, configuration, definitions, fixtures, CRDs, excluded files and
where fixtures may read files. Built once per run (``load_project``) and handed to every stage.

* Root: the folder holding the configuration file (``.kartalint.yaml`` or ``pyproject.toml`` with
  ``[tool.kartalint]``), else the top of the git work tree. Outside both there is no project:
  only the paths given and the bundled catalog are used, nothing is searched.
* Configuration (``Config``): rules, ``exclude`` and ``per-file-ignores`` (gitignore patterns
  relative to the root), ``max-file-size``, ``crds``, ``definitions``, ``fixtures``, ``baseline``,
  ``extends``. Its paths must resolve inside the root: only the command line (a PATH, ``--allow-outside``)
  widens what is read.
* Definitions: ``definitions:`` (files, folders or globs); without it, every Karta document under
  the root (``exclude`` and ``.gitignore`` honoured, hidden folders and templates skipped).
* Fixtures: ``fixtures:``; without it ``fixtures/`` under the root when it exists, else every
  fixture, recording and prediction under the root.

Definitions are resolved in layers: explicit flags first, then the project's definitions, then the
bundled catalog. A later layer never replaces an earlier one.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence

from kartalint.errors import ConfigError
from kartalint.load.configfile import CONFIG_NAMES, ConfigFile, find_config, read_chain
from kartalint.load.configuration import Config
from kartalint.load.confinement import Confinement, ReadRefused, git_toplevel, inside, read_confined
from kartalint.load.discovery import glob_inside, template_marker
from kartalint.load.documents import display_path
from kartalint.load.kinds import FIXTURE_TEXT, KARTA_TEXT
from kartalint.load.patterns import PatternSet, check_pattern
from kartalint.model import Record, Rule, Severity

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from kartalint.load.definitions import DefinitionIndex

__all__ = [
    "CONFIG_NAMES",
    "Config",
    "ConfigError",
    "Project",
    "find_config",
    "git_toplevel",
    "load_config",
    "load_project",
]

MAX_CONFIGURABLE_BYTES = 1 << 30
_OFF = {"off", "disable", "disabled", "false", "no"}
_PATH_KEYS = ("crds", "definitions", "fixtures")
MAX_SCANNED_FILES = 20_000
_SKIP_DIRS = {"node_modules", "site-packages", "__pycache__"}


def _apply(config: Config, layer: ConfigFile, root: str, rules: Mapping[str, Rule], boundary: str) -> None:
    """Merge one file into ``config`` (later files override earlier ones), after validating it with
    the configuration's JSON Schema and checking what a schema cannot say (gitignore patterns,
    paths inside the project, house rules' ids). The house rules of this file and of the files it
    extends may be named in ``rules:`` and ``per-file-ignores:``; their examples must lie inside
    ``boundary`` (the repository)."""
    from kartalint.schema.config import config_problem  # lazy: only with a configuration file (start-up of lint)

    entries = layer.data.get("house-rules")
    declared = [e["id"] for e in entries or () if isinstance(e, dict) and isinstance(e.get("id"), str)]
    problem = config_problem(layer.data, [*rules, *config.house_rules, *declared], MAX_CONFIGURABLE_BYTES)
    if problem is not None:
        raise layer.error(problem.message, problem.path, key=problem.key)
    if entries:
        from kartalint.load.house_rules import read_house_rules  # lazy: only with house rules (start-up of lint)

        for house_rule in read_house_rules(layer, rules, boundary):
            config.house_rules[house_rule.id] = house_rule  # a later file's rule of the same id replaces it
    if config.house_rules:
        rules = {**rules, **{r.id: r.rule for r in config.house_rules.values()}}
    data = layer.data
    for index, pattern in enumerate(data.get("exclude") or []):
        _check_pattern(layer, pattern, ("exclude", index))
    for pattern in data.get("per-file-ignores") or {}:
        _check_pattern(layer, pattern, ("per-file-ignores", pattern), key=True)
    paths = {key: _resolved(layer, key, root) for key in _PATH_KEYS if key in data}
    baseline = _resolved(layer, "baseline", root)[0] if data.get("baseline") else None
    for rule_id, setting in (data.get("rules") or {}).items():
        config.severities[rule_id] = _severity(setting, rules[rule_id])
    config.exclude.extend(data.get("exclude") or [])
    config.exclude_from.extend(layer.path for _ in data.get("exclude") or [])
    if baseline is not None:
        config.baseline, config.baseline_from = baseline, layer.path
    for pattern, ids in (data.get("per-file-ignores") or {}).items():
        config.per_file_ignores[pattern] = [ids] if isinstance(ids, str) else list(ids)
    if "max-file-size" in data:
        config.max_file_size = int(data["max-file-size"])
    mutants = data.get("mutants") or {}
    if mutants.get("min-score") is not None:
        config.mutants_min_score = float(mutants["min-score"])
    for entry in mutants.get("equivalent") or []:
        config.mutants_equivalent[(entry["definition"], entry["mutant"])] = entry["reason"]
    explore = data.get("explore") or {}
    config.explore_assume.update(explore.get("assume") or {})
    if explore.get("min-path-coverage") is not None:
        config.explore_min_path_coverage = float(explore["min-path-coverage"])
    for key, resolved in paths.items():
        setattr(config, key, resolved)


def _severity(setting: str | bool, rule: Rule) -> Severity | None:
    """A rule's setting (valid for the schema): None when it is off, its own severity when on."""
    text = ("on" if setting else "off") if isinstance(setting, bool) else setting.lower()
    if text in _OFF:
        return None
    return rule.severity if text == "on" else Severity.parse(text)


def _resolved(layer: ConfigFile, key: str, root: str) -> list[str]:
    """The paths of ``crds``, ``definitions``, ``fixtures`` or ``baseline`` (one path or a list),
    absolute; each must resolve inside the project ``root``."""
    given = layer.data[key] or []
    resolved = []
    for index, entry in enumerate([given] if isinstance(given, str) else given):
        place = (key,) if isinstance(given, str) else (key, index)
        if "\x00" in entry:  # no file system takes it (os.path refuses it with ValueError)
            raise layer.error(f"'{key}' entry {entry!r} holds a NUL character: not a path", place)
        absolute = os.path.normpath(os.path.join(layer.folder, entry))
        literal = _glob_parts(absolute, layer.folder)[0]  # (the folders above the configuration are not patterns)
        if not inside(literal, root):
            widen = (
                "`--baseline FILE` reads"
                if key == "baseline"
                else "give the path on the command line, or `--allow-outside DIR`, to read"
            )
            raise layer.error(
                f"'{key}' entry {entry} resolves to {os.path.realpath(literal)}, outside the project root {root}: "
                f"configuration paths must stay inside the project ({widen} elsewhere deliberately)",
                place,
            )
        resolved.append(absolute)
    return resolved


def _check_pattern(layer: ConfigFile, pattern: Any, where: tuple, key: bool = False) -> None:
    if not isinstance(pattern, str) or not pattern:
        raise layer.error("a pattern must be a non-empty string", where, key=key)
    problem = check_pattern(pattern)
    if problem:
        raise layer.error(f"bad pattern {pattern!r}: {problem}", where, key=key)


def _glob_parts(path: str, literal: str) -> tuple[str, str]:
    """(the folder a glob searches, the pattern below it) of ``path``, whose part ``literal`` (a
    folder: the project root, the configuration's) is taken as it is written (a ``[``, ``*`` or
    ``?`` in the name of a folder above the project is not a pattern); the pattern is empty when
    ``path`` names one path."""
    top = literal.rstrip(os.sep)
    head, rest = (top, path[len(top) :]) if path == top or path.startswith(top + os.sep) else ("", path)
    pieces = rest.split(os.sep)
    for index, piece in enumerate(pieces):
        if any(ch in piece for ch in "*?["):
            return head + os.sep.join(pieces[:index]) or os.sep, os.sep.join(pieces[index:])
    return path, ""


def read_config(path: str, text: str | None = None, root: str | None = None, *, rules: Mapping[str, Rule]) -> Config:
    """The configuration at ``path`` with what it extends (``text``: the file's content when in
    hand). Paths must resolve inside ``root`` (default: the file's folder). ``rules``: the rules
    that exist, by id (``kartalint.rules.registry.RULES``), which ``rules:`` and
    ``per-file-ignores`` may name."""
    root = os.path.abspath(root or os.path.dirname(os.path.abspath(path)))
    boundary = git_toplevel(root) or root
    chain = read_chain(path, boundary, text)
    config = Config(source=path, root=root, files=[c.path for c in chain])
    for layer in chain:
        _apply(config, layer, root, rules, boundary)
    return config


def parse_config(data: Any, source: str, *, rules: Mapping[str, Rule]) -> Config:
    """A configuration from data already read (``source`` names it in errors; ``rules`` as for ``read_config``)."""
    layer = ConfigFile(source, {})
    if data is not None and not isinstance(data, dict):
        raise layer.error("the configuration must be a mapping")
    layer.data = dict(data or {})
    if "extends" in layer.data:
        raise layer.error("'extends' needs a configuration file", ("extends",))
    root = os.path.dirname(os.path.abspath(source)) if os.path.exists(source) else os.getcwd()
    config = Config(source=source, root=root)
    _apply(config, layer, root, rules, root)
    return config


def load_config(explicit: str | None = None, *, rules: Mapping[str, Rule]) -> Config:
    """The configuration at ``explicit``, else the one found upwards from the current folder, else
    kartalint's defaults (``rules`` as for ``read_config``)."""
    if explicit:
        return read_config(explicit, rules=rules)
    found = find_config()
    return read_config(found, rules=rules) if found else Config()


class Project(Record):
    """The user's project, built once per run and handed to every stage: root, configuration, reads allowed."""

    __slots__ = (
        "_definitions",
        "_files",
        "allowed",
        "config",
        "config_file",
        "in_project",
        "notes",
        "root",
        "templates",
    )
    root: str
    config: Config
    config_file: str | None
    notes: list[str]
    in_project: bool  # False: no configuration, not in a git work tree (nothing is searched)
    allowed: list[str]  # folders the command line allows reads in
    _files: list[str] | None  # the project's YAML files, listed once
    _definitions: PatternSet | None  # the patterns of `definitions:`, made once
    templates: list[str]  # Go/Helm templates that mention a Karta, met while searching (not definitions)

    def __init__(
        self,
        root: str,
        config: Config,
        config_file: str | None = None,
        notes: list[str] | None = None,
        in_project: bool = True,
        allowed: list[str] | None = None,
    ) -> None:
        """The project at ``root`` with its configuration (read from ``config_file``, when there is one)."""
        self.root = root
        self.config = config
        self.config_file = config_file
        self.notes = [] if notes is None else notes
        self.in_project = in_project
        self.allowed = [] if allowed is None else allowed
        self._files = None
        self.templates = []
        self._definitions = None

    # -- files ------------------------------------------------------------------------------
    def excluded(self, path: str) -> bool:
        """Whether the configuration excludes ``path``."""
        return self.config.excluded(path)

    def yaml_files(self) -> list[str]:
        """Every YAML file of the project (git's view when the root is in a work tree)."""
        if self._files is not None:
            return self._files
        names: list[str] | None = None
        if not self.in_project:
            names = []
        elif git_toplevel(self.root):
            import subprocess  # lazy: git runs only when the project is searched (a hook's call names its files)

            command = ["git", "ls-files", "-z", "-co", "--exclude-standard"]
            try:
                proc = subprocess.run(command, cwd=self.root, capture_output=True, check=False, timeout=60)
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
        self._files = out
        return out

    def _matching(self, pattern: str) -> list[str]:
        out: list[str] = []
        templates: list[str] = []
        for path in self.yaml_files():
            try:
                text = read_confined(path, [self.root], self.config.max_file_size).decode("utf-8", "replace")
            except ReadRefused:
                continue
            if re.search(pattern, text):
                (templates if template_marker(text) else out).append(path)
        if templates:
            note = f"{len(templates)} Go/Helm template(s) skipped (not definitions; check the rendered output)"
            if note not in self.notes:
                self.notes.append(note)
            self.templates += [display_path(p) for p in templates if display_path(p) not in self.templates]
        return out

    def definition_paths(self) -> list[str]:
        """Files and folders holding the project's definitions (none outside a project)."""
        if self.config.definitions:
            return self._expand(self.config.definitions)
        if not self.in_project:
            return []
        return [display_path(p) for p in self._matching(KARTA_TEXT)]

    def fixture_paths(self) -> list[str]:
        """Where ``kartalint test`` and ``diff`` look for cases without a PATH (none outside a project)."""
        if self.config.fixtures:
            found = self._expand(self.config.fixtures)
            for path in found:
                note = f"the configured fixtures folder {path} does not exist (yet)"
                if not os.path.exists(path) and note not in self.notes:
                    self.notes.append(note)
            return [path for path in found if os.path.exists(path)]
        if not self.in_project:
            return []
        default = os.path.join(self.root, "fixtures")
        if os.path.isdir(default):
            return [display_path(default)]
        found = self._matching(FIXTURE_TEXT) + [p for p in self.yaml_files() if p.endswith(".predict.yaml")]
        return [display_path(p) for p in sorted(set(found))]

    def fixture_roots(self) -> list[str]:
        """Folders whose fixtures may be matched to a definition by group/version/kind (no folder name needed)."""
        roots = [self.root, os.path.join(self.root, "fixtures")]
        roots += [p for p in self._expand(self.config.fixtures) if os.path.isdir(p)]
        return [os.path.abspath(r) for r in roots]

    def _expand(self, entries: Sequence[str]) -> list[str]:
        out: list[str] = []
        for entry in entries:
            path = entry if os.path.isabs(entry) else os.path.join(self.root, entry)
            base, pattern = _glob_parts(path, self.root)
            if pattern:
                out.extend(glob_inside(base, pattern, self.root))
            else:
                out.append(path)
        return [display_path(p) for p in out]

    def selects_definition(self, path: str) -> bool:
        """Whether a file at ``path`` (it need not exist: a file at a git revision) is one of the
        project's definition files by its place: under the root, not excluded, and inside
        ``definitions:`` when it is set."""
        rel = self.config.relative(path)
        if rel is None or self.excluded(path):
            return False
        if not self.config.definitions:
            return True
        if self._definitions is None:
            relative = [self.config.relative(entry) for entry in self.config.definitions]
            self._definitions = PatternSet(["/" + r.rstrip("/") for r in relative if r])
        return self._definitions.match(rel)

    # -- reading files ------------------------------------------------------------------------
    def confinement(self, paths: Sequence[str] = (), allow_outside: Sequence[str] = ()) -> Confinement:
        """Where fixtures may read files: the project root, the folders given on the command line
        (and the folders of files given by name), and each ``--allow-outside`` folder; never a
        folder only the configuration names."""
        for folder in allow_outside:
            if not os.path.isdir(folder):
                raise ConfigError(f"--allow-outside {folder}: not a folder")
        given = [p if os.path.isdir(p) else os.path.dirname(os.path.abspath(p)) for p in paths if p != "-"]
        return Confinement([self.root, *self.allowed, *given, *allow_outside])

    # -- definitions ------------------------------------------------------------------------
    def index(self, explicit: Sequence[str] = (), bundled: bool = True) -> DefinitionIndex:
        """Definitions in resolution order: ``explicit`` paths, the project's, the bundled catalog."""
        from kartalint.load.definitions import DefinitionIndex, bundled_catalog  # lazy: not a lint's (start-up)

        index = DefinitionIndex()
        if explicit:
            index.add_layer("explicit", list(explicit))
        index.add_layer("project", [display_path(p) for p in self.definition_paths()], excluded=self.excluded)
        if bundled:
            catalog = bundled_catalog()
            if catalog:
                index.add_layer("bundled", [display_path(catalog)])
        return index


def load_project(
    config_path: str | None = None, start: str | None = None, text: str | None = None, *, rules: Mapping[str, Rule]
) -> Project:
    """The project around ``start`` (default: the current folder); ``text``: the configuration's
    content when in hand (an editor's buffer); ``rules``: the rules that exist, by id
    (``kartalint.rules.registry.RULES``), which the configuration may name."""
    start = os.path.abspath(start or os.getcwd())
    found = config_path or find_config(start)
    git_top = git_toplevel(start)
    if found:
        root = os.path.dirname(os.path.abspath(found))
        config = read_config(found, text, rules=rules)
    else:
        root = git_top or start
        config = Config(root=root)
    return Project(root=root, config=config, config_file=found, in_project=bool(found or git_top))
