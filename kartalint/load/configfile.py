"""Reading configuration files: ``.kartalint.yaml``, ``.kartalint.yml`` or ``pyproject.toml``
(``[tool.kartalint]``), and the files they ``extends:``.

This module reads and places; ``kartalint.schema.config`` says what a configuration may hold and
``kartalint.project`` gives the values their meaning. A
configuration is untrusted input (a pull request may change it): each file is read through
``confinement.read_confined`` (inside its repository, a regular file, at most ``MAX_FILE_BYTES``: a
``.kartalint.yaml`` that is a symbolic link to a file outside is refused, never read), TOML
through the bounded parser (``load.bounded``), ``extends:`` must stay inside the repository and may
not come back to a file already read, and every error names its file, line and column.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from kartalint.errors import ConfigError
from kartalint.load.bounded import ParseError, toml_loads
from kartalint.load.confinement import ReadRefused, inside, read_confined, repository_of, why_not_a_file
from kartalint.load.documents import MAX_FILE_BYTES, load_text
from kartalint.model import Path, Record, Rule, Severity

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The ids of the rules this module reports (constants: a misspelt id is an import error).
CONFIG_INVALID = "config-invalid"


# The rule this module reports (in the editor, on the configuration file being edited).
RULES = (
    Rule(
        CONFIG_INVALID,
        Severity.ERROR,
        "config",
        "The configuration (`.kartalint.yaml`, `[tool.kartalint]`) cannot be used: an unknown key or rule, a value of the wrong type, a bad pattern, a path outside the project, an `extends` cycle.",
        "fix the value at the place shown (`kartalint schema --config` is the configuration's JSON Schema)",
        why="Every command stops with exit 2 on a configuration it cannot use; the language server goes on with the default configuration and shows the problem here.",
    ),
)

CONFIG_NAMES = (".kartalint.yaml", ".kartalint.yml", "pyproject.toml")
MAX_EXTENDS = 16  # files in one chain of extends:


def _no_place(path: Path, key: bool = False) -> tuple[int, int]:
    return 0, 0


class ConfigFile(Record):
    """One configuration file as read: its data (the mapping) and where each value is."""

    __slots__ = ("data", "locate", "path")
    path: str
    data: dict[str, Any]
    locate: Callable[..., tuple[int, int]]  # (path, key=False) -> (line, column), 0 when unknown

    def __init__(self, path: str, data: dict[str, Any], locate: Callable[..., tuple[int, int]] = _no_place) -> None:
        """The configuration file at ``path``, its ``data``, and how to ``locate`` a value in it."""
        self.path = path
        self.data = data
        self.locate = locate

    @property
    def folder(self) -> str:
        """The folder of the configuration file: the relative paths it names start there."""
        return os.path.dirname(os.path.abspath(self.path))

    def error(self, message: str, path: Path = (), key: bool = False) -> ConfigError:
        """A ``ConfigError`` placed at the value (or key) at ``path``."""
        line, column = self.locate(path, key) if path else (0, 0)
        if self.path.endswith(".toml"):
            return ConfigError(f"{self.path}: [tool.kartalint] {message}", self.path)
        where = f"{self.path}:{line}:{column}" if line else self.path
        return ConfigError(f"{where}: {message}", self.path, line, column)


def find_config(start: str | None = None) -> str | None:
    """The first configuration file in ``start`` (default: the current folder) or a parent. A
    ``.kartalint.yaml`` counts whatever it is (reading one that is not a regular file inside its
    repository is refused, with that message: a link to ``/dev/zero`` is no default configuration);
    a ``pyproject.toml`` counts when it holds ``[tool.kartalint]``, or when it is a symbolic link
    out of its repository (it is not opened: reading it is then refused)."""
    directory = os.path.abspath(start or os.getcwd())
    while True:
        for name in CONFIG_NAMES:
            candidate = os.path.join(directory, name)
            if not os.path.lexists(candidate):
                continue
            if name != "pyproject.toml":
                return candidate
            boundary = repository_of(candidate)
            if not inside(candidate, boundary):
                return candidate
            try:
                if b"[tool.kartalint" in read_confined(candidate, [boundary], MAX_FILE_BYTES):
                    return candidate
            except ReadRefused:
                pass
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def read_text(path: str, text: str | None = None, boundary: str | None = None) -> ConfigFile:
    """One configuration file (``text``: its content when already in hand, as in an editor). Read
    from disk, it must resolve inside ``boundary`` (default: its repository, ``repository_of``):
    a configuration that is a symbolic link out of it is refused, never read."""
    if text is None and os.path.abspath(path) == os.devnull:  # `--config /dev/null`, named as it is: the empty one
        text = ""
    if text is None:
        try:
            raw = read_confined(path, [boundary or repository_of(path)], MAX_FILE_BYTES, "the configuration")
        except ReadRefused as exc:
            raise ConfigError(str(exc), path) from None
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise ConfigError(f"{path}: not UTF-8 ({exc.reason} at byte {exc.start})", path) from None
    if len(text) > MAX_FILE_BYTES:
        raise ConfigError(f"{path}: the configuration is over the {MAX_FILE_BYTES}-byte limit", path)
    if path.endswith(".toml"):
        tool = _toml(text, path).get("tool", {})
        data = tool.get("kartalint", {}) if isinstance(tool, dict) else {}
        config = ConfigFile(path, {})
        if not isinstance(data, dict):
            raise config.error("must be a table")
        config.data = data
        return config

    source = load_text(text, path)
    bad = [f for f in source.findings if f.severity == Severity.ERROR]
    if bad:
        raise ConfigError(f"{path}:{bad[0].line}:{bad[0].column}: {bad[0].message}", path, bad[0].line, bad[0].column)
    if len(source.documents) > 1:
        raise ConfigError(f"{path}: the configuration must be one YAML document", path)
    document = source.documents[0] if source.documents else None
    data = document.data if document is not None else None
    if data is None:
        data = {}

    def locate(where: Path, key: bool = False) -> tuple[int, int]:
        if document is None:
            return 0, 0
        span = document.span(where, key=key)
        return span.line, span.column

    config = ConfigFile(path, {}, locate)
    if not isinstance(data, dict):
        raise ConfigError(f"{path}:1:1: the configuration must be a mapping", path, 1, 1)
    config.data = data
    return config


def _toml(text: str, path: str) -> dict[str, Any]:
    try:
        return toml_loads(text)
    except ParseError as exc:
        raise ConfigError(exc.where(path), path, exc.line, exc.column) from None


def read_chain(path: str, boundary: str, text: str | None = None) -> list[ConfigFile]:
    """The configuration at ``path`` and every file it extends, the most basic first. ``extends:``
    is a path relative to the file that says it; it must resolve inside ``boundary`` (the
    repository) and never come back to a file of the chain."""
    chain: list[ConfigFile] = []
    seen: list[str] = []
    current, current_text = path, text
    while True:
        config = read_text(current, current_text, boundary)
        seen.append(os.path.realpath(current))
        chain.append(config)
        target = config.data.get("extends")
        if target is None:
            break
        if not isinstance(target, str) or not target or "\x00" in target:
            raise config.error("'extends' must be the path of another configuration file", ("extends",))
        resolved = os.path.normpath(os.path.join(config.folder, target))
        real = os.path.realpath(resolved)
        top = os.path.realpath(boundary)
        if not (real == top or real.startswith(top.rstrip(os.sep) + os.sep)):
            raise config.error(
                f"'extends' {target} resolves to {real}, outside the repository {top}: refused", ("extends",)
            )
        if real in seen:
            cycle = " -> ".join([*seen[seen.index(real) :], real])
            raise config.error(f"'extends' makes a cycle: {cycle}", ("extends",))
        if not os.path.isfile(resolved):
            raise config.error(
                f"'extends' {target}: {why_not_a_file(resolved, 'no such configuration file')}", ("extends",)
            )
        if len(chain) >= MAX_EXTENDS:
            raise config.error(f"'extends' goes deeper than {MAX_EXTENDS} files", ("extends",))
        current, current_text = resolved, None
    return list(reversed(chain))
