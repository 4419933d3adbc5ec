"""Python plugins (docs/api.md, Rule API): a distribution built in a temporary folder registers a
rule family under the entry point group ``kartalint.rules``, is installed into a fresh virtual
environment (offline: no index, no dependencies fetched; kartalint comes from this environment), and
loads like kartalint's own families: `--version` and `rules` list it, `lint` reports its findings
at their places, its examples run with `rules --check`, a check that raises is a finding, and a
plugin that cannot be imported is one warning while the run goes on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import textwrap

import pytest
from conftest import BASE_DEFINITION, build_wheel
from test_house_rules import line_of

from kartalint.model import Rule, Severity
from kartalint.rules import plugins
from kartalint.rules.context import Check

FAMILY = '''\
"""Acme's rules in Python: checks jq cannot say."""

import os

from kartalint.model import Rule, Severity
from kartalint.rules.context import Check, Context

FEW_REPLICAS = "acme-few-replicas"
NO_OWNER = "acme-raises"

RULES = (
    Rule(FEW_REPLICAS, Severity.WARNING, "practice", "A role reads its replicas without a default.",
         "give the replicas a default (`// 1`)", why="Acme's jobs often leave replicas out."),
    Rule(NO_OWNER, Severity.ERROR, "practice", "A check that raises on a definition named raise-me.",
         "nothing to fix", why="Shows what a plugin's bug becomes."),
)


def few_replicas(ctx: Context) -> None:
    for index, component in enumerate(ctx.data["spec"]["structureDefinition"].get("childComponents") or []):
        path = component.get("scaleDefinition", {}).get("replicasPath", "")
        if "//" not in path:
            where = ("spec", "structureDefinition", "childComponents", index, "scaleDefinition", "replicasPath")
            ctx.report(FEW_REPLICAS, where, f"role {component['name']} reads its replicas without a default")


def raises(ctx: Context) -> None:
    if ctx.data["metadata"]["name"] == "raise-me":
        ctx.report(NO_OWNER, ("metadata", "name"), "reported before the exception: left out")
        raise RuntimeError("the plugin has a bug")


CHECKS = (Check((FEW_REPLICAS,), few_replicas), Check((NO_OWNER,), raises))
EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "examples")
'''


def build_plugin(folder, name, package, module_text, entry, examples=None):
    """A distribution ``name`` with ``package/rules.py`` (``module_text``) registering ``entry``."""
    (folder / package).mkdir(parents=True)
    (folder / package / "__init__.py").write_text("")
    (folder / package / "rules.py").write_text(module_text)
    for rule_id, files in (examples or {}).items():
        (folder / package / "examples" / rule_id).mkdir(parents=True)
        for file_name, text in files.items():
            (folder / package / "examples" / rule_id / file_name).write_text(text)
    (folder / "pyproject.toml").write_text(
        textwrap.dedent(
            f"""\
            [build-system]
            requires = ["setuptools>=61"]
            build-backend = "setuptools.build_meta"

            [project]
            name = "{name}"
            version = "1.0.0"

            [project.entry-points."kartalint.rules"]
            {entry}

            [tool.setuptools]
            packages = ["{package}"]

            [tool.setuptools.package-data]
            "{package}" = ["examples/*/*.yaml"]
            """
        )
    )
    build_wheel(folder, folder / "dist")
    (wheel,) = (folder / "dist").glob("*.whl")
    return wheel


@pytest.mark.slow  # two wheels built and a virtual environment made: ~10 s on two cores
def test_a_plugin_built_and_installed_in_a_fresh_environment_loads_like_a_family(tmp_path):
    bad = BASE_DEFINITION.replace("(.replicas // 1)", ".replicas")
    good = BASE_DEFINITION
    marked = bad.replace(
        "replicasPath: .spec.roles[] | .replicas", "replicasPath: .spec.roles[] | .replicas  # <- here"
    )
    wheel = build_plugin(
        tmp_path / "acme",
        "acme-kartalint",
        "acme_kartalint",
        FAMILY,
        'acme = "acme_kartalint.rules"',
        {"acme-few-replicas": {"bad.yaml": marked, "good.yaml": good}},
    )
    broken = build_plugin(
        tmp_path / "broken",
        "broken-kartalint",
        "broken_kartalint",
        "import no_such_module\n",
        'broken = "broken_kartalint.rules"',
    )
    venv = tmp_path / "fresh"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = str(venv / "bin" / "python")
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # kartalint and its dependencies: this environment's, as a site folder of the fresh one (its
    # editable install's finder included); nothing is fetched
    with open(os.path.join(site, "kartalint-under-test.pth"), "w", encoding="utf-8") as handle:
        handle.write(f"import site; site.addsitedir({sysconfig.get_paths()['purelib']!r})\n")
    installed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            python,
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            str(wheel),
            str(broken),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert installed.returncode == 0, installed.stderr
    project = tmp_path / "project"
    project.mkdir()
    (project / ".kartalint.yaml").write_text("definitions: [.]\n")
    (project / "bad.yaml").write_text(bad)
    (project / "raise.yaml").write_text(BASE_DEFINITION.replace("name: example-com-trainer-v1", "name: raise-me"))

    def kartalint(*args):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHONPATH"))}
        proc = subprocess.run(
            [python, "-m", "kartalint", *args], cwd=project, capture_output=True, text=True, env=env, timeout=300
        )
        assert "Traceback" not in proc.stderr, proc.stderr
        return proc

    warning = "kartalint: warning: plugin 'broken' (broken_kartalint 1.0.0, broken_kartalint.rules) is not loaded: ModuleNotFoundError: No module named 'no_such_module'; its rules are not checked"
    version = kartalint("--version")
    assert version.returncode == 0
    assert (
        "plugin acme_kartalint 1.0.0: acme = acme_kartalint.rules (2 rule(s): acme-few-replicas, acme-raises)"
        in version.stdout
    )
    assert version.stderr.count(warning) == 1
    rules = kartalint("rules")
    assert rules.returncode == 0 and rules.stderr.count(warning) == 1
    line = next(line for line in rules.stdout.splitlines() if line.startswith("acme-few-replicas "))
    assert line.split()[1:3] == ["warning", "practice"] and line.endswith("[plugin acme_kartalint 1.0.0]")
    assert (
        "\nplugins:\nacme_kartalint 1.0.0: acme = acme_kartalint.rules (acme-few-replicas, acme-raises)\n"
        in rules.stdout
    )
    lint = kartalint("lint", "--format", "json", "bad.yaml", "raise.yaml")
    findings = json.loads(lint.stdout)["findings"]
    at = line_of(bad, "replicasPath:")
    assert [(f["file"], f["rule"], f["line"], f["column"]) for f in findings] == [
        ("bad.yaml", "acme-few-replicas", at, bad.splitlines()[at - 1].index(".spec") + 1),
        ("raise.yaml", "house-rule-failed", 1, 1),
    ]
    assert findings[1]["message"] == (
        "plugin 'acme' (acme_kartalint 1.0.0, acme_kartalint.rules): check acme_kartalint.rules.raises raised "
        "RuntimeError: the plugin has a bug; its findings on this definition are left out"
    )
    assert lint.returncode == 1 and lint.stderr.count(warning) == 1
    check = kartalint("rules", "--check")
    assert check.returncode == 0, check.stdout
    assert check.stdout.splitlines()[0] == "PASS acme-few-replicas (plugin acme_kartalint 1.0.0)"
    sarif = json.loads(kartalint("lint", "--format", "sarif", "bad.yaml").stdout)
    descriptor = next(r for r in sarif["runs"][0]["tool"]["driver"]["rules"] if r["id"] == "acme-few-replicas")
    assert "helpUri" not in descriptor and "Declared in plugin acme_kartalint 1.0.0." in descriptor["help"]["text"]


def test_entry_points_are_read_from_the_distributions_on_the_path(tmp_path):
    (tmp_path / "acme_kartalint-1.0.0.dist-info").mkdir()
    (tmp_path / "acme_kartalint-1.0.0.dist-info" / "entry_points.txt").write_text(
        "[console_scripts]\nacme = acme:main\n\n[kartalint.rules]\nacme = acme_kartalint.rules:FAMILY [extra]\n"
    )
    (tmp_path / "other-2.0.dist-info").mkdir()  # a distribution without entry points
    (tmp_path / "old.egg-info").mkdir()
    (tmp_path / "old.egg-info" / "entry_points.txt").write_text("[kartalint.rules]\nold = old_rules\n")
    assert plugins.entry_points([str(tmp_path), str(tmp_path / "missing")]) == [
        ("acme_kartalint", "1.0.0", "acme", "acme_kartalint.rules:FAMILY"),
        ("old", "", "old", "old_rules"),
    ]


class _Family:
    RULES = (Rule("acme-x", Severity.WARNING, "practice", "x.", "fix", why="why"),)
    CHECKS = (Check(("acme-x",), lambda ctx: None),)


@pytest.mark.parametrize(
    "family, problem",
    [
        (type("F", (), {"RULES": ()}), "it declares no RULES"),
        (type("F", (), {"RULES": ("acme-x",)}), "RULES holds str, not kartalint.model.Rule"),
        (
            type("F", (), {"RULES": (Rule("unknown-owner-ref", Severity.ERROR, "practice", "s"),)}),
            "rule id 'unknown-owner-ref' is taken",
        ),
        (type("F", (), {"RULES": (Rule("acme-x", Severity.ERROR, "acme", "s"),)}), "unknown category 'acme'"),
        (
            type("F", (), {"RULES": _Family.RULES, "CHECKS": (Check(("acme-y",), print),)}),
            "a check reports rules it does not declare",
        ),
    ],
)
def test_a_family_that_is_not_one_is_refused_with_why(family, problem):
    with pytest.raises(ValueError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        plugins._family(family, ("practice",), {"unknown-owner-ref"})
    rules, checks = plugins._family(_Family, ("practice",), {"unknown-owner-ref"})
    assert [r.id for r in rules] == ["acme-x"] and len(checks) == 1
