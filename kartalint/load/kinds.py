"""The one place that knows what kind of document a file holds: a Karta definition (``kind:
Karta``), a fixture of ``kartalint test`` (``kind: KartaFixture``), or neither.

- on parsed data: ``is_karta``, ``is_fixture``;
- on text, before or instead of parsing: ``mentions_karta`` (a file that failed to load but looks
  like a definition or a fixture is reported, an unrelated YAML file skipped: discovery, lint,
  test, the language server), ``KARTA_TEXT`` and ``FIXTURE_TEXT`` (the project scan's quick look
  for definitions and fixtures in files it has not parsed).
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

KARTA_KIND = "Karta"
FIXTURE_KIND = "KartaFixture"
FIXTURE_API_VERSION = "kartalint/v1"

# The patterns of this module are compiled when first used (re's cache): a one-file lint needs none.
KARTA_TEXT = r"""(?m)^\s*["']?kind["']?\s*:\s*["']?Karta["']?\s*,?\s*$|structureDefinition"""
FIXTURE_TEXT = r"(?m)KartaFixture|^\s*events\s*:|^schemaVersion\s*:"


def is_karta(data: Any) -> bool:
    """A Karta document: ``kind: Karta``, or no kind but a Karta-shaped spec."""
    if not isinstance(data, dict):
        return False
    if data.get("kind") == KARTA_KIND:
        return True
    spec = data.get("spec")
    return "kind" not in data and isinstance(spec, dict) and "structureDefinition" in spec


def is_fixture(data: Any) -> bool:
    """A fixture of ``kartalint test``: ``kind: KartaFixture``."""
    return isinstance(data, dict) and data.get("kind") == FIXTURE_KIND


_MENTIONS_KARTA = rb"""["']?kind["']?\s*:\s*["']?Karta(?:Fixture)?\b|structureDefinition"""


def mentions_karta(path: str, text: str | None) -> bool:
    """Whether a file that holds no readable Karta or fixture document still looks like one
    (a broken definition must be reported, an unrelated YAML file skipped)."""
    if text:
        return bool(re.search(_MENTIONS_KARTA, text.encode("utf-8", "replace")))
    if path == "-":
        return False
    try:
        with open(path, "rb") as handle:
            tail = b""
            while True:
                chunk = handle.read(1 << 20)
                if not chunk:
                    return False
                if re.search(_MENTIONS_KARTA, tail + chunk):
                    return True
                tail = chunk[-64:]
    except OSError:
        return True  # unreadable: cannot tell, report it


def mentions_case(path: str, text: str | None) -> bool:
    """Whether a file that holds no readable document still looks like a fixture, a recording or
    a definition: ``test`` reports it broken; any other YAML (CloudFormation's ``!Ref``, a workflow)
    is skipped, as ``lint`` skips it."""
    return mentions_karta(path, text) or bool(text and re.search(FIXTURE_TEXT, text))
