"""Command line: parse options, build the pipeline, run it, return an exit code.

The dispatch: one module per command, each with ``add_arguments(parser)`` and ``run(args) -> int``
(its one-line help is ``COMMANDS``'), imported when that command is run (the lazy boundary of
``cli/``: a one-file lint imports no other command; ``--help`` and ``--version`` import none);
what the commands share is in ``common``. The parser (``cli.parser``, with ``argparse``) is
imported there too, for every command line but a plain one its command reads itself
(``plain_arguments``: the pre-commit hook's ``kartalint lint --allow-empty FILE...``).

Exit codes (all commands): 0 success; 1 findings at error level (or warnings with ``--strict``)
or failures; 2 usage or configuration error, missing path, or nothing to check.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable, Sequence
from types import FrameType, ModuleType, SimpleNamespace

from kartalint.errors import UsageError
from kartalint.report.output import STDOUT, GuardedStream, MessageStream, OutputError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from argparse import Namespace
    from typing import TextIO

# SIGTERM's handler: the C module ``signal`` wraps (``signal`` itself makes its enums at import:
# half a millisecond of a one-file lint)
signal: ModuleType = sys.modules.get("signal") or __import__("_signal")

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
    """The module of a command (imported when used: a one-file lint imports no other command), or
    the parser's (``parser``: imported when a command line needs it)."""
    module = f"kartalint.cli.{name}"
    __import__(module)  # (not importlib's import_module: importlib is not on a one-file lint's path)
    return sys.modules[module]


# The commands whose module reads a plain command line itself (``plain_arguments(argv) -> dict |
# None``: the values of its options, None when the parser must read it), without the parser;
# tests/test_plain_arguments.py holds what they read equal to what the parser reads.
PLAIN = ("lint",)


# What CI sets once for every run (docs/configuration.md): flag > environment > configuration > default.
ENVIRONMENT = {
    "KARTALINT_CONFIG": ("config", ()),
    "KARTALINT_FORMAT": ("format", ("lint", "test")),
    "KARTALINT_JOBS": ("jobs", ("lint",)),
}


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
                try:
                    stream.flush()
                except OutputError:
                    pass
        sys.stdout, sys.stderr = stdout, stderr


def _run(argv: list[str], prog: str = "kartalint") -> int:
    """Parse the command line and run the command, SIGTERM unwinding it (``_stop_on_sigterm``)."""
    paused = _pause_collector()
    try:
        refuse_files_read_as_options(argv)
        args: Arguments | Namespace | None = plain_arguments(argv)
        if args is None:  # every other command line: the parser, with argparse, imported now
            args = command("parser").parse(argv, prog)
        if args is None:  # no command: the overview was printed
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


def refuse_files_read_as_options(argv: Sequence[str]) -> None:
    """A usage error when a word of the command line before ``--`` starts with ``-`` and names a
    file or folder of the current folder: a staged ``-o.yaml`` passed by pre-commit read as ``-o
    .yaml`` linted the whole project and wrote the report to ``.yaml``, green; ``-weird.yaml``
    was an unknown option. Such a name is given after ``--`` (the hook's ``args: ["--"]``) or as
    ``./-o.yaml``."""
    for word in argv[1:] if argv[:1] and argv[0] in COMMANDS else ():
        if word == "--":
            return
        if word.startswith("-") and word != "-" and os.path.lexists(word):
            raise UsageError(
                f"'{word}' is a file here and reads as an option: give file names after `--` "
                f'(kartalint {argv[0]} [OPTIONS] -- {word}) or as ./{word} (pre-commit: end the hook\'s args with "--")'
            )


def plain_arguments(argv: Sequence[str]) -> Arguments | None:
    """The arguments of a plain command line (``PLAIN``), read by its command without the parser;
    None for every other command line, and when a ``KARTALINT_*`` variable sets a default."""
    if not argv or argv[0] not in PLAIN or any(os.environ.get(variable) for variable in ENVIRONMENT):
        return None
    values: dict[str, object] | None = command(argv[0]).plain_arguments(argv[1:])
    if values is None:
        return None
    return Arguments(version=None, command=argv[0], **values)  # (``--version``: the parser's own option)


class Arguments(SimpleNamespace):
    """What a command reads from a plain command line: the attributes the parser would have set
    (an ``argparse.Namespace`` without ``argparse``)."""


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
