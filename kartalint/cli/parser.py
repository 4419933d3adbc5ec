"""The argument parser of every command: options, usage errors, help pages, ``KARTALINT_*`` defaults.

Imported by the dispatch (``kartalint.cli``) when a command line needs it: every command line but
the plain ones a command reads itself (``plain_arguments`` of ``kartalint.cli.lint``: the
pre-commit hook's ``kartalint lint --allow-empty FILE...``), which never import ``argparse``
(with ``gettext`` and ``locale``, and building the parser: about a tenth of a one-file lint).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from kartalint.cli import COMMAND_NAMES, COMMANDS, ENVIRONMENT, EXIT_OK, EXIT_USAGE, command
from kartalint.errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn


class Parser(argparse.ArgumentParser):
    """kartalint's argument parser: a usage error is its usage and one line naming the program, exit 2."""

    program = "kartalint"  # what errors call the program (``kubectl karta`` under kubectl)
    page: tuple[str, str] | None = None  # (command, program) of the manual page not read yet (_read_page)
    manual: tuple[str, str] | None = None  # (command, program) of its manual page (wrapped again by --help)

    def error(self, message: str) -> NoReturn:  # usage errors exit 2 with a one-line message
        """Print the usage and ``message`` on one line naming the program; exit 2."""
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.program}: error: {message}\n")

    def format_help(self) -> str:
        """``--help``: what the command does first, then its usage and options, then its exit codes
        and examples (the description and the epilog: ``cli.manual``)."""
        _read_page(self)
        description, epilog = self.description, self.epilog
        if self.manual is not None:  # the page at the width the options are wrapped at (COLUMNS)
            from kartalint.cli import manual

            name, prog = self.manual
            width = max(help_width(), 11)  # (argparse's least width of text)
            description, epilog = manual.description(name, prog, width), manual.epilog(name, prog, width)
        formatter = self._get_formatter()
        formatter.add_text(description)
        formatter.add_usage(self.usage, self._actions, self._mutually_exclusive_groups)
        for group in self._action_groups:
            formatter.start_section(group.title)
            formatter.add_text(group.description)
            formatter.add_arguments(group._group_actions)
            formatter.end_section()
        formatter.add_text(epilog)
        return formatter.format_help()

    def _get_formatter(self) -> argparse.HelpFormatter:
        """argparse's formatter at the width it would take, without the ``shutil`` import it
        makes for it (with ``bz2``, ``lzma``, ``zlib`` and ``fnmatch``): ``add_argument`` makes a
        formatter for each option, so every command paid it."""
        return self.formatter_class(prog=self.prog, width=help_width())  # type: ignore[call-arg]  # (every HelpFormatter takes it)


def help_width() -> int:
    """The width argparse formats help at: ``shutil.get_terminal_size().columns - 2`` (``COLUMNS``
    when set above 0, else the width of the terminal of standard output, else 80)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return (columns or 80) - 2


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


class _Version(argparse.Action):
    """``--version``: computed when asked (the commit and libjq lookups cost a few milliseconds)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        _namespace: argparse.Namespace,
        _values: str | Sequence[object] | None,
        _option_string: str | None = None,
    ) -> None:
        from kartalint.cli.common import say_plugin_problems
        from kartalint.scaffold.release import version_report

        sys.stdout.write(version_report())
        say_plugin_problems()
        parser.exit(EXIT_OK)


def parse(argv: list[str], prog: str = "kartalint") -> argparse.Namespace | None:
    """The arguments of the command line ``argv`` (a usage error exits 2, with the command's usage);
    None when it names no command (the overview is then printed on stderr)."""
    name = argv[0] if argv and argv[0] in COMMAND_NAMES else None
    parser = build_parser(name, prog, overview=name is None)
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # said by the command's parser, with the command's usage
        command_parser(parser, args.command or "").error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.command is None:
        parser.print_help(sys.stderr)
        return None
    return args


def build_parser(only: str | None = None, prog: str = "kartalint", overview: bool = False) -> argparse.ArgumentParser:
    """The parser of every command, or of ``only`` alone (``main`` passes the command being run:
    building the others' parsers is most of a one-file lint's time after imports); each command's
    ``--help`` starts with what it does and ends with its exit codes and examples (``cli.manual``).
    ``overview``: the commands without their options (``kartalint --help``, ``--version``: no
    command's module is imported). ``prog``: what the help calls the program (``kubectl karta``
    under kubectl)."""
    parser = Parser(prog=prog, description="Lint, evaluate and test Karta (Workload-Map) definitions.")
    parser.program = prog
    parser.add_argument(
        "--version", action=_Version, nargs=0, help="show the version, commit, Python and libjq versions and exit"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name in COMMAND_NAMES if only is None else (only,):
        subparser = sub.add_parser(name, help=COMMANDS[name], formatter_class=argparse.RawDescriptionHelpFormatter)
        subparser.program = prog
        subparser.page = subparser.manual = (name, prog)
        if only is None and not overview:  # every command (completion reads them all): their pages now
            _read_page(subparser)
        if not overview:
            command(name).add_arguments(subparser)
        if only is not None:  # the command being run: KARTALINT_* variables are its defaults
            environment_defaults(subparser, name)
    return parser


def _read_page(parser: Parser) -> None:
    """A command's description and epilog (``cli.manual``), read when its help is shown (the
    command being run) or when every command's parser is built."""
    if parser.page is None:
        return
    from kartalint.cli import manual

    name, prog = parser.page
    parser.description, parser.epilog = manual.description(name, prog), manual.epilog(name, prog)
    parser.page = None


def command_parser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    """The parser of the command ``name`` (``parser`` itself when there is none)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and name in action.choices:
            return action.choices[name]
    return parser
