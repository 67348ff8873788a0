"""One call through the execution boundary: the call's JSON in, ``ExecutedTool`` out.

``Snapshot`` resolves the tool and the session; how the call then runs is the tool's
*call path*, chosen once per tool object (``call_path``) and kept on its ``ToolRecord``:

* ``_executor_path``, the general one: validate the input, build a ``ToolContext``, call
  the executor, check what it returned (``finish``); ``_coroutine_path`` is the same
  for an ``async def`` executor, written as the one coroutine the boundary awaits.
* ``_function_path``, for a ``tool(fn)`` tool whose function takes no ``ToolContext``
  and whose input is still the model ``tool(fn)`` derived: the call's JSON is validated
  straight into the function's keyword arguments, no context is built, and a return
  value that is not a ``ToolResult`` goes to the output contract as ``wrap`` would lay it
  out. It saves a large share of a call (``bench/PROFILE-W3.md``);
  ``tests/host/call/test_function_fast_path.py`` pins it to the general path over
  generated functions and inputs.

Both end in ``_finished``: the output contract, then the content. A tool whose JSON
Schema holds a pattern RE2 cannot run takes ``_threaded_path`` instead: its validation
may spend up to ``PATTERN_BUDGET_S`` matching, so it runs in a worker thread, never on
the event loop (``host.schema.patterns``).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeGuard

from pydantic import ValidationError

from tooldeck._function_tool import NO_METADATA, FunctionExecutor, wrap_output
from tooldeck._tool import (
    ProgressCallback,
    ToolContext,
    ToolFailure,
    ToolResult,
    tuple_new,
)
from tooldeck.errors import ToolDefectError
from tooldeck.host.call.arguments import arguments_of
from tooldeck.host.call.content import normalize_content, render_output
from tooldeck.host.call.images import ImageBounds
from tooldeck.host.call.values import CallPath, CallScope, Done, ExecutedTool, ToolCall
from tooldeck.host.registry.record import ToolRecord
from tooldeck.host.schema.patterns import has_slow_patterns, pattern_executor
from tooldeck.host.schema.pydantic_patterns import backtracking_pattern_problem
from tooldeck.host.schema.validators import SchemaIssues, issues_of

if TYPE_CHECKING:
    from tooldeck.host.location.location import Location

MAX_ISSUES = 5


def call_path(record: ToolRecord) -> CallPath:
    """How every call of ``record``'s tool runs (the tool is frozen: decided once)."""
    refused = backtracking_patterns(record)
    if refused is not None:
        return _refusing_path(refused)
    execute = record.tool.execute
    if slow_schemas(record):
        return _threaded_path(record)
    if takes_function_path(execute, record):
        return _function_path(record, execute)
    if inspect.iscoroutinefunction(execute):
        return _coroutine_path(record)
    return _executor_path(record)


def backtracking_patterns(record: ToolRecord) -> str | None:
    """Why a pydantic model of the tool would match a pattern with Python's backtracking
    ``re`` (``host/schema/pydantic_patterns.py``), else ``None``. Judged here, on the
    tool's first call, rather than when it is registered: walking every model's core
    schema at load would multiply a catalog's build time, and no value is matched before
    a call."""
    tool = record.tool
    for role, source in (("input", tool.input), ("output", tool.output)):
        if source is not None and not isinstance(source, Mapping):
            problem = backtracking_pattern_problem(source, role=role)
            if problem is not None:
                return f"Tool '{record.effective}' cannot run: its {problem}."
    return None


def _refusing_path(message: str) -> CallPath:
    def run(
        location: Location, call: ToolCall, scope: CallScope, progress: ProgressCallback | None
    ) -> Done:
        raise ToolFailure(message)

    return run


def takes_function_path(execute: object, record: ToolRecord) -> TypeGuard[FunctionExecutor]:
    return (
        execute.__class__ is FunctionExecutor
        and execute.context_parameter is None
        and execute.model is record.tool.input
    )


def finishes_in_place(record: ToolRecord) -> bool:
    """Whether every call of ``record``'s tool finishes without awaiting anything and
    without an executor of its own: a ``tool(fn)`` of a plain ``def`` that takes no
    ``ToolContext``, on the function path. Its ``Done`` is always an ``ExecutedTool``, and
    nothing of it needs an event loop."""
    execute = record.tool.execute
    return (
        takes_function_path(execute, record) and not execute.is_async and not slow_schemas(record)
    )


def _executor_path(record: ToolRecord) -> CallPath:
    execute = record.tool.execute

    def run(
        location: Location, call: ToolCall, scope: CallScope, progress: ProgressCallback | None
    ) -> Done:
        # Hot: _executor_arguments written out, without its frame and the pair it hands
        # back (bench/DECISIONS.md); pinned to it by tests/host/call/test_executor_paths.py.
        raw = call.input
        try:
            value = record.input_json(raw) if isinstance(raw, str) else record.input_python(raw)
        except (SchemaIssues, ValidationError, RecursionError) as exc:
            raise refused(record, raw, exc) from None
        result = execute(value, _context(location, call, scope, progress))
        images = location.config.images
        if isinstance(result, ToolResult):  # what finish would do, without its frame
            content, metadata, output = result
            return _finished(record, content, metadata, output, images)
        if inspect.isawaitable(result):
            return finish_awaited(record, result, images)
        return finish(record, result, images)

    return run


def _coroutine_path(record: ToolRecord) -> CallPath:
    """The general path of an ``async def`` executor, as one coroutine: nothing runs until
    the boundary awaits it, and nothing is left to finish in another frame."""
    execute = record.tool.execute

    async def run(
        location: Location, call: ToolCall, scope: CallScope, progress: ProgressCallback | None
    ) -> ExecutedTool:
        awaitable: Any = execute(*_executor_arguments(record, location, call, scope, progress))
        return finish(record, await awaitable, location.config.images)

    return run


def _executor_arguments(
    record: ToolRecord,
    location: Location,
    call: ToolCall,
    scope: CallScope,
    progress: ProgressCallback | None,
) -> tuple[Any, ToolContext]:
    """An executor's two arguments: the validated input and the call's context (the
    sync ``_executor_path`` does the same in place)."""
    raw = call.input
    try:
        value = record.input_json(raw) if isinstance(raw, str) else record.input_python(raw)
    except (SchemaIssues, ValidationError, RecursionError) as exc:
        raise refused(record, raw, exc) from None
    return value, _context(location, call, scope, progress)


def _context(
    location: Location, call: ToolCall, scope: CallScope, progress: ProgressCallback | None
) -> ToolContext:
    """The context an executor gets for ``call`` in ``scope``."""
    fields = (
        location,
        scope.session_id,
        scope.message_id,
        call.id,
        scope.agent,
        progress,
        scope.peer,
    )
    return tuple_new(ToolContext, fields)


def slow_schemas(record: ToolRecord) -> bool:
    tool = record.tool
    return (isinstance(tool.input, Mapping) and has_slow_patterns(record.input_schema)) or (
        isinstance(tool.output, Mapping) and has_slow_patterns(record.output_schema)
    )


def _threaded_path(record: ToolRecord) -> CallPath:
    """The general path with input and output checked in a worker thread."""
    execute = record.tool.execute

    async def run(
        location: Location, call: ToolCall, scope: CallScope, progress: ProgressCallback | None
    ) -> ExecutedTool:
        import asyncio  # deferred: sync hosts never import it (test_snapshot.py)

        raw = call.input
        validate = record.input_json if isinstance(raw, str) else record.input_python
        loop = asyncio.get_running_loop()
        try:
            value = await loop.run_in_executor(pattern_executor(), validate, raw)
        except (SchemaIssues, ValidationError, RecursionError) as exc:
            raise refused(record, raw, exc) from None
        result = execute(value, _context(location, call, scope, progress))
        if inspect.isawaitable(result):
            result = await result
        images = location.config.images
        return await loop.run_in_executor(pattern_executor(), finish, record, result, images)

    return run


def _function_path(record: ToolRecord, execute: FunctionExecutor) -> CallPath:
    function, wrap, to_arguments = execute.function, execute.wrap, arguments_of(execute)
    finish = _finish_function_later if execute.is_async else finish_function

    def run(
        location: Location, call: ToolCall, scope: CallScope, progress: ProgressCallback | None
    ) -> Done:
        raw = call.input
        try:
            arguments = to_arguments(raw)
        except (ValidationError, RecursionError) as exc:
            raise refused(record, raw, exc) from None
        return finish(record, wrap, function(**arguments), location.config.images)

    return run


def finish_function(
    record: ToolRecord, wrap: Callable[[Any], ToolResult], value: Any, images: ImageBounds
) -> ExecutedTool:
    if wrap is not wrap_output or isinstance(value, ToolResult):
        return finish(record, wrap(value), images)
    content = value if isinstance(value, str) else None
    return _finished(record, content, NO_METADATA, value, images)


async def _finish_function_later(
    record: ToolRecord,
    wrap: Callable[[Any], ToolResult],
    awaitable: Awaitable[Any],
    images: ImageBounds,
) -> ExecutedTool:
    return finish_function(record, wrap, await awaitable, images)


async def finish_awaited(
    record: ToolRecord, awaitable: Awaitable[Any], images: ImageBounds
) -> ExecutedTool:
    return finish(record, await awaitable, images)


def finish(record: ToolRecord, result: Any, images: ImageBounds) -> ExecutedTool:
    """What the executor returned, checked: the output contract, then the content."""
    if not isinstance(result, ToolResult):
        raise ToolDefectError(
            record.effective,
            f"executor returned {type(result).__name__}, expected tooldeck.ToolResult",
        )
    content, metadata, output = result
    return _finished(record, content, metadata, output, images)


def _finished(
    record: ToolRecord, content: Any, metadata: Any, output: Any, images: ImageBounds
) -> ExecutedTool:
    """The output contract, then the content (images within the Location's ``[images]``)."""
    if record.tool.output is not None:
        try:
            output = record.output_validator(output)
        except SchemaIssues as exc:
            raise ToolFailure(output_problem(record.effective, output, exc)) from None
    elif output is not None:
        raise ToolDefectError(
            record.effective, "returned output but declares no output schema (set Tool.output)"
        )
    if content is None:  # tool(fn)'s usual shape; normalize_content would do just this
        parts = render_output(output)
    else:
        parts = normalize_content(record.effective, content, output, limits=images)
    return tuple_new(ExecutedTool, (parts, metadata, output))


finish = finish
"""``finish`` for the ``tool_call`` hooks (``hooks.py``): a result a hook returned is
checked as an executor's is."""


def output_problem(name: str, output: Any, exc: SchemaIssues) -> str:
    if output is None:
        return f"Tool '{name}' declares an output schema but returned no output."
    path, message = exc.issues[0]
    return (
        f"Tool '{name}' returned output that does not match its declared schema: {path}: {message}"
    )


# -- refused input ---------------------------------------------------------------------------
def refused(
    record: ToolRecord, raw: Any, exc: SchemaIssues | ValidationError | RecursionError
) -> ToolFailure:
    """The ``ToolFailure`` for input a validator refused (``RecursionError``: parsing or
    checking recurses once per level of nesting, and the input nests too deeply)."""
    issues = [("root", TOO_DEEP)] if isinstance(exc, RecursionError) else _input_issues(exc, raw)
    return ToolFailure(invalid_input_message(record.effective, raw, issues))


def _input_issues(exc: SchemaIssues | ValidationError, raw: Any) -> list[tuple[str, str]]:
    try:
        return issues_of(exc, raw)
    except RecursionError:  # re-reading invalid JSON to word it like json.loads does
        return [("root", TOO_DEEP)]


TOO_DEEP = "the arguments nest arrays or objects too deeply to be read; send flatter arguments"


def invalid_input_message(name: str, raw: Any, issues: list[tuple[str, str]]) -> str:
    """The model-facing text for invalid arguments: issues, the echoed input, what to do."""
    lines = [f"Invalid input for tool '{name}':"]
    lines += [f"- {path}: {message}" for path, message in issues[:MAX_ISSUES]]
    if len(issues) > MAX_ISSUES:
        lines.append(f"...and {len(issues) - MAX_ISSUES} more")
    lines += ["Arguments received:", _echo(raw), f"Correct the arguments and call '{name}' again."]
    return "\n".join(lines)


def _echo(raw: Any) -> str:
    """The arguments as indented JSON; as sent when they are not JSON or nest too deeply
    to re-indent (a mapping that deep is not shown at all)."""
    try:
        value = json.loads(raw) if isinstance(raw, str) else raw
        return json.dumps(value, indent=2, ensure_ascii=False, default=repr)
    except ValueError:
        return str(raw)
    except RecursionError:
        return raw if isinstance(raw, str) else "(not shown: nested too deeply)"
