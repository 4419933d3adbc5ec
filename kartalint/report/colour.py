"""Colour in the human-readable formats: ANSI SGR sequences around a word, only when the command
decided colour is on (``cli.common.use_color``: ``--color``, ``NO_COLOR``, ``FORCE_COLOR``,
``TERM=dumb``, a terminal). The guarded writer keeps ESC only in a coloured report
(``report.output``)."""

from __future__ import annotations

RED, GREEN, YELLOW, CYAN, DIM = "31", "32", "33", "36", "2"

# what each outcome of a test case looks like (``base.LABELS``)
OUTCOME_COLOURS = {"PASS": GREEN, "UPDATED": CYAN, "FAIL": RED, "ERROR": RED, "XFAIL": YELLOW, "XPASS": YELLOW}


def paint(text: str, code: str, on: bool = True) -> str:
    """``text`` in the colour ``code`` when ``on`` (and not empty)."""
    return f"\033[{code}m{text}\033[0m" if on and text else text


def count(number: int, label: str, code: str, on: bool = True) -> str:
    """``"2 failed"``, coloured only when the number is not 0 (a summary line's bad news)."""
    text = f"{number} {label}"
    return paint(text, code, on and number > 0)
