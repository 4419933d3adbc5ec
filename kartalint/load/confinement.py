"""Where files may be read from: the project root, the paths given on the command line and the
folders given with ``--allow-outside``.

A pull request's fixture or configuration must not make kartalint print a file of the CI machine
(``objectFile: /run/secrets/token``, ``../../.ssh/id_rsa``, ``fixtures: [../secret]``): paths are
resolved (``..`` and symbolic links) and must stay inside one of the folders.

``read_confined`` is the one reader of the project's own files that are not definitions
(configuration files, baselines): it resolves the path, refuses one that lands outside the folders
it may read (a committed symbolic link to ``/run/secrets/...``), refuses anything but a regular
file (``/dev/zero``, a FIFO: never opened for a blocking read) and reads at most a bounded number
of bytes.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Sequence

from kartalint.errors import UsageError


class ReadRefused(UsageError):
    """A project file that is not read: outside the folders allowed, not a regular file, too large
    or unreadable (the message names the file and why; exit code 2)."""

    def __init__(self, path: str, reason: str) -> None:
        """``path`` was refused for ``reason``."""
        super().__init__(f"{path}: {reason}")
        self.path = path


def git_toplevel(start: str) -> str | None:
    """The nearest folder at or above ``start`` that holds ``.git`` (a git work tree), or None."""
    return nearest_folder_above(start, lambda directory: os.path.exists(os.path.join(directory, ".git")))


def nearest_folder_above(start: str, wanted: Callable[[str], bool]) -> str | None:
    """The nearest folder at or above ``start`` (made absolute) that is ``wanted``, or None."""
    directory = os.path.abspath(start)
    while True:
        if wanted(directory):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def repository_of(path: str) -> str:
    """The folder a file at ``path`` belongs to: its git work tree, else its own folder."""
    folder = os.path.dirname(os.path.abspath(path))
    return git_toplevel(folder) or folder


def read_confined(path: str, folders: Sequence[str], max_bytes: int, what: str = "the file") -> bytes:
    """The bytes of the file at ``path``, which must resolve (``..`` and symbolic links) inside one
    of ``folders``, be a regular file and hold at most ``max_bytes``; ``ReadRefused`` otherwise,
    naming ``what`` it is. Nothing is read from a file that is refused (a device or a FIFO is
    opened without blocking and closed unread)."""
    if "\x00" in path:
        raise ReadRefused(repr(path), "holds a NUL character: not a path")
    real = os.path.realpath(path)
    tops = sorted({os.path.realpath(f) for f in folders})
    if not any(_under(real, top) for top in tops):
        link = " (through a symbolic link)" if real != os.path.abspath(path) else ""
        raise ReadRefused(
            path,
            f"{what} resolves to {real}{link}, outside {' and '.join(tops)}: refused, never read",
        )
    return read_regular(real, max_bytes, what, shown=path)


def why_not_a_file(path: str, missing: str = "no such file") -> str:
    """Why ``path`` is not a regular file to read, in words: ``missing`` when nothing is there, "a
    folder, not a file", or "not a regular file" (a FIFO, a device or a socket)."""
    if not os.path.exists(path):
        return missing
    return (
        "a folder, not a file" if os.path.isdir(path) else "not a regular file (a FIFO, device or socket is never read)"
    )


def read_regular(path: str, max_bytes: int, what: str = "the file", shown: str | None = None) -> bytes:
    """The bytes of the file at ``path``, which must be a regular file of at most ``max_bytes``;
    ``ReadRefused`` (naming ``shown``, else ``path``, and ``what`` it is) otherwise. Nothing is read
    from a file that is refused: a device or a FIFO is opened without blocking and closed unread."""
    name = path if shown is None else shown
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    try:
        descriptor = os.open(path, flags)
    except OSError as exc:
        raise ReadRefused(name, f"cannot read {what}: {exc.strerror or exc}") from None
    try:
        status = os.fstat(descriptor)
        if stat.S_ISDIR(status.st_mode):
            raise ReadRefused(name, "a folder, not a file")
        if not stat.S_ISREG(status.st_mode):
            raise ReadRefused(name, f"{what} is not a regular file (a device, FIFO or socket is never read)")
        if status.st_size > max_bytes:
            raise ReadRefused(name, f"{what} is {status.st_size} bytes, over the {max_bytes}-byte limit")
        chunks, size = [], 0
        while size <= max_bytes:
            chunk = os.read(descriptor, min(1 << 20, max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise ReadRefused(name, f"cannot read {what}: {exc.strerror or exc}") from None
    finally:
        os.close(descriptor)
    if size > max_bytes:
        raise ReadRefused(name, f"{what} is over the {max_bytes}-byte limit")
    return b"".join(chunks)


def _under(real: str, top: str) -> bool:
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def inside(path: str, folder: str) -> bool:
    """Whether ``path`` resolves (``..`` and symbolic links) inside ``folder`` (or is it)."""
    return _under(os.path.realpath(path), os.path.realpath(folder))


class Confinement:
    """The folders a fixture may read files from (``objectFile``, ``podsFile``, ``definition``, a
    prediction's workload, a symbolic link's target)."""

    def __init__(self, folders: Sequence[str]) -> None:
        """Files may be read inside ``folders`` (each resolved, links followed)."""
        self.folders = sorted({os.path.realpath(f) for f in folders})
        self.issued: set = set()  # every refusal message given (cases carrying one are marked ``refused``)

    def outside(self, path: str) -> str | None:
        """None when ``path`` resolves inside a folder, else the resolved path."""
        if "\x00" in path:  # no file has that name (os.path.realpath raises ValueError): refused
            return repr(path)
        real = os.path.realpath(path)
        if any(real == f or real.startswith(f.rstrip(os.sep) + os.sep) for f in self.folders):
            return None
        return real

    def refusal(self, what: str, path: str) -> str | None:
        """Why reading ``path`` (named as ``what``) is refused, or None when it resolves inside the folders; each
        message given is remembered in ``issued``."""
        real = self.outside(path)
        if real is None:
            return None
        message = (
            f"{what} resolves to {real}, outside {' and '.join(self.folders)}: refused (a fixture reads files only "
            "inside the project; `--allow-outside DIR` allows a folder deliberately)"
        )
        self.issued.add(message)
        return message
