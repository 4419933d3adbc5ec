"""What ``kartalint new --crd`` makes: the drafts of a CRD and the fixtures written beside them
(one per state seen with ``--from``, else the skeleton: a minimal object of the CRD), the errors
met, and the exit code."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kartalint.scaffold.drafts import drafts_from_crd
from kartalint.scaffold.observed_checks import case_fixture
from kartalint.scaffold.observed_draft import drafts_from_objects
from kartalint.scaffold.skeleton import skeleton_fixture, skeleton_source

if TYPE_CHECKING:
    from kartalint.evaluation import Evaluator
    from kartalint.load.observed import ObservedInput
    from kartalint.scaffold.draft_model import Draft


@dataclass
class Drafted:
    """The drafts of a CRD, the fixtures to write (path, text, what it is) and the errors (a
    skeleton the CRD refuses or the draft cannot evaluate)."""

    drafts: list[Draft]
    fixtures: list[tuple[str, str, str]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def exit_code(self) -> int:
        """The exit code of ``kartalint new --crd``: 1 after an error, else 0."""
        return 1 if self.errors else 0


def draft_crd(
    crd: str,
    version: str | None,
    observed: ObservedInput | None,
    evaluator: Evaluator,
    output: str | None = None,
    fixture: str | None = None,
) -> Drafted:
    """The drafts of ``crd`` (at ``version``, else its stored version), and their fixtures: one per
    observed state (``observed``, beside ``output``), else the skeleton (at ``fixture``, else beside
    ``output``). ``ScaffoldError`` when the CRD gives no draft."""
    if observed is None:
        result = Drafted(drafts_from_crd(crd, version))
        _skeleton(crd, output, fixture, result, evaluator)
        return result
    result = Drafted(drafts_from_objects(crd, observed, evaluator, version))
    if output:
        _observed_fixtures(output, result, evaluator)
    return result


def _observed_fixtures(output: str, result: Drafted, evaluator: Evaluator) -> None:
    """One fixture per state seen, in a folder named after the definition beside ``output``."""
    for draft in result.drafts:
        folder = os.path.join(os.path.dirname(output), draft.name)  # relative when -o is: said as given
        reference = os.path.relpath(os.path.abspath(output), os.path.abspath(folder))
        for case in draft.cases:
            text = case_fixture(case, draft.data, evaluator, reference)
            result.fixtures.append((os.path.join(folder, f"{case.slug}.yaml"), text, f"the {case.slug} state seen"))


def _skeleton(crd: str, output: str | None, fixture: str | None, result: Drafted, evaluator: Evaluator) -> None:
    """The skeleton fixture (a minimal object of the CRD) of a single draft, beside ``output`` or at
    ``fixture``; the errors of every draft's skeleton."""
    drafts = result.drafts
    fixture_path = fixture or (os.path.splitext(output)[0] + ".fixture.yaml" if output and len(drafts) == 1 else None)
    reference = (
        os.path.relpath(os.path.abspath(output), os.path.dirname(os.path.abspath(fixture_path)))
        if output and fixture_path
        else None
    )
    source = skeleton_source(crd)
    skeletons = [skeleton_fixture(d, evaluator, source=source, definition=reference) for d in drafts]
    for draft, skeleton in zip(drafts, skeletons, strict=True):
        if skeleton.text is not None:  # evaluated: its extraction errors are problems of the draft
            draft.problems = list(draft.problems) + skeleton.errors
        result.errors.extend(skeleton.errors)
    first = skeletons[0]
    if fixture_path and first.text is not None:
        what = "a minimal object of the CRD with " + (
            "its current evaluation" if not first.errors else "an empty expect (nothing pinned)"
        )
        result.fixtures.append((fixture_path, first.text, what))
