"""CRD-aware lint: path-not-in-crd and crd-optional-arithmetic, from --crd and from `crds:`."""

from __future__ import annotations

import os
import pathlib
import shutil

import pytest
from conftest import REFERENCE, ROOT

from kartalint.cli import main
from kartalint.load.crds import CrdIndex, lookup

CRDS = os.path.join(REFERENCE, "crds")
JOBSET = os.path.join(ROOT, "catalog", "jobset-x-k8s-io-jobset-v1alpha2.yaml")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def typo(tmp_path):
    with open(JOBSET, encoding="utf-8") as handle:
        text = handle.read()
    text = text.replace("(.template.spec.parallelism // 1)", "(.template.spec.paralelism // 1)")
    text = text.replace("(.replicas // 1) *", ".replicas *")
    path = tmp_path / "jobset.yaml"
    path.write_text(text)
    return str(path)


def test_misspelled_field_is_found_with_the_closest_name(typo, capsys):
    code, out, _ = run(capsys, "lint", "--crd", CRDS, "-f", "json", typo)
    import json

    findings = json.loads(out)["findings"]
    by_rule = {f["rule"]: f for f in findings}
    assert code == 1
    missing = by_rule["path-not-in-crd"]
    assert "has no field 'paralelism' under .spec.replicatedJobs[].template.spec" in missing["message"]
    assert missing["hint"] == "did you mean 'parallelism'?"
    assert (missing["line"], missing["column"]) == (by_rule["crd-optional-arithmetic"]["line"], missing["column"])
    arith = by_rule["crd-optional-arithmetic"]
    assert "the CRD declares default 1" in arith["message"] and arith["hint"] == "write (.replicas // 1)"
    assert "scale-path-not-null-safe" not in by_rule  # replaced by the CRD-aware finding


def test_without_the_crd_only_generic_rules_fire(typo, capsys):
    _code, out, _ = run(capsys, "lint", "-f", "json", typo)
    import json

    rules = {f["rule"] for f in json.loads(out)["findings"]}
    assert "path-not-in-crd" not in rules and "scale-path-not-null-safe" in rules


def test_silent_on_the_whole_catalog(capsys):
    code, out, _err = run(capsys, "lint", "--strict", "--crd", CRDS, os.path.join(ROOT, "catalog"))
    assert code == 0 and out == "", out


def test_crds_from_configuration(typo, tmp_path, capsys, monkeypatch):
    shutil.copytree(CRDS, tmp_path / "crds")  # configuration paths stay inside the project
    (tmp_path / ".kartalint.yaml").write_text("crds:\n  - crds\n")
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "lint", "jobset.yaml")
    assert code == 1 and "path-not-in-crd" in out
    (tmp_path / ".kartalint.yaml").write_text(f"crds:\n  - {CRDS}\n")  # outside: only the command line may
    code, _, err = run(capsys, "lint", "jobset.yaml")
    assert code == 2 and "outside the project root" in err
    code, out, _ = run(capsys, "lint", "--config", "/dev/null", "--crd", CRDS, "jobset.yaml")
    assert code == 1 and "path-not-in-crd" in out


def test_missing_crd_path_is_a_usage_error(typo, capsys):
    code, _, err = run(capsys, "lint", "--crd", "nope/", typo)
    assert code == 2 and "--crd nope/: no such file or directory" in err


def test_lookup_handles_maps_preserve_unknown_and_metadata():
    index = CrdIndex.from_paths([CRDS])
    pytorch = index.get(("kubeflow.org", "v1", "PyTorchJob")).schema
    assert lookup(pytorch, ("spec", "pytorchReplicaSpecs", "[?]", "replicas")).found  # map of roles
    assert not lookup(pytorch, ("spec", "pytorchReplicaSpecs", "[?]", "replica")).found
    assert lookup(pytorch, ("metadata", "labels", "anything")).found
    jobset = index.get(("jobset.x-k8s.io", "v1alpha2", "JobSet")).schema  # a list of roles
    replicas = lookup(jobset, ("spec", "replicatedJobs", "[]", "replicas"))
    assert replicas.found and replicas.default == 1 and not replicas.required
    assert lookup(jobset, ("spec", "replicatedJobs", "[]", "name")).required


def test_a_crd_file_is_parsed_once_per_process_while_it_is_unchanged(tmp_path, monkeypatch):
    """The language server, `new --crd` and the tests ask for the same megabytes of CRD again: an
    unchanged file is not parsed again; a changed one (content, or only its mode) is."""
    import kartalint.load.crds as crds

    parsed = []
    real = crds._parse_crd_file
    monkeypatch.setattr(crds, "_parse_crd_file", lambda path: parsed.append(path) or real(path))
    path = tmp_path / "trainers.yaml"
    shutil.copyfile(os.path.join(ROOT, "tests", "data", "crds", "example.com_trainers.yaml"), path)
    first = CrdIndex.from_paths([str(tmp_path)])
    second = CrdIndex.from_paths([str(path.parent)])
    assert len(parsed) == 1 and first.versions.keys() == second.versions.keys() and not second.problems
    assert first.versions is not second.versions  # each caller gets its own index to change
    text = path.read_text()
    path.write_text(text.replace("kind: Trainer\n", "kind: Teacher\n"))
    changed = CrdIndex.from_paths([str(path)])
    assert len(parsed) == 2 and {v.kind for v in changed.versions.values()} == {"Teacher"}
    path.chmod(0o000)
    if os.access(path, os.R_OK):  # root reads it anyway: nothing to observe
        return
    assert CrdIndex.from_paths([str(path)]).problems and len(parsed) == 3


def test_a_definition_file_is_parsed_once_per_process_and_each_index_gets_its_own_data(tmp_path, monkeypatch):
    """Every command run in one process (a tool calling ``main``, the tests, the language server)
    indexes the bundled catalog again: an unchanged file is not parsed again, and what one caller
    changes in its definitions never reaches the next index."""
    import kartalint.load.definitions as definitions

    parsed = []
    real = definitions.load_file
    monkeypatch.setattr(definitions, "load_file", lambda path, *a, **k: parsed.append(path) or real(path, *a, **k))
    path = tmp_path / "jobset.yaml"
    shutil.copyfile(JOBSET, path)
    first = definitions.DefinitionIndex.from_paths([str(path)])
    ((gvk, entry),) = first.by_gvk.items()
    entry.data["spec"]["structureDefinition"] = "changed by the first caller"
    second = definitions.DefinitionIndex.from_paths([str(path)])
    assert len(parsed) == 1
    assert isinstance(second.by_gvk[gvk].data["spec"]["structureDefinition"], dict)
    path.write_text(path.read_text().replace("name: jobset-x-k8s-io-jobset-v1alpha2", "name: renamed", 1))
    third = definitions.DefinitionIndex.from_paths([str(path)])
    assert len(parsed) == 2 and "renamed" in third.by_name


def _crd_files(folder):
    import glob

    return sorted(
        p
        for p in glob.glob(os.path.join(folder, "**", "*.yaml"), recursive=True)
        if "CustomResourceDefinition" in pathlib.Path(p).read_text(encoding="utf-8", errors="replace")
    )


def _read_both_ways(path):
    from kartalint.load import crds

    plain = crds._parse_crd_file(path)
    assert plain == crds._parse_crd_file_with_positions(path), path
    return plain


def test_plain_crd_files_are_read_without_a_node_tree_to_the_same_index(tmp_path):
    """A CRD file of plain YAML is read from libyaml's events (6 times faster on the reference
    CRDs' 9 MB); what needs a place (a YAML problem, a CRD of the wrong shape) is read again with
    positions. Both give the same versions, documents and problems."""
    paths = _crd_files(os.path.join(ROOT, "tests", "data"))
    assert len(paths) >= 10
    for path in paths:
        _read_both_ways(path)
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
        "spec:\n  group: g\n  names: {kind: K}\n  versions: {}\n"
    )
    assert _read_both_ways(str(bad))[0] == [f"{bad}:6:3: spec.versions: must be a list"]
    duplicated = tmp_path / "duplicated.yaml"
    duplicated.write_text(
        pathlib.Path(paths[0]).read_text().replace("\nspec:\n", "\nspec:\n  group: first.example.com\n", 1)
    )
    assert "duplicate key" in _read_both_ways(str(duplicated))[0][0]


@pytest.mark.slow  # a walk over all the reference CRDs, twice
def test_the_reference_crds_read_without_a_node_tree_give_the_same_index():
    for path in _crd_files(os.path.join(REFERENCE, "crds")):
        _read_both_ways(path)
