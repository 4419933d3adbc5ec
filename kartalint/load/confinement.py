"""Where files may be read from: the project root, the paths given on the command line and the
folders given with ``--allow-outside``.

A pull request's fixture or configuration must not make kartalint print a file of the CI machine
(``objectFile: /run/secrets/token``, ``../../.ssh/id_rsa``, ``fixtures: [../secret]``): paths are
resolved (``..`` and symbolic links) and must stay inside one of the folders.
"""

from __future__ import annotations

import os
from collections.abc import Sequence


def inside(path: str, folder: str) -> bool:
    """Whether ``path`` resolves (``..`` and symbolic links) inside ``folder`` (or is it)."""
    real, top = os.path.realpath(path), os.path.realpath(folder)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


class Confinement:
    """The folders a fixture may read files from (``objectFile``, ``podsFile``, ``definition``, a
    prediction's workload, a symbolic link's target)."""

    def __init__(self, folders: Sequence[str]) -> None:
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
        real = self.outside(path)
        if real is None:
            return None
        message = (
            f"{what} resolves to {real}, outside {' and '.join(self.folders)}: refused (a fixture reads files only "
            "inside the project; `--allow-outside DIR` allows a folder deliberately)"
        )
        self.issued.add(message)
        return message
