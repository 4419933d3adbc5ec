"""``kartalint lsp``: the language server (stdio, pygls 2 / lsprotocol).

Every request is answered from a thread so the editor's messages keep flowing; lint runs after a
short pause in typing (``DEBOUNCE``) and its diagnostics are published only if the document has
not changed since. jq runs behind hovers and code lenses go through the bounded worker (time
limit per run), so a runaway expression never blocks the editor.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from kartalint import __version__
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

    def project_for(self, path: str) -> LspProject:
        from kartalint.rules.config import find_config

        key = find_config(os.path.dirname(os.path.abspath(path))) or os.path.dirname(os.path.abspath(path))
        if key not in self.projects:
            self.projects[key] = LspProject.around(path)
        return self.projects[key]

    def open_file(self, uri: str) -> tuple[OpenFile, LspProject]:
        """The current text of ``uri`` parsed (cached per version)."""
        document = self.workspace.get_text_document(uri)
        path = path_of(uri)
        project = self.project_for(path)
        cached = self.files.get(uri)
        if cached is None or cached.text != document.source:
            cached = OpenFile(path, document.source, project.config)
            cached.excluded = project.project.excluded(path)
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


def stop_workers() -> None:
    """Kill every jq worker of the server (they are its only child processes)."""
    import multiprocessing

    for project in list(server.projects.values()):
        project.close()
    for child in multiprocessing.active_children():
        child.kill()


def _terminated(signum: int, frame: Any) -> None:
    # pygls would wait for its stdin reader thread, which an editor that sends SIGTERM may never
    # end: stop the workers and leave at once
    stop_workers()
    os._exit(128 + signum)


def run_stdio() -> int:
    import contextlib
    import signal

    with contextlib.suppress(ValueError):  # (ValueError: not the main thread)
        signal.signal(signal.SIGTERM, _terminated)
    try:
        server.start_io()
    finally:
        stop_workers()
    return 0
