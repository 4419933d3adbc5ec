"""Benchmark: `kartalint describe --summary` of 10,000 mixed workloads, against evaluate_many alone.

    python3 bench/summary.py [--objects 10000] [--repeat 3]

The workloads are the recorded JobSets, PyTorchJobs, RayClusters and LeaderWorkerSets of the
reference data (every STATE frame of the operators' recordings and the example manifests, from
../shared/reference, else the subset vendored in tests/data/reference), renamed one by one
(name, namespace, uid) and written as one List twice, as `kubectl get -o yaml` and as
`kubectl get -o json` print it. In the same run, each in a fresh process:

- the peer: the same objects, already in memory, evaluated through ``Evaluator.evaluate_many``
  (one call per definition, as describe does): the time of the evaluation alone;
- ``kartalint describe FLEET --summary -f csv -o FILE``, timed inside the process from the call of
  the command to its return (reading the List, choosing definitions, evaluating in batches,
  totals, writing the CSV), with its peak memory (the process's VmHWM, or its jq worker's if
  larger).

Each is run ``--repeat`` times, alternating; the best time of each is compared (on a shared
machine the best is the run least disturbed by others). CPU time (the process and its jq worker)
is printed next to it: it does not depend on what else the machine runs.

Targets (issue 35): peak under 120 MB; time at most 1.5x the peer's. Also printed: the time to
read each List alone (``stream_objects``, one object at a time), the part of the summary's time
that is reading its input: libyaml's events cost about as much as the evaluation, the json
module's decoder a tenth of that.
"""

from __future__ import annotations

import argparse
import copy
import glob
import json
import os
import subprocess
import sys
import tempfile

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared", "reference")
REFERENCE = SHARED if os.path.isdir(SHARED) else os.path.join(ROOT, "tests", "data", "reference")
KINDS = ("JobSet", "PyTorchJob", "RayCluster", "LeaderWorkerSet")


def recorded_workloads() -> list[dict]:
    """Every recorded object of the four kinds: recordings' STATE frames and example manifests."""
    sys.path.insert(0, ROOT)
    from kartalint.testing.recording import is_recording, state_events

    found = []
    for path in sorted(glob.glob(os.path.join(REFERENCE, "real-data", "**", "*.yaml"), recursive=True)):
        with open(path, encoding="utf-8") as handle:
            data = yaml.load(handle, Loader=yaml.CSafeLoader)
        if is_recording(data):
            found += [e.object for e in state_events(data) if isinstance(e.object, dict)]
    for path in sorted(glob.glob(os.path.join(REFERENCE, "objects", "*.yaml"))):
        with open(path, encoding="utf-8") as handle:
            found += [d for d in yaml.load_all(handle, Loader=yaml.CSafeLoader) if isinstance(d, dict)]
    return [o for o in found if o.get("kind") in KINDS]


def fleet(count: int) -> list[dict]:
    pool = recorded_workloads()
    items = []
    for i in range(count):
        obj = copy.deepcopy(pool[i % len(pool)])
        meta = obj.setdefault("metadata", {})
        meta["name"] = f"{meta.get('name', 'w')}-{i}"
        meta["namespace"] = f"team-{i % 7}"
        meta["uid"] = f"00000000-0000-0000-0000-{i:012d}"
        items.append(obj)
    return items


PEER = r"""
import json, sys, time, yaml
sys.path.insert(0, {root!r})
from kartalint.evaluation import Evaluator
from kartalint.load.definitions import default_index, object_gvk
from kartalint.load.objects import stream_objects
start = time.perf_counter()
objects = [o.data for o in stream_objects({fleet!r}, 1 << 30)]
read = time.perf_counter() - start
start = time.perf_counter()
assert sum(1 for _ in stream_objects({other!r}, 1 << 30)) == len(objects)
read_other = time.perf_counter() - start
index = default_index()
groups = {{}}
for obj in objects:
    groups.setdefault(object_gvk(obj), []).append(obj)
import resource
def worker_cpu():
    return sum(getattr(resource.getrusage(resource.RUSAGE_CHILDREN), f) for f in ("ru_utime", "ru_stime"))
with Evaluator().start() as evaluator:
    for gvk, group in groups.items():  # worker start-up and each program's compilation, not timed
        evaluator.evaluate(index.find(gvk).data, group[0])
    start, cpu = time.perf_counter(), time.process_time()
    views = [evaluator.evaluate_many(index.find(gvk).data, group) for gvk, group in groups.items()]
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
cpu += worker_cpu()  # the worker's, reaped when the evaluator closed (its warm-up is a few objects)
print(json.dumps({{"seconds": seconds, "cpu": cpu, "read": read, "readOther": read_other, "objects": sum(len(v) for v in views)}}))
"""

SUMMARY = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
from kartalint.cli import main
start, cpu = time.perf_counter(), time.process_time()
code = main(["describe", {fleet!r}, "--summary", "-f", "csv", "-o", {out!r}])
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
children = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu += children.ru_utime + children.ru_stime
hwm = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
worker = children.ru_maxrss
print(json.dumps({{"seconds": seconds, "cpu": cpu, "code": code, "peakKiB": max(hwm, worker), "parentKiB": hwm, "workerKiB": worker}}))
"""


def _child(code: str, cwd: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    proc = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"benchmark child failed: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def measure(count: int = 10000, repeat: int = 3) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        paths = {"yaml": os.path.join(tmp, "fleet.yaml"), "json": os.path.join(tmp, "fleet.json")}
        items = fleet(count)
        document = {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}
        with open(paths["yaml"], "w", encoding="utf-8") as handle:
            yaml.dump(document, handle, Dumper=yaml.CSafeDumper)
        with open(paths["json"], "w", encoding="utf-8") as handle:
            json.dump(document, handle, indent=4)
        del items, document
        out = os.path.join(tmp, "summary.csv")
        peers: list[dict] = []
        summaries: dict[str, list[dict]] = {"yaml": [], "json": []}
        rows = {}
        for _ in range(repeat):  # alternating, so each sees the same machine
            peers.append(_child(PEER.format(root=ROOT, fleet=paths["yaml"], other=paths["json"]), tmp))
            for fmt, path in paths.items():
                summaries[fmt].append(_child(SUMMARY.format(root=ROOT, fleet=path, out=out), tmp))
                with open(out, encoding="utf-8") as handle:
                    rows[fmt] = handle.read()
        megabytes = {fmt: os.path.getsize(path) / 1e6 for fmt, path in paths.items()}
    result = {
        "objects": count,
        "rows": rows["yaml"].count("\n") - 1,
        "same_rows": rows["yaml"] == rows["json"],
        "evaluate_many": min(p["seconds"] for p in peers),
        "evaluate_many_cpu": min(p["cpu"] for p in peers),
    }
    for fmt in paths:
        runs = summaries[fmt]
        result[fmt] = {
            "megabytes": megabytes[fmt],
            "exit": runs[-1]["code"],
            "read": min(p["read" if fmt == "yaml" else "readOther"] for p in peers),
            "summary": min(s["seconds"] for s in runs),
            "summary_cpu": min(s["cpu"] for s in runs),
            "peak_mb": max(s["peakKiB"] for s in runs) / 1024,
            "parent_mb": max(s["parentKiB"] for s in runs) / 1024,
            "worker_mb": max(s["workerKiB"] for s in runs) / 1024,
        }
    return result


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--objects", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    m = measure(args.objects, args.repeat)
    print(f"{m['objects']} mixed workloads, {m['rows']} CSV rows (the same from both Lists: {m['same_rows']})")
    print(
        f"peer: evaluate_many alone (objects in memory): {m['evaluate_many']:.2f} s, {m['evaluate_many_cpu']:.2f} s of CPU"
    )
    for fmt in ("json", "yaml"):
        r = m[fmt]
        print(f"describe --summary of the -o {fmt} List ({r['megabytes']:.1f} MB), exit {r['exit']}:")
        print(f"  time {r['summary']:.2f} s, {r['summary_cpu']:.2f} s of CPU; reading the List alone {r['read']:.2f} s")
        print(
            f"  ratio summary / evaluate_many: {r['summary'] / m['evaluate_many']:.2f} (target <= 1.5); "
            f"of CPU: {r['summary_cpu'] / m['evaluate_many_cpu']:.2f}"
        )
        print(
            f"  peak memory {r['peak_mb']:.0f} MB (process {r['parent_mb']:.0f}, jq worker {r['worker_mb']:.0f}; target < 120)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
