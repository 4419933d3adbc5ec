"""Issue 33 items 7 and 8: colour and quiet on every command that prints text (lint, test, diff,
explore), and the KARTALINT_* variables CI sets once (flag > environment > configuration >
default)."""

from __future__ import annotations

import io
import json
import os
import re

import pytest
from conftest import git, run_cli
from team_repo import CONFIG, fixture, make_team_repo

from kartalint.cli.common import use_color
from kartalint.cli.parser import build_parser

ESC = "\x1b["


def untimed(text: str) -> str:
    return re.sub(r" in [0-9.]+ s\n", " in - s\n", text)


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def clean_environment(monkeypatch):
    for name in ("NO_COLOR", "FORCE_COLOR", "TERM", "KARTALINT_CONFIG", "KARTALINT_FORMAT", "KARTALINT_JOBS", "CI"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    return monkeypatch


@pytest.mark.parametrize(
    "choice, environment, stream, expected",
    [
        ("auto", {}, Terminal(), True),
        ("auto", {}, io.StringIO(), False),  # a pipe
        ("auto", {"NO_COLOR": "1"}, Terminal(), False),
        ("auto", {"NO_COLOR": ""}, Terminal(), True),  # set but empty: not set (no-color.org)
        ("auto", {"FORCE_COLOR": "1"}, io.StringIO(), True),
        ("auto", {"FORCE_COLOR": "1", "NO_COLOR": "1"}, io.StringIO(), False),
        ("auto", {"TERM": "dumb"}, Terminal(), False),
        ("auto", {"TERM": "dumb", "FORCE_COLOR": "1"}, Terminal(), True),
        ("auto", {"FORCE_COLOR": "1"}, None, False),  # a file given with -o
        ("always", {"NO_COLOR": "1", "TERM": "dumb"}, io.StringIO(), True),  # the flag wins
        ("always", {}, None, True),
        ("never", {"FORCE_COLOR": "1"}, Terminal(), False),
    ],
)
def test_colour_follows_the_flag_then_no_color_force_color_and_term(
    clean_environment, choice, environment, stream, expected
):
    for name, value in environment.items():
        clean_environment.setenv(name, value)
    assert use_color(choice, stream) is expected


@pytest.fixture
def team(tmp_path, clean_environment):
    """The team's repository with one passing and one failing fixture."""
    repo = make_team_repo(tmp_path / "team")
    failing = fixture({"statuses": ["Failed"]}, name="mnist claimed failed")
    (repo / "fixtures" / "example-com-trainer-v1" / "failed.yaml").write_text(failing)
    return repo


def test_test_colours_its_labels_and_summary_only_when_asked(team):
    code, plain, _ = run_cli(["test"], cwd=team)
    assert code == 1 and ESC not in plain
    assert "PASS  fixtures/example-com-trainer-v1/running.yaml" in plain
    code, coloured, _ = run_cli(["test", "--color", "always"], cwd=team)
    assert code == 1
    assert "\x1b[32mPASS\x1b[0m  fixtures/example-com-trainer-v1/running.yaml" in coloured
    assert "\x1b[31mFAIL\x1b[0m  fixtures/example-com-trainer-v1/failed.yaml" in coloured
    assert "\x1b[31m1 failed\x1b[0m, 0 error(s)" in coloured  # a count of 0 stays plain
    # the same text once the colour is taken out (and the time): colour adds nothing else
    assert untimed(re.sub(r"\x1b\[[0-9]+m", "", coloured)) == untimed(plain)
    code, piped, _ = run_cli(["test", "--colour", "never"], cwd=team)
    assert ESC not in piped


def test_force_color_colours_a_pipe_and_no_color_wins(team, clean_environment):
    clean_environment.setenv("FORCE_COLOR", "1")
    assert "\x1b[31mFAIL" in run_cli(["test"], cwd=team)[1]
    clean_environment.setenv("NO_COLOR", "1")
    assert ESC not in run_cli(["test"], cwd=team)[1]


def test_a_coloured_report_file_only_when_always(team, clean_environment):
    clean_environment.setenv("FORCE_COLOR", "1")
    run_cli(["test", "-o", "report.txt"], cwd=team)
    assert ESC not in (team / "report.txt").read_text()
    run_cli(["test", "-o", "report.txt", "--color", "always"], cwd=team)
    assert "\x1b[31mFAIL" in (team / "report.txt").read_text()


def test_quiet_test_shows_failures_and_the_summary_only(team):
    (team / "fixtures" / "example-com-trainer-v1" / "failed.yaml").unlink()
    code, out, _ = run_cli(["test", "-q"], cwd=team)
    assert code == 0 and out.startswith("1 passed, 0 failed") and "Coverage" not in out, out
    failing = fixture({"statuses": ["Failed"]}, name="claimed failed")
    (team / "fixtures" / "example-com-trainer-v1" / "failed.yaml").write_text(failing)
    code, out, _ = run_cli(["test", "--quiet"], cwd=team)
    assert code == 1 and "PASS" not in out and "FAIL  fixtures/example-com-trainer-v1/failed.yaml" in out
    assert "statuses: expected" in out and "1 passed, 1 failed" in out


def test_quiet_leaves_out_the_notes_of_every_stage(tmp_path, clean_environment):
    repo = make_team_repo(tmp_path / "first-day", fixtures=False)
    code, _, err = run_cli(["test"], cwd=repo)
    assert code == 0 and "kartalint: note: no fixture found" in err
    code, _, err = run_cli(["test", "-q"], cwd=repo)
    assert code == 0 and err == ""
    (repo / "definitions" / "trainer.yaml").write_text(
        (repo / "definitions" / "trainer.yaml").read_text().replace(".replicas * 2", ".replicas * 3")
    )
    code, out, err = run_cli(["diff", "--base", "HEAD"], cwd=repo)
    assert "kartalint: note: no fixture in the project" in err
    code, out, err = run_cli(["diff", "--base", "HEAD", "-q"], cwd=repo)
    assert "note:" not in err and "definition file(s) changed" in out


def test_diff_colours_removed_and_added_expressions(team):
    path = team / "definitions" / "trainer.yaml"
    path.write_text(path.read_text().replace(".replicas * 2", ".replicas * 3"))
    _, plain, _ = run_cli(["diff", "--base", "HEAD"], cwd=team)
    assert ESC not in plain and "      - .spec.roles[] | .replicas * 2" in plain
    _, coloured, _ = run_cli(["diff", "--base", "HEAD", "--color", "always"], cwd=team)
    assert "\x1b[31m      - .spec.roles[] | .replicas * 2\x1b[0m" in coloured
    assert "\x1b[32m      + .spec.roles[] | .replicas * 3\x1b[0m" in coloured
    assert "\x1b[33mmodified " in coloured
    _, document, _ = run_cli(["diff", "--base", "HEAD", "-f", "json", "--color", "always"], cwd=team)
    assert ESC not in document and json.loads(document)["schemaVersion"] == 1


def test_explore_quiet_prints_the_failing_definitions_and_a_summary(team):
    pytest.importorskip("hypothesis")
    argv = [
        "explore",
        "definitions/trainer.yaml",
        "--crd",
        "crds/trainers.yaml",
        "--examples",
        "20",
        "--max-time",
        "20",
    ]
    code, out, _ = run_cli(argv, cwd=team)
    assert code in (0, 1) and "object(s)" in out
    code_quiet, quiet, _ = run_cli([*argv, "-q", "--color", "always"], cwd=team)
    assert code_quiet == code
    failing = int(out.split("object(s), ")[1].split(" ")[0]) > 0
    summary = "\x1b[31m1 with failures\x1b[0m" if failing else "0 with failures"
    assert quiet.endswith(f"1 definition(s) explored, {summary}\n")
    assert ("object(s)" in quiet) is failing


def test_lint_takes_colour_under_both_spellings(team):
    (team / "definitions" / "trainer.yaml").write_text(
        (team / "definitions" / "trainer.yaml").read_text().replace("instanceIdPath:", "instanceIdPth:")
    )
    code, out, _ = run_cli(["lint", "--colour", "always", "-f", "text"], cwd=team)
    assert code == 1 and "\x1b[31merror\x1b[0m" in out
    assert ESC not in run_cli(["lint", "--color", "never", "-f", "text"], cwd=team)[1]


# -- item 8: KARTALINT_CONFIG, KARTALINT_FORMAT, KARTALINT_JOBS ----------------------------------------


def test_kartalint_format_is_the_default_format_and_the_flag_wins(team, clean_environment):
    clean_environment.setenv("KARTALINT_FORMAT", "json")
    code, out, _ = run_cli(["test"], cwd=team)
    assert code == 1 and json.loads(out)["schemaVersion"] == 1
    code, out, _ = run_cli(["test", "-f", "text"], cwd=team)
    assert "PASS  fixtures/example-com-trainer-v1/running.yaml" in out
    code, out, _ = run_cli(["lint"], cwd=team)
    assert json.loads(out)["schemaVersion"] == 1
    # commands other than lint and test keep their own default (documented)
    code, out, _ = run_cli(["describe", "objects/mnist.yaml"], cwd=team)
    assert code == 0 and out.startswith("Trainer")


def test_a_bad_kartalint_variable_is_a_usage_error_naming_it(team, clean_environment):
    clean_environment.setenv("KARTALINT_FORMAT", "junit")  # a format of test, not of lint
    assert run_cli(["test", "-o", "out.xml"], cwd=team)[0] == 1 and (team / "out.xml").read_text().startswith("<?xml")
    code, _, err = run_cli(["lint"], cwd=team)
    assert code == 2 and "KARTALINT_FORMAT=junit: kartalint lint takes " in err
    clean_environment.setenv("KARTALINT_FORMAT", "")
    clean_environment.setenv("KARTALINT_JOBS", "many")
    code, _, err = run_cli(["lint"], cwd=team)
    assert code == 2 and "KARTALINT_JOBS=many: give a whole number" in err


def test_kartalint_jobs_is_lints_default_and_the_flag_wins(clean_environment):
    clean_environment.setenv("KARTALINT_JOBS", "3")
    assert build_parser("lint").parse_args(["lint", "x"]).jobs == 3
    assert build_parser("lint").parse_args(["lint", "-j", "1", "x"]).jobs == 1
    clean_environment.delenv("KARTALINT_JOBS")
    assert build_parser("lint").parse_args(["lint", "x"]).jobs is None


def test_kartalint_config_names_the_configuration_and_the_flag_wins(team, clean_environment):
    strict = team / "strict.yaml"  # without the team's CRD, and the null-safety rule an error
    strict.write_text(
        CONFIG.replace("crds: [crds]\n", "").replace("rules:\n", "rules:\n  scale-path-not-null-safe: error\n")
    )
    assert run_cli(["lint"], cwd=team)[0] == 0
    clean_environment.setenv("KARTALINT_CONFIG", str(strict))
    code, out, _ = run_cli(["lint", "-f", "text"], cwd=team)
    assert code == 1 and "error scale-path-not-null-safe" in out
    assert run_cli(["lint", "--config", ".kartalint.yaml"], cwd=team)[0] == 0
    clean_environment.setenv("KARTALINT_CONFIG", str(team / "missing.yaml"))
    code, _, err = run_cli(["lint"], cwd=team)
    assert code == 2 and "missing.yaml" in err


def test_the_documented_precedence_is_the_code(team):
    with open(os.path.join(os.path.dirname(__file__), "..", "docs", "configuration.md"), encoding="utf-8") as handle:
        text = handle.read()
    for name in ("KARTALINT_CONFIG", "KARTALINT_FORMAT", "KARTALINT_JOBS", "NO_COLOR", "FORCE_COLOR", "TERM=dumb"):
        assert name in text
    assert "flag > environment variable > configuration > default" in text
    git(team, "status")  # (the team repository is a git repository: lint and diff see the same files)
