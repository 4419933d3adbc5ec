"""Map characters of a YAML scalar's value back to their place in the source text.

A jq error at "column 7" of an expression must point at the right character of the YAML file,
whatever the scalar style: plain, single- or double-quoted (with escapes), literal ``|`` or folded
``>`` (with chomping and indentation indicators). ``scalar_offsets`` re-reads the raw source of the
scalar and returns, for every character of the value, the index of the source character that
produced it. The reconstruction is checked against the value the YAML parser built; when they
disagree (an exotic construct), ``None`` is returned and callers fall back to the scalar's start.
"""

from __future__ import annotations

_ESCAPES = {
    "0": "\0",
    "a": "\a",
    "b": "\b",
    "t": "\t",
    "\t": "\t",
    "n": "\n",
    "v": "\v",
    "f": "\f",
    "r": "\r",
    "e": "\x1b",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    "N": "\x85",
    "_": "\xa0",
    "L": "\u2028",
    "P": "\u2029",
}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}


def scalar_offsets(source: str, start: int, end: int, style: str | None, value: str) -> list[int] | None:
    """Source index of each character of ``value`` (plus one entry for the end), or None."""
    try:
        if style in ("|", ">"):
            chars, offsets = _block(source, start, end, style)
        elif style == "'":
            chars, offsets = _flow(source, start + 1, end - 1, quote="'")
        elif style == '"':
            chars, offsets = _flow(source, start + 1, end - 1, quote='"')
        else:
            chars, offsets = _flow(source, start, end, quote=None)
    except (IndexError, ValueError):
        return None
    text = "".join(chars)
    if text == value:
        return [*offsets, end]
    # Chomping differences at the end of block scalars: keep the common prefix.
    if text.startswith(value) and text[len(value) :].strip("\n") == "":
        return [*offsets[: len(value)], offsets[len(value)] if len(value) < len(offsets) else end]
    if value.startswith(text) and value[len(text) :].strip("\n") == "":
        return offsets + [end] * (len(value) - len(text)) + [end]
    return None


def _flow(source: str, start: int, end: int, quote: str | None) -> tuple[list[str], list[int]]:
    """Plain and quoted scalars: line folding, plus quote/escape handling."""
    chars: list[str] = []
    offsets: list[int] = []
    i = start
    while i < end:
        ch = source[i]
        if ch in "\r\n":
            # Fold: drop trailing white space already emitted, count line breaks.
            while chars and chars[-1] in " \t" and offsets[-1] >= 0 and source[offsets[-1]] in " \t":
                chars.pop()
                offsets.pop()
            breaks = 0
            j = i
            while j < end and source[j] in " \t\r\n":
                if source[j] == "\n":
                    breaks += 1
                j += 1
            if breaks == 1:
                chars.append(" ")
                offsets.append(i)
            else:
                for _ in range(breaks - 1):
                    chars.append("\n")
                    offsets.append(i)
            i = j
            continue
        if quote == "'" and ch == "'" and i + 1 < end and source[i + 1] == "'":
            chars.append("'")
            offsets.append(i)
            i += 2
            continue
        if quote == '"' and ch == "\\":
            nxt = source[i + 1]
            if nxt in "\r\n":
                # Escaped line break: join without a space, skip the next line's indentation.
                j = i + 1
                if source[j] == "\r" and source[j + 1] == "\n":
                    j += 1
                j += 1
                while j < end and source[j] in " \t":
                    j += 1
                i = j
                continue
            if nxt in _HEX_ESCAPES:
                width = _HEX_ESCAPES[nxt]
                chars.append(chr(int(source[i + 2 : i + 2 + width], 16)))
                offsets.append(i)
                i += 2 + width
                continue
            chars.append(_ESCAPES[nxt])
            offsets.append(i)
            i += 2
            continue
        chars.append(ch)
        offsets.append(i)
        i += 1
    if quote is None:
        while chars and chars[-1] in " \t":
            chars.pop()
            offsets.pop()
    return chars, offsets


def _block(source: str, start: int, end: int, style: str) -> tuple[list[str], list[int]]:
    """Literal and folded block scalars (header line, indentation, chomping, folding)."""
    i = start + 1
    chomp = ""
    indent_indicator = 0
    while i < end and source[i] in "+-0123456789":
        if source[i] in "+-":
            chomp = source[i]
        else:
            indent_indicator = int(source[i])
        i += 1
    newline = source.index("\n", i)
    # Content lines between the header and the end mark.
    lines: list[tuple[int, str]] = []
    pos = newline + 1
    while pos < end:
        nl = source.find("\n", pos)
        nl_end = end if nl == -1 or nl >= end else nl
        lines.append((pos, source[pos:nl_end].rstrip("\r")))
        pos = nl_end + 1
    if indent_indicator:
        # Parent indentation + indicator: find the parent's indentation from the header line.
        line_start = source.rfind("\n", 0, start) + 1
        parent = len(source[line_start:start]) - len(source[line_start:start].lstrip(" "))
        indent = parent + indent_indicator
    else:
        indent = 0
        for _, text in lines:
            if text.strip(" "):
                indent = len(text) - len(text.lstrip(" "))
                break
    chars: list[str] = []
    offsets: list[int] = []
    prev_kind = None  # "text", "more", "empty"
    pending_breaks: list[int] = []
    for line_start, text in lines:
        body = text[indent:] if len(text) >= indent else ""
        if text[:indent].strip(" ") != "" and text.strip(" "):
            break
        if body == "" or (body.strip(" ") == "" and len(text) <= indent):
            pending_breaks.append(line_start)
            continue
        more = body[0] in " \t"
        if prev_kind is not None:
            if style == ">" and prev_kind == "text" and not more and not pending_breaks:
                chars.append(" ")
                offsets.append(line_start - 1)
            elif style == ">" and prev_kind == "text" and not more:
                for b in pending_breaks:
                    chars.append("\n")
                    offsets.append(b)
            else:
                chars.append("\n")
                offsets.append(line_start - 1)
                for b in pending_breaks:
                    chars.append("\n")
                    offsets.append(b)
        else:
            for b in pending_breaks:
                chars.append("\n")
                offsets.append(b)
        pending_breaks = []
        for k, ch in enumerate(body):
            chars.append(ch)
            offsets.append(line_start + indent + k)
        prev_kind = "more" if more else "text"
    if chars and chomp != "-":
        chars.append("\n")
        offsets.append(min(end, len(source)) - 1)
        if chomp == "+":
            for b in pending_breaks:
                chars.append("\n")
                offsets.append(b)
    return chars, offsets
