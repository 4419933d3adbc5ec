"""Benchmark: `kartalint test` over the project's fixtures and over every reference recording.

    python3 bench/test_run.py

Reports the wall time of each run (start-up included) and the evaluation time the runner
itself measures, next to `kartalint lint` of the same files as the peer measured in the same run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REFERENCE = os.path.join(os.path.dirname(ROOT), "shared", "reference")


def timed(argv: list) -> tuple:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "kartalint", *argv], cwd=ROOT, capture_output=True, text=True)
    return time.perf_counter() - start, proc


def main() -> int:
    wall, proc = timed(["test", "fixtures", "-f", "json"])
    doc = json.loads(proc.stdout)
    lint_wall, _ = timed(["lint", "-q", "fixtures", "catalog"])
    print(
        f"fixtures: {doc['summary']['total']} cases, {wall:.2f} s wall (lint of the same files: {lint_wall:.2f} s, "
        f"ratio {wall / lint_wall:.2f})"
    )
    if os.path.isdir(REFERENCE):
        paths = [os.path.join(REFERENCE, "real-data"), os.path.join(REFERENCE, "recorded_data")]
        wall, proc = timed(
            [
                "test",
                *paths,
                "--definitions",
                os.path.join(REFERENCE, "upstream-catalog"),
                "--known-failures",
                os.path.join(ROOT, "tests", "data", "upstream-replay-known-failures.yaml"),
            ]
        )
        last = proc.stdout.strip().splitlines()[-1]
        print(f"recordings with the upstream catalog: {wall:.2f} s wall; runner: {last}")
    else:
        print("recordings skipped: ../shared/reference is not present")
    return 0


if __name__ == "__main__":
    sys.exit(main())
