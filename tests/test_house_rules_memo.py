"""House rules on expressions, remembered for a run (``_house_memo``): a definition whose expression
(at the same place) an earlier definition of the run had is not sent it again, and gets what the
rules found there. What a run reports must stay what linting the files one by one reports (that
path remembers nothing): the same findings, positions, messages and order, a rule that fails said
once where it first fails; a rule that reads more than its unit is never remembered."""

from __future__ import annotations

import glob
import json
import os
import shutil
import textwrap

from conftest import BASE_DEFINITION, ROOT

from kartalint.jqlang.runner import BoundedRunner
from kartalint.lint import paths as lint_paths_module
from kartalint.lint.paths import lint_paths
from kartalint.lint.pipeline import lint_file
from kartalint.load.house_rules import HouseRule
from kartalint.model import Severity
from kartalint.project import read_config
from kartalint.rules import registry
from kartalint.rules._house_memo import by_path, pure

# expression rules that fire on nearly every expression (one naming $path, one not), one that fails
# on the expression only the 12th copy of the base definition has, and rules of the other units
RULES = textwrap.dedent(
    """\
    house-rules:
      - id: acme-every-expression
        for-each: expression
        when: 'length > 0'
        message: '\\($path[-1]): \\(.[:30])'
      - id: acme-reads-spec
        severity: info
        for-each: expression
        when: 'contains(".spec")'
        message: 'reads the spec: \\(.)'
      - id: acme-no-sevens
        for-each: expression
        when: 'if contains("// 7)") then error("cannot judge \\(.)") else false end'
        message: never
      - id: acme-component
        for-each: component
        when: '.name != null'
        message: 'component \\(.name)'
      - id: acme-status
        for-each: status-mapping
        when: 'length >= 1'
        message: '\\($path[-1])'
    """
)


def corpus(folder) -> list[str]:
    """The bundled catalog twice (the same expressions at the same places, and the catalog's own
    repeats at other places) and 20 copies of the base definition, its worker moved to another
    place in some of them, the 12th with an expression of its own."""
    os.makedirs(folder / "defs")
    files = []
    for round_ in range(2):
        for source in sorted(glob.glob(os.path.join(ROOT, "catalog", "*.yaml"))):
            target = folder / "defs" / f"{round_}-{os.path.basename(source)}"
            shutil.copy(source, target)
            files.append(str(target))
    extra_child = (
        "    - name: launcher\n      kind:\n        group: example.com\n        version: v1\n        kind: Launcher\n"
    )
    for i in range(20):
        text = BASE_DEFINITION.replace("example-com-trainer-v1", f"example-com-trainer-v{i}")
        if i % 3 == 1:  # the worker is the second child here: its expressions at other paths
            text = text.replace("    childComponents:\n", "    childComponents:\n" + extra_child)
        if i == 11:
            text = text.replace("(.replicas // 1)", "(.replicas // 7)")
        target = folder / "defs" / f"z-base-{i:02d}.yaml"
        target.write_text(text)
        files.append(str(target))
    return files


def one_by_one(files, config, strict_files=False):
    """Each file linted alone (``lint_file``: its house rules run with it, nothing remembered)."""
    return (lint_file(path, config, strict_files=strict_files) for path in files)


def _run(tmp_path, monkeypatch, rules: str):
    corpus(tmp_path)
    (tmp_path / ".kartalint.yaml").write_text(rules)
    config = read_config(str(tmp_path / ".kartalint.yaml"), rules=registry.RULES)
    monkeypatch.chdir(tmp_path)
    sent: list[str] = []
    submit = BoundedRunner.submit
    monkeypatch.setattr(
        BoundedRunner, "submit", lambda self, program, text: sent.append(text) or submit(self, program, text)
    )
    remembered = lint_paths(["defs"], config, jobs=1)
    # worker processes: each reads a copy of the rules with each chunk of files (equal, not the same)
    shared = lint_paths(["defs"], config, jobs=2)
    assert list(shared.findings) == list(remembered.findings)
    with monkeypatch.context() as patch:
        patch.setattr(lint_paths_module, "lint_files", one_by_one)
        alone = lint_paths(["defs"], config, jobs=1)
    return remembered, alone, sent


def _expression_units(texts: list[str], kind: str = "expression") -> tuple[int, int]:
    """(units of ``kind`` sent, of them as null: remembered) in the batches' texts."""
    units = [path for text in texts for item in json.loads(text) for path in item["x"]["u"].get(kind, [])]
    return len(units), sum(path is None for path in units)


def test_a_run_that_remembers_reports_what_linting_the_files_one_by_one_reports(tmp_path, monkeypatch):
    remembered, alone, sent = _run(tmp_path, monkeypatch, RULES)
    assert list(remembered.findings) == list(alone.findings)
    units, skipped = _expression_units([t for t in sent if t.startswith("[")])  # (the batches: what remembers)
    assert units and skipped > units / 3  # the second copy of the catalog was not sent again
    units, skipped = _expression_units([t for t in sent if t.startswith("[")], "status-mapping")
    assert units and skipped > units / 2  # (and the base definition's statuses after its first copy)
    rules = [f.rule for f in remembered.findings]
    assert rules.count("acme-every-expression") > 300 and "acme-reads-spec" in rules
    failed = [f for f in remembered.findings if f.rule == "house-rule-failed"]
    assert len(failed) == 1 and "cannot judge" in failed[0].message and "z-base-11.yaml" in failed[0].message
    # a remembered finding is placed on its own definition's expression, with its own path
    moved = [f for f in remembered.findings if f.rule == "acme-every-expression" and f.file.endswith("z-base-04.yaml")]
    assert any(f.path[:4] == ("spec", "structureDefinition", "childComponents", 1) for f in moved)
    assert any("replicasPath: .spec.roles[] | (.replicas" in f.message for f in moved)


def test_a_rule_that_reads_more_than_its_unit_is_not_remembered(tmp_path, monkeypatch):
    rules = RULES.replace("when: 'length > 0'", "when: 'length > 0 and ($definition.metadata.name | length > 0)'")
    remembered, alone, sent = _run(tmp_path, monkeypatch, rules)
    assert list(remembered.findings) == list(alone.findings)
    units, skipped = _expression_units([t for t in sent if t.startswith("[")])
    assert units and skipped == 0
    units, skipped = _expression_units([t for t in sent if t.startswith("[")], "status-mapping")
    assert units and skipped > units / 2  # (each kind on its own: the status rule is still pure)


def test_a_status_rule_that_reads_more_than_its_unit_is_not_remembered(tmp_path, monkeypatch):
    rules = RULES.replace("when: 'length >= 1'", "when: 'length >= ($definition.metadata.name | length | . - .)'")
    remembered, alone, sent = _run(tmp_path, monkeypatch, rules)
    assert list(remembered.findings) == list(alone.findings)
    assert sum(f.rule == "acme-status" for f in remembered.findings) > 100
    units, skipped = _expression_units([t for t in sent if t.startswith("[")], "status-mapping")
    assert units and skipped == 0
    units, skipped = _expression_units([t for t in sent if t.startswith("[")])
    assert units and skipped > units / 3


def _rule(when: str, message: str = "m") -> HouseRule:
    return HouseRule("acme-x", Severity.WARNING, "expression", when, message)


def test_pure_rules_read_nothing_but_their_unit_and_path():
    assert pure(_rule('contains("now") and test("input"; "x")', "uses \\($path[-1]): debug"))  # (words in text)
    assert pure(_rule(".now != null or .input", "\\(.)"))  # fields (a field named like a builtin is not one)
    for when, message in [
        ("$definition.metadata.name == .", "m"),
        ("true", "\\($definition.metadata.name)"),
        ("now > 0", "m"),
        ("true", "at \\(now)"),
        ("[inputs] | length > 0", "m"),
        ("debug | false", "m"),
        ("$__loc__.line > 0", "m"),
        ("$__kl_i > 3", "m"),
        ("input_filename == null", "m"),
        ('"\\(', "m"),  # (does not read as jq: never remembered)
    ]:
        assert not pure(_rule(when, message)), (when, message)


def test_the_path_is_part_of_the_key_only_where_a_rule_names_it():
    assert not by_path([_rule("length > 0", "\\(.)")])
    assert by_path([_rule("length > 0", "\\(.)"), _rule("true", "\\($path[-1])")])
    assert by_path([_rule('$path[-1] == "keyPath"')])
    assert not by_path([_rule('"$path" == .')])  # (the word in a string's text)
