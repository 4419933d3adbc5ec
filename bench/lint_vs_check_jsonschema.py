"""Benchmark: `kartalint lint` against `check-jsonschema` (schema only) on the same corpus.

    python3 -m pip install check-jsonschema   # the peer, not a kartalint dependency
    python3 bench/lint_vs_check_jsonschema.py [--files 1000] [--repeat 3]

Both tools run as subprocesses on the same >= 1,000 definition files (start-up included), in the
same run, on the same machine; the report is the ratio of their median wall times, plus
kartalint's throughput (files/s) and the start-up cost of one `kartalint lint FILE` call.
The corpus is made from the bundled catalog: each copy gets its own name and distinct jq
defaults, so kartalint's jq caches cannot serve one file from another.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def make_corpus(folder: str, count: int) -> list:
    sources = sorted(glob.glob(os.path.join(ROOT, "catalog", "*.yaml")))
    files = []
    for i in range(count):
        src = sources[i % len(sources)]
        with open(src, encoding="utf-8") as handle:
            text = handle.read()
        # distinct expressions per copy: change every `// 1` default and the name
        text = re.sub(r"// 1\b", f"// {i + 1}", text)
        text = re.sub(r"^  name: (.*)$", rf"  name: \1-{i}", text, count=1, flags=re.M)
        path = os.path.join(folder, f"def-{i:05d}.yaml")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        files.append(path)
    return files


def timed(cmd: list, ok=(0,), env: dict | None = None) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    elapsed = time.perf_counter() - start
    if proc.returncode not in ok:
        raise SystemExit(f"{' '.join(cmd[:3])}... exited {proc.returncode}: {proc.stderr[-2000:]}")
    return elapsed


def measure(count: int = 1000, repeat: int = 3) -> dict:
    """Median wall times (s) of kartalint lint (every core and -j 1), check-jsonschema, and one
    one-file kartalint call, on a corpus of ``count`` definitions."""
    peer = shutil.which("check-jsonschema")
    kartalint = shutil.which("kartalint")
    if not peer or not kartalint:
        raise SystemExit("needs `kartalint` and `check-jsonschema` on PATH (python3 -m pip install . check-jsonschema)")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # with .pyc files, as installed
    with tempfile.TemporaryDirectory() as tmp:
        corpus = os.path.join(tmp, "corpus")
        os.mkdir(corpus)
        files = make_corpus(corpus, count)
        schema_file = os.path.join(tmp, "karta.schema.json")
        with open(schema_file, "w", encoding="utf-8") as handle:
            handle.write(subprocess.run([kartalint, "schema"], capture_output=True, text=True, check=True).stdout)
        runs = {
            "kartalint": [kartalint, "lint", "-q", "--format", "json", corpus],  # default: every core
            "kartalint -j 1": [kartalint, "lint", "-q", "-j", "1", "--format", "json", corpus],
            "check-jsonschema": [peer, "--schemafile", schema_file, *files],
            "one file": [kartalint, "lint", "-q", files[0]],
        }
        times: dict = {name: [] for name in runs}
        for _ in range(repeat):
            for name, command in runs.items():
                times[name].append(timed(command, env=env))
    return {"files": len(files), **{name: statistics.median(values) for name, values in times.items()}}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    m = measure(args.files, args.repeat)
    k, c, one = m["kartalint"], m["check-jsonschema"], m["kartalint -j 1"]
    print(f"corpus: {m['files']} definition files, median of {args.repeat} runs, {os.cpu_count()} cores")
    print(f"kartalint lint (schema + parity + jq compile + jq rules): {k:.2f} s  ({m['files'] / k:.0f} files/s)")
    print(f"check-jsonschema (schema only):                           {c:.2f} s  ({m['files'] / c:.0f} files/s)")
    print(f"kartalint lint -j 1 (one process):                        {one:.2f} s  (every core: {one / k:.2f}x faster)")
    print(f"ratio kartalint / check-jsonschema: {k / c:.2f}  (target <= 0.25)")
    print(f"start-up: one `kartalint lint FILE` call: {m['one file'] * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
