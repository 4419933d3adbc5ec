"""The lint pipeline: discover files -> load -> check -> configure severities -> suppress."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kartalint.load.discovery import TEMPLATE_HINT, iter_yaml_files, template_marker
from kartalint.load.documents import SourceFile, load_file
from kartalint.load.kinds import mentions_karta
from kartalint.model import Finding, Severity, Span
from kartalint.project import Config
from kartalint.rules import registry, suppress
from kartalint.rules.document import check_document

if TYPE_CHECKING:
    from kartalint.load.crds import CrdIndex
from kartalint.load.yaml_rules import YAML_TEMPLATE


@dataclass
class LintResult:
    """What a lint run found: files checked, findings, missing paths, skipped files and documents."""

    checked: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    karta_documents: int = 0
    fixture_documents: int = 0
    skipped_documents: int = 0
    skipped_files: list[str] = field(default_factory=list)  # neither Karta nor fixture (not with --strict-files)
    skipped_paths: list[str] = field(default_factory=list)  # FIFOs, devices, unreadable folders met in a walk
    templates: list[str] = field(default_factory=list)  # Go/Helm templates skipped (a yaml-template note each)
    suppressed: int = 0

    def count(self, severity: Severity) -> int:
        """How many findings have ``severity``."""
        return sum(1 for f in self.findings if f.severity == severity)

    @property
    def counts(self) -> dict:
        """The number of findings per severity name."""
        return {
            "error": self.count(Severity.ERROR),
            "warning": self.count(Severity.WARNING),
            "info": self.count(Severity.INFO),
        }

    def exit_code(self, strict: bool = False) -> int:
        """The exit code of ``kartalint lint``: 2 for a missing path, 1 for an error (or a warning when ``strict``), else 0."""
        if self.missing:
            return 2
        if self.count(Severity.ERROR) or (strict and self.count(Severity.WARNING)):
            return 1
        if self.karta_documents == 0 and self.fixture_documents == 0:
            return 2
        return 0


def apply_config(findings: Iterable[Finding], config: Config) -> list[Finding]:
    """Findings with the configured severities; rules turned off (``rules:``, and
    ``per-file-ignores`` for the finding's file) left out."""
    out = []
    ignored: dict[str, set[str]] = {}
    for finding in findings:
        severity = config.severity(finding.rule)
        if severity is None:
            continue
        if config.per_file_ignores:
            if finding.file not in ignored:
                ignored[finding.file] = config.ignored_rules(finding.file)
            if finding.rule in ignored[finding.file]:
                continue
        out.append(finding if severity == finding.severity else dataclasses.replace(finding, severity=severity))
    return out


@dataclass(frozen=True)
class FileOutcome:
    """What linting one file gives: its findings (configured and unsuppressed) and what it holds
    (picklable, so files can be linted in worker processes)."""

    path: str
    findings: list[Finding]
    kartas: int
    others: int
    suppressed: int
    fixtures: int
    skipped: bool = False  # holds neither a Karta nor a fixture document (and is not reported)
    template: bool = False  # a Go/Helm template: skipped, its one finding a yaml-template note


def lint_source(source: SourceFile, config: Config) -> FileOutcome:
    """Lint one file read: check each Karta and fixture document, configure, suppress."""
    from kartalint.load.kinds import is_fixture
    from kartalint.rules.fixture_schema import check_fixture

    found: list[Finding] = []
    kartas = fixtures = others = 0
    crds = crd_index(config.crds) if config.crds else None
    for document in source.stream():  # one document (and its node tree) at a time
        if document.is_karta:
            found.extend(check_document(document, crds))
            kartas += 1
        elif is_fixture(document.data):
            found.extend(check_fixture(document))
            fixtures += 1
        else:
            others += 1
    return _configured(source, [*source.findings, *found], config, kartas, others, fixtures)


def _configured(
    source: SourceFile, found: list[Finding], config: Config, kartas: int, others: int, fixtures: int
) -> FileOutcome:
    """Configure and suppress a file's findings; judge its suppression directives."""
    findings = apply_config(found, config)
    findings, suppressed, directives = suppress.apply(findings, source.text, source.path, registry.RULES)
    findings.extend(apply_config(directives, config))
    return FileOutcome(source.path, findings, kartas, others, suppressed, fixtures)


def template_outcome(source: SourceFile, config: Config) -> FileOutcome | None:
    """A Go/Helm template that mentions a Karta or a fixture is skipped with a ``yaml-template``
    note at its first template action (None when the file is not one)."""
    where = template_marker(source.text)
    if where is None or not mentions_karta(source.path, source.text):
        return None
    note = source.finding(
        YAML_TEMPLATE,
        "a Go/Helm template (it holds {{ }} template actions outside quoted strings): not checked",
        Span(where[0], where[1], where[0], where[1] + 2),
        hint=TEMPLATE_HINT,
    )
    outcome = _configured(source, [note], config, 0, 0, 0)
    return dataclasses.replace(outcome, skipped=True, template=True)


_CRD_INDEXES: dict = {}


def crd_index(paths: list[str]) -> CrdIndex:
    """A ``CrdIndex`` of the configured CRD files (built once per list of paths)."""
    from kartalint.load.crds import CrdIndex

    key = tuple(paths)
    if key not in _CRD_INDEXES:
        _CRD_INDEXES[key] = CrdIndex.from_paths(paths)
    return _CRD_INDEXES[key]


PARALLEL_THRESHOLD = 50  # files: below this, starting worker processes costs more than it saves


def lint_file(path: str, config: Config, strict_files: bool) -> FileOutcome:
    """The outcome of linting the file at ``path`` (a template or a file without Karta is skipped unless ``strict_files``)."""
    source = load_file(path, config.max_file_size, keep=False)
    if not strict_files:
        template = template_outcome(source, config)
        if template is not None:
            return template
    outcome = lint_source(source, config)
    skipped = not strict_files and not outcome.kartas and not outcome.fixtures and not mentions_karta(path, source.text)
    return dataclasses.replace(outcome, skipped=skipped)


def _lint_chunk(args: tuple) -> list[FileOutcome]:  # pragma: no cover - runs in a worker process
    paths, config, strict_files = args
    return [lint_file(path, config, strict_files) for path in paths]


def default_jobs(files: int) -> int:
    return (os.cpu_count() or 1) if files > PARALLEL_THRESHOLD else 1


def worker_count(jobs: int | None, files: int) -> int:
    """How many processes lint ``files`` files: ``jobs`` (None or 0: automatic, ``default_jobs``),
    never more than the files nor twice the CPUs (``-j 500`` on 3 files starts no process)."""
    wanted = jobs or default_jobs(files)
    return max(1, min(wanted, files, 2 * (os.cpu_count() or 1)))


def _worker_started(owner: int) -> None:  # pragma: no cover - runs in a worker process
    from kartalint.jqlang.lifetime import die_with_parent

    die_with_parent(owner)


def lint_paths(
    paths: Iterable[str], config: Config | None = None, strict_files: bool = False, jobs: int | None = None
) -> LintResult:
    """Lint files and folders. Files that hold neither a Karta nor a fixture document (YAML that
    fails to load included, unless it mentions ``kind: Karta``) are skipped and counted, unless
    ``strict_files``. ``jobs`` worker processes share the files (default or 0: every CPU for more
    than 50 files; never more than the files nor twice the CPUs); the result is the same, in the
    same order, whatever ``jobs`` is."""
    config = config or Config()
    result = LintResult()
    files, result.missing = iter_yaml_files(paths, result.skipped_paths)
    seen = set()
    wanted = []
    for path in files:
        key = path if path == "-" else os.path.realpath(path)
        if key in seen:  # a file given twice (or reached through two paths) is checked once
            continue
        seen.add(key)
        if path != "-" and config.excluded(path):
            continue
        wanted.append(path)
    jobs = worker_count(jobs, len(wanted))
    for outcome in _outcomes(wanted, config, strict_files, jobs):
        if outcome.template:
            result.templates.append(outcome.path)
            result.findings.extend(outcome.findings)
            result.suppressed += outcome.suppressed
            continue
        if outcome.skipped:
            result.skipped_files.append(outcome.path)
            result.skipped_documents += outcome.others
            continue
        result.checked.append(outcome.path)
        result.findings.extend(outcome.findings)
        result.karta_documents += outcome.kartas
        result.fixture_documents += outcome.fixtures
        result.skipped_documents += outcome.others
        result.suppressed += outcome.suppressed
    return result


def _outcomes(files: list[str], config: Config, strict_files: bool, jobs: int) -> Iterable[FileOutcome]:
    """Per-file outcomes in the order of ``files``; with ``jobs`` > 1, from worker processes
    (standard input, if among the files, is always read here)."""
    if jobs > 1 and len(files) > 1 and "-" not in files:
        import multiprocessing

        size = max(1, min(64, len(files) // (jobs * 4) or 1))  # chunks keep the pipe traffic low and the cores busy
        chunks = [files[i : i + size] for i in range(0, len(files), size)]
        context = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
        try:
            with context.Pool(jobs, initializer=_worker_started, initargs=(os.getpid(),)) as pool:
                yield from (
                    o
                    for outcomes in pool.imap(_lint_chunk, [(c, config, strict_files) for c in chunks])
                    for o in outcomes
                )
            return
        except OSError:  # no worker processes here: lint in this one
            pass
    for path in files:
        yield lint_file(path, config, strict_files)


__all__ = ["FileOutcome", "LintResult", "apply_config", "lint_file", "lint_paths", "lint_source", "registry"]
