"""The four guarded figures (issue 46): each a ratio of runs taken in turn, the median of the pairs.

    python3 bench/guard.py [--rounds N]      # measure the four figures and print them

``bench/run.py --quick`` measures them and compares each with the figure recorded in the table of
docs/performance.md ("Guarded figures"): a ratio worse than the recorded one by more than 25%
fails the run (exit 1). On a shared machine a ratio drifts with the load, it does not jump: each
round runs the two sides one after the other, and the median of the rounds' ratios is taken.

- ``engine``: ``Evaluator.evaluate_many`` on 5,000 JobSets / libjq running the same combined
  program on each object's JSON text in this process (the floor of a jq-based engine);
- ``hook``: one-file ``kartalint lint`` (a pre-commit hook call, in an empty git repository) /
  ``python -c "import yaml"`` (the interpreter and the YAML import any YAML linter pays);
- ``hook-yamllint``: the same lint / ``yamllint`` on the same file;
- ``throughput``: ``kartalint lint`` of 1,000 distinct definitions (every core) / a bare
  ``CSafeLoader`` parse of the same files in one process.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = os.path.join(ROOT, "docs", "performance.md")
TOLERANCE = 1.25  # a measured ratio above recorded x this fails the guard
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # with .pyc files, as installed
FIGURES = ("engine", "hook", "hook-yamllint", "throughput")

# the floor of the throughput figure: what any tool reading the files with libyaml pays
PARSE = """
import os, sys, yaml
for name in sorted(os.listdir(sys.argv[1])):
    with open(os.path.join(sys.argv[1], name), "rb") as handle:
        list(yaml.load_all(handle, Loader=yaml.CSafeLoader))
"""


def _timed(command: list[str], cwd: str | None = None, cpu: list[float] | None = None) -> float:
    """Wall seconds of a command; ``cpu`` (when given) receives its CPU seconds (its children's too)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(command, cwd=cwd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command[:4])}... exited {proc.returncode}: {proc.stderr[-1500:]}")
    if cpu is not None:
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return elapsed


def in_turn(sides: dict[str, Callable[[], float]], rounds: int) -> dict[str, list[float]]:
    """Each side's time per round, the sides run one after the other in every round."""
    times: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(rounds):
        for name, side in sides.items():
            times[name].append(side())
    return times


def median_ratio(times: dict[str, list[float]], numerator: str, denominator: str) -> float:
    """The median over the rounds of numerator / denominator (a drift of the machine's load between
    rounds moves both sides of a round together)."""
    return statistics.median(n / d for n, d in zip(times[numerator], times[denominator], strict=True))


def _cpu_of(pid: int) -> float:
    """CPU seconds (user and system) a running process has used, from /proc (0 where there is none)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def engine(objects: int = 5000, rounds: int = 5, cpu: dict[str, float] | None = None) -> float:
    """evaluate_many time / libjq in-process time on the same JobSets, median of the rounds; ``cpu``
    (when given) receives the median CPU ratio too (this process and its jq worker / the peer)."""
    import jq
    import yaml
    from evaluate import jobsets

    from kartalint.evaluation import Evaluator

    with open(os.path.join(ROOT, "catalog", "jobset-x-k8s-io-jobset-v1alpha2.yaml"), encoding="utf-8") as handle:
        definition = yaml.safe_load(handle)
    batch = jobsets(objects)
    with Evaluator() as evaluator:
        evaluator.evaluate_many(definition, batch[:64])  # the worker started, the program compiled
        prepared = evaluator.prepare(definition)
        program = jq.compile(evaluator.session._program(tuple(prepared.workload_expressions)))

        used: dict[str, list[float]] = {"peer": [], "ours": []}

        def peer() -> float:
            start, started = time.perf_counter(), time.process_time()
            for obj in batch:
                program.input_text(json.dumps(obj)).first()
            used["peer"].append(time.process_time() - started)
            return time.perf_counter() - start

        def ours() -> float:
            worker = evaluator.runner._process.pid
            start, started, worked = time.perf_counter(), time.process_time(), _cpu_of(worker)
            evaluator.evaluate_many(definition, batch)
            used["ours"].append(time.process_time() - started + _cpu_of(worker) - worked)
            return time.perf_counter() - start

        ratio = median_ratio(in_turn({"peer": peer, "ours": ours}, rounds), "ours", "peer")
        if cpu is not None:
            cpu["engine"] = median_ratio(used, "ours", "peer")
        return ratio


def hook(rounds: int = 9, cpu: dict[str, float] | None = None) -> dict[str, float]:
    """One-file lint / python -c "import yaml", and / yamllint (when installed), in an empty git
    repository holding one definition; each command warmed up once (byte-code, file caches).
    ``cpu`` (when given) receives the CPU ratios too."""
    import importlib.util

    from lint_vs_check_jsonschema import make_corpus
    from startup import console_script

    with tempfile.TemporaryDirectory() as folder:
        subprocess.run(["git", "init", "-q", folder], check=True, env=ENV)
        name = os.path.basename(make_corpus(folder, 1)[0])
        commands = {
            "floor": [sys.executable, "-c", "import yaml"],
            "kartalint": [*console_script(), "lint", "-q", name],  # (what the hook runs)
        }
        if importlib.util.find_spec("yamllint"):
            commands["yamllint"] = [sys.executable, "-m", "yamllint", "-d", "relaxed", name]
        times, used = _commands_in_turn(commands, folder, rounds)
    out = {"hook": median_ratio(times, "kartalint", "floor")}
    if "yamllint" in times:
        out["hook-yamllint"] = median_ratio(times, "kartalint", "yamllint")
    if cpu is not None:
        cpu["hook"] = median_ratio(used, "kartalint", "floor")
        if "yamllint" in used:
            cpu["hook-yamllint"] = median_ratio(used, "kartalint", "yamllint")
    return out


def _commands_in_turn(
    commands: dict[str, list[str]], folder: str, rounds: int
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Each command run once to warm up, then ``rounds`` rounds of all of them in turn from ``folder``:
    (wall times, CPU times) by label."""
    used: dict[str, list[float]] = {label: [] for label in commands}
    for command in commands.values():
        _timed(command, folder)
    sides = {
        label: (lambda command=command, label=label: _timed(command, folder, used[label]))
        for label, command in commands.items()
    }
    return in_turn(sides, rounds), used


def throughput(files: int = 1000, rounds: int = 3, cpu: dict[str, float] | None = None) -> float:
    """lint of ``files`` distinct definitions (every core) / a CSafeLoader parse of them in one
    process; ``cpu`` (when given) receives the CPU ratio too (the lint's worker processes included)."""
    from lint_vs_check_jsonschema import make_corpus

    with tempfile.TemporaryDirectory() as folder:
        corpus = os.path.join(folder, "corpus")
        os.mkdir(corpus)
        make_corpus(corpus, files)
        commands = {
            "parse": [sys.executable, "-c", PARSE, corpus],
            "lint": [sys.executable, "-m", "kartalint", "lint", "-q", "-f", "json", corpus],
        }
        times, used = _commands_in_turn(commands, folder, rounds)
        ratio = median_ratio(times, "lint", "parse")
    if cpu is not None:
        cpu["throughput"] = median_ratio(used, "lint", "parse")
    return ratio


def measure(quick: bool) -> dict[str, float]:
    """The four figures (fewer rounds with ``quick``), each printed as it is measured with its CPU
    ratio beside it (CPU time does not depend on the machine's load; it does not show what runs in
    parallel either: the figures are the wall-time ratios)."""
    found: dict[str, float] = {}
    cpu: dict[str, float] = {}
    start = time.perf_counter()

    def show(name: str, ratio: float) -> None:
        found[name] = ratio
        took = time.perf_counter() - start
        print(f"  {name}: {ratio:.2f} (CPU time {cpu.get(name, float('nan')):.2f}; {took:.0f} s in)", flush=True)

    print(f"  (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)", flush=True)
    show("engine", engine(5000, 5 if quick else 11, cpu))
    for name, ratio in hook(9 if quick else 21, cpu).items():
        show(name, ratio)
    show("throughput", throughput(1000, 5 if quick else 7, cpu))
    return found


# -- the recorded figures: the table of docs/performance.md -----------------------------------------

_ROW = re.compile(r"^\|[^|]*\|\s*`(?P<id>[a-z-]+)`\s*\|\s*\*{0,2}(?P<recorded>[0-9.]+)\*{0,2}x?\s*\|")


def recorded(page: str = PAGE) -> dict[str, float]:
    """{figure id: recorded ratio} from the "Guarded figures" table of docs/performance.md (rows
    ``| what | `id` | recorded | ...``)."""
    with open(page, encoding="utf-8") as handle:
        text = handle.read()
    section = text.split("## Guarded figures", 1)[1].split("\n## ", 1)[0]
    return {m.group("id"): float(m.group("recorded")) for line in section.splitlines() if (m := _ROW.match(line))}


def verdicts(measured: dict[str, float], record: dict[str, float]) -> list[tuple[str, float, float, bool]]:
    """(figure, measured, recorded, within TOLERANCE of it) for each measured figure; a figure
    without a recorded value fails (the table is incomplete)."""
    out = []
    for name, ratio in measured.items():
        known = record.get(name)
        out.append(
            (
                name,
                ratio,
                known if known is not None else float("nan"),
                known is not None and ratio <= known * TOLERANCE,
            )
        )
    return out


def report(measured: dict[str, float], record: dict[str, float]) -> bool:
    """Print each figure against its recorded value; whether every one is within the tolerance."""
    ok = True
    print(f"\nguarded figures (fail above the recorded ratio x {TOLERANCE}):")
    for name, ratio, known, within in verdicts(measured, record):
        ok = ok and within
        verdict = "ok" if within else "WORSE than recorded by more than 25%"
        print(f"  {name:<14} {ratio:6.2f}  recorded {known:5.2f}  limit {known * TOLERANCE:5.2f}  {verdict}")
    for name in sorted(set(record) - set(measured)):  # yamllint's figure without yamllint installed
        print(f"  {name:<14} not measured (its peer is not installed: pip install '.[test]')")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    args = parser.parse_args()
    return 0 if report(measure(args.quick), recorded()) else 1


if __name__ == "__main__":
    sys.exit(main())
