"""Command line: parse options, build the pipeline, run it, return an exit code.

The dispatch: one module per command, each with ``add_arguments(parser)`` and ``run(args) -> int``
(its one-line help is ``COMMANDS``'), imported when that command is run (the one lazy import of
``cli/``: a one-file lint imports no other command; ``--help`` and ``--version`` import none);
what the commands share is in ``common``.

Exit codes (all commands): 0 success; 1 findings at error level (or warnings with ``--strict``)
or failures; 2 usage or configuration error, missing path, or nothing to check.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import os
import signal
import sys
from collections.abc import Callable, Sequence
from types import FrameType, ModuleType

from kartalint.errors import UsageError
from kartalint.report.output import STDOUT, GuardedStream, MessageStream, OutputError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn, TextIO

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2
CLOSED_PIPE = 128 + 13  # the status of a process SIGPIPE ends (`cmd | head` under `set -o pipefail`)

COMMANDS = {  # each command and its line in `kartalint --help`
    "lint": "check definitions (schema, upstream validator, jq, best practices)",
    "describe": "what a definition makes of a workload object (roles, replicas, GPUs, status), from a file or the "
    "cluster",
    "test": "run definitions against fixtures, recordings and predictions; diff statuses, roles, replicas, GPUs",
    "diff": "what a definition change does to every fixture and recording (base vs head revision)",
    "explore": "generate objects valid for the CRD and find those a definition gets wrong (shrunk to a minimal object)",
    "new": "draft a fixture from an object (`new fixture OBJECT`) or a definition from a CRD (`new --crd CRD`)",
    "init": "set a repository up: .kartalint.yaml, pre-commit hooks, GitHub workflow, drafts from CRDs",
    "catalog": "list the bundled definitions (types, roles, status mappings, fixtures, coverage)",
    "rules": "list every rule, or explain one (`kartalint rules RULE`); --check runs the house rules' examples",
    "schema": "print the Karta JSON Schema (for editors; --fixture, --config, --summary: the fixture, configuration "
    "and fleet summary schemas)",
    "lsp": "language server for editors (stdio; docs/editor.md)",
    "completion": "print a shell completion script (bash, zsh or fish)",
}
COMMAND_NAMES = tuple(COMMANDS)


def command(name: str) -> ModuleType:
    """The module of a command (imported when used: a one-file lint imports no other command)."""
    return importlib.import_module(f"kartalint.cli.{name}")


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


def main(argv: Sequence[str] | None = None, prog: str = "kartalint") -> int:
    """Run the command line ``argv`` (default: this process's); ``prog``: what help and usage call
    the program (``kubectl karta`` when the kubectl plugin runs it)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    stdout, stderr = sys.stdout, sys.stderr
    if argv[:1] != ["lsp"]:  # (the language server talks on stdout's bytes itself)
        sys.stdout = GuardedStream(stdout, STDOUT)  # every line safe to show (report.escape)
        sys.stderr = MessageStream(stderr)
    try:
        return _run(argv, prog)
    except UsageError as exc:
        sys.stderr.write(f"kartalint: error: {exc}\n")
        return EXIT_USAGE
    except OutputError as exc:  # a report could not be written: one line, whatever the findings
        if exc.target == STDOUT:
            _silence_stdout(stdout)
            if exc.closed_pipe:  # `| head`: silent, as grep and cat are, and never a green exit
                return CLOSED_PIPE
        sys.stderr.write(f"kartalint: error: {exc}\n")
        return EXIT_USAGE
    except BrokenPipeError:  # pragma: no cover - a write outside the guarded streams
        return CLOSED_PIPE
    except Terminated:
        return 128 + signal.SIGTERM
    except KeyboardInterrupt:  # pragma: no cover
        return 130
    finally:
        for stream in (sys.stdout, sys.stderr):
            if isinstance(stream, GuardedStream):
                with contextlib.suppress(OutputError):
                    stream.flush()
        sys.stdout, sys.stderr = stdout, stderr


def _run(argv: list[str], prog: str = "kartalint") -> int:
    """Parse the command line and run the command, SIGTERM unwinding it (``_stop_on_sigterm``)."""
    paused = _pause_collector()
    try:
        name = argv[0] if argv and argv[0] in COMMAND_NAMES else None
        parser = build_parser(name, prog, overview=name is None)
        args, unknown = parser.parse_known_args(argv)
        if unknown:  # said by the command's parser, with the command's usage
            command_parser(parser, args.command or "").error(f"unrecognized arguments: {' '.join(unknown)}")
        if args.command is None:
            parser.print_help(sys.stderr)
            return EXIT_USAGE
        if getattr(args, "quiet", False) and isinstance(sys.stderr, MessageStream):
            sys.stderr.quiet = True  # -q: no notes, from any stage
        module = command(args.command)
    finally:
        _freeze_start_up(paused)
    previous = _stop_on_sigterm()
    try:
        code = int(module.run(args))
        if isinstance(sys.stdout, GuardedStream):  # a full disk or a closed pipe is said now, not at exit
            sys.stdout.flush()
        return code
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


_FROZEN: list[bool] = []


def _pause_collector() -> bool:
    """Pause the garbage collector for start-up (parsing the command line, importing the command),
    once per process, when it runs: what start-up makes lives until exit, and the collector walked
    it again about 20 times (3 ms of a one-file lint). True when paused (``_freeze_start_up``
    resumes it)."""
    if _FROZEN or not gc.isenabled():
        return False
    gc.disable()
    return True


def _freeze_start_up(paused: bool) -> None:
    """Move what start-up made (modules, classes, functions, the rule registry: alive until exit)
    out of the garbage collector's sight, once per process: the interpreter's last collection at
    exit walked all of it again (about a tenth of a one-file lint); then resume the collector if
    ``_pause_collector`` ``paused`` it. Cycles the command makes are collected and finalized as
    before."""
    if not _FROZEN:
        _FROZEN.append(True)
        gc.freeze()
    if paused:
        gc.enable()


def _silence_stdout(stdout: TextIO) -> None:
    """After standard output failed, what is left in its buffer must not fail again at exit
    (Python would print "Exception ignored" and exit 120)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # not a real file (tests), or already closed
        pass


class Terminated(KeyboardInterrupt):
    """SIGTERM was received. A ``KeyboardInterrupt`` so that nothing takes it for a failure to
    catch (hypothesis in ``explore`` shrinks a ``SystemExit`` like any error)."""


def _terminated(signum: int, frame: FrameType | None) -> None:
    raise Terminated


def _stop_on_sigterm() -> Callable[[int, FrameType | None], object] | int | None:
    """SIGTERM (a CI step's timeout, an editor stopping the language server) unwinds the command
    like Ctrl-C: every ``finally`` runs, so the jq worker and ``lint -j`` workers are stopped
    before kartalint exits with 143 (they also die with it on their own: ``jqlang.lifetime``).
    Returns the previous handler (None outside the main thread, where no handler can be set)."""
    try:
        return signal.signal(signal.SIGTERM, _terminated)
    except (ValueError, OSError):
        return None
