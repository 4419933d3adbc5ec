"""What a part of a jq expression sees while ``kartalint.jqlang.places`` follows it (``Scope``):
the places of ``.``, the variables and functions bound, what is guarded or proven non-null; and
what a place is (``Path_``, ``Places``, ``COMPUTED``)."""

from __future__ import annotations

from kartalint.jqlang.syntax import Node
from kartalint.model import Frozen, set_field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

Path_ = tuple[str, ...]
Places = tuple[Path_ | None, ...]
COMPUTED: Places = (None,)  # the places of computed values (a constant, arithmetic, a construct)


class Scope(Frozen):
    """What a part of an expression sees: the places of ``.``, what is bound, what is guarded or never null."""

    __slots__ = ("base", "depth", "env", "funcs", "guarded", "present", "tested", "values")
    base: Places  # the places of `.`
    env: tuple[tuple[str, Places], ...]  # variables bound to input places
    funcs: tuple[tuple[str, Node], ...]  # user functions of arity 0, inlined at their calls
    guarded: bool
    tested: frozenset  # paths an enclosing select/if/and proves non-null, with their ancestors
    depth: int
    present: bool  # `.` is a value built or defaulted before (`[...] |`, `(P // {}) |`): never null
    values: frozenset  # variables bound to such a value (`(P // []) as $x`)

    def __init__(
        self,
        base: Places,
        env: tuple[tuple[str, Places], ...] = (),
        funcs: tuple[tuple[str, Node], ...] = (),
        guarded: bool = False,
        tested: frozenset = frozenset(),
        depth: int = 0,
        present: bool = False,
        values: frozenset = frozenset(),
    ) -> None:
        """The scope of an expression's input (``base``: the places of ``.``), with what is bound."""
        set_field(self, "base", base)
        set_field(self, "env", env)
        set_field(self, "funcs", funcs)
        set_field(self, "guarded", guarded)
        set_field(self, "tested", tested)
        set_field(self, "depth", depth)
        set_field(self, "present", present)
        set_field(self, "values", values)

    def var(self, name: str) -> Places:
        """The places bound to ``$name`` (the innermost binding), ``COMPUTED`` when not a place of the input."""
        for key, value in reversed(self.env):
            if key == name:
                return value
        return COMPUTED

    def func(self, name: str) -> Node | None:
        """The body of the user function ``name`` of arity 0 (the innermost definition), or None."""
        for key, value in reversed(self.funcs):
            if key == name:
                return value
        return None

    def but(self, **changes: Any) -> Scope:
        """This scope with ``changes``; a new ``base`` is not known present unless said so."""
        if "base" in changes and "present" not in changes:
            changes["present"] = False
        return self.replace(**changes)
