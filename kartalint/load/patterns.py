"""Gitignore patterns (``exclude:``, ``per-file-ignores:``), matched relative to the project root.

Semantics are git's (the ``pathspec`` library, as yamllint uses it): ``vendor/`` is a folder
anywhere, ``/vendor`` only at the root, ``*.yaml`` a name anywhere, ``a/**/b.yaml`` any depth,
``!keep.yaml`` re-includes; the last pattern that matches decides.

A configuration may hold tens of thousands of patterns: compiling each to a regular expression
costs about 0.2 ms, so a pattern is compiled only when a path could match it: every literal piece
of a pattern (the text between wildcards and slashes) must occur in the path, which a substring
search tells without a regular expression. Patterns are read once per configuration.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kartalint.errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# (the patterns of this module are compiled when first used, by re's cache: most runs have no configuration)
_WILD = r"[*?/\\!\[\]]+"


def _pieces(pattern: str) -> tuple[str, ...]:
    """The literal pieces a path must contain for ``pattern`` to match it (conservative: a
    character class or an escape only splits pieces)."""
    return tuple(p for p in re.split(_WILD, pattern.rstrip()) if p)


class PatternSet:
    """An ordered list of gitignore patterns; ``match(relative path)``."""

    def __init__(self, patterns: Sequence[str]) -> None:
        """Gitignore ``patterns`` (blank lines and comments dropped), each filed under its longest literal piece so
        that only those that could match a path are compiled and tried."""
        self.patterns = [p for p in patterns if p.strip() and not p.lstrip().startswith("#")]
        self._pieces = [_pieces(p) for p in self.patterns]
        # each pattern filed under its longest literal piece: one substring search per distinct piece
        self._by_piece: dict[str, list[int]] = {}
        self._always: list[int] = []  # patterns without a literal piece (`*`, `**/`)
        for index, pieces in enumerate(self._pieces):
            if pieces:
                self._by_piece.setdefault(max(pieces, key=len), []).append(index)
            else:
                self._always.append(index)
        self._compiled: dict[int, Any] = {}
        self._specs: dict[tuple[int, ...], Any] = {}

    def __bool__(self) -> bool:
        """Whether there is any pattern."""
        return bool(self.patterns)

    def __getstate__(self) -> dict[str, Any]:  # sent to lint workers: the compiled parts stay here
        """The patterns only, for a lint worker: the compiled parts stay in this process."""
        return {"patterns": self.patterns}

    def __setstate__(self, state: dict[str, Any]) -> None:
        """The patterns handed to a worker, filed again there."""
        self.__init__(state["patterns"])  # type: ignore[misc]

    def match(self, relative: str) -> bool:
        """Whether the pattern list selects ``relative`` (a path relative to the root, ``/``-separated)."""
        if not self.patterns or not relative or relative.startswith("../") or relative == "..":
            return False
        found = list(self._always)
        for piece, indexes in self._by_piece.items():
            if piece in relative:
                found.extend(i for i in indexes if all(p in relative for p in self._pieces[i]))
        candidates = tuple(sorted(found))  # in the configuration's order: the last match decides
        if not candidates:
            return False
        spec = self._specs.get(candidates)
        if spec is None:
            import pathspec  # lazy: pathspec only where a pattern could match (start-up of lint)

            spec = self._specs[candidates] = pathspec.GitIgnoreSpec([self._pattern(i) for i in candidates])
        return bool(spec.match_file(relative))

    def _pattern(self, index: int) -> Any:
        if index not in self._compiled:
            import pathspec  # lazy: pathspec only where a pattern could match (start-up of lint)

            try:
                self._compiled[index] = pathspec.GitIgnoreSpec.from_lines([self.patterns[index]]).patterns[0]
            except Exception as exc:  # what check_pattern could not tell without compiling
                raise UsageError(f"pattern {self.patterns[index]!r} cannot be used: {exc}") from None
        return self._compiled[index]


_CLASS = r"\[[!^]?\]?[^\]]*\]"


def check_pattern(pattern: str) -> str | None:
    """Why a gitignore pattern cannot be used (None when it can), without compiling it (a
    configuration may hold tens of thousands)."""
    text = pattern.rstrip()
    trailing = len(text) - len(text.rstrip("\\"))
    if trailing % 2:
        return "it ends with an escaping backslash"
    if text == "!":
        return "a lone '!' negates nothing"
    for match in re.finditer(_CLASS, text):
        body = match.group()[1:-1].lstrip("!^")
        for low, high in re.findall(r"(.)-([^\]])", body):
            if low > high:
                return f"bad character range {low}-{high}"
    return None
