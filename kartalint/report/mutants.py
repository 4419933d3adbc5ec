"""The ``--mutants`` part of ``kartalint test``'s reports (``kartalint.mutation``): each test format
calls these at its ``finish`` with the run's ``MutationRun``.

* text: the score per definition, each survivor at ``file:line:col`` with what tells it apart and
  the fixture that would kill it (``-v``: per-field scores and every mutant);
* JSON: ``mutation`` (its own ``schemaVersion``), ``MutationRun.to_dict``;
* SARIF: each survivor a ``mutant-survived`` result (level ``note``) at the mutated expression or
  field, fingerprinted by the mutant's id (not its line); a score below the minimum a
  ``mutation-score-below-minimum`` error at the definition;
* JUnit: one ``testcase`` per definition (``mutation score``) in the definition's suite, a
  ``failure`` when the score is below the minimum;
* GitHub: a ``::notice`` per survivor, an ``::error`` per score below the minimum.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kartalint.load.documents import display_path
from kartalint.rules.outcomes import MUTANT_SURVIVED, MUTATION_SCORE_BELOW_MINIMUM


def score_text(score: float | None) -> str:
    """A mutation score (killed of judged, 0 to 1) with two decimals; ``-`` when there is none (nothing judged)."""
    return "-" if score is None else f"{score:.2f}"


def counts_text(item: Any) -> str:
    """``3 killed, 1 survived of 4``, then the equivalent, invalid and untested mutants when there are
    any: of one definition's results or of the whole run."""
    counts = item.counts
    judged = counts["killed"] + counts["survived"]
    apart = [f"{counts[k]} {k}" for k in ("equivalent", "invalid", "untested") if counts[k]]
    text = f"{counts['killed']} killed, {counts['survived']} survived of {judged}"
    return text + (f"; {', '.join(apart)}" if apart else "")


def survivor_message(item: Any, result: Any) -> str:
    """What a survivor's report says: its change (before -> after) went unnoticed by all the
    definition's cases (called fixtures when they all are)."""
    return result.message(item.cases, item.kinds)


def text_lines(mutation: Any, verbose: bool) -> list[str]:
    """The text format's ``Mutants:`` block, one string per line (a blank one first): per definition
    its score (or why it was not run) and each survivor (``verbose``: every mutant and the score per
    field), the listed equivalents that match nothing, the scores below the minimum, and last the run's
    score."""
    lines = ["", "Mutants:"]
    for item in mutation.definitions:
        if item.note:
            lines.append(f"  {item.definition.name}: not run: {item.note}")
            continue
        limited = (
            f" (--mutants-limit: {len(item.results)} of {item.generated})" if item.generated > len(item.results) else ""
        )
        lines.append(f"  {item.definition.name}: score {score_text(item.score)} ({counts_text(item)}){limited}")
        for result in item.results:
            if result.outcome != "survived" and not verbose:
                continue
            line, column = result.location[:2]
            where = f"{display_path(item.definition.path)}:{line}:{column}"
            if result.outcome == "survived":
                lines.append(f"    SURVIVED {where} {result.mutant.operator}: {survivor_message(item, result)}")
            else:
                lines.append(
                    f"    {result.outcome.upper()} {where} {result.mutant.operator}: {result.mutant.before} -> {result.mutant.after}"
                )
            if result.detail:
                lines.append(f"      {result.detail}")
            if result.hint:
                lines.append(f"      hint: {result.hint}")
        if verbose:
            for area, counts in item.areas().items():
                judged = counts["killed"] + counts["survived"]
                score = counts["killed"] / judged if judged else None
                lines.append(f"    field {area}: score {score_text(score)} ({counts['killed']} of {judged})")
        for mutant_id in item.stale:
            lines.append(f"    note: the listed equivalent {mutant_id!r} matches no surviving mutant: remove it")
    for item in mutation.below_minimum:
        lines.append(
            f"ERROR {item.definition.path}: mutation score of {item.definition.name} is {score_text(item.score)} "
            f"(below the minimum {mutation.min_score:g})"
        )
    lines.append(f"mutation score {score_text(mutation.score)}: {counts_text(mutation)} in {mutation.seconds:.2f} s")
    return lines


def json_document(mutation: Any) -> dict[str, Any]:
    """The ``mutation`` object of the test JSON document: ``MutationRun.to_dict()`` with each result's
    ``message`` (a survivor's; None for the others)."""
    doc: dict[str, Any] = mutation.to_dict()
    for item, entry in zip(mutation.definitions, doc["definitions"], strict=True):
        for result, result_entry in zip(item.results, entry["results"], strict=True):
            result_entry["message"] = survivor_message(item, result) if result.outcome == "survived" else None
    return doc


def sarif_results(log: Any, mutation: Any) -> None:
    """Add to ``log`` a ``mutant-survived`` note per survivor, at the mutated place and fingerprinted
    by the mutant's id, and a ``mutation-score-below-minimum`` error per definition below the minimum."""
    for item in mutation.definitions:
        for result in item.survivors:
            line, column, end_line, end_column = result.location
            hint = f" (hint: {result.hint})" if result.hint else ""
            log.add_result(
                MUTANT_SURVIVED,
                "note",
                f"{item.definition.name}: {survivor_message(item, result)}: {result.detail}{hint}",
                item.definition.path,
                f"{item.definition.name}\x1f{result.mutant.id}",
                line,
                column,
                end_line,
                end_column,
            )
    for item in mutation.below_minimum:
        log.add_result(
            MUTATION_SCORE_BELOW_MINIMUM,
            "error",
            f"mutation score of {item.definition.name} is {score_text(item.score)} (below the minimum "
            f"{mutation.min_score:g}): {counts_text(item)}",
            item.definition.path,
            item.definition.name,
        )


def github_lines(mutation: Any, emit: Callable[[str, str, int, int, str, str], None]) -> None:
    """``emit(command, file, line, column, title, message)`` for each survivor and low score."""
    for item in mutation.definitions:
        for result in item.survivors:
            line, column = result.location[:2]
            hint = f"\nhint: {result.hint}" if result.hint else ""
            emit(
                "notice",
                item.definition.path,
                line,
                column,
                f"kartalint mutant survived: {item.definition.name}",
                f"{survivor_message(item, result)}\n{result.detail}{hint}",
            )
    for item in mutation.below_minimum:
        emit(
            "error",
            item.definition.path,
            1,
            1,
            "kartalint test: --min-mutation-score",
            f"mutation score of {item.definition.name} is {score_text(item.score)} (below {mutation.min_score:g}): "
            f"{counts_text(item)}",
        )


def junit_detail(item: Any) -> str:
    """The text of a definition's ``mutation score`` test case."""
    lines = [f"score {score_text(item.score)} ({counts_text(item)})"] if not item.note else [f"not run: {item.note}"]
    for result in item.survivors:
        line, column = result.location[:2]
        lines.append(f"{display_path(item.definition.path)}:{line}:{column}: {survivor_message(item, result)}")
        lines.extend(f"  {text}" for text in (result.detail, f"hint: {result.hint}" if result.hint else "") if text)
    return "\n".join(lines)
