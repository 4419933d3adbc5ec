"""Rule families from other distributions: the entry point group ``kartalint.rules`` (docs/api.md).

A distribution registers a family as a module (or an object) with ``RULES`` (``kartalint.model.Rule``
records: ids, severities, categories, summaries, hints, why) and ``CHECKS`` (``Check`` records
over the check context, ``kartalint.rules.context``), the same shape as kartalint's own families::

    [project.entry-points."kartalint.rules"]
    acme = "acme_kartalint.rules"

The registry loads each family after kartalint's own, as one of them. A family that cannot be
imported or is not a family (an id kartalint or another plugin has, an unknown category, a check
of a rule it does not declare) is left out with one warning (``problems``), and the run goes on; a
check that raises reports ``house-rule-failed`` on the definition instead of a traceback.

Entry points are found by reading the ``entry_points.txt`` of the distributions on ``sys.path``
(what ``importlib.metadata`` reads), without importing ``importlib.metadata``: a one-file lint
without plugins stays as fast as before.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Collection

from kartalint.model import Finding, Frozen, Rule, Severity, set_field
from kartalint.rules.context import Check, Context
from kartalint.rules.house import HOUSE_RULE_FAILED, RULES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

GROUP = "kartalint.rules"
_GROUP_BYTES = GROUP.encode()
_ID = r"^[a-z0-9][a-z0-9-]*$"  # (compiled when first used: re's cache; most runs load no plugin)


class Plugin(Frozen):
    """A family loaded from another distribution: the distribution, its entry point, the rules."""

    __slots__ = ("distribution", "examples", "name", "rules", "value", "version")
    distribution: str
    version: str
    name: str  # the entry point's name
    value: str  # module[:attribute]
    rules: tuple[str, ...]
    examples: str | None  # a folder of <rule-id>/bad.yaml and good.yaml (the family's EXAMPLES)

    def __init__(
        self,
        distribution: str,
        version: str,
        name: str,
        value: str,
        rules: tuple[str, ...],
        examples: str | None = None,
    ) -> None:
        """The entry point ``name`` (``value``) of ``distribution`` at ``version``, and its rules."""
        set_field(self, "distribution", distribution)
        set_field(self, "version", version)
        set_field(self, "name", name)
        set_field(self, "value", value)
        set_field(self, "rules", rules)
        set_field(self, "examples", examples)

    @property
    def label(self) -> str:
        """The distribution and its version."""
        return f"{self.distribution} {self.version}"


def entry_points(paths: Collection[str] | None = None) -> list[tuple[str, str, str, str]]:
    """(distribution, version, entry point name, value) of every ``kartalint.rules`` entry point of
    the distributions installed on ``paths`` (default ``sys.path``), the first of a name only."""
    found: list[tuple[str, str, str, str]] = []
    seen: set[str] = set()
    for folder in sys.path if paths is None else paths:
        try:
            names = sorted(name for name in os.listdir(folder or ".") if name.endswith((".dist-info", ".egg-info")))
        except OSError:
            continue
        for name in names:
            distribution, _, version = name.rsplit(".", 1)[0].partition("-")
            key = distribution.lower().replace("_", "-")
            if key in seen:
                continue
            seen.add(key)
            try:  # (bytes: most distributions have no kartalint.rules entry point, nothing to decode)
                with open(os.path.join(folder, name, "entry_points.txt"), "rb") as handle:
                    data = handle.read()
            except OSError:
                continue
            if _GROUP_BYTES in data:
                text = data.decode("utf-8", "replace")
                found.extend((distribution, version, entry, value) for entry, value in _group(text))
    return found


def _group(text: str) -> list[tuple[str, str]]:
    """The ``name = value`` lines of the ``[kartalint.rules]`` section of an entry_points.txt."""
    if GROUP not in text:
        return []
    out, inside = [], False
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            inside = line == f"[{GROUP}]"
        elif inside and "=" in line and not line.startswith(("#", ";")):
            name, _, value = line.partition("=")
            out.append((name.strip(), value.split("[")[0].strip()))
    return out


def load(
    categories: Collection[str], taken: Collection[str], paths: Collection[str] | None = None
) -> tuple[list[Any], list[Plugin], list[str]]:
    """(families, plugins, problems): the rule families of the installed plugins, ready to be
    registered (their rules say where they come from, their checks never raise), what was loaded,
    and one warning per plugin left out. ``taken``: the ids of kartalint's rules."""
    families: list[Any] = []
    plugins: list[Plugin] = []
    problems: list[str] = []
    ids = set(taken)
    for distribution, version, name, value in entry_points(paths):
        where = f"plugin '{name}' ({distribution} {version}, {value})"
        try:
            family = _import(value)
            rules, checks = _family(family, categories, ids)
        except Exception as exc:  # whatever a plugin's import raises: one warning, the run goes on
            problems.append(f"{where} is not loaded: {type(exc).__name__}: {exc}")
            continue
        plugin = Plugin(distribution, version, name, value, tuple(r.id for r in rules), _examples(family))
        origin = f"plugin {plugin.label}"
        own = [rule.replace(origin=origin) for rule in rules]
        guarded = [Check(check.rules, _guarded(check.run, f"{where}: check {_name(check.run)}")) for check in checks]
        families.append(_Family(tuple(own), tuple(guarded)))
        plugins.append(plugin)
        ids.update(plugin.rules)
    return families, plugins, problems


def _import(value: str) -> Any:
    module_name, _, attribute = value.partition(":")
    __import__(module_name.strip())  # (importlib is not on a one-file lint's path)
    found: Any = sys.modules[module_name.strip()]
    for part in filter(None, attribute.strip().split(".")):
        found = getattr(found, part)
    return found


def _family(family: Any, categories: Collection[str], taken: Collection[str]) -> tuple[list[Rule], list[Check]]:
    """The rules and checks of a plugin's family (a ``ValueError`` saying what is wrong)."""
    rules = list(getattr(family, "RULES", None) or ())
    if not rules:
        raise ValueError("it declares no RULES")
    declared: set[str] = set()
    for rule in rules:
        if not isinstance(rule, Rule):
            raise ValueError(f"RULES holds {type(rule).__name__}, not kartalint.model.Rule")
        if not re.match(_ID, rule.id) or rule.id in taken or rule.id in declared:
            raise ValueError(f"rule id '{rule.id}' is taken or not an id (lowercase letters, digits and '-')")
        if rule.category not in categories:
            raise ValueError(f"rule '{rule.id}': unknown category '{rule.category}' (one of {', '.join(categories)})")
        if not isinstance(rule.severity, Severity):
            raise ValueError(f"rule '{rule.id}': its severity is not a kartalint.model.Severity")
        declared.add(rule.id)
    checks = list(getattr(family, "CHECKS", None) or ())
    for check in checks:
        if not isinstance(check, Check) or not callable(check.run):
            raise ValueError("CHECKS holds something that is not a kartalint.rules.context.Check")
        if not set(check.rules) <= declared:
            raise ValueError(f"a check reports rules it does not declare: {sorted(set(check.rules) - declared)}")
    return rules, checks


def _examples(family: Any) -> str | None:
    folder = getattr(family, "EXAMPLES", None)
    return os.path.abspath(folder) if isinstance(folder, str) and os.path.isdir(folder) else None


def _name(function: Callable[..., Any]) -> str:
    return f"{getattr(function, '__module__', '?')}.{getattr(function, '__qualname__', repr(function))}"


class _Family(Frozen):
    """A plugin's family as the registry holds it."""

    __slots__ = ("CHECKS", "RULES")
    RULES: tuple[Rule, ...]
    CHECKS: tuple[Check, ...]

    def __init__(self, RULES: tuple[Rule, ...], CHECKS: tuple[Check, ...]) -> None:
        """The family of ``RULES`` and ``CHECKS``."""
        set_field(self, "RULES", RULES)
        set_field(self, "CHECKS", CHECKS)


def _guarded(run: Callable[[Context], None], where: str) -> Callable[[Context], None]:
    """``run``, reporting what it raises as ``house-rule-failed`` at the top of the definition."""

    def check(ctx: Context) -> None:
        before = len(ctx.findings)
        try:
            run(ctx)
        except Exception as exc:  # a plugin's bug: a finding, never a traceback
            del ctx.findings[before:]

            line, column = (1, 1)
            if ctx.document is not None:
                span = ctx.document.span(())
                line, column = span.line, span.column
            file = ctx.document.source.path if ctx.document is not None else "<definition>"
            message = f"{where} raised {type(exc).__name__}: {exc}; its findings on this definition are left out"
            ctx.findings.append(
                Finding(
                    file,
                    line,
                    column,
                    line,
                    column + 1,
                    HOUSE_RULE_FAILED,
                    RULES[0].severity,
                    message,
                    (),
                    RULES[0].hint,
                )
            )

    return check
