"""Text from inputs that cannot be turned against the reader of a report.

Values in a report come from untrusted files (a phase string of a fixture's object, a file name,
a jq message quoting a value). Written raw, a CR or LF starts a line of the attacker's choosing (in
GitHub Actions a line starting with ``::`` is a workflow command: forged annotations,
``::add-mask::``, ``::stop-commands::``; ``##[`` anywhere in a line is the older form), an ESC
sequence rewrites a terminal, a C1 control or a bidirectional override hides text.

- ``visible(value)``: a value with every such character shown as an escape (``\\n``, ``\\x1b``,
  ``\\u202e``), for the human-readable formats to use on every value taken from an input.
- ``xml_text`` and ``xml_element`` (``report.xml_escape``, apart: the XML formats' imports are not
  on the path of the other formats): text XML 1.0 can hold.
- ``guard_line(line)``: the last line of defence, applied by the report writer to every line of
  every format but ``github`` (``report.output.GuardedStream``): no line starts with ``::`` and
  none holds ``##[``, and no control character is left but TAB (and ESC for colour).
"""

from __future__ import annotations

import re

# C0 but TAB, DEL, C1, the Unicode line and paragraph separators, bidirectional embeddings,
# overrides and isolates
_UNICODE = "\u2028\u2029\u202a-\u202e\u2066-\u2069"
# (compiled on first use, by re's cache: a one-file lint without findings never needs two of them)
_IN_VALUE = f"[\x00-\x08\x0a-\x1f\x7f-\x9f{_UNICODE}]"
_IN_LINE = f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_UNICODE}]"  # (a line's own LF is not in it)
_IN_COLOURED_LINE = f"[\x00-\x08\x0b-\x1a\x1c-\x1f\x7f-\x9f{_UNICODE}]"  # ESC kept
_NAMED = {"\n": "\\n", "\r": "\\r", "\x1b": "\\x1b"}
_OLD_COMMAND = "##["


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    if char in _NAMED:
        return _NAMED[char]
    return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"


def visible(value: object) -> str:
    """``value`` as text with every control character escaped (LF included: a value stays on
    its line)."""
    text = str(value)
    if text.isprintable():  # (nearly every value: no character to escape, no pattern compiled)
        return text
    return re.sub(_IN_VALUE, _escape, text)


def _escape_in_line(match: re.Match[str]) -> str:
    """A control character as a JSON string writes it (``\\r``, ``\\u001b``): a JSON or SARIF
    document the guard had to escape still parses, to the same value."""
    char = match.group(0)
    return "\\r" if char == "\r" else f"\\u{ord(char):04x}"


def guard_line(line: str, commands: bool = False, colour: bool = False) -> str:
    """One line of output (its LF excluded) made safe: control characters escaped (but TAB, and
    ESC when ``colour``); unless ``commands`` (the github format), a leading ``::`` (after any
    whitespace, as the Actions runner reads it) and any ``##[`` are broken by an escape. The
    escapes inside a line are JSON's (``##[`` becomes ``#\\u0023[``): inside a string of a JSON
    report they read back as what they replace."""
    if not line.isprintable():  # (every character the patterns escape is not printable: Cc, Cf, Zl, Zp)
        line = re.sub(_IN_COLOURED_LINE if colour else _IN_LINE, _escape_in_line, line)
    if commands:
        return line
    if _OLD_COMMAND in line:
        line = line.replace(_OLD_COMMAND, "#\\u0023[")
    stripped = line.lstrip()
    if stripped.startswith("::"):
        indent = len(line) - len(stripped)
        line = line[:indent] + "\\x3a" + stripped[1:]
    return line
