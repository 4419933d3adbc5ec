"""The command line: exit codes, output formats, configuration, suppression, generated docs."""

from __future__ import annotations

import io
import json
import math
import os
import pathlib
import re
import subprocess
import sys

import pytest
from conftest import BASE_DEFINITION, ROOT

from kartalint.cli import main
from kartalint.cli.common import check_timeout
from kartalint.errors import UsageError
from kartalint.rules import registry

BAD = BASE_DEFINITION.replace("ownerRef: trainer", "ownerRef: nobody")
WARN = BASE_DEFINITION.replace(
    "replicasPath: .spec.roles[] | (.replicas // 1)", "replicasPath: .spec.roles[] | .replicas * .parallelism"
)


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    (tmp_path / "good.yaml").write_text(BASE_DEFINITION)
    (tmp_path / "bad.yaml").write_text(BAD)
    (tmp_path / "warn.yaml").write_text(WARN)
    (tmp_path / "other.yaml").write_text("apiVersion: v1\nkind: ConfigMap\n")
    return tmp_path


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_clean_file_exits_0(files, capsys):
    code, out, err = run(capsys, "lint", "good.yaml")
    assert code == 0 and out == ""
    assert "1 Karta definition(s)" in err


def test_error_exits_1_with_yamllint_style_line(files, capsys):
    code, out, _ = run(capsys, "lint", "bad.yaml")
    assert code == 1
    line = BAD.splitlines().index("      ownerRef: nobody") + 1
    assert (
        out.splitlines()[0]
        == f"bad.yaml:{line}:17: error unknown-owner-ref child component 'worker' has owner ref to non-existing component 'nobody'"
    )
    assert out.splitlines()[1].startswith("    hint: ")


def test_warnings_exit_0_unless_strict(files, capsys):
    assert run(capsys, "lint", "warn.yaml")[0] == 0
    assert run(capsys, "lint", "--strict", "warn.yaml")[0] == 1


def test_nothing_to_check_exits_2(files, capsys):
    code, _, err = run(capsys, "lint", "other.yaml")
    assert code == 2 and "no Karta definition or fixture found" in err
    code, _, err = run(capsys, "lint", "--allow-empty", "other.yaml")
    assert code == 0 and "no Karta definition" not in err  # hooks pass every YAML file
    assert run(capsys, "lint", "--allow-empty", "other.yaml", "bad.yaml")[0] == 1
    os.mkdir("emptydir")
    assert run(capsys, "lint", "emptydir")[0] == 2


def test_the_lint_result_decides_the_exit_code_and_says_why():
    """The exit policy and the summary belong to the result (``LintResult``), not to the command."""
    from kartalint.lint import LintResult
    from kartalint.model import Finding, Severity

    def finding(severity):
        return Finding("x.yaml", 1, 1, 1, 2, "yaml-syntax-error", severity, "m", (), "")

    empty = LintResult()
    assert (empty.exit_code(), empty.exit_code(allow_empty=True)) == (2, 0)
    assert empty.problems() == ["no Karta definition or fixture found in the given paths (nothing was checked)"]
    assert empty.problems(allow_empty=True) == []
    broken = LintResult(findings=[finding(Severity.ERROR)])  # a file that mentions a Karta and fails to load
    assert broken.exit_code(allow_empty=True) == broken.exit_code() == 1 and broken.problems() == []
    warned = LintResult(karta_documents=1, findings=[finding(Severity.WARNING)])
    assert (warned.exit_code(), warned.exit_code(strict=True)) == (0, 1)
    missing = LintResult(karta_documents=1, missing=["nope.yaml"])
    assert missing.exit_code(allow_empty=True) == 2
    recorded = LintResult(karta_documents=1, findings=[finding(Severity.ERROR)], wrote_baseline="b.json")
    assert recorded.exit_code(strict=True) == 0 and recorded.problems() == []
    warned.suppressed, warned.baselined, warned.stale = 2, 3, 1
    assert warned.summary() == (
        "0 file(s), 1 Karta definition(s): 0 error(s), 1 warning(s), 0 info, 2 suppressed, 3 in the baseline, "
        "1 stale baseline entry (fixed since: rewrite it with --write-baseline)"
    )


def test_missing_path_exits_2(files, capsys):
    code, _, err = run(capsys, "lint", "good.yaml", "nope.yaml")
    assert code == 2 and "nope.yaml: no such file" in err


def test_usage_error_exits_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["lint", "--format", "xml", "x"])
    assert exc.value.code == 2
    assert main([]) == 2


def test_json_shape(files, capsys):
    code, out, _ = run(capsys, "lint", "--format", "json", "good.yaml", "bad.yaml", "other.yaml")
    doc = json.loads(out)
    assert code == 1
    assert doc["schemaVersion"] == 1
    assert doc["checked"] == ["good.yaml", "bad.yaml"]
    assert doc["skippedFiles"] == ["other.yaml"]  # neither Karta nor fixture: skipped and counted
    assert doc["counts"] == {"error": 1, "warning": 0, "info": 0}
    assert doc["skippedDocuments"] == 1
    finding = doc["findings"][0]
    assert set(finding) == {
        "file",
        "line",
        "column",
        "endLine",
        "endColumn",
        "rule",
        "severity",
        "message",
        "path",
        "hint",
    }
    assert finding["path"] == ["spec", "structureDefinition", "childComponents", 0, "ownerRef"]


def test_github_annotations(files, capsys, monkeypatch):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    _code, out, _ = run(capsys, "lint", "bad.yaml")
    pattern = r"^::error file=bad\.yaml,line=\d+,col=\d+,endLine=\d+,endColumn=\d+,title=kartalint unknown-owner-ref::.+%0Ahint: .+$"
    assert re.match(pattern, out.splitlines()[0]), out


def test_github_escaping():
    from kartalint.report.github import escape_data, escape_property

    assert escape_data("50% a\nb") == "50%25 a%0Ab"
    assert escape_property("a:b,c") == "a%3Ab%2Cc"


def test_sarif_structure(files, capsys):
    _code, out, _ = run(capsys, "lint", "--format", "sarif", "bad.yaml", "warn.yaml")
    doc = json.loads(out)
    assert doc["version"] == "2.1.0" and "$schema" in doc
    run_ = doc["runs"][0]
    driver = run_["tool"]["driver"]
    assert driver["name"] == "kartalint"
    ids = [r["id"] for r in driver["rules"]]
    assert ids == list(registry.RULES)
    for rule in driver["rules"]:
        assert rule["shortDescription"]["text"] and rule["help"]["text"]
        assert rule["defaultConfiguration"]["level"] in ("error", "warning", "note")
    assert {r["ruleId"] for r in run_["results"]} == {"unknown-owner-ref", "scale-path-not-null-safe"}
    for result in run_["results"]:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        region = result["locations"][0]["physicalLocation"]["region"]
        assert region["startLine"] >= 1 and region["endColumn"] > region["startColumn"] - 1
        assert result["level"] in ("error", "warning", "note")


def test_config_file_changes_severity_and_disables(files, capsys):
    (files / ".kartalint.yaml").write_text("rules:\n  scale-path-not-null-safe: error\n  unknown-owner-ref: off\n")
    assert run(capsys, "lint", "warn.yaml")[0] == 1
    assert run(capsys, "lint", "bad.yaml")[0] == 0


def test_pyproject_config(files, capsys):
    (files / "pyproject.toml").write_text("[tool.kartalint]\nexclude = ['bad.yaml']\n")
    code, out, _ = run(capsys, "lint", "good.yaml", "bad.yaml")
    assert code == 0 and out == ""


def test_bad_config_is_a_usage_error(files, capsys):
    (files / ".kartalint.yaml").write_text("rules:\n  no-such-rule: off\n")
    code, _, err = run(capsys, "lint", "good.yaml")
    assert code == 2 and "unknown rule 'no-such-rule'" in err


def test_inline_suppression(files, capsys):
    text = BAD.replace("ownerRef: nobody", "ownerRef: nobody  # kartalint: disable=unknown-owner-ref")
    (files / "sup.yaml").write_text(text)
    code, _out, err = run(capsys, "lint", "sup.yaml")
    assert code == 0 and "1 suppressed" in err
    text = BAD.replace("      ownerRef: nobody", "      # kartalint: disable\n      ownerRef: nobody")
    (files / "sup2.yaml").write_text(text)
    assert run(capsys, "lint", "sup2.yaml")[0] == 0
    (files / "sup3.yaml").write_text("# kartalint: disable-file=unknown-owner-ref\n" + BAD)
    assert run(capsys, "lint", "sup3.yaml")[0] == 0
    (files / "sup4.yaml").write_text("# kartalint: disable-file=jq-unsafe\n" + BAD)
    assert run(capsys, "lint", "sup4.yaml")[0] == 1


def test_stdin(files, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(BAD.encode())))
    code, out, _ = run(capsys, "lint", "-")
    assert code == 1 and out.startswith("<stdin>:")


def test_schema_command(capsys):
    code, out, _ = run(capsys, "schema")
    assert code == 0 and json.loads(out)["$schema"].startswith("https://json-schema.org/")
    assert run(capsys, "schema", "--check")[0] == 0


def test_console_script_runs():
    proc = subprocess.run([sys.executable, "-m", "kartalint", "--version"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0 and proc.stdout.startswith("kartalint ")


def test_catalog_lints_clean_under_strict(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    code, out, err = run(capsys, "lint", "--strict", "catalog/")
    assert code == 0, out + err


def test_lint_jobs_gives_the_same_output_in_the_same_order(capsys, tmp_path):
    from kartalint.lint import lint_paths
    from kartalint.project import Config

    paths = [os.path.join(ROOT, "catalog"), os.path.join(ROOT, "fixtures")]
    broken = tmp_path / "broken.yaml"
    jobset = pathlib.Path(ROOT, "catalog", "jobset-x-k8s-io-jobset-v1alpha2.yaml")
    broken.write_text(jobset.read_text(encoding="utf-8").replace("// 1", ""))
    one = lint_paths([*paths, str(broken)], Config(), jobs=1)
    two = lint_paths([*paths, str(broken)], Config(), jobs=2)
    assert one.findings and one.findings == two.findings
    assert (one.checked, one.skipped_files, one.karta_documents, one.fixture_documents, one.suppressed) == (
        two.checked,
        two.skipped_files,
        two.karta_documents,
        two.fixture_documents,
        two.suppressed,
    )
    outputs = []
    for jobs in ("1", "2"):
        code = main(["lint", "--strict", "-j", jobs, "-f", "json", *paths, str(broken)])
        outputs.append((code, capsys.readouterr().out))
    assert outputs[0] == outputs[1] and outputs[0][0] == 1
    assert main(["lint", "-j", "-1", "catalog"]) == 2  # 0 means automatic (tests/test_lifetime.py)


def test_no_module_defines_a_function_twice():
    """A second `def` of the same name silently replaces the first (the project-aware `catalog`
    command was shadowed by an older copy this way)."""
    import ast
    import glob

    for path in glob.glob(os.path.join(ROOT, "kartalint", "**", "*.py"), recursive=True):
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
        names = [node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))]
        assert len(names) == len(set(names)), (path, sorted({n for n in names if names.count(n) > 1}))


def test_catalog_without_flags_uses_the_projects_fixtures(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert main(["catalog", "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    with open(os.path.join(ROOT, "docs", "catalog.md"), encoding="utf-8") as handle:
        assert out == handle.read().partition("\n## Mutation score")[0]  # the section `--mutants` adds


def test_a_folder_where_a_file_is_wanted_is_called_a_folder(tmp_path, capsys, monkeypatch):
    """`--crd`, `extends:` and a house rule's example named as a folder (or a FIFO) are said to be
    what they are, not "no such file"."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    (tmp_path / "crd.yaml").mkdir()
    os.mkfifo(tmp_path / "fifo.yaml")
    code, _, err = run(capsys, "new", "--crd", "crd.yaml", "-o", "draft.yaml")
    assert code == 2 and "--crd crd.yaml: a folder, not a file" in err, err
    code, _, err = run(capsys, "init", "--crd", "fifo.yaml")
    assert code == 2 and "--crd fifo.yaml: not a regular file" in err, err
    (tmp_path / "base").mkdir()
    (tmp_path / ".kartalint.yaml").write_text("extends: base\n")
    (tmp_path / "good.yaml").write_text(BASE_DEFINITION)
    code, _, err = run(capsys, "lint", "good.yaml")
    assert code == 2 and "'extends' base: a folder, not a file" in err, err
    (tmp_path / ".kartalint.yaml").unlink()
    (tmp_path / "dir.yaml").mkdir()  # an object file, pods, figures to compare, a configuration
    for argv in (
        ["describe", "dir.yaml"],
        ["describe", "good.yaml", "--pods", "dir.yaml"],
        ["describe", "good.yaml", "--summary", "--compare", "dir.yaml"],
        ["lint", "--config", "dir.yaml", "good.yaml"],
    ):
        code, _, err = run(capsys, *argv)
        assert code == 2 and "dir.yaml" in err and "a folder, not a file" in err and "FIFO" not in err, (argv, err)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 0.0, -1.0, 3600.5])
def test_a_timeout_that_is_not_a_number_of_seconds_up_to_an_hour_is_a_usage_error(value: float) -> None:
    with pytest.raises(UsageError, match="--timeout must be a number of seconds above 0 and at most 3600"):
        check_timeout(value)


@pytest.mark.parametrize("value", [0.001, 1.0, 3600.0])
def test_a_timeout_of_seconds_up_to_an_hour_is_taken(value: float) -> None:
    check_timeout(value)
