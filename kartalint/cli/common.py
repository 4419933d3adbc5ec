"""What the commands share: exit codes, output files, the project, messages on stderr."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, NoReturn

from kartalint.errors import UsageError

if TYPE_CHECKING:
    from kartalint.load.definitions import DefinitionFile, DefinitionIndex
    from kartalint.project import Project

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


def add_config_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-c", "--config", help="configuration file (default: .kartalint.yaml or pyproject.toml, searched upwards)"
    )


def add_allow_outside_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--allow-outside",
        action="append",
        default=[],
        metavar="DIR",
        help="let fixtures read files (objectFile, podsFile, definition) under DIR, outside the project (repeatable)",
    )


class Parser(argparse.ArgumentParser):
    program = "kartalint"  # what errors call the program (``kubectl karta`` under kubectl)

    def error(self, message: str) -> NoReturn:  # usage errors exit 2 with a one-line message
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.program}: error: {message}\n")

    def format_help(self) -> str:
        """``--help``: what the command does first, then its usage and options, then its exit codes
        and examples (the description and the epilog: ``cli.manual``)."""
        formatter = self._get_formatter()
        formatter.add_text(self.description)
        formatter.add_usage(self.usage, self._actions, self._mutually_exclusive_groups)
        for group in self._action_groups:
            formatter.start_section(group.title)
            formatter.add_text(group.description)
            formatter.add_arguments(group._group_actions)
            formatter.end_section()
        formatter.add_text(self.epilog)
        return formatter.format_help()


def emit(text: str, output: str | None, note: str = "", colour: bool = False) -> None:
    """Write a command's document to ``output`` (saying so on stderr when ``note``), or to stdout,
    whole or not at all (``report.output``); ``colour``: the text holds colour (report.colour)."""
    from kartalint.report.output import write_report

    write_report(output, text, colour)
    if output and note:
        sys.stderr.write(f"kartalint: wrote {output}: {note}\n")


def project_of(args: argparse.Namespace) -> Project:
    """The run's project, built once and handed to every stage: the configuration (``--config``,
    else the one found upwards) with the command line's ``--disable``."""
    cached = getattr(args, "_project", None)
    if cached is not None:
        return cached
    from kartalint.project import load_project
    from kartalint.rules import registry

    say_plugin_problems()
    project = load_project(getattr(args, "config", None), rules=registry.RULES)
    for rule_id in getattr(args, "disable", None) or ():
        if rule_id not in registry.RULES and rule_id not in project.config.house_rules:
            raise UsageError(f"--disable {rule_id}: unknown rule (see `kartalint rules`)")
        project.config.severities[rule_id] = None
    args._project = project
    return project


_SAID: set[str] = set()


def say_plugin_problems() -> None:
    """One warning on stderr for each plugin that could not be loaded (once per process)."""
    from kartalint.rules import registry

    for problem in registry.PLUGIN_PROBLEMS:
        if problem not in _SAID:
            _SAID.add(problem)
            sys.stderr.write(f"kartalint: warning: {problem}; its rules are not checked\n")


def add_verbose_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="say more: every shadowed definition, every unreadable file"
    )


def say_index(
    index: DefinitionIndex,
    level: str = "warning",
    project: Project | None = None,
    verbose: bool = False,
    problems: bool = True,
) -> None:
    """The notes of a definition search, each said once: shadowed bundled definitions as one count
    (listed with ``verbose``), files that cannot be read (with ``problems`` False only those of
    paths given explicitly: a command whose subject is one object does not talk about the
    project's other files, unless ``verbose``)."""
    for note in project.notes if project is not None else ():
        sys.stderr.write(f"kartalint: note: {note}\n")
    for problem in index.problems if problems or verbose else index.explicit_problems:
        sys.stderr.write(f"kartalint: {level}: {problem}\n")
    shadowing = [n for n in index.notes if "shadows the bundled" in n]
    duplicates = [n for n in index.notes if " have the same " in n]  # (DefinitionIndex._note)
    for notes, summary in (
        (shadowing, f"{len(shadowing)} project definitions shadow bundled ones (same group/version/kind or name"),
        (
            duplicates,
            f"{len(duplicates)} definitions repeat the group/version/kind or name of another (the first found is used",
        ),
    ):
        for note in [f"{summary}; -v lists them)"] if len(notes) > 1 and not verbose else notes:
            sys.stderr.write(f"kartalint: note: {note}\n")
    for note in index.notes:
        if note not in shadowing and note not in duplicates:
            sys.stderr.write(f"kartalint: note: {note}\n")


def add_color_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--color",
        "--colour",
        dest="color",
        choices=["auto", "always", "never"],
        default="auto",
        help="colour in text output (auto: on a terminal, unless NO_COLOR is set or TERM=dumb; FORCE_COLOR forces it)",
    )


def add_quiet_option(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("-q", "--quiet", action="store_true", help=f"{what}; no notes on stderr")


def use_color(choice: str, stream: object) -> bool:
    """Whether to colour what goes to ``stream`` (None: a file given with ``-o``): ``--color
    always|never`` decides; else ``NO_COLOR`` (no-color.org), then ``FORCE_COLOR``
    (force-color.org: any non-empty value), then ``TERM=dumb``, then whether it is a terminal."""
    if choice in ("always", "never"):
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if stream is None:
        return False  # a report file: colour only when asked for
    if os.environ.get("FORCE_COLOR"):
        return True
    if os.environ.get("TERM") == "dumb":
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


# What CI sets once for every run (docs/configuration.md): flag > environment > configuration > default.
ENVIRONMENT = {
    "KARTALINT_CONFIG": ("config", ()),
    "KARTALINT_FORMAT": ("format", ("lint", "test")),
    "KARTALINT_JOBS": ("jobs", ("lint",)),
}


def environment_defaults(parser: argparse.ArgumentParser, command: str) -> None:
    """Make the ``KARTALINT_*`` variables the defaults of ``command``'s options: a flag on the
    command line still wins. A value the option refuses is a usage error naming the variable."""
    actions = {action.dest: action for action in parser._actions}
    for variable, (dest, commands) in ENVIRONMENT.items():
        value = os.environ.get(variable, "")
        action = actions.get(dest)
        if not value or action is None or (commands and command not in commands):
            continue
        if action.choices is not None and value not in action.choices:
            raise UsageError(f"{variable}={value}: kartalint {command} takes {', '.join(map(str, action.choices))}")
        if action.type is int:
            try:
                action.default = int(value)
            except ValueError:
                raise UsageError(f"{variable}={value}: give a whole number") from None
        else:
            action.default = value


def read_pods(path: str | None) -> list[dict] | None:
    """Pods from a file (a PodList such as `kubectl get pods -o yaml` prints, several documents, or
    one Pod); a problem is a usage error."""
    from kartalint.load.objects import load_objects

    if not path:
        return None
    pod_objects, pod_errors = load_objects(path)
    if pod_errors:
        raise UsageError("; ".join(pod_errors))
    return [p.data for p in pod_objects]


def invalid_definition_lines(entry: DefinitionFile, project: Project) -> list[str]:
    """Why a definition is refused, each problem at its place, and what to do."""
    from kartalint.testing.run import LintCache, invalid_definition_problems

    return [
        *invalid_definition_problems(entry, LintCache(project.config)),
        f"{entry.path}: the definition is invalid (upstream refuses it): nothing was evaluated; "
        "fix it, or add --force to see what it makes of the object anyway",
    ]


def check_timeout(value: float) -> None:
    import math

    if not (math.isfinite(value) and 0 < value <= 3600):
        raise UsageError(f"--timeout must be a number of seconds above 0 and at most 3600 (got {value})")


def usage_reports(junit_xml: str | None, sarif: str | None, root: str, problems: list[str]) -> None:
    """A run that stops before any case (a missing path, nothing found) still writes the reports
    CI waits for (``--junit-xml``, ``--sarif``): JUnit with one error case per problem, SARIF with
    an unsuccessful invocation."""
    from kartalint.report.output import write_report

    if junit_xml:
        from kartalint.report.junit import usage_junit

        write_report(junit_xml, usage_junit(problems))
    if sarif:
        from kartalint.report.sarif import SarifLog

        log = SarifLog("test", root)
        for problem in problems:
            log.notify("error", problem)
        write_report(sarif, log.render())
