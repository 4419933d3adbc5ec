"""Benchmark: memory peaks against the 100 MB targets, and linear growth with files and objects.

    python3 bench/scaling.py [--sizes 100,1000,10000]

Each measurement is one ``python -m kartalint`` process (its own peak resident memory, from
``wait4``), run in a temporary folder:

1. ``lint`` of one 5 MB multi-document stream (target: peak under 100 MB);
2. ``describe`` of one 3 MB JobSet (target: peak under 100 MB);
3. ``lint`` of N definition files and ``describe`` of a List of N JobSets, for each N of
   ``--sizes``: wall time and peak per run. Linear means the time per item stays flat as N
   grows (the ratio of the largest size's time per item to the smallest's is printed) and the
   peak grows no faster than the output that must be held.
"""

from __future__ import annotations

import argparse
import itertools
import os
import subprocess
import sys
import tempfile
import time

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from evaluate import jobsets
from lint_vs_check_jsonschema import make_corpus

ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
MB = 1024 * 1024


# Runs kartalint in this interpreter and reports the peak of its own memory (VmHWM: per process,
# reset by exec, unlike ru_maxrss, which a child inherits from this benchmark's process) and of its
# jq worker (reaped children), in KiB.
WRAPPER = """
import resource, sys
from kartalint.cli import main
try:
    code = main(sys.argv[2:])
finally:
    hwm = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
    worker = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    with open(sys.argv[1], "w") as handle:
        handle.write(f"{hwm} {worker}")
sys.exit(code)
"""


def run(args: list, cwd: str) -> tuple[float, float]:
    """(seconds, peak resident MB of the kartalint process or its jq worker, whichever is larger)."""
    with tempfile.TemporaryFile() as errors, tempfile.NamedTemporaryFile("r") as report:
        start = time.perf_counter()
        code = subprocess.call(
            [sys.executable, "-c", WRAPPER, report.name, *args],
            cwd=cwd,
            env=ENV,
            stdout=subprocess.DEVNULL,
            stderr=errors,
        )
        elapsed = time.perf_counter() - start
        if code not in (0, 1):
            errors.seek(0)
            raise SystemExit(f"kartalint {' '.join(args[:3])} exited {code}: {errors.read().decode()[-1500:]}")
        hwm, worker = (int(x) for x in report.read().split())
    return elapsed, max(hwm, worker) / 1024


def stream_of(files: list, megabytes: float) -> str:
    texts, size = [], 0
    while size < megabytes * 1e6:
        with open(files[len(texts) % len(files)], encoding="utf-8") as handle:
            text = "---\n" + handle.read()
        texts.append(text)
        size += len(text)
    return "".join(texts)


def big_jobset(megabytes: float) -> dict:
    count = int(megabytes * 600)  # about 1.7 kB of YAML per replicated job below

    def env() -> list:  # a new list each time: shared ones would be written as YAML aliases
        return [{"name": f"E{j}", "value": "v" * 40} for j in range(20)]

    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "big", "namespace": "ns"},
        "spec": {
            "replicatedJobs": [
                {
                    "name": f"rj-{i}",
                    "replicas": 1,
                    "template": {
                        "spec": {
                            "parallelism": 2,
                            "template": {
                                "spec": {
                                    "containers": [
                                        {"name": "c", "env": env(), "resources": {"limits": {"nvidia.com/gpu": 1}}}
                                    ]
                                }
                            },
                        }
                    },
                }
                for i in range(count)
            ]
        },
        "status": {"replicatedJobsStatus": [{"name": f"rj-{i}", "active": 1, "ready": 1} for i in range(count)]},
    }


def marginal(points: dict) -> list:
    """(from, to, seconds per item, MB per item) between consecutive sizes: start-up excluded."""
    sizes = sorted(points)
    out = []
    for low, high in itertools.pairwise(sizes):
        items = high - low
        out.append((low, high, (points[high][0] - points[low][0]) / items, (points[high][1] - points[low][1]) / items))
    return out


def growth(points: dict) -> str:
    steps = marginal(points)
    text = ", ".join(f"{a}->{b}: {s * 1000:.2f} ms and {mb * 1024:.1f} kB per item" for a, b, s, mb in steps)
    if len(steps) > 1:
        text += f"; last/first step time per item {steps[-1][2] / steps[0][2]:.2f} (1.0 = linear)"
    return text


def measure(sizes: list) -> dict:
    out: dict = {"lint": {}, "describe": {}}
    with tempfile.TemporaryDirectory() as folder:
        corpus = os.path.join(folder, "corpus")
        objects = os.path.join(folder, "objects")  # describe runs here: no definitions but the catalog
        os.mkdir(corpus)
        os.mkdir(objects)
        with open(os.path.join(objects, ".kartalint.yaml"), "w", encoding="utf-8") as handle:
            handle.write("max-file-size: 67108864\n")  # a List of 10,000 JobSets is 8 MB
        files = make_corpus(corpus, max(sizes))
        with open(os.path.join(folder, "stream.yaml"), "w", encoding="utf-8") as handle:
            handle.write(stream_of(files[:200], 5))
        out["stream_mb"] = os.path.getsize(os.path.join(folder, "stream.yaml")) / 1e6
        out["stream"] = run(["lint", "-q", "stream.yaml"], folder)
        with open(os.path.join(objects, "big.yaml"), "w", encoding="utf-8") as handle:
            yaml.safe_dump(big_jobset(3), handle)
        out["big_mb"] = os.path.getsize(os.path.join(objects, "big.yaml")) / 1e6
        out["big"] = run(["describe", "-f", "json", "big.yaml"], objects)
        for size in sizes:
            sub = os.path.join(folder, f"lint-{size}")
            os.mkdir(sub)
            for path in files[:size]:
                os.link(path, os.path.join(sub, os.path.basename(path)))
            out["lint"][size] = run(["lint", "-q", "--format", "json", sub], folder)
            with open(os.path.join(objects, f"list-{size}.yaml"), "w", encoding="utf-8") as handle:
                yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": jobsets(size)}, handle)
            out["describe"][size] = run(["describe", "-f", "json", f"list-{size}.yaml"], objects)
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="100,1000,10000")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    m = measure(sizes)
    print(
        f"lint of a {m['stream_mb']:.1f} MB stream: {m['stream'][1]:.0f} MB peak, {m['stream'][0]:.1f} s (target < 100 MB)"
    )
    print(
        f"describe of a {m['big_mb']:.1f} MB JobSet: {m['big'][1]:.0f} MB peak, {m['big'][0]:.1f} s (target < 100 MB)"
    )
    for what in ("lint", "describe"):
        unit = "files" if what == "lint" else "JobSets"
        for size, (seconds, peak) in m[what].items():
            print(f"{what} {size:>6} {unit}: {seconds:7.2f} s  {peak:6.0f} MB peak")
        print(f"{what}: {growth(m[what])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
