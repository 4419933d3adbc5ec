"""``kartalint lsp``: the language server (stdio, pygls 2 / lsprotocol).

Every request is answered from a thread so the editor's messages keep flowing; lint runs after a
short pause in typing (``DEBOUNCE``) and its diagnostics are published only if the document is
still open and has not changed since (a closed document gets an empty list, and nothing after).
jq behind hovers and code lenses runs in one thread of its own (``jqwork``), with a time budget
per document version, cancelled when the document changes or closes: a request waits for it only
as long as it chooses (``HOVER_WAIT``, ``LENS_WAIT``), so a runaway expression never keeps another
request waiting. Positions are clamped to the document.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import multiprocessing
import os
import pathlib
import signal
from typing import Any
from urllib.parse import unquote, urlparse

from cattrs import transform_error
from cattrs.errors import ClassValidationError
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.protocol import JsonRPCNotification, JsonRPCRequestMessage, LanguageServerProtocol

from kartalint import __version__
from kartalint.load.configfile import CONFIG_NAMES, find_config
from kartalint.lsp import completion, diagnostics, hover, navigation
from kartalint.lsp.document import OpenFile, lint
from kartalint.lsp.jqwork import BudgetedRunner, JqWork
from kartalint.lsp.project import LspProject, config_findings, config_text

DEBOUNCE = 0.15  # seconds of quiet typing before a lint
HOVER_WAIT = 8.0  # seconds a hover waits for the values of its expression on the fixtures
LENS_WAIT = 5.0  # seconds a code lens waits for the fixtures' outcome (then it says so, and refreshes)
EVALUATING = "fixtures: evaluating (the lens refreshes when done)"


_HANDLED = object()  # a message refused while it was read (answered, or a notification dropped)
_MEMBERS = ("jsonrpc", "id", "method", "params")  # of a request or notification (JSON-RPC 2.0)
logger = logging.getLogger(__name__)


class KartaProtocol(LanguageServerProtocol):
    """pygls's protocol, except for a message whose params do not have their method's type (no
    params, no position, a list for a map, a string for a number...): a request is answered with
    the error (Invalid Params; pygls would drop it and the editor wait for an answer forever), a
    notification is dropped, and the log says why in one line (pygls logs cattrs' exception group
    as a traceback, which reads as a crash of the server). A method the server does not have is
    answered Method Not Found with or without params. Other failures to read a message are
    pygls's: an internal error, logged with its traceback (a defect to see)."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        """The message of ``data``, or ``_HANDLED`` when its params do not fit its method (answered with Invalid
        Params, or a notification dropped, said in one line of the log)."""
        try:
            return self._structure(data)
        except JsonRpcException as exc:
            number = data.get("id")
            if "method" not in data or isinstance(number, bool) or not isinstance(number, (int, str)):
                if isinstance(exc, JsonRpcInvalidParams):  # nobody waits for an answer: dropped (logged)
                    return _HANDLED
                raise
            self._send_response(number, error=exc.to_response_error())
            return _HANDLED

    def _structure(self, data: dict[str, Any]) -> Any:
        method = data.get("method")
        if "jsonrpc" not in data or "error" in data or not isinstance(method, str):
            return super().structure_message(data)  # a response, an object inside a message
        request = "id" in data
        message_type = self.get_message_type(method)
        if message_type is None:  # pygls's plain message (answered Method Not Found) takes no other member
            message_type = JsonRPCRequestMessage if request else JsonRPCNotification
            data = {"params": None, **{key: data[key] for key in _MEMBERS if key in data}}
        try:
            return self._converter.structure(data, message_type)
        except ClassValidationError as exc:
            problems = "; ".join(transform_error(exc, path="message"))
            logger.warning("%s %s refused: %s", method, "request" if request else "notification", problems)
            raise JsonRpcInvalidParams(f"{JsonRpcInvalidParams.MESSAGE}: {problems}") from None
        except Exception:  # not the params: pygls's internal error, with the traceback of the defect
            return super().structure_message(data)

    def handle_message(self, message: Any) -> None:
        """Handle ``message`` as pygls does, unless it was answered while it was read."""
        if message is not _HANDLED:
            super().handle_message(message)


class KartaServer(LanguageServer):
    """The language server: pygls's, with the projects of the open files, their lints and the jq thread."""

    def __init__(self) -> None:
        """A server with no project yet (one is made for each configuration file reached)."""
        super().__init__(
            "kartalint",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Full,
            protocol_cls=KartaProtocol,
        )
        self.projects: dict[str, LspProject] = {}
        self.files: dict[str, OpenFile] = {}
        self.pending: dict[str, asyncio.Task] = {}
        self.outbox: list[tuple[types.ShowMessageParams, types.PublishDiagnosticsParams | None]] = []
        self.jq = JqWork()

    def is_open(self, uri: str) -> bool:
        """Whether the document ``uri`` is open in the editor."""
        return unquote(uri) in self.workspace.text_documents

    def project_for(self, path: str) -> LspProject:
        """The project of the file ``path`` (one per configuration file, or per folder without one), made on first
        use."""
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
            text = config_text(config_file)  # (None: refused, as a link out of the repository)
            uri = pathlib.Path(config_file).as_uri()
            opened = OpenFile(config_file, text or "")
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
        """The current text of ``uri`` parsed (cached per version). A document the editor has not
        opened is empty and has no project: nothing is read from disk for it (pygls would read any
        path: a folder, a FIFO that never answers, a file outside the project), not even the
        configuration of its folder."""
        path = path_of(uri)
        if not self.is_open(uri):  # nor its folder's configuration (it may be outside the workspace)
            return OpenFile(path, ""), LspProject.unread(path)
        project = self.project_for(path)
        document = self.workspace.get_text_document(uri)
        cached = self.files.get(uri)
        if cached is None or cached.text != document.source:
            cached = OpenFile(path, document.source, project.config)
            cached.excluded = project.project.excluded(path)
            if os.path.basename(path) in (".kartalint.yaml", ".kartalint.yml"):
                cached.config_root = os.path.dirname(os.path.abspath(path))
            self.files[uri] = cached
        return cached, project


def path_of(uri: str) -> str:
    """The file path of a ``file:`` URI; another URI as it is."""
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else uri


server = KartaServer()


async def _publish(ls: KartaServer, uri: str, delay: float) -> None:
    await asyncio.sleep(delay)
    if not ls.is_open(uri):  # closed meanwhile (its empty list is out): nothing after it
        return
    document = ls.workspace.get_text_document(uri)
    version = document.version
    text = document.source

    def work() -> list[types.Diagnostic]:
        if not ls.is_open(uri):  # closed while waiting for this thread: its file may be gone from disk
            return []
        open_file, _ = ls.open_file(uri)
        lint(open_file)
        return diagnostics.diagnostics(open_file, uri)

    found = await asyncio.to_thread(work)
    ls.flush()
    if not ls.is_open(uri):
        return
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
    """A document opened: lint it now."""
    _schedule(ls, params.text_document.uri, 0)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: KartaServer, params: types.DidChangeTextDocumentParams) -> None:
    """A document changed: its jq is dropped, and it is linted once the typing pauses (``DEBOUNCE``)."""
    ls.jq.invalidate(params.text_document.uri)  # its jq (hovers, lenses) is for a text that is gone
    _schedule(ls, params.text_document.uri, DEBOUNCE)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: KartaServer, params: types.DidSaveTextDocumentParams) -> None:
    """A document saved: a configuration file saved reads every project again and lints every open document."""
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
    ls.jq.invalidate()  # a saved fixture changes every lens
    _schedule(ls, params.text_document.uri, 0)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: KartaServer, params: types.DidCloseTextDocumentParams) -> None:
    """A document closed: its pending lint and jq are dropped and its diagnostics cleared."""
    uri = params.text_document.uri
    pending = ls.pending.pop(uri, None)
    if pending is not None and not pending.done():
        pending.cancel()  # a lint on its way is for a document no longer shown
    ls.jq.invalidate(uri)
    ls.files.pop(uri, None)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


def _position(params: Any, open_file: OpenFile) -> tuple[int, int]:
    return open_file.clamp((params.position.line, params.position.character))


async def _finished(future: Any, seconds: float) -> tuple[bool, Any]:
    """(whether the jq thread's job finished within ``seconds``, its result or the error to show);
    waiting never cancels the job (another request may want its result)."""

    wrapped = asyncio.wrap_future(future)
    done, _ = await asyncio.wait({asyncio.shield(wrapped)}, timeout=seconds)
    if not done:
        return False, None
    try:
        return True, future.result(timeout=0)
    except concurrent.futures.CancelledError:
        return True, None
    except Exception as exc:  # (said in the answer, never a failed request)
        return True, f"not evaluated: {type(exc).__name__}: {exc}"


@server.feature(types.TEXT_DOCUMENT_HOVER)
async def on_hover(ls: KartaServer, params: types.HoverParams) -> types.Hover | None:
    """A hover: what the field under the cursor is, and for a jq field, what it gives on the fixtures (waited for
    as long as ``HOVER_WAIT``)."""
    uri = params.text_document.uri

    def work() -> tuple[OpenFile, LspProject, list[str], Any]:
        open_file, project = ls.open_file(uri)
        parts, jq_field = hover.describe(open_file, project, _position(params, open_file))
        return open_file, project, parts, jq_field

    open_file, project, parts, jq_field = await asyncio.to_thread(work)
    ls.flush()
    if jq_field is not None:
        expression, target = jq_field.expression, jq_field.target

        def values(budget: Any) -> str:
            runner = BudgetedRunner(project.runner(), budget)
            return hover.values_text(hover.values_on_fixtures(open_file, project, expression, target, runner))

        key = ("hover", hash(open_file.text), expression, target)
        done, text = await _finished(ls.jq.submit(uri, key, values, project.runner()), HOVER_WAIT)
        parts.append(
            text
            if done and text
            else "On the fixtures: still evaluating (a slow expression): hover again to see the values"
        )
    value = "\n\n".join(p for p in parts if p)
    if not value:
        return None
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=value))


@server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=[".", " ", ":", "=", ","]))
async def on_completion(ls: KartaServer, params: types.CompletionParams) -> types.CompletionList:
    """Completion at the cursor (``completion.complete``)."""

    def work() -> list[types.CompletionItem]:
        open_file, project = ls.open_file(params.text_document.uri)
        return completion.complete(open_file, project, _position(params, open_file))

    return types.CompletionList(is_incomplete=False, items=await asyncio.to_thread(work))


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix])
)
async def on_code_action(ls: KartaServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    """Quick fixes of the diagnostics the editor names."""

    def work() -> list[types.CodeAction]:
        open_file, _ = ls.open_file(params.text_document.uri)
        return diagnostics.code_actions(open_file, params.text_document.uri, list(params.context.diagnostics))

    return await asyncio.to_thread(work)


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
async def on_definition(ls: KartaServer, params: types.DefinitionParams) -> types.Location | None:
    """Go to the declaration of the component named under the cursor."""

    def work() -> types.Location | None:
        open_file, _ = ls.open_file(params.text_document.uri)
        return navigation.definition(open_file, params.text_document.uri, _position(params, open_file))

    return await asyncio.to_thread(work)


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
async def on_symbols(ls: KartaServer, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
    """The outline of the document's definitions."""

    def work() -> list[types.DocumentSymbol]:
        open_file, _ = ls.open_file(params.text_document.uri)
        return navigation.symbols(open_file)

    return await asyncio.to_thread(work)


@server.feature(types.TEXT_DOCUMENT_CODE_LENS)
async def on_code_lens(ls: KartaServer, params: types.CodeLensParams) -> list[types.CodeLens]:
    """A code lens per definition: its fixtures' outcome, or "evaluating" until the jq thread has it (the editor is
    then asked to refresh)."""
    uri = params.text_document.uri
    open_file, project = await asyncio.to_thread(ls.open_file, uri)

    def summaries(budget: Any) -> list[str]:
        runner = BudgetedRunner(project.runner(), budget)
        return [navigation.fixture_summary(open_file, project, d.data, runner) for d in open_file.definitions]

    future = ls.jq.submit(uri, ("lens", hash(open_file.text)), summaries, project.runner())
    done, titles = await _finished(future, LENS_WAIT)
    if not done:  # the editor asks again when told, and then gets the result at once
        loop = asyncio.get_running_loop()
        future.add_done_callback(lambda f: loop.call_soon_threadsafe(_refresh_lenses, ls, f))
    shown: list[str] = titles if isinstance(titles, list) else []

    def work() -> list[types.CodeLens]:
        return navigation.code_lenses(
            open_file, project, title=lambda i, _: shown[i] if i < len(shown) else (titles or EVALUATING)
        )

    return await asyncio.to_thread(work)


def _refresh_lenses(ls: KartaServer, future: Any) -> None:
    capabilities = ls.client_capabilities.workspace
    lens = capabilities.code_lens if capabilities is not None else None
    if future.cancelled() or lens is None or not lens.refresh_support:
        return
    ls.workspace_code_lens_refresh(None)


@server.feature(types.SHUTDOWN)
def on_shutdown(ls: KartaServer, params: Any) -> None:
    """Stop the jq workers of every project."""
    for project in ls.projects.values():
        project.close()


def stop_workers() -> None:
    """Kill every jq worker of the server (they are its only child processes)."""

    server.jq.invalidate()
    server.jq.stop()
    for project in list(server.projects.values()):
        project.close()
    for child in multiprocessing.active_children():
        child.kill()


def _terminated(signum: int, frame: Any) -> None:
    # pygls would wait for its stdin reader thread, which an editor that sends SIGTERM may never
    # end: stop the workers and leave at once
    try:
        stop_workers()
    finally:  # (whatever stopping them met: the worker processes also die with this one)
        os._exit(128 + signum)


def run_stdio() -> int:
    """Serve on standard input and output until the editor exits; SIGTERM stops the server and its workers."""
    with contextlib.suppress(ValueError):  # (ValueError: not the main thread)
        signal.signal(signal.SIGTERM, _terminated)
    try:
        server.start_io()
    finally:
        stop_workers()
    return 0
