"""``describe --summary --compare FILE``: the user's figures are read compactly and stay exact.

The fleet is the catalog's running batch/v1 Job (``ml/train-once``: 2 pods x 4 GPUs, 8 GPUs, 16
CPUs as millicores 16000); the files are what a quota script could write for it.
"""

from __future__ import annotations

import json
import os
import random
import tracemalloc

import yaml
from conftest import ROOT
from hypothesis import given
from hypothesis import strategies as st

from kartalint.cli import main
from kartalint.diff import figures
from kartalint.diff.figures import FigureRows, key_of, read_expected, stored_key

JOB = os.path.join(ROOT, "fixtures", "batch-job-v1", "running.yaml")


def _fleet(tmp_path) -> None:
    with open(JOB, encoding="utf-8") as handle:
        job = yaml.safe_load(handle)["object"]
    (tmp_path / "fleet.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [job]}))


def _compare(tmp_path, monkeypatch, capsys, text: str, *more: str) -> tuple[int, str, str]:
    monkeypatch.chdir(tmp_path)
    _fleet(tmp_path)
    (tmp_path / "quota.csv").write_text(text, newline="")
    code = main(["describe", "fleet.yaml", "--summary", "--compare", "quota.csv", *more])
    out, err = capsys.readouterr()
    return code, out, err


def test_decimal_figures_add_up_exactly(tmp_path, monkeypatch, capsys):
    """Eighty lines of 0.1 GPU are 8 GPUs (as floats they add up to 7.999999999999988); a huge
    integer and its opposite written with an exponent cancel out; -0, 1e3 and -1000, +4 and .5 are
    numbers; cpu quantities with fractions of a millicore add up to whole CPUs."""
    lines = ["namespace,kind,name,gpus,cpu,replicas"]
    lines += ["ml,Job,train-once,0.1,,"] * 80
    lines += ["ml,Job,train-once,100000000000000000000000000000000,0.0001m,1e3",
              "ml,Job,train-once,-1e32,15999.9999m,-1000",
              "ml,Job,train-once,-0,,-0",
              "ml,Job,train-once,,,+1.5",
              "ml,Job,train-once,,,.5",
              "ml,Job,other,0.2,,",
              "ml,Job,other,-0.1,,",
              "ml,Job,other,-0.1,,"]  # fmt: skip
    code, out, err = _compare(tmp_path, monkeypatch, capsys, "\n".join(lines) + "\n")
    assert code == 0 and "the same figures as the summary" in out, out + err


def test_a_figure_off_by_a_tiny_fraction_differs_and_keeps_its_digits(tmp_path, monkeypatch, capsys):
    """8 plus 10^-30 GPUs is not 8: a difference (the file's figure as the JSON document writes it),
    and so is the total; a huge whole figure is written whole."""
    text = (
        "namespace,kind,name,gpus\n"
        "ml,Job,train-once,8\n"
        "ml,Job,train-once,0.000000000000000000000000000001\n"
        "ml,Job,huge,123456789012345678901234567890123\n"
    )
    code, out, _ = _compare(tmp_path, monkeypatch, capsys, text, "-f", "json")
    document = json.loads(out)
    assert code == 1 and not document["equal"]
    values = {d["key"]["name"]: d["values"]["gpus"] for d in document["differences"]}
    assert values["train-once"]["summary"] == 8 and values["train-once"]["file"] == 8.0
    assert values["huge"]["file"] == 123456789012345678901234567890123
    assert document["totals"]["gpus"] == {"summary": 8, "file": 123456789012345678901234567890131.0}


def test_lines_with_the_same_key_add_up_and_empty_cells_are_not_compared(tmp_path):
    """The sums per key, as the comparison reads them: Fractions, a column only where a line has a
    figure for it; keys (in the order of the key columns: kind, then name) with a NUL, a line break
    or an empty cell; a column empty in every line is not compared."""
    (tmp_path / "f.csv").write_bytes(
        b"\xef\xbb\xbfname,kind,gpus,replicas,memory\r\n"
        b'a,Job,0.1,,\r\na,Job,0.2,,\r\n"a\x00",,1e3,2,\r\n,,,,\r\n"b\r\nc",Job,-0,,\r\n'
    )
    expected = read_expected(str(tmp_path / "f.csv"))
    assert expected.columns == ("gpus", "replicas") and expected.ignored == ["memory"]
    rows = expected.rows
    assert rows[("Job", "a")] == {"gpus": figures.Fraction(3, 10)}
    assert rows[("", "a\x00")] == {"gpus": 1000, "replicas": 2}
    assert rows[("Job", "b\r\nc")] == {"gpus": 0}
    assert ("", "") not in rows  # a line of empty cells is skipped
    assert ("", "a") not in rows and ("Job", "a") in rows
    assert list(rows.in_order()) == [("", "a\x00"), ("Job", "a"), ("Job", "b\r\nc")]
    assert rows.total("gpus") == figures.Fraction(10003, 10) and rows.total("replicas") == 2


KEY_CELLS = st.text(alphabet=st.sampled_from(["\x00", "\x01", "a", "b", "é", "\U0001f600"]), max_size=5)


@given(keys=st.integers(0, 3).flatmap(lambda n: st.lists(st.tuples(*[KEY_CELLS] * n), max_size=20)))
def test_stored_keys_are_the_keys_in_the_same_order(keys):
    """A key stored as one string comes back whole, and stored keys sort as the keys (tuples) do,
    whatever NUL or other characters their cells hold."""
    width = len(keys[0]) if keys else 0
    assert [key_of(stored_key(k), width) for k in keys] == keys
    assert [key_of(s, width) for s in sorted(stored_key(k) for k in keys)] == sorted(keys)
    rows = FigureRows(width, ("gpus",))
    for key in keys:
        rows.add(key, (1,))
    assert list(rows.in_order()) == sorted(set(keys)) and len(rows) == len(set(keys))
    assert all(rows[key] == {"gpus": keys.count(key)} for key in keys)


def test_reading_a_large_file_holds_a_few_times_its_size(tmp_path):
    """150,000 distinct lines (4 MB): the reading's peak of Python memory is under 8 times the
    file's size (it was 24 times: a dict and a Fraction per line, and the text copied into a
    StringIO at four bytes a character); what stays held after it, under 5 times."""
    generator = random.Random(7)
    lines = ["namespace,name,gpus,cpu"] + [
        f"team-{i % 211:03d},job-{i:07d},{generator.choice(['8', '0', '2.5', '0.1'])},{generator.choice(['500m', '2'])}"
        for i in range(150_000)
    ]
    path = tmp_path / "large.csv"
    path.write_text("\n".join(lines) + "\n")
    size = os.path.getsize(path)
    tracemalloc.start()
    try:
        expected = read_expected(str(path))
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(expected.rows) == 150_000 and expected.rows[("team-000", "job-0000000")]
    assert peak < 8 * size, (peak, size)
    assert held < 5 * size, (held, size)


def test_a_file_over_the_limit_is_a_usage_error_naming_it(tmp_path, monkeypatch, capsys):
    """Over the size limit (made 1 KiB here): exit 2, the file and its size, no report, no traceback."""
    monkeypatch.setattr(figures, "MAX_EXPECTED_BYTES", 1024)
    code, out, err = _compare(tmp_path, monkeypatch, capsys, "name,gpus\n" + "train-once,1\n" * 100)
    assert code == 2 and out == "" and "Traceback" not in err
    assert err.startswith("kartalint: error: quota.csv: file is 1310 bytes, over the 1024-byte limit"), err
