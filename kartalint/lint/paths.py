"""Lint files and folders: discovery, each file once, worker processes for many files."""

from __future__ import annotations

import os
from collections.abc import Iterable

from kartalint.lint.pipeline import FileOutcome, lint_files
from kartalint.lint.result import LintResult
from kartalint.load.discovery import excluded_folders, iter_yaml_files
from kartalint.load.documents import display_path
from kartalint.model import Finding
from kartalint.project import Config
from kartalint.rules.house import HOUSE_RULE_FAILED

PARALLEL_THRESHOLD = 50  # files: below this, starting worker processes costs more than it saves


def lint_paths(paths: Iterable[str], config: Config, strict_files: bool = False, jobs: int | None = None) -> LintResult:
    """Lint files and folders under ``config`` (the project's configuration: there is no default,
    so nothing is linted with another one). Files that hold neither a Karta nor a fixture document
    (YAML that fails to load included, unless it mentions ``kind: Karta``) are skipped and counted,
    unless ``strict_files``. ``jobs`` worker processes share the files (default or 0: every CPU for
    more than 50 files; never more than the files nor twice the CPUs); the result is the same, in
    the same order, whatever ``jobs`` is."""
    paths = list(paths)
    result = LintResult()
    files, result.missing = iter_yaml_files(paths, result.skipped_paths)
    named = {os.path.realpath(p) for p in paths if p != "-" and not os.path.isdir(p)}
    seen = set()
    wanted = []
    for path in files:
        key = path if path == "-" else os.path.realpath(path)
        if key in seen:  # a file given twice (or reached through two paths) is checked once
            continue
        seen.add(key)
        if path != "-" and config.excluded(path):
            if key in named:  # named on the command line: said, with the pattern (exclusion_notes)
                result.excluded.append(path)
            continue
        wanted.append(path)
    result.excluded += excluded_folders(paths, wanted, config.excluded)  # said as the files named are
    jobs = worker_count(jobs, len(wanted))
    if config.house_rules:  # a new run: house rules that failed in an earlier one are tried again
        # lazy: the house rules' jq worker, only when house rules run (start-up of lint)
        from kartalint.rules._house_jq import engine

        engine().new_run()
    for outcome in _outcomes(wanted, config, strict_files, jobs):
        _add(result, outcome)
    if config.house_rules:
        result.house_rules = [rule.rule for rule in config.house_rules.values()]
        _house_failures_once(result)
    return result


def exclusion_notes(paths: list[str], config: Config, shown: int = 3) -> list[str]:
    """What to say of files and folders (``folder/``) named on the command line that the
    configuration excludes: one note per ``exclude`` pattern, with the configuration file holding it
    and the paths (the first ``shown`` of them)."""

    groups: dict[tuple[str, str], list[str]] = {}
    for path in paths:
        found = config.exclusion(path)
        if found is not None:
            groups.setdefault(found, []).append(path)
    notes = []
    for (pattern, source), files in groups.items():
        listed = ", ".join(files[:shown]) + (f" and {len(files) - shown} more" if len(files) > shown else "")
        folders = sum(1 for path in files if path.endswith("/"))
        kind = "files" if not folders else "folders" if folders == len(files) else "paths"
        what = f"{listed} is" if len(files) == 1 else f"{len(files)} {kind} given ({listed}) are"
        notes.append(f"{what} excluded by the pattern '{pattern}' of {display_path(source)}: not read")
    return notes


def _house_failures_once(result: LintResult) -> None:
    """Each house rule that could not run said once (the first time, in file order), and none of
    its findings: the result is the same whatever ``jobs`` is (each worker process finds a failure
    on its own)."""

    broken = {f.path[1] for f in result.findings if _failure(f, HOUSE_RULE_FAILED)}
    if not broken:
        return
    kept: list[Finding] = []
    said: set = set()
    for finding in result.findings:
        if finding.rule in broken:
            continue
        if _failure(finding, HOUSE_RULE_FAILED):
            if finding.path[1] in said:
                continue
            said.add(finding.path[1])
        kept.append(finding)
    result.findings = kept


def _failure(finding: Finding, rule_id: str) -> bool:
    return finding.rule == rule_id and finding.path[:1] == ("house-rules",)


def _add(result: LintResult, outcome: FileOutcome) -> None:
    """One file's outcome added to the run's result."""
    if outcome.template:
        result.templates.append(outcome.path)
        result.findings.extend(outcome.findings)
        result.suppressed += outcome.suppressed
        return
    if outcome.skipped:
        result.skipped_files.append(outcome.path)
        result.skipped_documents += outcome.others
        result.skipped_file_documents += outcome.others
        return
    result.checked.append(outcome.path)
    result.findings.extend(outcome.findings)
    result.karta_documents += outcome.kartas
    result.fixture_documents += outcome.fixtures
    result.skipped_documents += outcome.others
    result.suppressed += outcome.suppressed


def default_jobs(files: int) -> int:
    """Worker processes when ``-j`` is not given: every CPU for more than 50 files, else none."""
    return (os.cpu_count() or 1) if files > PARALLEL_THRESHOLD else 1


def worker_count(jobs: int | None, files: int) -> int:
    """How many processes lint ``files`` files: ``jobs`` (None or 0: automatic, ``default_jobs``),
    never more than the files nor twice the CPUs (``-j 500`` on 3 files starts no process)."""
    wanted = jobs or default_jobs(files)
    return max(1, min(wanted, files, 2 * (os.cpu_count() or 1)))


_RUN: list = []  # (configuration, strict_files) of the run a worker process lints for (``_worker_started``)


def _lint_chunk(paths: list[str]) -> list[FileOutcome]:  # pragma: no cover - runs in a worker process
    config, strict_files = _RUN
    return list(lint_files(paths, config, strict_files=strict_files))


def _worker_started(
    owner: int, config: Config, strict_files: bool
) -> None:  # pragma: no cover - runs in a worker process
    import multiprocessing  # lazy: worker processes only for many files (start-up of lint)

    from kartalint.jqlang.lifetime import die_with_parent  # lazy: only in a worker process (start-up of lint)

    die_with_parent(owner)
    # a worker may start a jq worker of its own (house rules): multiprocessing refuses children to a
    # daemonic process; the jq worker dies with this one anyway (jqlang.lifetime)
    multiprocessing.current_process().daemon = False
    # the run's configuration, once per worker (inherited by a forked one): a copy with each chunk
    # of files cost its unpickling, and the house rules, new objects each time, were prepared again
    _RUN[:] = [config, strict_files]


def _outcomes(files: list[str], config: Config, strict_files: bool, jobs: int) -> Iterable[FileOutcome]:
    """Per-file outcomes in the order of ``files``; with ``jobs`` > 1, from worker processes
    (standard input, if among the files, is always read here)."""
    if jobs > 1 and len(files) > 1 and "-" not in files:
        import multiprocessing  # lazy: worker processes only for many files (start-up of lint)

        # chunks keep the pipe traffic low and the cores busy: small enough that the last ones end
        # together (a worker left alone with a chunk of 64 files idled the other core for ~60 ms)
        size = max(1, min(16, len(files) // (jobs * 4) or 1))
        chunks = [files[i : i + size] for i in range(0, len(files), size)]
        context = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
        try:
            started = (os.getpid(), config, strict_files)
            with context.Pool(jobs, initializer=_worker_started, initargs=started) as pool:
                yield from (o for outcomes in pool.imap(_lint_chunk, chunks) for o in outcomes)
                # every chunk done: the workers leave on their own. The terminate() of leaving the
                # block, alone, can wait for ever on a queue lock an idle worker holds (CPython
                # #78178, seen once in the suite); after join() it has nothing left to stop
                pool.close()
                pool.join()
            return
        except OSError:  # no worker processes here: lint in this one
            pass
    yield from lint_files(files, config, strict_files=strict_files)
