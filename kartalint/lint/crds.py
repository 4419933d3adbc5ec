"""The CRDs lint checks definitions against (``crds:`` of the configuration, ``--crd``): one
``CrdIndex`` per list of paths, built once per process (the language server and the tests lint
many files under one configuration; each CRD file is parsed once, ``kartalint.load.filecache``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the CRD loader is imported only when CRDs are configured
    from kartalint.load.crds import CrdIndex

_CRD_INDEXES: dict[tuple[str, ...], CrdIndex] = {}


def crd_index(paths: list[str]) -> CrdIndex:
    """A ``CrdIndex`` of the CRD files and folders at ``paths`` (built once per list of paths)."""
    from kartalint.load.crds import CrdIndex

    key = tuple(paths)
    if key not in _CRD_INDEXES:
        _CRD_INDEXES[key] = CrdIndex.from_paths(paths)
    return _CRD_INDEXES[key]
