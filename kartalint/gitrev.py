"""Reading definitions at a git revision without touching the working tree.

``Revision(root, ref)`` lists the YAML files of a commit (``git ls-tree``) and reads them with
``git show REF:path``; ``Revision(root, None)`` is the working tree (tracked and untracked,
ignored files excluded). Both give ``{repo-relative path: Karta document}``.
"""

from __future__ import annotations

import os
import subprocess
from typing import Dict, List, Optional, Tuple

from .load import load_text


class GitError(Exception):
    pass


def _git(root: str, *args: str) -> str:
    try:
        proc = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=False)
    except OSError as exc:
        raise GitError(f"git is not available: {exc}") from None
    if proc.returncode != 0:
        raise GitError(proc.stderr.strip() or f"git {' '.join(args)} failed")
    return proc.stdout


def repo_root(start: str = ".") -> str:
    try:
        return _git(start, "rev-parse", "--show-toplevel").strip()
    except GitError as exc:
        raise GitError(f"not inside a git repository ({exc})") from None


class Revision:
    def __init__(self, root: str, ref: Optional[str]) -> None:
        self.root = root
        self.ref = ref
        if ref is not None:
            try:
                self.commit = _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").strip()
            except GitError:
                raise GitError(f"revision {ref!r} does not exist in {root}") from None
        else:
            self.commit = None

    @property
    def label(self) -> str:
        return self.ref if self.ref is not None else "working tree"

    def yaml_files(self) -> List[str]:
        if self.ref is None:
            out = _git(self.root, "ls-files", "-co", "--exclude-standard")
            names = [n for n in out.splitlines() if os.path.isfile(os.path.join(self.root, n))]
        else:
            names = _git(self.root, "ls-tree", "-r", "--name-only", self.commit or self.ref).splitlines()
        return sorted(n for n in names if n.endswith((".yaml", ".yml")))

    def read(self, path: str) -> Optional[str]:
        if self.ref is None:
            try:
                with open(os.path.join(self.root, path), encoding="utf-8") as handle:
                    return handle.read()
            except (OSError, UnicodeDecodeError):
                return None
        try:
            return _git(self.root, "show", f"{self.commit}:{path}")
        except GitError:
            return None

    def definitions(self) -> Dict[str, Tuple[str, dict]]:
        """``{repo-relative path: (text, first Karta document)}`` of every definition file."""
        out: Dict[str, Tuple[str, dict]] = {}
        for path in self.yaml_files():
            text = self.read(path)
            if text is None or "Karta" not in text:
                continue
            source = load_text(text, path)
            kartas = source.karta_documents
            if kartas:
                out[path] = (text, kartas[0].data)
        return out


def renames(root: str, base: Revision, head: Revision) -> Dict[str, str]:
    """``{base path: head path}`` for files git sees as renamed between the revisions."""
    args = ["diff", "--name-status", "-M", base.commit or "HEAD"]
    if head.commit:
        args.append(head.commit)
    out = _git(root, *args)
    result = {}
    for line in out.splitlines():
        parts = line.split("\t")
        if parts and parts[0].startswith("R") and len(parts) == 3:
            result[parts[1]] = parts[2]
    return result
