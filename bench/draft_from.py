"""Benchmark: `kartalint new --crd CRD --from PATH` on 200 objects and 2,000 pods (issue 42: under 10 s
on 2 cores), against the floor of reading the same files.

    python3 bench/draft_from.py [--copies 50] [--repeat 3]

The objects and pods are those of tests/data/from-objects/rbgs (4 RoleBasedGroupSets and their 39
pods, as sgl-project/rbg's controllers write them), copied into ``--copies`` namespaces (new uids,
the owners' uids with them), plus pods of another workload up to 2,000 pods in all (as `kubectl get
pods -A` lists them: the draft lists them as pods of no object given), written as two Lists, as
`kubectl get -o yaml` prints them. In the same run, each in a fresh process, alternating:

- the floor: both Lists read with ``kartalint.load.objects.load_objects`` (what drafting reads
  before it does anything);
- ``kartalint new --crd crd.yaml --from objects.yaml --from pods.yaml -o draft.yaml``, timed
  inside the process from the call of the command to its return (reading, matching, placing every
  pod, counts, selectors, statuses, the checks on every object, one fixture per state).

The best of ``--repeat`` runs of each is compared (on a shared machine the best is the run least
disturbed by others); CPU time (the process and its jq worker) is printed beside it. Target: the
draft in under 10 s; the ratio to the floor says how much of it is drafting rather than reading.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import subprocess
import sys
import tempfile

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data", "from-objects", "rbgs")
PODS_WANTED = 2000


def _items(name: str) -> list[dict]:
    with open(os.path.join(DATA, name), encoding="utf-8") as handle:
        return yaml.load(handle, Loader=yaml.CSafeLoader)["items"]


def inputs(copies: int) -> tuple[list[dict], list[dict]]:
    """``copies`` copies of the objects and their pods, each copy in a namespace of its own."""
    objects, pods = [], []
    base_objects, base_pods = _items("objects.yaml"), _items("pods.yaml")
    for k in range(copies):
        namespace = f"llm-{k}"
        for obj in base_objects:
            obj = copy.deepcopy(obj)
            obj["metadata"].update(namespace=namespace, uid=f"{obj['metadata']['uid'][:-6]}{k:06d}")
            objects.append(obj)
        for pod in base_pods:
            pod = copy.deepcopy(pod)
            pod["metadata"].update(namespace=namespace, uid=f"{pod['metadata']['uid'][:-6]}{k:06d}")
            pods.append(pod)
    other = copy.deepcopy(base_pods[0])
    n = 0
    while len(pods) < PODS_WANTED:  # the rest of `kubectl get pods -A`: a Deployment's pods
        pod = copy.deepcopy(other)
        pod["metadata"] = {
            "name": f"web-7d9f8c6b5-{n:05d}",
            "namespace": "web",
            "uid": f"00000000-0000-0000-0000-{n:012d}",
            "labels": {"app": "web", "pod-template-hash": "7d9f8c6b5"},
            "ownerReferences": [
                {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-7d9f8c6b5", "uid": "rs-1"}
            ],
        }
        pods.append(pod)
        n += 1
    return objects, pods


FLOOR = r"""
import json, sys, time
sys.path.insert(0, {root!r})
from kartalint.load.objects import load_objects
start = time.perf_counter()
count = sum(len(load_objects(path)[0]) for path in {paths!r})
print(json.dumps({{"seconds": time.perf_counter() - start, "objects": count}}))
"""

DRAFT = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
from kartalint.cli import main
start, cpu = time.perf_counter(), time.process_time()
code = main(["new", "--crd", {crd!r}, "--from", {objects!r}, "--from", {pods!r}, "-o", {out!r}])
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
children = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({{"seconds": seconds, "cpu": cpu + children.ru_utime + children.ru_stime, "code": code}}))
"""


def _child(code: str, cwd: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    proc = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"benchmark child failed: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def measure(copies: int = 50, repeat: int = 3) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        objects, pods = inputs(copies)
        paths = {"objects": os.path.join(tmp, "objects.yaml"), "pods": os.path.join(tmp, "pods.yaml")}
        for key, found in (("objects", objects), ("pods", pods)):
            with open(paths[key], "w", encoding="utf-8") as handle:
                yaml.dump({"apiVersion": "v1", "kind": "List", "items": found}, handle, Dumper=yaml.CSafeDumper)
        out = os.path.join(tmp, "draft.yaml")
        floors, drafts = [], []
        for _ in range(repeat):
            floors.append(_child(FLOOR.format(root=ROOT, paths=[paths["objects"], paths["pods"]]), tmp))
            drafts.append(
                _child(
                    DRAFT.format(
                        root=ROOT,
                        crd=os.path.join(DATA, "crd.yaml"),
                        objects=paths["objects"],
                        pods=paths["pods"],
                        out=out,
                    ),
                    tmp,
                )
            )
        with open(out, encoding="utf-8") as handle:
            header = handle.readline() and handle.readline() and handle.readline()
        fixtures = sorted(os.listdir(os.path.join(tmp, "workloads-x-k8s-io-rolebasedgroupset-v1alpha2")))
    return {
        "objects": len(objects),
        "pods": len(pods),
        "floor": min(f["seconds"] for f in floors),
        "draft": min(d["seconds"] for d in drafts),
        "draft_cpu": min(d["cpu"] for d in drafts),
        "exit": drafts[-1]["code"],
        "header": header.strip()[:160],
        "fixtures": fixtures,
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--copies", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    m = measure(args.copies, args.repeat)
    print(
        f"{m['objects']} RoleBasedGroupSets and {m['pods']} pods (exit {m['exit']}; fixtures {', '.join(m['fixtures'])})"
    )
    print(f"  {m['header']}")
    print(f"floor: reading both Lists {m['floor']:.2f} s")
    print(
        f"new --crd --from: {m['draft']:.2f} s ({m['draft_cpu']:.2f} s of CPU), {m['draft'] / m['floor']:.1f}x the floor; "
        f"target < 10 s: {'met' if m['draft'] < 10 else 'NOT MET'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
