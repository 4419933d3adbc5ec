"""What a one-file ``kartalint lint`` (the pre-commit hook's call) imports, measured by the start-up
benchmark (``bench/startup.py``: the lint under ``-X importtime`` in a fresh git repository, and
the modules it leaves in ``sys.modules``). Structure only: how long it takes is the benchmark's
business (docs/performance.md), never a test's."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT

from kartalint import report

_SPEC = importlib.util.spec_from_file_location("bench_startup", os.path.join(ROOT, "bench", "startup.py"))
assert _SPEC is not None and _SPEC.loader is not None
startup = importlib.util.module_from_spec(_SPEC)
sys.modules["bench_startup"] = startup
_SPEC.loader.exec_module(startup)

# What linting one valid definition never needs, in a repository without a configuration file.
NOT_ON_THE_LINT_PATH = {
    # third-party: slow to import, each needed only by other commands or other inputs
    "jsonschema": "fixture files only (kartalint's own structural validator checks definitions)",
    "ruamel": "scaffolding and --fix edits that keep comments",
    "hypothesis": "kartalint explore",
    "pygls": "the language server",
    "lsprotocol": "the language server",
    "pathspec": "exclude and per-file-ignores patterns of a configuration",
    "jq": "libjq compiles only what kartalint's parser cannot prove (every expression of this file it can)",
    # kartalint: the stages a lint does not run, and the version lookup (git, in a checkout)
    "kartalint.evaluation": "the evaluation engine (describe, test, summaries)",
    "kartalint.testing": "kartalint test",
    "kartalint.mutation": "kartalint test --mutants",
    "kartalint.diff": "kartalint diff",
    "kartalint.explore": "kartalint explore",
    "kartalint.lsp": "the language server",
    "kartalint.scaffold": "new/init, and kartalint.__version__ (asked of git in a checkout)",
    # standard library the lint has no use for
    "xml": "the JUnit reports",
    "csv": "describe --summary -f csv",
    "tempfile": "a report written to a file (-o) is made without it too",
    "multiprocessing": "lint -j N over more than 50 files",
    "concurrent": "lint -j N over more than 50 files",
    "importlib.metadata": "plugins are found by reading entry_points.txt",
    "asyncio": "the language server",
    "hashlib": "baseline fingerprints (kartalint.lint.baseline itself is light: it hashes only when asked)",
    "dataclasses": "records are plain classes with __slots__ (kartalint.model.Record): a dataclass execs its methods at import",
    "subprocess": "git ls-files, when the project is searched (a hook's call names its files)",
    "threading": "subprocess's, the jq worker's",
    "selectors": "subprocess's",
    "shutil": "argparse's terminal width, found without it (cli.help_width)",
    "bz2": "shutil's",
    "lzma": "shutil's",
    "difflib": "'did you mean' of a misspelt name",
    "kartalint.load.definitions": "the definition index (describe, test, catalog): Project.index imports it",
    "kartalint.schema.config": "the configuration's schema, read when a configuration file is",
    "unicodedata": "suppression comments in a file that is not ASCII (NFKC folding)",
    "copy": "a definition index copies what it reads (definitions added: not a one-file lint's)",
    "weakref": "copy's",
    "argparse": "the pre-commit hook's command line is plain: kartalint.cli.lint.plain_arguments reads it",
    "gettext": "argparse's",
    "locale": "gettext's",
    "kartalint.cli.parser": "the parser, for every command line but a plain one (kartalint.cli.PLAIN)",
    "contextlib": "try/except where a suppress() was (its import is more than the lint of a small file's statements)",
    "importlib": "the dispatch and the rule registry import with __import__ (importlib imports warnings)",
    "signal": "SIGTERM's handler is set through _signal, the C module signal wraps in enums made at import",
    "typing": "annotations only, imported under TYPE_CHECKING; a generic class's base is kartalint.model.Generic",
}


def _offending(modules: list[str], prefix: str) -> list[str]:
    return [m for m in modules if m == prefix or m.startswith(prefix + ".")]


@pytest.fixture(scope="module")
def one_file_lint() -> dict:
    """The imports of ``kartalint lint --allow-empty job.yaml`` in a fresh git repository."""
    return startup.imports(repeat=1, warm=False)


def test_a_one_file_lint_imports_nothing_it_does_not_use(one_file_lint: dict) -> None:
    start = set(one_file_lint["start"])  # (the interpreter's own: site, an editable install's finder)
    modules = [m for m in one_file_lint["modules"] if m not in start]
    assert one_file_lint["exit"] == 0
    assert "kartalint.rules.registry" in modules and "kartalint.lint.pipeline" in modules  # it did lint
    found = {prefix: _offending(modules, prefix) for prefix in NOT_ON_THE_LINT_PATH}
    assert {prefix: names for prefix, names in found.items() if names} == {}


def test_only_the_lint_command_and_the_selected_format_are_imported(one_file_lint: dict) -> None:
    """The command dispatch imports the command being run, and the report registry the format
    chosen (``text`` here): no other command's module, no other format's."""
    modules = set(one_file_lint["modules"])
    commands = {m for m in modules if m.startswith("kartalint.cli.")}
    assert commands == {"kartalint.cli.lint", "kartalint.cli.common"}  # a manual page only when shown
    specs = [*report.REPORTERS.values(), *report.TEST_REPORTERS.values(), *report.SUMMARIES.values()]
    specs += [*report.COMPARISONS.values(), *(s for formats in report.DOCUMENTS.values() for s in formats.values())]
    formats = {spec.partition(":")[0] for spec in specs}
    assert formats & modules == {"kartalint.report.text"}


def test_the_json_format_imports_its_own_reporter_only() -> None:
    found = startup.imports(repeat=1, arguments=["lint", "--allow-empty", "-f", "json", startup.NAME], warm=False)
    reporters = {m for m in found["modules"] if m in ("kartalint.report.json", "kartalint.report.text")}
    assert found["exit"] == 0
    assert reporters == {"kartalint.report.json"}
    assert _offending(found["modules"], "kartalint.report.sarif") == []


def test_importtime_is_read_as_self_times() -> None:
    """The benchmark's reading of ``-X importtime`` (the self time column, by module)."""
    log = (
        "import time: self [us] | cumulative | imported package\n"
        "import time:       120 |        120 |   _io\n"
        "import time:      2510 |      40310 | kartalint.rules.registry\n"
    )
    assert startup.parse_importtime(log) == {"_io": 120, "kartalint.rules.registry": 2510}


def test_start_up_is_frozen_once_and_the_run_still_collects() -> None:
    """What start-up made is moved out of the collector's sight once per process (the last
    collection at exit walked all of it again), the collector paused while it is made and resumed
    after; garbage made later, by a command or between two commands, is still collected, and a
    collector its caller turned off stays off."""
    script = """
import gc, json, os, sys, weakref
from kartalint.cli import main
class Cycle:
    pass
def garbage():
    cycle = Cycle()
    cycle.me = cycle
    return weakref.ref(cycle)
unfrozen, before = [], gc.get_freeze_count()  # the collections during start-up (before the freeze)
gc.callbacks.append(lambda phase, info: phase == "start" and gc.get_freeze_count() == before and unfrozen.append(1))
with open(os.devnull, "w", encoding="utf-8") as out:
    sys.stdout = out
    first = main(["rules"])
    frozen = gc.get_freeze_count() - before
    enabled = gc.isenabled()
    between = garbage()
    second = main(["rules"])
    gc.disable()
    third = main(["rules"])
    kept_off = not gc.isenabled()
    gc.enable()
    sys.stdout = sys.__stdout__
gc.collect()
print(json.dumps([first, second, third, frozen, enabled, kept_off, len(unfrozen), between() is None]))
"""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, env=startup.ENV)
    first, second, third, frozen, enabled, kept_off, start_up_collections, collected = json.loads(
        proc.stdout.splitlines()[-1]
    )
    assert (first, second, third) == (0, 0, 0)
    assert frozen > 10_000  # the modules, classes and functions of start-up
    assert start_up_collections == 0  # paused while the command line is parsed and the command imported
    assert enabled and kept_off
    assert collected  # the second command froze nothing
