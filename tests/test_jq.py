"""The jq front-end: parser (spans, malformed input), static facts, bounded execution."""

from __future__ import annotations

import time

import pytest

from kartalint.jqlang import JqSyntaxError, analysis, parse, paths
from kartalint.jqlang.runner import BoundedRunner

WELL_FORMED = [
    ".a.b[0].c[]?",
    '.metadata.labels["example.com/role"] // "0"',
    ".spec | keys[] as $k | .[$k].template",
    "reduce .[] as $x (0; . + $x)",
    "foreach .[] as [$a, $b] (0; . + $a; [$a, $b])",
    '"x\\(.a + "y\\(.b)")z"',
    '@base64 "v=\\(.)"',
    "def f(g; $x): g + $x; f(.; 1)",
    ". as [$a] ?// {a: $a} | $a",
    "label $out | foreach .[] as $i (0; . + $i; if . > 3 then ., break $out else empty end)",
    'try error("x") catch .',
    '{(.a): 1, $x, "b": .c | .d, @text: 1, if: 2}',
    "if .a then 1 elif .b then 2 else 3 end",
    ".a[1:2], .[:-1], .[2:]",
    "-.a + 1 # a comment",
    'import "m" as m; .',
    ".a == 1 and (.b != 2 or .c)",
]

MALFORMED = [
    (".a[", 3),
    (".a |", 4),
    ('"abc', 0),
    ('"\\(.a', 4),
    (".a as $x", 8),
    ("if . then 1", 11),
    ("{a:}", 3),
    ("$", 0),
    ("@", 0),
    ("1 == 2 == 3", 7),
    ('"\\q"', 1),
    (".a )", 3),
    ("", 0),
]


@pytest.mark.parametrize("source", WELL_FORMED)
def test_parses_and_spans_cover_the_source(source):
    tree = parse(source)
    assert tree.start == 0
    assert source[: tree.end].rstrip() == source.split(" #")[0].rstrip()
    for node in tree.walk():
        assert 0 <= node.start <= node.end <= len(source)


@pytest.mark.parametrize("source,offset", MALFORMED)
def test_malformed_input_gives_positioned_error(source, offset):
    with pytest.raises(JqSyntaxError) as exc:
        parse(source)
    assert exc.value.start == offset
    assert exc.value.message


@pytest.mark.parametrize(
    "source", ["(" * 5000 + ".", "[" * 400 + "]" * 400, "-" * 5000 + "1", '"\\(' * 3000 + "1" + ')"' * 3000]
)
def test_deep_nesting_fails_cleanly_and_fast(source):
    start = time.perf_counter()
    with pytest.raises(JqSyntaxError):
        parse(source)
    assert time.perf_counter() - start < 2


def test_field_spans_are_exact():
    source = ".spec.replicatedJobs[] | .replicas * .template.spec.parallelism"
    found = paths.unguarded_arithmetic(parse(source))
    assert [source[r.start : r.end] for _, r in found] == [".replicas", ".template.spec.parallelism"]
    assert [r.text() for _, r in found] == [
        ".spec.replicatedJobs[].replicas",
        ".spec.replicatedJobs[].template.spec.parallelism",
    ]


def test_path_facts_and_guards():
    facts = paths.path_facts(parse('.spec.replicas // 1, (.spec.size? | . + 1), .metadata.labels["a"]'))
    by_text = {f.text(): f.guarded for f in facts}
    assert by_text[".spec.replicas"] is True
    assert by_text[".spec.size"] is True
    assert by_text[".metadata.labels.a"] is False


@pytest.mark.parametrize(
    "source,assignable",
    [
        (".spec.template", True),
        (".spec.x[] | .template", True),
        (".a | select(.b) | .c", True),
        ("keys[] as $k | .[$k].template", True),
        ("if .a then .b else .c end", True),
        (".a // .b", False),
        ("{a: .b}", False),
        (".a + 1", False),
        ("$x", False),
    ],
)
def test_assignable_paths(source, assignable):
    assert (analysis.first_non_path(parse(source)) is None) is assignable


@pytest.mark.parametrize(
    "source,unbounded",
    [
        ("def f: f; f", True),
        ("def f: 1 + f; f", True),
        ("def f: . + 1 | f; f", True),
        ("def f: if . > 3 then . else (. + 1 | f) end; f", False),
        ("def f: .[] | f; f", False),
        ("def f(x): x; f(.)", False),
    ],
)
def test_unbounded_recursion(source, unbounded):
    found = [p for p in analysis.safety(parse(source)) if p.rule == "jq-unbounded-recursion"]
    assert bool(found) is unbounded


@pytest.fixture(scope="module")
def runner():
    with BoundedRunner(timeout=1.5) as r:
        yield r


def test_runner_returns_all_results(runner):
    assert runner.run(".a[]", {"a": [1, 2, 3]}).results == [1, 2, 3]
    assert runner.run(".missing", {}).results == [None]


def test_runner_caps_results_like_upstream(runner):
    assert runner.run("[range(999)][]", None).ok
    result = runner.run("[range(1000)][]", None)
    assert result.error == "query results exceed the allowed number 1000"


def test_runner_reports_errors(runner):
    assert "cannot be multiplied" in runner.run(".a * .b", {"a": 1}).error
    assert runner.run("nosuch", {}).error.startswith("failed to compile JQ expression")


def test_runner_stops_never_ending_expressions_and_recovers(runner):
    for source in ("def f: f; f", "[limit(1e9; repeat(1))]", "last(repeat(1))"):
        start = time.perf_counter()
        result = runner.run(source, 1)
        assert result.timed_out, (source, result)
        assert time.perf_counter() - start < 5
    assert runner.run(". + 1", 1).results == [2]
    assert runner.restarts >= 3


def test_runner_has_an_empty_environment(runner, monkeypatch):
    monkeypatch.setenv("SECRET_TOKEN", "hunter2")
    with BoundedRunner(timeout=2) as fresh:
        assert fresh.run("$ENV | keys", None).results == [[]]
