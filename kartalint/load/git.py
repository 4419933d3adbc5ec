"""Reading definitions at a git revision without touching the working tree.

``Revision(root, ref)`` lists the YAML files of a commit (``git ls-tree``) and reads them with
``git cat-file``; ``Revision(root, None)`` is the working tree (tracked and untracked,
ignored files excluded). Both give ``{repo-relative path: Karta document}``.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable

from kartalint.load.discovery import template_marker, template_note
from kartalint.load.documents import MAX_FILE_BYTES, load_text, read_text
from kartalint.load.kinds import KARTA_KIND, mentions_karta
from kartalint.load.yaml_rules import FILE_UNREADABLE, YAML_TOO_LARGE
from kartalint.model import Severity


class GitError(Exception):
    """git failed or is not there: the message says what it said."""

    pass


def _git_bytes(root: str, *args: str, stdin: bytes | None = None) -> bytes:
    try:
        proc = subprocess.run(["git", *args], cwd=root, input=stdin, capture_output=True, check=False)
    except OSError as exc:
        raise GitError(f"git is not available: {exc}") from None
    if proc.returncode != 0:
        raise GitError(proc.stderr.decode("utf-8", "replace").strip() or f"git {' '.join(args)} failed")
    return proc.stdout


def _git(root: str, *args: str) -> str:
    return _git_bytes(root, *args).decode("utf-8", "replace")


def _names(raw: bytes) -> list[str]:
    """Paths of a ``-z`` listing: NUL-separated and never quoted (tabs, newlines, quotes,
    backslashes and non-ASCII names come through as they are)."""
    return [os.fsdecode(name) for name in raw.split(b"\0") if name]


def _is_yaml(path: str) -> bool:
    return path.endswith((".yaml", ".yml"))


def repo_root(start: str = ".") -> str:
    """The top folder of the git repository holding ``start``."""
    try:
        return _git(start, "rev-parse", "--show-toplevel").strip()
    except GitError as exc:
        raise GitError(f"not inside a git repository ({exc})") from None


class Revision:
    """The YAML files of a commit, or of the working tree (``ref`` None). Files that cannot be
    read are never silently taken as absent: ``problems`` (errors) names each unreadable file that
    may hold a definition, ``warnings`` each file skipped for its size, and ``unreadable`` gives
    the reason for each of those paths (``diff`` reports them as broken, never as deleted)."""

    def __init__(self, root: str, ref: str | None, max_bytes: int = MAX_FILE_BYTES) -> None:
        """The files of the repository at ``root`` at revision ``ref`` (the working tree when None), each at most
        ``max_bytes``; ``GitError`` when git does not know ``ref``."""
        self.root = root
        self.ref = ref
        self.max_bytes = max_bytes
        self.problems: list[str] = []
        self.warnings: list[str] = []
        self.notes: list[str] = []  # Go/Helm templates skipped
        self.unreadable: dict[str, str] = {}  # path -> why it could not be read at this revision
        self.commit: str | None = None
        if ref is not None:
            try:
                self.commit = _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").strip()
            except GitError:
                raise GitError(f"revision {ref!r} does not exist in {root}") from None

    @property
    def label(self) -> str:
        """The revision as the user named it, or ``working tree``."""
        return self.ref if self.ref is not None else "working tree"

    def yaml_files(self, select: Callable[[str], bool] | None = None) -> list[str]:
        """The YAML files of the revision (repo-relative), those ``select`` keeps when given."""
        return [n for n in self._yaml_files() if select is None or select(n)]

    def _yaml_files(self) -> list[str]:
        if self.ref is None:
            names = _names(_git_bytes(self.root, "ls-files", "-z", "-co", "--exclude-standard"))
            names = [n for n in names if os.path.isfile(os.path.join(self.root, n))]
        else:
            names = _names(
                _git_bytes(self.root, "ls-tree", "-r", "-z", "--full-tree", "--name-only", self.commit or self.ref)
            )
        return sorted(n for n in names if _is_yaml(n))

    def _decoded(self, path: str, raw: bytes) -> str | None:
        try:
            return raw.decode("utf-8-sig" if raw.startswith(b"\xef\xbb\xbf") else "utf-8")
        except UnicodeDecodeError as exc:
            if KARTA_KIND.encode() in raw:
                self._problem(path, f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start})")
            return None

    def _problem(self, path: str, reason: str) -> None:
        self.unreadable[path] = reason
        self.problems.append(f"{path} at {self.label}: {reason}")

    def _too_large(self, path: str, size: int) -> None:
        reason = f"skipped, {size} bytes is over the {self.max_bytes}-byte limit"
        self.unreadable[path] = reason
        self.warnings.append(f"{path} at {self.label}: {reason}")

    def _read_file(self, path: str) -> str | None:
        """One working-tree file's text (None, with a problem or warning recorded, when it cannot be read)."""
        text, problem = read_text(os.path.join(self.root, path), self.max_bytes)
        if problem is None:
            return text
        rule, message, _ = problem
        if rule == YAML_TOO_LARGE:
            self._too_large(path, os.path.getsize(os.path.join(self.root, path)))
        elif rule == FILE_UNREADABLE or mentions_karta(os.path.join(self.root, path), text):
            self._problem(path, message)
        return None

    def texts(self, select: Callable[[str], bool] | None = None) -> dict[str, str]:
        """Every YAML file's text (those ``select`` keeps): the working tree from disk, a commit
        through ``git cat-file`` (sizes first, then one ``--batch`` process for the blobs within
        the limit). A file not selected is never read."""
        if self.ref is None:
            return {p: t for p in self.yaml_files(select) for t in [self._read_file(p)] if t is not None}
        listing = _git_bytes(self.root, "ls-tree", "-r", "-z", "--full-tree", self.commit or self.ref)
        blobs: dict[str, str] = {}
        for entry in listing.split(b"\0"):
            meta, _, name = entry.partition(b"\t")
            parts = meta.split()
            path = os.fsdecode(name)
            if len(parts) == 3 and parts[1] == b"blob" and _is_yaml(path) and (select is None or select(path)):
                blobs[path] = parts[2].decode("ascii")
        if not blobs:
            return {}
        sizes = self._sizes(blobs)
        wanted = {}
        for path, sha in blobs.items():
            size = sizes.get(sha)
            if size is None:
                self._problem(path, f"blob {sha} is missing from the repository")
            elif size > self.max_bytes:
                self._too_large(path, size)
            else:
                wanted[path] = sha
        contents: dict[str, str] = {}
        if not wanted:
            return contents
        data = _git_bytes(self.root, "cat-file", "--batch", stdin="\n".join(wanted.values()).encode() + b"\n")
        offset = 0
        for path, sha in wanted.items():
            header_end = data.find(b"\n", offset)
            header = data[offset:header_end].split() if header_end >= 0 else []
            if len(header) != 3 or not header[2].isdigit():
                self._problem(path, f"git cat-file gave no content for blob {sha}")
                if header_end < 0:
                    break
                offset = header_end + 1
                continue
            size = int(header[2])
            body = data[header_end + 1 : header_end + 1 + size]
            offset = header_end + 1 + size + 1
            text = self._decoded(path, body)
            if text is not None:
                contents[path] = text
        return contents

    def _sizes(self, blobs: dict[str, str]) -> dict[str, int]:
        """``{sha: size}`` from ``git cat-file --batch-check`` (a missing object is left out)."""
        out = _git_bytes(self.root, "cat-file", "--batch-check", stdin="\n".join(blobs.values()).encode() + b"\n")
        sizes = {}
        for line in out.decode("ascii", "replace").splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[2].isdigit():
                sizes[parts[0]] = int(parts[2])
        return sizes

    def definitions(self, select: Callable[[str], bool] | None = None) -> dict[str, tuple[str, dict]]:
        """``{repo-relative path: (text, first Karta document)}`` of every definition file (among
        those ``select`` keeps); Go/Helm templates are skipped with a note."""
        out: dict[str, tuple[str, dict]] = {}
        for path, text in sorted(self.texts(select).items()):
            if KARTA_KIND not in text:
                continue
            marker = template_marker(text)
            if marker is not None and mentions_karta(path, text):
                self.notes.append(f"{template_note(path, marker)} (at {self.label})")
                continue
            source = load_text(text, path)
            kartas = source.karta_documents
            if kartas:
                out[path] = (text, kartas[0].data)
            elif any(f.severity == Severity.ERROR for f in source.findings) and mentions_karta(path, text):
                first = next(f for f in source.findings if f.severity == Severity.ERROR)
                self._problem(path, f"cannot be read as YAML ({path}:{first.line}:{first.column}: {first.message})")
        return out


def renames(root: str, base: Revision, head: Revision) -> dict[str, str]:
    """``{base path: head path}`` for files git sees as renamed between the revisions."""
    args = ["diff", "--name-status", "-z", "-M", base.commit or "HEAD"]
    if head.commit:
        args.append(head.commit)
    fields = _names(_git_bytes(root, *args))
    result = {}
    i = 0
    while i < len(fields):  # STATUS\0PATH\0, or for renames and copies STATUS\0OLD\0NEW\0
        status = fields[i]
        if status[:1] in ("R", "C"):
            if status[:1] == "R" and i + 2 < len(fields):
                result[fields[i + 1]] = fields[i + 2]
            i += 3
        else:
            i += 2
    return result
