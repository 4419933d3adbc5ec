"""Where a report goes: the one guarded writer of every format and command.

``report_output(path)`` gives the text stream a report is written to. With a path, the report is
written to a temporary file next to it and renamed over it only once complete: a write error (a
full disk, EIO, a file-size limit), an exception or a kill half way leave the target as it was, and
never a partial file. A target that exists and is not a regular file (``/dev/null``, a FIFO, a
terminal) is written directly. Without a path, standard output. A symbolic link on the way that
leaves the project holding it (a committed ``report.sarif -> ~/.bashrc``, ``out -> /dev/sda``) is
refused before anything is made (``checked_target``). Any error opening or writing is an
``OutputError`` naming the file, one line (the commands exit 2 with it), never a traceback.
"""

from __future__ import annotations

import errno
import io
import os
import stat
import sys

from kartalint.errors import KartalintError
from kartalint.load.confinement import git_toplevel, nearest_folder_above
from kartalint.report.escape import guard_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO, Any

STDOUT = "standard output"


class OutputError(KartalintError):
    """A report could not be written (exit code 2)."""

    def __init__(self, target: str, problem: BaseException | str) -> None:
        """``target``: the file (or ``standard output``) that could not be written; ``problem``: the OS
        error (its ``strerror`` is said) or a sentence."""
        reason = problem if isinstance(problem, str) else (getattr(problem, "strerror", None) or str(problem))
        super().__init__(f"cannot write {target}: {reason or type(problem).__name__}")
        self.target = target
        self.closed_pipe = isinstance(problem, BrokenPipeError)  # the reader went away (`| head`)


class GuardedStream(io.TextIOBase):
    """A text stream whose write errors are an ``OutputError`` naming ``target``, and whose lines
    are made safe to show (``escape.guard_line``: no control character, no line that a GitHub
    Actions runner takes for a workflow command unless ``commands``, the github format; ESC kept
    for ``colour``). A line is written once complete (or on ``flush``)."""

    def __init__(self, stream: IO[str] | None, target: str, commands: bool = False, colour: bool = False) -> None:
        """Guards ``stream`` (None: closed, every write fails) for ``target``, the name its errors
        give; ``commands`` lets workflow commands through (the github format), ``colour`` keeps ESC."""
        super().__init__()
        self.stream = stream
        self.target = target
        self.commands = commands
        self.colour = colour
        self._pending = ""  # the line being written
        self._continued = False  # the pending text continues a line already flushed
        self._raw = None if stream is None else _unbuffered_bytes(stream)  # (found once, not at every write)

    def _failed(self, exc: BaseException) -> OutputError:
        return OutputError(self.target, exc)

    def _guard(self, line: str) -> str:
        ending = "\r" if line.endswith("\r") else ""  # a CRLF line ending (CSV's) stays one; a CR inside is escaped
        guarded = guard_line(
            line[: len(line) - len(ending)], commands=self.commands or self._continued, colour=self.colour
        )
        self._continued = False
        return guarded + ending

    def _send(self, text: str) -> None:
        if self.stream is None:
            raise OutputError(self.target, "it is closed")
        try:
            if self._raw is None:
                self.stream.write(text)
            else:
                _write_whole(self.stream, self._raw, text)
        except (OSError, ValueError) as exc:  # ValueError: I/O operation on a closed file
            raise self._failed(exc) from None

    def write(self, text: str) -> int:
        """Take ``text``: each complete line is guarded and written, the rest waits for its newline or
        ``flush``. Returns ``len(text)``; ``OutputError`` when writing fails or the stream is closed."""
        if self.stream is None:
            raise OutputError(self.target, "it is closed")
        self._pending += text
        if "\n" in self._pending:
            lines, _, self._pending = self._pending.rpartition("\n")
            self._send("".join(self._guard(line) + "\n" for line in lines.split("\n")))
        return len(text)

    def flush(self) -> None:
        """Write the pending part of a line (guarded) and flush the stream; ``OutputError`` when that
        fails. Nothing once closed."""
        if self.stream is None:
            return
        if self._pending:
            self._send(self._guard(self._pending))
            self._pending = ""
            self._continued = True
        try:
            self.stream.flush()
        except (OSError, ValueError) as exc:
            raise self._failed(exc) from None

    def isatty(self) -> bool:
        """Whether the stream underneath is a terminal (False when it is closed or cannot tell)."""
        try:
            return bool(self.stream is not None and self.stream.isatty())
        except (OSError, ValueError):
            return False

    def writable(self) -> bool:
        """Always True: a report stream is written to."""
        return True

    @property
    def encoding(self) -> Any:  # type: ignore[override]
        """The encoding of the stream underneath (``utf-8`` when it has none)."""
        return getattr(self.stream, "encoding", "utf-8")


def _unbuffered_bytes(stream: IO[str]) -> Any:
    """The unbuffered byte file under a text stream (standard output under ``PYTHONUNBUFFERED=1``
    or ``python -u``: a ``TextIOWrapper`` straight over a ``FileIO``), else None. Its text layer
    writes a long text in one system call and ignores a short count: a pipe whose reader goes away
    half way takes part of the text, and the rest is dropped without an error (a buffered stream
    writes the rest and meets the closed pipe)."""
    raw = getattr(stream, "buffer", None)
    if isinstance(stream, io.TextIOWrapper) and isinstance(raw, io.RawIOBase) and os.linesep == "\n":
        return raw
    return None


def _write_whole(stream: Any, raw: Any, text: str) -> None:
    """Write ``text``, encoded as ``stream`` (a ``TextIOWrapper``) encodes, to its unbuffered byte file ``raw`` until every
    byte is taken: a short write is followed by another, which meets the error (``BrokenPipeError``
    once the reader is gone)."""
    data = memoryview(text.encode(stream.encoding or "utf-8", stream.errors or "strict"))
    stream.flush()  # (what the text layer holds goes first)
    while data:
        count = raw.write(data)
        if count is None:  # a non-blocking file that would block
            raise BlockingIOError(errno.EAGAIN, "it would block")
        data = data[count:]


NOTE = "kartalint: note: "


class MessageStream(GuardedStream):
    """Standard error: its lines made safe like a report's (messages quote file names and
    values); a failure to write there is ignored (there is nowhere left to say it)."""

    def __init__(self, stream: IO[str] | None) -> None:
        """Guards ``stream`` (None: messages are dropped); the notes are written until ``quiet`` is set."""
        super().__init__(stream, "standard error")
        self.quiet = False  # ``-q``: the ``kartalint: note:`` lines are left out

    def _send(self, text: str) -> None:
        if self.quiet:
            text = "".join(line for line in text.splitlines(keepends=True) if not line.startswith(NOTE))
        try:
            super()._send(text)
        except OutputError:
            pass

    def write(self, text: str) -> int:
        """As ``GuardedStream.write``; without a stream the text is dropped."""
        if self.stream is None:
            return len(text)
        return super().write(text)

    def flush(self) -> None:
        """As ``GuardedStream.flush``, a failure ignored."""
        try:
            super().flush()
        except OutputError:
            pass


_PROJECT_FILES = (".kartalint.yaml", ".kartalint.yml")


def _project_of(folder: str) -> str | None:
    """The project a (real) folder lies in: its git work tree, else the nearest folder at or above
    it holding a kartalint configuration; None outside both."""
    return git_toplevel(folder) or nearest_folder_above(
        folder, lambda directory: any(os.path.isfile(os.path.join(directory, name)) for name in _PROJECT_FILES)
    )


def checked_target(path: str) -> str:
    """The real path a file written to ``path`` lands at. Each symbolic link on the way (the file
    or a folder above it) is followed only when it is not in a project (the machine's own, such as
    ``/dev/stdout``) or when it stays inside the project that holds it: a link a pull request
    committed cannot send a report, or the folders made for it, anywhere else. ``OutputError``
    naming the link otherwise."""
    if "\x00" in path:
        raise OutputError(repr(path), "it holds a NUL character: not a path")
    full = os.path.join(os.getcwd(), path)
    drive, rest = os.path.splitdrive(full)
    current = drive + os.sep
    for piece in rest.split(os.sep):
        if piece in ("", "."):
            continue
        if piece == "..":
            current = os.path.dirname(current)
            continue
        candidate = os.path.join(current, piece)
        if not os.path.islink(candidate):
            current = candidate  # (its folder is real, so is it)
            continue
        real = os.path.realpath(candidate)
        owner = _project_of(current)
        top = os.path.realpath(owner) if owner is not None else None
        if top is not None and not (real == top or real.startswith(top.rstrip(os.sep) + os.sep)):
            raise OutputError(
                path,
                f"{candidate} is a symbolic link to {real}, outside the project {top}: refused "
                "(name a path inside the project, or the file it points to)",
            )
        current = real
    return current


def make_folders(folder: str) -> None:
    """Make ``folder`` and the folders above it as ``ReportFile`` does (never through a symbolic
    link out of a project); ``OutputError`` when it cannot."""
    real = checked_target(folder)
    try:
        os.makedirs(real, exist_ok=True)
    except OSError as exc:
        raise OutputError(folder, exc) from None


class ReportFile:
    """A report file being written: a temporary file in the target's folder until ``commit``
    (``abandon`` removes it; both can be called again, and ``abandon`` after ``commit`` does
    nothing)."""

    def __init__(self, path: str, commands: bool = False, colour: bool = False) -> None:
        """Open a temporary file in the folder of ``path`` (of the file a symbolic link names, when
        ``checked_target`` follows it; the folder is made when missing); a device or FIFO is
        opened in place. ``commands`` and ``colour`` as ``GuardedStream``. ``OutputError`` when
        ``path`` is a folder, a link out of its project, or the file cannot be made."""
        self.path = path
        self.temporary: str | None = None
        real = checked_target(path)  # through a symbolic link the check allows: the file it names is replaced
        try:
            if os.path.isdir(real):
                raise OutputError(path, "it is a folder")
            folder = os.path.dirname(real)
            try:
                mode: int | None = os.stat(path).st_mode  # (/dev/stdout: through /proc's links)
            except OSError:
                mode = None
            if mode is not None and not stat.S_ISREG(mode):  # a device, a FIFO: written in place
                self.real = real
                self.handle: IO[str] = open(path, "w", encoding="utf-8", newline="")  # noqa: SIM115
            else:
                os.makedirs(folder, exist_ok=True)
                self.real = real
                self.mode = stat.S_IMODE(mode) if mode is not None else 0o666 & ~_umask()
                descriptor, self.temporary = _new_temporary(folder, os.path.basename(real))
                self.handle = os.fdopen(descriptor, "w", encoding="utf-8", newline="")
        except OSError as exc:
            raise OutputError(path, exc) from None
        self.stream = _text_io(GuardedStream(self.handle, path, commands=commands, colour=colour))

    def commit(self) -> None:
        """Flush, sync and close the file, then rename it over the target, with the target's permission
        bits (a new file: the umask's). On failure the temporary file is removed and ``OutputError``
        raised."""
        try:
            self.handle.flush()
            if self.temporary is not None:
                os.fsync(self.handle.fileno())
            self.handle.close()
            if self.temporary is not None:
                os.chmod(self.temporary, self.mode)
                os.replace(self.temporary, self.real)
                self.temporary = None
        except (OSError, ValueError) as exc:
            self.abandon()
            raise OutputError(self.path, exc) from None

    def abandon(self) -> None:
        """Close and remove the temporary file: the target stays as it was."""
        try:
            self.handle.close()
        except (OSError, ValueError):
            pass
        if self.temporary is not None:
            try:
                os.unlink(self.temporary)
            except OSError:
                pass
            self.temporary = None


def _new_temporary(folder: str, name: str) -> tuple[int, str]:
    """(descriptor, path) of a new file ``.<name>.<random>.tmp`` in ``folder``, made as
    ``tempfile.mkstemp`` makes one (exclusively, mode 0600, never through a symbolic link). Not
    ``tempfile`` itself: it imports ``shutil``, ``random`` and the compressors, on the path of every
    one-file lint, which writes no file."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(100):
        path = os.path.join(folder, f".{name}.{os.urandom(6).hex()}.tmp")
        try:
            return os.open(path, flags, 0o600), path
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused temporary file name", folder)  # pragma: no cover


def _text_io(stream: GuardedStream) -> IO[str]:
    """A guarded stream as what reporters write to (a text stream: ``io.TextIOBase``)."""
    text: Any = stream  # (the type checker does not take a TextIOBase for an IO[str])
    return text


def _umask() -> int:
    current = os.umask(0o022)
    os.umask(current)
    return current


class StdoutReport:
    """A report on standard output (``commit`` flushes it)."""

    def __init__(self, commands: bool = False, colour: bool = False) -> None:
        """Guards standard output (what ``sys.stdout`` holds when it is already the command's guard,
        flushed first); ``commands`` and ``colour`` as ``GuardedStream``."""
        stdout: Any = sys.stdout
        if isinstance(stdout, GuardedStream):  # the command's guard (cli.main): this one guards instead
            stdout.flush()
            stdout = stdout.stream
        self.stream = _text_io(GuardedStream(stdout, STDOUT, commands=commands, colour=colour))

    def commit(self) -> None:
        """Write what is pending to standard output and flush it."""
        self.stream.flush()

    def abandon(self) -> None:
        """Nothing: what was written to standard output stays."""


def open_report(path: str | None, commands: bool = False, colour: bool = False) -> ReportFile | StdoutReport:
    """A report being written to ``path``, or to standard output (``None`` or ``-``). Open it
    before the work, so that an unwritable path is said at once; ``commit`` it when complete.
    ``commands``: the github format (its lines are workflow commands); ``colour``: ESC sequences
    are the reporter's own (``--color always``, or standard output on a terminal)."""
    if not path or path == "-":
        return StdoutReport(commands, colour)
    return ReportFile(path, commands, colour)


def report_output(path: str | None, commands: bool = False, colour: bool = False) -> ReportBlock:
    """``with report_output(...) as stream``: the stream of a report (``open_report``), committed
    when the block ends without an exception, abandoned otherwise."""
    return ReportBlock(open_report(path, commands, colour))


class ReportBlock:
    """A report for a ``with`` block: its stream in, committed or abandoned out. (Not a
    ``contextlib.contextmanager``: contextlib is not on a one-file lint's path.)"""

    __slots__ = ("report",)

    def __init__(self, report: StdoutReport | ReportFile) -> None:
        """The block of ``report``."""
        self.report = report

    def __enter__(self) -> IO[str]:
        """The report's stream."""
        return self.report.stream

    def __exit__(self, kind: type[BaseException] | None, _exc: BaseException | None, _trace: object) -> None:
        """Commit the report, or abandon it when the block raised (the exception goes on)."""
        if kind is None:
            self.report.commit()
        else:
            self.report.abandon()


def write_report(path: str | None, text: str, colour: bool = False) -> None:
    """Write a whole document to ``path`` (or standard output) through ``report_output``."""
    with report_output(path, colour=colour) as stream:
        stream.write(text)
