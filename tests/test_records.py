"""The records of ``kartalint.model`` (``Record``, ``Frozen``, ``Ordered``): what the dataclasses
they replace gave, equality, hash, order, ``repr``, ``replace``, refusal to change, pickling (``lint
-j`` hands findings and outcomes between processes)."""

from __future__ import annotations

import copy
import pickle

import pytest

from kartalint.jqlang.lexer import Token
from kartalint.jqlang.reads import PathRead
from kartalint.lint.pipeline import FileOutcome
from kartalint.load.documents import load_text
from kartalint.model import Finding, Record, Rule, Severity, Span
from kartalint.project import Config


def _finding(**changes: object) -> Finding:
    fields = dict(
        file="job.yaml", line=3, column=5, end_line=3, end_column=9, rule="jq-syntax-error", severity=Severity.ERROR
    )
    fields.update(message="unexpected end", path=("spec", "replicasPath"), hint="close it")
    fields.update(changes)
    return Finding(**fields)  # type: ignore[arg-type]


def test_a_finding_is_equal_hashed_and_ordered_on_every_field_in_order():
    one, same = _finding(), _finding()
    assert one == same and hash(one) == hash(same) and len({one, same}) == 1
    assert one != _finding(message="other") and one != _finding(severity=Severity.WARNING)
    assert one != ("job.yaml", 3, 5, 3, 9)  # not a tuple: only a finding equals a finding
    values = [_finding(line=4), _finding(file="a.yaml", line=9), _finding(line=3, column=1)]
    assert sorted(values) == sorted(values, key=lambda f: (f.file, f.line, f.column))
    assert Span(1, 2, 1, 3) < Span(1, 3, 1, 1) <= Span(1, 3, 1, 1) < Span(2, 1, 2, 2)
    with pytest.raises(TypeError):
        _ = Span(1, 1, 1, 2) < (1, 1, 1, 2)


def test_a_frozen_record_refuses_changes_and_replace_copies_it():
    finding = _finding()
    with pytest.raises(AttributeError, match="cannot assign to field 'line'"):
        finding.line = 9  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del finding.message
    with pytest.raises(AttributeError):
        finding.extra = 1  # type: ignore[attr-defined]
    warned = finding.replace(severity=Severity.WARNING)
    assert (warned.severity, finding.severity) == (Severity.WARNING, Severity.ERROR)
    assert warned == _finding(severity=Severity.WARNING)
    read = PathRead(("spec", "replicas"), 0, 14, False)
    assert read.replace(guarded=True) == PathRead(("spec", "replicas"), 0, 14, True, 0)
    assert Rule("r", Severity.INFO, "practice", "s").replace(origin="plugin x").origin == "plugin x"


def test_records_keep_their_fields_through_pickle_and_copy():
    outcome = FileOutcome("job.yaml", [_finding(), _finding(line=7)], 1, 0, 2, 0, skipped=True)
    for again in (pickle.loads(pickle.dumps(outcome)), copy.copy(outcome), copy.deepcopy(outcome)):
        assert again == outcome and again.skipped and again.findings[1].line == 7
    config = Config(root="/r", crds=["/r/crd.yaml"], max_file_size=10)
    assert pickle.loads(pickle.dumps(config)) == config
    assert config.replace(crds=[]) == Config(root="/r", max_file_size=10)


def test_a_mutable_record_is_compared_but_not_hashed_and_its_caches_are_not_fields():
    token = Token("IDENT", "map", 0, 3)
    assert token == Token("IDENT", "map", 0, 3, []) and token != Token("IDENT", "map", 0, 4)
    with pytest.raises(TypeError):
        hash(token)
    token.end = 4
    assert token == Token("IDENT", "map", 0, 4)
    source = load_text("a: 1\n", "x.yaml")
    source.position(2)  # fills the line starts (a cache: not a field)
    assert repr(source) == (
        "SourceFile(path='x.yaml', text='a: 1\\n', documents=[Document(source=..., index=0, data={'a': 1})], "
        "findings=[], streamed=True)"
    )
    assert repr(Span(1, 2, 3, 4)) == "Span(line=1, column=2, end_line=3, end_column=4)"


def test_a_record_whose_slots_and_annotations_differ_is_refused_when_made():
    with pytest.raises(TypeError, match="annotations"):

        class Odd(Record):
            __slots__ = ("a", "b")
            a: int
