"""A plain command line (the pre-commit hook's ``kartalint lint --allow-empty FILE...``) is read by
its command without the parser (``kartalint.cli.plain_arguments``): what it reads must be what the
parser reads, for every plain command line, and every other command line must go to the parser."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kartalint.cli import ENVIRONMENT, PLAIN, plain_arguments
from kartalint.cli import lint as lint_command
from kartalint.cli.parser import build_parser, command_parser

SWITCHES = sorted(lint_command.SWITCHES)
# paths as hooks and users pass them: names, folders, spaces, unicode, '-' (stdin), empty
PATHS = st.one_of(
    st.just("-"),
    st.text(min_size=0, max_size=12).filter(lambda text: not text.startswith("-")),
    st.sampled_from(["job.yaml", "definitions/", "a b.yaml", "ü.yaml", ".kartalint.yaml", "=x", "@file"]),
)


def parsed(argv: list[str]) -> dict:
    return vars(build_parser("lint").parse_args(argv))


@pytest.fixture(autouse=True)
def _no_kartalint_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ENVIRONMENT:
        monkeypatch.delenv(variable, raising=False)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(SWITCHES), max_size=6), st.lists(PATHS, max_size=5))
def test_a_plain_lint_command_line_reads_as_the_parser_reads_it(switches: list[str], paths: list[str]) -> None:
    argv = ["lint", *switches, *paths]
    plain = plain_arguments(argv)
    assert plain is not None
    assert vars(plain) == parsed(argv)


# after `--` (the pre-commit hook's args), a path may start with `-`
AFTER_DASHES = st.one_of(PATHS, st.sampled_from(["-o.yaml", "-weird.yaml", "--strict", "-q", "--x=y", "-"]))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(SWITCHES), max_size=4), st.lists(AFTER_DASHES, max_size=5))
def test_paths_after_two_dashes_read_as_the_parser_reads_them(switches: list[str], paths: list[str]) -> None:
    argv = ["lint", *switches, "--", *paths]
    plain = plain_arguments(argv)
    assert plain is not None
    assert vars(plain) == parsed(argv)
    assert plain.paths == paths


def test_every_option_of_lint_is_known_to_the_plain_reading() -> None:
    """An option added to ``kartalint lint`` without its default in ``DEFAULTS`` (or a switch whose
    meaning changed) fails here, not in a user's hook."""
    parser = command_parser(build_parser("lint"), "lint")
    actions = [action for action in parser._actions if not isinstance(action, argparse._HelpAction)]
    assert {action.dest for action in actions} == set(lint_command.DEFAULTS)
    switches = {
        option: action.dest
        for action in actions
        if isinstance(action, argparse._StoreTrueAction)
        for option in action.option_strings
    }
    assert switches == lint_command.SWITCHES


def test_the_defaults_are_fresh_for_every_command_line() -> None:
    first = plain_arguments(["lint", "a.yaml"])
    assert first is not None
    first.crd.append("x")
    first.disable.append("rule")
    second = plain_arguments(["lint", "b.yaml"])
    assert second is not None and second.crd == [] and second.disable == []


@pytest.mark.parametrize(
    "argv",
    [
        ["lint", "--format", "json", "a.yaml"],
        ["lint", "-f", "json", "a.yaml"],
        ["lint", "--format=json", "a.yaml"],
        ["lint", "-j", "1", "a.yaml"],
        ["lint", "-qj1", "a.yaml"],
        ["lint", "--allow", "a.yaml"],  # an abbreviation: argparse's to expand (or refuse)
        ["lint", "a.yaml", "--strict"],  # a switch after a path
        ["lint", "--", "a.yaml", "--", "b.yaml"],  # a second `--`: argparse's own reading
        ["lint", "-a.yaml"],
        ["lint", "--help"],
        ["lint", "-h"],
        ["lint", "--bogus", "a.yaml"],
        ["--version"],
        ["test", "fixtures"],
        [],
    ],
)
def test_any_other_command_line_goes_to_the_parser(argv: list[str]) -> None:
    assert plain_arguments(argv) is None


@pytest.mark.parametrize("variable", sorted(ENVIRONMENT))
def test_a_kartalint_variable_sends_the_command_line_to_the_parser(
    variable: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``KARTALINT_FORMAT`` and its kin are defaults the parser sets (``cli.parser.environment_defaults``)."""
    monkeypatch.setenv(variable, "1")
    assert plain_arguments(["lint", "--allow-empty", "a.yaml"]) is None


def test_only_lint_reads_plain_command_lines() -> None:
    assert PLAIN == ("lint",)
    assert all(plain_arguments([name, "a.yaml"]) is None for name in ("describe", "test", "rules"))


def test_a_plain_lint_imports_no_parser_and_a_usage_error_still_says_its_usage(tmp_path) -> None:
    """In a fresh interpreter: the hook's command line runs without argparse; a misspelt option
    is still the parser's usage error (exit 2, the command's usage)."""
    (tmp_path / "job.yaml").write_text("kind: ConfigMap\napiVersion: v1\nmetadata: {name: x}\n")
    script = (
        "import sys\nfrom kartalint.cli import main\ncode = main(sys.argv[1:])\n"
        "print('argparse' in sys.modules, code, file=sys.stderr)\n"
    )
    plain = subprocess.run(
        [sys.executable, "-c", script, "lint", "--allow-empty", "job.yaml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert plain.stderr.splitlines()[-1] == "False 0", plain.stderr
    wrong = subprocess.run(
        [sys.executable, "-c", script, "lint", "--allow-emty", "job.yaml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert wrong.returncode == 2
    assert "usage: kartalint lint" in wrong.stderr
    assert "unrecognized arguments: --allow-emty" in wrong.stderr


def test_a_staged_file_named_like_an_option_is_refused_not_read_as_one(tmp_path) -> None:
    """pre-commit passes staged names after the hook's args: without `--` before them, a staged
    `-o.yaml` holding a broken definition read as `-o .yaml` (the whole project linted, its report
    written to `.yaml`, green) and `-weird.yaml` was an unknown option. A word that starts with
    `-` and names a file here is a usage error naming it; after `--` it is linted."""
    broken = "apiVersion: run.ai/v1alpha1\nkind: Karta\nmetadata: {name: x}\nspec: {}\n"
    (tmp_path / "-o.yaml").write_text(broken)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    kartalint = [sys.executable, "-m", "kartalint"]
    refused = subprocess.run(
        [*kartalint, "lint", "--allow-empty", "-o.yaml"], cwd=tmp_path, capture_output=True, text=True
    )
    assert refused.returncode == 2
    assert "'-o.yaml' is a file here and reads as an option" in refused.stderr
    assert not (tmp_path / ".yaml").exists()
    linted = subprocess.run(
        [*kartalint, "lint", "--allow-empty", "--", "-o.yaml"], cwd=tmp_path, capture_output=True, text=True
    )
    assert linted.returncode == 1 and "-o.yaml:" in linted.stdout, linted.stdout + linted.stderr
    # an option that names no file is still an option, and a path after `--` is never refused
    assert plain_arguments(["lint", "--", "-o.yaml"]) is not None
