"""Finding definitions: the bundled catalog, ``--catalog`` directories, lookup by exact GVK.

The bundled catalog is the repository's ``catalog/`` directory; installed, it ships as the
package ``kartalint.catalog`` (see pyproject.toml), so ``describe`` and ``test`` find it without
options. Its fixtures (the repository's ``fixtures/``) ship as ``kartalint.fixtures``, so
``kartalint catalog`` shows their coverage and ``kartalint test --catalog`` runs them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence

from kartalint.karta import as_dict, components, gvk_of, structure
from kartalint.load.discovery import iter_yaml_files, missing_reason, template_marker, template_note
from kartalint.load.documents import display_path, load_file
from kartalint.load.filecache import FileCache
from kartalint.load.kinds import mentions_karta
from kartalint.model import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal, TypeAlias

GVK = tuple[str, str, str]


def _bundled(name: str) -> str | None:
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the kartalint package
    checkout = os.path.join(os.path.dirname(here), name)
    if os.path.isdir(checkout) and os.path.isfile(os.path.join(os.path.dirname(here), "pyproject.toml")):
        return checkout
    installed = os.path.join(here, name)  # package data kartalint.<name>
    return installed if os.path.isdir(installed) else None


def bundled_catalog() -> str | None:
    """Directory of the bundled catalog (source checkout first, then the installed package)."""
    return _bundled("catalog")


def bundled_fixtures() -> str | None:
    """Directory of the bundled catalog's fixtures (source checkout first, then the installed package)."""
    return _bundled("fixtures")


def object_gvk(obj: Any) -> GVK | None:
    """The group/version/kind of a Kubernetes object, or None when its ``apiVersion`` or ``kind`` is missing or not
    text."""
    obj = as_dict(obj)
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str) or not kind:
        return None
    group, _, version = api_version.rpartition("/")
    return (group, version, kind)


def format_gvk(gvk: GVK | None) -> str:
    """A group/version/kind as Kubernetes writes it in messages: ``batch/v1, Kind=Job``."""
    if gvk is None:
        return "<no apiVersion/kind>"
    group, version, kind = gvk
    return f"{group + '/' if group else ''}{version}, Kind={kind}"


def root_gvk(definition: Any) -> GVK | None:
    """The group/version/kind of a definition's root component, or None when it names none."""
    return gvk_of(as_dict(structure(definition).get("rootComponent")).get("kind"))


_DefinitionFile: TypeAlias = "tuple[str | None, str | None, list[dict[str, Any]]]"
_DEFINITION_FILES: FileCache[_DefinitionFile] = FileCache(256)  # the bundled catalog, read per command


def _read_definition_file(path: str) -> _DefinitionFile:
    """(a template's note, the first error, the Karta documents' data) of one file."""
    source = load_file(path)
    template = template_marker(source.text)
    if template is not None and mentions_karta(path, source.text):
        return template_note(path, template), None, []
    bad = [f for f in source.findings if f.severity.name == "ERROR"]
    if bad:
        return None, f"{path}:{bad[0].line}:{bad[0].column}: {bad[0].message}", []
    return None, None, [document.data for document in source.karta_documents]


# Where a definition was found: named on the command line (or by a fixture), the project's, the
# bundled catalog, or a file at a git revision (``diff``)
DefinitionOrigin: TypeAlias = 'Literal["explicit", "project", "bundled", "revision"]'


class DefinitionFile(Record):
    """A definition file: its path, its data and where it was found (``origin``: named, the project's, bundled or
    at a git revision)."""

    __slots__ = ("data", "origin", "path")
    path: str
    data: dict[str, Any]
    origin: DefinitionOrigin

    def __init__(self, path: str, data: dict[str, Any], origin: DefinitionOrigin = "explicit") -> None:
        """The definition ``data`` read from ``path``, found where ``origin`` says."""
        self.path = path
        self.data = data
        self.origin = origin

    @property
    def name(self) -> str:
        """The definition's ``metadata.name``, else the file's name."""
        name = as_dict(self.data.get("metadata")).get("name")
        return name if isinstance(name, str) else os.path.basename(self.path)


class DefinitionIndex(Record):
    """Definitions from several places; earlier places win for the same GVK."""

    __slots__ = ("_real", "by_basename", "by_gvk", "by_name", "explicit_problems", "notes", "problems", "searched")
    searched: list[str]
    by_gvk: dict[GVK, DefinitionFile]
    by_basename: dict[str, DefinitionFile]
    by_name: dict[str, DefinitionFile]
    problems: list[str]
    explicit_problems: list[str]  # those of the paths given explicitly
    notes: list[str]  # shadowing and ambiguity, said once
    _real: dict[str, DefinitionOrigin]  # realpath -> origin already indexed

    def __init__(
        self,
        searched: list[str] | None = None,
        by_gvk: dict[GVK, DefinitionFile] | None = None,
        by_basename: dict[str, DefinitionFile] | None = None,
        by_name: dict[str, DefinitionFile] | None = None,
        problems: list[str] | None = None,
        explicit_problems: list[str] | None = None,
        notes: list[str] | None = None,
        _real: dict[str, DefinitionOrigin] | None = None,
    ) -> None:
        """An index of no definition (or of those given)."""
        self.searched = [] if searched is None else searched
        self.by_gvk = {} if by_gvk is None else by_gvk
        self.by_basename = {} if by_basename is None else by_basename
        self.by_name = {} if by_name is None else by_name
        self.problems = [] if problems is None else problems
        self.explicit_problems = [] if explicit_problems is None else explicit_problems
        self.notes = [] if notes is None else notes
        self._real = {} if _real is None else _real

    @classmethod
    def from_paths(cls, paths: Sequence[str], origin: DefinitionOrigin = "explicit") -> DefinitionIndex:
        """An index of the definitions in ``paths`` (files and folders), all of one ``origin``."""
        index = cls()
        index.add_layer(origin, list(paths))
        return index

    def add_layer(
        self, origin: DefinitionOrigin, paths: Sequence[str], excluded: Callable[[str], bool] | None = None
    ) -> None:
        """Index ``paths`` after everything indexed so far: earlier layers keep their GVKs and names."""
        for path in paths:
            self.add(path, origin, excluded)

    def add(
        self, path: str, origin: DefinitionOrigin = "explicit", excluded: Callable[[str], bool] | None = None
    ) -> None:
        """Add the definitions of ``path`` (a file or folder) but the files ``excluded`` names; what cannot be read
        is a problem (one of the explicit problems, when the user named the path)."""
        import copy  # lazy: a one-file lint adds no definition file (copy imports weakref: 0.5 ms of its start-up)

        self.searched.append(path)
        skipped: list[str] = []
        files, missing = iter_yaml_files([path], skipped)
        problems = self.explicit_problems if origin == "explicit" else []
        for problem in [*(missing_reason(item) for item in missing), *skipped]:
            self.problems.append(problem)
            problems.append(problem)
        for file_path in files:
            if excluded is not None and excluded(file_path):
                continue
            real = os.path.realpath(file_path)
            if real in self._real:
                continue  # the same file through two layers (kartalint's own catalog/)
            self._real[real] = origin
            note, error, definitions = _DEFINITION_FILES.get(file_path, _read_definition_file)
            if note is not None:
                self.notes.append(note)
            elif error is not None:
                self.problems.append(error)
                problems.append(error)
            for data in definitions:
                self.add_definition(file_path, copy.deepcopy(data), origin)  # callers may change theirs

    def add_definition(self, path: str, data: dict[str, Any], origin: DefinitionOrigin = "explicit") -> DefinitionFile:
        """Index one definition (read elsewhere, e.g. from a git revision)."""
        entry = DefinitionFile(path, data, origin)
        gvk = root_gvk(data)
        if gvk is not None:
            first = self.by_gvk.setdefault(gvk, entry)
            if first is not entry:
                self._note(first, entry, f"group/version/kind {format_gvk(gvk)}")
        first = self.by_name.setdefault(entry.name, entry)
        if first is not entry and (gvk is None or root_gvk(first.data) != gvk):
            self._note(first, entry, f"name {entry.name}")
        self.by_basename.setdefault(os.path.basename(path), entry)
        return entry

    def _note(self, kept: DefinitionFile, other: DefinitionFile, what: str) -> None:
        if other.origin == "bundled" and kept.origin != "bundled":
            self.notes.append(f"{kept.origin} definition {kept.path} shadows the bundled {other.path} (same {what})")
        elif other.origin == kept.origin and kept.origin != "bundled":
            self.notes.append(
                f"{kept.path} and {other.path} have the same {what}; {kept.path} is used where none is named "
                "(a fixture's `definition:` or --definition uses the one it names)"
            )

    @property
    def definitions(self) -> list[DefinitionFile]:
        """Every definition indexed, once each, by group/version/kind first, then by file name."""
        seen, out = set(), []
        for entry in list(self.by_gvk.values()) + list(self.by_basename.values()):
            if id(entry) not in seen:
                seen.add(id(entry))
                out.append(entry)
        return out

    def of_origin(self, *origins: DefinitionOrigin) -> list[DefinitionFile]:
        """The definitions found in the layers of ``origins``."""
        return [d for d in self.definitions if d.origin in origins]

    def find(self, gvk: GVK | None) -> DefinitionFile | None:
        """The definition of ``gvk``, or None when none was found."""
        return self.by_gvk.get(gvk) if gvk else None

    def describe_search(self, gvk: GVK | None = None) -> str:
        """Where definitions were looked for and how many were found, for a message that none matches; with
        ``gvk``, the other versions of its kind that have one (versions must match exactly)."""
        places = ", ".join(self.searched) or "nowhere"
        text = f"searched {len(self.by_gvk)} definition(s) in {places}"
        if gvk is not None:
            near = sorted(
                f"{g + '/' if g else ''}{v} ({entry.name})"
                for (g, v, k), entry in self.by_gvk.items()
                if k == gvk[2] and g == gvk[0]
            )
            if near:
                text += f"; {gvk[2]} is covered only at other versions: {', '.join(near)} (versions must match exactly)"
        return text


def field_location(definition: DefinitionFile, component: str | None, field_name: str) -> str | None:
    """``file:line:col`` of a component's field (``scaleDefinition.replicasPath``,
    ``statusDefinition.statusMappings.running[0]``) in the definition file, when it can be found."""

    source = _positions(definition.path)
    if source is None or not source.karta_documents:
        return None
    document = source.karta_documents[0]
    refs = [c for c in components(document.data) if (component is None and c.is_root) or c.name == component]
    if not refs:
        return None
    path: tuple = tuple(refs[0].path)
    for part in field_name.split("."):
        match = re.match(r"^(.*?)\[(\d+)\]$", part)
        path += (match.group(1), int(match.group(2))) if match else (part,)
    span = document.span(path)
    return f"{display_path(definition.path)}:{span.line}:{span.column}"


_POSITIONS: dict[str, Any] = {}


def _positions(path: str) -> Any:
    if path not in _POSITIONS:
        _POSITIONS[path] = load_file(path) if os.path.isfile(path) else None
    return _POSITIONS[path]


def default_index(extra: Sequence[str] = ()) -> DefinitionIndex:
    """The definitions of ``extra`` and then the bundled catalog."""
    paths = list(extra)
    bundled = bundled_catalog()
    if bundled:
        paths.append(bundled)
    return DefinitionIndex.from_paths(paths)
