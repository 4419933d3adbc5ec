"""What each command's ``--help`` says besides its options, in one place: what the command does
(first), its exit codes and examples (last). ``build_parser`` gives each command's parser its
page (argparse's description and epilog); ``docs/commands.md`` is generated from the same pages
(``python -m kartalint.cli.manual > docs/commands.md``; a test keeps the two equal), so the docs
and ``--help`` say the same.

A page is plain strings (this module is imported on the path of every one-file lint): the
description as paragraphs, the exit codes as (code, meaning), the examples as (command line,
what it does); an example starts with ``kartalint COMMAND`` (after a pipe, for input from
another tool) and uses only options the command has (a test parses each).
"""

from __future__ import annotations

import textwrap

WIDTH = 78  # the columns of the description and the epilog in --help (argparse's own without COLUMNS nor a terminal)

PAGES: dict[str, tuple[tuple[str, ...], tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]] = {
    "lint": (
        (
            "Check Karta definitions and fixture files: the Karta schema generated from the real CRD, every "
            "rule of upstream's validator, each jq expression (parsed, compiled, portable to gojq, safe), best "
            "practices and gang scheduling, and with --crd (or crds: in the configuration) the paths "
            "expressions read against the workload's CRD. Every finding has file:line:col, a rule id, a "
            "severity and a fix hint.",
            "Without PATH, the project's definitions and fixtures. Files the configuration excludes are never "
            "read (one named on the command line is said, with the pattern); files that hold neither a Karta "
            "nor a fixture are skipped and counted. The findings a baseline holds (--baseline, "
            "KARTALINT_BASELINE, baseline: in the configuration) are left out of the report and the exit code. "
            "File names that start with '-' go after -- (as the pre-commit hook passes its files); a word "
            "before -- that starts with '-' and names a file here is refused, not read as an option.",
        ),
        (
            ("0", "no error findings"),
            ("1", "error findings (or warnings, with --strict)"),
            ("2", "usage or configuration error, a missing path, or nothing to check"),
        ),
        (
            ("kartalint lint --strict", "the project's definitions and fixtures; warnings fail too"),
            ("kartalint lint --write-baseline .kartalint-baseline.json", "record today's findings (adopting)"),
        ),
    ),
    "describe": (
        (
            "Apply a definition to a workload object exactly as upstream does, and show what every consumer "
            "will see: its roles and instances with ready/desired replicas, GPUs, CPU and memory per role, "
            "the pods' nodes, the matched statuses, gang groups and every extraction error at the "
            "file:line:col of the failing field.",
            "The definition is chosen by the object's exact group/version/kind from --catalog folders, then the "
            "project's definitions, then the bundled catalog. With --summary (or several objects), one line per "
            "workload of a fleet (docs/fleet.md).",
        ),
        (
            ("0", "described"),
            ("1", "a view has extraction errors, or the definition is invalid (upstream refuses it)"),
            ("2", "usage error, unreadable input, or no definition for the object's group/version/kind"),
        ),
        (
            ("kartalint describe job.yaml --pods pods.yaml", "the workload as kli and the scheduler see it"),
            ("kubectl get jobset demo -o yaml | kartalint describe -", "an object from the cluster, offline"),
        ),
    ),
    "test": (
        (
            "Run the definitions against golden fixtures (kind: KartaFixture), recordings and predictions, "
            "and diff what each computes (statuses, roles, replicas, GPUs, CPU, memory, gang groups, "
            "extraction errors, lint findings) with what the fixture expects; each difference at its line "
            "in the fixture, with a hint.",
            "Without PATH, the project's fixtures against the project's definitions; a project with "
            "definitions and no fixture yet passes with a note. --update rewrites failing expect blocks, "
            "--mutants measures how much of each definition its fixtures pin.",
        ),
        (
            ("0", "every case passed (expected failures included)"),
            (
                "1",
                "a failure, an error, an unexpected pass, a definition without fixture (--require-fixtures), "
                "coverage or a mutation score below its minimum",
            ),
            ("2", "usage or configuration error, a missing path, or no case in the PATHs given"),
        ),
        (
            ("kartalint test -q", "the project's fixtures: the failures and the summary only"),
            ("kartalint test --junit-xml junit.xml --sarif test.sarif", "reports for CI"),
        ),
    ),
    "diff": (
        (
            "Evaluate every fixture and recording with the definitions as they are at --base (read with git, "
            "the working tree untouched) and at --head (default: the working tree), and say what a "
            "definition change does to each workload: statuses, roles, replicas, GPU/CPU/memory totals, gang "
            "groups, extraction errors, and the lint findings each changed definition gains or loses.",
        ),
        (
            ("0", "compared, whatever changed"),
            ("1", "something changed, with --fail-on-change"),
            (
                "2",
                "usage error, a revision that does not exist, not a git repository, a missing path, or a file "
                "that cannot be read at either revision",
            ),
        ),
        (
            ("kartalint diff --base origin/main", "what this branch changes"),
            ("kartalint diff --base origin/main -f markdown -o diff.md", "a pull-request comment"),
        ),
    ),
    "explore": (
        (
            "Generate objects valid for the CRD of each definition (its OpenAPI schema and CEL rules, with "
            "explore: assume: of the configuration) and find those a definition gets wrong: an extraction "
            "error, a pod counted twice, statuses that exclude each other. Each failure is shrunk to a "
            "minimal object (--save writes it as a fixture). Needs hypothesis: kartalint[explore].",
        ),
        (
            ("0", "every property held"),
            ("1", "a property failed"),
            ("2", "usage error: no CRD, nothing to explore, a bad option or explore: assume:"),
        ),
        (
            ("kartalint explore", "the project's definitions, with the configuration's crds:"),
            ("kartalint explore --crd crds/trainers.yaml definitions/trainer.yaml", "one definition and its CRD"),
        ),
    ),
    "new": (
        (
            "Draft a definition from a CRD (--crd CRD: roles, replicas, statuses and selectors from its "
            "schema, every guess commented and every unknown a TODO; with --from, from real objects and "
            "their pods, with one fixture per state seen), or a fixture from an object (fixture OBJECT: the "
            "expect block filled from what the definition computes, to review before committing).",
        ),
        (
            ("0", "written"),
            ("1", "the draft's skeleton is refused by the CRD or cannot be evaluated (the rest is written)"),
            ("2", "usage error, unreadable input, or no definition for the object"),
        ),
        (
            ("kartalint new --crd crds/trainers.yaml -o definitions/trainer.yaml", "a draft and its skeleton"),
            ("kartalint new fixture job.yaml --pods pods.yaml -o fixtures/batch-job-v1/running.yaml", "a fixture"),
        ),
    ),
    "init": (
        (
            "Set a repository up for kartalint, never over an existing file: .kartalint.yaml (where the "
            "definitions and fixtures live, and with --crd the CRDs), .pre-commit-config.yaml (the lint and "
            "test hooks, pinned to this kartalint's revision), .github/workflows/kartalint.yml (the Action on "
            "every pull request, with the SARIF upload), and with --crd a draft definition and a fixture "
            "skeleton per CRD. It writes no baseline: docs/ci.md says how to adopt kartalint on a "
            "repository with findings.",
        ),
        (
            ("0", "written"),
            ("1", "a skeleton the CRD refuses, or a draft that cannot evaluate it (the rest is written)"),
            ("2", "usage error, or a file that exists already (nothing is overwritten)"),
        ),
        (
            ("kartalint init", "configuration, hooks and workflow"),
            ("kartalint init --crd crds/trainers.yaml --layout catalog", "and a draft of the CRD's kind"),
        ),
    ),
    "catalog": (
        (
            "List definitions (the project's, else the bundled catalog) with their kind, roles, status "
            "mappings, fixtures and status-mapping coverage; with --mutants, each definition's mutation score.",
        ),
        (
            ("0", "listed"),
            ("2", "usage or configuration error, or no definition found"),
        ),
        (
            ("kartalint catalog", "the table"),
            ("kartalint catalog -f markdown", "what docs/catalog.md is made of"),
        ),
    ),
    "rules": (
        (
            "List every rule with its severity, category and summary (the configuration's house rules and "
            "the plugins' included), or explain one rule: why it exists, a bad and a good example, and the "
            "fix (the page of docs/rules.md). --check runs each house rule on its examples "
            "(docs/house-rules.md).",
        ),
        (
            ("0", "listed or explained; with --check, every house rule passed its examples"),
            ("1", "with --check: a house rule failed its examples or cannot run"),
            ("2", "an unknown rule id, options that do not go together, a configuration that cannot be used"),
        ),
        (
            ("kartalint rules scale-path-not-null-safe", "one rule's page"),
            ("kartalint rules --check -q", "the house rules on their examples, as the pre-commit hook runs them"),
        ),
    ),
    "schema": (
        (
            "Print the Karta JSON Schema kartalint validates definitions with (for editors), the schema of "
            "fixture files (--fixture) or of the configuration (--config).",
        ),
        (
            ("0", "printed (or, with --check, the same as the vendored CRD's)"),
            ("1", "--check: the shipped schema differs from the vendored CRD"),
        ),
        (
            ("kartalint schema --config > kartalint-config.schema.json", "for .kartalint.yaml in the editor"),
            ("kartalint schema --fixture > kartalint-fixture.schema.json", "for fixture files"),
        ),
    ),
    "lsp": (
        (
            "Run the language server on standard input and output (an editor starts it): diagnostics as "
            "kartalint lint reports them, hover, completion of fields, jq paths, rule ids in suppression "
            "comments, and navigation (docs/editor.md). Needs pygls: kartalint[lsp].",
        ),
        (
            ("0", "the editor ended the session"),
            ("2", "the lsp extra is not installed"),
        ),
        (("kartalint lsp", "what an editor runs (docs/editor.md)"),),
    ),
    "completion": (
        (
            "Print a completion script for bash, zsh or fish, made from the command line itself: commands, "
            "options, files, and rule ids after `rules` and --disable.",
        ),
        (
            ("0", "printed"),
            ("2", "an unknown shell"),
        ),
        (("kartalint completion bash > ~/.local/share/bash-completion/completions/kartalint", "bash"),),
    ),
}

# What `kubectl karta COMMAND --help` says in kubectl's dialect (docs/kubectl.md): a note after the
# description, and examples of its own.
KUBECTL_NOTES = {
    "describe": "Under kubectl, -f/--filename FILE names the object ('-' for stdin) and -o/--output "
    "tree|json|yaml|wide the format, as for kubectl get.",
}
KUBECTL_EXAMPLES = {
    "describe": (
        ("kubectl karta describe -f job.yaml --pods pods.yaml", "the workload as kli and the scheduler see it"),
        ("kubectl get jobset demo -o yaml | kubectl karta describe -f - -o json", "from the cluster, as JSON"),
    ),
}


def description(command: str, prog: str = "kartalint", width: int = WIDTH) -> str:
    """What ``command`` does, wrapped for ``--help`` at ``width`` columns (``prog``: ``kubectl karta``
    under kubectl)."""
    paragraphs = list(PAGES[command][0])
    if prog != "kartalint" and command in KUBECTL_NOTES:
        paragraphs.append(KUBECTL_NOTES[command])
    return "\n\n".join(textwrap.fill(p, width) for p in paragraphs)


def epilog(command: str, prog: str = "kartalint", width: int = WIDTH) -> str:
    """The exit codes and the examples of ``command``, for the end of its ``--help`` (the exit codes
    and what each example does wrapped at ``width`` columns; an example's command line is one line,
    as a shell takes it)."""
    _, codes, examples = PAGES[command]
    if prog != "kartalint":
        examples = KUBECTL_EXAMPLES.get(command) or tuple((kubectl(line), what) for line, what in examples)
    lines = ["exit codes:"]
    for code, meaning in codes:
        lines += textwrap.wrap(meaning, width, initial_indent=f"  {code}  ", subsequent_indent="     ")
    lines += ["", "examples:"]
    for line, what in examples:
        lines += [f"  {line}", *textwrap.wrap(what, width, initial_indent="      ", subsequent_indent="      ")]
    return "\n".join(lines)


def kubectl(line: str) -> str:
    """An example as ``kubectl karta`` runs it."""
    return line.replace("kartalint ", "kubectl karta ", 1)


def markdown() -> str:
    """docs/commands.md: every command's page."""
    out = [
        "# Commands",
        "",
        "<!-- generated by `python -m kartalint.cli.manual > docs/commands.md` from kartalint/cli/manual.py,",
        "     the text `kartalint COMMAND --help` prints around its options: edit it there -->",
        "",
        "What each command does, its exit codes and examples, as `kartalint COMMAND --help` prints them",
        "(with its options between). The README and the pages of docs/ tell the rest.",
    ]
    for command, (paragraphs, codes, examples) in PAGES.items():
        out += ["", f"## `kartalint {command}`", ""]
        out += [line for p in paragraphs for line in (textwrap.fill(p, 100), "")]
        out += ["| exit code | meaning |", "|---|---|"]
        out += [f"| `{code}` | {meaning} |" for code, meaning in codes]
        out += ["", "```text"]
        out += [f"{line:<56}  # {what}" if len(line) <= 56 else f"{line}\n    # {what}" for line, what in examples]
        out += ["```"]
    return "\n".join(out) + "\n"


if __name__ == "__main__":  # pragma: no cover - docs/commands.md is made with it
    import sys

    sys.stdout.write(markdown())
