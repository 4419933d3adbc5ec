"""Test cases for ``kartalint test``: fixture files, upstream recordings, karta-verify predictions.

* A fixture (``kind: KartaFixture``, docs/fixtures.md) is one case.
* A recording (``schemaVersion: 1`` with ``events``) gives one case per STATE event; its
  definition is found by the base name of ``kartaFile`` among the definitions searched.
* A karta-verify prediction ``NAME.predict.yaml`` (``status``/``components``) next to the workload
  ``NAME.yaml`` is one case; its definition is chosen by the workload's group/version/kind.

Problems that prevent a case from running (invalid fixture, missing object or definition) are
kept on the case and make it an error, never a silent pass.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from kartalint.karta import as_dict
from kartalint.lint.result import given_words
from kartalint.load.confinement import Confinement
from kartalint.load.definitions import DefinitionFile, DefinitionIndex, format_gvk, object_gvk
from kartalint.load.discovery import excluded_folders, iter_yaml_files, template_marker, template_note
from kartalint.load.documents import load_file
from kartalint.load.kinds import is_fixture, mentions_case, mentions_karta
from kartalint.load.objects import load_objects
from kartalint.rules.fixture_schema import check_fixture
from kartalint.testing.recording import definition_basename, is_recording, state_events

CaseKind = Literal["fixture", "recording", "prediction"]  # what a case's file is
PREDICTION_SUFFIX = ".predict.yaml"
FIXTURE_ROOT_NAMES = ("fixtures", "tests", "testdata")  # folders whose name is not a definition's


@dataclass
class Case:
    """One case: a fixture document, a state of a recording or a prediction, with its definition, object and pods,
    what it expects (or why it is expected to fail), and what keeps it from running."""

    id: str
    file: str
    kind: CaseKind
    line: int = 1
    name: str = ""
    definition: DefinitionFile | None = None
    object: Any = None
    pods: list[Any] | None = None
    expect: dict[str, Any] = field(default_factory=dict)
    xfail: str | None = None
    recorded_state: Any = None
    problems: list[str] = field(default_factory=list)
    refused: bool = False  # a file the case names resolves outside the allowed folders


@dataclass
class Discovery:
    """The cases found under the paths given, the paths missing, the files skipped (and why)."""

    cases: list[Case] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # Go/Helm templates skipped
    excluded: list[str] = field(default_factory=list)  # files named on the command line, excluded
    files: int = 0

    def nothing_to_test(
        self, selected: Sequence[Case], paths: Sequence[str], pattern: str | None, defaults: bool, allow_empty: bool
    ) -> str | None:
        """Why no case to run is a usage error (None when there are cases, with ``allow_empty``, or
        on the first day of a project: its ``defaults`` fixtures searched and none found yet)."""
        if selected or allow_empty or (defaults and not self.cases):
            return None
        what = f" matching -k {pattern!r}" if pattern and self.cases else ""
        excluded = f", {given_words(self.excluded)} given excluded by the configuration" if self.excluded else ""
        return (
            f"no test case found in {', '.join(paths)}{what} "
            f"({self.files} file(s) searched{excluded}; fixtures have kind: KartaFixture)"
        )

    def nothing_tested(
        self, paths: Sequence[str], root: str, defaults: bool, definitions: int, require_fixtures: bool
    ) -> str:
        """The note of a run without cases that is no error: where nothing was found, and the
        ``definitions`` of the project left without a fixture."""
        where = f"the project at {root}" if defaults and not self.cases else ", ".join(paths) or "the given paths"
        return (
            f"no fixture found in {where}: nothing was tested"
            + (f"; {definitions} definition(s) have no fixture (definition-without-fixture)" if definitions else "")
            + ("" if require_fixtures else " (--require-fixtures makes that a failure; docs/fixtures.md)")
        )


class _Definitions:
    """Definition lookup for cases: explicit files (cached), directory names, GVKs, base names."""

    def __init__(self, index: DefinitionIndex, roots: Sequence[str] = ()) -> None:
        self.index = index
        self.roots = {os.path.abspath(r) for r in roots}
        self.confinement: Confinement | None = None
        self._files: dict[str, tuple[DefinitionFile | None, str | None]] = {}

    def refusal(self, what: str, path: str) -> str | None:
        return self.confinement.refusal(what, path) if self.confinement is not None else None

    def from_file(self, path: str, field: str = "definition") -> tuple[DefinitionFile | None, str | None]:
        path = os.path.normpath(path)
        refusal = self.refusal(field, path)
        if refusal:
            return None, refusal
        if path not in self._files:
            if not os.path.isfile(path):
                self._files[path] = (None, f"definition file {path} does not exist")
            else:
                single = DefinitionIndex.from_paths([path])
                found = single.definitions
                problem = single.problems[0] if single.problems else f"{path} holds no Karta definition"
                self._files[path] = (found[0], None) if found else (None, problem)
        return self._files[path]

    def for_object(self, obj: Any, directory: str) -> tuple[DefinitionFile | None, str | None]:
        folder = os.path.basename(os.path.abspath(directory))
        by_dir = self.index.by_name.get(folder)
        if by_dir is not None:
            return by_dir, None
        if os.path.abspath(directory) not in self.roots and folder not in FIXTURE_ROOT_NAMES:
            return None, (
                f"fixture folder {folder!r} names no definition (a fixture folder named after a definition's "
                f"metadata.name picks it; set `definition:` in the fixture otherwise); {self.index.describe_search()}"
            )
        gvk = object_gvk(obj)
        found = self.index.find(gvk)
        if found is not None:
            return found, None
        return None, f"no definition for {format_gvk(gvk)}; {self.index.describe_search(gvk)}"


def discover(
    paths: Sequence[str],
    index: DefinitionIndex,
    roots: Sequence[str] = (),
    confinement: Confinement | None = None,
    excluded: Callable[[str], bool] | None = None,
) -> Discovery:
    """Cases under ``paths``. A fixture without ``definition:`` takes the definition named like its
    folder; only fixtures directly in ``roots`` (or in the given folders) fall back to the object's GVK.
    With a ``confinement``, files found in folders and every file a fixture names must resolve
    inside its folders (files given by name are read wherever they are). Files ``excluded`` (the
    project's ``exclude``) and Go/Helm templates are skipped, as lint skips them."""
    out = Discovery()
    files, out.missing = iter_yaml_files(paths, out.skipped, links_out=confinement is not None)
    named = {os.path.abspath(p) for p in paths if p != "-" and not os.path.isdir(p)}
    if excluded is not None:  # a file named on the command line and excluded is said (as lint says it)
        out.excluded = [f for f in files if f != "-" and excluded(f) and os.path.abspath(f) in named]
        files = [f for f in files if f == "-" or not excluded(f)]
        out.excluded += excluded_folders(paths, files, excluded)  # said as the files named are
    given = [p if os.path.isdir(p) else os.path.dirname(p) or "." for p in paths if p != "-"]
    definitions = _Definitions(index, list(roots) + given)
    definitions.confinement = confinement
    for path in files:
        if path == "-":
            continue
        out.files += 1
        refusal = (
            confinement.refusal(f"{path} (a symbolic link)", path)
            if confinement and os.path.abspath(path) not in named
            else None
        )
        if refusal:
            out.cases.append(Case(id=path, file=path, kind="fixture", problems=[refusal]))
            continue
        if path.endswith(PREDICTION_SUFFIX):
            out.cases.append(_prediction(path, definitions))
            continue
        source = load_file(path)
        marker = template_marker(source.text)
        if marker is not None and mentions_karta(path, source.text):
            out.notes.append(template_note(path, marker))
            continue
        bad = [f for f in source.findings if f.severity.name == "ERROR"]
        load_errors = [f"{path}:{f.line}:{f.column}: {f.message} ({f.rule})" for f in bad]
        for document in source.documents:
            if is_fixture(document.data):
                case = _fixture(path, document, definitions)
                case.problems[:0] = load_errors
                out.cases.append(case)
            elif is_recording(document.data):
                out.cases.extend(_recording(path, document.data, definitions))
        if bad and not source.documents and mentions_case(path, source.text):
            first = bad[0]
            out.cases.append(
                Case(
                    id=path,
                    file=path,
                    kind="fixture",
                    line=first.line,
                    problems=[f"{path}:{first.line}:{first.column}: {first.message}"],
                )
            )
    if confinement is not None:
        for case in out.cases:
            case.refused = any(problem in confinement.issued for problem in case.problems)
    return out


def _fixture(path: str, document: Any, definitions: _Definitions) -> Case:
    data = document.data
    line = document.node.start_mark.line + 1
    case = Case(
        id=path,
        file=path,
        kind="fixture",
        line=line,
        name=str(data.get("name") or os.path.splitext(os.path.basename(path))[0]),
    )
    for finding in check_fixture(document):
        case.problems.append(f"{path}:{finding.line}:{finding.column}: {finding.message}")
    if case.problems:
        return case
    directory = os.path.dirname(path)
    case.expect = dict(as_dict(data.get("expect")))
    case.xfail = data.get("xfail")
    if "object" in data:
        case.object = data["object"]
    else:
        objects, errors = _read_objects("objectFile", data["objectFile"], directory, definitions)
        case.problems.extend(errors)
        if len(objects) != 1 and not errors:
            case.problems.append(f"objectFile {data['objectFile']} must hold exactly one object (found {len(objects)})")
        elif objects:
            case.object = objects[0].data
    if "pods" in data:
        case.pods = list(data["pods"])
    elif "podsFile" in data:
        pods, errors = _read_objects("podsFile", data["podsFile"], directory, definitions)
        case.problems.extend(errors)
        case.pods = [p.data for p in pods]
    if case.problems:
        return case
    if data.get("definition"):
        case.definition, problem = definitions.from_file(
            os.path.join(directory, data["definition"]), f"definition {data['definition']}"
        )
    else:
        case.definition, problem = definitions.for_object(case.object, directory)
    if problem:
        case.problems.append(problem)
    return case


def _read_objects(field: str, name: str, directory: str, definitions: _Definitions) -> tuple[list[Any], list[str]]:
    path = os.path.join(directory, name)
    refusal = definitions.refusal(f"{field} {name}", path)
    if refusal:
        return [], [refusal]
    if not os.path.isfile(path):
        return [], [f"{field} {name} does not exist"]
    return load_objects(path)


def _recording(path: str, data: Any, definitions: _Definitions) -> list[Case]:
    basename = definition_basename(data)
    definition = definitions.index.by_basename.get(basename or "")
    problem = (
        None if definition else f"no definition named {basename} (kartaFile); {definitions.index.describe_search()}"
    )
    cases = []
    for event in state_events(data):
        case = Case(
            id=f"{path}#{event.index}",
            file=path,
            kind="recording",
            name=f"event {event.index}",
            definition=definition,
            object=event.object,
            recorded_state=event.state,
        )
        if problem:
            case.problems.append(problem)
        if not isinstance(event.object, dict):
            case.problems.append(f"event {event.index} has no object")
        cases.append(case)
    if not cases:
        cases.append(Case(id=path, file=path, kind="recording", problems=["recording has no STATE event"]))
    return cases


def _prediction(path: str, definitions: _Definitions) -> Case:
    case = Case(id=path, file=path, kind="prediction", name=os.path.basename(path))
    source = load_file(path)
    if not source.documents or not isinstance(source.documents[0].data, dict):
        case.problems.append("prediction file holds no mapping")
        return case
    case.expect = source.documents[0].data
    workload = path[: -len(PREDICTION_SUFFIX)] + ".yaml"
    refusal = definitions.refusal(f"the workload {os.path.basename(workload)}", workload)
    if refusal:
        case.problems.append(refusal)
        return case
    if not os.path.isfile(workload):
        case.problems.append(f"no workload {os.path.basename(workload)} next to the prediction")
        return case
    objects, errors = load_objects(workload)
    case.problems.extend(errors)
    if len(objects) != 1:
        case.problems.append(f"{workload} must hold exactly one object (found {len(objects)})")
        return case
    case.object = objects[0].data
    case.definition, problem = definitions.for_object(case.object, os.path.dirname(path))
    if problem:
        case.problems.append(problem)
    return case
