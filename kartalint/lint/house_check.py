"""``kartalint rules --check``: each house rule (and each plugin rule with examples) run on its
examples. The bad file must raise the rule (at the line marked ``# <- here`` when one is marked),
the good file must not. A house rule that cannot run (its jq does not compile, uses what the
sandbox refuses, fails on an example or runs out of time) fails once, at its place in the
configuration: never a traceback, never a silent pass.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Literal

from kartalint.lint.pipeline import lint_source
from kartalint.load.confinement import why_not_a_file
from kartalint.load.documents import display_path, load_file
from kartalint.load.house_rules import Failure, static_problem
from kartalint.model import Finding, Rule, Severity
from kartalint.project import Config
from kartalint.rules import registry
from kartalint.rules._house_jq import engine
from kartalint.rules.house import failure_finding
from kartalint.rules.house import failures as house_failures

CheckOutcome = Literal["passed", "failed", "no-examples"]


@dataclass(frozen=True)
class Problem:
    """Something wrong with a rule or its examples, where it is (line 0: the file as a whole)."""

    file: str
    line: int
    column: int
    message: str


@dataclass
class RuleCheck:
    """One rule's check: where it is declared, its examples, and what went wrong."""

    rule: Rule
    declared: str  # "file:line" of a house rule, the plugin of a plugin's rule
    bad: str | None = None
    good: str | None = None
    marked: int = 0  # the bad example's line marked `# <- here` (0: none)
    problems: list[Problem] = field(default_factory=list)

    @property
    def outcome(self) -> CheckOutcome:
        """``failed`` with a problem, else ``passed``, or ``no-examples`` when it has none."""
        if self.problems:
            return "failed"
        return "passed" if self.bad else "no-examples"


@dataclass
class CheckRun:
    """Every rule checked; the exit code and the summary line are the run's."""

    checks: list[RuleCheck] = field(default_factory=list)
    quiet: bool = False  # the text shows the rules that did not pass and the summary only (`-q`)

    def shown(self) -> list[RuleCheck]:
        """The rules the text lists: all, or with ``quiet`` (the hook's) those that failed."""
        return [check for check in self.checks if not self.quiet or check.outcome == "failed"]

    def count(self, outcome: CheckOutcome) -> int:
        """How many rules have ``outcome``."""
        return sum(1 for check in self.checks if check.outcome == outcome)

    def exit_code(self) -> int:
        """1 when a rule failed, else 0."""
        return 1 if self.count("failed") else 0

    def summary(self) -> str:
        """The run in one line."""
        if not self.checks:
            return "no house rule in the configuration and no plugin rule with examples: nothing to check"
        none = self.count("no-examples")
        without = f", {none} without examples" if none else ""
        return (
            f"{len(self.checks)} rule(s) checked: {self.count('passed')} passed, {self.count('failed')} failed{without}"
        )


def check_rules(config: Config) -> CheckRun:
    """Check the house rules of ``config`` on their examples, then the plugins' rules with examples."""

    engine().new_run()
    run = CheckRun()
    for house in config.house_rules.values():
        check = RuleCheck(house.rule, f"{display_path(house.source)}:{house.at[0]}")
        run.checks.append(check)
        problem = static_problem(house)
        if problem is not None:
            check.problems.append(_at(failure_finding(house, Failure(problem.part, problem.message, static=True))))
            continue
        if house.examples is None:
            continue
        check.bad, check.good = house.examples
        anywhere = house.replace(paths=())  # its examples need not be among its paths
        _examples(check, Config(root=config.root, house_rules={house.id: anywhere}, max_file_size=config.max_file_size))
        for failure in house_failures([anywhere]):  # failed on an example: said once, where it is declared
            check.problems = [_at(failure)]
    for rule in registry.iter_rules():
        found = registry.examples(rule.id) if rule.origin else None
        if found is not None:
            check = RuleCheck(rule, rule.origin, os.path.join(found.folder, "bad.yaml"))
            check.good = os.path.join(found.folder, "good.yaml")
            crd = os.path.join(found.folder, "crd.yaml")
            run.checks.append(check)
            _examples(check, Config(root=found.folder, crds=[crd] if os.path.exists(crd) else []))
    return run


def _at(finding: Finding) -> Problem:
    return Problem(finding.file, finding.line, finding.column, finding.message)


def _examples(check: RuleCheck, config: Config) -> None:
    """Lint the bad and the good example under ``config``; say what does not hold."""
    assert check.bad is not None and check.good is not None
    bad_all = _findings(check, check.bad, config)
    good_all = _findings(check, check.good, config)
    if bad_all is None or good_all is None:
        return
    bad = [f for f in bad_all if f.rule == check.rule.id]
    good = [f for f in good_all if f.rule == check.rule.id]
    check.marked = _marked(check.bad)
    label = display_path(check.bad)
    if not bad:
        where = f" (it is marked `# <- here` at line {check.marked})" if check.marked else ""
        check.problems.append(Problem(label, check.marked, 1, f"the bad example does not raise {check.rule.id}{where}"))
    elif check.marked and all(f.line != check.marked for f in bad):
        lines = ", ".join(str(f.line) for f in bad)
        check.problems.append(
            Problem(
                label,
                check.marked,
                1,
                f"{check.rule.id} fires at line(s) {lines} of the bad example, not at line {check.marked} marked `# <- here`",
            )
        )
    for finding in good:
        check.problems.append(
            Problem(
                display_path(check.good),
                finding.line,
                finding.column,
                f"the good example raises {check.rule.id}: {finding.message}",
            )
        )
    if not good:  # clean of the rule because it is no valid definition proves nothing
        for finding in [f for f in good_all if f.severity is Severity.ERROR][:1]:
            check.problems.append(
                Problem(
                    display_path(check.good),
                    finding.line,
                    finding.column,
                    f"the good example is not a valid definition, so it proves nothing about {check.rule.id}: "
                    f"{finding.message} ({finding.rule})",
                )
            )


def _findings(check: RuleCheck, path: str, config: Config) -> list[Finding] | None:
    """The findings of every rule in the example at ``path`` (None: the example cannot be used, said
    as a problem)."""
    label = display_path(path)
    if not os.path.isfile(path):
        check.problems.append(Problem(label, 0, 0, why_not_a_file(path, "no such example file")))
        return None
    outcome = lint_source(load_file(path, config.max_file_size), config, strict_files=True)
    if not outcome.kartas:
        loading = [f.message for f in outcome.findings if f.rule.startswith(("yaml-", "file-"))]
        why = f": {loading[0]}" if loading else ""
        check.problems.append(Problem(label, 0, 0, f"the example holds no Karta definition{why}"))
        return None
    return list(outcome.findings)


def _marked(path: str) -> int:
    """The line of ``path`` marked ``# <- here`` (0: none)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for number, line in enumerate(handle, 1):
                if registry.MARKER in line:
                    return number
    except OSError:
        pass
    return 0
