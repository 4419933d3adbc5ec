"""``kartalint new --crd``'s review of its drafts: the roles each draft found in the CRD, where, how
sure each guess is, and the replicas; as notes on standard error (text) or as JSON on standard
output (``schemaVersion`` 1)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from kartalint.scaffold.drafts import Draft, review, review_lines

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class DraftReview:
    """The drafts ``kartalint new --crd`` made from the CRD file ``crd``."""

    drafts: list[Draft]
    crd: str


def render_text(reviewed: DraftReview) -> str:
    """The review as the ``kartalint:`` lines ``new --crd`` writes on standard error, beside the draft."""
    return "".join(f"kartalint: {line}\n" for draft in reviewed.drafts for line in review_lines(draft, reviewed.crd))


def render_json(reviewed: DraftReview) -> str:
    """What each draft found (``scaffold.drafts.review``), one document."""
    return (
        json.dumps({"schemaVersion": SCHEMA_VERSION, "drafts": [review(d) for d in reviewed.drafts]}, indent=2) + "\n"
    )
