"""`kartalint lsp` end to end: a real LSP client (pytest-lsp) talks to the server over stdio.

The project: the catalog's JobSet definition and its fixtures, the JobSet CRD configured, and a
copy of the definition with a misspelt jq path (`paralelism`)."""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest
import yaml

pytest.importorskip("pygls")
pytest_lsp = pytest.importorskip("pytest_lsp")
import pytest_asyncio  # noqa: E402
from conftest import REFERENCE, ROOT, run_cli  # noqa: E402
from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities  # noqa: E402

JOBSET = "jobset-x-k8s-io-jobset-v1alpha2"


def make_project(folder: pathlib.Path) -> pathlib.Path:
    (folder / "definitions").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(os.path.join(ROOT, "catalog", f"{JOBSET}.yaml"), folder / "definitions" / f"{JOBSET}.yaml")
    shutil.copytree(os.path.join(ROOT, "fixtures", JOBSET), folder / "fixtures" / JOBSET, dirs_exist_ok=True)
    (folder / "crds").mkdir(exist_ok=True)
    shutil.copyfile(os.path.join(REFERENCE, "crds", "jobset.x-k8s.io_jobsets.yaml"), folder / "crds" / "jobsets.yaml")
    (folder / ".kartalint.yaml").write_text("definitions: [definitions]\nfixtures: [fixtures]\ncrds: [crds]\n")
    text = (folder / "definitions" / f"{JOBSET}.yaml").read_text()
    broken = text.replace("(.template.spec.parallelism // 1)", "(.template.spec.paralelism // 1)", 1)
    assert broken != text
    (folder / "broken").mkdir(exist_ok=True)
    (folder / "broken" / "jobset-typo.yaml").write_text(broken)
    return folder


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return make_project(tmp_path_factory.mktemp("lsp-project"))


# One server for the tests of this module (in each test process): starting one costs 1-2 s of
# imports (pygls, lsprotocol). Each test works on its own files or reopens the ones it reads, and
# ``client`` closes every document the test left open, waiting for the empty diagnostics the close
# publishes, so no test sees what an earlier one left behind.
@pytest_lsp.fixture(
    scope="module",
    loop_scope="module",
    config=ClientServerConfig(server_command=[sys.executable, "-m", "kartalint", "lsp"]),
)
async def server(lsp_client: LanguageClient, project):
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=client_capabilities("visual-studio-code"), root_uri=project.as_uri())
    )
    lsp_client.project = project
    yield
    await lsp_client.shutdown_session()


@pytest_asyncio.fixture(loop_scope="module")
async def client(server: LanguageClient):
    opened: set[str] = set()
    did_open, did_close = server.text_document_did_open, server.text_document_did_close

    def track_open(params: types.DidOpenTextDocumentParams) -> None:
        opened.add(params.text_document.uri)
        did_open(params)

    def track_close(params: types.DidCloseTextDocumentParams) -> None:
        opened.discard(params.text_document.uri)
        did_close(params)

    server.text_document_did_open, server.text_document_did_close = track_open, track_close
    yield server
    server.text_document_did_open, server.text_document_did_close = did_open, did_close
    for uri in sorted(opened):
        server.diagnostics.pop(uri, None)
        did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
        await published(server, uri)


def uri_of(path: pathlib.Path) -> str:
    return path.as_uri()


async def open_and_wait(client: LanguageClient, path: pathlib.Path, text: str | None = None) -> list:
    text = path.read_text() if text is None else text
    uri = uri_of(path)
    client.diagnostics.pop(uri, None)
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "yaml", 1, text)))
    return await published(client, uri)


async def published(client: LanguageClient, uri: str, timeout: float = 20.0) -> list:
    """The diagnostics published for ``uri`` (open or not), waiting until some are."""
    for _ in range(int(timeout / 0.02)):
        if uri in client.diagnostics:
            return list(client.diagnostics[uri])
        await asyncio.sleep(0.02)
    raise AssertionError(f"no diagnostics published for {uri}")


async def open_catalog_definition(client: LanguageClient) -> tuple[pathlib.Path, str]:
    path = client.project / "definitions" / f"{JOBSET}.yaml"
    await open_and_wait(client, path)
    return path, path.read_text()


async def open_variant(
    client: LanguageClient, name: str, old: str, new: str, count: int = 1
) -> tuple[pathlib.Path, str, str, list]:
    """(path, the catalog text, the variant with ``old`` replaced, its diagnostics)."""
    text = (client.project / "definitions" / f"{JOBSET}.yaml").read_text()
    broken = text.replace(old, new, count)
    assert broken != text
    path = client.project / "broken" / name
    path.write_text(broken)
    return path, text, broken, await open_and_wait(client, path)


async def actions_for(client: LanguageClient, path: pathlib.Path, diagnostic: types.Diagnostic) -> list:
    return await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(uri_of(path)),
            diagnostic.range,
            types.CodeActionContext(diagnostics=[diagnostic]),
        )
    )


def apply(text: str, edit: types.TextEdit) -> str:
    lines = text.split("\n")
    start, end = edit.range.start, edit.range.end
    assert start.line == end.line
    line = lines[start.line]
    lines[start.line] = line[: start.character] + edit.new_text + line[end.character :]
    return "\n".join(lines)


def position_of(text: str, needle: str, offset: int = 0) -> types.Position:
    index = text.index(needle) + offset
    line = text.count("\n", 0, index)
    return types.Position(line, index - (text.rfind("\n", 0, index) + 1))


def lint_json(path: pathlib.Path, cwd: pathlib.Path) -> list:
    _code, out, _err = run_cli(["lint", "-f", "json", str(path)], cwd=cwd)
    return json.loads(out)["findings"]


@pytest.mark.asyncio(loop_scope="module")
async def test_diagnostics_of_a_typo_in_a_jq_path_have_the_exact_range(client: LanguageClient):
    path = client.project / "broken" / "jobset-typo.yaml"
    diagnostics = await open_and_wait(client, path)
    found = [d for d in diagnostics if d.code == "path-not-in-crd"]
    assert len(found) == 1
    text = path.read_text()
    start = position_of(text, ".template.spec.paralelism")
    assert found[0].range.start == start
    assert found[0].range.end.character == start.character + len(".template.spec.paralelism")
    assert found[0].severity == types.DiagnosticSeverity.Error
    assert found[0].code_description.href.endswith("docs/rules.md#path-not-in-crd")
    assert "did you mean 'parallelism'" in found[0].related_information[0].message
    # the same findings as `kartalint lint` in that project
    expected = lint_json(path, client.project)
    assert sorted(d.code for d in diagnostics) == sorted(f["rule"] for f in expected)


@pytest.mark.asyncio(loop_scope="module")
async def test_the_catalog_definition_is_clean_and_changes_are_linted_again(client: LanguageClient):
    path = client.project / "definitions" / f"{JOBSET}.yaml"
    assert await open_and_wait(client, path) == []
    text = path.read_text().replace("statusDefinition:", "statusDefiniton:", 1)
    uri = uri_of(path)
    client.diagnostics.pop(uri, None)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            [types.TextDocumentContentChangeWholeDocument(text)],
        )
    )
    assert {d.code for d in await published(client, uri)} >= {"unknown-field"}


@pytest.mark.asyncio(loop_scope="module")
async def test_code_action_fixes_the_typo_and_the_finding_disappears(client: LanguageClient):
    path = client.project / "broken" / "jobset-typo.yaml"
    diagnostics = await open_and_wait(client, path)
    typo = next(d for d in diagnostics if d.code == "path-not-in-crd")
    actions = await actions_for(client, path, typo)
    fix = next(a for a in actions if a.is_preferred)
    (edit,) = fix.edit.changes[uri_of(path)]
    text = path.read_text()
    fixed = apply(text, edit)
    assert fixed == text.replace("paralelism", "parallelism", 1)  # nothing else changed
    silence = next(a for a in actions if a.title.startswith("Silence"))
    assert silence.edit.changes[uri_of(path)][0].new_text == "  # kartalint: disable=path-not-in-crd"
    target = client.project / "broken" / "fixed.yaml"
    target.write_text(fixed)
    assert [f for f in lint_json(target, client.project) if f["rule"] == "path-not-in-crd"] == []


@pytest.mark.asyncio(loop_scope="module")
async def test_hover_shows_the_values_describe_computes(client: LanguageClient):
    path, text = await open_catalog_definition(client)
    replicas = position_of(text, "replicasPath: ", len("replicasPath: ") + 3)
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri_of(path)), replicas)
    )
    assert hover is not None and "On the fixtures:" in hover.contents.value
    objects = {}
    for fixture in (client.project / "fixtures" / JOBSET).glob("*.yaml"):
        data = yaml.safe_load(fixture.read_text())
        if data.get("kind") == "KartaFixture":  # not written-values.yaml
            objects[data["name"]] = data["object"]
    shown = re.findall(r"^- `(.+)`: `(.+)`$", hover.contents.value, re.M)
    assert len(shown) == 3  # the first three fixtures of this definition
    for name, values in shown:
        _code, described, _err = run_cli(
            ["describe", "-f", "json", "--definition", str(path), "-"],
            cwd=client.project,
            stdin=json.dumps(objects[name]),
        )
        view = json.loads(described)
        replicas = [i["replicas"]["replicas"] for c in view["components"] for i in c["instances"] if c["owner"]]
        assert json.loads(values) == replicas, name


@pytest.mark.asyncio(loop_scope="module")
async def test_hover_on_a_path_segment_shows_the_crd_field(client: LanguageClient):
    path, text = await open_catalog_definition(client)
    where = position_of(text, "parallelism // 1", 3)
    hover = await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri_of(path)), where))
    assert hover is not None and "parallelism" in hover.contents.value and "(integer)" in hover.contents.value


@pytest.mark.asyncio(loop_scope="module")
async def test_hover_on_a_suppressed_rule_shows_its_documentation(client: LanguageClient):
    path = client.project / "broken" / "suppressed.yaml"
    text = (
        path.parent.joinpath("jobset-typo.yaml")
        .read_text()
        .replace("metadata:\n", "metadata:  # kartalint: disable=unknown-field\n", 1)
    )
    path.write_text(text)
    await open_and_wait(client, path)
    where = position_of(text, "unknown-field", 3)
    hover = await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri_of(path)), where))
    assert hover is not None and hover.contents.value.startswith("**unknown-field** (error, schema)")


@pytest.mark.asyncio(loop_scope="module")
async def test_completion_offers_crd_fields_karta_fields_and_component_names(client: LanguageClient):
    path = client.project / "broken" / "completion.yaml"
    base = (client.project / "definitions" / f"{JOBSET}.yaml").read_text()
    text = base.replace("(.template.spec.parallelism // 1)", "(.template.spec.)", 1)
    path.write_text(text)
    await open_and_wait(client, path, text)
    where = position_of(text, "(.template.spec.)", len("(.template.spec."))
    result = await client.text_document_completion_async(
        types.CompletionParams(types.TextDocumentIdentifier(uri_of(path)), where)
    )
    labels = {item.label for item in result.items}
    assert {"parallelism", "completions", "template"} <= labels
    # a Karta field name under the root component
    lines = text.split("\n")
    root_line = next(i for i, line in enumerate(lines) if line.strip() == "rootComponent:")
    indent = len(lines[root_line + 1]) - len(lines[root_line + 1].lstrip())
    lines.insert(root_line + 1, " " * indent)
    text2 = "\n".join(lines)
    path.write_text(text2)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri_of(path), version=2),
            [types.TextDocumentContentChangeWholeDocument(text2)],
        )
    )
    result = await client.text_document_completion_async(
        types.CompletionParams(types.TextDocumentIdentifier(uri_of(path)), types.Position(root_line + 1, indent))
    )
    labels = {item.label for item in result.items}
    assert "scaleDefinition" in labels or "instanceIdPath" in labels or "podSelector" in labels
    assert "name" not in labels  # already there
    # component names after ownerRef and a gang member's componentName
    for key in ("ownerRef: ", "componentName: "):
        where = position_of(text2, key, len(key))
        result = await client.text_document_completion_async(
            types.CompletionParams(types.TextDocumentIdentifier(uri_of(path)), where)
        )
        assert {item.label for item in result.items} == {"jobset", "replicatedjob"}, key


@pytest.mark.asyncio(loop_scope="module")
async def test_definition_symbols_and_code_lens(client: LanguageClient):
    path, text = await open_catalog_definition(client)
    uri = uri_of(path)
    owner = position_of(text, "ownerRef: ", len("ownerRef: ") + 1)
    location = await client.text_document_definition_async(
        types.DefinitionParams(types.TextDocumentIdentifier(uri), owner)
    )
    assert location is not None
    location = location[0] if isinstance(location, list) else location
    root_name = text.index("name: jobset", text.index("rootComponent:")) + len("name: ")
    assert location.range.start == position_of(text, text[root_name:], 0)
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(uri))
    )
    assert [s.name for s in symbols] == ["jobset"]
    assert [c.name for c in symbols[0].children] == ["replicatedjob"]
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri)))
    assert len(lenses) == 1 and lenses[0].command.title.startswith("fixtures: ")
    count = len(
        [f for f in (client.project / "fixtures" / JOBSET).glob("*.yaml") if "kind: KartaFixture" in f.read_text()]
    )
    assert f"{count} passed" in lenses[0].command.title


# -- a real editor: Neovim headless with the configuration docs/editor.md gives ---------------------


WAIT_FOR_DIAGNOSTICS = """
local ok = vim.wait(30000, function() return #vim.diagnostic.get(0) > 0 end, 100)
local out = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) or ""
  table.insert(out, string.format("%d:%d %s %s", d.lnum + 1, d.col + 1, tostring(code), d.message))
end
vim.fn.writefile(out, "diagnostics.txt")
vim.cmd("qa!")
"""


@pytest.mark.skipif(not shutil.which("nvim"), reason="Neovim is not installed (.ci/run installs Debian's neovim)")
def test_neovim_with_the_documented_configuration_receives_the_diagnostic(tmp_path):
    with open(os.path.join(ROOT, "docs", "editor.md"), encoding="utf-8") as handle:
        config = re.search(r"```lua\n(.*?)```", handle.read(), re.S).group(1)
    (tmp_path / "init.lua").write_text(config)
    (tmp_path / "wait.lua").write_text(WAIT_FOR_DIAGNOSTICS)
    text = (
        pathlib.Path(ROOT, "catalog", f"{JOBSET}.yaml").read_text().replace("statusDefinition:", "statusDefiniton:", 1)
    )
    (tmp_path / "broken.yaml").write_text(text)
    bin_dir = tmp_path / "bin"  # `kartalint` on PATH, as the documented configuration expects
    bin_dir.mkdir()
    (bin_dir / "kartalint").write_text(f'#!/bin/sh\nexec {sys.executable} -m kartalint "$@"\n')
    (bin_dir / "kartalint").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", "HOME": str(tmp_path)}
    subprocess.run(
        ["nvim", "--headless", "-u", "init.lua", "-c", "luafile wait.lua", "broken.yaml"],
        cwd=tmp_path,
        env=env,
        timeout=90,
        check=False,
        capture_output=True,
    )
    lines = (tmp_path / "diagnostics.txt").read_text().splitlines()
    line = text[: text.index("statusDefiniton:")].count("\n") + 1
    assert any(entry.startswith(f"{line}:") and "unknown-field" in entry for entry in lines), lines


@pytest.mark.asyncio(loop_scope="module")
async def test_the_project_configuration_applies(client: LanguageClient, tmp_path):
    """rules (off, severity) and exclude from .kartalint.yaml, as `kartalint lint` applies them."""
    project = make_project(tmp_path / "configured")
    (project / ".kartalint.yaml").write_text(
        "definitions: [definitions]\nfixtures: [fixtures]\ncrds: [crds]\n"
        "rules:\n  path-not-in-crd: warning\nexclude: ['ignored/**']\n"
    )
    typo = project / "broken" / "jobset-typo.yaml"
    diagnostics = await open_and_wait(client, typo)
    found = [d for d in diagnostics if d.code == "path-not-in-crd"]
    assert len(found) == 1 and found[0].severity == types.DiagnosticSeverity.Warning
    (project / "ignored").mkdir()
    ignored = project / "ignored" / "jobset-typo.yaml"
    ignored.write_text(typo.read_text())
    assert await open_and_wait(client, ignored) == []


HOUSE_RULES = """\
house-rules:
  - id: acme-role
    severity: error
    for-each: component
    when: '.specDefinition != null and ((.podSelector.componentTypeSelector.keyPath // "") | contains("team.example.com/role") | not)'
    message: 'role \\(.name) does not select its pods by team.example.com/role'
    hint: 'select them by .metadata.labels["team.example.com/role"]'
    why: our dashboards group pods by team.example.com/role
  - id: acme-broken
    for-each: definition
    when: '.metadata | input'
    message: never
"""


@pytest.mark.asyncio(loop_scope="module")
async def test_a_house_rule_is_a_diagnostic_with_the_quick_fix_that_silences_it(client: LanguageClient, tmp_path):
    """A house rule of the project's configuration: its diagnostic where `kartalint lint` places it,
    with its hint and its declaration, the quick fix that silences it, and a house rule that cannot
    run shown on the definition (with its place) and on the configuration file."""
    project = make_project(tmp_path / "house")
    config = project / ".kartalint.yaml"
    config.write_text("definitions: [definitions]\nfixtures: [fixtures]\ncrds: [crds]\n" + HOUSE_RULES)
    path = project / "definitions" / f"{JOBSET}.yaml"
    text = path.read_text()
    diagnostics = await open_and_wait(client, path)
    (role,) = [d for d in diagnostics if d.code == "acme-role"]
    assert role.range.start == position_of(text, "name: replicatedjob")
    assert role.range.end == position_of(text, "name: replicatedjob", len("name"))
    assert role.severity == types.DiagnosticSeverity.Error
    assert role.message == "role replicatedjob does not select its pods by team.example.com/role"
    assert role.related_information[0].message == 'fix: select them by .metadata.labels["team.example.com/role"]'
    assert role.code_description.href == f"{config.as_uri()}#L5"
    (failed,) = [d for d in diagnostics if d.code == "house-rule-failed"]
    assert failed.range.start == types.Position(0, 0)
    assert failed.message.endswith(f"({config}:14:11)") and "'input' reads further inputs" in failed.message
    assert sorted(d.code for d in diagnostics) == sorted(f["rule"] for f in lint_json(path, project))
    (silence,) = [a for a in await actions_for(client, path, role) if a.title == "Silence acme-role on this line"]
    (edit,) = silence.edit.changes[uri_of(path)]
    silenced = apply(text, edit)
    assert "    - name: replicatedjob  # kartalint: disable=acme-role\n" in silenced
    uri = uri_of(path)
    client.diagnostics.pop(uri, None)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            [types.TextDocumentContentChangeWholeDocument(silenced)],
        )
    )
    assert [d.code for d in await published(client, uri)] == ["house-rule-failed"]  # no unused, no unknown suppression
    on_config = await open_and_wait(client, config)
    assert [(d.code, d.range.start.line, d.range.start.character) for d in on_config] == [("house-rule-failed", 13, 10)]


@pytest.mark.asyncio(loop_scope="module")
async def test_code_action_adds_the_default_the_crd_declares(client: LanguageClient):
    path, _, broken, diagnostics = await open_variant(
        client, "no-default.yaml", "(.template.spec.parallelism // 1)", ".template.spec.parallelism"
    )
    finding = next(d for d in diagnostics if d.code == "crd-optional-arithmetic")
    actions = await actions_for(client, path, finding)
    fix = next(a for a in actions if a.is_preferred)
    fixed = apply(broken, fix.edit.changes[uri_of(path)][0])
    assert "(.template.spec.parallelism // 1)" in fixed
    path.write_text(fixed)
    assert not {f["rule"] for f in lint_json(path, client.project)} & {
        "crd-optional-arithmetic",
        "scale-path-not-null-safe",
    }
    # and the suppression comment silences it where it is added
    silence = next(a for a in actions if a.title.startswith("Silence"))
    path.write_text(apply(broken, silence.edit.changes[uri_of(path)][0]))
    assert "crd-optional-arithmetic" not in {f["rule"] for f in lint_json(path, client.project)}


@pytest.mark.asyncio(loop_scope="module")
async def test_code_action_makes_an_iteration_of_an_optional_list_optional(client: LanguageClient):
    text = (client.project / "definitions" / f"{JOBSET}.yaml").read_text()
    assert ".spec.replicatedJobs[]?" in text
    broken = text.replace(".spec.replicatedJobs[]?", ".spec.replicatedJobs[]")
    path = client.project / "broken" / "iteration.yaml"
    path.write_text(broken)
    diagnostics = await open_and_wait(client, path)
    found = [d for d in diagnostics if d.code == "crd-optional-iteration"]
    assert found, [d.code for d in diagnostics]
    fixed = broken
    for finding in found:  # one fix per finding; each keeps the rest of the file as it is
        actions = await client.text_document_code_action_async(
            types.CodeActionParams(
                types.TextDocumentIdentifier(uri_of(path)),
                finding.range,
                types.CodeActionContext(diagnostics=[finding]),
            )
        )
        edit = next(a for a in actions if a.is_preferred).edit.changes[uri_of(path)][0]
        assert edit.new_text == "[]?" and _text(broken, edit.range) == "[]"
    lines = broken.split("\n")
    for finding in sorted(found, key=lambda d: (d.range.start.line, -d.range.start.character)):
        line = lines[finding.range.start.line]
        lines[finding.range.start.line] = (
            line[: finding.range.start.character] + "[]?" + line[finding.range.end.character :]
        )
    fixed = "\n".join(lines)
    assert fixed == text
    path.write_text(fixed)
    assert "crd-optional-iteration" not in {f["rule"] for f in lint_json(path, client.project)}


def _text(text: str, where: types.Range) -> str:
    line = text.split("\n")[where.start.line]
    return line[where.start.character : where.end.character]


@pytest.mark.asyncio(loop_scope="module")
async def test_code_action_renames_a_misspelt_karta_field(client: LanguageClient):
    path, text, broken, diagnostics = await open_variant(client, "field-typo.yaml", "instanceIdPath:", "instanceIdPth:")
    unknown = next(d for d in diagnostics if d.code == "unknown-field")
    fix = next(a for a in await actions_for(client, path, unknown) if a.is_preferred)
    assert fix.title == "Rename to 'instanceIdPath'"
    assert apply(broken, fix.edit.changes[uri_of(path)][0]) == text


@pytest.mark.asyncio(loop_scope="module")
async def test_definition_from_a_gang_member(client: LanguageClient):
    path, text = await open_catalog_definition(client)
    member = position_of(text, "componentName: ", len("componentName: ") + 2)
    location = await client.text_document_definition_async(
        types.DefinitionParams(types.TextDocumentIdentifier(uri_of(path)), member)
    )
    location = location[0] if isinstance(location, list) else location
    child = text.index("name: replicatedjob", text.index("childComponents:")) + len("name: ")
    assert location.range.start == position_of(text, text[child:], 0)


@pytest.mark.asyncio(loop_scope="module")
async def test_hostile_input_never_stops_the_server(client: LanguageClient):
    """Broken YAML is a diagnostic; a jq expression that never ends stops at the hover's limit,
    once, and the server answers the next request."""
    import time

    path = client.project / "broken" / "not-yaml.yaml"
    path.write_text("apiVersion: run.ai/v1alpha1\nkind: Karta\nspec: {structureDefinition: [\n")
    assert {d.code for d in await open_and_wait(client, path)} == {"yaml-syntax-error"}
    runaway = client.project / "definitions" / f"{JOBSET}.yaml"  # edited in the editor, not saved
    broken = runaway.read_text().replace(
        ".spec.replicatedJobs[]? | (.replicas // 1) *", "last(repeat(1)) as $x | (.replicas // 1) *", 1
    )
    await open_and_wait(client, runaway, broken)
    where = position_of(broken, "last(repeat(1))", 2)
    started = time.monotonic()
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri_of(runaway)), where)
    )
    assert time.monotonic() - started < 15
    assert hover is not None
    assert hover.contents.value.count("did not finish within 2 s") == 1
    assert "not run: the expression did not finish on a fixture above" in hover.contents.value
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(uri_of(runaway)))
    )
    assert [s.name for s in symbols] == ["jobset"]


@pytest.mark.asyncio(loop_scope="module")
async def test_code_lens_follows_the_unsaved_buffer(client: LanguageClient):
    path = client.project / "definitions" / f"{JOBSET}.yaml"
    saved = path.read_text()
    edited = saved.replace("(.replicas // 1) * (.template.spec.parallelism // 1)", "(.replicas // 1) * 7", 1)
    assert edited != saved
    await open_and_wait(client, path, edited)
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(types.TextDocumentIdentifier(uri_of(path)))
    )
    assert "failed" in lenses[0].command.title, lenses[0].command.title
    assert path.read_text() == saved


@pytest.mark.asyncio(loop_scope="module")
async def test_a_file_over_the_size_limit_is_refused_not_parsed(client: LanguageClient, tmp_path):
    project = make_project(tmp_path / "limited")
    (project / ".kartalint.yaml").write_text("definitions: [definitions]\nmax-file-size: 2000\n")
    path = project / "definitions" / f"{JOBSET}.yaml"
    (diagnostic,) = await open_and_wait(client, path)
    assert diagnostic.code == "yaml-too-large" and "over the 2000-byte limit" in diagnostic.message
    where = position_of(path.read_text(), "replicasPath: ", 16)
    hover = await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri_of(path)), where))
    assert hover is None


def test_without_the_lsp_extra_the_command_says_what_to_install(monkeypatch, capsys):
    from kartalint.cli import main

    monkeypatch.setitem(sys.modules, "pygls", None)
    monkeypatch.setitem(sys.modules, "pygls.lsp.server", None)
    monkeypatch.delitem(sys.modules, "kartalint.lsp.server", raising=False)
    monkeypatch.delitem(sys.modules, "kartalint.cli.lsp", raising=False)  # imported anew, without the extra
    try:
        assert main(["lsp"]) == 2
        assert "pip install 'kartalint[lsp]'" in capsys.readouterr().err
        with pytest.raises(SystemExit) as stop:  # its help needs no extra
            main(["lsp", "--help"])
        assert stop.value.code == 0 and "--stdio" in capsys.readouterr().out
    finally:
        sys.modules.pop("kartalint.cli.lsp", None)  # the module without the server is not kept


@pytest.mark.asyncio(loop_scope="module")
async def test_completion_offers_rule_ids_in_a_suppression_comment(client: LanguageClient):
    """Issue 48: in `# kartalint: disable=` (and after a comma, and in `disable-file=`), the rule
    ids, replacing what is typed of one; the ids given already are not offered again."""
    from kartalint.rules import registry

    path = client.project / "broken" / "suppress-completion.yaml"
    base = (client.project / "definitions" / f"{JOBSET}.yaml").read_text()
    text = base.replace(
        "(.template.spec.parallelism // 1)", "(.template.spec.parallelism // 1)  # kartalint: disable=jq-not-p", 1
    )
    text = "# kartalint: disable-file=jq-not-portable, \n" + text
    path.write_text(text)
    await open_and_wait(client, path, text)

    async def offered(where):
        result = await client.text_document_completion_async(
            types.CompletionParams(types.TextDocumentIdentifier(uri_of(path)), where)
        )
        return result.items

    typed = position_of(text, "disable=jq-not-p", len("disable=jq-not-p"))
    items = await offered(typed)
    assert {item.label for item in items} == set(registry.RULES)
    [portable] = [item for item in items if item.label == "jq-not-portable"]
    assert portable.text_edit.range.start == types.Position(typed.line, typed.character - len("jq-not-p"))
    assert portable.text_edit.new_text == "jq-not-portable" and portable.detail == "warning jq rule"
    after_comma = await offered(types.Position(0, len("# kartalint: disable-file=jq-not-portable, ")))
    assert {item.label for item in after_comma} == set(registry.RULES) - {"jq-not-portable"}
    elsewhere = await offered(position_of(text, "# kartalint: disable=", len("# kartalint: dis")))
    assert not {item.label for item in elsewhere} & set(registry.RULES)


@pytest.mark.asyncio(loop_scope="module")
async def test_completion_in_a_fixture_offers_the_fixture_fields(client: LanguageClient):
    fixture = next((client.project / "fixtures" / JOBSET).glob("*.yaml"))
    text = fixture.read_text()
    lines = text.split("\n")
    expect = next(i for i, line in enumerate(lines) if line.startswith("expect:"))
    lines.insert(expect + 1, "  ")
    edited = "\n".join(lines)
    path = client.project / "fixtures" / "typing.yaml"
    path.write_text(edited)
    await open_and_wait(client, path, edited)
    result = await client.text_document_completion_async(
        types.CompletionParams(types.TextDocumentIdentifier(uri_of(path)), types.Position(expect + 1, 2))
    )
    labels = {item.label for item in result.items}
    present = {
        line.strip().split(":")[0]
        for line in lines[expect + 1 :]
        if line.startswith("  ") and not line.startswith("   ")
    }
    assert labels and labels.isdisjoint(present - {""}), (labels, present)
    assert {"statuses", "replicas"} & (labels | present) and "statuses" in labels | present
    top = await client.text_document_completion_async(
        types.CompletionParams(types.TextDocumentIdentifier(uri_of(path)), types.Position(len(lines) - 1, 0))
    )
    assert "xfail" in {item.label for item in top.items}  # a top-level fixture field not used here


# -- the editor sees what the hook sees (issue 28 item 9; issue 34 items 1 and 15) --------------------------


async def diagnostics_of(client: LanguageClient, path: pathlib.Path) -> list:
    """The diagnostics published for ``path`` (open or not), waiting until some are."""
    return await published(client, uri_of(path))


@pytest.mark.asyncio(loop_scope="module")
async def test_the_editor_judges_only_what_lint_judges(client: LanguageClient, tmp_path):
    from team_repo import CONFIG, make_team_repo

    repo = make_team_repo(tmp_path / "team", commit=False)
    # CloudFormation (`!Ref`), a GitHub workflow, Helm values: not definitions, nothing to say
    for name in ("infra/stack.yaml", ".github/workflows/deploy.yml", "charts/trainer/values.yaml"):
        assert await open_and_wait(client, repo / name) == [], name
    # the chart's templated Karta is excluded by the configuration: nothing either
    chart = repo / "charts" / "trainer" / "templates" / "karta.yaml"
    assert await open_and_wait(client, chart) == []
    # the team's definition, with the project's rules and CRDs: clean, as `kartalint lint` says
    definition = repo / "definitions" / "trainer.yaml"
    assert await open_and_wait(client, definition) == [] and lint_json(definition, repo) == []
    # without the exclude, the template gets the note lint gives it, never a syntax error
    other = make_team_repo(tmp_path / "other", config=CONFIG.replace("exclude:\n  - charts/\n", ""), commit=False)
    [note] = await open_and_wait(client, other / "charts" / "trainer" / "templates" / "karta.yaml")
    assert note.code == "yaml-template" and note.severity == types.DiagnosticSeverity.Information
    assert note.range.start.line == 0 and "helm template" in note.related_information[0].message
    # the configuration file gets the configuration's problems, at their place
    text = (repo / ".kartalint.yaml").read_text().replace("crd-optional-iteration: off", "crd-optional-iteraton: off")
    [problem] = await open_and_wait(client, repo / ".kartalint.yaml", text)
    line = text.split("\n").index("  crd-optional-iteraton: off   # our objects always have a spec")
    assert problem.code == "config-invalid" and "unknown rule 'crd-optional-iteraton'" in problem.message
    assert (problem.range.start.line, problem.range.start.character) == (line, 2)


@pytest.mark.asyncio(loop_scope="module")
async def test_a_bad_configuration_is_shown_and_the_server_goes_on(client: LanguageClient, tmp_path):
    from team_repo import CONFIG, TEAM_DEFINITION, make_team_repo

    repo = make_team_repo(tmp_path / "team", config=CONFIG + "max-file-size: lots\n", commit=False)
    definition = repo / "definitions" / "trainer.yaml"
    broken = TEAM_DEFINITION.replace("ownerRef: trainer", "ownerRef: nobody")
    definition.write_text(broken)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri_of(definition), "yaml", 1, broken))
    )
    diagnostics = await diagnostics_of(client, definition)
    assert "unknown-owner-ref" in {d.code for d in diagnostics}  # linted, with the default configuration
    [problem] = await diagnostics_of(client, repo / ".kartalint.yaml")
    assert problem.code == "config-invalid" and "'max-file-size' must be a number of bytes" in problem.message
    assert problem.range.start.line == CONFIG.count("\n")
    shown = [m.message for m in client.messages if "max-file-size" in m.message]
    assert len(shown) == 1 and "default configuration" in shown[0]
    where = position_of(broken, "instanceIdPath: ", len("instanceIdPath: ") + 2)
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri_of(definition)), where)
    )
    assert hover is not None and "On the fixtures" in hover.contents.value
    await open_and_wait(client, repo / "definitions" / "second.yaml", broken)  # the same project: said once
    assert len([m for m in client.messages if "max-file-size" in m.message]) == 1


@pytest.mark.asyncio(loop_scope="module")
async def test_hover_and_code_lens_read_no_file_outside_the_project(client: LanguageClient, tmp_path):
    from team_repo import OBJECT, fixture, make_team_repo

    token = "tok-77c1e"
    outside = tmp_path / "outside"
    outside.mkdir()
    leaked = {**OBJECT, "spec": {"roles": [{**OBJECT["spec"]["roles"][0], "name": token}]}}
    (outside / "secret.yaml").write_text(yaml.safe_dump(leaked))
    repo = make_team_repo(tmp_path / "team", commit=False)
    folder = repo / "fixtures" / "example-com-trainer-v1"
    (folder / "running.yaml").unlink()
    (folder / "relative.yaml").write_text(fixture(objectFile="../../../outside/secret.yaml"))
    (folder / "absolute.yaml").write_text(fixture(objectFile=str(outside / "secret.yaml")))
    os.symlink(outside / "secret.yaml", folder / "linked-object.yaml")
    (folder / "linked.yaml").write_text(fixture(objectFile="linked-object.yaml"))
    definition = repo / "definitions" / "trainer.yaml"
    text = definition.read_text()
    await open_and_wait(client, definition)
    where = position_of(text, "instanceIdPath: ", len("instanceIdPath: ") + 2)
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri_of(definition)), where)
    )
    assert hover is not None and token not in hover.contents.value
    assert "no fixture uses this definition" in hover.contents.value
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(types.TextDocumentIdentifier(uri_of(definition)))
    )
    assert lenses[0].command.title == "no fixture uses this definition" and token not in lenses[0].command.title


# -- the server stays up and answers (issue 34, items 11 to 14) -----------------------------------------


def _runaway_text(client: LanguageClient) -> str:
    text = (client.project / "definitions" / f"{JOBSET}.yaml").read_text()
    broken = text.replace(
        ".spec.replicatedJobs[]? | (.replicas // 1) *", "last(repeat(1)) as $x | (.replicas // 1) *", 1
    )
    assert broken != text
    return broken


@pytest.mark.asyncio(loop_scope="module")
async def test_a_runaway_code_lens_keeps_no_request_waiting_and_stops_on_change(client: LanguageClient):
    """Code lenses of a definition whose expression never ends, asked for again and again, keep
    neither document symbols nor a hover waiting; changing the document cancels their jq."""
    import asyncio
    import time

    refreshed = []

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def _refresh(params):  # a lens not ready in time is followed by a refresh request
        refreshed.append(params)

    path = client.project / "definitions" / f"{JOBSET}.yaml"
    uri = uri_of(path)
    await open_and_wait(client, path, _runaway_text(client))
    identifier = types.TextDocumentIdentifier(uri)
    lenses = [
        asyncio.ensure_future(client.text_document_code_lens_async(types.CodeLensParams(identifier))) for _ in range(8)
    ]
    started = time.monotonic()
    symbols = await asyncio.wait_for(
        client.text_document_document_symbol_async(types.DocumentSymbolParams(identifier)), 30
    )
    assert [s.name for s in symbols] == ["jobset"] and time.monotonic() - started < 10
    first = await asyncio.wait_for(lenses[0], 30)
    assert len(first) == 1 and first[0].command.title.startswith("fixtures")
    healthy = path.read_text()
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            [types.TextDocumentContentChangeWholeDocument(healthy)],
        )
    )
    started = time.monotonic()
    where = position_of(healthy, "replicasPath: ", len("replicasPath: ") + 3)
    shown = await asyncio.wait_for(client.text_document_hover_async(types.HoverParams(identifier, where)), 30)
    assert shown is not None and re.search(r"^- `.+`: `\[.*\]`$", shown.contents.value, re.M), shown.contents.value
    assert time.monotonic() - started < 15  # nothing of the runaway version was still queued ahead of it
    await asyncio.wait_for(asyncio.gather(*lenses), 30)


@pytest.mark.asyncio(loop_scope="module")
async def test_positions_far_outside_the_document_are_clamped(client: LanguageClient):
    """Line 2,147,483,647 or a character far past a long line: an answer at once, not work that
    grows with the position."""
    import asyncio

    path = client.project / "broken" / "long-line.yaml"
    text = (client.project / "definitions" / f"{JOBSET}.yaml").read_text() + "# " + "x" * 200_000 + "\n"
    path.write_text(text)
    await open_and_wait(client, path, text)
    identifier = types.TextDocumentIdentifier(uri_of(path))
    last = text.count("\n") - 1
    for where in (types.Position(2_147_483_647, 2_147_483_647), types.Position(last, 2_147_483_647)):
        listed = await asyncio.wait_for(
            client.text_document_completion_async(types.CompletionParams(identifier, where)), 15
        )
        assert listed is not None
        await asyncio.wait_for(client.text_document_hover_async(types.HoverParams(identifier, where)), 15)
        await asyncio.wait_for(client.text_document_definition_async(types.DefinitionParams(identifier, where)), 15)


@pytest.mark.asyncio(loop_scope="module")
async def test_a_closed_document_gets_empty_diagnostics_and_nothing_after(client: LanguageClient):
    """A lint scheduled by a change and still on its way when the document closes publishes
    nothing: the empty list of the close is the last word, whether the file stays on disk or is
    deleted meanwhile (then no FileNotFoundError either). The test waits for a witness: a
    document changed after the closes, whose lint (debounced as theirs) the server starts after
    theirs would have started; once its findings are out, theirs have had their turn."""
    text = (client.project / "broken" / "jobset-typo.yaml").read_text()
    paths = [client.project / "broken" / name for name in ("closing-kept.yaml", "closing-deleted.yaml")]
    uris = [uri_of(path) for path in paths]
    for path in paths:
        path.write_text(text)
        assert await open_and_wait(client, path, text)  # findings
    for uri in uris:
        client.text_document_did_change(  # a lint is scheduled (debounced) ...
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(uri=uri, version=2),
                [types.TextDocumentContentChangeWholeDocument(text + "\n")],
            )
        )
        client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    paths[1].unlink()  # ... and one file is deleted before it runs
    witness = client.project / "broken" / "closing-witness.yaml"
    clean = (client.project / "definitions" / f"{JOBSET}.yaml").read_text()
    assert await open_and_wait(client, witness, clean) == []
    client.diagnostics.pop(uri_of(witness), None)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri_of(witness), version=2),
            [types.TextDocumentContentChangeWholeDocument(text)],
        )
    )
    assert await published(client, uri_of(witness))  # the typo's findings
    for uri in uris:
        assert list(client.diagnostics[uri]) == [], uri  # nothing published after the close
    logged = [m.message for m in client.log_messages] + [m.message for m in client.messages]
    assert not [m for m in logged if "Traceback" in m or "FileNotFoundError" in m], logged
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(
            types.TextDocumentIdentifier(uri_of(client.project / "definitions" / f"{JOBSET}.yaml"))
        )
    )
    assert symbols is not None  # still answering


@pytest.mark.asyncio(loop_scope="module")
async def test_a_lone_surrogate_is_replaced_and_reported_at_its_place(client: LanguageClient):
    path = client.project / "broken" / "surrogate.yaml"
    text = (client.project / "definitions" / f"{JOBSET}.yaml").read_text()
    text = text.replace("spec:\n", "spec:  # a lone \ud800 surrogate\n", 1)
    line = text.split("\n").index("spec:  # a lone \ud800 surrogate")
    diagnostics = await open_and_wait(client, path, text)
    [found] = [d for d in diagnostics if d.code == "yaml-encoding"]
    assert found.range.start == types.Position(line, len("spec:  # a lone ")) and "U+D800" in found.message
    identifier = types.TextDocumentIdentifier(uri_of(path))
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(identifier))
    assert [s.name for s in symbols] == ["jobset"]
    where = position_of(text, "replicasPath: ", len("replicasPath: ") + 3)
    shown = await client.text_document_hover_async(types.HoverParams(identifier, where))
    assert shown is not None and shown.contents.value.startswith("**replicasPath** (jq on the workload)")


# -- found by the fuzz campaign (tests/test_fuzz.py, the language server) ------------------------------


def _raw_server(project: pathlib.Path, tmp_path: pathlib.Path, watch: pathlib.Path):
    """``kartalint lsp`` over raw JSON-RPC (pytest-lsp's client cannot send malformed params),
    logging every file it opens under ``watch``; initialized."""
    from lsp_stdio import StdioClient

    client = StdioClient(str(project), dict(os.environ), str(tmp_path / "audit.log"), str(watch))
    assert "result" in client.call("initialize", {"processId": None, "rootUri": project.as_uri(), "capabilities": {}})
    client.notify("initialized", {})
    return client


def test_a_request_with_malformed_params_is_answered_invalid_params(tmp_path):
    """pygls dropped a request whose params do not have their type (no position, a list, a
    string for a number): the editor waited for an answer forever. Then (issue 44) it answered
    Invalid Params but logged cattrs' exception group for each on the server's stderr, a traceback
    in the editor's log as if the server had crashed: now one line names the method and the
    problem, a malformed notification is dropped the same way, and a method the server does not
    have is Method Not Found with or without params."""
    project = make_project(tmp_path / "project")
    client = _raw_server(project, tmp_path, tmp_path / "nothing")
    uri = uri_of(project / "definitions" / f"{JOBSET}.yaml")
    malformed = (
        ("textDocument/hover", None),
        ("textDocument/hover", [1, 2]),
        ("textDocument/hover", {"textDocument": {"uri": uri}}),
        ("textDocument/completion", {"textDocument": {"uri": uri}, "position": {"line": -1, "character": "x"}}),
        ("textDocument/codeLens", {"textDocument": {}}),
        ("textDocument/documentSymbol", None),
    )
    try:
        for method, params in malformed:
            answer = client.call(method, params, timeout=20)
            assert answer["error"]["code"] == -32602, (method, params, answer)
        client.notify("textDocument/didOpen", None)
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri}, "contentChanges": 7})
        assert client.call("kartalint/nonsense", {}, timeout=20)["error"]["code"] == -32601
        assert client.call("kartalint/nonsense", None, timeout=20)["error"]["code"] == -32601
        symbols = client.call("textDocument/documentSymbol", {"textDocument": {"uri": uri}}, timeout=20)
        assert "result" in symbols  # and it goes on
    finally:
        assert client.close() == 0
    logged = b"".join(client.stderr).decode("utf-8", "replace")
    assert "Traceback" not in logged and "Unable to deserialize" not in logged, logged
    refused = [line for line in logged.splitlines() if " refused: " in line]
    assert len(refused) == len(malformed) + 2, logged
    assert "textDocument/hover request refused: required field missing @ message.params" in refused
    assert "textDocument/didOpen notification refused: required field missing @ message.params" in refused
    assert answer["error"]["message"] == "Invalid Params: required field missing @ message.params"


def test_a_request_on_a_document_not_open_reads_nothing_from_disk(tmp_path):
    """Requests on a document the editor has not opened made pygls read the path from disk: a
    folder or a missing file was an internal error with a traceback, a FIFO blocked a worker
    thread for ever, and a path outside the project was read. Such a document is empty now."""
    project = make_project(tmp_path / "project")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.yaml").write_text((project / "definitions" / f"{JOBSET}.yaml").read_text())
    os.mkfifo(project / "definitions" / "fifo.yaml")
    os.symlink(outside / "secret.yaml", project / "definitions" / "linked.yaml")
    client = _raw_server(project, tmp_path, outside)
    try:
        for name in ("definitions", "missing.yaml", "definitions/fifo.yaml", "definitions/linked.yaml"):
            document = {"textDocument": {"uri": uri_of(project / name)}}
            place = dict(document, position={"line": 3, "character": 4})
            for method, params, empty in (
                ("textDocument/documentSymbol", document, []),
                ("textDocument/codeLens", document, []),
                ("textDocument/hover", place, None),
                ("textDocument/definition", place, None),
            ):
                answer = client.call(method, params, timeout=20)
                assert answer.get("result", "error") == empty, (name, method, answer)
        assert not (tmp_path / "audit.log").exists() or (tmp_path / "audit.log").read_text() == ""
    finally:
        client.close()


# -- issue 45 --------------------------------------------------------------------------------------------

SLOW_START = """\
import sys, time
if "--multiprocessing-fork" in sys.argv:  # a spawned worker only (the language server's jq runner)
    time.sleep(float(__import__("os").environ["KARTALINT_TEST_WORKER_START"]))
"""


def test_the_hover_budget_covers_the_evaluation_not_the_start_of_the_worker(tmp_path, monkeypatch):
    """Issue 45: the server's jq worker is spawned (a fresh interpreter); its start-up counted in a
    hover's 2 s limit, so on a busy machine every hover of a slow expression was stopped before it
    ran. A worker made to take longer to start than the whole limit still evaluates."""
    from kartalint.lsp.project import HOVER_TIMEOUT, LspProject
    from kartalint.project import Config, Project

    (tmp_path / "sitecustomize.py").write_text(SLOW_START)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv("KARTALINT_TEST_WORKER_START", str(HOVER_TIMEOUT * 1.5))
    project = LspProject(Project(root=str(tmp_path), config=Config(root=str(tmp_path))))
    runner = project.runner()
    try:
        result = runner.run("[range(3)] | map(. * 2)", None)
        assert result.ok and result.results == [[0, 2, 4]], result
        runaway = runner.run("def f: f; f", None)  # and the limit still stops what runs over it
        assert runaway.timed_out and f"within {HOVER_TIMEOUT:g} s" in (runaway.error or ""), runaway
    finally:
        project.close()


def _wait_for(client, method: str, found, timeout: float = 60.0) -> list:
    """The notifications ``method`` the server sent until one satisfies ``found`` (polled)."""
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        sent = client.notifications(method)
        if any(found(m.get("params") or {}) for m in sent):
            return sent
        time.sleep(0.05)
    raise AssertionError(f"no {method} as expected within {timeout} s: {client.notifications(method)}")


def test_an_unopened_document_outside_the_workspace_reads_no_configuration(tmp_path):
    """Issue 45 item 1: a request about a document the editor has not opened, in a folder outside
    the workspace, read that folder's configuration (its project was built for the request)."""
    project = make_project(tmp_path / "project")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / ".kartalint.yaml").write_text("rules:\n  tok-3e9a1: off\n")
    (outside / "pyproject.toml").write_text("[tool.kartalint]\nexclude = ['tok-3e9a1']\n")
    (outside / "doc.yaml").write_text((project / "definitions" / f"{JOBSET}.yaml").read_text())
    client = _raw_server(project, tmp_path, outside)
    try:
        document = {"textDocument": {"uri": uri_of(outside / "doc.yaml")}}
        place = dict(document, position={"line": 3, "character": 4})
        for method, params, empty in (
            ("textDocument/hover", place, None),
            ("textDocument/codeLens", document, []),
            ("textDocument/documentSymbol", document, []),
            ("textDocument/definition", place, None),
        ):
            answer = client.call(method, params, timeout=30)
            assert answer.get("result", "error") == empty, (method, answer)
        assert "result" in client.call("textDocument/completion", place, timeout=30)  # (what an empty document offers)
        assert not (tmp_path / "audit.log").exists() or (tmp_path / "audit.log").read_text() == ""
        assert "tok-3e9a1" not in b"".join(client.raw).decode("utf-8", "replace")
    finally:
        client.close()


def test_a_configuration_linked_out_of_the_project_is_refused_and_the_server_goes_on(tmp_path):
    """Issue 45 item 1: the server read a `.kartalint.yaml` that is a symbolic link to a file
    outside the project and showed its keys; now it says the link is refused, reads nothing there,
    and lints with the default configuration."""
    project = make_project(tmp_path / "project")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.yaml").write_text("rules:\n  tok-5b2c7: off\n")
    (project / ".kartalint.yaml").unlink()
    os.symlink(outside / "secret.yaml", project / ".kartalint.yaml")
    client = _raw_server(project, tmp_path, outside)
    try:
        path = project / "broken" / "jobset-typo.yaml"
        uri = uri_of(path)
        client.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": path.read_text()}},
        )
        _wait_for(client, "textDocument/publishDiagnostics", lambda p: p.get("uri") == uri)
        shown = _wait_for(client, "window/showMessage", lambda p: "refused, never read" in p.get("message", ""))
        assert any(".kartalint.yaml: the configuration resolves to" in m["params"]["message"] for m in shown), shown
        config = _wait_for(
            client, "textDocument/publishDiagnostics", lambda p: p.get("uri") == uri_of(project / ".kartalint.yaml")
        )
        assert any("refused, never read" in str(m) for m in config)
        assert "tok-5b2c7" not in b"".join(client.raw).decode("utf-8", "replace")
        assert not (tmp_path / "audit.log").exists() or (tmp_path / "audit.log").read_text() == ""
    finally:
        client.close()


def test_a_pyproject_nested_too_deep_is_an_error_and_the_server_goes_on(tmp_path):
    """Issue 45 item 7: a pyproject.toml nested 1,000 deep made every request on the project fail
    (a RecursionError); now it is one error at its place, and the default configuration applies."""
    project = make_project(tmp_path / "project")
    (project / ".kartalint.yaml").unlink()
    (project / "pyproject.toml").write_text("[tool.kartalint]\nexclude = " + "[" * 1000 + "]" * 1000 + "\n")
    client = _raw_server(project, tmp_path, tmp_path / "nothing")
    try:
        path = project / "broken" / "jobset-typo.yaml"
        uri = uri_of(path)
        text = path.read_text()
        client.notify(
            "textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}}
        )
        published = _wait_for(client, "textDocument/publishDiagnostics", lambda p: p.get("uri") == uri)
        assert published
        shown = _wait_for(client, "window/showMessage", lambda p: "pyproject.toml:2:" in p.get("message", ""))
        assert any("nested deeper than 100 levels" in m["params"]["message"] for m in shown), shown
        line = text.splitlines().index(next(t for t in text.splitlines() if "paralelism" in t))
        hover = client.call(
            "textDocument/hover",
            {"textDocument": {"uri": uri}, "position": {"line": line, "character": 30}},
            timeout=30,
        )
        assert "result" in hover, hover
    finally:
        assert client.close() == 0
    assert "Traceback" not in b"".join(client.stderr).decode("utf-8", "replace")


def test_an_empty_buffer_is_not_read_from_disk(tmp_path):
    """Found by the fuzz campaign (issue 45): a document opened with an empty text was linted by
    reading its file from disk (to tell a Karta file from another), through a link out of the
    project."""
    project = make_project(tmp_path / "project")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "fixture.yaml").write_text("apiVersion: kartalint/v1\nkind: KartaFixture\nname: tok-81d0\n")
    linked = project / "fixtures" / JOBSET / "linked.yaml"
    os.symlink(outside / "fixture.yaml", linked)
    client = _raw_server(project, tmp_path, outside)
    try:
        uri = uri_of(linked)
        item = {"uri": uri, "languageId": "yaml", "version": 1, "text": ""}
        client.notify("textDocument/didOpen", {"textDocument": item})
        published = _wait_for(client, "textDocument/publishDiagnostics", lambda p: p.get("uri") == uri)
        assert all(not m["params"]["diagnostics"] for m in published if m["params"]["uri"] == uri)
        assert not (tmp_path / "audit.log").exists() or (tmp_path / "audit.log").read_text() == ""
    finally:
        client.close()


@pytest.mark.parametrize(
    "line, edited",
    [
        ("x: 1  # kartalint: disable: y", "x: 1  # kartalint: disable: y  # kartalint: disable=jq-unsafe"),
        (
            "x: 1  # kartalint: disable=ｊｑ-unsafe",
            "x: 1  # kartalint: disable=ｊｑ-unsafe  # kartalint: disable=jq-unsafe",
        ),
        ("x: 1  # kartalint: disable=yaml-empty -- why", "x: 1  # kartalint: disable=yaml-empty,jq-unsafe -- why"),
        ("x: 1  # kartalint: disable", None),
    ],
)
def test_the_suppression_action_never_counts_on_a_malformed_directive(line, edited):
    """A malformed directive silences nothing (issue 45 item 2): the code action adds one after
    it, where it used to take it for a bare `disable` and offer nothing."""
    from kartalint.lsp.diagnostics import _suppression
    from kartalint.lsp.document import OpenFile

    opened = OpenFile("/nowhere/x.yaml", line + "\n")
    where = types.Range(types.Position(0, 0), types.Position(0, 1))
    found = _suppression(opened, where, "jq-unsafe")
    if edited is None:
        assert found is None
        return
    edit_range, text = found
    start, end = edit_range.start.character, edit_range.end.character
    assert line[:start] + text + line[end:] == edited
