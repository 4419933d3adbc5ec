"""House rules (``house-rules:`` of the configuration, docs/house-rules.md): an organisation's own
checks, written in jq, run on each unit of a Karta definition, with their findings placed like
every other rule's.

Units and where a finding is placed:

* ``definition``: the whole document (``$path`` is ``[]``); at the ``name`` key of ``metadata``;
* ``component``: the root component and each child component; at the ``rootComponent`` key, or
  at the child's ``name`` key;
* ``status-mapping``: each status of a component's ``statusMappings`` (the list of its matchers,
  ``$path[-1]`` is the status); at the status's key (``running:``);
* ``expression``: each jq expression of the definition (a string; ``$path[-1]`` is its field); on
  the expression itself.

The rules run through the configuration (``kartalint.lint.pipeline``); this family declares the
one rule their failures are reported as: ``house-rule-failed``, placed in the configuration file,
at the part of the house rule that failed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from kartalint import karta
from kartalint.load.documents import Document, display_path
from kartalint.model import Finding, Path, Rule, Severity, Span, format_path

TYPE_CHECKING = False
if TYPE_CHECKING:  # imported when house rules run
    from kartalint.load.house_rules import Failure, HouseRule
    from kartalint.rules._house_jq import HouseEngine, Memo
    from kartalint.rules._house_memo import Recall
    from kartalint.rules._house_records import Outcome, Pending, Queued

# The id of the rule this module reports (a constant: a misspelt id is an import error).
HOUSE_RULE_FAILED = "house-rule-failed"

RULES = (
    Rule(
        HOUSE_RULE_FAILED,
        Severity.ERROR,
        "config",
        "A house rule (`house-rules:` of the configuration) cannot run: its `when` or `message` does not compile or "
        "uses what the sandbox refuses (`input`, `env`, `import`), fails on a definition, or runs out of time.",
        "make the jq total (`?` or `try` where a value may have another type, `//` where it may be null) or fix it "
        "where the finding points, then run `kartalint rules --check`",
        why="A rule that cannot run finds nothing: without this finding a broken house rule would pass every definition in silence. It is reported once, at its place in the configuration, and skipped for the rest of the run (a definition's house rules have upstream's 10 s time limit of one jq query).",
    ),
)

_FAILED = RULES[0]


def units(
    data: object,
    kind: str,
    components: list[karta.ComponentRef] | None = None,
    fields: list[karta.JqField] | None = None,
) -> list[Path]:
    """The paths of the units of ``kind`` in a definition, in document order (``components`` and
    ``fields``: the definition's components and jq expressions, when in hand)."""
    if kind == "definition":
        return [()]
    if kind == "expression":
        return [field.path for field in (karta.jq_fields(data) if fields is None else fields)]
    found = karta.components(data) if components is None else components
    if kind == "component":
        return [component.path for component in found]
    return [path for path, _ in status_mappings(found)]


def status_mappings(components: list[karta.ComponentRef]) -> list[tuple[Path, object]]:
    """The status-mapping units of ``components`` (their paths, their lists of matchers), in
    document order."""
    out: list[tuple[Path, object]] = []
    for component in components:
        status = component.data.get("statusDefinition")
        mappings = status.get("statusMappings") if isinstance(status, dict) else None
        if isinstance(mappings, dict):
            base = (*component.path, "statusDefinition", "statusMappings")
            out.extend(((*base, name), matchers) for name, matchers in mappings.items())
    return out


def unit_span(document: Document, kind: str, path: Path, named: Sequence[Path] | None = None) -> Span:
    """Where a finding on a unit is placed (the module's docstring says where, per kind).
    ``named``: the paths of the components whose name is a string, when the document's data is no
    longer at hand (``HouseRun``)."""
    if kind == "expression":
        return document.span(path)
    if kind == "status-mapping":
        return document.span(path, key=True)
    if kind == "definition":
        return _line(document.span(("metadata", "name"), key=True))
    if path and path[-1] == "rootComponent":
        return document.span(path, key=True)
    if path in named if named is not None else isinstance(karta.as_dict(_at(document.data, path)).get("name"), str):
        return document.span((*path, "name"), key=True)
    return _line(document.span(path))


def _at(data: object, path: Path) -> object:
    for step in path:
        data = data[step] if isinstance(data, (dict, list)) and _has(data, step) else None  # type: ignore[index]
    return data


def _has(data: dict | list, step: object) -> bool:
    if isinstance(data, dict):
        return step in data
    return isinstance(step, int) and 0 <= step < len(data)


def _line(span: Span) -> Span:
    """A span on one line as it is; of a multi-line value, its first character (where it starts)."""
    return span if span.end_line == span.line else Span(span.line, span.column, span.line, span.column + 1)


class HouseRun:
    """The house rules on one Karta document, sent to the jq worker (``start_house``) and read
    back (``finish_house``): kartalint's own checks run in between. Or queued (``queue_house``):
    read with a batch of others, its findings ready once ``done``; the document is then kept
    without its data (``named`` says what placing a finding on a component reads of it)."""

    __slots__ = ("document", "named", "paths", "pending", "queued")

    def __init__(
        self,
        document: Document,
        paths: dict[str, list[Path]],
        pending: Pending | None,
        queued: Queued | None = None,
        named: list[Path] | None = None,
    ) -> None:
        """The document, its units' paths by kind, what the engine was sent (or queued), the
        paths of its components whose name is a string (when its data is not kept)."""
        self.document = document
        self.paths = paths
        self.pending = pending
        self.queued = queued
        self.named = named

    @property
    def done(self) -> bool:
        """Whether its findings are ready (always, unless queued)."""
        return self.queued is None or self.queued.done

    def findings(self) -> list[Finding]:
        """The findings of a queued run, once ``done``."""
        assert self.queued is not None and self.queued.outcome is not None
        return _findings(self.document, self.paths, self.queued.outcome, self.named)


def _engine() -> HouseEngine:
    """This process's house-rule engine (its jq worker's machinery is imported on first use: only
    when house rules run, never at the start-up of a lint without them)."""
    from kartalint.rules._house_jq import engine  # lazy: start-up of lint

    return engine()


def _input(
    document: Document, rules: Sequence[HouseRule], fields: list[karta.JqField] | None = None, memo: bool = False
) -> tuple[list[HouseRule], dict[str, list[Path]], str, tuple[Recall, ...], list[Path] | None] | None:
    """The rules of ``rules`` that can run on a Karta document, its units' paths by kind, the
    program's input, with ``memo`` the findings remembered on its expressions and status mappings
    (per kind), and the paths of its components named by a string (``unit_span``; with component
    rules) (None: no rule can run, or the document is no JSON). ``fields``: the document's jq
    expressions, when lint has listed them (``Context.jq_fields``)."""
    house = _engine()
    runnable = house.runnable(rules)
    if not runnable:
        return None
    kinds = _kinds(runnable)
    data = document.data
    components = karta.components(data) if "component" in kinds or "status-mapping" in kinds else None
    if "expression" in kinds and fields is None:
        fields = list(karta.jq_fields(data))
    mappings = status_mappings(components) if components is not None and "status-mapping" in kinds else None
    remembered = house.memo_for(runnable) if memo else []
    try:  # the units of the kinds remembered, with what each is keyed by (``_house_memo``)
        keyed = {
            kind: [(field.path, field.expression) for field in fields or ()]
            if kind == "expression"  # (a status mapping by its JSON: the list of matchers as jq reads it)
            else [(path, _ENCODE(matchers)) for path, matchers in mappings or ()]
            for kind, _, _, _ in remembered
        }
    except (TypeError, ValueError, RecursionError):  # not JSON (its load findings say why): not run
        return None
    if memo and _cleared(house, runnable, data, components, mappings, fields, remembered, keyed):
        return None  # (no rule finds anything on it: nothing to send)
    paths = {
        kind: [path for path, _ in mappings]
        if kind == "status-mapping" and mappings is not None
        else units(data, kind, components, fields)
        for kind in kinds
    }
    named = None
    if components is not None and "component" in kinds:
        named = [component.path for component in components if isinstance(component.data.get("name"), str)]
    sent: dict[str, Sequence[Path | None]] = paths  # type: ignore[assignment]
    recalled: list[Recall] = []
    try:
        for kind, group, table, keyed_by_path in remembered:
            from kartalint.rules._house_memo import recall  # lazy: only when house rules run

            if keyed[kind]:
                kept, recalled_here = recall(group, table, keyed_by_path, keyed[kind], len(runnable))
                sent = {**sent, kind: kept}
                recalled.append(recalled_here)
        text = '{"d":' + _ENCODE(data) + ',"u":' + _ENCODE(sent)
        if recalled:  # the indexes of the units sent, per kind (the rest remembered): what the program walks
            walked = {remembered.kind: [index for index, _ in remembered.sent] for remembered in recalled}
            text += ',"e":' + _ENCODE(walked)
        text += "}"
    except (TypeError, ValueError, RecursionError):  # not JSON (its load findings say why): not run
        return None
    return runnable, paths, text, tuple(recalled), named


def _cleared(
    house: HouseEngine,
    rules: list[HouseRule],
    data: object,
    components: list[karta.ComponentRef] | None,
    mappings: list[tuple[Path, object]] | None,
    fields: list[karta.JqField] | None,
    remembered: list[Memo],
    keyed: dict[str, list[tuple[Path, str]]],
) -> bool:
    """Whether no rule of ``rules`` finds anything on the definition, known in this process
    (``_house_filter``: every rule's ``when`` compiled to Python, each clear on each of its units;
    a unit remembered clear is not run again, and one found clear is remembered: ``remembered``,
    the kinds remembered, and ``keyed``, their units' keys). False: the jq worker decides (a
    finding, a failure, or a rule or a value not copied here)."""
    from kartalint.rules._house_filter import Unsure, clear  # lazy: only when house rules run
    from kartalint.rules._house_memo import MAX_KEPT  # lazy: only when house rules run

    compiled = house.filters_for(rules)
    if compiled is None:
        return False
    tables = {kind: (table, keyed_by_path) for kind, _, table, keyed_by_path in remembered}
    variables: dict = {"definition": data}
    try:
        for kind, parts in compiled.items():
            if kind == "definition":
                found: list[tuple[Path, object]] = [((), data)]
            elif kind == "component":
                found = [(component.path, component.data) for component in components or ()]
            elif kind == "status-mapping":
                found = mappings or []
            else:
                found = [(field.path, field.expression) for field in fields or ()]
            table, keyed_by_path = tables.get(kind, (None, False))
            keys = keyed.get(kind)
            for index, (path, unit) in enumerate(found):
                key: object = None
                if table is not None and keys is not None:
                    key = (path, keys[index][1]) if keyed_by_path else keys[index][1]
                    kept = table.get(key)
                    if kept is not None:
                        if kept:
                            return False  # (a finding remembered there: the jq worker makes its message)
                        continue
                variables["path"] = path  # (a list when read: ``_house_filter``)
                for part in parts:
                    clear(part, unit, variables)
                if table is not None:
                    if len(table) >= MAX_KEPT:
                        table.clear()
                    table[key] = ()
    except (Unsure, TypeError, ValueError, RecursionError):
        return False
    return True


# The program's input as compact JSON, without the encoder's check for cycles (a fifth of its time
# on every definition): the loader refuses a recursive alias (yaml-alias-bomb), and were a document
# to refer to itself the encoder would stop at Python's recursion limit (RecursionError: not run, as
# the check's ValueError said).
_ENCODE = json.JSONEncoder(allow_nan=False, separators=(",", ":"), check_circular=False).encode

_KINDS: list = [None, ()]  # (the last list of rules, the kinds of unit they run on)


def _kinds(rules: list[HouseRule]) -> tuple[str, ...]:
    """The kinds of unit ``rules`` run on, in their order (found once for a list: the engine gives
    the same list of runnable rules from one definition to the next)."""
    if _KINDS[0] is not rules:
        _KINDS[:] = [rules, tuple(dict.fromkeys(rule.for_each for rule in rules))]
    kinds: tuple[str, ...] = _KINDS[1]
    return kinds


def start_house(document: Document, rules: Sequence[HouseRule]) -> HouseRun | None:
    """Send one Karta document to the house rules of ``rules`` that can run (None: none can,
    or the document is no JSON; those that cannot run are left to ``failures``)."""
    found = _input(document, rules)
    if found is None:
        return None
    runnable, paths, text, _, _ = found
    return HouseRun(document, paths, _engine().start(runnable, text))


def queue_house(
    document: Document, rules: Sequence[HouseRule], fields: list[karta.JqField] | None = None
) -> HouseRun | None:
    """Queue one Karta document for the house rules of ``rules`` that can run (``start_house``'s
    None), to be read with a batch of others (``HouseRun.done``, ``drain_house``). ``fields``: its
    jq expressions, when lint has listed them (``Context.jq_fields``)."""
    from kartalint.rules._house_records import Queued  # lazy: only when house rules run

    found = _input(document, rules, fields, memo=True)
    if found is None:
        return None
    runnable, paths, text, recalled, named = found
    source = document.source  # (not the document: what waits for a batch keeps none of its data)

    def locate(rule: HouseRule, failure: Failure) -> Failure:  # (rare: the file's label made only then)
        where = paths[rule.for_each][failure.unit] if failure.unit is not None else None
        return _located(failure, display_path(source.path), where)

    queued = Queued(runnable, text, locate, recalled)
    run = HouseRun(_without_data(document), paths, None, queued, named)
    _engine().queue(queued)
    return run


def _without_data(document: Document) -> Document:
    """The document as a queued run keeps it to place its findings: without its data (and its node
    tree when not composed yet: composed again from the file's text for a finding). A batch keeps a
    few dozen documents waiting; their data alive that long made the garbage collector walk it
    again and again (in lint of 1,000 definitions, 0.03 s of the house rules' 0.12 s)."""
    return Document(document.source, document.index, None, document._composed)


def finish_house(run: HouseRun) -> list[Finding]:
    """The findings of the house rules ``start_house`` sent the document to."""
    assert run.pending is not None
    house = _engine()
    outcome = house.finish(run.pending)
    findings = _findings(run.document, run.paths, outcome)
    label = display_path(run.document.source.path)
    for rule, failure in outcome.failed.items():
        where = run.paths[rule.for_each][failure.unit] if failure.unit is not None else None
        house.failed[rule] = _located(failure, label, where)
    return findings


def queue_file_end() -> Queued:
    """Mark the end of a file's queued documents: once ``done``, its ``failed`` says which rules
    had failed by then (``failures``)."""
    from kartalint.rules._house_records import Queued  # lazy: only when house rules run

    end = Queued([], None)
    _engine().queue(end)
    return end


def drain_house() -> None:
    """Read every queued document."""
    _engine().drain()


def _findings(
    document: Document, paths: dict[str, list[Path]], outcome: Outcome, named: list[Path] | None = None
) -> list[Finding]:
    """The findings of an outcome of the house rules on a document, placed (``named``: ``unit_span``'s)."""
    findings = []
    for rule, hits in outcome.hits.items():
        for index, message in hits:
            path = paths[rule.for_each][index]
            span = unit_span(document, rule.for_each, path, named)
            findings.append(
                Finding(
                    document.source.path,
                    span.line,
                    span.column,
                    span.end_line,
                    span.end_column,
                    rule.id,
                    rule.severity,
                    message,
                    tuple(path),
                    rule.hint,
                )
            )
    return findings


def _located(failure: Failure, label: str, path: Path | None) -> Failure:
    """A failure on a definition, saying which (and where in it)."""
    # lazy: only when the configuration has house rules (start-up of lint)
    from kartalint.load.house_rules import Failure

    if failure.static:  # (found when compiled: about the rule, not this definition)
        return failure
    where = f" at {format_path(path) or 'the document'}" if path is not None else ""
    return Failure(failure.part, f"{failure.detail} (on {label}{where})", failure.unit)


def failures(rules: Sequence[HouseRule], failed: dict[HouseRule, Failure] | None = None) -> list[Finding]:
    """``house-rule-failed`` findings of the rules of ``rules`` that could not run in this process
    (or by the end of a file queued: ``queue_file_end``), each at its place in the configuration file."""
    if failed is None:
        failed = _engine().failed
    if not failed:
        return []
    return [failure_finding(rule, failed[rule]) for rule in rules if rule in failed]


def failure_finding(rule: HouseRule, failure: Failure) -> Finding:
    """The finding of one house rule that could not run."""
    line, column = rule.when_at if failure.part == "when" else rule.message_at
    if failure.static:
        message = f"house rule '{rule.id}' cannot run: {failure.detail}; it is skipped"
    else:
        message = f"house rule '{rule.id}': `{failure.part}` failed: {failure.detail}; the rule is skipped"
    return Finding(
        display_path(rule.source),
        max(1, line),
        max(1, column),
        max(1, line),
        max(1, column) + 1,
        HOUSE_RULE_FAILED,
        _FAILED.severity,
        message,
        ("house-rules", rule.id, failure.part),
        _FAILED.hint,
    )
