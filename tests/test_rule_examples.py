"""Every rule is a unit: a why, a fix, and examples that run (docs/rules.md renders them).

For each rule of the registry, ``bad.yaml`` in ``kartalint/rules/examples/<rule-id>/`` must fire
exactly that rule (and the rules a ``# also:`` line names) at the line marked ``# <- here``, and
``good.yaml`` must be clean: no finding at all, not even info. Definition rules are linted (with
the folder's ``crd.yaml`` as CRD when there is one); test-time and outcome rules run
``kartalint test`` on the fixture against the folder's ``definition.yaml`` in a copy of the folder
(its own project), with the options of its ``# run:`` line, and read the SARIF results.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest

from kartalint.cli import main
from kartalint.lint import lint_paths
from kartalint.project import Config
from kartalint.rules import registry

# Rules whose example cannot be a file in the repository (each has its own tests).
WITHOUT_EXAMPLES = {
    "yaml-too-large": "a file over 5 MiB (tests/test_hostile_inputs.py, tests/test_load.py)",
    "file-unreadable": "a file the system refuses to read (tests/test_hostile_inputs.py)",
    "config-invalid": "a configuration file, shown in the editor (tests/test_lsp.py, tests/test_user_repository.py)",
    "house-rule-failed": "a configuration whose house rule cannot run (tests/test_house_rules.py)",
}
RULE_IDS = [rule.id for rule in registry.iter_rules()]


def _lint(path: str, crd: str) -> list:
    config = Config()
    if os.path.exists(crd):
        config.crds = [crd]
    result = lint_paths([path], config)
    assert not result.missing and not result.skipped_files, f"{path} was not checked"
    return [(f.rule, os.path.basename(f.file), f.line) for f in result.findings]


def _test(folder: str, name: str, options: tuple, tmp_path) -> list:
    work = tmp_path / "project"
    shutil.copytree(folder, work)
    (work / ".kartalint.yaml").write_text("definitions: [definition.yaml]\n")
    sarif = work / "out.sarif"
    cwd = os.getcwd()
    os.chdir(work)
    try:
        code = main(["test", name, "--definitions", "definition.yaml", *options, "--format", "sarif", "-o", str(sarif)])
    finally:
        os.chdir(cwd)
    results = json.loads(sarif.read_text())["runs"][0]["results"]
    found = []
    for result in results:
        location = result["locations"][0]["physicalLocation"]
        found.append(
            (
                result["ruleId"],
                os.path.basename(location["artifactLocation"]["uri"]),
                location.get("region", {}).get("startLine"),
            )
        )
    assert code in (0, 1)
    return found


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_rule_is_a_unit(rule_id):
    rule = registry.get(rule_id)
    assert rule.summary and rule.why and rule.hint, "every rule says what, why and how to fix"
    examples = registry.examples(rule_id)
    if rule_id in WITHOUT_EXAMPLES:
        assert examples is None
        return
    assert examples is not None, f"add kartalint/rules/examples/{rule_id}/bad.yaml and good.yaml"
    assert examples.line, "bad.yaml (or a file next to it) marks where the rule fires with '# <- here'"


@pytest.mark.parametrize("rule_id", [r for r in RULE_IDS if r not in WITHOUT_EXAMPLES])
def test_bad_example_fires_exactly_its_rule_and_good_is_clean(rule_id, tmp_path):
    rule = registry.get(rule_id)
    examples = registry.examples(rule_id)
    assert examples is not None
    folder = examples.folder
    expected = [(rule_id, examples.file, examples.line)]
    if rule.category in ("test", "outcome"):
        bad = _test(folder, "bad.yaml", examples.run.get("bad", ()), tmp_path / "bad")
        good = _test(folder, "good.yaml", examples.run.get("good", ()), tmp_path / "good")
    else:
        crd = os.path.join(folder, "crd.yaml")
        bad = _lint(os.path.join(folder, "bad.yaml"), crd)
        good = _lint(os.path.join(folder, "good.yaml"), crd)
    assert sorted(set(f for f in bad if f[0] not in examples.also)) == expected
    assert good == []


def test_example_folders_belong_to_rules():
    assert sorted(os.listdir(registry.EXAMPLES_DIR)) == sorted(set(RULE_IDS) - set(WITHOUT_EXAMPLES))


def test_examples_are_in_the_rules_document():
    from kartalint.report.rules_doc import rules_markdown

    text = rules_markdown()
    for rule_id in RULE_IDS:
        assert f"### `{rule_id}`" in text
    good = registry.examples("scale-path-not-null-safe")
    assert good is not None and good.text("good.yaml").strip() in text


def test_docs_rules_md_is_generated_from_the_registry(capsys):
    """docs/rules.md is `kartalint rules --format markdown` (the rule check of CONTRIBUTING.md runs
    this test, not every docs block)."""
    from conftest import ROOT

    from kartalint.report.rules_doc import rules_markdown

    assert main(["rules"]) == 0 and len(capsys.readouterr().out.splitlines()) == len(registry.RULES)
    with open(os.path.join(ROOT, "docs", "rules.md"), encoding="utf-8") as handle:
        assert handle.read() == rules_markdown(), (
            "docs/rules.md is stale: run `kartalint rules --format markdown > docs/rules.md`"
        )
