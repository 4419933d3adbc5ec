"""Help a person can read (issue 48): every command's `--help` starts with what it does and ends
with its exit codes and examples, from one place (kartalint/cli/manual.py) that docs/commands.md
is generated from; the examples use options the commands have; under kubectl the help says
`kubectl karta`."""

from __future__ import annotations

import os
import shlex

import pytest
from conftest import ROOT

from kartalint.cli import COMMAND_NAMES, main, manual
from kartalint.cli.kubectl import main as kubectl_main
from kartalint.cli.kubectl import translate
from kartalint.cli.parser import build_parser


def help_of(capsys, command, run=main):
    with pytest.raises(SystemExit) as exit_:
        run([command, "--help"])
    assert exit_.value.code == 0
    return capsys.readouterr().out


def test_every_command_has_a_page():
    assert list(manual.PAGES) == list(COMMAND_NAMES)
    for command, (paragraphs, codes, examples) in manual.PAGES.items():
        assert paragraphs and all(p.strip() and p[0].isupper() for p in paragraphs), command
        assert [code for code, _ in codes] == sorted({code for code, _ in codes}) and codes[0][0] == "0", command
        assert {code for code, _ in codes} <= {"0", "1", "2"}, command
        assert 1 <= len(examples) <= 2, f"{command}: one or two examples"


@pytest.mark.parametrize("command", COMMAND_NAMES)
def test_help_starts_with_what_the_command_does_and_ends_with_exit_codes_and_examples(capsys, monkeypatch, command):
    monkeypatch.setenv("COLUMNS", "100")
    text = help_of(capsys, command)
    description, epilog = manual.description(command, width=98), manual.epilog(command, width=98)
    assert text.startswith(description + "\n\nusage: kartalint " + command), text[:400]
    assert text.rstrip("\n").endswith(epilog), text[-600:]
    assert "\nexit codes:\n  0  " in text and "\nexamples:\n  kartalint " + command in text
    for code, meaning in manual.PAGES[command][1]:
        assert f"  {code}  {meaning.split()[0]}" in text


def _argv(example):
    """The kartalint command line of an example (after a pipe; redirections left out)."""
    words = shlex.split(example[example.index("kartalint ") :])
    return words[1 : words.index(">")] if ">" in words else words[1:]


@pytest.mark.parametrize(
    "command, example", [(c, line) for c, page in manual.PAGES.items() for line, _ in page[2]], ids=str
)
def test_each_example_uses_options_its_command_has(command, example):
    argv = _argv(example)
    assert argv[0] == command, example
    args = build_parser(command).parse_args(argv)  # a usage error exits 2 (SystemExit)
    assert args.command == command


def test_docs_commands_md_is_the_manual():
    with open(os.path.join(ROOT, "docs", "commands.md"), encoding="utf-8") as handle:
        assert handle.read() == manual.markdown(), "python -m kartalint.cli.manual > docs/commands.md"


@pytest.mark.parametrize("columns", ["60", "100", ""])
def test_the_pages_prose_follows_the_terminal_width_as_the_options_do(capsys, monkeypatch, columns):
    """`COLUMNS=60 kartalint lint --help` wrapped the options at 60 columns but the description and
    the exit codes at 78: the prose is wrapped at the width argparse gives the options (COLUMNS - 2,
    78 without COLUMNS nor a terminal); only an example's command line, which a shell takes whole,
    may be longer."""
    monkeypatch.setenv("COLUMNS", columns)
    width = int(columns or 80) - 2
    for command in COMMAND_NAMES:
        text = help_of(capsys, command)
        examples = {f"  {line}" for line, _ in manual.PAGES[command][2]}
        description, _, rest = text.partition("\nusage: ")
        epilog = rest[rest.index("\nexit codes:\n") :]
        long = [line for line in description.splitlines() + epilog.splitlines() if len(line) > width]
        assert [line for line in long if line not in examples] == [], (command, columns)
        words = " ".join(manual.PAGES[command][0])
        assert "".join(description.split()) == "".join(words.split()), command  # every word, in order
        if columns == "60":  # the paragraphs fill the width (not wrapped at 78 and cut)
            assert max(len(line) for line in description.splitlines()) > width - 15, command
    monkeypatch.setenv("COLUMNS", "5")  # narrower than anything: argparse's least width of text
    assert "exit codes:" in help_of(capsys, "lint")


def test_under_kubectl_the_help_says_kubectl_karta(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    text = help_of(capsys, "lint", kubectl_main)
    assert "usage: kubectl karta lint " in text and "usage: kartalint" not in text
    assert "\n  kubectl karta lint --strict\n" in text and "\n  kartalint " not in text
    text = help_of(capsys, "describe", kubectl_main)
    assert "Under kubectl, -f/--filename FILE names the object" in text
    for line, _ in manual.KUBECTL_EXAMPLES["describe"]:
        assert f"\n  {line}\n" in text
        argv = translate(shlex.split(line[line.index("kubectl karta ") + len("kubectl karta ") :]))
        assert build_parser("describe").parse_args(argv).command == "describe"
    assert "Under kubectl" not in help_of(capsys, "describe")
    with pytest.raises(SystemExit) as exit_:
        kubectl_main(["lint", "--no-such-option"])
    assert exit_.value.code == 2 and "usage: kubectl karta lint" in capsys.readouterr().err


@pytest.mark.parametrize("rule_id", sorted(__import__("kartalint.rules.registry", fromlist=["RULES"]).RULES))
def test_kartalint_rules_id_prints_the_rules_page(capsys, rule_id):
    """`kartalint rules ID`: why the rule exists, a bad and a good example (or why there is none),
    and the fix: the rule's section of docs/rules.md."""
    from kartalint.report.rules_doc import rule_section
    from kartalint.rules import registry

    assert main(["rules", rule_id]) == 0
    out = capsys.readouterr().out
    rule = registry.RULES[rule_id]
    assert out.startswith(f"### `{rule_id}`\n") and f"**Why:** {rule.why}" in out and f"**Fix:** {rule.hint}" in out
    assert ("Bad (`bad.yaml`):" in out and "Good (`good.yaml`):" in out) or "No example file:" in out
    assert out.rstrip("\n") == "\n".join(rule_section(rule)).rstrip("\n")
    with open(os.path.join(ROOT, "docs", "rules.md"), encoding="utf-8") as handle:
        assert out.rstrip("\n") in handle.read()


def test_an_unknown_rule_id_says_the_closest(capsys):
    assert main(["rules", "scale-path-not-nul-safe"]) == 2
    assert capsys.readouterr().err == (
        "kartalint: error: unknown rule 'scale-path-not-nul-safe' (did you mean scale-path-not-null-safe? "
        "see `kartalint rules`)\n"
    )


@pytest.mark.parametrize("columns", ["", "0", "abc", "57", "100", "200"])
def test_help_is_as_wide_as_argparse_makes_it(monkeypatch, columns):
    """The parser finds the width without importing shutil (``cli.help_width``): the same width
    as argparse's own formatter, from ``COLUMNS`` or the terminal, so the same usage and options."""
    import argparse
    import shutil

    from kartalint.cli.parser import Parser, command_parser, help_width

    monkeypatch.setenv("COLUMNS", columns)
    assert help_width() == shutil.get_terminal_size().columns - 2
    lint = command_parser(build_parser("lint"), "lint")
    assert isinstance(lint, Parser)

    def options(formatter: argparse.HelpFormatter) -> str:
        formatter.add_usage(lint.usage, lint._actions, lint._mutually_exclusive_groups)
        for group in lint._action_groups:
            formatter.start_section(group.title)
            formatter.add_arguments(group._group_actions)
            formatter.end_section()
        return formatter.format_help()

    text = options(lint._get_formatter())
    assert text == options(argparse.ArgumentParser._get_formatter(lint))  # argparse's, with shutil
    assert "--allow-empty" in text
