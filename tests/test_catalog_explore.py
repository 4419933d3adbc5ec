"""`kartalint explore` holds on the bundled catalog (issue 36): every definition whose kind has a
CRD here (../shared/reference/crds, or its vendored subset, and the operators' own CRDs in
tests/data/operator-crds) passes on seeds 0-4 at the default budget, with the assumptions the
repository's .kartalint.yaml states for admission rules the CRDs do not."""

from __future__ import annotations

import functools
import glob
import os

import pytest
from conftest import REFERENCE, ROOT, read_yaml

pytest.importorskip("hypothesis")

from kartalint import karta
from kartalint.explore.assume import parse_assumptions
from kartalint.explore.search import explore
from kartalint.load.crds import CrdIndex
from kartalint.project import read_config
from kartalint.rules import registry

CRD_FOLDERS = [os.path.join(REFERENCE, "crds"), os.path.join(ROOT, "tests", "data", "operator-crds")]
CATALOG = sorted(glob.glob(os.path.join(ROOT, "catalog", "*.yaml")))


@functools.cache
def crds() -> CrdIndex:
    return CrdIndex.from_paths(CRD_FOLDERS)


@functools.cache
def assumptions():
    return parse_assumptions(read_config(os.path.join(ROOT, ".kartalint.yaml"), rules=registry.RULES).explore_assume)


def _gvk(definition):
    return karta.gvk_of(karta.as_dict(karta.structure(definition).get("rootComponent")).get("kind"))


def _version(definition):
    return crds().get(_gvk(definition))


def _crd_texts() -> list[str]:
    texts = []
    for folder in CRD_FOLDERS:
        for path in sorted(glob.glob(os.path.join(folder, "*.y*ml"))):
            with open(path, encoding="utf-8") as handle:
                texts.append(handle.read())
    return texts


def _mentioned(gvk, texts) -> bool:
    """Whether a CRD file names the group, the kind and the version: decided on the text, as this
    runs at collection in every test process, where reading the CRD index took 7 s (the tests read
    it once, and the test below checks the two agree)."""
    group, version, kind = gvk
    return any(f"group: {group}\n" in t and f"kind: {kind}\n" in t and f"name: {version}\n" in t for t in texts)


TEXTS = _crd_texts()
EXPLORED = [os.path.basename(p)[: -len(".yaml")] for p in CATALOG if _mentioned(_gvk(read_yaml(p)), TEXTS)]
del TEXTS


def test_the_definitions_chosen_at_collection_are_those_the_crd_index_serves():
    served = [os.path.basename(p)[: -len(".yaml")] for p in CATALOG if _version(read_yaml(p)) is not None]
    assert served == EXPLORED


def test_the_operator_crds_reach_the_definitions_the_issue_names():
    assert {"sparkoperator-k8s-io-sparkapplication-v1beta2", "batch-volcano-sh-job-v1alpha1"} <= set(EXPLORED)
    assert len(EXPLORED) >= 10  # with ../shared: 20 of the 31 (the rest have no CRD at hand)


@pytest.mark.parametrize("name", ["sparkoperator-k8s-io-sparkapplication-v1beta2", "batch-volcano-sh-job-v1alpha1"])
def test_spark_and_volcano_hold_on_a_small_budget(name):
    """Before issue 36 SparkApplication failed on every seed (coreRequest "a", an empty new state)
    and Volcano on unnamed tasks and absent replicas."""
    definition = read_yaml(os.path.join(ROOT, "catalog", f"{name}.yaml"))
    found = explore(definition, _version(definition), examples=60, seed=0, max_time=600, assume=assumptions())
    assert [f.to_dict() for f in found.failures] == []


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("name", EXPLORED)
def test_every_bundled_definition_holds_under_explore(name, seed):
    definition = read_yaml(os.path.join(ROOT, "catalog", f"{name}.yaml"))
    found = explore(definition, _version(definition), seed=seed, assume=assumptions())  # the default budget
    assert [f.to_dict() for f in found.failures] == []
