"""What a mounted server sends tooldeck besides results: elicitation, progress and logs.

* ``elicitation/create`` (a form) during a call goes to that call's own
  ``ctx.elicit(message, schema)``, so whatever answers a tool's own question answers
  the server's: the client of a served call (``tooldeck mcp serve``) in either era — a
  handshake-era client is sent the form mid-call; for a 2026-07-28 client the question
  stops the call (``AwaitingInput``: the request to the server is cancelled and the
  calling tool stops), and the call's next round runs the server's tool again, which
  asks again and this time gets the answer the client gave — or the ``Peer`` an
  embedding host gave the call. A URL-mode request goes the same way to the call's
  ``ctx.elicit_url``, and the server's ``notifications/elicitation/complete`` after it
  to the client that was asked (``url_questions``). Where the call has no one to ask
  (``ctx.elicit``/``ctx.elicit_url`` fails: no peer, or a client without that mode),
  and for a form without a schema or a question outside any call, it goes to the
  Location's asker as a ``PermissionRequest`` with the action ``"elicitation"`` (the
  server's message, mode, schema or URL in its ``metadata``).
  ``once``/``always`` accepts, filling the schema's defaults (SEP-1034); an asker may
  instead return a mapping, the fields it filled in; a rejection declines. With no
  asker the request is declined, and the log says why. (``tooldeck mcp serve``'s
  asker asks only a served call's own permission questions, so there it declines.)
* ``notifications/progress`` of a call reaches that call's ``ctx.progress`` as
  ``{"progress", "total", "message"}``.
* ``notifications/message`` becomes a Python ``logging`` record on the logger
  ``tooldeck.mcp.<server>``, emitted in the context of the call it belongs to (so a host
  that forwards a call's log records, ``tooldeck mcp serve`` say, forwards these too).

Which call a message belongs to: a 2026-07-28 server's questions come back inside the
request that asked (the SDK drives its ``input_required`` rounds in that request's
task), so they belong to that call. A handshake-era server's requests and
notifications do not say which of our calls they belong to, so they are given to the
one call in flight on that connection; with several in flight (or none) they belong to
no call: logs go to the logger alone and an elicitation is asked with the server as its
source.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import logging
from collections.abc import Awaitable, Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import anyio

from tooldeck._tool import AwaitingInput, ToolFailure
from tooldeck.errors import PermissionDeclined, QuestionDismissed
from tooldeck.mcp.client.pages import REFUSED, plain, url_problem
from tooldeck.mcp.client.url_questions import UrlQuestions

if TYPE_CHECKING:
    from tooldeck._tool import ToolContext
    from tooldeck.host.permissions.request import Asker
    from tooldeck.mcp.sdk import ClientRequestContext, types

T = TypeVar("T")

ELICITATION = "elicitation"
"""The action of the ``PermissionRequest`` an elicitation becomes."""

LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": logging.INFO + 5,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": logging.CRITICAL,
    "emergency": logging.CRITICAL,
}
"""MCP's (syslog's) log levels as Python ``logging`` levels."""


class Caller:
    """One tooldeck call of a mounted tool, as the server's messages reach it: in the
    caller's own event loop and context variables (the call runs on another loop).

    A question the call's client answers in a later round (``AwaitingInput``) stops the
    call's request to the server: ``stop`` notes why and cancels it (``stoppable``), and
    the connection raises that instead of a result."""

    __slots__ = ("_scope", "context", "ctx", "loop", "stopped")

    def __init__(self, ctx: ToolContext) -> None:
        self.ctx = ctx
        self.loop = asyncio.get_running_loop()
        self.context = contextvars.copy_context()
        self.stopped: AwaitingInput | None = None
        self._scope: anyio.CancelScope | None = None

    async def progress(self, progress: float, total: float | None, message: str | None) -> None:
        """The SDK's per-call ``progress_callback``: ``ctx.progress`` in the caller."""
        data: dict[str, Any] = {"progress": progress}
        if total is not None:
            data["total"] = total
        if message is not None:
            data["message"] = message
        self.run(self.ctx.progress, data)

    def run(self, fn: Callable[..., object], *args: Any) -> None:
        """``fn(*args)`` in the caller's loop and context (dropped once it has closed)."""
        with contextlib.suppress(RuntimeError):  # the caller's loop is gone: no one listens
            self.loop.call_soon_threadsafe(fn, *args, context=self.context)

    async def awaited(self, fn: Callable[..., Awaitable[T]], *args: Any) -> T:
        """``await fn(*args)`` in the caller's loop and context (a served call's
        context says which client resumed it), awaited from the connection's loop."""

        async def run() -> T:
            return await fn(*args)

        # A copy: the caller's context may be entered by ``run`` at the same moment.
        started = self.context.copy().run(asyncio.run_coroutine_threadsafe, run(), self.loop)
        return await asyncio.wrap_future(started)

    @contextlib.contextmanager
    def stoppable(self) -> Iterator[None]:
        """The call's request to the server, which ``stop`` cancels."""
        with anyio.CancelScope() as scope:
            self._scope = scope
            try:
                yield
            finally:
                self._scope = None

    def stop(self, why: AwaitingInput) -> None:
        """Stop the call's request (on the connection's loop): ``why`` is raised instead."""
        self.stopped = why
        if self._scope is not None:
            self._scope.cancel()


_CALLER: contextvars.ContextVar[Caller | None] = contextvars.ContextVar(
    "tooldeck_mcp_caller", default=None
)
"""The call whose request runs in this task (a 2026-07-28 server's questions are
answered in that task)."""


class ServerRequests:
    """One connection's handlers for what its server asks and tells.

    ``asker`` returns the Location's asker when a request needs it; ``calls`` are the
    connection's calls in flight (the connection adds and removes them).
    """

    def __init__(self, server: str, asker: Callable[[], Asker | None]) -> None:
        self.server = server
        self._asker = asker
        self.calls: list[Caller] = []
        self.urls = UrlQuestions(server)
        self.logger = logging.getLogger(f"tooldeck.mcp.{server}")

    @contextlib.contextmanager
    def in_flight(self, caller: Caller | None) -> Iterator[None]:
        """``caller``'s call is in flight on the connection meanwhile."""
        if caller is None:
            yield
            return
        self.calls.append(caller)
        token = _CALLER.set(caller)
        try:
            yield
        finally:
            _CALLER.reset(token)
            self.calls.remove(caller)

    def caller(self) -> Caller | None:
        """The call a message belongs to: the one whose request runs in this task, else
        (a message without a request id) the only one in flight."""
        caller = _CALLER.get()
        if caller is not None:
            return caller
        return self.calls[0] if len(self.calls) == 1 else None

    # -- elicitation -------------------------------------------------------------------------
    async def elicit(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        """The SDK's ``elicitation_callback``."""
        from tooldeck.mcp.sdk import types

        unshown = self._unshown(params)
        if unshown is not None:
            return unshown
        in_call = await self._in_call(params)
        if in_call is not None:
            return in_call
        asker = self._asker()
        if asker is None:
            self.logger.info(
                "MCP server %r asked the user (elicitation: %s); declined: this host has no asker",
                self.server,
                params.message,
            )
            return types.ElicitResult(action="decline")
        request = self._request(params)
        try:
            reply = await self._ask(asker, request)
        except Exception as exc:
            return self._unanswered(exc, "the host's asker failed")
        return _result(reply, params)

    def _unshown(self, params: types.ElicitRequestParams) -> types.ErrorData | None:
        """The server's error when its URL-mode question names a page no one should be
        sent to (``pages``): neither the call's client nor the asker is asked."""
        from tooldeck.mcp.sdk import types

        url = getattr(params, "url", None)
        why = url_problem(url) if isinstance(url, str) else None
        if why is None:
            return None
        self.logger.warning("MCP server %r asked to send the user to a page; %s", self.server, why)
        return types.ErrorData(code=types.INVALID_PARAMS, message=REFUSED.format(why=why))

    async def _in_call(
        self, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData | None:
        """The answer of the call's own ``ctx.elicit`` to a form (``ctx.elicit_url`` to
        a URL, ``url_questions``); ``None`` when the question goes to the asker instead
        (no call, a form without a schema, no one to ask)."""
        from tooldeck.mcp.sdk import types

        caller = self.caller()
        if caller is None:
            return None
        if isinstance(params, types.ElicitRequestURLParams):
            try:
                return await self.urls.ask(caller, params)
            except Exception as exc:
                return self._unanswered(exc, "the question was not answered")
        schema = getattr(params, "requested_schema", None)
        if schema is None:
            return None
        try:
            answer = await caller.awaited(caller.ctx.elicit, params.message, schema)
        except AwaitingInput as stop:  # answered in the call's next round: stop this one
            caller.stop(stop)
            return types.ElicitResult(action="cancel")
        except ToolFailure:  # the call has no one who can answer: the asker decides
            return None
        except Exception as exc:
            return self._unanswered(exc, "the question was not answered")
        content = dict(answer.content) if answer.content is not None else None
        return types.ElicitResult(action=answer.action, content=content)

    def _unanswered(self, exc: Exception, failed: str) -> types.ElicitResult | types.ErrorData:
        """What the server hears when its question got no answer: the user declined or
        dismissed it, or whoever was asked failed (``failed``: who, the error's whole
        text; why it failed is the host's to know, so it goes to the log alone)."""
        from tooldeck.mcp.sdk import types

        if isinstance(exc, PermissionDeclined):
            return types.ElicitResult(action="decline")
        if isinstance(exc, QuestionDismissed):
            return types.ElicitResult(action="cancel")
        self.logger.warning("MCP server %r asked the user; %s: %s", self.server, failed, exc)
        return types.ErrorData(code=types.INTERNAL_ERROR, message=failed)

    async def _ask(self, asker: Asker, request: Any) -> object:
        """The asker's reply, asked where the host's own asks are: in the calling
        tool's loop (an async asker may use that loop's objects); without a call, a sync
        asker in a worker thread, so no prompt holds up the other servers."""
        caller = self.caller()
        if caller is not None:
            done = asyncio.run_coroutine_threadsafe(_reply(asker, request), caller.loop)
            return await asyncio.wrap_future(done)
        import anyio

        reply = await anyio.to_thread.run_sync(asker, request)
        return await reply if inspect.isawaitable(reply) else reply

    def _request(self, params: types.ElicitRequestParams) -> Any:
        from types import MappingProxyType

        from tooldeck.host.permissions.request import PermissionRequest

        metadata: dict[str, Any] = {
            "server": self.server,
            "message": plain(params.message),
            "mode": params.mode,
        }
        schema = getattr(params, "requested_schema", None)
        if schema is not None:
            metadata["schema"] = schema
        url = getattr(params, "url", None)
        if url is not None:
            metadata["url"] = url
        caller = self.caller()
        source: Mapping[str, Any] = (
            caller.ctx.source if caller is not None else {"type": "mcp", "server": self.server}
        )
        session = caller.ctx.session_id if caller is not None else ""
        return PermissionRequest(
            action=ELICITATION,
            resources=(self.server,),
            save=(),
            metadata=MappingProxyType(metadata),
            source=MappingProxyType(dict(source)),
            session_id=session,
        )

    # -- logs and progress -------------------------------------------------------------------
    async def log(self, params: types.LoggingMessageNotificationParams) -> None:
        """The SDK's ``logging_callback``: a Python log record, in the call's context."""
        level = LEVELS.get(params.level, logging.INFO)
        data = params.data if isinstance(params.data, str) else repr(params.data)
        name = f" [{params.logger}]" if params.logger else ""
        caller = self.caller()
        emit = self.logger.log
        if caller is None:
            emit(level, "%s%s", data, name)
        else:
            caller.run(emit, level, "%s%s", data, name)


async def _reply(asker: Asker, request: Any) -> object:
    reply = asker(request)
    return await reply if inspect.isawaitable(reply) else reply


def _result(reply: object, params: types.ElicitRequestParams) -> types.ElicitResult:
    from tooldeck.mcp.sdk import types

    if isinstance(reply, Mapping):
        return types.ElicitResult(action="accept", content={**_defaults(params), **reply})
    if reply in ("once", "always"):
        content = _defaults(params) if params.mode == "form" else None
        return types.ElicitResult(action="accept", content=content)
    return types.ElicitResult(action="decline")


def _defaults(params: types.ElicitRequestParams) -> dict[str, Any]:
    """The ``default`` of each field of a form's schema (SEP-1034)."""
    schema = getattr(params, "requested_schema", None) or {}
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping):
        return {}
    return {
        name: field["default"]
        for name, field in properties.items()
        if isinstance(field, Mapping) and "default" in field
    }
