"""Which files to read: YAML files under the given paths, and why a path cannot be read."""

from __future__ import annotations

import fnmatch
import os
import re
import stat
from collections.abc import Callable, Iterable


def iter_yaml_files(
    paths: Iterable[str], skipped: list[str] | None = None, links_out: bool = False
) -> tuple[list[str], list[str]]:
    """Expand paths: directories are walked for ``*.yaml``/``*.yml`` regular files; returns (files,
    missing). A path given that is not a regular file or folder counts as missing
    (``missing_reason`` says why); FIFOs, devices and unreadable folders met in a walk are
    described in ``skipped`` (when given), never read. A file met in a walk that is a symbolic
    link out of the folder walked is skipped the same way, unless ``links_out`` (the caller's
    ``Confinement`` judges it, without opening it)."""
    files: list[str] = []
    missing: list[str] = []

    def note(message: str) -> None:
        if skipped is not None:
            skipped.append(message)

    for path in paths:
        if path == "-":
            files.append(path)
        elif os.path.isdir(path):

            def walk_error(exc: OSError) -> None:
                note(f"{exc.filename}: cannot read folder ({exc.strerror}): skipped")

            top = os.path.realpath(path)
            for root, dirs, names in os.walk(path, onerror=walk_error):  # (links to folders are not walked)
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(names):
                    if name.endswith((".yaml", ".yml")):
                        full = os.path.join(root, name)
                        if not links_out and os.path.islink(full) and not _inside(os.path.realpath(full), top):
                            note(f"{full}: a symbolic link out of {path}: skipped (name the file to read it)")
                        elif is_regular_file(full):
                            files.append(full)
                        else:
                            note(f"{full}: not a regular file: skipped")
        elif is_regular_file(path):
            files.append(path)
        else:
            missing.append(path)
    return files, missing


def _inside(real: str, top: str) -> bool:
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def is_regular_file(path: str) -> bool:
    """Whether ``path`` is a regular file (not a folder, a device or a FIFO; following links)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def missing_reason(path: str) -> str:
    """Why ``iter_yaml_files`` could not use a path given to it."""
    try:
        os.stat(path)
    except FileNotFoundError:
        return f"{path}: no such file or directory"
    except OSError as exc:
        return f"{path}: cannot read ({exc.strerror})"
    if os.path.isdir(path):  # (where a folder is not taken: one object file, --pods)
        return f"{path}: a folder, not a file"
    return f"{path}: not a regular file or folder (a FIFO or device is never read)"


# A Go/Helm template action: ``{{`` (or ``{{-``) followed by a space, ``.``, ``$`` or a ``/*``
# comment. Argo's ``{{inputs.parameters.x}}`` and ``{{=expr}}`` are values of real objects, not
# template actions.
_TEMPLATE_ACTION = r"\{\{-?(?:\s|[.$]|/\*)"  # (compiled when first used: re's cache)
_SCALAR_START = ":-[{,?"  # after one of these (and spaces) a quoted scalar may open


def template_marker(text: str | None) -> tuple[int, int] | None:
    """(line, column) of the first Go/Helm template action outside a quoted scalar and outside a
    comment, or None. ``name: "{{ .Release.Name }}"`` is a valid YAML string, not a marker;
    ``name: {{ .Release.Name }}`` and ``{{- if .Values.x }}`` are."""
    if not text or "{{" not in text:
        return None
    for number, line in enumerate(text.splitlines(), start=1):
        if "{{" not in line:
            continue
        match = re.search(_TEMPLATE_ACTION, _unquoted(line))
        if match:
            return number, match.start() + 1
    return None


def _unquoted(line: str) -> str:
    """The line with quoted scalars blanked out and its comment cut (columns kept)."""
    out: list[str] = []
    i, n = 0, len(line)
    may_open = True  # a quoted scalar may open here (line start, after ': ', '- ', '[', '{', ',')
    while i < n:
        char = line[i]
        if char in "'\"" and may_open:
            j = i + 1
            while j < n:
                if char == '"' and line[j] == "\\":
                    j += 2
                    continue
                if line[j] == char:
                    if char == "'" and j + 1 < n and line[j + 1] == "'":
                        j += 2
                        continue
                    break
                j += 1
            end = min(j + 1, n)
            out.append(" " * (end - i))
            i, may_open = end, False
            continue
        if char == "#" and (i == 0 or line[i - 1] in " \t"):
            break
        out.append(char)
        if char not in " \t":
            may_open = char in _SCALAR_START
        i += 1
    return "".join(out)


TEMPLATE_HINT = "check the rendered output instead: helm template CHART | kartalint lint -"


def template_note(path: str, where: tuple[int, int]) -> str:
    """What is said of a templated file that is skipped."""
    return (
        f"{path}:{where[0]}:{where[1]}: a Go/Helm template (it holds {{{{ }}}} template actions), not a definition: "
        f"not checked; {TEMPLATE_HINT}"
    )


def glob_inside(base: str, pattern: str, boundary: str, limit: int = 20_000) -> list[str]:
    """Files and folders under ``base`` matching a glob (``*``, ``?``, ``[...]`` within a name,
    ``**`` for any depth), sorted; never outside ``boundary``, never into a folder twice (a
    symbolic-link loop ends), hidden names only when the pattern names them. At most ``limit``."""

    segments = [s for s in pattern.replace(os.sep, "/").split("/") if s and s != "."]
    found: list[str] = []
    visited: set[tuple[str, int]] = set()

    def allowed(path: str) -> bool:
        real, top = os.path.realpath(path), os.path.realpath(boundary)
        return real == top or real.startswith(top.rstrip(os.sep) + os.sep)

    def names(folder: str) -> list[str]:
        try:
            return sorted(os.listdir(folder))
        except OSError:
            return []

    def walk(folder: str, index: int) -> None:
        if len(found) >= limit:
            return
        key = (os.path.realpath(folder), index)
        if key in visited:
            return
        visited.add(key)
        if index == len(segments):
            found.append(folder)
            return
        segment = segments[index]
        if segment == "**":
            walk(folder, index + 1)
            for name in names(folder):
                full = os.path.join(folder, name)
                if not name.startswith(".") and os.path.isdir(full) and allowed(full):
                    walk(full, index)
            return
        if not any(ch in segment for ch in "*?["):
            full = os.path.join(folder, segment)
            if os.path.lexists(full) and allowed(full):
                walk(full, index + 1)
            return
        for name in names(folder):
            if name.startswith(".") and not segment.startswith("."):
                continue
            full = os.path.join(folder, name)
            if fnmatch.fnmatchcase(name, segment) and allowed(full):
                if index + 1 < len(segments) and not os.path.isdir(full):
                    continue
                walk(full, index + 1)

    if allowed(base):
        walk(base, 0)
    return sorted(found)


def excluded_folders(paths: Iterable[str], kept: Iterable[str], excluded: Callable[[str], bool]) -> list[str]:
    """The folders among ``paths`` that ``excluded`` (the configuration's ``exclude``) selects and
    of which no file was ``kept``, each as ``folder/``: named on the command line, they are said
    with their pattern, as a file named is (``exclusion_notes``)."""
    kept_real = [os.path.realpath(path) for path in kept if path != "-"]
    folders = []
    for path in paths:
        if path == "-" or not os.path.isdir(path):
            continue
        folder = path.rstrip("/" + os.sep) + "/" if path.rstrip("/" + os.sep) else path
        inside = os.path.realpath(path).rstrip(os.sep) + os.sep
        if excluded(folder) and not any(real.startswith(inside) for real in kept_real):
            folders.append(folder)
    return folders
