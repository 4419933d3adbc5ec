"""Which files to read: YAML files under the given paths, and why a path cannot be read."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable


def iter_yaml_files(paths: Iterable[str], skipped: list[str] | None = None) -> tuple[list[str], list[str]]:
    """Expand paths: directories are walked for ``*.yaml``/``*.yml`` regular files; returns (files,
    missing). A path given that is not a regular file or folder counts as missing
    (``missing_reason`` says why); FIFOs, devices and unreadable folders met in a walk are
    described in ``skipped`` (when given), never read."""
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

            for root, dirs, names in os.walk(path, onerror=walk_error):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(names):
                    if name.endswith((".yaml", ".yml")):
                        full = os.path.join(root, name)
                        if is_regular_file(full):
                            files.append(full)
                        else:
                            note(f"{full}: not a regular file: skipped")
        elif is_regular_file(path):
            files.append(path)
        else:
            missing.append(path)
    return files, missing


def is_regular_file(path: str) -> bool:
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
    return f"{path}: not a regular file or folder (a FIFO or device is never read)"


_MENTIONS_KARTA = re.compile(rb"""["']?kind["']?\s*:\s*["']?Karta(?:Fixture)?\b|structureDefinition""")


def mentions_karta(path: str, text: str | None) -> bool:
    """Whether a file that holds no readable Karta or fixture document still looks like one
    (a broken definition must be reported, an unrelated YAML file skipped)."""
    if text:
        return bool(_MENTIONS_KARTA.search(text.encode("utf-8", "replace")))
    if path == "-":
        return False
    try:
        with open(path, "rb") as handle:
            tail = b""
            while True:
                chunk = handle.read(1 << 20)
                if not chunk:
                    return False
                if _MENTIONS_KARTA.search(tail + chunk):
                    return True
                tail = chunk[-64:]
    except OSError:
        return True  # unreadable: cannot tell, report it
