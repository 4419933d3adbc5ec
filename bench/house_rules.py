"""Benchmark: what 20 house rules add to `kartalint lint` on 1,000 definitions (issue 49).

    python3 bench/house_rules.py [--files 1000] [--repeat 3]

The corpus is the one of bench/lint_vs_check_jsonschema.py (the bundled catalog, each copy with its
own name and jq defaults). The peer is `kartalint lint` on the same files without the
configuration's `house-rules:` (20 rules of every `for-each`, conventions the catalog keeps, so
that they rarely fire, as in a repository that holds to its conventions); both run as subprocesses,
start-up included, every core and `-j 1`, in the same run; the CPU time of each (with its worker
processes) is printed too. Target: at most 1.3x.
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


def timed(cmd: list, cwd: str, env: dict) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the command and every process it started)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd[:4])}... exited {proc.returncode}: {proc.stderr[-2000:]}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(count: int = 1000, repeat: int = 3) -> dict:
    """Median wall times (s) of `kartalint lint` with and without the 20 house rules, every core
    and one process, on ``count`` definitions."""
    kartalint = shutil.which("kartalint")
    if not kartalint:
        raise SystemExit("needs `kartalint` on PATH (python3 -m pip install .)")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory() as tmp:
        projects = {}
        for name, config in (("without", ""), ("with", house_rules_config())):
            folder = os.path.join(tmp, name)
            os.makedirs(os.path.join(folder, "corpus"))
            make_corpus(os.path.join(folder, "corpus"), count)
            with open(os.path.join(folder, ".kartalint.yaml"), "w", encoding="utf-8") as handle:
                handle.write(config or "{}\n")
            projects[name] = folder
        runs = {
            f"{name}{jobs}": ([kartalint, "lint", "-q", "--format", "json", *extra, "corpus"], folder)
            for jobs, extra in (("", []), (" -j 1", ["-j", "1"]))
            for name, folder in projects.items()
        }
        times: dict = {name: [] for name in runs}
        cpu: dict = {name: [] for name in runs}
        for _ in range(repeat):
            for name, (command, folder) in runs.items():  # with and without alternate: the same machine load
                wall, used = timed(command, folder, env)
                times[name].append(wall)
                cpu[name].append(used)
    return {
        "files": count,
        **{name: statistics.median(values) for name, values in times.items()},
        **{f"cpu {name}": statistics.median(values) for name, values in cpu.items()},
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    m = measure(args.files, args.repeat)
    print(
        f"corpus: {m['files']} definition files, 20 house rules, median of {args.repeat} runs, {os.cpu_count()} cores"
    )
    for jobs in ("", " -j 1"):
        without, with_ = m[f"without{jobs}"], m[f"with{jobs}"]
        cpu_without, cpu_with = m[f"cpu without{jobs}"], m[f"cpu with{jobs}"]
        label = jobs.strip() or "every core"
        print(
            f"kartalint lint ({label}): {without:.2f} s without house rules, {with_:.2f} s with: "
            f"{with_ / without:.2f}x (target <= 1.3); CPU {cpu_without:.2f} s and {cpu_with:.2f} s: "
            f"{cpu_with / cpu_without:.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
