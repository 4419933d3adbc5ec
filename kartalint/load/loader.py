"""The YAML loader: libyaml's node tree with PyYAML's safe constructors, made to give JSON data
as Kubernetes does (timestamps stay strings, tags that do not fit are errors, NaN and huge
integers refused)."""

from __future__ import annotations

import yaml

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

BaseLoader: Any
try:  # pragma: no cover - the C loader ships with PyYAML wheels
    BaseLoader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    BaseLoader = yaml.SafeLoader


MAX_INT_BITS = 14_000  # about 4,200 decimal digits: Python prints (and JSON encodes) no longer integers


def _short(value: Any) -> str:
    text = repr(str(value))
    return text if len(text) <= 60 else text[:40] + f"...' ({len(str(value))} characters)"


class BadValue(yaml.constructor.ConstructorError):
    """A scalar that cannot become a JSON value (reported as ``yaml-bad-value``)."""


class Loader(BaseLoader):
    """Safe loader whose data is JSON: timestamps stay strings, as in Kubernetes' YAML-to-JSON;
    values that JSON cannot hold (binary, sets, NaN, huge integers, mistagged scalars) are errors."""

    def _bad(self, node: Any, message: str) -> BadValue:
        return BadValue(None, None, message, node.start_mark)

    def construct_yaml_int(self, node: Any) -> int:
        """An integer, or a problem at the node when it is not one or is too large for JSON."""
        try:
            value = super().construct_yaml_int(node)
        except (ValueError, TypeError):
            raise self._bad(node, f"{_short(node.value)} is not an integer ({node.tag.rsplit(':', 1)[-1]})") from None
        if abs(value).bit_length() > MAX_INT_BITS:
            raise self._bad(node, f"integer of {len(str(node.value))} characters is too large for JSON")
        return value

    def construct_yaml_float(self, node: Any) -> float:
        """A float, or a problem at the node when it is not a number, or NaN or infinite (JSON has neither)."""
        try:
            value = super().construct_yaml_float(node)
        except (ValueError, TypeError):
            raise self._bad(node, f"{_short(node.value)} is not a number") from None
        if value != value or value in (float("inf"), float("-inf")):
            raise self._bad(node, f"{node.value!r} (NaN or infinity) is not a JSON number")
        return value

    def construct_yaml_bool(self, node: Any) -> bool:
        """A boolean, or a problem at the node when it is not one."""
        try:
            return super().construct_yaml_bool(node)
        except (KeyError, ValueError, TypeError):
            raise self._bad(node, f"{_short(node.value)} is not a boolean") from None

    def construct_yaml_timestamp(self, node: Any) -> str:  # strings, as Kubernetes keeps them
        """A timestamp, checked and kept as the string Kubernetes sees."""
        try:
            super().construct_yaml_timestamp(node)
        except (ValueError, TypeError, AttributeError, OverflowError):
            raise self._bad(node, f"{_short(node.value)} is not a timestamp") from None
        return str(node.value)  # kept as the string Kubernetes sees

    def _not_json(self, node: Any) -> Any:
        raise self._bad(node, f"{node.tag.rsplit(':', 1)[-1]} values are not allowed (Kubernetes objects are JSON)")
