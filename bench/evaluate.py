"""Benchmark: evaluations per second, and the replay of every reference recording.

    python3 bench/evaluate.py [--objects 10000]

1. One definition (the bundled JobSet) over many JobSet objects, in the same run:
   - ``Evaluator.evaluate_many`` (objects streamed through the jq worker in batches),
   - ``Evaluator.evaluate`` one object at a time (one round trip to the worker each),
   - the peer: the same combined jq program run by libjq in-process on each object's JSON text,
     without limits, timeouts or any Python work on the results (the floor for a jq-based engine).
   Reports evaluations/s and the ratio of evaluate_many's time per object to the peer's.
2. Time to replay every STATE event of ../shared/reference (skipped when absent) with the
   upstream catalog.
"""

from __future__ import annotations

import argparse
import copy
import glob
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import yaml

from kartalint.evaluation import Evaluator
from kartalint.testing.recording import definition_basename, is_recording, state_events

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REFERENCE = os.path.join(os.path.dirname(ROOT), "shared", "reference")


def jobsets(count: int) -> list:
    template = {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "js", "namespace": "ns"},
        "spec": {"replicatedJobs": []},
        "status": {"replicatedJobsStatus": [{"name": "workers", "active": 2, "ready": 2, "failed": 0}]},
    }
    out = []
    for i in range(count):
        obj = copy.deepcopy(template)
        obj["metadata"]["name"] = f"js-{i}"
        obj["spec"]["replicatedJobs"] = [
            {
                "name": "leader",
                "replicas": 1,
                "template": {
                    "spec": {
                        "template": {
                            "spec": {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": 1}}}]}
                        }
                    }
                },
            },
            {
                "name": "workers",
                "replicas": 1 + i % 4,
                "template": {
                    "spec": {
                        "parallelism": 2,
                        "template": {
                            "spec": {
                                "containers": [
                                    {
                                        "name": "c",
                                        "resources": {"limits": {"nvidia.com/gpu": 8, "cpu": "16", "memory": "64Gi"}},
                                    }
                                ]
                            }
                        },
                    }
                },
            },
        ]
        out.append(obj)
    return out


def rate(definition: dict, objects: list, batched: bool) -> float:
    with Evaluator() as evaluator:
        evaluator.evaluate(definition, objects[0])  # worker start-up and compilation
        start = time.perf_counter()
        if batched:
            evaluator.evaluate_many(definition, objects)
        else:
            for obj in objects:
                evaluator.evaluate(definition, obj)
        return len(objects) / (time.perf_counter() - start)


def peer_rate(definition: dict, objects: list) -> float:
    """libjq in-process, the engine's combined program, JSON text made per object, no limits."""
    import json

    import jq

    with Evaluator() as evaluator:
        prepared = evaluator.prepare(definition)
        program = jq.compile(evaluator.session._program(tuple(prepared.workload_expressions)))
    start = time.perf_counter()
    for obj in objects:
        program.input_text(json.dumps(obj)).first()
    return len(objects) / (time.perf_counter() - start)


def profile(objects_count: int = 5000) -> dict:
    """Microseconds per JobSet of each part of evaluate_many, measured one part at a time in this
    process: what bounds the rate (the jq worker and this process run at the same time)."""
    import jq

    from kartalint.evaluation.engine import to_json

    with open(os.path.join(ROOT, "catalog", "jobset-x-k8s-io-jobset-v1alpha2.yaml"), encoding="utf-8") as handle:
        definition = yaml.safe_load(handle)
    objects = jobsets(objects_count)
    out = {}
    with Evaluator() as evaluator:
        prepared = evaluator.prepare(definition)
        program_text = evaluator.session._program(tuple(prepared.workload_expressions))
        start = time.perf_counter()
        texts = [to_json(obj) for obj in objects]
        out["JSON text of the object (parent)"] = time.perf_counter() - start
        program = jq.compile(program_text)
        start = time.perf_counter()
        for text in texts:
            program.input_text(text).first()
        out["libjq: parse, run the program, results to Python (worker)"] = time.perf_counter() - start
        outcomes = list(evaluator.session.run_many(prepared.workload_expressions, texts))
        start = time.perf_counter()
        list(evaluator.session.run_many(prepared.workload_expressions, texts))
        out["stream through the worker, nothing else (worker-bound)"] = time.perf_counter() - start
        start = time.perf_counter()
        for index, result in outcomes:
            evaluator._view(prepared, objects[index], result)
        out["the view from the results: components, status, resources, gang (parent)"] = time.perf_counter() - start
        start = time.perf_counter()
        evaluator.evaluate_many(definition, objects)
        out["evaluate_many, all of it"] = time.perf_counter() - start
    return {name: seconds / len(objects) * 1e6 for name, seconds in out.items()}


def measure(objects_count: int = 10000) -> dict:
    with open(os.path.join(ROOT, "catalog", "jobset-x-k8s-io-jobset-v1alpha2.yaml"), encoding="utf-8") as handle:
        definition = yaml.safe_load(handle)
    objects = jobsets(objects_count)
    single_objects = objects[: max(1, objects_count // 5)]  # the slower way on a fifth of them
    return {
        "objects": len(objects),
        "evaluate_many": rate(definition, objects, True),
        "evaluate": rate(definition, single_objects, False),
        "peer": peer_rate(definition, objects),
    }


def replay() -> tuple:
    catalog = {}
    for path in glob.glob(os.path.join(REFERENCE, "upstream-catalog", "*.yaml")):
        with open(path, encoding="utf-8") as handle:
            catalog[os.path.basename(path)] = yaml.safe_load(handle)
    start = time.perf_counter()
    frames = 0
    with Evaluator() as evaluator:
        for path in glob.glob(os.path.join(REFERENCE, "*data", "**", "*.yaml"), recursive=True):
            with open(path, encoding="utf-8") as handle:
                data = yaml.load(handle, Loader=yaml.CSafeLoader)
            if not is_recording(data):
                continue
            for event in state_events(data):
                evaluator.evaluate(catalog[definition_basename(data)], event.object)
                frames += 1
    return frames, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--objects", type=int, default=10000)
    parser.add_argument("--profile", action="store_true", help="time each part of evaluate_many per object")
    args = parser.parse_args()
    if args.profile:
        for name, micros in profile().items():
            print(f"{micros:7.1f} us per JobSet  {name}")
        return 0
    m = measure(args.objects)
    print(f"evaluations/s, Evaluator.evaluate_many:           {m['evaluate_many']:8.0f}  ({m['objects']} JobSets)")
    print(f"evaluations/s, Evaluator.evaluate one by one:      {m['evaluate']:8.0f}")
    print(f"evaluations/s, peer: libjq in-process, no limits:  {m['peer']:8.0f}")
    print(f"ratio evaluate_many time / peer time: {m['peer'] / m['evaluate_many']:.2f}  (target <= 2)")
    if os.path.isdir(REFERENCE):
        frames, seconds = replay()
        print(
            f"replay of {frames} recorded frames with the upstream catalog: {seconds:.2f} s ({frames / seconds:.0f} frames/s)"
        )
    else:
        print("replay skipped: ../shared/reference is not present")
    return 0


if __name__ == "__main__":
    sys.exit(main())
