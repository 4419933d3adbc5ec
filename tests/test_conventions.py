"""What every CLI user expects: a version that says what runs, shell completion, the kubectl plugin."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import pytest
import yaml
from conftest import REFERENCE, ROOT
from test_action import USES

from kartalint import __version__
from kartalint.cli import COMMAND_NAMES, main
from kartalint.cli.kubectl import UsageError, translate
from kartalint.cli.kubectl import main as kubectl_main
from kartalint.scaffold.release import libjq_version

JOBSET = os.path.join(REFERENCE, "objects", "karta-docs-quickstart--jobset.yaml")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- --version --------------------------------------------------------------------------------


def test_version_names_kartalint_python_and_libjq(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    out = capsys.readouterr().out
    assert exit_.value.code == 0
    lines = out.splitlines()
    assert lines[0].startswith(f"kartalint {__version__}")
    if os.path.exists(os.path.join(ROOT, ".git")):  # an editable checkout asks git for its commit
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
        assert f"(commit {head[:12]}" in lines[0]
    assert lines[1].startswith("Python " + ".".join(map(str, sys.version_info[:3])))
    assert re.fullmatch(r"jq bindings \S+, libjq \d+\.\d+(\.\d+)?", lines[2]), lines[2]


def test_libjq_version_is_the_one_the_bindings_run():
    """The version read from the extension agrees with what the library can do: jq 1.7 added
    `pick`, `have_decnum` and `$__loc__`; jq 1.8 added `trimstr`."""
    import jq

    version = libjq_version()
    assert version is not None
    major, minor = (int(part) for part in version.split(".")[:2])
    assert (major, minor) >= (1, 7)
    assert jq.compile("pick(.a)").input_value({"a": 1, "b": 2}).first() == {"a": 1}
    has_trimstr = True
    try:
        jq.compile('trimstr("a")')
    except ValueError:
        has_trimstr = False
    assert has_trimstr == ((major, minor) >= (1, 8))


# -- completion -------------------------------------------------------------------------------


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_script_names_every_command(capsys, shell):
    code, out, _ = run(capsys, "completion", shell)
    assert code == 0 and out.startswith("#")
    for name in COMMAND_NAMES:
        assert name in out, (shell, name)
    for option in ("strict-files", "allow-outside"):  # fish writes `-l strict-files`
        assert ("--" + option if shell != "fish" else "-l " + option) in out, (shell, option)


def _bash_complete(script: str, words: list[str]) -> list[str]:
    program = (
        f"source {script}\n"
        f"COMP_WORDS=({' '.join(repr(w) for w in words)}); COMP_CWORD={len(words) - 1}\n"
        f'COMP_LINE="{" ".join(words)}"; COMP_POINT=${{#COMP_LINE}}\n'
        f"_shtab_kartalint kartalint {words[-1]!r} {words[-2]!r}\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
        "complete -p kartalint\n"
    )
    proc = subprocess.run(["bash", "-c", program], capture_output=True, text=True, check=True)
    return proc.stdout.splitlines()


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
def test_bash_loads_the_completion_and_completes_commands_options_and_choices(capsys, tmp_path):
    script = tmp_path / "kartalint.bash"
    code, out, _ = run(capsys, "completion", "bash")
    assert code == 0
    script.write_text(out)
    lines = _bash_complete(str(script), ["kartalint", "de"])
    assert "describe" in lines and lines[-1].startswith("complete ") and lines[-1].endswith(" kartalint")
    assert {"--strict", "--strict-files"} <= set(_bash_complete(str(script), ["kartalint", "lint", "--str"]))
    assert set(_bash_complete(str(script), ["kartalint", "lint", "--format", ""])[:-1]) == {
        "auto",
        "text",
        "json",
        "github",
        "sarif",
    }


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
def test_bash_completes_rule_ids_after_rules_and_disable(capsys, tmp_path):
    """Issue 48: wherever a rule is named (`kartalint rules RULE`, `lint --disable RULE`), the
    shell offers the rule ids."""
    from kartalint.rules import registry

    script = tmp_path / "kartalint.bash"
    script.write_text(run(capsys, "completion", "bash")[1])
    assert set(_bash_complete(str(script), ["kartalint", "rules", ""])[:-1]) == set(registry.RULES)
    assert _bash_complete(str(script), ["kartalint", "rules", "scale-path"])[:-1] == ["scale-path-not-null-safe"]
    offered = _bash_complete(str(script), ["kartalint", "lint", "--disable", "jq-not-p"])[:-1]
    assert offered == ["jq-not-portable"]
    assert set(_bash_complete(str(script), ["kartalint", "lint", "--disable", ""])[:-1]) == set(registry.RULES)


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_zsh_and_fish_offer_rule_ids_too(capsys, shell):
    from kartalint.rules import registry

    out = run(capsys, "completion", shell)[1]
    assert all(rule_id in out for rule_id in registry.RULES), shell


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_zsh_and_fish_accept_the_script(capsys, tmp_path, shell):
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    script = tmp_path / f"kartalint.{shell}"
    script.write_text(run(capsys, "completion", shell)[1])
    proc = subprocess.run([shell, "-n", str(script)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_completion_of_an_unknown_shell_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["completion", "powershell"])
    assert exit_.value.code == 2 and "invalid choice" in capsys.readouterr().err


# -- kubectl plugin ---------------------------------------------------------------------------


def test_kubectl_dialect_is_translated():
    assert translate(["describe", "-f", "job.yaml"]) == ["describe", "job.yaml"]
    assert translate(["describe", "--filename=job.yaml", "-o", "json"]) == ["describe", "job.yaml", "--format", "json"]
    assert translate(["describe", "-fjob.yaml", "-oyaml", "--pods", "p.yaml"]) == [
        "describe",
        "job.yaml",
        "--pods",
        "p.yaml",
        "--format",
        "yaml",
    ]
    assert translate(["describe", "-f", "-", "-o", "wide"]) == ["describe", "-", "--format", "tree"]
    assert translate(["lint", "-f", "json", "defs/"]) == ["lint", "-f", "json", "defs/"]  # other commands as is
    for bad in (["describe", "-f"], ["describe", "-f", "x", "-o", "name"], ["describe", "-R", "-f", "d"]):
        with pytest.raises(UsageError):
            translate(bad)


def test_kubectl_plugin_describes_like_kartalint(capsys, monkeypatch):
    monkeypatch.chdir(os.path.dirname(JOBSET))
    assert kubectl_main(["describe", "-f", JOBSET, "-o", "json"]) == 0
    plugin = json.loads(capsys.readouterr().out)
    assert main(["describe", JOBSET, "-f", "json"]) == 0
    assert plugin == json.loads(capsys.readouterr().out)
    assert kubectl_main(["describe", "-f", JOBSET, "-o", "name"]) == 2
    assert "-o/--output must be one of" in capsys.readouterr().err
    assert kubectl_main([]) == 2 and "usage: kubectl karta" in capsys.readouterr().err


def _plugin_path(tmp_path):
    """A PATH whose first folder holds `kubectl-karta` as the installed console script does."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "kubectl-karta"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m kartalint.cli.kubectl "$@"\n')
    script.chmod(0o755)
    return f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")
def test_real_kubectl_lists_and_runs_the_plugin(tmp_path):
    env = dict(os.environ, PATH=_plugin_path(tmp_path), KUBECONFIG=str(tmp_path / "no-cluster"))
    listed = subprocess.run(["kubectl", "plugin", "list"], capture_output=True, text=True, env=env, timeout=60)
    assert str(tmp_path / "bin" / "kubectl-karta") in listed.stdout, listed.stdout + listed.stderr
    with open(JOBSET, encoding="utf-8") as handle:
        manifest = handle.read()
    described = subprocess.run(
        ["kubectl", "karta", "describe", "-f", "-", "-o", "json"],
        input=manifest,
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
    )
    assert described.returncode == 0, described.stderr
    view = json.loads(described.stdout)
    assert view["workload"]["kind"] == "JobSet" and view["components"]


KUBECTL = "/usr/bin/kubectl"


@pytest.mark.skipif(not os.access(KUBECTL, os.X_OK), reason="needs the real kubectl at /usr/bin/kubectl")
def test_with_pipx_and_krew_installed_kubectl_plugin_list_finds_one_karta_and_passes(tmp_path):
    """Issue 48: pipx links kartalint's console scripts into ~/.local/bin; Krew keeps its plugins
    (and itself, `kubectl-krew`) in ~/.krew/bin. kartalint ships no Krew plugin, so the one
    `kubectl-karta` is the package's and `kubectl plugin list` exits 0; a second one (what the
    Krew launcher was) makes it exit 1, which is what this test would see."""
    console_script = os.path.join(os.path.dirname(sys.executable), "kubectl-karta")
    if not os.access(console_script, os.X_OK):
        pytest.skip("kartalint is not installed with its console scripts in this environment")
    home = tmp_path / "home"
    pipx_bin, krew_bin, kubectl_bin = home / ".local" / "bin", home / ".krew" / "bin", tmp_path / "usr-bin"
    for folder in (pipx_bin, krew_bin, kubectl_bin):
        folder.mkdir(parents=True)
    (pipx_bin / "kubectl-karta").symlink_to(console_script)  # as pipx exposes an application's scripts
    (pipx_bin / "kartalint").symlink_to(os.path.join(os.path.dirname(sys.executable), "kartalint"))
    krew = krew_bin / "kubectl-krew"  # Krew itself, as its installer leaves it (a stand-in binary)
    krew.write_text('#!/bin/sh\necho "krew stand-in"\n')
    krew.chmod(0o755)
    (kubectl_bin / "kubectl").symlink_to(KUBECTL)
    if shutil.which("git"):  # (an editable install under test asks git for its commit; a wheel knows it)
        (kubectl_bin / "git").symlink_to(shutil.which("git"))
    env = {
        "HOME": str(home),
        "PATH": os.pathsep.join(map(str, (pipx_bin, krew_bin, kubectl_bin))),
        "KUBECONFIG": str(tmp_path / "no-cluster"),
    }

    def kubectl(*argv):
        return subprocess.run(["kubectl", *argv], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)

    listed = kubectl("plugin", "list")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    plugins = [line for line in listed.stdout.splitlines() if line.startswith("/")]
    assert sorted(plugins) == sorted([str(pipx_bin / "kubectl-karta"), str(krew)]), listed.stdout
    assert "warning" not in listed.stderr.lower(), listed.stderr
    version = kubectl("karta", "--version")
    assert version.returncode == 0 and version.stdout.startswith(f"kartalint {__version__}"), version.stderr
    # what the test guards against: a second kubectl-karta (the old Krew launcher's place)
    second = krew_bin / "kubectl-karta"
    second.write_text('#!/bin/sh\nexec kartalint "$@"\n')
    second.chmod(0o755)
    listed = kubectl("plugin", "list")
    assert listed.returncode == 1 and "overshadowed" in listed.stderr, listed.stdout + listed.stderr


def test_the_package_is_the_only_kubectl_karta_the_project_ships():
    """One console script, and no executable of that name in the repository (a Krew launcher, a
    release asset) that could end up on the PATH beside it."""
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib

    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as handle:
        scripts = tomllib.load(handle)["project"]["scripts"]
    assert scripts["kubectl-karta"] == "kartalint.cli.kubectl:main"
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    assert [name for name in listed.stdout.splitlines() if os.path.basename(name) == "kubectl-karta"] == []
    with open(os.path.join(ROOT, ".github", "workflows", "release.yml"), encoding="utf-8") as handle:
        assert "kubectl-karta" not in handle.read()


# -- generated files and workflows ------------------------------------------------------------


def _yamllint(*paths):
    from yamllint import linter
    from yamllint.config import YamlLintConfig

    config = YamlLintConfig("extends: default")
    problems = []
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            problems += [f"{path}:{p.line}:{p.column}: {p.message} ({p.rule})" for p in linter.run(handle, config)]
    return problems


@pytest.mark.parametrize("crd", ["kubeflow.org_pytorchjobs.yaml", "jobset.x-k8s.io_jobsets.yaml"])
def test_init_and_new_write_files_that_pass_yamllint_and_the_workflow_schema(capsys, tmp_path, crd):
    """Everything `init --crd` and `new` write (configuration, hooks, workflow, draft definition,
    fixture skeleton, a fixture from a real object) passes yamllint's default rules, line length
    included (issue 48)."""
    from check_jsonschema import main as check_jsonschema

    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    crd_path = os.path.join(REFERENCE, "crds", crd)
    code, _, err = run(capsys, "init", "--root", str(tmp_path), "--rev", "v9.9.9", "--crd", crd_path)
    assert code == 0, err
    code, _, err = run(capsys, "new", "--crd", crd_path, "-o", str(tmp_path / "draft.yaml"))
    assert code in (0, 1), err  # 1: the draft's review lists what to confirm
    code, _, err = run(
        capsys, "new", "fixture", JOBSET, "-o", str(tmp_path / "fixture.yaml"), "--source", "the docs' example"
    )
    assert code == 0, err
    drafted = [p for p in (tmp_path / "definitions").rglob("*.yaml")]
    assert len(drafted) >= 2, drafted  # the definition and its fixture skeleton
    written = [tmp_path / ".kartalint.yaml", tmp_path / ".pre-commit-config.yaml", *drafted]
    written += [p for p in tmp_path.glob("*.yaml")]
    workflow = tmp_path / ".github" / "workflows" / "kartalint.yml"
    assert _yamllint(*written, workflow) == []
    config = yaml.safe_load((tmp_path / ".kartalint.yaml").read_text())
    assert "baseline" not in config, "init writes nothing for a baseline (docs/ci.md: adopting)"
    data = yaml.safe_load(workflow.read_text())
    assert "baseline" not in data["jobs"]["kartalint"]["steps"][1]["with"]
    assert "on" in data and True not in data, "`on` is quoted: a YAML 1.1 reader would see the key true"
    [job] = data["jobs"].values()
    assert 0 < job["timeout-minutes"] <= 60
    with pytest.raises(SystemExit) as exit_:
        check_jsonschema(["--builtin-schema", "vendor.github-workflows", str(workflow)])
    assert exit_.value.code == 0, capsys.readouterr()
    from kartalint.scaffold.release import THIRD_PARTY_ACTIONS

    pins = {name: ref for name, _, ref in (step["uses"].partition("@") for step in job["steps"])}
    assert pins.pop("kartalint/kartalint") == "v9.9.9"
    assert pins == {name: commit for name, (commit, _) in THIRD_PARTY_ACTIONS.items()}


@pytest.mark.parametrize("operator", ["rbgs", "kaito-workspace", "appwrapper"])
def test_drafts_from_real_objects_and_their_fixtures_pass_yamllint(capsys, tmp_path, operator):
    """`new --crd --from` (long headers naming every object, folded expressions that multiply
    counts, one fixture per state seen with the objects and pods as recorded) and `init` pinned
    to a full commit (its workflow's `uses:` lines are longer than a line) pass yamllint's
    default rules, line length included."""
    data = os.path.join(ROOT, "tests", "data", "from-objects", operator)
    draft = tmp_path / "draft" / "draft.yaml"
    draft.parent.mkdir()
    code, _, err = run(capsys, "new", "--crd", os.path.join(data, "crd.yaml"), "--from", data, "-o", str(draft))
    assert code in (0, 1), err
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    code, _, err = run(capsys, "init", "--root", str(repo), "--rev", "c44b2bf45b2d729c23dfbfa24cd881f50338cfbd")
    assert code == 0, err
    fixtures = list(draft.parent.glob("*/*.yaml"))
    assert fixtures, "one fixture per state seen"
    written = [draft, *fixtures, repo / ".kartalint.yaml", repo / ".pre-commit-config.yaml"]
    assert _yamllint(*written, repo / ".github" / "workflows" / "kartalint.yml") == []
    assert max(len(line) for line in draft.read_text().splitlines()) <= 80


def test_the_repositorys_own_workflow_uses_current_inputs_and_uploads_the_junit_written(capsys):
    from check_jsonschema import main as check_jsonschema

    path = os.path.join(ROOT, ".github", "workflows", "kartalint.yml")
    with pytest.raises(SystemExit) as exit_:
        check_jsonschema(["--builtin-schema", "vendor.github-workflows", path])
    assert exit_.value.code == 0, capsys.readouterr()
    with open(path, encoding="utf-8") as handle:
        workflow = yaml.safe_load(handle)
    with open(os.path.join(ROOT, "action.yml"), encoding="utf-8") as handle:
        action = yaml.safe_load(handle)
    steps = workflow["jobs"]["catalog"]["steps"]
    [ours] = [s for s in steps if s.get("uses") == "./"]
    assert set(ours["with"]) <= set(action["inputs"]) and "paths" not in ours["with"], "deprecated input"
    [upload] = [s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@")]
    assert upload["with"]["path"] == f"${{{{ steps.{ours['id']}.outputs.junit }}}}", "upload what the action wrote"
    for job in workflow["jobs"].values():
        assert job.get("timeout-minutes")
    # pinned to commits (tests/test_action.py), the same as the workflow `init` writes
    from kartalint.scaffold.release import THIRD_PARTY_ACTIONS

    with open(path, encoding="utf-8") as handle:
        pins = [m for m in map(USES.match, handle.read().splitlines()) if m]
    used = {m.group("ref").partition("@")[0]: (m.group("ref").partition("@")[2], m.group("comment")) for m in pins}
    assert {name: used[name] for name in THIRD_PARTY_ACTIONS} == THIRD_PARTY_ACTIONS


def test_docs_show_the_workflow_init_writes():
    """docs/ci.md shows the workflow `kartalint init` writes, as it writes it (pinned to the
    commit the docs pin kartalint to, which tests/test_docs_examples.py checks exists)."""
    from kartalint.scaffold.init import _workflow

    with open(os.path.join(ROOT, "docs", "ci.md"), encoding="utf-8") as handle:
        docs = handle.read()
    heading = "# .github/workflows/kartalint.yml: what `kartalint init` writes (tests/test_conventions.py)\n"
    shown = docs[docs.index(heading) + len(heading) :]
    shown = shown[: shown.index("```")]
    revision = re.search(r"uses: kartalint/kartalint@(\w+)  # (.*)", shown)
    assert shown == _workflow("kartalint/kartalint", revision.group(1), revision.group(2))


def test_long_strings_are_folded_to_fit_and_read_back_as_themselves():
    """What `new` and `init` write (scaffold.fixture.dump): a string that would run past 80
    columns is folded at single spaces before the word that would cross it, and every string reads
    back as itself (leading, trailing, repeated spaces, quotes, `: `, `#`, YAML words, unicode)."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from kartalint.scaffold.fixture import dump

    words = st.sampled_from(
        [".spec.replicas", "|", "//", "(.x // 1)", "and", '"two  spaces"', "key:", "#", "- ", "'q'", "true", "1", "é"]
    )
    text = st.one_of(st.lists(words, max_size=30).map(" ".join), st.text(max_size=200))

    @settings(max_examples=300, deadline=None)
    @given(text)
    def reads_back(value):
        data = {"spec": {"roles": [{"name": "worker", "replicasPath": value, "more": [value]}]}}
        written = dump(data)
        assert yaml.safe_load(written) == data
        if " " in value and "  " not in value and value == value.strip() and value.isprintable():
            assert max(len(line) for line in written.splitlines() if " " in line.strip()) <= 80, written

    reads_back()
    folded = dump(
        {"replicasPath": ". as $o | .spec.groupTemplate.spec.roles[]? | ($o.spec.replicas // 1) * (.replicas // 1)"}
    )
    assert folded == (
        "replicasPath: >-\n"
        "  . as $o | .spec.groupTemplate.spec.roles[]? | ($o.spec.replicas // 1) *\n"
        "  (.replicas // 1)\n"
    )
