"""A served call's ``Peer``: its tool's logs, progress, questions and samples, sent to the
MCP client whose request it serves.

``ctx.log`` and ``ctx.progress`` are synchronous (a tool must not wait on its client to
log) and may be called from a worker thread, while notifications are sent on the event
loop: they go through one ordered ``Outbox`` per request, drained by one task, and the
server flushes it before the result goes out, so a client sees every message a call sent
before its answer, in order. ``ctx.elicit`` and ``ctx.sample`` send a request to the
client and wait for its answer (a handshake-era client only: a 2026-07-28 client cannot
be sent a request). Where the client cannot answer, the tool gets a ``ToolFailure``
saying why, which the model reads.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import contextvars
import json
import logging
import threading
import uuid
from collections import deque
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from typing import Any

from tooldeck._peer import LOG_LEVELS, Elicited, LogLevel
from tooldeck._tool import AudioPart, ContentPart, ImagePart, TextPart, ToolFailure
from tooldeck.mcp.sdk import MCPError, ServerMessageMetadata, allowed_log_levels, types
from tooldeck.mcp.serve.asking import MODERN, declares_forms, declares_urls
from tooldeck.mcp.serve.content import media_block
from tooldeck.mcp.serve.rounds import Round

log = logging.getLogger("tooldeck.mcp")

Send = Callable[[], Awaitable[Any]]

SAMPLING_OPTIONS = frozenset(
    {"system_prompt", "temperature", "stop_sequences", "model_preferences", "metadata"}
)
_SAMPLING = types.ClientCapabilities(sampling=types.SamplingCapability())


class Outbox:
    """Notifications of one request, sent in the order they were put, from any thread."""

    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._thread = threading.get_ident()
        self._queue: deque[Send] = deque()
        self._task: asyncio.Task[None] | None = None

    def put(self, send: Send) -> None:
        if threading.get_ident() == self._thread:
            self._put(send)
        else:
            self._loop.call_soon_threadsafe(self._put, send)

    def _put(self, send: Send) -> None:
        self._queue.append(send)
        if self._task is None or self._task.done():
            self._task = self._loop.create_task(self._drain())

    async def _drain(self) -> None:
        while self._queue:
            send = self._queue.popleft()
            try:
                await send()
            except Exception as exc:  # a client that left cannot be told anything
                log.debug("a notification to an MCP client was not sent: %s", exc)

    async def flush(self) -> None:
        """Wait until everything put so far (other threads' puts included) is sent."""
        await asyncio.sleep(0)  # let puts scheduled from other threads land
        while self._task is not None and not self._task.done():
            await asyncio.shield(self._task)


_PEER: contextvars.ContextVar[ServedPeer | None] = contextvars.ContextVar(
    "tooldeck_mcp_peer", default=None
)


@contextlib.contextmanager
def current_peer(peer: ServedPeer) -> Iterator[None]:
    """Mark ``peer`` as the one a log record emitted in this task belongs to (``logs.py``
    forwards such records to it)."""
    token = _PEER.set(peer)
    try:
        yield
    finally:
        _PEER.reset(token)


def running_peer() -> ServedPeer | None:
    """The peer of the served call running in this task, if any."""
    return _PEER.get()


class ServedPeer:
    """The client of one served request (``ctx`` is the SDK's request context), at the log
    level its session set (``threshold()``)."""

    def __init__(
        self,
        ctx: Any,
        threshold: Callable[[], LogLevel],
        tool: str,
        round_: Round | None = None,
    ) -> None:
        self._ctx = ctx
        self.round = round_
        """A 2026-07-28 call's round: where its questions are answered (``rounds``)."""
        self._session = ctx.session
        self._threshold = threshold
        self._tool = tool
        self.outbox = Outbox()
        self.answered = False
        """The call's result went out: a later notification is no longer its request's."""
        meta = ctx.meta if isinstance(ctx.meta, Mapping) else {}
        self._progress = any(meta.get(k) is not None for k in ("progress_token", "progressToken"))
        # 2026-07-28: a request opts in to logs, per level; handshake eras: every level.
        self._allowed = allowed_log_levels(ctx.protocol_version, meta)

    # -- notifications --------------------------------------------------------------------
    def progress(self, metadata: Mapping[str, Any]) -> None:
        """``ctx.progress``: ``{"progress", "total", "message"}`` becomes MCP progress when
        the request asked for it (other keys, and other reports, are the host's)."""
        done = metadata.get("progress")
        if not self._progress or not isinstance(done, int | float) or isinstance(done, bool):
            return
        total = metadata.get("total")
        total = float(total) if isinstance(total, int | float) else None
        message = metadata.get("message")
        text = str(message) if message is not None else None
        session = self._session
        self.outbox.put(lambda: session.report_progress(float(done), total, text))

    def log(self, level: LogLevel, message: str, logger: str | None = None) -> None:
        """``ctx.log``: a ``notifications/message`` at or above the session's level."""
        if level not in self._allowed or _rank(level) < _rank(self._threshold()):
            return
        notification = types.LoggingMessageNotification(
            params=types.LoggingMessageNotificationParams(
                level=level, data=message, logger=logger or self._tool
            )
        )
        session, related = self._session, self._ctx.request_id
        self.outbox.put(lambda: session.send_notification(notification, related))

    # -- requests -------------------------------------------------------------------------
    async def elicit(self, message: str, schema: Mapping[str, Any]) -> Elicited:
        """``ctx.elicit``: an ``elicitation/create`` form request to the client."""
        self._can_ask(declares_forms(self._session), "ask its user (elicitation)")
        if self.round is not None:
            request = types.ElicitRequest(
                params=types.ElicitRequestFormParams(
                    message=str(message), requested_schema=_plain(schema)
                )
            )
            answer = types.ElicitResult.model_validate(self.round.answer("elicit", request))
            return _filled_in(message, schema, Elicited(answer.action, answer.content))
        await self.outbox.flush()
        try:
            result = await self._session.elicit_form(
                str(message), _plain(schema), related_request_id=self._ctx.request_id
            )
        except MCPError as exc:
            raise ToolFailure(f"The MCP client did not ask its user: {exc.message}") from exc
        return _filled_in(message, schema, Elicited(result.action, result.content))

    async def elicit_url(self, message: str, url: str, elicitation_id: str | None) -> Elicited:
        """``ctx.elicit_url``: a URL-mode ``elicitation/create`` to a client that
        declared URL elicitation (a 2026-07-28 client's has no id: that era dropped it)."""
        self._can_ask(declares_urls(self._session), "send its user to a URL (URL elicitation)")
        if self.round is not None:
            params = types.ElicitRequestURLParams(message=str(message), url=str(url))
            request = types.ElicitRequest(params=params)
            answer = types.ElicitResult.model_validate(self.round.answer("elicit", request))
            return Elicited(answer.action)
        await self.outbox.flush()
        try:
            result = await self._session.elicit_url(
                str(message),
                str(url),
                elicitation_id or uuid.uuid4().hex,
                related_request_id=self._ctx.request_id,
            )
        except MCPError as exc:
            raise ToolFailure(f"The MCP client did not ask its user: {exc.message}") from exc
        return Elicited(result.action)

    def elicitation_complete(self, elicitation_id: str) -> None:
        """``ctx.elicitation_complete``: ``notifications/elicitation/complete``, in a
        handshake era (2026-07-28 has no such notification). Related to the call's
        request while it runs; after its result, on the session's own stream."""
        if self._session.protocol_version == MODERN:
            return
        session, ctx, peer = self._session, self._ctx, self
        self.outbox.put(
            lambda: session.send_elicit_complete(
                elicitation_id, None if peer.answered else ctx.request_id
            )
        )

    async def sample(
        self, messages: Sequence[Mapping[str, Any]], max_tokens: int, options: Mapping[str, Any]
    ) -> ContentPart:
        """``ctx.sample``: a ``sampling/createMessage`` request to the client's model."""
        unknown = sorted(set(options) - SAMPLING_OPTIONS)
        if unknown:
            raise TypeError(
                f"ctx.sample got unknown option(s) {', '.join(unknown)}; "
                f"it takes {', '.join(sorted(SAMPLING_OPTIONS))}"
            )
        offered = self._session.check_client_capability(_SAMPLING)
        self._can_ask(offered, "ask its model (sampling)")
        params = types.CreateMessageRequestParams(
            messages=[_sampling_message(m) for m in messages], max_tokens=max_tokens, **options
        )
        if self.round is not None:
            request = types.CreateMessageRequest(params=params)
            sampled = types.CreateMessageResult.model_validate(self.round.answer("sample", request))
            return _part(sampled.content)
        await self.outbox.flush()
        metadata = ServerMessageMetadata(related_request_id=self._ctx.request_id)
        try:
            result = await self._session.send_request(
                types.CreateMessageRequest(params=params),
                types.CreateMessageResult,
                metadata=metadata,
            )
        except MCPError as exc:
            raise ToolFailure(f"The MCP client's model did not answer: {exc.message}") from exc
        content = result.content[0] if isinstance(result.content, list) else result.content
        return _part(content)

    def _can_ask(self, offered: bool, what: str) -> None:
        """Raise, saying why, unless the client can be asked now (``offered``: it
        declared what the question needs)."""
        session = self._session
        if session.protocol_version == MODERN and self.round is None:
            why = "speaks MCP 2026-07-28, where tooldeck cannot send it a request mid-call"
        elif not offered:
            why = "does not offer that"
        elif self.round is None and not session.can_send_request:
            why = "cannot be sent a request on this connection"
        else:
            return
        raise ToolFailure(f"{self._tool} needed to {what}, and this MCP client {why}.")


def _rank(level: str) -> int:
    return LOG_LEVELS.index(level) if level in LOG_LEVELS else 0


def _filled_in(message: str, schema: Mapping[str, Any], answer: Elicited) -> Elicited:
    """``answer``, once its content fills in the form as ``schema`` says (fields the
    form did not ask for dropped): a client answers for its user, and the tool relies
    on what it asked for. Raises ``ToolFailure`` naming the question otherwise."""
    if answer.action != "accept":
        return answer
    from tooldeck.host.schema.jsonschema_fast import SchemaValidationError, SchemaValidator
    from tooldeck.host.schema.validators import format_path

    try:
        content = SchemaValidator(schema, drop_undeclared=True).validate(answer.content or {})
    except SchemaValidationError as exc:
        problems = "; ".join(f"{format_path(i.path)}: {i.message}" for i in exc.issues)
        raise ToolFailure(
            f"The MCP client's answer to {str(message)!r} does not fill in its form: {problems}"
        ) from None
    return Elicited(answer.action, content)


def _plain(schema: Mapping[str, Any]) -> Any:
    """The schema as plain JSON data (it may be a frozen mapping)."""
    return json.loads(json.dumps(schema, default=dict))


def _sampling_message(message: Mapping[str, Any]) -> types.SamplingMessage:
    role = message.get("role")
    if role not in ("user", "assistant"):
        raise TypeError(f"a sampling message's role is 'user' or 'assistant', got {role!r}")
    return types.SamplingMessage(role=role, content=_block(message.get("content")))


def _block(content: object) -> Any:
    if isinstance(content, str):
        return types.TextContent(type="text", text=content)
    media = media_block(content)
    if media is not None:
        return media
    raise TypeError(
        "a sampling message's content is a str, TextPart, ImagePart or AudioPart, "
        f"got {type(content).__name__}"
    )


def _part(block: Any) -> ContentPart:
    kind = getattr(block, "type", None)
    if kind == "image":
        return ImagePart(base64.b64decode(block.data), block.mime_type)
    if kind == "audio":
        return AudioPart(base64.b64decode(block.data), block.mime_type)
    if kind == "text":
        return TextPart(block.text)
    return TextPart(f"[the model answered with a {kind} block]")
