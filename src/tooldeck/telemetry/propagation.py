"""W3C trace context in an MCP request's ``params._meta``, both ways.

A mounted call (``mcp/client/mount.py``) sends the current context as ``traceparent`` /
``tracestate`` in its request's ``_meta`` (``mounted_call``), so a mounted server's
spans join the host's trace, and its span records the HTTP session the server gave
(``mounted_session``). The MCP SDK propagates through ``_meta`` too, when its own spans
are on; doing it here as well keeps a host's trace whole when only tooldeck reports (a
``Telemetry`` provider that is not the global one).

A served call (``mcp/serve/server.py``) marks its request with ``serving``; the
``execute_tool`` span of that call continues the trace the client sent (``tracing.py``
reads ``served_request``). The request travels in a context variable, ``_SERVED``,
because the span starts in a ``tool_call`` hook, which is given the call and its
``ToolCallContext``, and neither carries the request; once the call's scope
(``CallScope``, which the context wraps) can carry it, the hook can read it there. A call
with no ``tool_call`` hook has no span, so the server marks nothing then.

Nothing here imports OpenTelemetry unless it is loaded already: without it no span is
active, so there is nothing to send.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, NamedTuple


class ServedRequest(NamedTuple):
    """The MCP request a served call answers: what its span records and continues."""

    session_id: str | None
    protocol_version: str | None
    request_id: str | None
    meta: Mapping[str, Any] | None


_SERVED: ContextVar[ServedRequest | None] = ContextVar("tooldeck_served_request", default=None)


@contextmanager
def serving(request: ServedRequest) -> Iterator[None]:
    """Mark the MCP request the calls inside answer (``tooldeck mcp serve``)."""
    token = _SERVED.set(request)
    try:
        yield
    finally:
        _SERVED.reset(token)


def served_request() -> ServedRequest | None:
    """The MCP request being answered in this task, if any."""
    return _SERVED.get()


def mounted_call(server: str, protocol_version: str | None) -> dict[str, Any] | None:
    """The ``_meta`` of a request calling a mounted server's tool: the current trace
    context (``traceparent``, ``tracestate``), or ``None`` when no span is active (or
    OpenTelemetry is not loaded). The current span is told what it calls (MCP semconv)."""
    if "opentelemetry.trace" not in sys.modules:
        return None
    from opentelemetry import propagate, trace

    from tooldeck.telemetry import semconv

    span = trace.get_current_span()
    if not span.get_span_context().is_valid:
        return None
    if span.is_recording():
        span.set_attribute(semconv.MCP_METHOD, semconv.TOOLS_CALL)
        span.set_attribute(semconv.MCP_SERVER, server)
        if protocol_version:
            span.set_attribute(semconv.MCP_PROTOCOL, protocol_version)
    carrier: dict[str, Any] = {}
    propagate.inject(carrier)
    return carrier or None


def mounted_session(session_id: str) -> None:
    """Record on the current span the MCP session (HTTP ``Mcp-Session-Id``) of the
    mounted server it called; nothing when no span records (or OpenTelemetry is not
    loaded). Stdio servers have no session id, so their calls never come here."""
    if "opentelemetry.trace" not in sys.modules:
        return
    from opentelemetry import trace

    from tooldeck.telemetry import semconv

    span = trace.get_current_span()
    if span.is_recording():
        span.set_attribute(semconv.MCP_SESSION, session_id)
