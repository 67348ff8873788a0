"""A tool's common call bound into one closure: the call's JSON text to its ``ExecutedTool``.

The common call is one with no active layer, no ids and no progress: ``Snapshot.execute``,
``execute_sync`` and ``run_tool_call`` hand it to the closure ``fused_call`` binds for the
tool, once per snapshot, at the tool's first such call (``Snapshot._fuse``). The closure
runs exactly the steps of the tool's call path (``path.py``: validate, call, the output
contract, the content) for the two paths a plain tool takes, ``tool(fn)`` of a ``def`` and
an executor that is a ``def``. Whatever is not the simple case (a ``str`` or ``ToolResult``
of its own, content, no output declared, an awaitable) goes on with the call path's own
finishing function; any other tool's common call is its call path, unchanged.

Why: with no layer, what a call pays beyond the work is frames (the door, ``Snapshot.run``,
the call path, finishing, ``_finished``, ``render_output``); here the steps run in one.
How much that saves is in ``bench/DECISIONS.md``. Pinned to the plain path by
``tests/host/call/test_fused.py`` (generated functions and inputs, valid or not).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from tooldeck._function_tool import NO_METADATA, FunctionExecutor, wrap_output
from tooldeck._tool import ToolContext, ToolFailure, ToolResult, tuple_new
from tooldeck.host.call.arguments import arguments_of
from tooldeck.host.call.content import render_output
from tooldeck.host.call.path import (
    backtracking_patterns,
    finish,
    finish_awaited,
    finish_function,
    output_problem,
    refused,
    slow_schemas,
    takes_function_path,
)
from tooldeck.host.call.values import CallScope, Done, ExecutedTool, ToolCall
from tooldeck.host.schema.validators import SchemaIssues

if TYPE_CHECKING:
    from tooldeck.host.location.location import Location
    from tooldeck.host.registry.record import ToolRecord

_OWN_CONTENT = (str, ToolResult)
"""What a ``tool(fn)`` returns that is (or gives) content of its own, not just output."""

FusedCall = Callable[[ToolCall], Done]
"""``fused(call)``: one call of one tool in a snapshot's default scope, without progress."""


def fused_call(record: ToolRecord, location: Location, scope: CallScope) -> FusedCall | None:
    """The call of ``record``'s tool in ``scope`` as one closure where its call path is
    ``_function_path`` of a ``def`` with an output or ``_executor_path`` (the tests
    ``call_path`` makes, in its order); ``None`` for any other tool."""
    tool = record.tool
    execute = tool.execute
    if backtracking_patterns(record) is None and not slow_schemas(record):
        if takes_function_path(execute, record):
            if not execute.is_async and execute.wrap is wrap_output and tool.output is not None:
                return _fused_function(record, execute, location)
        elif not inspect.iscoroutinefunction(execute):
            return _fused_executor(record, location, scope)
    return None


def _fused_function(record: ToolRecord, execute: FunctionExecutor, location: Location) -> FusedCall:
    """``_function_path`` and ``finish_function`` in one frame, for a ``def`` with output."""
    function, to_arguments = execute.function, arguments_of(execute)

    def fused(call: ToolCall) -> Done:
        raw = call.input
        try:
            arguments = to_arguments(raw)
        except (ValidationError, RecursionError) as exc:
            raise refused(record, raw, exc) from None
        value = function(**arguments)
        if isinstance(value, _OWN_CONTENT):
            return finish_function(record, wrap_output, value, location.config.images)
        try:  # _finished with no content
            output = record.output_validator(value)
        except SchemaIssues as exc:
            raise ToolFailure(output_problem(record.effective, value, exc)) from None
        return tuple_new(ExecutedTool, (render_output(output), NO_METADATA, output))

    return fused


def _fused_executor(record: ToolRecord, location: Location, scope: CallScope) -> FusedCall:
    """``_executor_path`` in one frame, with ``_finished`` for a ``ToolResult`` of output
    only, for an executor that is a ``def``."""
    execute = record.tool.execute
    has_output = record.tool.output is not None
    session_id, message_id, agent, peer = (
        scope.session_id,
        scope.message_id,
        scope.agent,
        scope.peer,
    )

    def fused(call: ToolCall) -> Done:
        raw = call.input
        try:
            value = record.input_json(raw) if isinstance(raw, str) else record.input_python(raw)
        except (SchemaIssues, ValidationError, RecursionError) as exc:
            raise refused(record, raw, exc) from None
        context = (location, session_id, message_id, call.id, agent, None, peer)
        result: Any = execute(value, tuple_new(ToolContext, context))
        if result.__class__ is ToolResult and result.content is None and has_output:
            _, metadata, output = result
            try:  # _finished with no content
                output = record.output_validator(output)
            except SchemaIssues as exc:
                raise ToolFailure(output_problem(record.effective, output, exc)) from None
            return tuple_new(ExecutedTool, (render_output(output), metadata, output))
        images = location.config.images
        if inspect.isawaitable(result):
            return finish_awaited(record, result, images)
        return finish(record, result, images)

    return fused
