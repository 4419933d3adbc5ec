"""Check the guard by hand: with an engine slowed down on purpose, ``bench/run.py --quick`` must fail.

    python3 bench/slowed_engine.py [--sleep 0.001]

Patches ``Evaluator._view`` (the view of each object streamed through ``evaluate_many``) to sleep
``--sleep`` seconds per object, then runs the quick guard in this process (the engine figure is
measured in this process, the others in their own). The slowed engine's figure is worse than the
recorded one by far more than 25%, so the guard prints it as such and this script exits 1, as a
regression would make ``.ci/run`` exit. Exit 0 here would mean the guard missed it.
(The sleep does not grow with the machine's load while both sides of the ratio do: 1 ms per object
keeps the figure over the limit on a busy machine.)
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import run

from kartalint.evaluation.engine import Evaluator


def slow_down(seconds: float) -> None:
    """Every view ``evaluate_many`` builds from now on takes ``seconds`` longer."""
    original = Evaluator._view

    def slowed(self: Evaluator, *args: object, **kwargs: object) -> object:
        time.sleep(seconds)
        return original(self, *args, **kwargs)

    Evaluator._view = slowed  # type: ignore[assignment,method-assign]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sleep", type=float, default=0.001, help="seconds added per object (default 0.001)")
    args = parser.parse_args()
    slow_down(args.sleep)
    print(f"the engine slowed by {args.sleep * 1e6:.0f} us per object; the guard must fail:", flush=True)
    code = run.main(["--quick"])
    print("the guard failed, as it must" if code else "THE GUARD DID NOT FAIL: it misses a slower engine")
    return code


if __name__ == "__main__":
    sys.exit(main())
