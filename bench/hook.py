"""Benchmark: one pre-commit hook run of `kartalint lint` on 1 and on 200 changed definitions.

    python3 -m pip install check-jsonschema yamllint   # the peers, not kartalint dependencies
    python3 bench/hook.py [--repeat 11]

pre-commit calls a hook's entry once with a batch of file names, so start-up is most of a
one-file call. Every command runs as ``python -m ...`` with the same interpreter, from a
temporary folder holding the files (as in a user's repository), with byte-code caches written
by a warm-up run, alternating with the others; medians are reported:

- the floor: ``python -c "import yaml"`` (the interpreter and the YAML import, which any YAML
  linter pays);
- ``kartalint lint`` (schema, parity, jq, practices);
- ``check-jsonschema --schemafile`` on the Karta schema (schema only) and ``yamllint`` (YAML
  style only), each skipped with a note when not installed.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lint_vs_check_jsonschema import make_corpus

ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # measure with .pyc files


def _run(command: list, cwd: str) -> float:
    start = time.perf_counter()
    proc = subprocess.run(command, cwd=cwd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command[:4])}... exited {proc.returncode}: {proc.stderr[-1500:]}")
    return elapsed


def commands(files: list, schema: str) -> dict:
    python = sys.executable
    out = {
        "floor": [python, "-c", "import yaml"],
        "kartalint": [python, "-m", "kartalint", "lint", "--allow-empty", "-q", *files],
    }
    if importlib.util.find_spec("check_jsonschema"):
        out["check-jsonschema"] = [python, "-m", "check_jsonschema", "--schemafile", schema, *files]
    if importlib.util.find_spec("yamllint"):
        out["yamllint"] = [python, "-m", "yamllint", "-d", "relaxed", *files]
    return out


def measure(repeat: int = 11) -> dict:
    """{batch size: {tool: median seconds}} for batches of 1 and 200 files."""
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        files = [os.path.basename(p) for p in make_corpus(folder, 200)]
        schema = os.path.join(folder, "karta.schema.json")
        with open(schema, "w", encoding="utf-8") as handle:
            handle.write(
                subprocess.run(
                    [sys.executable, "-m", "kartalint", "schema"], capture_output=True, text=True, check=True
                ).stdout
            )
        for batch in (files[:1], files):
            runs = commands(batch, schema)
            times: dict = {name: [] for name in runs}
            for command in runs.values():
                _run(command, folder)  # warm-up: byte-code caches, file system caches
            for _ in range(repeat):
                for name, command in runs.items():
                    times[name].append(_run(command, folder))
            results[len(batch)] = {name: statistics.median(values) for name, values in times.items()}
    return results


PROFILE = """
import dataclasses, sys, time
made = [0, 0.0]
original = dataclasses._process_class
def timed(*args, **kwargs):
    start = time.perf_counter()
    try:
        return original(*args, **kwargs)
    finally:
        made[0] += 1
        made[1] += time.perf_counter() - start
dataclasses._process_class = timed
start = time.perf_counter()
from kartalint.cli import command, main
command("lint")
imported = time.perf_counter()
main(["lint", "--allow-empty", "-q", sys.argv[1]])
done = time.perf_counter()
print(f"{(imported - start) * 1000:.1f} {(done - imported) * 1000:.1f} {made[0]} {made[1] * 1000:.1f}")
"""


def profile(repeat: int = 5) -> dict:
    """Where a one-file call's time goes beyond the floor (milliseconds, medians): importing
    kartalint (of which creating its dataclasses), and the lint itself (parsing the options,
    reading, checking, reporting)."""
    with tempfile.TemporaryDirectory() as folder:
        name = os.path.basename(make_corpus(folder, 1)[0])
        floor = statistics.median(_run([sys.executable, "-c", "import yaml"], folder) for _ in range(repeat))
        whole = statistics.median(
            _run([sys.executable, "-m", "kartalint", "lint", "--allow-empty", "-q", name], folder)
            for _ in range(repeat)
        )
        parts = []
        for _ in range(repeat):
            out = subprocess.run(
                [sys.executable, "-c", PROFILE, name], cwd=folder, env=ENV, capture_output=True, text=True, check=True
            )
            parts.append([float(x) for x in out.stdout.split()])
    imports, lint, classes, classes_ms = (statistics.median(p[i] for p in parts) for i in range(4))
    return {
        "floor: python -c 'import yaml'": floor * 1000,
        "kartalint lint FILE, all of it": whole * 1000,
        "importing kartalint's lint path (yaml included)": imports,
        f"  of which creating {classes:.0f} dataclasses": classes_ms,
        "the lint: options, read, check, report": lint,
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=11)
    parser.add_argument("--profile", action="store_true", help="where a one-file call's time goes")
    args = parser.parse_args()
    if args.profile:
        for name, millis in profile().items():
            print(f"{millis:7.1f} ms  {name}")
        return 0
    results = measure(args.repeat)
    peers = [name for name in ("check-jsonschema", "yamllint") if name in results[1]]
    header = f"{'files':<6} {'floor':>8} {'kartalint':>10} {'/floor':>7}"
    print(header + "".join(f" {name:>17} {'ratio':>6}" for name in peers))
    for size, times in results.items():
        line = f"{size:<6} {times['floor'] * 1000:>5.0f} ms {times['kartalint'] * 1000:>7.0f} ms"
        line += f" {times['kartalint'] / times['floor']:>7.2f}"
        for name in peers:
            line += f" {times[name] * 1000:>14.0f} ms {times['kartalint'] / times[name]:>6.2f}"
        print(line)
    missing = [name for name in ("check-jsonschema", "yamllint") if name not in peers]
    if missing:
        print(f"not installed, not measured: {', '.join(missing)}")
    print("floor = python -c 'import yaml'; target for one file: kartalint / floor <= 1.3")
    return 0


if __name__ == "__main__":
    sys.exit(main())
