"""Configuration: ``.kartalint.yaml`` or ``[tool.kartalint]`` in ``pyproject.toml``.

.. code-block:: yaml

    rules:                      # per rule: off | error | warning | info
      jq-not-portable: off
      scale-path-not-null-safe: error
    exclude:                    # glob patterns (fnmatch, matched against the path as given)
      - "fixtures/**"
    max-file-size: 5242880      # bytes; larger files are refused with yaml-too-large
    crds: []                    # CRD files or directories for CRD-aware checks
    definitions: [catalog]      # the project's definitions: files, folders or globs
    fixtures: [fixtures]        # folders of fixtures, recordings and predictions
    explore:                    # `kartalint explore` (docs/explore.md)
      assume:                   # jq path -> JSON Schema the generated values must also satisfy
        .spec.tasks[].minAvailable: {maximum: 1}

The first of ``.kartalint.yaml``, ``.kartalint.yml`` and ``pyproject.toml`` (with a
``[tool.kartalint]`` table) found in the working directory or a parent is used, unless
``--config`` names a file.
"""

from __future__ import annotations

import fnmatch
import os
import sys
from dataclasses import dataclass, field
from typing import Any

from kartalint.load.documents import MAX_FILE_BYTES
from kartalint.model import Severity
from kartalint.rules import registry as rules

MAX_CONFIGURABLE_BYTES = 1 << 30
CONFIG_NAMES = (".kartalint.yaml", ".kartalint.yml", "pyproject.toml")
_OFF = {"off", "disable", "disabled", "false", "no"}


class ConfigError(Exception):
    """A configuration problem (exit code 2)."""


@dataclass
class Config:
    severities: dict[str, Severity | None] = field(default_factory=dict)  # None = disabled
    exclude: list[str] = field(default_factory=list)
    max_file_size: int = MAX_FILE_BYTES
    crds: list[str] = field(default_factory=list)
    definitions: list[str] = field(default_factory=list)
    fixtures: list[str] = field(default_factory=list)
    explore_assume: dict[str, Any] = field(default_factory=dict)  # explore.assume: jq path -> JSON Schema
    source: str | None = None

    def severity(self, rule_id: str) -> Severity | None:
        if rule_id in self.severities:
            return self.severities[rule_id]
        rule = rules.RULES.get(rule_id)
        return rule.severity if rule else Severity.ERROR

    def excluded(self, path: str) -> bool:
        norm = os.path.normpath(path)
        return any(fnmatch.fnmatch(norm, pattern) or fnmatch.fnmatch(path, pattern) for pattern in self.exclude)


def parse_config(data: Any, source: str) -> Config:
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the configuration must be a mapping")
    known = {"rules", "exclude", "max-file-size", "crds", "definitions", "fixtures", "explore"}
    unknown = sorted(str(k) for k in data if k not in known)
    if unknown:
        raise ConfigError(
            f"{source}: unknown configuration key(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})"
        )
    config = Config(source=source)
    rule_settings = data.get("rules") or {}
    if not isinstance(rule_settings, dict):
        raise ConfigError(f"{source}: 'rules' must map rule ids to off|error|warning|info")
    for rule_id, setting in rule_settings.items():
        if not isinstance(rule_id, str) or rule_id not in rules.RULES:
            raise ConfigError(f"{source}: unknown rule '{rule_id}' (see `kartalint rules`)")
        text = str(setting).lower() if not isinstance(setting, bool) else ("on" if setting else "off")
        if text in _OFF:
            config.severities[rule_id] = None
        elif text == "on":
            config.severities[rule_id] = rules.get(rule_id).severity
        else:
            try:
                config.severities[rule_id] = Severity.parse(text)
            except ValueError as exc:
                raise ConfigError(f"{source}: rule '{rule_id}': {exc}") from None
    exclude = data.get("exclude") or []
    if not isinstance(exclude, list) or not all(isinstance(p, str) for p in exclude):
        raise ConfigError(f"{source}: 'exclude' must be a list of glob patterns")
    config.exclude = list(exclude)
    size = data.get("max-file-size", MAX_FILE_BYTES)
    if not isinstance(size, int) or isinstance(size, bool) or not 0 < size <= MAX_CONFIGURABLE_BYTES:
        raise ConfigError(f"{source}: 'max-file-size' must be a number of bytes from 1 to {MAX_CONFIGURABLE_BYTES}")
    config.max_file_size = size
    config.explore_assume = _explore_assume(data.get("explore"), source)
    base = os.path.dirname(os.path.abspath(source)) if os.path.exists(source) else os.getcwd()
    for key in ("crds", "definitions", "fixtures"):
        paths = data.get(key) or []
        if isinstance(paths, str):
            paths = [paths]
        if not isinstance(paths, list) or not all(isinstance(p, str) and p for p in paths):
            raise ConfigError(f"{source}: '{key}' must be a list of paths")
        setattr(config, key, [p if os.path.isabs(p) else os.path.join(base, p) for p in paths])
    return config


def _explore_assume(explore: Any, source: str) -> dict[str, Any]:
    """``explore: {assume: {<jq path>: <JSON Schema>}}``; the paths and schemas themselves are
    checked by ``kartalint explore`` (kartalint.explore.assume)."""
    if explore is None:
        return {}
    if not isinstance(explore, dict) or set(explore) - {"assume"}:
        raise ConfigError(f"{source}: 'explore' must be a mapping with the key 'assume'")
    assume = explore.get("assume") or {}
    if not isinstance(assume, dict) or not all(isinstance(k, str) and isinstance(v, dict) for k, v in assume.items()):
        raise ConfigError(f"{source}: 'explore.assume' must map jq paths to JSON Schemas (mappings)")
    return dict(assume)


def read_config(path: str) -> Config:
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError as exc:
        raise ConfigError(f"cannot read configuration {path}: {exc.strerror or exc}") from None
    if path.endswith(".toml"):
        tool = _toml(raw, path).get("tool", {})
        data = tool.get("kartalint", {}) if isinstance(tool, dict) else {}
    else:
        from kartalint.load.documents import load_text

        try:
            source = load_text(raw.decode("utf-8-sig"), path)
        except UnicodeDecodeError as exc:
            raise ConfigError(f"{path}: not UTF-8 ({exc.reason} at byte {exc.start})") from None
        bad = [f for f in source.findings if f.severity == Severity.ERROR]
        if bad:
            raise ConfigError(f"{path}:{bad[0].line}:{bad[0].column}: {bad[0].message}")
        data = source.documents[0].data if source.documents else None
    return parse_config(data, path)


def _toml(raw: bytes, path: str) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10
        import tomli as tomllib
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None


def find_config(start: str | None = None) -> str | None:
    directory = os.path.abspath(start or os.getcwd())
    while True:
        for name in CONFIG_NAMES:
            candidate = os.path.join(directory, name)
            if os.path.isfile(candidate):
                if name != "pyproject.toml":
                    return candidate
                try:
                    with open(candidate, "rb") as handle:
                        if b"[tool.kartalint" in handle.read():
                            return candidate
                except OSError:
                    pass
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def load_config(explicit: str | None = None) -> Config:
    if explicit:
        return read_config(explicit)
    found = find_config()
    return read_config(found) if found else Config()
