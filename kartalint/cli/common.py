"""What the commands share: options, output files, the project, messages on stderr (the exit
codes, the parser and the ``KARTALINT_*`` defaults are the dispatch's: ``kartalint.cli``)."""

from __future__ import annotations

import os
import sys

from kartalint.errors import ConfigError, UsageError
from kartalint.project import load_project
from kartalint.report.output import write_report
from kartalint.rules import registry

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from kartalint.load.definitions import DefinitionIndex
    from kartalint.project import Project


def given_once(option: str, values: list[str] | None) -> str | None:
    """The one file of an option read from one file (argparse's ``append``: a second one is not
    dropped in silence, as argparse's last-wins would drop it)."""
    if not values:
        return None
    if len(values) > 1:
        raise ConfigError(
            f"{option} given {len(values)} times ({', '.join(values)}): it reads one file; put the documents in one "
            "(kubectl get pods,jobs -o yaml > pods.yaml, or the files joined with a line '---' between them)"
        )
    return values[0]


def add_config_option(parser: argparse.ArgumentParser) -> None:
    """``--config FILE``: the project configuration to read instead of the one found."""
    parser.add_argument(
        "-c",
        "--config",
        metavar="FILE",
        help="configuration file (default: .kartalint.yaml or pyproject.toml, searched upwards)",
    )


def add_allow_outside_option(parser: argparse.ArgumentParser) -> None:
    """``--allow-outside DIR``: a folder outside the project that fixtures may read files from."""
    parser.add_argument(
        "--allow-outside",
        action="append",
        default=[],
        metavar="DIR",
        help="let fixtures read files (objectFile, podsFile, definition) under DIR, outside the project (repeatable)",
    )


def emit(text: str, output: str | None, note: str = "", colour: bool = False) -> None:
    """Write a command's document to ``output`` (saying so on stderr when ``note``), or to stdout,
    whole or not at all (``report.output``); ``colour``: the text holds colour (report.colour)."""
    write_report(output, text, colour)
    if output and note:
        sys.stderr.write(f"kartalint: wrote {output}: {note}\n")


def project_of(args: argparse.Namespace) -> Project:
    """The run's project, built once and handed to every stage: the configuration (``--config``,
    else the one found upwards) with the command line's ``--disable``."""
    cached = getattr(args, "_project", None)
    if cached is not None:
        return cached
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
    for problem in registry.PLUGIN_PROBLEMS:
        if problem not in _SAID:
            _SAID.add(problem)
            sys.stderr.write(f"kartalint: warning: {problem}; its rules are not checked\n")


def add_verbose_option(parser: argparse.ArgumentParser) -> None:
    """``-v``/``--verbose``: say every shadowed definition and every unreadable file."""
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="say more: every shadowed definition, every unreadable file"
    )


def say_index(
    index: DefinitionIndex,
    level: str = "warning",
    project: Project | None = None,
    verbose: bool = False,
    problems: bool = True,
    shadowing: bool = True,
) -> None:
    """The notes of a definition search, each said once: shadowed bundled definitions as one count
    (listed with ``verbose``; with ``shadowing`` False only with ``verbose``: a command whose output
    names the definition file it used), files that cannot be read (with ``problems`` False only
    those of paths given explicitly: a command whose subject is one object does not talk about the
    project's other files, unless ``verbose``)."""
    for note in project.notes if project is not None else ():
        sys.stderr.write(f"kartalint: note: {note}\n")
    for problem in index.problems if problems or verbose else index.explicit_problems:
        sys.stderr.write(f"kartalint: {level}: {problem}\n")
    shadowed = [n for n in index.notes if "shadows the bundled" in n]
    duplicates = [n for n in index.notes if " have the same " in n]  # (DefinitionIndex._note)
    for notes, summary in (
        (
            shadowed if shadowing or verbose else [],
            f"{len(shadowed)} project definitions shadow bundled ones (same group/version/kind or name",
        ),
        (
            duplicates,
            f"{len(duplicates)} definitions repeat the group/version/kind or name of another (the first found is used "
            "where none is named",
        ),
    ):
        for note in [f"{summary}; -v lists them)"] if len(notes) > 1 and not verbose else notes:
            sys.stderr.write(f"kartalint: note: {note}\n")
    for note in index.notes:
        if note not in shadowed and note not in duplicates:
            sys.stderr.write(f"kartalint: note: {note}\n")


def add_color_option(parser: argparse.ArgumentParser) -> None:
    """``--color``: colour the text output (auto, always, never)."""
    parser.add_argument(
        "--color",
        "--colour",
        dest="color",
        choices=["auto", "always", "never"],
        default="auto",
        help="colour in text output (auto: on a terminal, unless NO_COLOR is set or TERM=dumb; FORCE_COLOR forces it)",
    )


def add_quiet_option(parser: argparse.ArgumentParser, what: str) -> None:
    """``-q``/``--quiet``: leave out ``what`` the command says on success."""
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


def check_timeout(value: float) -> None:
    """``--timeout``: a number of seconds above 0 and at most an hour (a usage error otherwise)."""
    if not 0 < value <= 3600:  # (neither NaN nor an infinity is)
        raise UsageError(f"--timeout must be a number of seconds above 0 and at most 3600 (got {value})")
