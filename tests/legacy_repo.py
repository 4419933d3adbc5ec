"""A team's repository with legacy findings (issue 48): nine definitions from the bundled catalog
as a team might have written them before kartalint, with 20 findings between them and no fixture
yet. ``kartalint lint --strict`` fails on it; adopting kartalint with a baseline makes it pass.

The findings, made by editing the catalog's definitions the way they are commonly written:

* 18 ``scale-path-not-null-safe``: the ``// 1`` and ``// 0`` defaults of the scale paths left out
  (``.template.spec.parallelism`` where JobSet's controller defaults the field, so an object
  read before defaulting has none);
* 2 ``condition-without-expectation``: the Job's ``Complete`` and ``SuccessCriteriaMet``
  conditions matched without ``status: "True"`` (a condition present with ``False`` matches too).
"""

from __future__ import annotations

import os
import re

from conftest import ROOT, git

LEGACY = (
    "batch-job-v1",
    "batch-volcano-sh-job-v1alpha1",
    "jobset-x-k8s-io-jobset-v1alpha2",
    "leaderworkerset-x-k8s-io-leaderworkerset-v1",
    "nvidia-com-dynamographdeployment-v1alpha1",
    "nvidia-com-dynamographdeployment-v1beta1",
    "ray-io-raycluster-v1",
    "ray-io-rayjob-v1",
    "ray-io-rayservice-v1",
)
FINDINGS = {"scale-path-not-null-safe": 18, "condition-without-expectation": 2}
CONFIG = "definitions: [definitions]\n"


def legacy_definition(name: str) -> str:
    """The catalog's definition ``name`` as the legacy repository has it."""
    with open(os.path.join(ROOT, "catalog", f"{name}.yaml"), encoding="utf-8") as handle:
        text = re.sub(r" // [01]\)", ")", handle.read())
    if name == "batch-job-v1":
        for condition in ("Complete", "SuccessCriteriaMet"):
            text = text.replace(f'- type: {condition}\n              status: "True"', f"- type: {condition}")
    return text


def make_legacy_repo(repo, config: bool = True) -> object:
    """A git repository (one commit on ``main``, a committer of its own) with the legacy
    definitions in ``definitions/`` and, with ``config``, a ``.kartalint.yaml`` that says where
    they are (without it, as before ``kartalint init``)."""
    (repo / "definitions").mkdir(parents=True)
    for name in LEGACY:
        (repo / "definitions" / f"{name}.yaml").write_text(legacy_definition(name), encoding="utf-8")
    if config:
        (repo / ".kartalint.yaml").write_text(CONFIG, encoding="utf-8")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.name", "A Team")
    git(repo, "config", "user.email", "team@example.com")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "the team's definitions")
    return repo
