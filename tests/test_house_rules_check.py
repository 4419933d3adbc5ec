"""`kartalint rules --check`: each house rule on its examples (the bad one raises it, at the line
marked `# <- here`; the good one does not), and a rule that cannot run fails once, at its place in
the configuration. Acme's base (tests/data/house-rules, docs/house-rules.md) passes."""

from __future__ import annotations

import json
import os
import re
import shutil
import time

import pytest
from conftest import ROOT, run_cli
from test_house_rules import line_of

ACME = os.path.join(ROOT, "tests", "data", "house-rules", "acme-base")
IDS = ["acme-role-selector", "acme-no-gpu-limits", "acme-gang-for-completion", "acme-name", "acme-inference-degraded"]


@pytest.fixture
def acme(tmp_path):
    """A project whose configuration is Acme's base (its own folder: the project root)."""
    folder = tmp_path / "acme"
    shutil.copytree(ACME, folder)
    (folder / "kartalint-base.yaml").rename(folder / ".kartalint.yaml")
    return folder


def test_the_organisation_base_passes_its_check(acme):
    code, out, err = run_cli(["rules", "--check"], cwd=acme)
    assert code == 0, out + err
    assert out.splitlines() == [
        *[
            f"PASS {rule_id} (.kartalint.yaml:{line_of((acme / '.kartalint.yaml').read_text(), 'id: ' + rule_id)})"
            for rule_id in IDS
        ],
        "5 rule(s) checked: 5 passed, 0 failed",
    ]
    code, out, err = run_cli(["rules", "--check", "-q"], cwd=acme)
    assert code == 0 and out.splitlines() == ["5 rule(s) checked: 5 passed, 0 failed"], out + err
    code, out, err = run_cli(["rules", "--check", "--format", "json"], cwd=acme)
    document = json.loads(out)
    assert document["schemaVersion"] == 1 and [r["outcome"] for r in document["rules"]] == ["passed"] * 5
    selector = document["rules"][0]
    assert selector["bad"].endswith("examples/acme-role-selector/bad.yaml") and selector["marked"] == 42
    assert "5 rule(s) checked" in err


def test_each_example_is_what_its_rule_says(acme):
    """The bad example of each of Acme's rules raises exactly that house rule, at its marked line, and
    the good one is clean of every rule (house and kartalint's)."""
    for rule_id in IDS:
        folder = acme / "examples" / rule_id
        _code, out, _ = run_cli(["lint", "--format", "json", "-q", str(folder / "good.yaml")], cwd=acme)
        assert json.loads(out)["findings"] == [], rule_id
        _code, out, _ = run_cli(["lint", "--format", "json", "-q", str(folder / "bad.yaml")], cwd=acme)
        found = json.loads(out)["findings"]
        marked = line_of((folder / "bad.yaml").read_text(), "# <- here")
        if rule_id == "acme-inference-degraded":  # only in definitions/inference/ (its paths)
            assert found == []
            continue
        assert [(f["rule"], f["line"]) for f in found] == [(rule_id, marked)], rule_id


def _break(acme, rule_id, which, old, new):
    path = acme / "examples" / rule_id / which
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    return path


def test_wrong_examples_fail_where_they_are_wrong(acme):
    # the bad example no longer raises its rule
    _break(acme, "acme-name", "bad.yaml", "  name: web-frontend  # <- here", "  name: apps-deployment-v1  # <- here")
    # the bad example raises it at another line than the one marked
    _break(acme, "acme-role-selector", "bad.yaml", "    - name: replica  # <- here", "    - name: replica")
    _break(
        acme,
        "acme-role-selector",
        "bad.yaml",
        "  name: kubeflow-org-pytorchjob-v1",
        "  name: kubeflow-org-pytorchjob-v1  # <- here",
    )
    # the good example raises it
    _break(acme, "acme-gang-for-completion", "good.yaml", "  optimizationInstructions:", "  optimizationInstructionz:")
    # an example that is no definition
    (acme / "examples" / "acme-no-gpu-limits" / "good.yaml").write_text("kind: ConfigMap\n")
    code, out, _ = run_cli(["rules", "--check"], cwd=acme)
    assert code == 1
    lines = out.splitlines()
    assert lines[-1] == "5 rule(s) checked: 1 passed, 4 failed"
    role = (acme / "examples" / "acme-role-selector" / "bad.yaml").read_text()
    marked, fires = line_of(role, "# <- here"), line_of(role, "- name: replica")
    assert (
        f"    examples/acme-role-selector/bad.yaml:{marked}:1: acme-role-selector fires at line(s) {fires} of the bad "
        f"example, not at line {marked} marked `# <- here`"
    ) in lines
    assert (
        "    examples/acme-name/bad.yaml:5:1: the bad example does not raise acme-name (it is marked `# <- here` at line 5)"
        in lines
    )
    assert any(
        line.startswith(
            "    examples/acme-gang-for-completion/good.yaml:6:3: the good example raises acme-gang-for-completion: "
        )
        for line in lines
    ), lines
    assert "    examples/acme-no-gpu-limits/good.yaml: the example holds no Karta definition" in lines
    assert "PASS acme-inference-degraded" in out
    code, quiet, _ = run_cli(["rules", "--check", "-q"], cwd=acme)  # the hook's: failures and the summary
    assert code == 1 and quiet.splitlines() == [
        line for line in lines if not line.startswith(("PASS ", "NO EXAMPLES "))
    ]
    code, out, _ = run_cli(["rules", "--check", "--format", "github"], cwd=acme)
    assert code == 1 and len(out.splitlines()) == 4
    assert (
        "::error file=examples/acme-name/bad.yaml,line=5,col=1,title=kartalint rules --check acme-name::"
        "the bad example does not raise acme-name (it is marked `# <- here` at line 5)"
    ) in out.splitlines()


def test_a_rule_that_cannot_run_fails_once_at_its_place(acme, monkeypatch):
    config = acme / ".kartalint.yaml"
    text = config.read_text()
    gpu_when = next(line for line in text.splitlines() if 'contains("limits")' in line)
    text = text.replace(gpu_when, "    when: 'input | test(\"limits\")'")
    text = text.replace(
        "      (.spec.structureDefinition.rootComponent.kind // {}) as $kind",
        '      (.spec.structureDefinition.rootComponent.kind.nope | test("x")) as $kind',
    )
    text = text.replace(
        "for-each: component\n", "for-each: component\n    paths: [nowhere/]\n"
    )  # examples run whatever paths say
    config.write_text(text)
    code, out, err = run_cli(["rules", "--check"], cwd=acme)
    assert code == 1, err
    lines = out.splitlines()
    gpu = line_of(text, "id: acme-no-gpu-limits") + 3
    name = line_of(text, "id: acme-name") + 3
    assert lines[lines.index(f"FAIL acme-no-gpu-limits (.kartalint.yaml:{gpu - 3})") + 1] == (
        f"    .kartalint.yaml:{gpu}:11: house rule 'acme-no-gpu-limits' cannot run: `when` is refused: "
        "'input' reads further inputs (house rules run sandboxed: no input, env, $ENV, import, debug or halt); it is skipped"
    )
    failed = lines[lines.index(f"FAIL acme-name (.kartalint.yaml:{name - 3})") + 1]
    assert failed.startswith(
        f"    .kartalint.yaml:{name}:11: house rule 'acme-name': `when` failed: null (null) cannot be matched"
    )
    assert "(on examples/acme-name/" in failed and failed.endswith("; the rule is skipped")
    assert lines[lines.index(f"FAIL acme-name (.kartalint.yaml:{name - 3})") + 2].startswith("PASS ")  # said once
    assert "PASS acme-role-selector" in out and "Traceback" not in err


def test_without_house_rules_there_is_nothing_to_check(tmp_path):
    (tmp_path / ".kartalint.yaml").write_text("rules: {jq-not-portable: off}\n")
    code, out, _err = run_cli(["rules", "--check"], cwd=tmp_path)
    assert code == 0 and out.strip().endswith("nothing to check")
    code, out, _err = run_cli(["rules", "--check", "--format", "github"], cwd=tmp_path)
    assert code == 0 and out == ""


def test_the_hooks_quiet_check_says_failures_and_the_summary_only(tmp_path):
    """`rules --check -q` (the pre-commit hook's): a rule without examples is not listed (it printed
    a `NO EXAMPLES` line for each one, where docs/ci.md says failures and the summary)."""
    (tmp_path / ".kartalint.yaml").write_text(
        "house-rules:\n"
        "  - {id: acme-a, for-each: component, when: '.name == null', message: 'no name'}\n"
        "  - {id: acme-b, for-each: definition, when: 'false', message: 'never'}\n"
    )
    code, out, _err = run_cli(["rules", "--check"], cwd=tmp_path)
    assert code == 0 and out.count("NO EXAMPLES ") == 2
    code, quiet, _err = run_cli(["rules", "--check", "-q"], cwd=tmp_path)
    assert code == 0 and quiet.splitlines() == out.splitlines()[-1:], quiet


@pytest.mark.parametrize(
    "argv, message",
    [
        (["rules", "--check", "acme-name"], "--check checks every house rule: give no RULE"),
        (["rules", "--check", "--markdown"], "--format markdown: rules --check writes text, json, github"),
        (["rules", "--format", "github"], "--format github: rules writes text, json, markdown"),
    ],
)
def test_options_that_do_not_go_together(acme, argv, message):
    code, out, err = run_cli(argv, cwd=acme)
    assert code == 2 and out == "" and message in err


def test_the_docs_page_shows_the_tested_base_and_examples():
    """docs/house-rules.md shows Acme's base and each bad example as they are in tests/data (run by
    the tests above), so the page never shows a rule that does not work."""
    with open(os.path.join(ROOT, "docs", "house-rules.md"), encoding="utf-8") as handle:
        page = handle.read()
    blocks = re.findall(r"```yaml\n(.*?)```", page, re.S)
    with open(os.path.join(ACME, "kartalint-base.yaml"), encoding="utf-8") as handle:
        base = handle.read()
    for entry in base.split("\n  - id: ")[1:]:
        rule = "  - id: " + entry.rstrip() + "\n"
        assert any(rule in block for block in blocks), entry.split("\n", 1)[0]
    assert page.count("\n### ") >= 5 and all(f"examples/{rule_id}/bad.yaml" in page for rule_id in IDS)


def test_a_rule_that_runs_out_of_time_on_an_example_fails_once_at_its_place(acme, monkeypatch):
    from kartalint.rules import _house_jq

    config = acme / ".kartalint.yaml"
    started = time.monotonic()
    assert run_cli(["rules", "--check"], cwd=acme)[0] == 0  # the worker started, programs compiled, at the usual limit
    monkeypatch.setattr(_house_jq, "HOUSE_TIMEOUT", max(1.0, 10 * (time.monotonic() - started)))
    text = config.read_text().replace(
        "      .specDefinition != null\n", "      last(repeat(1)) == 2 and .specDefinition != null\n", 1
    )
    config.write_text(text)
    code, out, err = run_cli(["rules", "--check"], cwd=acme)
    assert code == 1 and "Traceback" not in err
    lines = out.splitlines()
    failed = lines.index("FAIL acme-role-selector (.kartalint.yaml:6)")
    when = line_of(text, "id: acme-role-selector") + 3
    assert lines[failed + 1].startswith(
        f"    .kartalint.yaml:{when}:11: house rule 'acme-role-selector': `when` failed: did not finish within"
    )
    assert lines[failed + 2].startswith("PASS ") and lines[-1] == "5 rule(s) checked: 4 passed, 1 failed"


def test_a_good_example_that_is_no_valid_definition_fails(acme):
    """A good example the rule stays silent on only because the file is broken (here its pod
    template path is not jq) proves nothing: the check fails there, naming what is wrong."""
    path = _break(acme, "acme-name", "good.yaml", "podTemplateSpecPath: .spec.template", "podTemplateSpecPath: .spec.[")
    code, out, _ = run_cli(["rules", "--check", "-q"], cwd=acme)
    assert code == 1, out
    line = line_of(path.read_text(), "podTemplateSpecPath")
    problem = next(text for text in out.splitlines() if "examples/acme-name/good.yaml" in text)
    assert problem.startswith(f"    examples/acme-name/good.yaml:{line}:")
    assert "the good example is not a valid definition, so it proves nothing about acme-name" in problem
    assert out.splitlines()[-1] == "5 rule(s) checked: 4 passed, 1 failed"
