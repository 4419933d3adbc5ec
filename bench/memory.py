"""Benchmark: memory of one evaluation of a large object, as a ratio against the object's size.

    python3 bench/memory.py [--megabytes 100]

Each measurement runs in a fresh process (peak RSS cannot be reset): the object (a Trainer whose
status holds MEGABYTES of strings) is built, then

- the peer: ``json.dumps`` of the object and ``jq`` (libjq, in-process) parsing it once, i.e. the
  least any jq-based evaluation must hold: the object, its JSON text and libjq's copy;
- kartalint: ``kartalint.evaluate`` with the same object (the parent's peak plus the jq worker's).

Reported: the peak above the baseline (the process with the object built) for both, and the
ratio kartalint / peer (issue 13 measured 1.24 GB for 100 MB before the object was sent once).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = r"""
import json, resource, sys
sys.path.insert(0, {root!r})
sys.path.insert(0, {tests!r})
megabytes, mode = {megabytes}, {mode!r}
obj = {{"apiVersion": "example.com/v1", "kind": "Trainer", "metadata": {{"name": "t", "uid": "u"}},
       "spec": {{"roles": [{{"name": "w", "replicas": 2, "template": {{"spec": {{"containers": [{{"name": "c"}}]}}}}}}]}},
       "status": {{"phase": "Running", "blob": ["x" * 1000 for _ in range(megabytes * 1000)]}}}}
import yaml, jq, kartalint
from conftest import BASE_DEFINITION
definition = yaml.safe_load(BASE_DEFINITION)
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
if mode == "peer":
    text = json.dumps(obj)
    result = jq.compile(".status.phase").input_text(text).first()
    assert result == "Running"
else:
    view = kartalint.evaluate(definition, obj)
    assert view.statuses == ["Running"], view.statuses
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base + resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({{"peakKiB": peak, "jsonBytes": len(json.dumps(obj))}}))
"""


def measure(mode: str, megabytes: int) -> dict:
    code = CHILD.format(root=ROOT, tests=os.path.join(ROOT, "tests"), megabytes=megabytes, mode=mode)
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--megabytes", type=int, default=100)
    args = parser.parse_args()
    peer, ours = measure("peer", args.megabytes), measure("kartalint", args.megabytes)
    size = ours["jsonBytes"] / 1e6
    print(f"object: {size:.0f} MB of JSON")
    print(f"peer (json.dumps + libjq in-process): {peer['peakKiB'] / 1024:.0f} MiB above the object")
    print(f"kartalint.evaluate (parent + jq worker): {ours['peakKiB'] / 1024:.0f} MiB above the object")
    print(f"ratio kartalint / peer: {ours['peakKiB'] / peer['peakKiB']:.2f}")


if __name__ == "__main__":
    main()
