"""Trim an operator's CRD for tests/data/from-objects (see README.md there).

    python3 tests/data/from-objects/trim.py ORIGINAL.yaml [VERSION] > tests/data/from-objects/OPERATOR/crd.yaml

As ``tests/data/operator-crds/trim.py`` (pod specs reduced to their containers, containers to name,
image, command, args and resources, the large core types free-form), but the operator's own
descriptions are kept, cut to their first sentence: drafting reads them (a suspend field is one only
when its description says it stops the pods; a count's default may be stated there). With VERSION,
only that version of the CRD is kept.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from typing import Any

import yaml

_SPEC = importlib.util.spec_from_file_location(
    "operator_trim", os.path.join(os.path.dirname(__file__), "..", "operator-crds", "trim.py")
)
assert _SPEC and _SPEC.loader
operator_trim = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(operator_trim)


def _sentence(text: str) -> str:
    first = re.split(r"(?<=[.])\s", " ".join(text.split()), maxsplit=1)[0]
    return first[:200]


def keep_descriptions(original: Any, trimmed: Any) -> Any:
    """``trimmed`` with the first sentence of ``original``'s descriptions where ``trimmed`` kept the
    node's properties (an operator's own field, not a core type made free-form)."""
    if isinstance(original, list) and isinstance(trimmed, list):
        return [keep_descriptions(o, t) for o, t in zip(original, trimmed, strict=False)]
    if not (isinstance(original, dict) and isinstance(trimmed, dict)):
        return trimmed
    out = dict(trimmed)
    if isinstance(original.get("description"), str) and not trimmed.get("x-kubernetes-preserve-unknown-fields"):
        out = {"description": _sentence(original["description"]), **out}
    for key, value in trimmed.items():
        if key == "properties" and isinstance(value, dict) and isinstance(original.get("properties"), dict):
            out[key] = {k: keep_descriptions(original["properties"].get(k), v) for k, v in value.items()}
        elif key in ("items", "additionalProperties") and isinstance(value, dict):
            out[key] = keep_descriptions(original.get(key), value)
    return out


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as handle:
        documents = [doc for doc in yaml.safe_load_all(handle) if doc]
    wanted = sys.argv[2] if len(sys.argv) > 2 else None
    out = []
    for doc in documents:
        if wanted:
            doc["spec"]["versions"] = [v for v in doc["spec"]["versions"] if v.get("name") == wanted]
        trimmed = operator_trim.trim(doc)
        for original, version in zip(doc["spec"]["versions"], trimmed["spec"]["versions"], strict=True):
            schema = (original.get("schema") or {}).get("openAPIV3Schema")
            if schema is not None:
                version["schema"]["openAPIV3Schema"] = keep_descriptions(schema, version["schema"]["openAPIV3Schema"])
        out.append(trimmed)
    sys.stdout.write(yaml.safe_dump_all(out, sort_keys=False, width=120))


if __name__ == "__main__":
    main()
