"""Benchmark: what 20 house rules add to `kartalint lint` on 1,000 definitions (issue 49).

    python3 bench/house_rules.py [--files 1000] [--repeat 5] [--kartalint PATH ...]

The corpus is the one of bench/lint_vs_check_jsonschema.py (the bundled catalog, each copy with its
own name and jq defaults), written once: both runs lint the same files. The peer is `kartalint
lint` on them with a configuration without `house-rules:` (`-c without.yaml`), the measured run
the same with the 20 rules (`-c with.yaml`: rules of every `for-each`, conventions the catalog
keeps, so that they rarely fire, as in a repository that holds to its conventions). Both run as
subprocesses, start-up included, every core and `-j 1`, in pairs: each pair runs the two one
after the other (in turn first and second, so that a machine getting busier or quieter favours
neither), its ratio taken; the report is the median of the pairs' ratios (and the medians of the
times, and of the CPU time of each run with its worker processes). On a shared machine the load
is printed with each result: the ratio is only comparable at a similar load. Target: at most 1.3x.

With several ``--kartalint`` (e.g. an install of main and one of a branch), each is measured in the
same rounds, in turn.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lint_vs_check_jsonschema import make_corpus

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# 20 rules as an organisation writes them (docs/house-rules.md), each a convention the catalog keeps,
# so that, as in a repository that holds to its conventions, they rarely fire: of every unit, with
# string functions where they say it and regular expressions where a pattern is needed
RULES = """\
house-rules:
  - id: acme-name-prefix
    for-each: definition
    when: >-
      (.spec.structureDefinition.rootComponent.kind.group // "") as $group
      | .metadata.name | startswith(if $group == "" then "core" else ($group | split(".") | join("-")) end) | not
    message: 'metadata.name \\(.metadata.name) does not start with its group'
  - id: acme-root-kind
    for-each: definition
    when: '(.spec.structureDefinition.rootComponent.kind.kind // "") == ""'
    message: 'the root component has no kind'
  - id: acme-running
    for-each: definition
    when: '(.spec.structureDefinition.rootComponent.statusDefinition.statusMappings // {}) | has("running") | not'
    message: 'no running mapping'
  - id: acme-gang-for-completion
    for-each: definition
    when: >-
      (.spec.structureDefinition.rootComponent.statusDefinition.statusMappings.completed // [] | length > 0)
      and (.spec.optimizationInstructions.gangScheduling == null)
      and ((.spec.structureDefinition.childComponents // []) | length > 1)
    message: '\\(.spec.structureDefinition.rootComponent.kind.kind) runs to completion without a gang'
  - id: acme-gang-name
    for-each: definition
    when: '(.spec.optimizationInstructions.gangScheduling.podGroup.name // "x") | test("^[a-z0-9-]+$") | not'
    message: 'gang name \\(.spec.optimizationInstructions.gangScheduling.podGroup.name)'
  - id: acme-metadata-labels
    for-each: definition
    when: '(.metadata.labels // {}) | has("team.example.com/owner") and (.["team.example.com/owner"] | type != "string")'
    message: 'the owner label is not a string'
  - id: acme-role-selector
    for-each: component
    when: >-
      .specDefinition != null and .podSelector != null
      and ((.podSelector.componentTypeSelector.keyPath // ".metadata.labels")
           | (contains(".metadata.labels") or contains(".metadata.annotations")) | not)
    message: 'role \\(.name) selects its pods by neither a label nor an annotation'
  - id: acme-owner
    for-each: component
    when: '.ownerRef != null and (.ownerRef | test("^[a-z0-9-]+$") | not)'
    message: 'component \\(.name) has an odd ownerRef'
  - id: acme-component-name
    for-each: component
    when: '(.name // "") | test("^[a-z][a-z0-9-]*$") | not'
    message: 'component name \\(.name) is not lowercase'
  - id: acme-scale
    for-each: component
    when: '.specDefinition != null and .scaleDefinition == null and .instanceIdPath != null'
    message: 'component \\(.name) has instances but no scale'
  - id: acme-child-kind
    for-each: component
    when: '.kind != null and ((.kind.version // "") == "")'
    message: 'component \\(.name) has a kind without a version'
  - id: acme-matchers
    for-each: status-mapping
    when: 'length > 8'
    message: '\\($path[-1]) has \\(length) matchers'
  - id: acme-by-phase
    for-each: status-mapping
    when: 'map(select(.byPhase != null and (.byPhase | test("^[A-Za-z_ ]*$") | not))) | length > 0'
    message: '\\($path[-1]) matches an odd phase'
  - id: acme-expected-result
    for-each: status-mapping
    when: 'map(select(.byExpression != null and .byExpression.expectedResult == null)) | length > 0'
    message: '\\($path[-1]) has an expression without expectedResult'
  - id: acme-no-gpu-limits
    for-each: expression
    when: 'contains("limits") and test("\\\\blimits\\\\b[\\\\s\\\\S]*gpu"; "i")'
    message: '\\($path[-1]) counts GPUs from limits'
  - id: acme-env-free
    for-each: expression
    when: 'contains("$__loc__") or contains("input_filename")'
    message: '\\($path[-1]) reads where it runs'
  - id: acme-long
    for-each: expression
    when: 'length > 2000'
    message: '\\($path[-1]) is \\(length) characters long'
  - id: acme-keys-unsorted
    for-each: expression
    when: 'contains("keys_unsorted")'
    message: '\\($path[-1]) uses keys_unsorted'
  - id: acme-tostring
    for-each: expression
    when: '$path[-1] == "replicasPath" and contains("tostring")'
    message: 'replicas as a string'
  - id: acme-labels
    for-each: expression
    when: '$path[-1] == "keyPath" and ((contains("labels") or contains("annotations")) | not)'
    message: '\\($path[-1]) reads neither labels nor annotations'
"""


def house_rules_config() -> str:
    """The configuration with the 20 house rules."""
    return RULES


def adopt_orphans() -> None:
    """Become the subreaper of the commands run (Linux): a process whose parent ended before it
    (the jq worker of a `lint -j` worker process, killed with it) is then this process's child,
    reaped by ``timed`` and counted in its CPU; otherwise its CPU is counted nowhere (the every-core
    CPU figures before 2026-12-05 lacked the jq workers')."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


def timed(cmd: list, cwd: str, env: dict) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the command and every process it started)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    elapsed = time.perf_counter() - start
    while True:  # the command's orphans (``adopt_orphans``): they end with it, reaped here
        try:
            os.wait()
        except ChildProcessError:
            break
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd[:4])}... exited {proc.returncode}: {proc.stderr[-2000:]}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(count: int = 1000, repeat: int = 5, programs: list | None = None) -> dict:
    """Per program (``kartalint`` executables; default: the one on PATH), per jobs (every core,
    ``-j 1``): the medians of the wall and CPU times without and with the 20 house rules, and of
    the ratio of each pair, on the same ``count`` definitions."""
    programs = programs or [shutil.which("kartalint")]
    if not all(programs):
        raise SystemExit("needs `kartalint` on PATH (python3 -m pip install .)")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    adopt_orphans()
    out: dict = {"files": count, "load": [], "results": {}}
    with tempfile.TemporaryDirectory() as folder:
        os.makedirs(os.path.join(folder, "corpus"))
        make_corpus(os.path.join(folder, "corpus"), count)
        for name, config in (("without", "{}\n"), ("with", house_rules_config())):
            with open(os.path.join(folder, f"{name}.yaml"), "w", encoding="utf-8") as handle:
                handle.write(config)
        samples: dict = {}
        for round_ in range(repeat):
            out["load"].append(os.getloadavg()[0])
            for program in programs:
                for jobs in ("", " -j 1"):
                    extra = ["-j", "1"] if jobs else []
                    order = ("without", "with") if round_ % 2 == 0 else ("with", "without")
                    pair = {}
                    for name in order:
                        command = [program, "lint", "-q", "--format", "json", "-c", f"{name}.yaml", *extra, "corpus"]
                        pair[name] = timed(command, folder, env)
                    found = samples.setdefault((program, jobs), {"without": [], "with": [], "ratio": [], "cpu": []})
                    for name in ("without", "with"):
                        found[name].append(pair[name])
                    found["ratio"].append(pair["with"][0] / pair["without"][0])
                    found["cpu"].append(pair["with"][1] / pair["without"][1])
    for (program, jobs), found in samples.items():
        out["results"][(program, jobs)] = {
            "without": statistics.median(wall for wall, _ in found["without"]),
            "with": statistics.median(wall for wall, _ in found["with"]),
            "cpu without": statistics.median(cpu for _, cpu in found["without"]),
            "cpu with": statistics.median(cpu for _, cpu in found["with"]),
            "ratio": statistics.median(found["ratio"]),
            "ratios": found["ratio"],
            "cpu ratio": statistics.median(found["cpu"]),
        }
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--kartalint", action="append", help="a kartalint executable to measure (repeatable)")
    args = parser.parse_args()
    m = measure(args.files, args.repeat, args.kartalint)
    loads = ", ".join(f"{load:.1f}" for load in m["load"])
    print(
        f"corpus: {m['files']} definition files, 20 house rules, {args.repeat} pairs, "
        f"{os.cpu_count()} cores, load average at each round: {loads}"
    )
    for (program, jobs), r in m["results"].items():
        label = jobs.strip() or "every core"
        ratios = " ".join(f"{ratio:.2f}" for ratio in r["ratios"])
        who = f"{program}: " if args.kartalint and len(args.kartalint) > 1 else ""
        print(
            f"{who}kartalint lint ({label}): {r['without']:.2f} s without house rules, {r['with']:.2f} s with; "
            f"ratio {r['ratio']:.2f} (target <= 1.3; pairs {ratios}); "
            f"CPU {r['cpu without']:.2f} s and {r['cpu with']:.2f} s: {r['cpu ratio']:.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
