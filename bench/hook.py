"""Benchmark: one pre-commit hook run of `kartalint lint` on 1 and on 200 changed definitions.

    python3 bench/hook.py [--repeat 5]

pre-commit calls the hook's entry once with a batch of file names (start-up included). Measured
as subprocesses, same corpus, same run, next to the peer `check-jsonschema` validating the same
files against the Karta schema (skipped, with a note, when it is not installed).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lint_vs_check_jsonschema import make_corpus, timed


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    peer = shutil.which("check-jsonschema")
    with tempfile.TemporaryDirectory() as folder:
        files = make_corpus(folder, 200)
        schema = os.path.join(folder, "karta.schema.json")
        with open(schema, "w", encoding="utf-8") as handle:
            handle.write(
                subprocess.run(
                    [sys.executable, "-m", "kartalint", "schema"], capture_output=True, text=True, check=True
                ).stdout
            )
        print(f"{'changed files':<15} {'kartalint lint':>16} {'check-jsonschema':>18} {'ratio':>7}")
        for batch in (files[:1], files):
            ours = statistics.median(
                timed([sys.executable, "-m", "kartalint", "lint", "--allow-empty", "-q", *batch], ok=(0, 1))
                for _ in range(args.repeat)
            )
            theirs = (
                statistics.median(timed([peer, "--schemafile", schema, *batch], ok=(0, 1)) for _ in range(args.repeat))
                if peer
                else None
            )
            ratio = f"{ours / theirs:.2f}" if theirs else "-"
            peer_text = f"{theirs * 1000:.0f} ms" if theirs else "not installed"
            print(f"{len(batch):<15} {ours * 1000:>13.0f} ms {peer_text:>18} {ratio:>7}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
