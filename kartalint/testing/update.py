"""``kartalint test --update``: write observed values into fixtures' ``expect`` blocks.

Only the ``expect`` block of each updated fixture document changes; every other byte of the file
stays as it was (line endings, encoding and byte-order mark included):

* the file is split into its YAML documents (``---``/``...`` lines), and each case is matched to
  its document by line;
* in a block-style document whose ``expect`` key (plain or quoted) starts a line at column 0, the
  block's lines are re-dumped with ruamel.yaml after merging the new values into the old block
  (comments and key order inside the block survive); a document without ``expect`` gets one
  appended;
* in a flow-style document (``{...}``) or an indented one, the ``expect`` value's exact span is
  replaced by a flow mapping (or one is inserted).

Files are rewritten atomically: a temporary file in the same folder, ``fsync``, ``os.replace``,
under an exclusive lock on the folder, so a kill or a write error leaves each fixture either as it
was or fully updated, and concurrent runs neither crash nor lose an update.
"""

from __future__ import annotations

import codecs
import contextlib
import json
import os
import re
import stat
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import yaml

from kartalint.load.documents import load_text
from kartalint.load.loader import Loader
from kartalint.testing.compare import observed, snapshot
from kartalint.testing.expect_yaml import dump_expect_block

if TYPE_CHECKING:
    from kartalint.testing.run import LintCache, TestRun

# The parser's line model: YAML (PyYAML and libyaml alike) ends a line at CR LF, CR, LF, NEL,
# U+2028 and U+2029, anywhere (comments and quoted scalars included); so do the lines here, or
# every mark after such a character would point one line off.
_BREAKS = "\r\n\x85\u2028\u2029"
_LINE = re.compile(f"[^{_BREAKS}]*(?:\r\n|[{_BREAKS}]|$)")
_SEPARATOR = re.compile(r"^(---|\.\.\.)(?:[ \t]|$)")
LOCK_TIMEOUT = 120.0
TEMP_SUFFIX = ".kartalint-tmp"


class UpdateError(Exception):
    """A fixture file that could not be updated (the file is left as it was)."""


@dataclass
class UpdateOutcome:
    """What ``--update`` did: fixture documents and files rewritten, and the problems that kept others as they
    were."""

    updated: int = 0  # fixture documents
    files: int = 0
    problems: list[str] = field(default_factory=list)
    updated_files: list[str] = field(default_factory=list)  # files rewritten (their failing cases now pass)


# -- text: lines, documents, the expect block -----------------------------------------------------


def _lines(text: str) -> list[str]:
    """The lines of ``text``, each with its own line break (``\\r\\n``, ``\\r`` or ``\\n``)."""
    return [m.group(0) for m in _LINE.finditer(text) if m.group(0)]


def _body(line: str) -> str:
    return line.rstrip(_BREAKS)


def _newline(lines: Sequence[str]) -> str:
    counts = {"\r\n": 0, "\r": 0, "\n": 0}
    for line in lines:
        for ending in counts:
            if line.endswith(ending):
                counts[ending] += 1
                break
    return max(counts, key=lambda k: (counts[k], k == "\n"))


def _documents(lines: Sequence[str]) -> list[tuple[int, int]]:
    """``(first, end)`` line ranges of the documents: a ``---`` line starts one (and belongs to
    it); a ``...`` line ends one (and belongs to none)."""
    out: list[tuple[int, int]] = []
    start = 0
    for index, line in enumerate(lines):
        match = _SEPARATOR.match(line)
        if not match:
            continue
        if match.group(1) == "---":
            if index > start:
                out.append((start, index))
            start = index
        else:
            out.append((start, index))
            start = index + 1
    if start < len(lines):
        out.append((start, len(lines)))
    return out


def _block_end(lines: Sequence[str], start: int, column: int = 0) -> int:
    """End (exclusive) of the block-style value of the key starting line ``start`` at ``column``;
    trailing blank and comment lines at or left of ``column`` stay outside."""
    last = start
    for index in range(start + 1, len(lines)):
        line = _body(lines[index])
        indent = len(line) - len(line.lstrip(" \t"))
        if line.strip() == "" or (line.lstrip(" \t").startswith("#") and indent <= column):
            continue
        if indent > column or (indent == column and line[column : column + 1] == "-" and not _SEPARATOR.match(line)):
            last = index
            continue
        break
    return last + 1


def _flow(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _top_node(text: str) -> Any:
    loader = Loader(text)
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()


def rewrite_document(lines: Sequence[str], new_expect: dict[str, Any], newline: str = "\n") -> list[str]:
    """The lines of one fixture document (each with its line break) with ``expect`` replaced."""

    normal = "".join(_body(line) + "\n" for line in lines)
    try:
        node = _top_node(normal)
    except yaml.YAMLError as exc:
        raise UpdateError(f"the fixture document does not parse: {str(exc).splitlines()[0]}") from None
    if not isinstance(node, yaml.MappingNode):
        raise UpdateError("the fixture document is not a mapping")
    key_node, value_node = next(
        ((k, v) for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == "expect"), (None, None)
    )
    out = list(lines)
    if not node.flow_style:  # block style: replace (or append) the block's lines
        column = node.start_mark.column  # where every key (or `?` of a complex key) starts
        if key_node is not None and value_node is not None:
            first = key_node.start_mark.line
            if key_node.start_mark.column != column or _body(lines[first])[column : column + 1] == "?":
                raise UpdateError("its expect key is written as a complex key (`? expect`): write `expect:`")
            if first != value_node.start_mark.line and value_node.start_mark.column <= column:
                raise UpdateError("its expect value starts left of the block it belongs to")
            end = _block_end(lines, first, column)
            if value_node.end_mark.column > 0:  # a flow value may go on at column 0: its own end counts
                end = max(end, value_node.end_mark.line + 1)
            old = "".join(_body(line)[column:] + "\n" for line in lines[first:end])
            block = dump_expect_block(old, new_expect, normal)
        else:
            first = end = _content_end(lines)
            block = dump_expect_block(None, new_expect, normal)
        new_lines = [" " * column + line + newline for line in block.split("\n")[:-1]]
        if first and first == end and not out[first - 1].endswith(tuple(_BREAKS)):
            out[first - 1] += newline
        if end == len(lines) and end > first and not lines[end - 1].endswith(tuple(_BREAKS)):
            new_lines[-1] = new_lines[-1][: -len(newline)]  # the file had no final line break
        return out[:first] + new_lines + out[end:]
    if value_node is not None:  # flow style: replace the value's exact span
        start, stop = value_node.start_mark, value_node.end_mark
        return _splice(out, (start.line, start.column), (stop.line, stop.column), _flow(new_expect))
    close = node.end_mark  # just after the closing brace
    text = (", " if node.value else "") + '"expect": ' + _flow(new_expect)
    return _splice(out, (close.line, close.column - 1), (close.line, close.column - 1), text)


def _content_end(lines: Sequence[str]) -> int:
    """One past the last line with content (blank and column-0 comment lines at the end excluded)."""
    end = len(lines)
    while end > 0 and (_body(lines[end - 1]).strip() == "" or _body(lines[end - 1]).startswith("#")):
        end -= 1
    return end


def _splice(lines: list[str], start: tuple[int, int], end: tuple[int, int], text: str) -> list[str]:
    """Replace the text from ``start`` to ``end`` (``(line, column)``, end exclusive) by ``text``."""
    if end[0] >= len(lines):  # the end of the text
        raise UpdateError("its expect value ends where the file ends, in a shape this rewrite does not know")
    first, last = lines[start[0]], lines[end[0]]
    merged = _body(first)[: start[1]] + text + last[end[1] :]
    return [*lines[: start[0]], merged, *lines[end[0] + 1 :]]


def rewrite_expect(text: str, updates: Sequence[tuple[int, dict[str, Any]]]) -> tuple[str, int]:
    """``text`` (a fixture file) with the ``expect`` of each document updated, and the number of
    documents changed: ``updates`` pairs the 1-based line of a document's node (``Case.line``)
    with its new ``expect``."""
    lines = _lines(text)
    newline = _newline(lines)
    out: list[str] = []
    position = changed = 0
    for first, end in _documents(lines):
        chunk = lines[first:end]
        for _, new_expect in [u for u in updates if first < u[0] <= end]:
            chunk = rewrite_document(chunk, new_expect, newline)
        changed += chunk != lines[first:end]
        out.extend(lines[position:first])
        out.extend(chunk)
        position = end
    out.extend(lines[position:])
    return "".join(out), changed


def verify_rewrite(old: str, new: str, updates: Sequence[tuple[int, dict[str, Any]]], name: str = "") -> None:
    """Parse what was written as ``kartalint test`` will read it and compare it with the original:
    the same documents, every value outside ``expect`` the same, each updated ``expect`` the
    intended one, the others unchanged, and no new load problem (a duplicate key, say). An
    ``UpdateError`` says what differs: the file is then not replaced."""

    before, after = load_text(old, name), load_text(new, name)
    problems = sorted(f.rule for f in after.findings)
    if problems != sorted(f.rule for f in before.findings):
        new_ones = [f for f in after.findings if f.message not in {g.message for g in before.findings}]
        shown = new_ones[0] if new_ones else after.findings[0]
        raise UpdateError(f"the rewrite would read differently ({shown.rule}: {shown.message})")
    if len(before.documents) != len(after.documents):
        raise UpdateError(
            f"the rewrite would hold {len(after.documents)} document(s) instead of {len(before.documents)}"
        )
    wanted = {line: json.loads(json.dumps(expect)) for line, expect in updates}
    for old_document, new_document in zip(before.documents, after.documents, strict=True):
        old_data, new_data = old_document.data, new_document.data
        if not isinstance(old_data, dict) or not isinstance(new_data, dict):
            if old_data != new_data:
                raise UpdateError(f"document {old_document.index + 1} would change outside expect")
            continue
        outside = {k: v for k, v in old_data.items() if k != "expect"}
        if outside != {k: v for k, v in new_data.items() if k != "expect"}:
            changed = sorted(set(outside) ^ {k for k in new_data if k != "expect"}) or sorted(
                k for k in outside if outside[k] != new_data.get(k)
            )
            raise UpdateError(
                f"document {old_document.index + 1} would change outside expect ({', '.join(map(str, changed))})"
            )
        expect = wanted.get(old_document.node.start_mark.line + 1, old_data.get("expect"))
        if new_data.get("expect") != expect:
            raise UpdateError(f"document {old_document.index + 1} would not read back the expect written")


# -- files: encoding, lock, atomic replace ------------------------------------------------------


def decode(data: bytes) -> tuple[str, bytes]:
    """``(text, bom)``: fixtures are UTF-8, with or without a byte-order mark (as the loader reads them)."""
    bom = codecs.BOM_UTF8 if data.startswith(codecs.BOM_UTF8) else b""
    return data[len(bom) :].decode("utf-8"), bom


@contextlib.contextmanager
def folder_lock(folder: str, timeout: float = LOCK_TIMEOUT) -> Iterator[None]:
    """An exclusive ``flock`` on the folder itself (no lock file left behind); a no-op where
    ``fcntl`` is missing."""
    try:
        import fcntl  # lazy: optional, POSIX only
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise UpdateError(f"another run holds the lock on {folder} for more than {timeout:.0f} s") from None
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def atomic_write(path: str, data: bytes) -> None:
    """Replace ``path`` by ``data``: a temporary file in the same folder, fsync, ``os.replace``,
    then fsync of the folder. On any error the temporary file is removed and ``path`` is untouched."""
    folder = os.path.dirname(os.path.abspath(path))
    mode = stat.S_IMODE(os.stat(path).st_mode)
    fd, temp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".", suffix=TEMP_SUFFIX)
    try:
        try:
            _write_all(fd, data)
            os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    with contextlib.suppress(OSError):
        dir_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def update_file(path: str, updates: Sequence[tuple[int, dict[str, Any]]]) -> int:
    """Update the fixture documents of one file; the number of documents changed."""
    if os.path.islink(path):
        raise UpdateError("is a symbolic link; update the file it points to instead")
    with folder_lock(os.path.dirname(os.path.abspath(path))):
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError as exc:
            raise UpdateError(exc.strerror or str(exc)) from None
        try:
            text, bom = decode(data)
        except UnicodeDecodeError as exc:
            raise UpdateError(f"is not UTF-8 ({exc.reason} at byte {exc.start})") from None
        try:
            fresh, changed = rewrite_expect(text, updates)
            if not changed:
                return 0
            verify_rewrite(text, fresh, updates, path)
        except UpdateError as exc:
            raise UpdateError(f"cannot be rewritten safely: {exc}; the file is unchanged") from None
        except Exception as exc:  # a shape of file the rewrite does not know: refused, never half done
            raise UpdateError(
                f"cannot be rewritten safely ({type(exc).__name__}: {exc}); the file is unchanged"
            ) from None
        try:
            atomic_write(path, bom + fresh.encode("utf-8"))
        except OSError as exc:
            raise UpdateError(f"could not be written ({exc.strerror or exc}); the file is unchanged") from None
        return changed


def update_fixtures(test_run: TestRun, mode: str, lint_cache: LintCache) -> UpdateOutcome:
    """Rewrite the ``expect`` blocks of the failing (``mode="failed"``) or all fixtures of a test
    run with what was observed; ``xfail`` fixtures are left alone."""

    by_file: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    for result in test_run.results:
        case = result.case
        if case.kind != "fixture" or result.view is None or case.xfail:
            continue
        if mode == "failed" and result.outcome == "passed":
            continue
        lint_ids = lint_cache.rule_ids(case.definition) if case.definition else []
        if case.expect:
            new = {key: observed(key, value, result.view, lint_ids) for key, value in case.expect.items()}
            if result.view.all_errors and "errors" not in new:
                new["errors"] = observed("errors", None, result.view, lint_ids)
        else:
            new = snapshot(result.view)
        by_file.setdefault(case.file, []).append((case.line, new))
    outcome = UpdateOutcome()
    for path, updates in by_file.items():
        try:
            changed = update_file(path, updates)
            outcome.updated += changed
            outcome.files += bool(changed)
            if changed:
                outcome.updated_files.append(path)
        except UpdateError as exc:
            outcome.problems.append(f"{path}: not updated: {exc}")
    return outcome
