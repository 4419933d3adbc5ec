"""All of kartalint's performance goals in one run, each against its peer or floor (issue 19, 46).

    python3 -m pip install . check-jsonschema yamllint   # the peers are not kartalint dependencies
    python3 bench/run.py            # every goal, about 10 minutes
    python3 bench/run.py --quick    # the guard: the four guarded figures only, under a minute

The guarded figures (``bench/guard.py``), each a ratio of runs taken in turn (the median of the
rounds), compared with the figures recorded in docs/performance.md ("Guarded figures"): a figure
worse than its recorded value by more than 25% makes the run exit 1 (``.ci/run`` runs ``--quick``):

- ``engine``: ``Evaluator.evaluate_many`` / libjq running the same combined program in-process
  (JobSet, 5,000 objects; goal <= 1.25);
- ``hook``: one-file ``kartalint lint`` in an empty git repository / ``python -c "import yaml"``
  (goal <= 1.5);
- ``hook-yamllint``: the same lint / ``yamllint`` on the same file (goal <= 0.8);
- ``throughput``: ``kartalint lint`` of 1,000 distinct definitions / a bare ``CSafeLoader`` parse of
  the same files (goal <= 2.0, on 2 cores).

The full run measures every other goal too:

1. lint throughput against check-jsonschema (schema only) on the same files (target: ratio <= 0.25);
2. hook latency next to check-jsonschema on the same file;
3. evaluation: ``Evaluator.evaluate_many`` JobSets per second (target: >= 10,000/s);
4. memory: lint of a 5 MB stream and describe of a 3 MB JobSet (target: peak < 100 MB each),
   and growth from 100 to 10,000 files and objects (target: linear: the cost per added file or
   object stays the same from one size to the next);
5. the language server (issue 20): diagnostics within 300 ms of a change;
6. mutation testing (issue 32): every mutant of the catalog against its fixtures in under 60 s,
   one definition with 10 fixtures in under 3 s (``bench/mutants.py``), next to the same runs
   without ``--mutants``.
7. fleet accounting (issues 35, 47): ``describe --summary --rows role`` of 100,000 mixed recorded
   workloads, peak memory under 200 MB; a ``kubectl get -o json`` List at most 1.3x the time of
   ``evaluate_many`` alone on the same objects, a ``-o yaml`` one at most 1.2x its floor (PyYAML's
   C loader reading it plus ``evaluate_many``).

8. drafting from real objects (issue 42): ``new --crd --from`` on 200 objects and 2,000 pods in
   under 10 s, next to reading the same files (``bench/draft_from.py``).

9. house rules (issue 49): 20 house rules add at most 30% to ``kartalint lint`` of 1,000
   definitions, next to the same lint without them (``bench/house_rules.py``).

Prints one line per target: measured, target, met or not; then the guarded figures against the
recorded ones.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import guard


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="the guarded figures only (under a minute)")
    args = parser.parse_args(argv)
    print("guarded figures (each the median of rounds taken in turn) ...", flush=True)
    measured = guard.measure(args.quick)
    if not args.quick:
        every_goal()
    return 0 if guard.report(measured, guard.recorded()) else 1


def every_goal() -> None:
    """Every goal of issues 19 to 49 against its peer, one line each, then a summary."""
    import draft_from
    import evaluate
    import hook
    import house_rules
    import lint_vs_check_jsonschema
    import lsp
    import mutants
    import scaling
    import summary

    repeat = 3
    rows = []

    def row(goal: str, measured: str, target: str, met: bool) -> None:
        rows.append((goal, measured, target, "met" if met else "NOT MET"))
        print(f"  {goal}: {measured} (target {target}) {'met' if met else 'NOT MET'}", flush=True)

    print("1. lint throughput ...", flush=True)
    lint = lint_vs_check_jsonschema.measure(1000, repeat)
    ratio = lint["kartalint"] / lint["check-jsonschema"]
    row("lint 1,000 files / check-jsonschema", f"{ratio:.2f}", "<= 0.25", ratio <= 0.25)
    row("lint -j 1 / every core", f"{lint['kartalint -j 1'] / lint['kartalint']:.2f}x", "> 1 on 2+ cores", True)

    print("2. hook latency ...", flush=True)
    latency = hook.measure(11)[1]
    if "check-jsonschema" in latency:
        ratio = latency["kartalint"] / latency["check-jsonschema"]
        row("one-file lint / check-jsonschema", f"{ratio:.2f}", "< 1", ratio < 1)

    print("3. evaluation ...", flush=True)
    ev = evaluate.measure(10000)
    row("evaluate_many JobSets/s", f"{ev['evaluate_many']:.0f}", ">= 10,000", ev["evaluate_many"] >= 10000)

    print("4. memory and growth ...", flush=True)
    sizes = [100, 1000, 10000]
    mem = scaling.measure(sizes)
    row(f"lint {mem['stream_mb']:.1f} MB stream, peak MB", f"{mem['stream'][1]:.0f}", "< 100", mem["stream"][1] < 100)
    row(f"describe {mem['big_mb']:.1f} MB object, peak MB", f"{mem['big'][1]:.0f}", "< 100", mem["big"][1] < 100)
    for what in ("lint", "describe"):
        steps = scaling.marginal(mem[what])  # per-item cost between sizes (start-up excluded)
        first, last = steps[0], steps[-1]
        for low, high, seconds, megabytes in steps:
            row(f"{what} {low}->{high}: ms, kB per item", f"{seconds * 1000:.2f}, {megabytes * 1024:.0f}", "-", True)
        if len(steps) > 1:
            growth = last[2] / first[2]
            label = f"{what}: time per item, step {last[0]}->{last[1]} / {first[0]}->{first[1]}"
            row(label, f"{growth:.2f}", "<= 1.5 (linear)", growth <= 1.5)

    print("5. language server ...", flush=True)
    server = lsp.measure(20)
    change = server["change"] * 1000
    row("lsp: diagnostics after a change, ms", f"{change:.0f}", "< 300", change < 300)

    print("6. mutation testing ...", flush=True)
    mut = mutants.measure(3)
    row(
        "catalog --mutants, s (mutants run)",
        f"{mut['catalog']:.1f} ({mut['catalog_mutants']:.0f})",
        "< 60",
        mut["catalog"] < 60,
    )
    row("catalog --mutants / plain fixture run", f"{mut['catalog'] / mut['catalog_peer']:.1f}", "-", True)
    row("one definition, 10 fixtures, --mutants, s", f"{mut['one']:.2f}", "< 3", mut["one"] < 3)
    print("7. fleet accounting ...", flush=True)
    fleet = summary.measure(100_000, 2)
    for fmt, target, peer in (
        ("json", summary.JSON_TARGET, "evaluate_many"),
        ("yaml", summary.YAML_TARGET, "its floor"),
    ):
        ratio = fleet[fmt]["summary"] / fleet[fmt]["peer"]
        row(f"describe --summary --rows role (-o {fmt} List) / {peer}", f"{ratio:.2f}", f"<= {target}", ratio <= target)
        peak = fleet[fmt]["peak_mb"]
        row(
            f"describe --summary --rows role (-o {fmt} List), peak MB",
            f"{peak:.0f}",
            f"< {summary.PEAK_TARGET}",
            peak < summary.PEAK_TARGET,
        )

    print("8. drafting from real objects ...", flush=True)
    drafted = draft_from.measure(50, 3)
    row("new --crd --from, 200 objects and 2,000 pods, s", f"{drafted['draft']:.2f}", "< 10", drafted["draft"] < 10)
    row("new --crd --from / reading the same files", f"{drafted['draft'] / drafted['floor']:.1f}", "-", True)

    print("9. house rules ...", flush=True)
    house = house_rules.measure(1000, 3)
    for jobs in ("", " -j 1"):
        ratio = house[f"with{jobs}"] / house[f"without{jobs}"]
        row(
            f"lint with 20 house rules / without ({jobs.strip() or 'every core'})",
            f"{ratio:.2f}",
            "<= 1.3",
            ratio <= 1.3,
        )

    print("\nsummary")
    width = max(len(r[0]) for r in rows)
    for goal, measured, target, verdict in rows:
        print(f"{goal:<{width}}  {measured:>8}  {target:<16} {verdict}")


if __name__ == "__main__":
    sys.exit(main())
