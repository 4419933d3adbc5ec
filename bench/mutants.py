"""Benchmark: ``kartalint test --mutants`` (issue 32).

    python3 bench/mutants.py [--repeat N]

1. every mutant of the bundled catalog against its fixtures (``kartalint test fixtures --mutants``),
   target under 60 s on 2 cores; the peer measured in the same run is the plain fixture run
   (``kartalint test fixtures``), so the ratio says what mutation costs on top of the suite;
2. one definition with 10 fixtures (the JobSet definition and 10 of its fixtures), target under 3 s,
   next to the same run without ``--mutants``.

Both run as subprocesses, start-up included (a user's command line). Prints mutants per second
and the time per mutant the runner measures itself.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JOBSET = "jobset-x-k8s-io-jobset-v1alpha2"


def timed(argv: list[str], cwd: str) -> tuple[float, subprocess.CompletedProcess]:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "kartalint", *argv], cwd=cwd, capture_output=True, text=True)
    return time.perf_counter() - start, proc


def median_run(argv: list[str], cwd: str, repeat: int) -> tuple[float, subprocess.CompletedProcess]:
    runs = [timed(argv, cwd) for _ in range(repeat)]
    return statistics.median(wall for wall, _ in runs), runs[-1][1]


def one_definition(folder: str) -> list[str]:
    """A project of the JobSet definition and 10 of its fixtures."""
    fixtures = os.path.join(folder, "fixtures", JOBSET)
    os.makedirs(fixtures)
    shutil.copy(os.path.join(ROOT, "catalog", f"{JOBSET}.yaml"), os.path.join(folder, "jobset.yaml"))
    names = sorted(os.listdir(os.path.join(ROOT, "fixtures", JOBSET)))[:10]
    for name in names:
        shutil.copy(os.path.join(ROOT, "fixtures", JOBSET, name), os.path.join(fixtures, name))
    with open(os.path.join(folder, ".kartalint.yaml"), "w", encoding="utf-8") as handle:
        handle.write("definitions: [jobset.yaml]\nfixtures: [fixtures]\n")
    return names


def measure(repeat: int = 3) -> dict[str, float]:
    out: dict[str, float] = {}
    wall, proc = median_run(["test", "fixtures", "--mutants", "-f", "json"], ROOT, repeat)
    doc = json.loads(proc.stdout)
    summary = doc["mutation"]["summary"]
    out["catalog"], out["catalog_mutants"] = wall, summary["mutants"]
    out["catalog_runner"], out["catalog_cases"] = summary["seconds"], doc["summary"]["total"]
    out["catalog_score"] = summary["score"]
    out["catalog_peer"], _ = median_run(["test", "fixtures"], ROOT, repeat)
    with tempfile.TemporaryDirectory() as folder:
        one_definition(folder)
        wall, proc = median_run(["test", "--mutants", "-f", "json"], folder, repeat)
        doc = json.loads(proc.stdout)
        out["one"], out["one_mutants"] = wall, doc["mutation"]["summary"]["mutants"]
        out["one_cases"] = doc["summary"]["total"]
        out["one_peer"], _ = median_run(["test"], folder, repeat)
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    m = measure(args.repeat)
    print(
        f"catalog: {m['catalog_mutants']:.0f} mutants against {m['catalog_cases']:.0f} fixtures in {m['catalog']:.1f} s wall "
        f"(target < 60 s: {'met' if m['catalog'] < 60 else 'NOT MET'}); runner {m['catalog_runner']:.1f} s, "
        f"{m['catalog_mutants'] / m['catalog_runner']:.0f} mutants/s; score {m['catalog_score']}"
    )
    print(
        f"  peer: the same fixtures without --mutants {m['catalog_peer']:.2f} s; ratio {m['catalog'] / m['catalog_peer']:.1f}"
    )
    print(
        f"one definition: {m['one_mutants']:.0f} mutants against {m['one_cases']:.0f} fixtures in {m['one']:.2f} s wall "
        f"(target < 3 s: {'met' if m['one'] < 3 else 'NOT MET'}); without --mutants {m['one_peer']:.2f} s, "
        f"ratio {m['one'] / m['one_peer']:.1f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
