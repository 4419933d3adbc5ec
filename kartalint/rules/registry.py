"""The rule registry: every rule kartalint can report, collected from the modules that report them.

A rule (``kartalint.model.Rule``) is declared in the ``RULES`` of the family module that raises it,
next to its code: its id is a module constant (imported wherever else it is named), and the checks
of a Karta document that report it are in the module's ``CHECKS``. This module finds the family
modules (every module of ``kartalint/rules/`` but its machinery: a new module is a new family) and
collects both, rules in category order, checks in the order they run, and is the single source for severities,
``kartalint rules``, docs/rules.md, SARIF metadata and ``check_document``. Each rule's examples live in
``kartalint/rules/examples/<rule-id>/``: ``bad.yaml`` fires exactly that rule at the line marked
``# <- here`` (other files of the folder: a CRD, a definition the fixtures run against),
``good.yaml`` is the fix and is clean. ``tests/test_rule_examples.py`` runs all of them.

Categories:

* ``yaml``: reading the file;
* ``schema``: the Karta JSON Schema generated from the CRD (what the API server would reject);
* ``parity``: upstream validator rules (``KartaValidator.Validate``); upstream rejects the
  definition when one of them fires;
* ``jq``: jq expressions (parsing, compiling, Karta's restrictions, portability, safety);
* ``practice``: kartalint's own checks for definitions that upstream accepts but that misbehave;
* ``gang``: readiness for KAI Scheduler's gang scheduling;
* ``crd``: CRD-aware checks, active when the CRD of the root kind is given (``--crd``, ``crds:``);
* ``fixture``: fixture files of ``kartalint test`` (checked by ``kartalint lint`` too);
* ``test``: test-time rules, which need objects and pods: reported by ``kartalint test``;
* ``outcome``: the outcomes of ``kartalint test`` cases (a mismatch, a case that cannot run, a
  refused file, ``--require-fixtures``, ``--min-coverage``, ``--mutants``), named in SARIF and JUnit;
* ``config``: the configuration (``.kartalint.yaml``, in the editor) and inline suppressions.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from types import ModuleType

from kartalint.load import configfile, yaml_rules
from kartalint.model import Frozen, Rule, set_field
from kartalint.rules import plugins
from kartalint.rules.context import Check

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "CATEGORIES",
    "CHECKS",
    "EXAMPLES_DIR",
    "FAMILIES",
    "PLUGINS",
    "PLUGIN_PROBLEMS",
    "RULES",
    "Examples",
    "Rule",
    "examples",
    "get",
    "iter_rules",
]

CATEGORIES = ("yaml", "schema", "parity", "jq", "practice", "gang", "crd", "fixture", "test", "outcome", "config")
# The modules of kartalint/rules/ that are not a family of rules: the registry and what a check sees
# and runs in (a module named with a leading underscore is a family's helper, not a family).
MACHINERY = ("registry", "context", "document", "plugins")
# Rules declared where files are read (kartalint.load): the yaml rules of every file, and the
# configuration's.
_READING = (yaml_rules, configfile)


def find_families(folder: str, package: str) -> tuple[ModuleType, ...]:
    """Every family of rules of ``package`` (in ``folder``): each of its modules but its machinery,
    found (a new module is a new family: no list to edit), in the order their checks run: by name,
    except that a family runs after the families its ``AFTER`` names (``expressions`` after
    ``crd_paths``, whose CRD settles a null-safety question the jq rules ask)."""
    names = sorted(
        name[:-3]
        for name in os.listdir(folder)
        if name.endswith(".py") and not name.startswith("_") and name[:-3] not in MACHINERY
    )
    for name in names:  # (``__import__``: importlib is not on a one-file lint's path)
        __import__(f"{package}.{name}")
    modules = {name: sys.modules[f"{package}.{name}"] for name in names}
    ordered: list[str] = []
    while len(ordered) < len(names):
        ready = [n for n in names if n not in ordered and set(getattr(modules[n], "AFTER", ())) <= set(ordered)]
        if not ready:  # pragma: no cover - guarded by tests too
            raise RuntimeError(f"rule families wait on each other: {sorted(set(names) - set(ordered))}")
        ordered.append(ready[0])
    return tuple(modules[name] for name in ordered)


# The modules that declare rules, in the order their document checks (``CHECKS``) run; the
# families of plugins (the ``kartalint.rules`` entry points: ``kartalint.rules.plugins``) after them.
_OWN: tuple[ModuleType, ...] = (*_READING, *find_families(os.path.dirname(os.path.abspath(__file__)), __package__))
_PLUGIN_FAMILIES, PLUGINS, PLUGIN_PROBLEMS = plugins.load(CATEGORIES, {r.id for m in _OWN for r in m.RULES})
FAMILIES: tuple[Any, ...] = (*_OWN, *_PLUGIN_FAMILIES)


def _collect() -> list[Rule]:
    declared = [rule for module in FAMILIES for rule in module.RULES]
    ids = [rule.id for rule in declared]
    if len(set(ids)) != len(ids):  # pragma: no cover - guarded by tests too
        raise RuntimeError(f"duplicate rule id: {sorted({i for i in ids if ids.count(i) > 1})}")
    unknown = {rule.category for rule in declared} - set(CATEGORIES)
    if unknown:  # pragma: no cover - guarded by tests too
        raise RuntimeError(f"unknown rule category: {sorted(unknown)}")
    return sorted(declared, key=lambda rule: CATEGORIES.index(rule.category))  # stable: family order within


_ALL = _collect()
RULES: dict[str, Rule] = {rule.id: rule for rule in _ALL}
# The checks of one Karta document (``kartalint.rules.document``), in the order they run.
CHECKS: tuple[Check, ...] = tuple(check for module in FAMILIES for check in getattr(module, "CHECKS", ()))


def get(rule_id: str) -> Rule:
    """The rule ``rule_id`` (a ``KeyError`` when no module declares it)."""
    return RULES[rule_id]


def iter_rules(categories: Iterable[str] = CATEGORIES) -> list[Rule]:
    """The rules of ``categories``, in category order (by family, in declaration order, within one)."""
    wanted = set(categories)
    return [rule for rule in _ALL if rule.category in wanted]


EXAMPLES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "examples")
MARKER = "# <- here"
ALSO = "# also:"
RUN = "# run:"


class Examples(Frozen):
    """A rule's example folder: the bad and the good file, the other files they need, where the
    bad one fires (``file``, ``line``), rules it fires as well (``also``), and options of
    ``kartalint test`` (``run``) for test-time and outcome rules."""

    __slots__ = ("also", "bad", "file", "folder", "good", "line", "others", "run")
    folder: str
    bad: bytes
    good: bytes
    others: dict[str, bytes]
    file: str
    line: int
    also: tuple
    run: dict[str, tuple]  # "bad"/"good" -> options

    def __init__(
        self,
        folder: str,
        bad: bytes,
        good: bytes,
        others: dict[str, bytes] | None = None,
        file: str = "bad.yaml",
        line: int = 0,
        also: tuple = (),
        run: dict[str, tuple] | None = None,
    ) -> None:
        """The examples of ``folder``: its ``bad`` and ``good`` file."""
        set_field(self, "folder", folder)
        set_field(self, "bad", bad)
        set_field(self, "good", good)
        set_field(self, "others", {} if others is None else others)
        set_field(self, "file", file)
        set_field(self, "line", line)
        set_field(self, "also", also)
        set_field(self, "run", {} if run is None else run)

    def text(self, name: str) -> str:
        """The text of one of the folder's files (``bad.yaml``, ``good.yaml`` or another)."""
        data = self.bad if name == "bad.yaml" else self.good if name == "good.yaml" else self.others[name]
        return data.decode("utf-8", "replace")


def examples(rule_id: str) -> Examples | None:
    """The examples of a rule, or None when it has none (it needs a file over the size limit,
    or one the system refuses to read; a plugin's rule: its family's ``EXAMPLES`` folder)."""
    plugin = next((p for p in PLUGINS if rule_id in p.rules), None)
    folder = os.path.join(plugin.examples if plugin is not None and plugin.examples else EXAMPLES_DIR, rule_id)
    if plugin is not None and not plugin.examples:
        return None
    if not os.path.isdir(folder):
        return None
    files: dict[str, bytes] = {}
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), "rb") as handle:
            files[name] = handle.read()
    if "bad.yaml" not in files or "good.yaml" not in files:
        return None
    bad, good = files.pop("bad.yaml"), files.pop("good.yaml")
    where, line, also, run = "bad.yaml", 0, [], {}
    for name, data in [("bad.yaml", bad), ("good.yaml", good), *files.items()]:
        for number, text in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
            if MARKER in text and name != "good.yaml" and not line:
                where, line = name, number
            if text.startswith(ALSO) and name == "bad.yaml":
                also.append(text[len(ALSO) :].split()[0])
            if text.startswith(RUN) and name in ("bad.yaml", "good.yaml"):
                run[name[:-5]] = tuple(text[len(RUN) :].split())
    return Examples(folder, bad, good, files, where, line, tuple(also), run)
