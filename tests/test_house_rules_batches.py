"""House rules over many files (``lint_paths``): the definitions go to the jq worker in batches
(``_house_jq.HouseEngine.queue``), one batch computing while the next files are checked. What a run
reports must be what linting the files one by one reports (findings, positions, order, a rule that
fails said once where it first fails), with a few round trips to the worker instead of one per
definition."""

from __future__ import annotations

import os
import shutil
import textwrap

from conftest import BASE_DEFINITION, ROOT

from kartalint.jqlang.runner import BoundedRunner
from kartalint.lint import paths as lint_paths_module
from kartalint.lint.paths import lint_paths
from kartalint.lint.pipeline import lint_file
from kartalint.project import read_config
from kartalint.rules import _house_jq, registry

EXAMPLES = os.path.join(ROOT, "tests", "data", "house-rules", "acme-base", "examples")

# rules of every unit that fire on most definitions, one that fails on a single definition in the
# middle of the run (the 33rd file: in the third batch)
RULES = textwrap.dedent(
    """\
    house-rules:
      - id: acme-definition
        for-each: definition
        when: '.metadata.name | test("-v[0-9]+$")'
        message: 'definition \\(.metadata.name)'
      - id: acme-component
        severity: error
        for-each: component
        when: '.name != null or .kind != null'
        message: 'component \\(.name // "root") of \\($definition.metadata.name)'
        hint: a hint
      - id: acme-status
        severity: info
        for-each: status-mapping
        when: 'length >= 1'
        message: '\\($path[-1]) has \\(length) matcher(s)'
      - id: acme-expression
        for-each: expression
        when: 'length > 0'
        message: '\\($path[-1]): \\(.[:30])'
      - id: acme-picky
        for-each: definition
        when: '.metadata.name | if endswith("-v22") then error("cannot judge \\(.)") else false end'
        message: never
    """
)


def corpus(folder) -> list[str]:
    """40 definitions: the acme examples (tests/data) and copies of the base definition."""
    os.makedirs(folder / "defs")
    files = []
    for name in sorted(os.listdir(EXAMPLES)):
        for kind in ("bad", "good"):
            target = folder / "defs" / f"{name}-{kind}.yaml"
            shutil.copy(os.path.join(EXAMPLES, name, f"{kind}.yaml"), target)
            files.append(str(target))
    for i in range(40 - len(files)):
        target = folder / "defs" / f"base-{i:02d}.yaml"
        target.write_text(BASE_DEFINITION.replace("example-com-trainer-v1", f"example-com-trainer-v{i}"))
        files.append(str(target))
    return files


def one_by_one(files, config, strict_files=False):
    """What lint did before batches: each file linted alone, its house rules run with it."""
    return (lint_file(path, config, strict_files=strict_files) for path in files)


def test_a_run_over_many_files_reports_what_linting_them_one_by_one_reports(tmp_path, monkeypatch):
    corpus(tmp_path)
    (tmp_path / ".kartalint.yaml").write_text(RULES)
    config = read_config(str(tmp_path / ".kartalint.yaml"), rules=registry.RULES)
    monkeypatch.chdir(tmp_path)
    batched = lint_paths(["defs"], config, jobs=1)
    with monkeypatch.context() as patch:
        patch.setattr(lint_paths_module, "lint_files", one_by_one)
        alone = lint_paths(["defs"], config, jobs=1)
    assert batched.findings == alone.findings  # a finding's equality covers every field
    rules = {f.rule for f in batched.findings}
    assert {"acme-definition", "acme-component", "acme-status", "acme-expression", "house-rule-failed"} <= rules
    failed = [f for f in batched.findings if f.rule == "house-rule-failed"]
    assert len(failed) == 1 and "cannot judge example-com-trainer-v22" in failed[0].message
    assert "acme-picky" not in rules
    assert len(batched.checked) == 40 and batched.karta_documents == 40


def test_a_run_sends_its_definitions_in_batches(tmp_path, monkeypatch):
    files = corpus(tmp_path)
    (tmp_path / ".kartalint.yaml").write_text(RULES.split("  - id: acme-picky")[0])
    config = read_config(str(tmp_path / ".kartalint.yaml"), rules=registry.RULES)
    monkeypatch.chdir(tmp_path)
    sent = []
    submit = BoundedRunner.submit
    monkeypatch.setattr(
        BoundedRunner, "submit", lambda self, program, text: sent.append(text) or submit(self, program, text)
    )
    result = lint_paths(["defs"], config, jobs=1)
    assert result.karta_documents == len(files) == 40
    batches = -(-len(files) // _house_jq.BATCH_DEFINITIONS)
    assert len(sent) == batches  # not one round trip per definition
    assert sum(text.count('{"p":0,"x":{"d":') for text in sent) == len(files)  # each definition once
    with monkeypatch.context() as patch:
        patch.setattr(lint_paths_module, "lint_files", one_by_one)
        sent.clear()
        lint_paths(["defs"], config, jobs=1)
        assert len(sent) == len(files)  # what the per-file path costs


def test_a_run_abandoned_half_way_leaves_the_engine_free(tmp_path, monkeypatch):
    """A batch still in flight when the caller stops reading is read, so the next run (here a file
    linted alone, as the editor does) gets its own reply."""
    from kartalint.lint.pipeline import lint_files

    files = corpus(tmp_path)
    (tmp_path / ".kartalint.yaml").write_text(RULES.split("  - id: acme-picky")[0])
    config = read_config(str(tmp_path / ".kartalint.yaml"), rules=registry.RULES)
    monkeypatch.chdir(tmp_path)
    outcomes = lint_files(files, config)
    first = next(outcomes)  # a batch is in flight now
    outcomes.close()
    again = lint_file(files[0], config)
    assert again.findings == first.findings
    assert any(f.rule == "acme-definition" for f in again.findings)


def test_a_rule_that_never_ends_on_one_definition_of_a_batch_costs_the_time_limit_twice(tmp_path, monkeypatch):
    """A batch out of time, then each rule alone on its definitions: the rule that never ends runs out
    of time once more, on its definition (three times before: the batch, the definition, the rule),
    and what is reported is what the files linted one by one report."""
    corpus(tmp_path)
    endless = RULES.replace(
        'if endswith("-v22") then error("cannot judge \\(.)") else false end',
        'if endswith("-v22") then (0 | until(false; . + 1)) else false end',
    )
    assert endless != RULES
    (tmp_path / ".kartalint.yaml").write_text(endless)
    config = read_config(str(tmp_path / ".kartalint.yaml"), rules=registry.RULES)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(_house_jq, "HOUSE_TIMEOUT", 1.0)
    timed_out = []
    for name in ("collect", "run_text"):
        original = getattr(BoundedRunner, name)

        def counted(self, *args, _original=original, **kwargs):
            result = _original(self, *args, **kwargs)
            timed_out.extend([result] if result.timed_out else [])
            return result

        monkeypatch.setattr(BoundedRunner, name, counted)
    batched = lint_paths(["defs"], config, jobs=1)
    assert len(timed_out) == 2
    failed = [f for f in batched.findings if f.rule == "house-rule-failed"]
    assert len(failed) == 1 and "did not finish within" in failed[0].message and "base-22.yaml" in failed[0].message
    with monkeypatch.context() as patch:
        patch.setattr(lint_paths_module, "lint_files", one_by_one)
        alone = lint_paths(["defs"], config, jobs=1)
    assert batched.findings == alone.findings
