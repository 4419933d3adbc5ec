"""Immutable records shared by every stage: severities, source spans, findings and rules; and what
makes a record (``Record``, ``Frozen``, ``Ordered``).

A record is a class with ``__slots__`` and a hand-written ``__init__``; the equality, hash,
ordering, ``repr`` and ``replace`` a dataclass would generate are written once, here. (A dataclass
writes its methods at import, by ``exec``-ing their source, and ``dataclasses`` imports
``inspect``, ``ast`` and ``dis``: for the records a one-file lint imports that was a quarter of its
start-up, docs/performance.md.) A record's fields are annotated at the top of its class, in order,
and named in its ``__slots__``; those starting with ``_`` (caches, state kept between calls) are
left out of equality, hash, ``repr`` and ``replace``. The fields are the parameters of
``__init__``, in the same order.
"""

from __future__ import annotations

import enum
from _thread import get_ident
from operator import attrgetter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, ClassVar, Generic, TypeVar

    _R = TypeVar("_R", bound="Record")
else:

    class Generic:
        """``typing.Generic`` at run time, where a one-file lint imports no ``typing`` (2-3 ms of its
        start-up, docs/performance.md): type parameters are the type checker's, ``Base["X"]`` is
        ``Base``. Write them as strings (``Generic["T"]``): the type variables are its too."""

        __slots__ = ()

        def __class_getitem__(cls, _parameters: object) -> type:
            """``cls`` itself: the parameters are the type checker's."""
            return cls


PathElement = str | int
Path = tuple[PathElement, ...]


set_field = object.__setattr__  # how a frozen record's ``__init__`` sets its fields
_SHOWING: set[tuple[int, int]] = set()  # records being shown (a record that holds itself shows "...")


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple]:
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda record: (one(record),)
    return attrgetter(*names) if names else lambda record: ()


class Record:
    """Equality and ``repr`` over the fields; a mutable record is not hashable (as a dataclass)."""

    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls) -> None:
        """Read the fields of a new record class from its annotations."""
        fields = tuple(name for name in cls.__annotations__ if not name.startswith("_"))
        if set(fields) != {name for name in cls.__dict__.get("__slots__", ()) if not name.startswith("_")}:
            raise TypeError(f"{cls.__qualname__}: the annotations at the class's top and its __slots__ differ")
        cls._fields = fields
        setattr(cls, "_key", staticmethod(_getter(fields)))  # noqa: B010 - a static method made once per class

    @staticmethod
    def _key(record: Any) -> tuple:
        """The values of the fields of ``record``, as a tuple (``record._key(record)``)."""
        return ()

    def __eq__(self, other: object) -> bool:
        """Whether ``other`` is a record of the same class with equal fields."""
        if other.__class__ is self.__class__:
            return self._key(self) == self._key(other)
        return NotImplemented

    # (a class that defines ``__eq__`` and not ``__hash__`` is not hashable)

    def __repr__(self) -> str:
        """``Class(field=value, ...)``."""
        key = (id(self), get_ident())
        if key in _SHOWING:
            return "..."
        _SHOWING.add(key)
        try:
            shown = ", ".join(f"{name}={value!r}" for name, value in zip(self._fields, self._key(self), strict=True))
        finally:
            _SHOWING.discard(key)
        return f"{type(self).__qualname__}({shown})"

    def replace(self: _R, **changes: Any) -> _R:
        """A new record with the same fields but ``changes`` (as ``dataclasses.replace``: its
        ``__init__`` runs, so the caches start afresh)."""
        fields = dict(zip(self._fields, self._key(self), strict=True))
        fields.update(changes)
        return type(self)(**fields)


class Frozen(Record):
    """A record whose fields are set once, by ``__init__`` (with ``set_field``), and hashable by
    them, as a frozen dataclass."""

    __slots__ = ()

    def __hash__(self) -> int:
        """The hash of the fields."""
        return hash(self._key(self))

    def __setattr__(self, name: str, value: Any) -> None:
        """Refused: a frozen record does not change."""
        raise AttributeError(f"cannot assign to field {name!r} of a {type(self).__name__}")

    def __delattr__(self, name: str) -> None:
        """Refused: a frozen record does not change."""
        raise AttributeError(f"cannot delete field {name!r} of a {type(self).__name__}")

    def __reduce__(self) -> tuple[type, tuple]:
        """Pickled (``lint -j``) and copied as a call of the class with the fields."""
        return type(self), self._key(self)


class Ordered(Frozen):
    """A frozen record ordered by its fields, in order (as ``dataclass(order=True)``)."""

    __slots__ = ()

    def __lt__(self, other: object) -> bool:
        """Whether the fields are less than ``other``'s."""
        if other.__class__ is self.__class__:
            return self._key(self) < self._key(other)
        return NotImplemented

    def __le__(self, other: object) -> bool:
        """Whether the fields are less than or equal to ``other``'s."""
        if other.__class__ is self.__class__:
            return self._key(self) <= self._key(other)
        return NotImplemented

    def __gt__(self, other: object) -> bool:
        """Whether the fields are greater than ``other``'s."""
        if other.__class__ is self.__class__:
            return self._key(self) > self._key(other)
        return NotImplemented

    def __ge__(self, other: object) -> bool:
        """Whether the fields are greater than or equal to ``other``'s."""
        if other.__class__ is self.__class__:
            return self._key(self) >= self._key(other)
        return NotImplemented


class Severity(enum.IntEnum):
    """Finding severity; ordered so that ``max()`` gives the worst."""

    INFO = 1
    WARNING = 2
    ERROR = 3

    def __str__(self) -> str:  # "error", "warning", "info"
        """The severity as written: "error", "warning" or "info"."""
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Severity:
        """The severity ``text`` names (any case), or ``ValueError``."""
        try:
            return cls[str(text).strip().upper()]
        except KeyError:
            raise ValueError(f"unknown severity {text!r} (expected error, warning or info)") from None


class Span(Ordered):
    """A 1-based, end-exclusive region of a source file."""

    __slots__ = ("column", "end_column", "end_line", "line")
    line: int
    column: int
    end_line: int
    end_column: int

    def __init__(self, line: int, column: int, end_line: int, end_column: int) -> None:
        """The span from ``line``, ``column`` to ``end_line``, ``end_column`` (excluded)."""
        set_field(self, "line", line)
        set_field(self, "column", column)
        set_field(self, "end_line", end_line)
        set_field(self, "end_column", end_column)

    @classmethod
    def point(cls, line: int, column: int) -> Span:
        """A span of one character at ``line``, ``column``."""
        return cls(line, column, line, column + 1)


class Finding(Ordered):
    """One problem at one place. Equality covers every field (message and severity included)."""

    __slots__ = ("column", "end_column", "end_line", "file", "hint", "line", "message", "path", "rule", "severity")
    file: str
    line: int
    column: int
    end_line: int
    end_column: int
    rule: str
    severity: Severity
    message: str
    path: Path
    hint: str

    def __init__(
        self,
        file: str,
        line: int,
        column: int,
        end_line: int,
        end_column: int,
        rule: str,
        severity: Severity,
        message: str,
        path: Path = (),
        hint: str = "",
    ) -> None:
        """The finding of ``rule`` in ``file`` from ``line``, ``column`` to ``end_line``, ``end_column``."""
        set_field(self, "file", file)
        set_field(self, "line", line)
        set_field(self, "column", column)
        set_field(self, "end_line", end_line)
        set_field(self, "end_column", end_column)
        set_field(self, "rule", rule)
        set_field(self, "severity", severity)
        set_field(self, "message", message)
        set_field(self, "path", path)
        set_field(self, "hint", hint)

    def to_dict(self) -> dict:
        """The finding as the JSON report writes it."""
        return {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "endLine": self.end_line,
            "endColumn": self.end_column,
            "rule": self.rule,
            "severity": str(self.severity),
            "message": self.message,
            "path": list(self.path),
            "hint": self.hint,
        }


def format_path(path: Path) -> str:
    """Render a path as ``spec.structureDefinition.childComponents[0].name``."""
    out = []
    for element in path:
        if isinstance(element, int):
            out.append(f"[{element}]")
        elif out:
            out.append("." + element if _plain_key(element) else f"[{element!r}]")
        else:
            out.append(element if _plain_key(element) else f"[{element!r}]")
    return "".join(out)


def _plain_key(key: str) -> bool:
    return bool(key) and all(ch.isalnum() or ch in "_-" for ch in key)


class Rule(Frozen):
    """A rule: a stable id, a default severity, a category, a one-line summary (the doc line of
    ``kartalint rules``), the fix hint findings carry by default, and why the rule exists; a house
    rule (``house-rules:`` of the configuration) or a plugin's rule says where it comes from
    (``origin``).

    Each module declares the rules it reports (``RULES``); ``kartalint.rules.registry`` collects
    them and finds their bad and good examples in ``kartalint/rules/examples/<id>/``."""

    __slots__ = ("category", "hint", "id", "origin", "security_severity", "severity", "summary", "why")
    id: str
    severity: Severity
    category: str
    summary: str
    hint: str
    why: str
    security_severity: str  # CVSS-like score for code scanning ("" when the rule is not about security)
    origin: str  # where a rule not of kartalint's own comes from: a house rule's configuration file, a plugin

    def __init__(
        self,
        id: str,
        severity: Severity,
        category: str,
        summary: str,
        hint: str = "",
        why: str = "",
        security_severity: str = "",
        origin: str = "",
    ) -> None:
        """The rule ``id``."""
        set_field(self, "id", id)
        set_field(self, "severity", severity)
        set_field(self, "category", category)
        set_field(self, "summary", summary)
        set_field(self, "hint", hint)
        set_field(self, "why", why)
        set_field(self, "security_severity", security_severity)
        set_field(self, "origin", origin)
