"""evaluate_stream: objects of several definitions through one jq stream give, in input order, what
``Evaluator.evaluate`` gives one by one, whatever fails on the way (the summary's evaluation)."""

from __future__ import annotations

import itertools
import json
import time

import pytest
from conftest import base
from test_evaluate import _all_cases, role, status_def, trainer

from kartalint.evaluation import Evaluator
from kartalint.evaluation.stream import evaluate_stream
from kartalint.jqlang.runner import BoundedRunner


def _interleaved(cases):
    """The cases' (definition, object, pods) taken from each definition in turn (mixed messages)."""
    by_definition: dict[int, list] = {}
    for case in cases:
        by_definition.setdefault(id(case.definition.data), []).append(case)
    mixed = itertools.zip_longest(*by_definition.values())
    return [(c.definition.data, c.object, c.pods) for group in mixed for c in group if c is not None]


def _streamed(evaluator, items, hold=1024, texts=False):
    """The views of ``items`` through evaluate_stream, a job without a definition between every two."""
    jobs = []
    for index, (definition, obj, pods) in enumerate(items):
        text = json.dumps(obj, indent=4) if texts and isinstance(obj, dict) else None
        jobs.append((definition, obj, pods, text, ("object", index)))
        jobs.append((None, None, None, None, ("passed", index)))
    out = list(evaluate_stream(evaluator, jobs, hold))
    assert [tag for tag, _ in out] == [job[4] for job in jobs]  # every job, in input order
    assert all(view is None for tag, view in out if tag[0] == "passed")
    return [view for tag, view in out if tag[0] == "object"]


def _one_by_one(items):
    with Evaluator(timeout=5) as single:
        return [single.evaluate(*item).to_dict() for item in items]


def test_stream_equals_evaluate_on_every_fixture_and_recording_interleaved():
    """Every fixture and recording, each object next to another definition's (texts read as
    indented JSON, as a List's entries), and in segments of a few jobs (drained again and again)."""
    items = _interleaved(_all_cases())
    items = [(d, o, [] if p is None and i % 17 == 3 else p) for i, (d, o, p) in enumerate(items)]  # pods given: none
    assert len({id(definition) for definition, _, _ in items}) > 20
    assert sum(pods is not None for _, _, pods in items) > 10 and sum(pods is None for _, _, pods in items) > 200
    few = items[:60]
    with Evaluator(timeout=5) as evaluator:
        streamed = _streamed(evaluator, items, texts=True)
        small = _streamed(evaluator, few, hold=5)
    expected = _one_by_one(items)
    assert [v.to_dict() for v in streamed] == expected
    assert [v.to_dict() for v in small] == _one_by_one(few)


def test_stream_keeps_order_around_a_runaway_a_failing_expression_and_a_bad_definition():
    """A runaway object is stopped alone (the worker restarted mid-stream), a collected-whole
    expression that raises an error is run again alone once the texts in flight are done, a
    definition whose expression does not compile shares messages with a good one, and objects
    with pods or that jq cannot take wait for the worker: every view is evaluate's, in order."""
    hang = 'if .spec.hang then last(repeat(1)) else "x" end'
    runaway = status_def(
        {"running": [{"byExpression": {"expression": hang, "expectedResult": "y"}}, {"byPhase": "Running"}]}
    )
    failing = status_def(
        {"running": [{"byExpression": {"expression": '.spec.fail | error("no")', "expectedResult": "y"}}]}
    )
    broken = status_def({"running": [{"byExpression": {"expression": ".status | nosuch(", "expectedResult": "y"}}]})
    items = []
    for i in range(40):
        obj = trainer([role("w", i % 5 + 1, gpus=i % 3)])
        obj["spec"]["hang"] = i == 8
        obj["spec"]["fail"] = "yes" if i % 9 == 4 else None
        definition = (runaway, failing, broken, base())[i % 4]
        pods = [{"metadata": {"name": "p"}, "status": {"phase": "Running"}}] if i == 21 else None
        items.append((definition, {"kind": float("nan")} if i == 30 else obj, pods))
    with Evaluator(timeout=1) as evaluator:
        start = time.perf_counter()
        streamed = _streamed(evaluator, items)
        assert time.perf_counter() - start < 20
        assert evaluator.runner.restarts == 2  # the joined run, then the expression alone (as evaluate)
    with Evaluator(timeout=1) as single:
        expected = [single.evaluate(*item).to_dict() for item in items]
    assert [v.to_dict() for v in streamed] == expected
    assert "did not finish within 1 s" in streamed[8].root.errors[0].message
    assert any("no" in e.message for e in streamed[13].root.errors)  # failing: run alone
    assert all("nosuch" in streamed[i].root.errors[0].message for i in (2, 6, 10))
    assert streamed[21].pods_given and streamed[30].errors


def test_stream_reads_ahead_of_the_worker_and_holds_at_most_hold_jobs(ev_many):
    """The jobs are read while the worker runs the texts before (more than one chunk ahead of what
    is yielded), and never more than ``hold`` of them wait: memory is bounded by ``hold``."""
    evaluator, items = ev_many
    pulled = 0

    def jobs():
        nonlocal pulled
        for index, (definition, obj, pods) in enumerate(items):
            pulled += 1
            yield definition, obj, pods, None, index
            if index % 3 == 0:
                pulled += 1
                yield None, None, None, None, -1

    ahead = []
    tags = []
    for tag, _view in evaluate_stream(evaluator, jobs(), hold=100):
        tags.append(tag)
        ahead.append(pulled - len(tags))
    assert [t for t in tags if t != -1] == list(range(len(items)))
    assert max(ahead) <= 100 and max(ahead) > 16  # read ahead, within the bound


def test_stream_sends_several_definitions_in_one_message(ev_many, monkeypatch):
    evaluator, items = ev_many
    programs = []
    send = evaluator.runner._send

    def recorded(message):
        programs.append(message[0])
        return send(message)

    monkeypatch.setattr(evaluator.runner, "_send", recorded)
    other = status_def(
        {"running": [{"byExpression": {"expression": ".status.phase | ascii_downcase", "expectedResult": "running"}}]}
    )
    mixed = [(definition if i % 2 else other, obj, None) for i, (definition, obj, _) in enumerate(items)]
    streamed = _streamed(evaluator, mixed)
    assert any(isinstance(p, tuple) and len(set(p)) == 2 for p in programs)  # one program per text
    assert [v.to_dict() for v in streamed] == _one_by_one(mixed)


def test_run_pairs_gives_each_text_what_its_own_run_gives():
    pairs = [(e, str(i)) for i, e in enumerate([". + 1", "nosuch(", ". * 2", 'error("x")'] * 80)]
    with BoundedRunner(timeout=5) as runner:
        results = dict(runner.run_pairs(pairs))
        assert sorted(results) == list(range(len(pairs)))
        for index in range(8):
            assert results[index] == runner.run_text(*pairs[index]), pairs[index]
    assert results[1].error.startswith("failed to compile JQ expression") and results[6].results == [12]


def test_run_pairs_names_the_text_that_kills_the_worker():
    kill = 'if . == 2 then ("x" * (. * 1e9) | length) else . end'
    with BoundedRunner(timeout=5, memory_limit=1024**3) as runner:
        results = dict(runner.run_pairs([(". + 1", "1"), (kill, "2"), (kill, "3"), (". + 1", "4")]))
    assert "worker died" in results[1].error
    assert [results[i].results for i in (0, 2, 3)] == [[2], [3], [5]]


@pytest.fixture
def ev_many():
    definition = base()
    items = [(definition, trainer([role("w", i % 4 + 1, gpus=1)], uid=f"u-{i}"), None) for i in range(600)]
    with Evaluator(timeout=5) as evaluator:
        yield evaluator, items


def _broken(obj):
    """The object with what its definition reads gone wrong: the spec a string (every spec path
    fails or gives a wrong type), and the status conditions a string (the conditions path fails)."""
    out = json.loads(json.dumps(obj))
    out["spec"] = "gone"
    out["status"] = {"conditions": "none", "phase": 3}
    return out


def test_summary_entries_without_the_gang_part_equal_the_ones_of_the_whole_view():
    """The summary's views have no gang part (``evaluate_stream(gang=False)``): on every catalog
    fixture's object and every recorded object (../shared/reference, else the vendored subset),
    each one also broken (failing paths, wrong types) and without its spec (missing fields), the
    view is the whole view but for ``gang``, and the entry made of it is the one of the whole view."""
    from kartalint.evaluation.fleet import entry_of, summarise
    from kartalint.load.objects import LoadedObject

    cases = [c for c in _all_cases() if c.pods is None and isinstance(c.object, dict)]
    items = []
    for case in cases:
        missing = {k: v for k, v in case.object.items() if k != "spec"}
        items += [(case.definition, case.object), (case.definition, _broken(case.object)), (case.definition, missing)]
    jobs = [(d.data, obj, None, None, i) for i, (d, obj) in enumerate(items)]
    with Evaluator(timeout=5) as evaluator:
        lean = [view for _, view in evaluate_stream(evaluator, jobs, gang=False)]
        whole = [view for _, view in evaluate_stream(evaluator, jobs)]  # evaluate's views (tests above)
        chosen = {id(obj): d for d, obj in items}
        loaded = [LoadedObject(f"case:{i}", obj) for i, (_, obj) in enumerate(items)]
        entries = list(summarise(loaded, lambda o: chosen[id(o)], evaluator))
    assert any(v.gang is not None for v in whole) and all(v.gang is None for v in lean)
    assert [{**v.to_dict(), "gang": None} for v in whole] == [v.to_dict() for v in lean]
    expected = [entry_of(f"case:{i}", obj, d, v) for i, ((d, obj), v) in enumerate(zip(items, whole, strict=True))]
    assert entries == expected
    outcomes = {e.outcome for e in entries}
    assert outcomes == {"counted", "failed"} and sum(e.outcome == "failed" for e in entries) > len(cases) / 2
    assert len(cases) > 200 and sum(bool(e.roles) for e in entries) > len(cases)
