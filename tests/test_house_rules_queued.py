"""What a queued run of the house rules (``lint_paths``: batches, ``queue_house``) keeps and sends,
checked against linting the files one by one (``lint_file``: the document's data at hand, nothing
remembered, every unit sent): a queued run keeps its document without its data, so a finding on a
component is placed from the component names noted when it was queued; the expression and
status-mapping units whose findings are remembered are not walked (the input's ``"e"`` lists, per
kind, the ones sent)."""

from __future__ import annotations

import json
import textwrap

from conftest import BASE_DEFINITION

from kartalint.jqlang.runner import BoundedRunner
from kartalint.lint import paths as lint_paths_module
from kartalint.lint.paths import lint_paths
from kartalint.lint.pipeline import lint_file
from kartalint.project import read_config
from kartalint.rules import registry

COMPONENT_RULES = textwrap.dedent(
    """\
    house-rules:
      - id: acme-every-component
        for-each: component
        when: 'true'
        message: 'component \\(.name)'
    """
)

# a second child named by a number (not a string: placed at the child, not at its `name` key) and a
# third without a name
ODD_CHILDREN = (
    "    - name: 7\n      kind:\n        group: example.com\n        version: v1\n        kind: Seven\n"
    "    - kind:\n        group: example.com\n        version: v1\n        kind: Nameless\n"
)


def one_by_one(files, config, strict_files=False):
    """Each file linted alone (``lint_file``: its house rules run with it, its data at hand)."""
    return (lint_file(path, config, strict_files=strict_files) for path in files)


def _config(tmp_path, rules: str):
    (tmp_path / ".kartalint.yaml").write_text(rules)
    return read_config(str(tmp_path / ".kartalint.yaml"), rules=registry.RULES)


def test_a_queued_run_places_component_findings_as_a_file_linted_alone(tmp_path, monkeypatch):
    (tmp_path / "defs").mkdir()
    text = BASE_DEFINITION.replace("    childComponents:\n", "    childComponents:\n" + ODD_CHILDREN)
    for i in range(20):  # more than one batch
        (tmp_path / "defs" / f"d-{i:02d}.yaml").write_text(text.replace("trainer-v1", f"trainer-v{i}"))
    config = _config(tmp_path, COMPONENT_RULES)
    monkeypatch.chdir(tmp_path)
    queued = lint_paths(["defs"], config, jobs=1)
    with monkeypatch.context() as patch:
        patch.setattr(lint_paths_module, "lint_files", one_by_one)
        alone = lint_paths(["defs"], config, jobs=1)
    assert queued.findings == alone.findings  # a finding's equality covers every field
    lines = text.splitlines()
    places = {
        (f.line, f.column, f.end_line, f.end_column, f.message)
        for f in queued.findings
        if f.rule == "acme-every-component"
    }
    root = lines.index("    rootComponent:") + 1
    seven = lines.index("    - name: 7") + 1
    nameless = lines.index("    - kind:") + 1
    worker = lines.index("    - name: worker") + 1
    assert places == {
        (root, 5, root, 18, "component trainer"),  # the `rootComponent` key
        (seven, 7, seven, 8, "component 7"),  # the child's first character: its name is no string
        (nameless, 7, nameless, 8, "component null"),
        (worker, 7, worker, 11, "component worker"),  # the `name` key
    }
    assert sum(f.rule == "acme-every-component" for f in queued.findings) == 4 * 20


EXPRESSION_RULES = textwrap.dedent(
    """\
    house-rules:
      - id: acme-every-expression
        for-each: expression
        when: 'length > 0'
        message: '\\($path[-1]): \\(.)'
      - id: acme-every-status
        for-each: status-mapping
        when: 'length > 0'
        message: '\\($path[-1]): \\(.[0] | keys | join(","))'
    """
)


def _sent(tmp_path, monkeypatch, rules: str) -> tuple[list[dict], list, list]:
    """The definitions' inputs of a queued run's batches, its findings and those of the files
    linted one by one."""
    (tmp_path / "defs").mkdir()
    for i in range(40):  # the same expressions at the same places, but for one in the third batch
        text = BASE_DEFINITION.replace("trainer-v1", f"trainer-v{i:02d}")
        if i == 36:
            text = text.replace("(.replicas // 1)", "(.replicas // 4)")
        if i == 37:  # a status mapping of its own
            text = text.replace("          - byPhase: Running", "          - byPhase: Started")
        (tmp_path / "defs" / f"d-{i:02d}.yaml").write_text(text)
    config = _config(tmp_path, rules)
    monkeypatch.chdir(tmp_path)
    texts: list[str] = []
    submit = BoundedRunner.submit
    monkeypatch.setattr(
        BoundedRunner, "submit", lambda self, program, text: texts.append(text) or submit(self, program, text)
    )
    queued = lint_paths(["defs"], config, jobs=1)
    with monkeypatch.context() as patch:
        patch.setattr(lint_paths_module, "lint_files", one_by_one)
        alone = lint_paths(["defs"], config, jobs=1)
    inputs = [item["x"] for text in texts if text.startswith("[") for item in json.loads(text)]
    return inputs, list(queued.findings), list(alone.findings)


def test_the_units_sent_are_listed_and_the_remembered_ones_not(tmp_path, monkeypatch):
    inputs, queued, alone = _sent(tmp_path, monkeypatch, EXPRESSION_RULES)
    assert queued == alone
    assert len(inputs) == 40
    for given in inputs:
        assert set(given["e"]) == {"expression", "status-mapping"}
        for kind in ("expression", "status-mapping"):
            units = given["u"][kind]
            assert given["e"][kind] == [index for index, path in enumerate(units) if path is not None]
    # the first batch: all sent (nothing read yet); the third (queued once the first was read): what
    # the first found is remembered
    for kind in ("expression", "status-mapping"):
        assert all(len(given["e"][kind]) == len(given["u"][kind]) > 0 for given in inputs[:16])
        assert all(given["e"][kind] == [] for given in inputs[32:36] + inputs[38:])
    changed = [inputs[36]["u"]["expression"][index] for index in inputs[36]["e"]["expression"]]
    assert changed == [["spec", "structureDefinition", "childComponents", 0, "scaleDefinition", "replicasPath"]]
    assert inputs[36]["e"]["status-mapping"] == []
    changed = [inputs[37]["u"]["status-mapping"][index] for index in inputs[37]["e"]["status-mapping"]]
    assert changed == [
        ["spec", "structureDefinition", "rootComponent", "statusDefinition", "statusMappings", "running"]
    ]
    assert sum("(.replicas // 4)" in f.message for f in queued) == 1
    statuses = [f.message for f in queued if f.rule == "acme-every-status"]
    assert (
        len(statuses) == 80
        and statuses.count("running: byPhase") == 40
        and statuses.count("failed: byConditions") == 40
    )
    # a remembered finding is placed on its own file's status
    assert len({(f.file, f.line) for f in queued if f.rule == "acme-every-status"}) == 80


def test_rules_that_are_not_remembered_send_every_expression_and_no_list(tmp_path, monkeypatch):
    rules = EXPRESSION_RULES.replace("'length > 0'", "'length > 0 and ($definition.metadata.name | length > 0)'")
    inputs, queued, alone = _sent(tmp_path, monkeypatch, rules)
    assert queued == alone
    assert inputs and all("e" not in given and None not in given["u"]["expression"] for given in inputs)
