"""The tracing plugin: one ``execute_tool`` span per call, through the ``tool_call`` hook.

``ToolTracing`` is an ordinary plugin object with a ``tool_call`` wrapper; the host
loads it last (so it is the outermost wrapper and its span covers every other plugin's
hook, a refusal included) and only when telemetry is on (``settings.resolve``). With it
off there is no hook, and a call takes the zero-cost path of a snapshot without hooks.

Parents. A call's span is a child of the current span, so a host's own agent span (or
the MCP SDK's server span) contains it. A call nested in a code-mode program is a child
of its ``execute`` call's span, looked up by the program's call id in ``_running``:
programs run their steps in worker threads, and a span found through the context alone
would depend on how each step got back to the loop. A served call with no current span
continues the trace its client sent in ``params._meta`` (``propagation``).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Generator, Mapping
from typing import TYPE_CHECKING, Any

from opentelemetry import context as otel_context
from opentelemetry import metrics, propagate, trace
from opentelemetry.trace import SpanKind, Status, StatusCode

from tooldeck import __version__
from tooldeck._tool import AwaitingInput, TextPart, ToolFailure, ToolResult
from tooldeck.errors import (
    PermissionBlocked,
    PermissionCorrected,
    PermissionDeclined,
    PermissionDeferred,
    QuestionDismissed,
)
from tooldeck.hookspecs import hookimpl
from tooldeck.telemetry import semconv
from tooldeck.telemetry.propagation import served_request

if TYPE_CHECKING:
    from tooldeck.host.boundary.hooks import ToolCallContext
    from tooldeck.host.call.values import ToolCall
    from tooldeck.telemetry.settings import Telemetry

AWAITING_INPUT = "awaiting_input"
"""``tooldeck.outcome.status`` of a call stopped at a question (``AwaitingInput``): its
outcome reads ``failed`` to the host that drives the rounds, but nothing went wrong."""

DURATION_BUCKETS = (0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96)
"""Seconds: the GenAI semconv's advice for operation durations."""


class ToolTracing:
    """Spans and the duration histogram for every call of one host (see the module doc)."""

    def __init__(self, telemetry: Telemetry) -> None:
        self._tracer = trace.get_tracer(
            semconv.INSTRUMENTATION, __version__, tracer_provider=telemetry.tracer_provider
        )
        meter = metrics.get_meter(
            semconv.INSTRUMENTATION, __version__, meter_provider=telemetry.meter_provider
        )
        self._duration = meter.create_histogram(
            semconv.DURATION,
            unit="s",
            description="Duration of tool executions",
            explicit_bucket_boundaries_advisory=list(DURATION_BUCKETS),
        )
        self._capture = bool(telemetry.capture_content)
        self._running: dict[tuple[str, str], trace.Span] = {}
        self._lock = threading.Lock()

    @hookimpl(wrapper=True)
    def tool_call(self, call: ToolCall, context: ToolCallContext) -> Generator[None, Any, Any]:
        span = self._tracer.start_span(
            f"{semconv.EXECUTE_TOOL} {context.name}",
            context=self._parent(context),
            kind=SpanKind.INTERNAL,
            attributes={semconv.OPERATION: semconv.EXECUTE_TOOL, semconv.TOOL_NAME: context.name},
        )
        if span.is_recording():  # a sampled-out call builds no attributes
            span.set_attributes(self._attributes(call, context))
        key = (context.session_id, call.id)
        with self._lock:
            self._running[key] = span
        token = otel_context.attach(trace.set_span_in_context(span))
        started = time.perf_counter()
        error: str | None = None
        try:
            result = yield
        except BaseException as exc:
            error = _ended(span, exc)
            raise
        else:
            span.set_attribute(semconv.STATUS, "completed")
            if self._capture and span.is_recording():
                span.set_attribute(semconv.TOOL_RESULT, _result_text(result))
        finally:
            otel_context.detach(token)
            with self._lock:
                self._running.pop(key, None)
            span.end()
            measured = {semconv.OPERATION: semconv.EXECUTE_TOOL, semconv.TOOL_NAME: context.name}
            if error is not None:
                measured[semconv.ERROR_TYPE] = error
            self._duration.record(time.perf_counter() - started, measured)
        return result

    def _parent(self, context: ToolCallContext) -> otel_context.Context | None:
        """The context the call's span starts in (``None``: the current one)."""
        if context.via == "nested":
            with self._lock:
                program = self._running.get((context.session_id, context.parent_id))
            if program is not None:
                return trace.set_span_in_context(program)
        elif context.via == "served" and not trace.get_current_span().get_span_context().is_valid:
            request = served_request()
            if request is not None and request.meta:
                return propagate.extract(dict(request.meta))
        return None

    def _attributes(self, call: ToolCall, context: ToolCallContext) -> dict[str, Any]:
        tool = context.snapshot.catalog.tools.get(context.name)
        description = tool.tool.description if tool is not None else _described(context)
        attributes: dict[str, Any] = {
            semconv.TOOL_CALL_ID: call.id,
            semconv.TOOL_TYPE: "extension" if context.mounted else "function",
            semconv.VIA: context.via,
        }
        if description:
            attributes[semconv.TOOL_DESCRIPTION] = description[: semconv.DESCRIPTION_LIMIT]
        if context.source:
            attributes[semconv.SOURCE] = context.source
        if context.overrides:
            attributes[semconv.OVERRIDES] = list(context.overrides)
        if context.session_id:
            attributes[semconv.SESSION] = context.session_id
        if context.parent_id:
            attributes[semconv.PARENT_ID] = context.parent_id
        if context.via == "served":
            attributes.update(_served_attributes())
        if self._capture:
            raw = call.input
            attributes[semconv.TOOL_ARGUMENTS] = raw if isinstance(raw, str) else _json(raw)
        return attributes


def _described(context: ToolCallContext) -> str:
    """The description of a tool no plugin registered (``execute``), if advertised."""
    tool = context.snapshot.get(context.name)
    return tool.description if tool is not None else ""


def _served_attributes() -> dict[str, Any]:
    request = served_request()
    attributes: dict[str, Any] = {semconv.MCP_METHOD: semconv.TOOLS_CALL}
    if request is None:
        return attributes
    if request.session_id:
        attributes[semconv.MCP_SESSION] = request.session_id
    if request.protocol_version:
        attributes[semconv.MCP_PROTOCOL] = request.protocol_version
    if request.request_id is not None:
        attributes[semconv.JSONRPC_ID] = request.request_id
    return attributes


def _ended(span: trace.Span, exc: BaseException) -> str | None:
    """Record how a call that raised ``exc`` ended; its ``error.type`` (None: no error)."""
    status, error = _classified(exc)
    span.set_attribute(semconv.STATUS, status)
    if error is None:
        return None
    span.set_attribute(semconv.ERROR_TYPE, error)
    if status == "failed" and error not in ("tool.execution", "permission.rejected"):
        span.record_exception(exc)
    span.set_status(Status(StatusCode.ERROR, _message(exc)))
    return error


def _classified(exc: BaseException) -> tuple[str, str | None]:
    """(outcome status, ``error.type``) as ``run_tool_call`` will classify ``exc``; a
    call stopped at a question its next run answers is no error, but awaiting input."""
    if isinstance(exc, AwaitingInput):
        return AWAITING_INPUT, None
    if isinstance(exc, ToolFailure):
        return "failed", "tool.execution"
    if isinstance(exc, PermissionCorrected | PermissionBlocked):
        return "failed", "permission.rejected"
    if isinstance(exc, PermissionDeclined | QuestionDismissed):
        return "declined", None
    if isinstance(exc, PermissionDeferred):
        return "pending", None
    if isinstance(exc, asyncio.CancelledError):
        return "interrupted", "cancelled"
    return "failed", type(exc).__qualname__


def _message(exc: BaseException) -> str:
    text = exc.message if isinstance(exc, ToolFailure) else str(exc)
    return text[: semconv.DESCRIPTION_LIMIT]


def _result_text(result: Any) -> str:
    """A completed call's result as one attribute: its output as JSON, else its text."""
    if not isinstance(result, ToolResult):
        return ""
    if result.output is not None:
        return _json(result.output)
    content = result.content
    if isinstance(content, str):
        return content
    return "\n".join(p.text for p in content or () if isinstance(p, TextPart))


def _json(value: Any) -> str:
    if isinstance(value, Mapping):
        value = dict(value)
    return json.dumps(value, ensure_ascii=False, default=repr)
