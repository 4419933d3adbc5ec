"""``kartalint lsp``: the language server (stdio, pygls 2 / lsprotocol).

Every request is answered from a thread so the editor's messages keep flowing; lint runs after a
short pause in typing (``DEBOUNCE``) and its diagnostics are published only if the document has
not changed since. jq runs behind hovers and code lenses go through the bounded worker (time
limit per run), so a runaway expression never blocks the editor.
"""

from __future__ import annotations

import asyncio
import os
import pathlib
from typing import Any
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from kartalint import __version__
from kartalint.load.configfile import CONFIG_NAMES
from kartalint.lsp import completion, diagnostics, hover, navigation
from kartalint.lsp.document import OpenFile, lint
from kartalint.lsp.project import LspProject

DEBOUNCE = 0.15  # seconds of quiet typing before a lint


class KartaServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("kartalint", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Full)
        self.projects: dict[str, LspProject] = {}
        self.files: dict[str, OpenFile] = {}
        self.pending: dict[str, asyncio.Task] = {}
        self.outbox: list[tuple[types.ShowMessageParams, types.PublishDiagnosticsParams | None]] = []

    def project_for(self, path: str) -> LspProject:
        from kartalint.load.configfile import find_config

        key = find_config(os.path.dirname(os.path.abspath(path))) or os.path.dirname(os.path.abspath(path))
        if key not in self.projects:
            project = self.projects[key] = LspProject.around(path)
            if project.config_error is not None:
                self.report_config_error(project)
        return self.projects[key]

    def report_config_error(self, project: LspProject) -> None:
        """A configuration that cannot be used: said once as a message, and as a diagnostic on the
        configuration file (open or not); the project goes on with the default configuration.
        Called from worker threads: the notifications wait in ``outbox`` for the event loop."""
        config_file = project.project.config_file
        message = f"kartalint: {project.config_error} (the default configuration applies until it is fixed)"
        published = None
        if config_file and not config_file.endswith(".toml"):
            from kartalint.lsp.project import config_findings

            try:
                with open(config_file, encoding="utf-8", errors="replace") as handle:
                    text = handle.read()
            except OSError:
                text = ""
            uri = pathlib.Path(config_file).as_uri()
            opened = OpenFile(config_file, text)
            found = config_findings(config_file, text, project.project.root)
            published = types.PublishDiagnosticsParams(
                uri=uri, diagnostics=[diagnostics.diagnostic(opened, finding, uri) for finding in found]
            )
        self.outbox.append((types.ShowMessageParams(types.MessageType.Error, message), published))

    def flush(self) -> None:
        """Send what worker threads left in ``outbox`` (on the event loop)."""
        while self.outbox:
            shown, published = self.outbox.pop(0)
            self.window_show_message(shown)
            if published is not None:
                self.text_document_publish_diagnostics(published)

    def open_file(self, uri: str) -> tuple[OpenFile, LspProject]:
        """The current text of ``uri`` parsed (cached per version)."""
        document = self.workspace.get_text_document(uri)
        path = path_of(uri)
        project = self.project_for(path)
        cached = self.files.get(uri)
        if cached is None or cached.text != document.source:
            cached = OpenFile(path, document.source, project.config)
            cached.excluded = project.project.excluded(path)
            if os.path.basename(path) in (".kartalint.yaml", ".kartalint.yml"):
                cached.config_root = os.path.dirname(os.path.abspath(path))
            self.files[uri] = cached
        return cached, project


def path_of(uri: str) -> str:
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else uri


server = KartaServer()


async def _publish(ls: KartaServer, uri: str, delay: float) -> None:
    await asyncio.sleep(delay)
    document = ls.workspace.get_text_document(uri)
    version = document.version
    text = document.source

    def work() -> list[types.Diagnostic]:
        open_file, _ = ls.open_file(uri)
        lint(open_file)
        return diagnostics.diagnostics(open_file, uri)

    found = await asyncio.to_thread(work)
    ls.flush()
    current = ls.workspace.get_text_document(uri)
    if current.version == version and current.source == text:  # else a newer lint is on its way
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=found, version=version)
        )


def _schedule(ls: KartaServer, uri: str, delay: float) -> None:
    previous = ls.pending.get(uri)
    if previous is not None and not previous.done():
        previous.cancel()
    ls.pending[uri] = asyncio.ensure_future(_publish(ls, uri, delay))


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: KartaServer, params: types.DidOpenTextDocumentParams) -> None:
    _schedule(ls, params.text_document.uri, 0)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: KartaServer, params: types.DidChangeTextDocumentParams) -> None:
    _schedule(ls, params.text_document.uri, DEBOUNCE)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: KartaServer, params: types.DidSaveTextDocumentParams) -> None:
    if os.path.basename(path_of(params.text_document.uri)) in CONFIG_NAMES:  # a new configuration: read it again
        for project in ls.projects.values():
            project.close()
        ls.projects.clear()
        ls.files.clear()
        for uri in list(ls.workspace.text_documents):
            _schedule(ls, uri, 0)
        return
    for project in ls.projects.values():
        project.refresh()
    _schedule(ls, params.text_document.uri, 0)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: KartaServer, params: types.DidCloseTextDocumentParams) -> None:
    ls.files.pop(params.text_document.uri, None)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))


def _position(params: Any) -> tuple[int, int]:
    return params.position.line, params.position.character


@server.feature(types.TEXT_DOCUMENT_HOVER)
async def on_hover(ls: KartaServer, params: types.HoverParams) -> types.Hover | None:
    def work() -> str | None:
        open_file, project = ls.open_file(params.text_document.uri)
        with project.lock:
            return hover.hover(open_file, project, _position(params))

    text = await asyncio.to_thread(work)
    ls.flush()
    if not text:
        return None
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))


@server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=[".", " ", ":"]))
async def on_completion(ls: KartaServer, params: types.CompletionParams) -> types.CompletionList:
    def work() -> list[types.CompletionItem]:
        open_file, project = ls.open_file(params.text_document.uri)
        return completion.complete(open_file, project, _position(params))

    return types.CompletionList(is_incomplete=False, items=await asyncio.to_thread(work))


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix])
)
async def on_code_action(ls: KartaServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    def work() -> list[types.CodeAction]:
        open_file, _ = ls.open_file(params.text_document.uri)
        return diagnostics.code_actions(open_file, params.text_document.uri, list(params.context.diagnostics))

    return await asyncio.to_thread(work)


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
async def on_definition(ls: KartaServer, params: types.DefinitionParams) -> types.Location | None:
    def work() -> types.Location | None:
        open_file, _ = ls.open_file(params.text_document.uri)
        return navigation.definition(open_file, params.text_document.uri, _position(params))

    return await asyncio.to_thread(work)


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
async def on_symbols(ls: KartaServer, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
    def work() -> list[types.DocumentSymbol]:
        open_file, _ = ls.open_file(params.text_document.uri)
        return navigation.symbols(open_file)

    return await asyncio.to_thread(work)


@server.feature(types.TEXT_DOCUMENT_CODE_LENS)
async def on_code_lens(ls: KartaServer, params: types.CodeLensParams) -> list[types.CodeLens]:
    def work() -> list[types.CodeLens]:
        open_file, project = ls.open_file(params.text_document.uri)
        with project.lock:
            return navigation.code_lenses(open_file, project)

    return await asyncio.to_thread(work)


@server.feature(types.SHUTDOWN)
def on_shutdown(ls: KartaServer, params: Any) -> None:
    for project in ls.projects.values():
        project.close()


def run_stdio() -> int:
    server.start_io()
    return 0
