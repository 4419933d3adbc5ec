"""Benchmark: peak memory of ``describe --summary --compare FILE`` for a FILE at its size limit.

    python3 bench/compare_memory.py [--megabytes 64] [--zero]

FILE is generated (``namespace,name,gpus,cpu``, about 2.4 million distinct keys in 64 MiB; with
``--zero`` every figure is 0, so the figures agree and nothing but the reading is measured); the
fleet is the catalog's running batch/v1 Job. Each in a fresh process:

- the peer: Python reading FILE whole and running ``csv.reader`` over its text (the floor of any
  reading that checks the whole file before comparing);
- kartalint: ``describe fleet.yaml --summary --compare FILE`` (table).

Reported: each one's peak resident memory (``ru_maxrss``), and the ratio kartalint / peer.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEER = "import csv, sys\ntext = open(sys.argv[1], 'rb').read().decode('utf-8-sig')\nfor _ in csv.reader(text.splitlines()): pass\n"


def write_file(path: str, size: int, zero: bool) -> int:
    """A --compare file of at most ``size`` bytes; how many lines."""
    generator, written, lines = random.Random(7), 24, 0
    with open(path, "w", newline="") as handle:
        handle.write("namespace,name,gpus,cpu\n")
        while True:
            gpus = "0" if zero else generator.choice(["8", "4", "1", "0", "2.5", "0.1", "16"])
            cpu = "0" if zero else generator.choice(["500m", "2", "1500m", "0.5", "16"])
            line = f"team-{lines % 211:03d},job-{lines:07d},{gpus},{cpu}\n"
            if written + len(line) > size:
                return lines
            handle.write(line)
            written, lines = written + len(line), lines + 1


def peak(argv: list[str], cwd: str) -> float:
    """The peak resident memory (MB) of a child process running ``argv``."""
    code = (
        "import resource, subprocess, sys\n"
        "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    out = subprocess.run([sys.executable, "-c", code, *argv], cwd=cwd, capture_output=True, text=True, check=True)
    return int(out.stdout.split()[-1]) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--megabytes", type=int, default=64)
    parser.add_argument("--zero", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        with open(os.path.join(ROOT, "fixtures", "batch-job-v1", "running.yaml"), encoding="utf-8") as handle:
            job = yaml.safe_load(handle)["object"]
        with open(os.path.join(folder, "fleet.yaml"), "w", encoding="utf-8") as handle:
            yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [job]}, handle)
        lines = write_file(os.path.join(folder, "quota.csv"), args.megabytes * 1024 * 1024, args.zero)
        peer = peak([sys.executable, "-c", PEER, "quota.csv"], folder)
        ours = peak([sys.executable, "-m", "kartalint", "describe", "fleet.yaml", "--summary", "--compare",
                     "quota.csv"], folder)  # fmt: skip
    print(f"{lines} lines, {args.megabytes} MiB: peer {peer:.0f} MB, kartalint {ours:.0f} MB, ratio {ours / peer:.2f}")


if __name__ == "__main__":
    main()
