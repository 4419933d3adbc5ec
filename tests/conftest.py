"""Shared helpers: lint a YAML text, the reference data location, a base definition."""

from __future__ import annotations

import copy
import os
import subprocess
from typing import Any

import pytest
import yaml

from kartalint.load.documents import load_text
from kartalint.project import Config
from kartalint.rules.lint import lint_source

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The real-world reference data: ../shared/reference when present (the full set), else the
# trimmed subset vendored in tests/data/reference (tests/data/reference/README.md), so that a clone
# without ../shared runs every test path. KARTALINT_TEST_REFERENCE=vendored forces the subset.
SHARED_REFERENCE = os.path.join(os.path.dirname(ROOT), "shared", "reference")
VENDORED_REFERENCE = os.path.join(ROOT, "tests", "data", "reference")
HAVE_SHARED_REFERENCE = os.path.isdir(SHARED_REFERENCE) and os.environ.get("KARTALINT_TEST_REFERENCE") != "vendored"
REFERENCE = SHARED_REFERENCE if HAVE_SHARED_REFERENCE else VENDORED_REFERENCE
# Upstream parity (upstream's catalog and samples, which are not ours and never copied here).
needs_upstream = pytest.mark.skipif(
    not HAVE_SHARED_REFERENCE, reason="upstream parity needs ../shared/reference (a user's checkout has none)"
)

BASE_DEFINITION = """\
apiVersion: run.ai/v1alpha1
kind: Karta
metadata:
  name: example-com-trainer-v1
spec:
  structureDefinition:
    rootComponent:
      name: trainer
      kind:
        group: example.com
        version: v1
        kind: Trainer
      statusDefinition:
        phaseDefinition:
          path: .status.phase
        conditionsDefinition:
          path: .status.conditions
          typeFieldName: type
          statusFieldName: status
          reasonFieldName: reason
          messageFieldName: message
        statusMappings:
          running:
          - byPhase: Running
          failed:
          - byConditions:
            - type: Failed
              status: "True"
    childComponents:
    - name: worker
      kind:
        group: ""
        version: v1
        kind: Pod
      ownerRef: trainer
      specDefinition:
        podTemplateSpecPath: .spec.roles[].template
      scaleDefinition:
        replicasPath: .spec.roles[] | (.replicas // 1)
      instanceIdPath: .spec.roles[].name
      podSelector:
        componentTypeSelector:
          keyPath: .metadata.labels["example.com/role"]
        componentInstanceSelector:
          idPath: .metadata.labels["example.com/role"]
  optimizationInstructions:
    gangScheduling:
      podGroup:
        name: all
        subGroups:
        - componentName: worker
"""


def base() -> dict[str, Any]:
    return copy.deepcopy(yaml.safe_load(BASE_DEFINITION))


def lint_text(text: str, name: str = "def.yaml", config: Config = None):
    findings = lint_source(load_text(text, name), config or Config()).findings
    return findings


def lint_data(data: Any) -> list:
    return lint_text(yaml.safe_dump(data, sort_keys=False))


def rule_ids(findings) -> list[str]:
    return sorted({f.rule for f in findings})


def git(repo, *args):
    """Run git in ``repo`` with a fixed author (tests build throwaway repositories)."""
    subprocess.run(
        ["git", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        env=dict(
            os.environ,
            GIT_AUTHOR_NAME="t",
            GIT_AUTHOR_EMAIL="t@example.com",
            GIT_COMMITTER_NAME="t",
            GIT_COMMITTER_EMAIL="t@example.com",
        ),
    )
