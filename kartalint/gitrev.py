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

    def texts(self) -> Dict[str, str]:
        """Every YAML file's text: the working tree from disk, a commit through one
        ``git cat-file --batch`` process (not one ``git show`` per file)."""
        if self.ref is None:
            return {p: t for p in self.yaml_files() for t in [self.read(p)] if t is not None}
        listing = _git(self.root, "ls-tree", "-r", "--full-tree", self.commit or self.ref)
        blobs = {}
        for line in listing.splitlines():
            meta, _, path = line.partition("\t")
            parts = meta.split()
            if len(parts) == 3 and parts[1] == "blob" and path.endswith((".yaml", ".yml")):
                blobs[path] = parts[2]
        if not blobs:
            return {}
        proc = subprocess.run(["git", "cat-file", "--batch"], cwd=self.root, input="\n".join(blobs.values()).encode() + b"\n",
                              capture_output=True, check=False)
        if proc.returncode != 0:
            raise GitError(proc.stderr.decode(errors="replace").strip() or "git cat-file failed")
        data, offset, contents = proc.stdout, 0, {}
        for path, sha in blobs.items():
            header_end = data.index(b"\n", offset)
            size = int(data[offset:header_end].split()[2])
            body = data[header_end + 1: header_end + 1 + size]
            offset = header_end + 1 + size + 1
            try:
                contents[path] = body.decode("utf-8")
            except UnicodeDecodeError:
                continue
        return contents

    def definitions(self) -> Dict[str, Tuple[str, dict]]:
        """``{repo-relative path: (text, first Karta document)}`` of every definition file."""
        out: Dict[str, Tuple[str, dict]] = {}
        for path, text in sorted(self.texts().items()):
            if "Karta" not in text:
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
