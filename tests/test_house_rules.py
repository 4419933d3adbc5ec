"""House rules (`house-rules:` of the configuration, docs/house-rules.md): each unit and where its
findings are placed, the configuration that takes them part in everything a rule does (severities,
`off`, per-file-ignores, inline suppressions, the baseline, `--disable`, `extends:`), and house rules
that cannot run: reported once, where they are written, never a traceback, never a silent pass."""

from __future__ import annotations

import json
import os
import textwrap
import time

import pytest
from conftest import BASE_DEFINITION, git, run_cli

from kartalint.rules import _house_jq
from kartalint.rules.house import HOUSE_RULE_FAILED

UNITS = """\
house-rules:
  - id: acme-definition
    for-each: definition
    when: '.metadata.name | startswith("example")'
    message: 'definition \\(.metadata.name) ($path \\($path | tojson))'
  - id: acme-component
    severity: error
    for-each: component
    when: '.ownerRef != null or .name == "trainer"'
    message: 'component \\(.name) of \\($definition.metadata.name) at \\($path | map(tostring) | join("."))'
    hint: fix the component
    why: components matter
  - id: acme-status
    severity: info
    for-each: status-mapping
    when: 'length >= 1'
    message: '\\($path[-1]) has \\(length) matcher(s)'
  - id: acme-expression
    for-each: expression
    when: 'test("roles")'
    message: '\\($path[-1]) reads the roles: \\(.)'
"""


def line_of(text: str, needle: str, start: int = 1) -> int:
    """The 1-based number of the first line (from ``start``) holding ``needle``."""
    for number, line in enumerate(text.splitlines(), 1):
        if number >= start and needle in line:
            return number
    raise AssertionError(needle)


def column_of(text: str, line: int, needle: str) -> int:
    return text.splitlines()[line - 1].index(needle) + 1


def key(text: str, rule: str, line: int, name: str) -> tuple:
    """(rule, line, column, end line, end column) of the key ``name`` on ``line``."""
    column = column_of(text, line, name + ":")
    return (rule, line, column, line, column + len(name))


def make_project(folder, config: str, files: dict[str, str] | None = None):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ".kartalint.yaml").write_text(config)
    for name, text in (files or {"def.yaml": BASE_DEFINITION}).items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def lint_json(folder, *args):
    code, out, err = run_cli(["lint", "--format", "json", *args], cwd=folder)
    assert "Traceback" not in err, err
    return code, json.loads(out)["findings"] if out.strip() else [], err


def test_each_unit_is_placed_at_its_key_and_sees_its_path_and_definition(tmp_path):
    project = make_project(tmp_path / "p", UNITS)
    code, findings, _ = lint_json(project, "def.yaml")
    text = BASE_DEFINITION
    root = line_of(text, "rootComponent:")
    worker = line_of(text, "- name: worker")
    running = line_of(text, "running:")
    failed = line_of(text, "failed:")
    expressions = [line_of(text, "podTemplateSpecPath"), line_of(text, "replicasPath"), line_of(text, "instanceIdPath")]
    got = [
        (f["rule"], f["line"], f["column"], f["endLine"], f["endColumn"], f["severity"], f["message"]) for f in findings
    ]
    name = line_of(text, "  name: example-com-trainer-v1")
    assert got == sorted(
        [
            (*key(text, "acme-definition", name, "name"), "warning", "definition example-com-trainer-v1 ($path [])"),
            (
                *key(text, "acme-component", root, "rootComponent"),
                "error",
                "component trainer of example-com-trainer-v1 at spec.structureDefinition.rootComponent",
            ),
            (
                *key(text, "acme-component", worker, "name"),
                "error",
                "component worker of example-com-trainer-v1 at spec.structureDefinition.childComponents.0",
            ),
            (*key(text, "acme-status", running, "running"), "info", "running has 1 matcher(s)"),
            (*key(text, "acme-status", failed, "failed"), "info", "failed has 1 matcher(s)"),
            *[
                (
                    "acme-expression",
                    line,
                    column_of(text, line, ".spec.roles"),
                    line,
                    len(text.splitlines()[line - 1]) + 1,
                    "warning",
                    f"{key} reads the roles: {text.splitlines()[line - 1].split(': ', 1)[1]}",
                )
                for line, key in zip(
                    expressions, ("podTemplateSpecPath", "replicasPath", "instanceIdPath"), strict=True
                )
            ],
        ],
        key=lambda g: (g[1], g[2], g[0]),
    )
    assert code == 1  # an error-level house rule fails the run as any rule does
    component = next(f for f in findings if f["rule"] == "acme-component")
    assert component["hint"] == "fix the component"
    assert component["path"] == ["spec", "structureDefinition", "rootComponent"]


def test_severities_off_per_file_ignores_disable_and_paths(tmp_path):
    files = {"def.yaml": BASE_DEFINITION, "legacy/old.yaml": BASE_DEFINITION, "only/here.yaml": BASE_DEFINITION}
    config = UNITS.replace("    when: 'length >= 1'\n", "    when: 'length >= 1'\n    paths: ['only/']\n")
    assert config != UNITS
    config += "rules:\n  acme-definition: off\n  acme-component: warning\nper-file-ignores:\n  'legacy/**': [acme-expression]\n"
    project = make_project(tmp_path / "p", config, files)
    code, findings, _ = lint_json(project, ".")
    by_file: dict[str, set[str]] = {}
    for f in findings:
        by_file.setdefault(os.path.normpath(f["file"]), set()).add(f["rule"])
    assert by_file == {
        "def.yaml": {"acme-component", "acme-expression"},
        "legacy/old.yaml": {"acme-component"},
        "only/here.yaml": {"acme-component", "acme-expression", "acme-status"},
    }
    assert {f["severity"] for f in findings if f["rule"] == "acme-component"} == {"warning"}
    assert code == 0  # acme-component turned down to a warning
    code, findings, _ = lint_json(project, "def.yaml", "--disable", "acme-component")
    assert {f["rule"] for f in findings} == {"acme-expression"}


def test_inline_suppressions_know_house_rules(tmp_path):
    text = BASE_DEFINITION.replace(
        "    - name: worker\n", "    - name: worker  # kartalint: disable=acme-component -- a legacy role\n"
    )
    text = text.replace(
        "  name: example-com-trainer-v1\n", "  name: example-com-trainer-v1  # kartalint: disable=acme-status\n"
    )
    project = make_project(tmp_path / "p", UNITS, {"def.yaml": text})
    _code, out, _err = run_cli(["lint", "--format", "json", "def.yaml"], cwd=project)
    document = json.loads(out)
    rules = [(f["rule"], f["line"]) for f in document["findings"]]
    name = line_of(text, "  name: example-com-trainer-v1")
    assert ("acme-component", line_of(text, "- name: worker")) not in rules
    assert ("acme-component", line_of(text, "rootComponent:")) in rules
    assert ("unused-suppression", name) in rules  # acme-status does not fire on that line
    assert "unknown-suppression" not in {r for r, _ in rules}  # house rule ids are known
    assert document["suppressed"] == 1


def test_a_baseline_records_house_rule_findings(tmp_path):
    project = make_project(tmp_path / "p", UNITS)
    code, _, err = run_cli(["lint", "--write-baseline", "base.json", "def.yaml"], cwd=project)
    assert code == 0, err
    recorded = json.loads((project / "base.json").read_text())["findings"]
    assert {f["rule"] for f in recorded} == {"acme-definition", "acme-component", "acme-status", "acme-expression"}
    code, findings, err = lint_json(project, "--baseline", "base.json", "def.yaml")
    assert code == 0 and findings == [] and "8 in the baseline" in err
    (project / "def.yaml").write_text(BASE_DEFINITION.replace("- name: worker", "- name: learner"))
    code, findings, _ = lint_json(project, "--baseline", "base.json", "def.yaml")
    assert [f["message"] for f in findings if f["rule"] == "acme-component"] == [
        "component learner of example-com-trainer-v1 at spec.structureDefinition.childComponents.0"
    ]


def test_extends_merges_house_rules_by_id(tmp_path):
    repo = tmp_path / "repo"
    make_project(repo / "platform", UNITS, {})
    team = make_project(
        repo / "team",
        textwrap.dedent(
            """\
            extends: ../platform/.kartalint.yaml
            house-rules:
              - id: acme-definition
                for-each: definition
                when: 'true'
                message: 'the team says \\(.metadata.name)'
            rules:
              acme-status: off
              acme-expression: off
            """
        ),
    )
    git(repo, "init", "-q")
    _code, findings, _err = lint_json(team, "def.yaml")
    assert sorted({(f["rule"], f["message"]) for f in findings if f["rule"] != "acme-component"}) == [
        ("acme-definition", "the team says example-com-trainer-v1")
    ]
    assert {f["rule"] for f in findings} == {"acme-definition", "acme-component"}


@pytest.mark.parametrize(
    "entry, where, message",
    [
        (
            "  - {id: unknown-owner-ref, for-each: definition, when: 'true', message: m}",
            (2, "unknown-owner-ref"),
            "a rule of kartalint has this id",
        ),
        (
            "  - {id: Acme_x, for-each: definition, when: 'true', message: m}",
            (2, "Acme_x"),
            "house rule 'id' must be an id of lowercase",
        ),
        (
            "  - {id: acme-x, for-each: pods, when: 'true', message: m}",
            (2, "pods"),
            "house rule 'for-each' must be one of definition",
        ),
        ("  - {id: acme-x, for-each: definition, message: m}", (2, "{"), "a house rule needs when"),
        (
            "  - {id: acme-x, for-each: definition, when: 'true', message: m, hnit: x}",
            (2, "hnit"),
            "unknown house rule key(s) hnit",
        ),
        (
            "  - {id: acme-x, for-each: definition, when: 'true', message: m, severity: fatal}",
            (2, "fatal"),
            "must be error, warning or info",
        ),
        (
            "  - {id: acme-x, for-each: definition, when: 'true', message: m, paths: ['a/[z-a]']}",
            (2, "'a/"),
            "bad pattern",
        ),
        (
            "  - {id: acme-x, for-each: definition, when: 'true', message: m, examples: {bad: ../../x.yaml, good: g.yaml}}",
            (2, "../../x.yaml"),
            "outside the repository",
        ),
        (
            "  - {id: acme-x, for-each: definition, when: 'true', message: m}\n  - {id: acme-x, for-each: component, when: 'true', message: m}",
            (3, "acme-x"),
            "declared twice",
        ),
    ],
)
def test_a_house_rule_the_configuration_cannot_hold_is_a_usage_error_at_its_place(tmp_path, entry, where, message):
    config = f"house-rules:\n{entry}\n"
    project = make_project(tmp_path / "repo" / "p", config)
    git(tmp_path / "repo", "init", "-q")
    code, out, err = run_cli(["lint", "def.yaml"], cwd=project)
    line = where[0]
    column = config.splitlines()[line - 1].index(where[1]) + 1
    assert code == 2 and out == ""
    assert f".kartalint.yaml:{line}:{column}: " in err and message in err, err
    assert "Traceback" not in err


def test_a_house_rule_id_is_named_in_rules_and_per_file_ignores_only_once_declared(tmp_path):
    project = make_project(tmp_path / "p", "rules:\n  acme-x: off\n")
    code, _, err = run_cli(["lint", "def.yaml"], cwd=project)
    assert code == 2 and "unknown rule 'acme-x'" in err


HOSTILE = """\
house-rules:
  - id: acme-fine
    for-each: definition
    when: 'true'
    message: 'fine \\([range(100000)] | tostring)'
  - id: acme-endless
    for-each: definition
    when: 'last(repeat(1)) == 2'
    message: never
  - id: acme-many
    for-each: expression
    when: 'range(1e9) | false'
    message: never
  - id: acme-input
    for-each: component
    when: '.name == input'
    message: never
  - id: acme-env
    for-each: definition
    when: '$ENV.HOME != null'
    message: '\\(env.HOME)'
  - id: acme-import
    for-each: definition
    when: 'import "x" as x; true'
    message: never
  - id: acme-recursion
    for-each: definition
    when: 'def f: f; f'
    message: never
  - id: acme-undefined
    for-each: definition
    when: 'no_such_function(1)'
    message: never
  - id: acme-quote
    for-each: definition
    when: 'true'
    message: 'say "hi"'
  - id: acme-fails
    for-each: component
    when: '.nope | test("x")'
    message: never
  - id: acme-not-boolean
    for-each: component
    when: '.name'
    message: never
"""


def test_hostile_house_rules_are_stopped_and_said_once_where_they_are_written(tmp_path, monkeypatch):
    """Endless, huge and sandbox-breaking `when`s: each a `house-rule-failed` error at its place in
    the configuration, once for a run over many files, whatever -j; the other rules run."""
    files = {
        f"defs/d{i}.yaml": BASE_DEFINITION.replace("example-com-trainer-v1", f"example-com-trainer-v{i}")
        for i in range(6)
    }
    project = make_project(tmp_path / "p", HOSTILE, files)
    warm = make_project(tmp_path / "warm", UNITS)
    started = time.monotonic()
    assert lint_json(warm, "def.yaml")[0] == 1  # the worker started and a program compiled, at the usual limit
    monkeypatch.setattr(_house_jq, "HOUSE_TIMEOUT", max(1.0, 10 * (time.monotonic() - started)))
    results = {}
    for jobs in ("1", "2"):
        code, findings, err = lint_json(project, "-j", jobs, "defs")
        assert code == 1, err
        results[jobs] = findings
    assert results["1"] == results["2"]
    failures = {f["path"][1]: f for f in results["1"] if f["rule"] == HOUSE_RULE_FAILED}
    config = HOSTILE.splitlines()
    expected = {
        "acme-endless": ("when", "`when` failed: did not finish within"),
        "acme-many": ("when", "`when` failed: did not finish within"),
        "acme-input": ("when", "'input' reads further inputs"),
        "acme-env": ("when", "'$ENV' reads the process environment"),
        "acme-import": ("when", "'import' reads jq modules from files"),
        "acme-recursion": ("when", "calls itself on every path and never returns"),
        "acme-undefined": ("when", "does not compile: no_such_function/1 is not defined"),
        "acme-quote": ("message", "`message` is not valid jq"),
        "acme-fails": (
            "when",
            "`when` failed: null (null) cannot be matched, as it is not a string (on defs/d0.yaml at spec.structureDefinition.rootComponent)",
        ),
        "acme-not-boolean": ("when", '`when` failed: gave "trainer", not true, false or null (on defs/d0.yaml'),
    }
    assert sorted(failures) == sorted(expected)
    for rule_id, (part, text) in expected.items():
        finding = failures[rule_id]
        line = line_of(HOSTILE, f"id: {rule_id}") + (2 if part == "when" else 3)
        assert (finding["file"], finding["line"], finding["column"]) == (
            ".kartalint.yaml",
            line,
            config[line - 1].index(":") + 3,
        )
        assert text in finding["message"] and finding["severity"] == "error", finding["message"]
    fine = [f for f in results["1"] if f["rule"] == "acme-fine"]
    assert len(fine) == 6 and all(len(f["message"]) == 1000 and f["message"].startswith("fine [0,1,2,") for f in fine)
    assert {f["rule"] for f in results["1"]} == {"acme-fine", HOUSE_RULE_FAILED}


def test_a_house_rule_that_fails_on_one_definition_of_many_is_said_once_and_finds_nothing(tmp_path):
    config = textwrap.dedent(
        """\
        house-rules:
          - id: acme-picky
            for-each: definition
            when: '.metadata.name | if endswith("3") then error("cannot judge \\(.)") else true end'
            message: 'seen \\(.metadata.name)'
        """
    )
    files = {
        f"d{i}.yaml": BASE_DEFINITION.replace("example-com-trainer-v1", f"example-com-trainer-v{i}") for i in range(5)
    }
    project = make_project(tmp_path / "p", config, files)
    code, findings, _ = lint_json(project, ".")
    assert code == 1
    assert [(f["rule"], f["file"], f["line"]) for f in findings] == [(HOUSE_RULE_FAILED, ".kartalint.yaml", 4)]
    assert "cannot judge example-com-trainer-v3 (on d3.yaml at the document)" in findings[0]["message"]
    code, findings, _ = lint_json(project, "-q", "d0.yaml", "d1.yaml")  # where it does not fail, it finds
    assert [f["message"] for f in findings] == ["seen example-com-trainer-v0", "seen example-com-trainer-v1"]


def test_house_rule_failed_can_be_configured_like_any_rule(tmp_path):
    project = make_project(
        tmp_path / "p",
        HOSTILE.split("  - id: acme-endless")[0]
        + textwrap.dedent(
            """\
          - id: acme-input
            for-each: component
            when: 'input'
            message: never
        rules:
          house-rule-failed: warning
        """
        ),
    )
    code, findings, _ = lint_json(project, "def.yaml")
    assert code == 0 and {(f["rule"], f["severity"]) for f in findings} == {
        ("acme-fine", "warning"),
        (HOUSE_RULE_FAILED, "warning"),
    }


def test_rules_lists_house_rules_with_their_source_and_explains_one(tmp_path):
    project = make_project(tmp_path / "p", UNITS)
    code, out, _ = run_cli(["rules"], cwd=project)
    assert code == 0
    listing = out.split("\nhouse rules:\n")[1].splitlines()
    assert [line.split()[0] for line in listing] == [
        "acme-definition",
        "acme-component",
        "acme-status",
        "acme-expression",
    ]
    assert listing[1].split()[1:3] == ["error", "house"]
    assert "component … of … at … (components matter)" in listing[1] and listing[1].endswith(
        "(for each component; .kartalint.yaml:6)"
    )
    code, out, _ = run_cli(["rules", "--format", "json"], cwd=project)
    house = json.loads(out)["houseRules"]
    assert [h["id"] for h in house] == ["acme-definition", "acme-component", "acme-status", "acme-expression"]
    assert house[1]["why"] == "components matter" and house[1]["forEach"] == "component" and house[1]["line"] == 6
    code, out, _ = run_cli(["rules", "--markdown"], cwd=project)
    assert "## House rules" in out and "### `acme-component`" in out and out.startswith("# Rules")
    code, out, _ = run_cli(["rules", "acme-status"], cwd=project)
    assert (
        code == 0 and out.startswith("### `acme-status`") and "for each status-mapping" in out and "length >= 1" in out
    )


def test_a_configuration_that_cannot_be_read_still_lists_kartalints_rules(tmp_path):
    project = make_project(tmp_path / "p", "house-rules: nope\n")
    code, out, err = run_cli(["rules"], cwd=project)
    assert code == 0 and "unknown-owner-ref" in out
    assert "kartalint: warning: " in err and "'house-rules' must be a list" in err and "not listed" in err


def test_the_editor_schema_names_house_rule_keys_and_the_projects_house_rule_ids(tmp_path):
    from kartalint.schema.config import config_schema

    project = make_project(tmp_path / "p", UNITS)
    code, out, _ = run_cli(["schema", "--config"], cwd=project)
    rule_ids = json.loads(out)["properties"]["rules"]["propertyNames"]["enum"]
    assert code == 0 and "acme-component" in rule_ids and "unknown-owner-ref" in rule_ids
    schema = config_schema(["unknown-owner-ref"], 10)
    entry = schema["properties"]["house-rules"]["items"]
    assert entry["required"] == ["id", "for-each", "when", "message"]
    assert entry["properties"]["for-each"]["enum"] == ["definition", "component", "status-mapping", "expression"]
