"""The lint of one file: check its documents, configure the findings, apply its suppressions.

``lint_source`` is the one function that lints a loaded file under a configuration: ``kartalint
lint`` (through ``lint_paths``), the language server, ``explore``'s hints, ``diff``'s lint
changes and ``test``'s ``expect.lint`` all call it, so each of them reports what ``kartalint
lint`` reports for the file: the same checks (the configuration's CRDs included), the same
severities, ``per-file-ignores`` and suppression comments, the same files skipped.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Mapping

from kartalint.load.discovery import TEMPLATE_HINT, template_marker
from kartalint.load.documents import SourceFile, load_file
from kartalint.load.kinds import is_fixture, mentions_karta
from kartalint.load.yaml_rules import YAML_TEMPLATE
from kartalint.model import Finding, Frozen, Record, Rule, Severity, Span, set_field
from kartalint.project import Config
from kartalint.rules import registry, suppress
from kartalint.rules.context import Context
from kartalint.rules.document import check_context, check_document
from kartalint.rules.fixture_schema import check_fixture
from kartalint.rules.house import failures

TYPE_CHECKING = False
if TYPE_CHECKING:  # the CRD loader is imported only when CRDs are configured
    from kartalint.load.crds import CrdIndex
    from kartalint.load.house_rules import HouseRule
    from kartalint.rules._house_records import Queued
    from kartalint.rules.house import HouseRun


class FileOutcome(Frozen):
    """What linting one file gives: its findings (configured and unsuppressed) and what it holds
    (picklable, so files can be linted in worker processes)."""

    __slots__ = ("findings", "fixtures", "kartas", "others", "path", "skipped", "suppressed", "template")
    path: str
    findings: list[Finding]
    kartas: int
    others: int
    suppressed: int
    fixtures: int
    skipped: bool  # holds neither a Karta nor a fixture document: not judged, no finding
    template: bool  # a Go/Helm template: skipped, its one finding a yaml-template note

    def __init__(
        self,
        path: str,
        findings: list[Finding],
        kartas: int,
        others: int,
        suppressed: int,
        fixtures: int,
        skipped: bool = False,
        template: bool = False,
    ) -> None:
        """The outcome of the file at ``path``: its findings, and how many documents of each kind it holds."""
        set_field(self, "path", path)
        set_field(self, "findings", findings)
        set_field(self, "kartas", kartas)
        set_field(self, "others", others)
        set_field(self, "suppressed", suppressed)
        set_field(self, "fixtures", fixtures)
        set_field(self, "skipped", skipped)
        set_field(self, "template", template)


def lint_source(source: SourceFile, config: Config, *, strict_files: bool = False) -> FileOutcome:
    """Lint one file read (``load_file``, ``load_text``) under ``config``: each Karta document
    checked (with the CRDs of ``config.crds``), each fixture against the fixture schema, the
    findings configured (severities, rules turned off, ``per-file-ignores``) and suppressed by the
    file's comments, the comments judged. Unless ``strict_files``, a Go/Helm template that mentions
    a Karta is skipped with one ``yaml-template`` note, and a file that holds neither a Karta nor a
    fixture document (and does not mention one) is skipped without a finding."""
    return _read(source, config, strict_files, queue=False).outcome(config)


def _house_rules(path: str, config: Config) -> list[HouseRule]:
    """The house rules that run on the file at ``path``: those its ``paths`` select, not off."""
    relative = config.relative(path)
    ignored = config.ignored_rules(path) if config.per_file_ignores else set()
    return [
        rule
        for rule in config.house_rules.values()
        if config.severities.get(rule.id, rule.severity) is not None
        and rule.id not in ignored
        and rule.applies_to(relative)
    ]


def _house_rules_everywhere(config: Config) -> list[HouseRule] | None:
    """The house rules that run on every file, when that is the same list for every file (no rule
    has ``paths`` and no ``per-file-ignores`` apply); None when it is not. Found once per run: a run
    reads many files under one configuration (and one list of rules is what the house rules'
    engine recognises from one definition to the next)."""
    if config.per_file_ignores or any(rule.paths for rule in config.house_rules.values()):
        return None
    return [rule for rule in config.house_rules.values() if config.severities.get(rule.id, rule.severity) is not None]


_KNOWN: list = [None, None]  # (the house rules, the rules they make known): the last configuration's


def known_rules(config: Config) -> Mapping[str, Rule]:
    """The rules a finding or a suppression comment may name under ``config``: kartalint's (and
    its plugins') and the configuration's house rules."""
    if not config.house_rules:
        return registry.RULES
    if _KNOWN[0] is not config.house_rules:
        _KNOWN[:] = [config.house_rules, {**registry.RULES, **{r.id: r.rule for r in config.house_rules.values()}}]
    known: Mapping[str, Rule] = _KNOWN[1]
    return known


def lint_file(path: str, config: Config, *, strict_files: bool = False) -> FileOutcome:
    """``lint_source`` of the file at ``path`` (``-``: standard input), read within the
    configuration's ``max-file-size``."""
    return lint_source(load_file(path, config.max_file_size, keep=False), config, strict_files=strict_files)


def lint_files(paths: Iterable[str], config: Config, *, strict_files: bool = False) -> Iterator[FileOutcome]:
    """``lint_file`` of each of ``paths``, in order. With house rules, a file's Karta documents are
    queued for them (``queue_house``) and its outcome given once they are read: the jq worker runs
    the house rules of a batch of definitions while kartalint checks the files of the next."""
    if not config.house_rules:
        for path in paths:
            yield lint_file(path, config, strict_files=strict_files)
        return
    from kartalint.rules.house import drain_house  # lazy: house rules' machinery, only when they run

    waiting: deque[_Waiting] = deque()
    everywhere = _house_rules_everywhere(config)
    try:
        for path in paths:
            source = load_file(path, config.max_file_size, keep=False)
            waiting.append(_read(source, config, strict_files, queue=True, house=everywhere))
            while waiting and waiting[0].done:
                yield waiting.popleft().outcome(config)
        drain_house()
        while waiting:
            yield waiting.popleft().outcome(config)
    finally:
        drain_house()  # (abandoned halfway: the worker's last reply read, the engine free for the next run)


class _Waiting(Record):
    """A file checked (``_read``): its findings in order (a document's own, then its house rules'
    or their queued run), what it holds, and, queued, the end of its queue (which rules had failed
    by then); its outcome once nothing it waits for is."""

    __slots__ = ("counts", "end", "house", "parts", "ready", "source")
    source: SourceFile
    house: list[HouseRule]
    parts: list[list[Finding] | HouseRun]
    counts: tuple[int, int, int]  # Karta, other and fixture documents
    end: Queued | None
    ready: FileOutcome | None  # the outcome, when nothing waits

    def __init__(
        self,
        source: SourceFile,
        house: list[HouseRule],
        parts: list[list[Finding] | HouseRun] | None = None,
        counts: tuple[int, int, int] = (0, 0, 0),
        end: Queued | None = None,
        ready: FileOutcome | None = None,
    ) -> None:
        self.source = source
        self.house = house
        self.parts = [] if parts is None else parts
        self.counts = counts
        self.end = end
        self.ready = ready

    @property
    def done(self) -> bool:
        if self.ready is not None:
            return True
        return (self.end is None or self.end.done) and all(isinstance(p, list) or p.done for p in self.parts)

    def outcome(self, config: Config) -> FileOutcome:
        """The file's outcome, as ``lint_source`` gives it (once ``done``)."""
        if self.ready is not None:
            return self.ready

        found = [f for part in self.parts for f in (part if isinstance(part, list) else part.findings())]
        kartas, others, fixtures = self.counts
        outcome = _configured(self.source, [*self.source.findings, *found], config, kartas, others, fixtures)
        if self.house and kartas:  # house rules that cannot run: said where they are written (lint_paths: once)
            failed = failures(self.house, self.end.failed if self.end is not None else None)
            if failed:
                outcome.findings.extend(configure(failed, config))
        return outcome


def _read(
    source: SourceFile, config: Config, strict_files: bool, queue: bool, house: list[HouseRule] | None = None
) -> _Waiting:
    """A file's documents checked (``lint_source``), one at a time. A Karta document's house rules
    are sent to their jq worker before kartalint's checks run and read after them, or with
    ``queue`` queued (``queue_house``: read with a batch of others, ``lint_files``). ``house``: the
    house rules that run on the file, when known (``_house_rules_everywhere``)."""
    if house is None:
        house = _house_rules(source.path, config) if config.house_rules else []
    if house:  # (the house rules' machinery: only when they run)
        from kartalint.rules import house as house_rules  # lazy: only when house rules run
    waiting = _Waiting(source, house)
    if not strict_files:
        waiting.ready = _template_outcome(source, config)
        if waiting.ready is not None:
            return waiting
    kartas = fixtures = others = 0
    crds = crd_index(config.crds) if config.crds else None
    for document in source.stream():  # one document (and its node tree) at a time
        if document.is_karta:
            if not house:
                waiting.parts.append(check_document(document, crds))
            elif queue:  # (checked first: the house rules' units reuse the jq expressions it listed)
                context = Context(document, rules=registry.RULES, crds=crds)
                waiting.parts.append(check_context(context))
                run = house_rules.queue_house(document, house, context.jq_fields)
                if run is not None:
                    waiting.parts.append(run)
            else:
                run = house_rules.start_house(document, house)
                try:
                    waiting.parts.append(check_document(document, crds))
                finally:
                    waiting.parts.append(house_rules.finish_house(run) if run is not None else [])
            kartas += 1
        elif is_fixture(document.data):
            waiting.parts.append(check_fixture(document))
            fixtures += 1
        else:
            others += 1
    read_from = "-" if source.path == "<stdin>" else source.path  # (a text not kept is read again)
    if not strict_files and not kartas and not fixtures and not mentions_karta(read_from, source.text):
        waiting.ready = FileOutcome(source.path, [], 0, others, 0, 0, skipped=True)
        return waiting
    waiting.counts = (kartas, others, fixtures)
    if queue and house and kartas:
        waiting.end = house_rules.queue_file_end()
    return waiting


def configure(findings: Iterable[Finding], config: Config) -> list[Finding]:
    """Findings with the configured severities; rules turned off (``rules:``, and
    ``per-file-ignores`` for the finding's file) left out."""
    out = []
    ignored: dict[str, set[str]] = {}
    for finding in findings:
        severity = _configured_severity(config, finding.rule)
        if severity is None:
            continue
        if config.per_file_ignores:
            if finding.file not in ignored:
                ignored[finding.file] = config.ignored_rules(finding.file)
            if finding.rule in ignored[finding.file]:
                continue
        out.append(finding if severity == finding.severity else finding.replace(severity=severity))
    return out


def _configured_severity(config: Config, rule_id: str) -> Severity | None:
    """The severity of ``rule_id`` under ``config`` (None: turned off): the configuration's, else
    the rule's own (an id no rule has: an error)."""
    if rule_id in config.severities:
        return config.severities[rule_id]
    rule = registry.RULES.get(rule_id)
    if rule is None and rule_id in config.house_rules:
        return config.house_rules[rule_id].severity
    return rule.severity if rule else Severity.ERROR


def _configured(
    source: SourceFile, found: list[Finding], config: Config, kartas: int, others: int, fixtures: int
) -> FileOutcome:
    """Configure and suppress a file's findings; judge its suppression directives."""
    findings = configure(found, config)
    findings, suppressed, directives = suppress.apply(findings, source.text, source.path, known_rules(config))
    findings.extend(configure(directives, config))
    return FileOutcome(source.path, findings, kartas, others, suppressed, fixtures)


def _template_outcome(source: SourceFile, config: Config) -> FileOutcome | None:
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
    return outcome.replace(skipped=True, template=True)


_CRD_INDEXES: dict[tuple[str, ...], CrdIndex] = {}


def crd_index(paths: list[str]) -> CrdIndex:
    """A ``CrdIndex`` of the CRD files and folders at ``paths`` (``crds:`` of the configuration,
    ``--crd``), built once per list of paths and process (the language server and the tests lint
    many files under one configuration; each CRD file is parsed once, ``kartalint.load.filecache``)."""
    from kartalint.load.crds import CrdIndex  # lazy: load.crds, only when a CRD is configured (start-up of lint)

    key = tuple(paths)
    if key not in _CRD_INDEXES:
        _CRD_INDEXES[key] = CrdIndex.from_paths(paths)
    return _CRD_INDEXES[key]
