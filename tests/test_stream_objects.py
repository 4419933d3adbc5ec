"""Objects read one at a time (`load.objects.stream_objects`, for `describe --summary`): the same
objects as the whole-file reader, in YAML and JSON, with every problem said at its place."""

from __future__ import annotations

import glob
import io
import json
import os
import sys

import pytest
import yaml
from conftest import REFERENCE, ROOT

from kartalint.load.objects import LoadedObject, LoadProblem, load_objects, stream_objects


def streamed(path, max_bytes=5 * 1024 * 1024):
    found = list(stream_objects(str(path), max_bytes))
    return [o for o in found if isinstance(o, LoadedObject)], [p.message for p in found if isinstance(p, LoadProblem)]


def reference_files():
    paths = glob.glob(os.path.join(REFERENCE, "**", "*.yaml"), recursive=True)
    paths += glob.glob(os.path.join(ROOT, "fixtures", "**", "*.yaml"), recursive=True)
    return sorted(paths)


@pytest.mark.slow  # a walk over all the reference data
def test_the_same_objects_as_the_whole_file_reader_on_every_reference_file(tmp_path):
    checked = 0
    for path in reference_files():
        objects, problems = streamed(path)
        whole, errors = load_objects(path)
        assert [o.data for o in objects] == [o.data for o in whole], path
        assert bool(problems) == bool(errors), path
        for loaded in objects:  # the origin is the line the object starts on
            file, _, line = loaded.origin.rpartition(":")
            assert file == path and int(line) >= 1
        # as `kubectl get -o json` prints them
        as_json = tmp_path / "x.json"
        as_json.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [o.data for o in whole]}, indent=4))
        objects, problems = streamed(as_json)
        assert [o.data for o in objects] == [o.data for o in whole] and problems == [], path
        checked += 1
    assert checked > 50


def test_origins_are_the_lines_the_objects_start_on(tmp_path):
    text = "apiVersion: v1\nitems:\n- kind: A\n  metadata: {name: a}\n- kind: B\nkind: List\n---\nkind: C\n"
    (tmp_path / "x.yaml").write_text(text)
    objects, problems = streamed(tmp_path / "x.yaml")
    assert [(o.origin, o.data["kind"]) for o in objects] == [(f"{tmp_path}/x.yaml:3", "A"), (f"{tmp_path}/x.yaml:5", "B"), (f"{tmp_path}/x.yaml:8", "C")]  # fmt: skip
    assert problems == []
    (tmp_path / "x.json").write_text(json.dumps({"items": [{"kind": "A"}, {"kind": "B"}], "kind": "List"}, indent=2))
    objects, _ = streamed(tmp_path / "x.json")
    assert [o.origin.rsplit(":", 1)[1] for o in objects] == ["3", "6"]


def test_what_the_plain_reader_does_not_take_goes_to_the_full_loader(tmp_path):
    text = (
        "apiVersion: v1\nkind: List\nitems:\n- kind: A\n  metadata: {name: a}\n"
        "- kind: B\n  spec: &s {x: 1}\n  other: *s\n- kind: C\n"
    )
    (tmp_path / "anchors.yaml").write_text(text)
    objects, problems = streamed(tmp_path / "anchors.yaml")
    assert [o.data for o in objects] == [o.data for o in load_objects(str(tmp_path / "anchors.yaml"))[0]]
    assert objects[1].data["other"] == {"x": 1} and problems == []
    # in a file over max-file-size the anchors stop the reading, said at the object's place
    objects, problems = streamed(tmp_path / "anchors.yaml", max_bytes=60)
    assert [o.data["kind"] for o in objects] == ["A"]
    assert problems == [
        f"{tmp_path}/anchors.yaml:6:3: this document uses anchors, aliases, merge keys, explicit tags or "
        "repeated keys, which are read only in files up to max-file-size (60 bytes); nothing from here on is read"
    ]


def test_a_syntax_error_keeps_the_objects_before_it_and_says_where(tmp_path):
    text = "kind: A\n---\nkind: B\n---\nkind: [C\n"
    (tmp_path / "bad.yaml").write_text(text)
    objects, problems = streamed(tmp_path / "bad.yaml")
    whole, errors = load_objects(str(tmp_path / "bad.yaml"))
    assert [o.data for o in objects] == [{"kind": "A"}, {"kind": "B"}] == [o.data for o in whole]
    assert problems == errors and problems[0].startswith(f"{tmp_path}/bad.yaml:6:1: YAML syntax error")
    objects, problems = streamed(tmp_path / "bad.yaml", max_bytes=10)  # too large for the full loader
    assert [o.data for o in objects] == [{"kind": "A"}, {"kind": "B"}]
    assert problems == [
        f"{tmp_path}/bad.yaml:6:1: YAML syntax error: did not find expected ',' or ']'; nothing from here on is read"
    ]


def test_an_object_over_the_limit_is_left_out_and_the_rest_read(tmp_path):
    items = [{"kind": "A", "metadata": {"name": "small"}}, {"kind": "B", "data": "x" * 500}, {"kind": "C"}]
    for name, text in (
        ("big.yaml", yaml.safe_dump({"apiVersion": "v1", "items": items, "kind": "List"})),
        ("big.json", json.dumps({"apiVersion": "v1", "items": items, "kind": "List"}, indent=2)),
    ):
        (tmp_path / name).write_text(text)
        objects, problems = streamed(tmp_path / name, max_bytes=200)
        assert [o.data["kind"] for o in objects] == ["A", "C"], name
        assert len(problems) == 1 and "object is over the 200-byte limit (max-file-size): not read" in problems[0]


def test_not_a_list_though_it_has_items_and_entries_that_are_not_objects(tmp_path):
    (tmp_path / "odd.yaml").write_text("items: [{kind: A}, 3]\nkind: Thing\n---\n- 1\n")
    objects, problems = streamed(tmp_path / "odd.yaml")
    assert [o.data for o in objects] == [{"kind": "A"}]
    assert problems == [
        f"{tmp_path}/odd.yaml:1:20: items[1] is not a Kubernetes object",
        f"{tmp_path}/odd.yaml:1:1: a document of kind 'Thing' with a top-level items list: its entries were read as objects of a List",
        f"{tmp_path}/odd.yaml:4:1: expected a Kubernetes object (a mapping), got list",
    ]
    (tmp_path / "empty-items.yaml").write_text("items: []\nkind: Thing\n")
    objects, _ = streamed(tmp_path / "empty-items.yaml")
    assert [o.data for o in objects] == [{"items": [], "kind": "Thing"}]


@pytest.mark.parametrize("name", ["x.yaml", "x.json"])
def test_bytes_that_are_not_utf8_are_said_with_their_offset(tmp_path, name):
    text = b'{"kind": "A"}\n' if name.endswith(".json") else b"kind: A\n"
    (tmp_path / name).write_bytes(text[:-2] + b"\xff" + text[-2:])
    objects, problems = streamed(tmp_path / name)
    assert objects == [] and len(problems) == 1
    assert f"file is not valid UTF-8: byte 0xff at offset {len(text) - 2}" in problems[0]


def test_json_that_is_not_one_object_goes_to_the_full_loader(tmp_path):
    (tmp_path / "two.json").write_text('{"kind": "A"}\n{"kind": "B"}\n')
    objects, problems = streamed(tmp_path / "two.json")
    whole, errors = load_objects(str(tmp_path / "two.json"))
    assert [o.data for o in objects] == [o.data for o in whole] == [{"kind": "A"}]
    assert problems == errors and problems[0].startswith(f"{tmp_path}/two.json:2:1: YAML syntax error")
    (tmp_path / "flow.yaml").write_text("{kind: A, metadata: {name: a}}\n")  # YAML flow style, not JSON
    objects, problems = streamed(tmp_path / "flow.yaml")
    assert [o.data for o in objects] == [{"kind": "A", "metadata": {"name": "a"}}] and problems == []


def test_stdin_is_read_once_and_in_pieces(monkeypatch):
    items = [{"kind": "Pod", "metadata": {"name": f"p{i}"}} for i in range(300)]
    text = yaml.safe_dump({"apiVersion": "v1", "items": items, "kind": "List"})
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    objects = list(stream_objects("-"))
    assert [o.data for o in objects] == items and objects[0].origin == "<stdin>:3"


def test_a_list_is_read_one_object_at_a_time(tmp_path):
    """Reading a List holds one object (and libyaml's buffer), not the List: the peak of memory
    while streaming is a small part of reading the file whole."""
    import tracemalloc

    items = [{"kind": "Pod", "metadata": {"name": f"p{i}", "annotations": {"a": "x" * 1000}}} for i in range(2000)]
    (tmp_path / "pods.yaml").write_text(
        yaml.dump({"apiVersion": "v1", "items": items, "kind": "List"}, Dumper=yaml.CSafeDumper)
    )
    (tmp_path / "pods.json").write_text(json.dumps({"apiVersion": "v1", "items": items, "kind": "List"}))

    def peak(read):
        tracemalloc.start()
        try:
            read()
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    whole = peak(lambda: load_objects(str(tmp_path / "pods.yaml")))
    for name in ("pods.yaml", "pods.json"):
        counted: list[int] = []
        path = str(tmp_path / name)
        one_at_a_time = peak(lambda path=path, counted=counted: counted.append(sum(1 for _ in stream_objects(path))))
        assert counted == [2000]
        assert one_at_a_time < whole / 3, (name, one_at_a_time, whole)


def test_describe_of_a_scalar_safe_loading_cannot_construct_says_where_instead_of_a_traceback(tmp_path, capsys):
    """Regression: `x: =` (YAML's value tag) made the plain reader raise KeyError."""
    from kartalint.cli import main

    (tmp_path / "eq.yaml").write_text("apiVersion: example.com/v1\nkind: Trainer\nmetadata: {name: t}\nspec: {x: =}\n")
    code = main(["describe", str(tmp_path / "eq.yaml")])
    err = capsys.readouterr().err
    assert code == 2 and f"{tmp_path}/eq.yaml:4:11:" in err and "Traceback" not in err


def test_a_folder_or_a_missing_file_is_said(tmp_path):
    assert streamed(tmp_path) == ([], [f"{tmp_path}: a folder: give the files in it (e.g. folder/*.yaml)"])
    assert streamed(tmp_path / "none.yaml") == ([], [f"{tmp_path}/none.yaml: no such file or directory"])
