"""Outcome rules: the names SARIF, JUnit and annotations give to the results of ``kartalint test``
(a case that fails, one that cannot run, a refused file, ``--require-fixtures``,
``--min-coverage``, a mutant no fixture kills, a mutation score below the minimum)."""

from __future__ import annotations

from kartalint.model import Rule, Severity

# The ids of the rules this module reports (constants: a misspelt id is an import error).
FIXTURE_MISMATCH = "fixture-mismatch"
FIXTURE_ERROR = "fixture-error"
FIXTURE_PATH_OUTSIDE = "fixture-path-outside"
DEFINITION_WITHOUT_FIXTURE = "definition-without-fixture"
MUTANT_SURVIVED = "mutant-survived"
MUTATION_SCORE_BELOW_MINIMUM = "mutation-score-below-minimum"
COVERAGE_BELOW_MINIMUM = "coverage-below-minimum"


# The rules this module reports (collected by kartalint.rules.registry; docs/rules.md renders them).
RULES = (
    Rule(
        FIXTURE_MISMATCH,
        Severity.ERROR,
        "outcome",
        "What the definition makes of a fixture's object differs from the fixture's `expect` (a status, role, replica count, GPU total, pod placement or error), or an `xfail` case passed.",
        "fix the definition; if the change is intended, rewrite the expectation with `kartalint test --update`",
        why="The fixture pins what the definition must make of a real object; a difference is a behaviour change every consumer would see.",
    ),
    Rule(
        FIXTURE_ERROR,
        Severity.ERROR,
        "outcome",
        "A test case cannot run: its object, pods or definition cannot be read or found, its file is not valid, or its `expect` is empty.",
        "the message names the file and the place; fix it",
        why="A case that cannot run tests nothing; it fails rather than passes silently.",
    ),
    Rule(
        FIXTURE_PATH_OUTSIDE,
        Severity.ERROR,
        "outcome",
        "A fixture names a file (`objectFile`, `podsFile`, `definition`) or is a symbolic link that resolves outside the project; it is refused, so a pull request cannot make CI print a file of the machine.",
        "keep fixture files inside the project, or allow a folder deliberately with `--allow-outside DIR`",
        why="A fixture in a pull request could otherwise make CI read and print any file of the machine (secrets, keys).",
        security_severity="7.5",
    ),
    Rule(
        DEFINITION_WITHOUT_FIXTURE,
        Severity.ERROR,
        "outcome",
        "A project definition that no test case exercises (`--require-fixtures`).",
        "add a fixture for it (`kartalint new fixture OBJECT`)",
        why="A definition no fixture exercises can break without any test noticing.",
    ),
    Rule(
        MUTANT_SURVIVED,
        Severity.INFO,
        "outcome",
        "A small change of the definition (a mutant, `kartalint test --mutants`) that no fixture notices, though some object would tell it apart: the fixtures do not pin this part of the definition.",
        "add the fixture the hint names (an object like it, from a real workload where one exists), or pin the value the hint names in the fixture it names",
        why="A fixture suite that passes on a broken definition proves nothing about the broken part; each surviving mutant is a mistake that would ship unnoticed.",
    ),
    Rule(
        MUTATION_SCORE_BELOW_MINIMUM,
        Severity.ERROR,
        "outcome",
        "A definition's mutation score (killed / (killed + survived) mutants) is below `mutants: {min-score}` or `--min-mutation-score`.",
        "kill the surviving mutants with fixtures (each `mutant-survived` says which), or list the equivalent ones with a reason",
        why="The score says how much of the definition the fixtures pin; below the project's threshold, changes to the definition can ship unnoticed.",
    ),
    Rule(
        COVERAGE_BELOW_MINIMUM,
        Severity.ERROR,
        "outcome",
        "A definition's status mappings matched by its fixtures are below `--min-coverage`.",
        "add fixtures whose objects reach the status mappings never matched",
        why="A status mapping no fixture reaches is untested: it may never match a real object.",
    ),
)


def case_rule(outcome: str, refused: bool) -> str:
    """The rule naming a case's outcome: a failure (or an ``xfail`` that passed) is a mismatch, a
    case that could not run an error (a refused file has its own rule); passing outcomes have none."""
    if outcome in ("failed", "xpassed"):
        return FIXTURE_MISMATCH
    if outcome == "error":
        return FIXTURE_PATH_OUTSIDE if refused else FIXTURE_ERROR
    return ""
