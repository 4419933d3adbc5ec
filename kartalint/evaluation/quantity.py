"""Kubernetes resource quantities: parse (``500m``, ``16Gi``, ``1e3``, numbers) and format.

Values are kept as exact ``Fraction``s. ``value()`` rounds up to an integer as Kubernetes'
``Quantity.Value()`` does; ``milli_value()`` rounds up millis as ``Quantity.MilliValue()``.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Any

_QUANTITY = re.compile(
    r"^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(?:(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)|[eE]([+-]?[0-9]+))?$"
)
_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 1000),
    "": Fraction(1),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
}


class QuantityError(ValueError):
    """A value that is not a Kubernetes quantity, or one out of the range kartalint reads."""


def parse(value: Any) -> Fraction:
    """A quantity string or JSON number as an exact fraction; ``QuantityError`` otherwise."""
    if isinstance(value, bool):
        raise QuantityError(f"quantity {value!r} is not a number or a quantity string")
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise QuantityError(f"quantity {value!r} is not finite")
        return Fraction(value)
    if not isinstance(value, str):
        raise QuantityError(f"quantity {value!r} is not a number or a quantity string")
    match = _QUANTITY.match(value.strip())
    if match and len(match.group(1)) > 64:
        raise QuantityError(f"quantity {value[:40]!r}... ({len(value)} characters) is out of range")
    if not match:
        raise QuantityError(
            f"quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': {value!r}"
        )
    number = Fraction(match.group(1))
    if match.group(3) is not None:
        exponent = int(match.group(3))
        if abs(exponent) > 100:
            raise QuantityError(f"quantity {value!r} is out of range")
        return number * Fraction(10) ** exponent
    suffix = match.group(2) or ""
    return number * (_BINARY[suffix] if suffix in _BINARY else _DECIMAL[suffix])


def value(quantity: Fraction) -> int:
    """A quantity as a whole number, rounded up (Kubernetes' ``Quantity.Value()``): GPUs, bytes."""
    return math.ceil(quantity)


def milli_value(quantity: Fraction) -> int:
    """A quantity in thousandths, rounded up (Kubernetes' ``Quantity.MilliValue()``): CPU millicores."""
    return math.ceil(quantity * 1000)


def format_cpu(millis: int) -> str:
    """Millicores as a quantity: ``20``, ``500m``."""
    if millis % 1000 == 0:
        return str(millis // 1000)
    return f"{millis}m"


def format_memory(size: int) -> str:
    """Bytes in binary units when exact (``16Gi``), else decimal (``70M``), else plain."""
    if size == 0:
        return "0"
    for suffix in ("Ei", "Pi", "Ti", "Gi", "Mi", "Ki"):
        if size % _BINARY[suffix] == 0:
            return f"{size // _BINARY[suffix]}{suffix}"
    for suffix in ("E", "P", "T", "G", "M", "k"):
        unit = int(_DECIMAL[suffix])
        if size % unit == 0:
            return f"{size // unit}{suffix}"
    return str(size)


def memory_column(sizes: list[int]) -> list[str]:
    """Byte counts in one unit for all of them: the largest binary unit that divides every one
    exactly (``4096Gi``, ``4100Gi``), else the largest decimal one, else bytes; 0 stays ``0``."""
    nonzero = [abs(s) for s in sizes if s]
    unit, suffix = 1, ""
    for name in ("Ei", "Pi", "Ti", "Gi", "Mi", "Ki"):
        if nonzero and all(s % _BINARY[name] == 0 for s in nonzero):
            unit, suffix = _BINARY[name], name
            break
    else:
        for name in ("E", "P", "T", "G", "M", "k"):
            if nonzero and all(s % int(_DECIMAL[name]) == 0 for s in nonzero):
                unit, suffix = int(_DECIMAL[name]), name
                break
    return [f"{s // unit}{suffix}" if s else "0" for s in sizes]


def cpu_column(millis: list[int]) -> list[str]:
    """Millicores in one unit for all of them: cores when every value is whole (``2``), else
    millicores (``500m``, ``2000m``)."""
    if all(m % 1000 == 0 for m in millis):
        return [str(m // 1000) for m in millis]
    return [f"{m}m" if m else "0" for m in millis]


def signed(text: str) -> str:
    """A delta with its sign: ``+64Gi``, ``-500m``, ``0``."""
    return text if text.startswith("-") or text == "0" else f"+{text}"
