"""Fixture drafts (`kartalint new fixture`): a trimmed object and an ``expect`` block filled from the evaluation."""

from __future__ import annotations

import copy
import re
from typing import Any

import yaml

from kartalint.evaluation.view import WorkloadView
from kartalint.load.kinds import FIXTURE_API_VERSION, FIXTURE_KIND
from kartalint.testing.compare import snapshot

_NOISE_ANNOTATIONS = ("kubectl.kubernetes.io/last-applied-configuration",)


def trim_object(obj: dict[str, Any]) -> dict[str, Any]:
    """The object without server-side noise (managedFields, last-applied annotation)."""
    out = copy.deepcopy(obj)
    meta = out.get("metadata")
    if isinstance(meta, dict):
        meta.pop("managedFields", None)
        annotations = meta.get("annotations")
        if isinstance(annotations, dict):
            for key in _NOISE_ANNOTATIONS:
                annotations.pop(key, None)
            if not annotations:
                meta.pop("annotations", None)
    return out


class QuotingDumper(yaml.SafeDumper):
    """What ``init`` and ``new`` write: block style, multi-line strings as literal blocks, and
    sequences indented under their key (yamllint's default ``indentation`` rule)."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        return super().increase_indent(flow, False)


# what the report writer escapes on every line it writes (report.escape.guard_line) and YAML 1.1 reads
# as a line break: written raw, such a character would not read back as itself
_ESCAPED_ON_WRITE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def represent_str(dumper: yaml.SafeDumper, value: str) -> Any:
    """Multi-line strings as literal blocks; a string with a control character, NEL, a line or
    paragraph separator or a bidirectional mark double-quoted, so YAML's own escapes write it (it
    reads back as itself through the report writer's escaping)."""
    style = '"' if _ESCAPED_ON_WRITE.search(value) else "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


QuotingDumper.add_representer(str, represent_str)


def dump(data: Any) -> str:
    return yaml.dump(
        data, Dumper=QuotingDumper, sort_keys=False, default_flow_style=False, allow_unicode=True, width=120
    )


def fixture_text(
    obj: dict[str, Any],
    view: WorkloadView,
    *,
    name: str,
    source: str,
    definition: str | None = None,
    pods: list[Any] | None = None,
    lint_rules: list[str] | None = None,
    description: str | None = None,
    expect: bool = True,
) -> str:
    """The fixture document; ``expect=False`` leaves ``expect`` empty (`kartalint test` reports
    the case as needing expectations) for an evaluation that must not be pinned."""
    doc: dict[str, Any] = {"apiVersion": FIXTURE_API_VERSION, "kind": FIXTURE_KIND, "name": name}
    if description:
        doc["description"] = description
    doc["source"] = source
    if definition:
        doc["definition"] = definition
    doc["object"] = trim_object(obj)
    if pods is not None:
        doc["pods"] = [trim_object(p) for p in pods]
    doc["expect"] = snapshot(view, lint_rules) if expect else {}
    header = (
        "# kartalint fixture (docs/fixtures.md). The expect block was generated from what the definition\n"
        "# computed: review every value against the object before committing.\n"
        if expect
        else "# kartalint fixture (docs/fixtures.md). expect is empty: the definition could not evaluate the\n"
        "# object without errors, so nothing was pinned. Fix the definition, then `kartalint test --update`.\n"
    )
    return header + "---\n" + dump(doc)
