"""The performance guard's bookkeeping (``bench/guard.py``): the figures recorded in
docs/performance.md and the verdict against them. Nothing is timed here (the benchmarks measure;
CONTRIBUTING says how to see the guard fail on a slowed engine, ``bench/slowed_engine.py``)."""

from __future__ import annotations

import os
import sys

import pytest
from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "bench"))

import guard


def test_the_page_records_each_guarded_figure_with_its_goal():
    recorded = guard.recorded()
    assert set(recorded) == set(guard.FIGURES)
    assert all(0 < value < 10 for value in recorded.values())
    with open(guard.PAGE, encoding="utf-8") as handle:
        section = handle.read().split("## Guarded figures", 1)[1].split("\n## ", 1)[0]
    for name in guard.FIGURES:  # every row says its goal, and whether the recorded figure meets it
        row = next(line for line in section.splitlines() if f"`{name}`" in line)
        assert "<=" in row and ("met" in row or "open" in row), row


@pytest.mark.parametrize(
    ("measured", "fails"),
    [(1.0, False), (1.24, False), (1.25, False), (1.26, True), (3.0, True)],
)
def test_a_figure_fails_when_worse_than_recorded_by_more_than_a_quarter(measured, fails):
    ((name, ratio, known, within),) = guard.verdicts({"engine": measured}, {"engine": 1.0})
    assert (name, ratio, known) == ("engine", measured, 1.0)
    assert within is not fails


def test_a_figure_without_a_recorded_value_fails():
    ((_, _, _, within),) = guard.verdicts({"throughput": 1.0}, {"engine": 1.0})
    assert not within


def test_the_report_says_which_figure_regressed(capsys):
    assert not guard.report({"engine": 2.0, "hook": 1.0}, {"engine": 1.0, "hook": 1.0})
    out = capsys.readouterr().out
    assert "engine" in out and "WORSE" in out.split("engine", 1)[1].splitlines()[0]
    assert "WORSE" not in out.split("hook", 1)[1].splitlines()[0]
    assert guard.report({"engine": 1.1, "hook": 0.9}, {"engine": 1.0, "hook": 1.0})


def test_a_recorded_figure_not_measured_is_named(capsys):
    """yamllint is a test dependency, not kartalint's: without it the hook-yamllint figure is not
    measured, and the report says so instead of leaving it out silently."""
    assert guard.report({"hook": 1.0}, {"hook": 1.0, "hook-yamllint": 1.0})
    assert "hook-yamllint  not measured" in capsys.readouterr().out


def test_the_median_of_rounds_taken_in_turn():
    times = {"ours": [2.0, 9.0, 3.0], "peer": [1.0, 3.0, 2.0]}  # one round on a loaded machine
    assert guard.median_ratio(times, "ours", "peer") == 2.0
    calls = []
    guard.in_turn({"a": lambda: calls.append("a") or 1.0, "b": lambda: calls.append("b") or 2.0}, 2)
    assert calls == ["a", "b", "a", "b"]


def test_ci_runs_the_quick_guard():
    """``.ci/run`` (what the GitHub workflow runs) runs the guard, so a regression shows at the
    commit that causes it."""
    with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as handle:
        lines = [line.strip() for line in handle if not line.lstrip().startswith("#")]
    assert "python3 bench/run.py --quick" in lines
