"""Text XML 1.0 can hold, for the XML formats (JUnit): ``xml_text(value)``, ``xml_element(parent,
tag, text, **attributes)``, every forbidden character written visibly as ``\\xNN``/``\\uNNNN``
(``report.escape`` says why values from inputs are escaped)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

_XML_FORBIDDEN = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(value: Any) -> str:
    """``value`` as text XML 1.0 can hold: each forbidden character (control characters such as an
    ANSI escape, lone surrogates, U+FFFE/U+FFFF) is written visibly as ``\\xNN`` / ``\\uNNNN``."""
    text = str(value)
    return _XML_FORBIDDEN.sub(
        lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}", text
    )


def xml_element(parent: Any, tag: str, text: str | None = None, **attributes: Any) -> Any:
    """A child element of ``parent`` whose text and attribute values are ``xml_text``."""
    element = ET.SubElement(parent, tag, {k: xml_text(v) for k, v in attributes.items()})
    if text is not None:
        element.text = xml_text(text)
    return element
