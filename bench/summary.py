"""Benchmark: `kartalint describe --summary --rows role` of 100,000 mixed workloads, against its peers.

    python3 bench/summary.py [--objects 100000] [--repeat 2]

The workloads are the recorded JobSets, PyTorchJobs, RayClusters and LeaderWorkerSets of the
reference data (every STATE frame of the operators' recordings and the example manifests, from
../shared/reference, else the subset vendored in tests/data/reference), renamed one by one
(name, namespace, uid) and written as one List twice, as `kubectl get -o yaml` and as
`kubectl get -o json` print it. In the same run, each in a fresh process:

- the peer: the objects of the List, already in memory, evaluated through
  ``Evaluator.evaluate_many`` (one call per definition, as describe does): the time of the
  evaluation alone. The same process also times PyYAML's C loader (``yaml.CSafeLoader``)
  reading the YAML List whole: the floor of a YAML dump is that reading plus the evaluation.
  The peer runs at its best: the garbage collector is off while the List is read and the objects
  are frozen before they are evaluated (with 100,000 objects held, Python's collections otherwise
  walk them again and again: the reading takes minutes instead of seconds);
- ``kartalint describe FLEET --summary --rows role -f csv -o FILE``, timed inside the process
  from the call of the command to its return (reading the List, choosing definitions,
  evaluating in batches, the role rows, totals, writing the CSV), with its peak memory (the
  process's VmHWM, or its jq worker's if larger).

Each is run ``--repeat`` times, alternating; the best time of each is compared (on a shared
machine the best is the run least disturbed by others). CPU time (the process and its jq worker)
is printed next to it: it does not depend on what else the machine runs.

Targets (issue 47): peak under 200 MB; a JSON List at most 1.3x the time of ``evaluate_many``
alone; a YAML List at most 1.2x its floor (the C loader's reading plus ``evaluate_many``).
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
JSON_TARGET, YAML_TARGET, PEAK_TARGET = 1.3, 1.2, 200


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
import gc, json, resource, sys, time, yaml
sys.path.insert(0, {root!r})
from kartalint.evaluation import Evaluator
from kartalint.load.definitions import default_index, object_gvk
index = default_index()
evaluator = Evaluator().start()  # its jq worker forked while this process is small, as describe does
gc.disable()  # the peer at its best: no collection walks the objects it holds (they only grow)
start, cpu = time.perf_counter(), time.process_time()
with open({fleet!r}, encoding="utf-8") as handle:
    objects = yaml.load(handle, Loader=yaml.CSafeLoader)["items"]  # the floor's reading
read, read_cpu = time.perf_counter() - start, time.process_time() - cpu
groups = {{}}
for obj in objects:
    groups.setdefault(object_gvk(obj), []).append(obj)
del objects
gc.freeze()  # and none walks them while they are evaluated
gc.enable()
def worker_cpu():
    return sum(getattr(resource.getrusage(resource.RUSAGE_CHILDREN), f) for f in ("ru_utime", "ru_stime"))
count = 0
with evaluator:
    for gvk, group in groups.items():  # each program's compilation, not timed
        evaluator.evaluate(index.find(gvk).data, group[0])
    start, cpu = time.perf_counter(), time.process_time()
    for gvk, group in groups.items():
        count += len(evaluator.evaluate_many(index.find(gvk).data, group))  # each group's views let go
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
cpu += worker_cpu()  # the worker's, reaped when the evaluator closed (its warm-up is a few objects)
print(json.dumps({{"seconds": seconds, "cpu": cpu, "read": read, "readCpu": read_cpu, "objects": count}}))
"""

SUMMARY = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
from kartalint.cli import main
start, cpu = time.perf_counter(), time.process_time()
code = main(["describe", {fleet!r}, "--summary", "--rows", "role", "-f", "csv", "-o", {out!r}])
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


def _write(paths: dict[str, str], count: int) -> None:
    items = fleet(count)
    document = {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}
    with open(paths["yaml"], "w", encoding="utf-8") as handle:
        yaml.dump(document, handle, Dumper=yaml.CSafeDumper)
    with open(paths["json"], "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=4)


def measure(count: int = 100_000, repeat: int = 2) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        paths = {"yaml": os.path.join(tmp, "fleet.yaml"), "json": os.path.join(tmp, "fleet.json")}
        _write(paths, count)
        out = os.path.join(tmp, "summary.csv")
        peers: list[dict] = []
        summaries: dict[str, list[dict]] = {"yaml": [], "json": []}
        rows = {}
        for _ in range(repeat):  # alternating, so each sees the same machine
            peers.append(_child(PEER.format(root=ROOT, fleet=paths["yaml"]), tmp))
            for fmt, path in paths.items():
                summaries[fmt].append(_child(SUMMARY.format(root=ROOT, fleet=path, out=out), tmp))
                with open(out, encoding="utf-8") as handle:
                    rows[fmt] = sum(1 for _ in handle) - 1
        megabytes = {fmt: os.path.getsize(path) / 1e6 for fmt, path in paths.items()}
    best = min(peers, key=lambda p: p["seconds"])
    result = {
        "objects": count,
        "rows": rows["yaml"],
        "same_rows": rows["yaml"] == rows["json"],
        "evaluate_many": best["seconds"],
        "evaluate_many_cpu": min(p["cpu"] for p in peers),
        "c_loader": min(p["read"] for p in peers),
        "c_loader_cpu": min(p["readCpu"] for p in peers),
    }
    for fmt in paths:
        runs = summaries[fmt]
        result[fmt] = {
            "megabytes": megabytes[fmt],
            "exit": runs[-1]["code"],
            "summary": min(s["seconds"] for s in runs),
            "summary_cpu": min(s["cpu"] for s in runs),
            "peak_mb": max(s["peakKiB"] for s in runs) / 1024,
            "parent_mb": max(s["parentKiB"] for s in runs) / 1024,
            "worker_mb": max(s["workerKiB"] for s in runs) / 1024,
        }
    result["json"]["peer"] = result["evaluate_many"]
    result["json"]["peer_cpu"] = result["evaluate_many_cpu"]
    result["yaml"]["peer"] = result["c_loader"] + result["evaluate_many"]
    result["yaml"]["peer_cpu"] = result["c_loader_cpu"] + result["evaluate_many_cpu"]
    return result


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--objects", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    m = measure(args.objects, args.repeat)
    print(f"{m['objects']} mixed workloads, {m['rows']} CSV role rows (the same from both Lists: {m['same_rows']})")
    print(
        f"peer: evaluate_many alone (objects in memory): {m['evaluate_many']:.2f} s, {m['evaluate_many_cpu']:.2f} s of CPU"
    )
    print(f"PyYAML's C loader reading the YAML List whole: {m['c_loader']:.2f} s, {m['c_loader_cpu']:.2f} s of CPU")
    for fmt, target, peer in (
        ("json", JSON_TARGET, "evaluate_many"),
        ("yaml", YAML_TARGET, "C loader + evaluate_many"),
    ):
        r = m[fmt]
        print(f"describe --summary --rows role of the -o {fmt} List ({r['megabytes']:.0f} MB), exit {r['exit']}:")
        print(f"  time {r['summary']:.2f} s, {r['summary_cpu']:.2f} s of CPU")
        print(
            f"  ratio summary / ({peer}): {r['summary'] / r['peer']:.2f} (target <= {target}); "
            f"of CPU: {r['summary_cpu'] / r['peer_cpu']:.2f}"
        )
        print(
            f"  peak memory {r['peak_mb']:.0f} MB (process {r['parent_mb']:.0f}, jq worker {r['worker_mb']:.0f}; "
            f"target < {PEAK_TARGET})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
