"""Run one program: drive its sandbox session and route every tool call through the snapshot.

Each nested call crosses the one call boundary, ``run_tool_call``, in a scope of its
own (``via="nested"``, the outer call's session and message ids): validation,
permission asks, output contract, content normalization. How each way a nested call
can end reaches the program:

====================================  ==============================================
nested call                           inside the program
====================================  ==============================================
completed                             the declared output as JSON data, else the text
``ToolFailure`` (invalid arguments    ``RuntimeError(message)``: catchable; the message
too), ``PermissionBlocked``,          is what the model would read from the same call
``PermissionCorrected``               (for feedback: the feedback and what to do)
``PermissionDeclined``,               the program is aborted; ``execute`` ends
``QuestionDismissed``                 ``declined`` (the signal propagates)
``PermissionDeferred``                the program is aborted; ``execute`` ends
                                      ``pending`` (resuming re-runs the program)
any other exception (a defect)        the program is aborted; the defect propagates
====================================  ==============================================

One exception type for every expected failure: monty's type checker does not know
``PermissionError``, so a program catching that name would not type-check.

Calls are started lazily, like Python coroutines: when the program awaits, every call
still pending runs (concurrently when there are several, as ``asyncio.gather`` wants).
Sandbox steps run on the calling thread: each is short (one worker round trip) and is
bounded by the sandbox's own time limit.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping
from typing import Any, NamedTuple

from pydantic_core import to_jsonable_python

from tooldeck._tool import ContentPart, TextPart, ToolContext, ToolFailure, ToolResult
from tooldeck.codemode.plan import ProgramPlan, Target
from tooldeck.codemode.report import failure_text
from tooldeck.codemode.sandbox import (
    Call,
    Done,
    Limits,
    Lookup,
    SandboxFailure,
    SandboxPool,
    Settled,
    Step,
    Wait,
)
from tooldeck.codemode.search import search
from tooldeck.host.execution.call import ToolCall
from tooldeck.host.execution.outcome import run_tool_call
from tooldeck.host.execution.snapshot import Snapshot

MAX_CODE_BYTES = 256 * 1024
MAX_ARGUMENT_BYTES = 512 * 1024
SPARE_SUSPENSIONS = 1000
"""Name lookups and ``search`` calls a program may make besides its tool calls."""


class Settings(NamedTuple):
    """``[codemode]`` limits as one program sees them."""

    type_check: bool
    timeout_s: float
    memory_mb: int
    max_tool_calls: int


class LimitExceeded(Exception):
    """A host-side limit stopped the program (``kind`` as in ``SandboxFailure``)."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


class _Nested(NamedTuple):
    target: Target
    kwargs: dict[str, Any]


class _Search(NamedTuple):
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


def _search_value(*args: Any, **kwargs: Any) -> None:
    """Stands for ``search`` in the sandbox; calls come back as steps, never run here."""


async def run_program(
    code: str,
    *,
    plan: ProgramPlan,
    snapshot: Snapshot,
    ctx: ToolContext,
    settings: Settings,
    pool: SandboxPool,
) -> ToolResult:
    """Run ``code`` against ``snapshot``; ``ToolFailure`` when it does not finish."""
    _check_code(code)
    run = _Program(plan, snapshot, ctx, settings)
    values, run.targets = plan.values(pool, _search_value)
    limits = Limits(
        settings.timeout_s,
        settings.memory_mb << 20,
        2 * settings.max_tool_calls + SPARE_SUSPENSIONS,
    )
    stubs = plan.checked_stubs if settings.type_check else None
    session = pool.session(limits, stubs=stubs, values=values)
    if pool.busy:  # every worker is taken: wait for one off the event loop
        await _enter_off_loop(session)
    else:
        session.__enter__()
    try:
        return await run.drive(session.start, code, session)
    finally:
        session.__exit__(None, None, None)


async def _enter_off_loop(session: Any) -> None:
    """Wait for a worker in a thread; if the wait is cancelled, give the worker back."""
    waiting = asyncio.ensure_future(asyncio.to_thread(session.__enter__))
    try:
        await asyncio.shield(waiting)
    except BaseException:

        def release(done: asyncio.Future[Any]) -> None:
            if not done.cancelled() and done.exception() is None:
                session.__exit__(None, None, None)

        waiting.add_done_callback(release)
        raise


def _check_code(code: str) -> None:
    if not code.strip():
        raise ToolFailure(
            "The program is empty. Write Python that calls the tools, for example:\n"
            "result = await tools.<name>(arg=value)\nresult"
        )
    size = len(code.encode("utf-8", "surrogatepass"))
    if size > MAX_CODE_BYTES:
        raise ToolFailure(
            f"The program is {size:,} bytes; programs are limited to {MAX_CODE_BYTES:,} bytes. "
            "Write a shorter program: keep data in tool calls, not in the code."
        )


class _Program:
    """One run's state: the calls made, their order, the parts to attach."""

    def __init__(
        self, plan: ProgramPlan, snapshot: Snapshot, ctx: ToolContext, settings: Settings
    ) -> None:
        self.plan = plan
        self.snapshot = snapshot
        self.ctx = ctx
        self.scope = snapshot.scope(
            ctx.session_id, ctx.message_id, ctx.agent, via="nested", parent_id=ctx.call_id
        )
        self.settings = settings
        self.targets: Mapping[Any, Mapping[str, Target]] = {}
        self.calls: list[dict[str, Any]] = []
        self.attachments: list[ContentPart] = []
        self.pending: dict[int, _Nested | _Search] = {}
        self.started = 0

    async def drive(self, start: Any, code: str, session: Any) -> ToolResult:
        deadline = time.monotonic() + self.settings.timeout_s
        timeout = asyncio.timeout(self.settings.timeout_s)
        try:
            async with timeout:
                step: Step = start(code)
                warnings = step.warnings
                while not isinstance(step, Done):
                    step = await self._answer(step)
                    if time.monotonic() > deadline:
                        raise LimitExceeded("timeout")
                output = step.output
        except TimeoutError:
            if not timeout.expired():
                raise  # a nested tool's own TimeoutError: a defect, not our limit
            self._fail("timeout", session.printed)
        except LimitExceeded as exc:
            self._fail(exc.kind, session.printed)
        except SandboxFailure as exc:
            self._fail(exc.kind, exc.printed or session.printed, exc.text)
        return self._result(output, session.printed, warnings)

    async def _answer(self, step: Lookup | Call | Wait) -> Step:
        if type(step) is Call:
            return self._call(step)
        if type(step) is Wait:
            return step.settle(await self._settle(step.call_ids))
        assert type(step) is Lookup
        return step.answer()

    def _call(self, step: Call) -> Step:
        owner = step.owner
        if owner is None:
            if step.is_os:
                return step.refuse_os()
            if step.name == "search":
                self.pending[step.id] = _Search(tuple(step.args), step.kwargs)
                return step.defer()
            return step.fail("NameError", f"name '{step.name}' is not defined")
        methods = self.targets.get(owner)
        target = methods.get(step.name) if methods is not None else None
        if target is None:
            return step.fail("AttributeError", self._unknown(owner, step.name))
        if step.args:
            return step.fail(
                "TypeError",
                f"{target.path}() takes keyword arguments only; "
                f"got {len(step.args)} positional (write name=value)",
            )
        if self.started >= self.settings.max_tool_calls:
            raise LimitExceeded("max_tool_calls")
        self.started += 1
        self.pending[step.id] = _Nested(target, step.kwargs)
        return step.defer()

    def _unknown(self, owner: Any, name: str) -> str:
        level = next(
            (t.path.rsplit(".", 1)[0] for t in self.targets.get(owner, {}).values()), "tools"
        )
        return (
            f"{level} has no tool {name!r}; use the names in the stubs, "
            'or await search("words") to find a tool'
        )

    async def _settle(self, ids: list[int]) -> dict[int, Settled]:
        jobs = [(i, self.pending.pop(i)) for i in ids if i in self.pending]
        if len(jobs) == 1:
            call_id, job = jobs[0]
            return {call_id: await self._run(job)}
        outcomes = await asyncio.gather(
            *(self._run(job) for _, job in jobs), return_exceptions=True
        )
        for outcome in outcomes:
            if not isinstance(outcome, Settled):
                raise outcome  # a decline or a defect: the whole program ends with it
        settled = [o for o in outcomes if isinstance(o, Settled)]
        return {call_id: o for (call_id, _), o in zip(jobs, settled, strict=True)}

    async def _run(self, job: _Nested | _Search) -> Settled:
        if isinstance(job, _Search):
            try:
                return Settled(search(self.plan.stubs, *job.args, **job.kwargs))
            except TypeError as exc:
                return Settled(exc_type="TypeError", message=str(exc))
        return await self._nested(job.target, job.kwargs)

    async def _nested(self, target: Target, kwargs: dict[str, Any]) -> Settled:
        entry, ctx = target.entry, self.ctx
        renames = target.params
        if renames:
            kwargs = {renames.get(k, k): v for k, v in kwargs.items()}
        too_big = _too_big(kwargs)
        record = {"name": entry.name, "status": "running", "ms": 0.0}
        self.calls.append(record)
        call_id = f"{ctx.call_id}.{len(self.calls)}"
        progress = None
        if ctx.on_progress is not None:
            progress = self._progress_for(call_id, entry.name)
            ctx.on_progress(
                {
                    "type": "tool_call",
                    "status": "running",
                    "id": call_id,
                    "name": entry.name,
                    "input": kwargs,
                }
            )
        start = time.perf_counter()
        if too_big:
            return self._failed(record, start, call_id, "RuntimeError", too_big)
        try:
            call = ToolCall(call_id, "tools." + entry.name, kwargs)
            status, content, _, output, error = await run_tool_call(
                self.snapshot, call, scope=self.scope, progress=progress
            )
        except BaseException:  # a decline, an interrupt or a defect: the program ends
            self._finished(record, start, call_id, "failed")
            raise
        if error is not None:
            return self._failed(record, start, call_id, "RuntimeError", error.message)
        self._finished(record, start, call_id, status)
        texts: list[str] = []
        for part in content:
            if isinstance(part, TextPart):
                texts.append(part.text)
            else:
                self.attachments.append(part)
        if entry.tool.output is not None:
            return Settled(to_jsonable_python(output, fallback=str))
        return Settled("\n".join(texts))

    def _failed(
        self, record: dict[str, Any], start: float, call_id: str, exc_type: str, message: str
    ) -> Settled:
        self._finished(record, start, call_id, "failed", message)
        return Settled(exc_type=exc_type, message=message)

    def _finished(
        self, record: dict[str, Any], start: float, call_id: str, status: str, error: str = ""
    ) -> None:
        record["status"] = status
        record["ms"] = round((time.perf_counter() - start) * 1e3, 3)
        if self.ctx.on_progress is not None:
            entry = {
                "type": "tool_call",
                "status": status,
                "id": call_id,
                "name": record["name"],
                "ms": record["ms"],
            }
            if error:
                entry["error"] = error
            self.ctx.on_progress(entry)

    def _progress_for(self, call_id: str, name: str) -> Any:
        report = self.ctx.progress

        def forward(metadata: Mapping[str, Any]) -> None:
            report({"type": "tool_progress", "id": call_id, "name": name, "metadata": metadata})

        return forward

    def _fail(self, kind: str, printed: str, text: str = "") -> None:
        message = failure_text(kind, text, self.settings, self.calls, printed)
        raise ToolFailure(message, metadata={"printed": printed, "tool_calls": self.calls})

    def _result(self, value: Any, printed: str, warnings: str) -> ToolResult:
        result = to_jsonable_python(value, fallback=repr)
        parts: list[ContentPart] = []
        if warnings:
            parts.append(TextPart(f"Type checker warnings (the program ran):\n{warnings}"))
        if printed:
            parts.append(TextPart(f"Printed output:\n{printed}"))
            parts.append(TextPart(f"Result:\n{_render(result)}"))
        else:
            parts.append(TextPart(_render(result)))
        parts += self.attachments
        output = {"result": result, "printed": printed, "tool_calls": self.calls}
        return ToolResult(parts, {"tool_calls": len(self.calls)}, output)


def _render(result: Any) -> str:
    if isinstance(result, str):
        return result
    return json.dumps(result, ensure_ascii=False, indent=2)


def _too_big(kwargs: Mapping[str, Any]) -> str:
    """Why these arguments are too large to pass on, or an empty string."""
    size = 0
    for value in kwargs.values():  # scalars and strings without a call: most arguments
        cls = value.__class__
        if cls is str:
            size += len(value)
        elif cls is int or cls is float or cls is bool or value is None:
            size += 8
        else:
            size += _size(value, MAX_ARGUMENT_BYTES + 1)
    if size <= MAX_ARGUMENT_BYTES:
        return ""
    return (
        f"The arguments are larger than {MAX_ARGUMENT_BYTES:,} bytes; "
        "pass smaller values (or let a tool produce the data instead)."
    )


def _size(value: Any, budget: int) -> int:
    """An estimate of ``value``'s JSON size that stops counting past ``budget``."""
    if isinstance(value, str | bytes):
        return len(value) + 2
    if isinstance(value, Mapping):
        total = 2
        for key, item in value.items():
            total += len(str(key)) + 4 + _size(item, budget - total)
            if total > budget:
                break
        return total
    if isinstance(value, list | tuple | set | frozenset):
        total = 2
        for item in value:
            total += 1 + _size(item, budget - total)
            if total > budget:
                break
        return total
    return 8
