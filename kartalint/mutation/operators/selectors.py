"""Selectors: the pod labels that put a pod in a component (evaluated on pods only)."""

from __future__ import annotations

from collections.abc import Iterator

from kartalint import karta
from kartalint.mutation.mutant import JqEdit, Mutant, Subject, jq_mutant, jq_trees, with_value
from kartalint.mutation.operators.base import Operator


def other_label(text: str) -> str:
    """A plausible wrong label key or value: without its prefix (``jobset.sigs.k8s.io/x`` -> ``x``),
    else with a suffix."""
    return text.split("/", 1)[1] if "/" in text and text.split("/", 1)[1] else text + "-x"


def selector_label(subject: Subject) -> Iterator[Mutant]:
    """Change a pod label key or value a selector reads: the key in ``keyPath`` / ``idPath``
    (``.metadata.labels["a/b"]`` -> ``.metadata.labels["b"]``), a ``value``, a ``matchLabels`` key or value.

    Killed only by fixtures with ``pods``: their ``expect`` pins where each pod goes (``pods``,
    ``unmatchedPods``), as ``kartalint new fixture OBJECT --pods PODS`` writes it."""
    for jq_field, tree in jq_trees(subject, ("keyPath", "idPath")):
        if jq_field.target != "pod":
            continue
        text = jq_field.expression
        for node in tree.walk():
            key = node.children[1] if node.kind == "index" and len(node.children) > 1 else None
            if key is None or key.kind != "literal" or not isinstance(key.value, str):
                continue
            new = text[node.start : key.start] + f'"{other_label(key.value)}"' + text[key.end : node.end]
            yield jq_mutant(
                subject,
                "selector-label",
                "selectors",
                jq_field,
                JqEdit(node.start, node.end, new, node.source(text), new),
            )
    for ref in subject.components:
        selector = karta.as_dict(karta.as_dict(ref.data.get("podSelector")).get("componentTypeSelector"))
        path = (*ref.path, "podSelector", "componentTypeSelector")
        value = selector.get("value")
        if isinstance(value, str):
            yield _changed(
                subject, (*path, "value"), f"value: {value}", f"value: {other_label(value)}", other_label(value)
            )
        labels = karta.as_dict(selector.get("matchLabels"))
        for label, wanted in labels.items():
            if not isinstance(wanted, str):
                continue
            renamed = {(other_label(k) if k == label else k): v for k, v in labels.items()}
            yield _changed(
                subject, (*path, "matchLabels"), f"{label}: {wanted}", f"{other_label(label)}: {wanted}", renamed, label
            )
            changed = dict(labels, **{label: other_label(wanted)})
            yield _changed(
                subject, (*path, "matchLabels"), f"{label}: {wanted}", f"{label}: {other_label(wanted)}", changed, label
            )


def _changed(subject: Subject, path: tuple, before: str, after: str, value: object, key: str | None = None) -> Mutant:
    mutant = subject.mutant(
        "selector-label",
        "selectors",
        path if key is None else (*path, key),
        before,
        after,
        with_value(subject.definition, path, value),
        pods_only=True,
    )
    return mutant


OPERATORS = (Operator("selector-label", "selectors", selector_label),)
