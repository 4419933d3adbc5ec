"""Benchmark: cost of one bounded jq evaluation (worker process) vs calling libjq directly.

    python3 bench/jq_runner.py [--evaluations 2000]

Same expression, same object, same run; reports microseconds per evaluation for both and
the ratio (the price of being able to stop a never-ending expression).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import jq

from kartalint.jqlang.runner import BoundedRunner

OBJECT = {
    "spec": {
        "replicatedJobs": [
            {"name": f"job{i}", "replicas": 2, "template": {"spec": {"parallelism": 4}}} for i in range(8)
        ]
    }
}
EXPRESSION = ".spec.replicatedJobs[] | (.replicas // 1) * (.template.spec.parallelism // 1)"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--evaluations", type=int, default=2000)
    n = parser.parse_args().evaluations
    text = json.dumps(OBJECT)
    program = jq.compile(EXPRESSION)
    start = time.perf_counter()
    for _ in range(n):
        program.input_text(text).all()
    direct = (time.perf_counter() - start) / n
    with BoundedRunner() as runner:
        runner.run_text(EXPRESSION, text)  # start the worker
        start = time.perf_counter()
        for _ in range(n):
            runner.run_text(EXPRESSION, text)
        bounded = (time.perf_counter() - start) / n
        start = time.perf_counter()
        runner.run_text("def f: f; f", text, timeout=0.2)
        recover = time.perf_counter() - start - 0.2
        runner.run_text(EXPRESSION, text)
    print(f"{n} evaluations of a JobSet replicas path")
    print(f"libjq direct:           {direct * 1e6:8.1f} us/evaluation")
    print(f"bounded (worker):       {bounded * 1e6:8.1f} us/evaluation")
    print(f"ratio bounded / direct: {bounded / direct:.1f}")
    print(f"kill + restart after a timeout: {recover * 1000:.0f} ms beyond the limit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
