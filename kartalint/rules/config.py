"""Compatibility: the configuration moved to ``kartalint.project`` (next to ``Project``), its
reading to ``kartalint.load.configfile``. Import from there."""

from __future__ import annotations

from kartalint.errors import ConfigError
from kartalint.load.configfile import CONFIG_NAMES, find_config
from kartalint.project import Config, load_config, parse_config, read_config

__all__ = ["CONFIG_NAMES", "Config", "ConfigError", "find_config", "load_config", "parse_config", "read_config"]
