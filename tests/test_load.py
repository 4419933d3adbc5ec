"""Loading: positions of findings in every scalar style, multi-document files, bad input."""

from __future__ import annotations

import os
import re

import pytest
import yaml
from conftest import BASE_DEFINITION, HAVE_SHARED_REFERENCE, REFERENCE, lint_text

from kartalint.load.documents import load_file, load_text
from kartalint.load.scalars import scalar_offsets


def _at(text: str, finding) -> str:
    """The source text a single-line finding points at."""
    line = text.splitlines()[finding.line - 1]
    return line[finding.column - 1 : finding.end_column - 1]


def _with_instance_id(scalar: str) -> str:
    return BASE_DEFINITION.replace("      instanceIdPath: .spec.roles[].name\n", f"      instanceIdPath: {scalar}\n")


def _only(findings, rule):
    found = [f for f in findings if f.rule == rule]
    assert len(found) == 1, [(f.rule, f.message) for f in findings]
    return found[0]


@pytest.mark.parametrize(
    "scalar",
    [
        ".spec.roles[] | del(.x) | .name",
        "'.spec.roles[] | del(.x) | .name'",
        '".spec.roles[] | del(.x) | .name"',
        '"\\u002espec.roles[] | del(.x) | .name"',
    ],
)
def test_jq_position_in_single_line_scalars(scalar):
    text = _with_instance_id(scalar)
    finding = _only(lint_text(text), "jq-forbidden-function")
    assert _at(text, finding) == "del(.x)"


def test_jq_position_in_literal_block_scalar():
    text = _with_instance_id("|\n        .spec.roles[]\n        | del(.x)\n        | .name")
    finding = _only(lint_text(text), "jq-forbidden-function")
    assert _at(text, finding) == "del(.x)"
    assert text.splitlines()[finding.line - 1].strip() == "| del(.x)"


def test_jq_position_in_folded_block_scalar():
    text = _with_instance_id(">-\n        .spec.roles[]\n        | .name\n        | ascii_downcase | nosuchfn")
    finding = _only(lint_text(text), "jq-compile-error")
    assert _at(text, finding) == "nosuchfn"


def test_jq_syntax_error_position_in_multiline_plain_scalar():
    text = _with_instance_id(".spec.roles[]\n        | .name | (")
    finding = _only(lint_text(text), "jq-syntax-error")
    assert finding.line == text.splitlines().index("        | .name | (") + 1


def test_positions_in_second_document_of_a_stream():
    other = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"
    bad = BASE_DEFINITION.replace("ownerRef: trainer", "ownerRef: nobody")
    text = other + "---\n" + BASE_DEFINITION + "---\n" + bad
    findings = lint_text(text)
    finding = _only(findings, "unknown-owner-ref")
    offset = len((other + "---\n" + BASE_DEFINITION + "---\n").splitlines())
    assert finding.line == offset + bad.splitlines().index("      ownerRef: nobody") + 1
    assert _at(text, finding) == "nobody"
    source = load_text(text, "x.yaml")
    assert len(source.documents) == 3 and len(source.karta_documents) == 2


def test_unknown_field_points_at_key():
    text = BASE_DEFINITION.replace("      ownerRef: trainer\n", "      ownerRef: trainer\n      ownerName: trainer\n")
    finding = _only(lint_text(text), "unknown-field")
    assert _at(text, finding) == "ownerName"
    assert finding.path == ("spec", "structureDefinition", "childComponents", 0, "ownerName")


def test_missing_field_points_at_parent_key():
    text = BASE_DEFINITION.replace("          statusFieldName: status\n", "")
    finding = _only(lint_text(text), "condition-field-name-missing")
    assert _at(text, finding) == "conditionsDefinition"


def test_duplicate_key():
    text = BASE_DEFINITION.replace("      ownerRef: trainer\n", "      ownerRef: trainer\n      ownerRef: trainer\n")
    finding = _only(lint_text(text), "yaml-duplicate-key")
    assert "first defined on line" in finding.message
    assert _at(text, finding) == "ownerRef"


def test_tab_indentation_is_a_syntax_error_with_hint():
    text = "apiVersion: run.ai/v1alpha1\nkind: Karta\nspec:\n\tstructureDefinition: {}\n"
    finding = _only(lint_text(text), "yaml-syntax-error")
    assert (finding.line, finding.column) == (4, 1)
    assert "tabs" in finding.hint


def test_syntax_error_after_a_good_document_keeps_the_good_one():
    text = BASE_DEFINITION + "---\nkind: Karta\nspec: [unclosed\n"
    source = load_text(text, "x.yaml")
    assert len(source.karta_documents) == 1
    assert [f.rule for f in source.findings] == ["yaml-syntax-error"]


def test_non_utf8(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_bytes(b"kind: Karta\nmetadata:\n  name: caf\xe9\n")
    source = load_file(str(path))
    finding = _only(source.findings, "yaml-encoding")
    assert (finding.line, finding.column) == (3, 12)


def test_empty_and_comment_only_files(tmp_path):
    for content in ("", "# nothing here\n\n"):
        path = tmp_path / "empty.yaml"
        path.write_text(content)
        assert [f.rule for f in load_file(str(path)).findings] == ["yaml-empty"]


def test_file_over_size_limit_is_refused_without_reading(tmp_path):
    path = tmp_path / "huge.yaml"
    path.write_text("a: " + "x" * 2000 + "\n")
    source = load_file(str(path), max_bytes=1000)
    assert [f.rule for f in source.findings] == ["yaml-too-large"]
    assert source.documents == []


def test_billion_laughs_is_refused():
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [" + ", ".join([f"*{prev}"] * 10) + "]")
    source = load_text("\n".join(lines) + "\n", "bomb.yaml")
    assert [f.rule for f in source.findings] == ["yaml-alias-bomb"]
    assert source.documents == []


def test_recursive_alias_is_refused():
    source = load_text("a: &a [1, *a]\n", "rec.yaml")
    assert [f.rule for f in source.findings] == ["yaml-alias-bomb"]


def test_timestamps_stay_strings():
    source = load_text("t: 2026-09-17T06:48:43Z\n", "t.yaml")
    assert source.documents[0].data == {"t": "2026-09-17T06:48:43Z"}


def test_deep_nesting_does_not_crash():
    text = "a: " + "[" * 5000 + "]" * 5000 + "\n"
    source = load_text(text, "deep.yaml")
    assert source.findings[0].rule in ("yaml-syntax-error", "yaml-too-deep") and not source.documents


@pytest.mark.parametrize(
    "text",
    [
        "k: plain with  double space\n",
        "k: plain\n  folded over\n\n  two lines\n",
        "k: 'it''s quoted\n  and folded'\n",
        'k: "esc \\t \\" \\\\ \\u00e9 \\x41 \\\n   joined"\n',
        "k: |\n  line one\n    indented\n\n  last\n",
        "k: |-\n  strip\n",
        "k: |+\n  keep\n\n",
        "k: >\n  folded\n  text\n\n    more indented\n  back\n",
        "k: >2-\n    two extra\n   spaces\n",
    ],
)
def test_scalar_offsets_reproduce_value(text):
    loader = yaml.SafeLoader(text)
    node = loader.get_single_node().value[0][1]
    offsets = scalar_offsets(text, node.start_mark.index, node.end_mark.index, node.style, node.value)
    assert offsets is not None
    assert len(offsets) == len(node.value) + 1
    for char, offset in zip(node.value, offsets, strict=False):
        if char not in "\n \t":
            assert text[offset] == char or text[offset] == "\\" or text[offset] == "'"


def scalars_mapped_back(source) -> int:
    """How many scalars of a loaded file there are; each maps back to its place in the text."""
    total = 0
    for doc in source.documents:
        stack = [doc.node]
        while stack:
            node = stack.pop()
            if isinstance(node, yaml.ScalarNode):
                total += 1
                assert source.offsets_for(node) is not None, (source.path, node.start_mark)
            elif isinstance(node, yaml.MappingNode):
                for k, v in node.value:
                    stack += [k, v]
            else:
                stack += node.value
    return total


# -- plain YAML without a node tree (objects): the same data, or the full loader ----------------


def _full(text):
    source = load_text(text, "x")
    return source, [d.data for d in source.documents]


@pytest.mark.slow  # a walk over all the reference data
def test_plain_loader_gives_the_full_loaders_data_on_every_yaml_file_and_every_scalar_maps_back():
    import glob

    from conftest import ROOT

    from kartalint.load.plain import load_plain

    paths = [
        p
        for pattern in (
            "fixtures/**/*.yaml",
            "catalog/*.yaml",
            "tests/data/**/*.yaml",
            "kartalint/rules/examples/*/*.yaml",
        )
        for p in glob.glob(os.path.join(ROOT, pattern), recursive=True)
    ]
    paths += glob.glob(os.path.join(REFERENCE, "**", "*.yaml"), recursive=True)
    plain_count = reference_scalars = 0
    for path in sorted(set(paths)):
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
        plain = load_plain(text)
        source, data = _full(text)
        if plain is not None:
            assert not [f for f in source.findings if f.rule.startswith("yaml-")], path  # anything odd is not plain
            assert plain == data, path
            plain_count += 1
        if path.startswith(REFERENCE + os.sep):  # one walk over the reference data for both checks
            reference_scalars += scalars_mapped_back(source)
    assert plain_count > 300
    assert reference_scalars > (100_000 if HAVE_SHARED_REFERENCE else 10_000)  # the full set, or the vendored subset


@pytest.mark.parametrize(
    "text",
    [
        "a: &x 1\nb: *x\n",  # anchors and aliases
        "a: 1\na: 2\n",  # duplicate key
        "1: a\n",  # non-string key
        "a: !!binary aGk=\n",  # explicit tag
        "base: &b {x: 1}\nc:\n  <<: *b\n",  # merge key
        "a: [1, 2\n",  # syntax error
        "a: .nan\n",  # a value JSON cannot hold
        "",  # empty
        "[" * 300 + "]" * 300,  # too deep
    ],
)
def test_plain_loader_leaves_anything_odd_to_the_full_loader(text):
    from kartalint.load.plain import load_plain

    assert load_plain(text) is None


def test_describe_of_a_large_object_reads_it_without_a_node_tree(tmp_path):
    """A 1 MB JobSet: objects come through the plain loader, with the same result as before."""
    from kartalint.load import objects as object_loading

    obj = {
        "apiVersion": "v1",
        "kind": "List",
        "items": [
            {"kind": "Pod", "metadata": {"name": f"p{i}", "labels": {f"l{j}": "v" * 30 for j in range(20)}}}
            for i in range(1000)
        ],
    }
    path = tmp_path / "pods.yaml"
    path.write_text(yaml.safe_dump(obj))
    loaded, errors = object_loading.load_objects(str(path))
    assert errors == [] and len(loaded) == 1000 and loaded[3].origin.endswith("pods.yaml.items[3]")
    assert loaded[999].data == obj["items"][999]


def test_document_kinds_on_data_and_text(tmp_path):
    """load/kinds tells a definition from a fixture from anything else, parsed or not."""
    from kartalint.load.kinds import FIXTURE_TEXT, KARTA_TEXT, is_fixture, is_karta, mentions_karta

    assert is_karta({"kind": "Karta"}) and is_karta({"spec": {"structureDefinition": {}}})
    assert not is_karta({"kind": "Deployment", "spec": {"structureDefinition": {}}}) and not is_karta([])
    assert is_fixture({"kind": "KartaFixture"}) and not is_fixture({"kind": "Karta"})
    broken = tmp_path / "broken.yaml"
    broken.write_text("kind: Karta\nspec: [unclosed\n")
    unrelated = tmp_path / "values.yaml"
    unrelated.write_text("replicas: 3\n" * 200_000)  # over a read chunk: the sniff reads in pieces
    assert mentions_karta(str(broken), None) and not mentions_karta(str(unrelated), None)
    assert mentions_karta("x.yaml", "kind: KartaFixture\n") and not mentions_karta("-", None)
    assert re.search(KARTA_TEXT, "kind: Karta\n") and not re.search(KARTA_TEXT, "kind: KartaFixture\n")
    assert re.search(KARTA_TEXT, "apiVersion: run.ai/v1alpha1\nkind: Karta\n")  # a line of its own, anywhere
    assert re.search(FIXTURE_TEXT, "apiVersion: kartalint/v1\nkind: KartaFixture\n")


_NODE_CASES = [
    "a: 1\na: 2\nb: {c: 1, c: 2}\n",  # duplicate keys, nested
    "1: x\ntrue: y\nnull: z\n'q': w\n",  # keys that are not strings
    "<<: {a: 1}\nb: 2\n",  # a merge key (its mapping inline: no anchor)
    "? [a, b]\n: 1\n? {k: v, k: w}\n: 2\n",  # complex keys (a key mapping with a duplicate)
    "a: " + "[" * 300 + "]" * 300 + "\n",  # deeper than the limit
    "a: " + "{b: " * 255 + "1" + "}" * 255 + "\n",  # at the limit
    "- [1, 2, {x: 1, x: 1}]\n- {y: [{z: 1, z: 2}]}\n",
]


def test_node_checks_of_a_text_without_anchors_equal_the_checks_that_follow_aliases():
    """``node_problems`` walks an alias-free text (no ``&``) as a tree, without the bookkeeping of
    shared nodes: the findings, in their order, are those of the walk that follows aliases, on every
    YAML file of the project and on texts made to have each finding."""
    import glob

    from conftest import ROOT

    from kartalint.load import nodes
    from kartalint.load.loader import Loader

    paths = [
        p
        for pattern in ("fixtures/**/*.yaml", "catalog/*.yaml", "tests/data/**/*.yaml", "kartalint/rules/examples/*/*")
        for p in glob.glob(os.path.join(ROOT, pattern), recursive=True)
        if p.endswith((".yaml", ".yml"))
    ]
    texts = []
    for path in sorted(set(paths)):
        with open(path, encoding="utf-8", errors="replace") as handle:
            texts.append((path, handle.read()))
    texts += [(f"case {i}", text) for i, text in enumerate(_NODE_CASES)]
    walked = found = 0
    for name, text in texts:
        if "&" in text:
            continue
        source = load_text(text, name, keep=False)
        loader = Loader(text)
        try:
            while loader.check_node():
                node = loader.get_node()
                tree = list(nodes._tree_problems(source, node))
                graph = list(nodes._graph_problems(source, node))
                assert tree == graph, name
                walked += 1
                found += len(tree)
        except yaml.YAMLError:
            pass  # (a broken example: its documents before the error were compared)
        finally:
            loader.dispose()
    assert walked > 300 and found >= 8


def _streams():
    """Multi-document texts whose plain documents have findings before and after one that is not
    plain (an anchor, a duplicate key, a syntax error), and the same documents alone."""
    broken = BASE_DEFINITION.replace("podTemplateSpecPath: .spec.roles[].template", "podTemplateSpecPath: .spec.roles[")
    unknown = BASE_DEFINITION.replace("spec:\n  structureDefinition:", "spec:\n  bogusField: 1\n  structureDefinition:")
    anchored = BASE_DEFINITION.replace("name: worker", "name: &w worker").replace("ownerRef: trainer", "ownerRef: *w")
    duplicated = BASE_DEFINITION.replace("  name: example-com-trainer-v1", "  name: a\n  name: b")
    yield "---\n".join([broken, unknown, anchored, broken])
    yield "---\n".join([unknown, duplicated, broken])
    yield "---\n".join([broken, unknown, "a: [1, 2\n", broken])
    yield "---\n".join([unknown, broken, unknown])
    yield from (broken, unknown, anchored, duplicated)


def test_lint_reads_plain_documents_without_node_trees_and_places_findings_as_the_full_loader_does():
    """lint streams a file (``SourceFile.stream``): plain documents are read from libyaml's events
    and composed again only for the positions of their findings; from the first document that is
    not plain, the full loader reads on. The findings, their places and the load problems are those
    of the full loader reading every document with its node tree, on every YAML file of the
    project and on streams that mix both."""
    import glob

    from conftest import ROOT

    from kartalint.lint.pipeline import lint_source
    from kartalint.project import Config

    texts = []
    for pattern in ("fixtures/**/*.yaml", "catalog/*.yaml", "tests/data/**/*.yaml", "kartalint/rules/examples/*/*"):
        for path in sorted(glob.glob(os.path.join(ROOT, pattern), recursive=True)):
            if path.endswith((".yaml", ".yml")):
                with open(path, encoding="utf-8", errors="replace") as handle:
                    texts.append((path, handle.read()))
    texts += [(f"stream {i}.yaml", text) for i, text in enumerate(_streams())]
    placed = 0
    for name, text in texts:
        streamed = lint_source(load_text(text, name, keep=False), Config(), strict_files=True)
        full = lint_source(load_text(text, name, keep=True), Config(), strict_files=True)
        assert streamed == full, name
        placed += sum(1 for f in full.findings if f.line > 1)
    assert placed > 60
