"""The jq front-end: parser (spans, malformed input), static facts, bounded execution."""

from __future__ import annotations

import os
import time

import pytest
import yaml
from conftest import REFERENCE, ROOT

from kartalint.jqlang import JqSyntaxError, analysis, finite, parse, paths
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
    facts = paths.path_facts(parse('.spec.replicas // 1, (.spec.size? | . + 1), .metadata.labels["a"]')).reads
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


def test_a_compile_error_quotes_the_expression_as_written(runner):
    """libjq quotes the program it compiled; the sandbox's prelude is not the author's and is never
    shown: the line quoted is the expression, the caret under the place (column 23 of it)."""
    error = runner.run("(.spec.parallelism // 1", {}).error
    assert "def env" not in error and "$ENV" not in error, error
    quoted, caret = error.split("\n")[1:3]
    assert quoted == "    (.spec.parallelism // 1" and caret.index("^") == len(quoted) - 1, error
    assert "line 1, column 23:" in error


def test_runner_stops_never_ending_expressions_and_recovers(runner):
    for source in ("def f: f; f", "[limit(1e9; repeat(1))]", "last(repeat(1))"):
        start = time.perf_counter()
        result = runner.run(source, 1, timeout=0.3)  # never ends: any limit stops it (a short one is cheap)
        assert result.timed_out and "did not finish within 0.3 s" in result.error, (source, result)
        assert time.perf_counter() - start < 5
    assert runner.run(". + 1", 1).results == [2]
    assert runner.restarts >= 3


def test_runner_has_an_empty_environment(runner, monkeypatch):
    monkeypatch.setenv("SECRET_TOKEN", "hunter2")
    with BoundedRunner(timeout=2) as fresh:
        assert fresh.run("$ENV | keys", None).results == [[]]


def test_run_many_gives_each_text_what_a_single_run_gives(runner):
    program = 'if type == "number" then range(.) else .a.b end'
    texts = ["2", '{"a": {"b": 5}}', '"s"', "0", "1500", "[1]"] * 70  # more than one batch of 256
    streamed = dict(runner.run_many(program, texts))
    assert sorted(streamed) == list(range(len(texts)))
    for index, text in enumerate(texts[:6]):
        assert streamed[index] == runner.run_text(program, text), text
    assert streamed[4].error == "query results exceed the allowed number 1000"
    assert "Cannot index string" in streamed[2].error


def test_run_many_sends_a_few_texts_in_one_message_and_streams_many(runner, monkeypatch):
    """A list of up to one batch of texts (a fixture run, a mutant) is one round trip to the worker;
    an iterator, or more texts, starts with a small chunk so that the worker starts at once."""
    sizes: list[int] = []
    send = runner._send

    def counted(message):
        sizes.append(len(message[1]))
        return send(message)

    monkeypatch.setattr(runner, "_send", counted)
    texts = [str(i) for i in range(200)]
    assert [r.results for _, r in runner.run_many(". + 1", texts)] == [[i + 1] for i in range(200)]
    assert sizes == [200]
    sizes.clear()
    assert len(list(runner.run_many(". + 1", iter(texts)))) == 200
    assert sizes == [16, 64, 120]
    sizes.clear()
    assert len(list(runner.run_many(". + 1", texts * 2))) == 400
    assert sizes == [16, 64, 256, 64]


def test_run_many_stops_a_runaway_text_alone_and_names_it():
    texts = [str(i) for i in range(8)]
    with BoundedRunner(timeout=1) as r:
        start = time.perf_counter()
        results = dict(r.run_many("if . == 5 then last(repeat(1)) else . * 2 end", texts))
        assert time.perf_counter() - start < 6
        assert results[5].timed_out and "did not finish within 1 s" in results[5].error
        assert [results[i].results for i in range(8) if i != 5] == [[i * 2] for i in range(8) if i != 5]
        assert r.restarts == 1


def test_run_many_without_fork_reports_every_reply_and_still_names_the_runaway():
    """Where there is no fork (the worker is spawned), there is no shared progress record. A
    spawned worker's start counts in its first text's time: the limit is five times the start
    measured now (at least 2 s), so a loaded machine does not stop the texts around the runaway."""
    import multiprocessing

    with BoundedRunner(timeout=600) as r:
        r._ctx = multiprocessing.get_context("spawn")
        started = time.monotonic()
        assert r.run(".", 1).results == [1]
        start = time.monotonic() - started
    with BoundedRunner(timeout=max(2.0, 5 * start)) as r:
        r._ctx = multiprocessing.get_context("spawn")
        results = dict(r.run_many("if . == 1 then last(repeat(1)) else . end", ["0", "1", "2"]))
        assert r._progress is None
    assert results[1].timed_out and results[0].results == [0] and results[2].results == [2]


def test_run_many_limit_is_per_text_not_per_run():
    """Texts that each take a tenth of the limit and together twice the limit: none is stopped.

    The limit is set from the time a text takes now, so a slow or loaded machine moves both; a
    machine whose speed changes a lot in between gets another try (a limit per run fails them all)."""
    expression, text = "last(range(.))", "75000"  # a few hundredths of a second
    tries = []
    for _attempt in range(3):
        with BoundedRunner(timeout=600) as r:
            assert dict(r.run_many(expression, [text]))[0].results == [74999]  # started, compiled
            started = time.monotonic()
            list(r.run_many(expression, [text] * 3))
            each = (time.monotonic() - started) / 3
            r.timeout = max(0.5, 10 * each)
            count = int(2 * r.timeout / each) + 1
            started = time.monotonic()
            results = dict(r.run_many(expression, [text] * count + ["1"]))
            took = time.monotonic() - started
            stopped = [index for index, result in results.items() if not result.ok]
            if not stopped and took > r.timeout:
                assert len(results) == count + 1 and results[count].results == [0] and r.restarts == 0
                return
            tries.append(
                f"{count} texts of {each:.3f} s, limit {r.timeout:.2f} s: {took:.2f} s in all, stopped {stopped}"
            )
    pytest.fail("; ".join(tries))


def test_run_many_names_the_text_that_kills_the_worker():
    with BoundedRunner(timeout=5, memory_limit=1024**3) as r:
        results = dict(r.run_many('if . == 2 then ("x" * (. * 1e9) | length) else . end', ["1", "2", "3"]))
        assert "worker died" in results[1].error
        assert results[0].results == [1] and results[2].results == [3]


def test_run_many_abandoned_half_way_leaves_the_runner_usable(runner):
    stream = runner.run_many(". + 1", [str(i) for i in range(300)])
    assert next(stream)[1].results == [1]
    stream.close()
    assert runner.run(". * 3", 2).results == [6]
    assert dict(runner.run_many(". - 1", ["1", "2"]))[1].results == [1]


def test_finite_output_analysis():
    bounded = [".a", ".spec.jobs[]? | (.replicas // 1) * 2", "[.[] | select(.x)] | length", "..", "{a: .b} | keys"]
    unsure = ["range(5)", "repeat(1)", "def f: f; f", "limit(3; .[])", "reduce .[] as $x (0; . + $x)", ".a |= 1"]
    for source in bounded:
        assert finite.finite_output(parse(source)), source
    for source in unsure:
        assert not finite.finite_output(parse(source)), source


# -- the builtin table: libjq compilation proven without libjq -------------------------------------


def _corpus_expressions():
    import glob

    from kartalint import karta

    paths = [
        *glob.glob(os.path.join(ROOT, "catalog", "*.yaml")),
        *glob.glob(os.path.join(ROOT, "fixtures", "**", "*.yaml"), recursive=True),
        *glob.glob(os.path.join(ROOT, "kartalint", "rules", "examples", "*", "*.yaml")),
        *glob.glob(os.path.join(REFERENCE, "upstream-catalog", "*.yaml")),
        *glob.glob(os.path.join(REFERENCE, "upstream-samples", "*.yaml")),
    ]
    found = set()
    for path in paths:
        try:
            with open(path, encoding="utf-8") as handle:
                documents = list(yaml.load_all(handle, Loader=yaml.CSafeLoader))  # libyaml: faster
        except (yaml.YAMLError, UnicodeDecodeError, ValueError):  # the deliberately broken examples
            continue
        for doc in documents:
            if isinstance(doc, dict) and doc.get("kind") == "KartaFixture":
                doc = doc.get("definition")
            if isinstance(doc, dict) and doc.get("kind") == "Karta":
                found.update(f.expression for f in karta.jq_fields(doc))
    return sorted(found)


def test_builtin_table_is_libjqs_own_and_every_entry_compiles():
    import jq

    from kartalint.jqlang.builtins import BUILTINS

    listed = jq.compile("builtins").input_value(None).first()
    assert {(name.rsplit("/", 1)[0], int(name.rsplit("/", 1)[1])) for name in listed} == set(BUILTINS)
    for name, arity in BUILTINS:
        args = "; ".join(["."] * arity)
        jq.compile(f"{name}({args})" if arity else name)


def test_static_proof_is_sound_and_lint_findings_are_unchanged(monkeypatch):
    """Wherever the parser and the builtin table say a program compiles, libjq compiles it; and
    linting the corpus gives the same findings with the fast path and with libjq for everything."""
    import jq

    from kartalint.jqlang import parse_cached
    from kartalint.jqlang.builtins import statically_compiles
    from kartalint.lint import lint_paths
    from kartalint.project import Config
    from kartalint.rules import expressions

    proven = 0
    for expression in _corpus_expressions():
        tree, error = parse_cached(expression)
        if error is None and statically_compiles(tree):
            proven += 1
            jq.compile(expression)  # raises if the proof was wrong
    assert proven > 100
    # the definitions (the fixtures' objects hold no jq; their expressions are in the corpus above)
    targets = [os.path.join(ROOT, "catalog"), os.path.join(ROOT, "kartalint", "rules", "examples")]
    fast = lint_paths(targets, Config(), jobs=1)
    monkeypatch.setattr(expressions, "STATIC_PROOF", False)
    slow = lint_paths(targets, Config(), jobs=1)
    assert [f.to_dict() for f in fast.findings] == [f.to_dict() for f in slow.findings]


@pytest.mark.parametrize(
    "program",
    [
        "$undefined",
        "$__loc__",
        "nosuchfunction",
        "length(1)",
        "def f(g): g; f",
        "@nosuchformat",
        "break $nolabel",
        'import "a" as a; .',
        "reduce .[] as $x ($x; .)",
        "{(1): .x}",  # libjq folds the constant key and refuses it: "Cannot use number (1) as object key"
        "{([.a]): 1}",
    ],
)
def test_what_the_table_cannot_prove_is_left_to_libjq(program):
    from kartalint.jqlang import parse_cached
    from kartalint.jqlang.builtins import statically_compiles

    tree, error = parse_cached(program)
    assert error is not None or not statically_compiles(tree)


@pytest.mark.parametrize(
    "program",
    [
        "def f(g; $h): g + $h + h; f(.; 1)",
        "label $out | .[] | if . then break $out else . end",
        '.a as [$x, {b: $y}] ?// $x | [$x, $y] | @base64 "v\\(.)"',
        "reduce .[] as $x (0; . + $x) | {$__loc__: 1} | keys? // empty",
        "foreach .[] as {a: $v} (0; . + $v; [., $ENV.HOME])",
    ],
)
def test_programs_the_table_proves_do_compile(program):
    import jq

    from kartalint.jqlang import parse_cached
    from kartalint.jqlang.builtins import statically_compiles

    tree, error = parse_cached(program)
    assert error is None
    if statically_compiles(tree):
        jq.compile(program)


@pytest.mark.parametrize(
    ("key", "rule", "message"),
    [
        ("(1)", "jq-compile-error", "Cannot use number (1) as object key"),
        ("(null)", "jq-compile-error", "Cannot use null (null) as object key"),
        ("(-1)", "object-key-not-string", "always a number"),
        ("(.spec.roles | length)", "object-key-not-string", "always a number"),
        ("(.spec.roles | keys)", "object-key-not-string", "always an array"),
    ],
)
def test_an_object_key_that_is_never_a_string_is_found_by_lint(key, rule, message):
    """A constant key jq refuses passed lint and failed at evaluation (issue 34, item 17)."""
    from conftest import BASE_DEFINITION, lint_text

    text = BASE_DEFINITION.replace(
        "replicasPath: .spec.roles[] | (.replicas // 1)", f"replicasPath: '{{{key}: 1}} | length'"
    )
    [found] = [f for f in lint_text(text) if f.rule in ("jq-compile-error", "object-key-not-string")]
    assert (found.rule, str(found.severity)) == (rule, "error") and message in found.message
    line = text.splitlines()[found.line - 1]
    assert key[1:-1] in line[found.column - 1 :]
    for string_key in ['("a" + "b")', "(.spec.name)", '(.spec.roles | keys | join(","))', "(.x | tostring)"]:
        text = BASE_DEFINITION.replace(
            "replicasPath: .spec.roles[] | (.replicas // 1)", f"replicasPath: '{{{string_key}: 1}} | length'"
        )
        assert not [f for f in lint_text(text) if f.rule in ("jq-compile-error", "object-key-not-string")]
