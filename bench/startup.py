"""Benchmark: start-up of a one-file `kartalint lint` (a pre-commit hook call), issue 46.

    python3 -m pip install yamllint   # the peer, not a kartalint dependency
    python3 bench/startup.py [--repeat 21] [--top 15]

The pre-commit hook (``.pre-commit-hooks.yaml``) calls ``kartalint lint --allow-empty FILE``
once per commit; in a repository without a configuration file that call is almost all start-up.
In a fresh ``git init`` folder under the temporary folder holding one definition of the
bundled catalog, with byte-code caches written by a warm-up run, each of these runs in turn
(so a busy machine slows them alike) and the medians are compared:

- the floor: ``python -c "import yaml"`` (the interpreter and the YAML import, which any YAML
  linter pays);
- ``kartalint lint --allow-empty FILE``, the console script the hook runs (``python -m kartalint``
  where there is none) (target: at most 1.5x the floor);
- ``python -m yamllint -d relaxed FILE`` on the same file, when installed.

Then what the lint imports: the same call under ``-X importtime`` (``imports``), with the
modules it leaves in ``sys.modules`` (``importtime`` does not log a module imported through
``importlib.import_module``, as the command dispatch does, so the count is ``sys.modules``'s)
and the median self time of each module over the runs: the ranking holds on a busy machine,
the milliseconds do not. ``tests/test_bench_startup.py`` runs ``imports`` and asserts what a
one-file lint must not import.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFINITION = os.path.join(ROOT, "catalog", "batch-job-v1.yaml")
NAME = "job.yaml"
# measured with .pyc files, and never by coverage (a test run under `--cov` would hand its subprocess
# patch down: coverage's own imports, hashlib, multiprocessing, xml, would count as the lint's)
ENV = {
    k: v
    for k, v in os.environ.items()
    if k != "PYTHONDONTWRITEBYTECODE" and not k.startswith(("COVERAGE_", "COV_CORE_"))
}
ARGUMENTS = ["lint", "--allow-empty", NAME]  # the pre-commit hook's entry, on one file

# Runs the lint as the console script does, its report to /dev/null, then says which modules it
# left loaded and which the interpreter had loaded before (``site``'s: an editable install's import
# finder brings importlib) (the last line of stdout: JSON).
_IMPORTS = """
import sys
start = sorted(sys.modules)
import json, os
from kartalint.cli import main
with open(os.devnull, "w", encoding="utf-8") as report:
    sys.stdout = report
    code = main(sys.argv[1:])
    sys.stdout = sys.__stdout__
print(json.dumps({"exit": code, "modules": sorted(sys.modules), "start": start}))
"""


def make_repository(folder: str) -> str:
    """A fresh git repository in ``folder`` holding one catalog definition; its file name."""
    subprocess.run(["git", "init", "-q", folder], check=True)
    shutil.copyfile(DEFINITION, os.path.join(folder, NAME))
    return NAME


def console_script() -> list[str]:
    """The command the pre-commit hook runs: the ``kartalint`` console script beside this
    interpreter (its entry point imports ``kartalint.cli`` and calls ``main``), else
    ``python -m kartalint`` (which also imports ``runpy``, and with it ``importlib``)."""
    script = os.path.join(os.path.dirname(sys.executable), "kartalint")
    return [script] if os.access(script, os.X_OK) else [sys.executable, "-m", "kartalint"]


def commands() -> dict[str, list[str]]:
    """The commands timed in turn: the floor, the lint, and yamllint when installed."""
    python = sys.executable
    out = {
        "floor": [python, "-c", "import yaml"],
        "kartalint": [*console_script(), *ARGUMENTS],
    }
    probe = subprocess.run([python, "-c", "import yamllint"], capture_output=True)
    if probe.returncode == 0:
        out["yamllint"] = [python, "-m", "yamllint", "-d", "relaxed", NAME]
    return out


def _timed(command: list[str], folder: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds: user and system) of one run of ``command``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(command, cwd=folder, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(command[:4])}... exited {proc.returncode}: {proc.stderr[-1500:]}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(repeat: int = 21) -> dict[str, float]:
    """{command: median wall seconds} over ``repeat`` runs of each, in turn, in a fresh
    repository, and {command + " cpu": median CPU seconds} (steadier on a busy machine)."""
    with tempfile.TemporaryDirectory() as folder:
        make_repository(folder)
        runs = commands()
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
        for command in runs.values():
            _timed(command, folder)  # warm-up: byte-code caches, file system caches
        for _ in range(repeat):
            for name, command in runs.items():
                times[name].append(_timed(command, folder))
    out = {name: statistics.median(wall for wall, _ in values) for name, values in times.items()}
    out.update({f"{name} cpu": statistics.median(cpu for _, cpu in values) for name, values in times.items()})
    return out


def parse_importtime(text: str) -> dict[str, int]:
    """``-X importtime``'s log: {module: self time in microseconds}."""
    selves: dict[str, int] = {}
    for line in text.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        own, _cumulative, name = line[len("import time:") :].split("|")
        selves[name.strip()] = int(own)
    return selves


def imports(repeat: int = 5, arguments: list[str] | None = None, folder: str | None = None, warm: bool = True) -> dict:
    """What a one-file lint imports: ``modules`` (sorted, every module it leaves loaded),
    ``selves`` ({module: median self time in microseconds over ``repeat`` runs, as
    ``-X importtime`` logs it}), ``exit`` (its exit code), ``start`` (the modules the interpreter
    had loaded before kartalint's: ``site``'s). ``arguments``: the command line
    (default: the hook's on one file), run in ``folder`` (default: a fresh repository);
    ``warm``: a first run writes the byte code (the modules do not depend on it)."""
    if folder is None:
        with tempfile.TemporaryDirectory() as fresh:
            make_repository(fresh)
            return imports(repeat, arguments, fresh, warm)
    command = [sys.executable, "-X", "importtime", "-c", _IMPORTS, *(arguments or ARGUMENTS)]
    if warm:
        subprocess.run(command, cwd=folder, env=ENV, capture_output=True, check=True)  # byte code, file caches
    runs: list[dict[str, int]] = []
    modules: list[str] = []
    start: list[str] = []
    code = 0
    for _ in range(max(1, repeat)):
        proc = subprocess.run(command, cwd=folder, env=ENV, capture_output=True, text=True, check=True)
        result = json.loads(proc.stdout.splitlines()[-1])
        modules, code, start = result["modules"], result["exit"], result["start"]
        runs.append(parse_importtime(proc.stderr))
    names = set().union(*runs)
    selves = {name: int(statistics.median(run.get(name, 0) for run in runs)) for name in names}
    return {"modules": modules, "selves": selves, "exit": code, "start": start}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=21, help="runs of each command (medians)")
    parser.add_argument("--top", type=int, default=15, help="modules listed by self time")
    args = parser.parse_args()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average {load:.1f} on {os.cpu_count()} cores; medians of {args.repeat} runs in turn")
    times = measure(args.repeat)
    floor, floor_cpu = times["floor"], times["floor cpu"]
    for name in (n for n in times if not n.endswith(" cpu")):
        wall, cpu = times[name], times[f"{name} cpu"]
        print(
            f"{name:<10} {wall * 1000:7.1f} ms ({wall / floor:4.2f}x the floor), CPU {cpu * 1000:6.1f} ms ({cpu / floor_cpu:4.2f}x)"
        )
    print(f"one-file lint / python+yaml: {times['kartalint'] / floor:.2f} (target <= 1.5)")
    if "yamllint" in times:
        print(f"one-file lint / yamllint: {times['kartalint'] / times['yamllint']:.2f} (target <= 0.8)")
    found = imports(max(5, args.repeat // 2))
    modules = found["modules"]
    own = [m for m in modules if m == "kartalint" or m.startswith("kartalint.")]
    print(f"modules loaded by the lint: {len(modules)} ({len(own)} of kartalint)")
    print(f"self times (median of {max(5, args.repeat // 2)} runs, -X importtime), the {args.top} largest:")
    ranked = sorted(found["selves"].items(), key=lambda item: -item[1])[: args.top]
    for name, micros in ranked:
        print(f"  {micros / 1000:6.1f} ms  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
