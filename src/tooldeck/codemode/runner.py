"""Run one program: answer its sandbox conversation and route every tool call it makes.

``ProgramRunner`` is the ``execute`` tool's executor. A program is one conversation
with the sandbox (``sandbox.py``), stepped off the event loop (``workers.py``); the runner
answers each step: a tool method call is deferred until the program awaits it, an
unknown name or a positional argument is an error raised at the call site, and a
``Wait`` settles every pending call. Each nested call crosses the one call boundary,
``run_tool_call``, in a scope of its own (``via="nested"``, the outer call's session and
message ids; ``nested.py``): validation, permission asks, output contract, content
normalization. How each way a nested call can end reaches the program:

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
still pending runs (concurrently when there are several, as ``asyncio.gather`` wants);
when one of them is declined, the others are cancelled and the decline names the calls
that had completed. Cancelling ``execute`` kills the program's worker. Calls that finish
without awaiting (``search``, a ``tool(fn)`` of a plain ``def``) run on the program's
sandbox thread when no boundary layer is active and no progress is reported
(``_settle_here``); the others run on the loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, NamedTuple, NoReturn

from tooldeck._tool import ToolContext, ToolFailure, ToolResult
from tooldeck.codemode.conversation import (
    Call,
    CallAnswer,
    Defer,
    Done,
    Raise,
    SandboxFailure,
    Settle,
    Settled,
)
from tooldeck.codemode.nested import ProgramCalls, call_tool
from tooldeck.codemode.plan import ProgramPlan, Target, Targets
from tooldeck.codemode.report import MAX_SEARCHES, completed_note, failure_text, search_words
from tooldeck.codemode.sandbox import Limits, SandboxPool, SandboxSession, SandboxUnavailable
from tooldeck.codemode.search import search
from tooldeck.codemode.values import program_result
from tooldeck.codemode.workers import program_steps
from tooldeck.errors import (
    PermissionDeclined,
    QuestionDismissed,
)
from tooldeck.host.call.values import CallScope
from tooldeck.host.execution.snapshot import Snapshot

MAX_CODE_BYTES = 256 * 1024
SPARE_SUSPENSIONS = 1000
"""Name lookups a program may make besides its tool and ``search`` calls."""


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


DEFER = Defer()


def _search_value(*args: Any, **kwargs: Any) -> None:
    """Stands for ``search`` in the sandbox; calls come back as steps, never run here."""


PoolFor = Callable[[], Awaitable[SandboxPool]]
"""The started sandbox pool (the provider starts it off the event loop on first use)."""


class ProgramRunner:
    """The ``execute`` tool's executor: runs each program against one snapshot.

    The first program resolves what every later one shares (the started pool, the
    sandbox values, the type checker's stubs); a pool closed since is taken again.
    """

    def __init__(self, plan: ProgramPlan, snapshot: Snapshot, pool_for: PoolFor) -> None:
        self.plan = plan
        self.snapshot = snapshot
        self._pool_for = pool_for
        self._pool: SandboxPool | None = None
        self._values: tuple[dict[str, Any], Targets] = ({}, {})
        self._stubs: str | None = None

    async def run(self, input: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Run ``input["code"]``; ``ToolFailure`` when it does not finish."""
        code = input["code"]
        _check_code(code)
        config = self.snapshot.location.config.codemode
        settings = Settings(
            config.type_check, config.timeout_s, config.memory_mb, config.max_tool_calls
        )
        try:
            pool = self._pool
            if pool is None or not pool.started:
                pool = await self._taken()
            stubs = None
            if settings.type_check:
                stubs = self._stubs = self._stubs or self.plan.checked_stubs
            limits = Limits(
                settings.timeout_s,
                settings.memory_mb << 20,
                2 * (settings.max_tool_calls + MAX_SEARCHES) + SPARE_SUSPENSIONS,
            )
            values, targets = self._values
            session = SandboxSession(pool, limits, stubs=stubs, values=values)
            run = _Program(self.plan, targets, self.snapshot, ctx, settings)
            return await run.drive(code, session, pool)
        except SandboxUnavailable as exc:
            raise ToolFailure(f"Code mode is unavailable here: {exc}.") from None

    async def _taken(self) -> SandboxPool:
        pool = self._pool = await self._pool_for()
        self._values = self.plan.values(pool, _search_value)
        return pool


def _finishes_in_place(job: _Nested | _Search | None) -> bool:
    return job is None or isinstance(job, _Search) or job.target.finishes_in_place


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
        self,
        plan: ProgramPlan,
        targets: Targets,
        snapshot: Snapshot,
        ctx: ToolContext,
        settings: Settings,
    ) -> None:
        self.plan = plan
        self.targets = targets
        self.snapshot = snapshot
        self.settings = settings
        # Calls nested in the program run in the ``execute`` call's own ids, which its
        # boundary already resolved against this snapshot.
        scope = CallScope(
            ctx.session_id, ctx.message_id, ctx.agent, "nested", ctx.call_id, ctx.peer
        )
        self.nested = ProgramCalls(snapshot, ctx, scope, [], [])
        self.pending: dict[int, _Nested | _Search] = {}
        # Whether a wait may be settled on the sandbox thread (``_settle_here``): only
        # with no boundary layer (limits, hooks) and no progress to report, which both
        # belong on the loop.
        self.in_place = not snapshot.layers and ctx.on_progress is None
        self.started = 0
        self.searches = 0

    async def drive(self, code: str, session: SandboxSession, pool: SandboxPool) -> ToolResult:
        """Run the program: its steps run off the event loop (``workers.py``), and the time
        limit covers waiting for a worker as well as running."""
        timeout = asyncio.timeout(self.settings.timeout_s)
        conversation = session.conversation(code, self._call, self._settle_here)
        steps = program_steps(pool.slots, conversation, session.kill)
        try:
            async with timeout:
                try:
                    step = await anext(steps)
                    while not isinstance(step, Done):
                        step = await steps.asend(Settle(await self._settle(step.call_ids)))
                finally:
                    await steps.aclose()
        except TimeoutError:
            if not timeout.expired():
                raise  # a nested tool's own TimeoutError: a defect, not our limit
            # Out of time before a worker was free: say so (not while one was starting).
            self._fail("timeout" if session.started else "busy", session.printed)
        except LimitExceeded as exc:
            self._fail(exc.kind, session.printed)
        except SandboxFailure as exc:
            self._fail(exc.kind, exc.printed or session.printed, exc.text)
        except (PermissionDeclined, QuestionDismissed) as exc:
            completed = [c["name"] for c in self.nested.calls if c["status"] == "completed"]
            if completed:
                exc.add_note(completed_note(completed))
            raise
        return program_result(step, self.nested.calls, self.nested.attachments)

    def _call(self, step: Call) -> CallAnswer:
        """How to answer one call: deferred (run when the program awaits), or an error
        raised at the call site."""
        owner = step.owner
        if owner is None:
            if step.name == "search":
                if self.searches >= MAX_SEARCHES:
                    raise LimitExceeded("max_searches")
                self.searches += 1
                self.pending[step.id] = _Search(step.args, step.kwargs)
                return DEFER
            return Raise("NameError", f"name '{step.name}' is not defined")
        methods = self.targets.get(owner)
        target = methods.get(step.name) if methods is not None else None
        if target is None:
            return Raise("AttributeError", self._unknown(owner, step.name))
        if step.args:
            return Raise(
                "TypeError",
                f"{target.path}() takes keyword arguments only; "
                f"got {len(step.args)} positional (write name=value)",
            )
        if self.started >= self.settings.max_tool_calls:
            raise LimitExceeded("max_tool_calls")
        self.started += 1
        self.pending[step.id] = _Nested(target, step.kwargs)
        return DEFER

    def _unknown(self, owner: Any, name: str) -> str:
        level = next(
            (t.path.rsplit(".", 1)[0] for t in self.targets.get(owner, {}).values()), "tools"
        )
        return (
            f"{level} has no tool {name!r}; use the names in the stubs, "
            f'or await search("{search_words(name)}") to find a tool'
        )

    def _settle_here(self, ids: list[int]) -> Settle | None:
        """Settle a wait on the sandbox thread when each of its calls finishes without
        awaiting (a ``search``, a ``tool(fn)`` of a plain ``def``), else ``None``: the
        loop settles it (``_settle``).

        Hot: handing a wait to the loop and back costs far more than such a call
        (``bench/DECISIONS.md``, code mode), so these run where the program's step runs,
        in order, through the same ``_run`` as on the loop: its coroutine never awaits
        here, so one ``send`` runs it to its end. What a call raises (a decline, a
        defect) ends the program once every call of the wait has run, as ``_settle``'s
        tasks would. Pinned to the loop's ``_settle`` by ``tests/codemode/test_runner.py``.
        """
        pending = self.pending
        if not self.in_place or not all(_finishes_in_place(pending.get(i)) for i in ids):
            return None
        results: dict[int, Settled] = {}
        problem: BaseException | None = None
        for call_id in ids:
            job = pending.pop(call_id, None)
            if job is None:
                continue
            run = self._run(job)
            try:
                run.send(None)
            except StopIteration as ended:
                results[call_id] = ended.value
            except BaseException as exc:  # what the loop's task would have held
                problem = problem or exc
            else:  # unreachable while ``finishes_in_place`` holds
                run.close()
                raise RuntimeError(f"a nested call of {job!r} awaited off the loop")
        if problem is not None:
            raise problem
        return Settle(results)

    async def _settle(self, ids: list[int]) -> dict[int, Settled]:
        jobs = [(i, self.pending.pop(i)) for i in ids if i in self.pending]
        if len(jobs) == 1:
            call_id, job = jobs[0]
            return {call_id: await self._run(job)}
        tasks = [asyncio.ensure_future(self._run(job)) for _, job in jobs]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        finally:  # a decline or a defect ends the program: its siblings stop with it
            for task in tasks:
                task.cancel()
            await asyncio.wait(tasks)
        for task in tasks:
            problem = None if task.cancelled() else task.exception()
            if problem is not None:
                raise problem
        return {call_id: task.result() for (call_id, _), task in zip(jobs, tasks, strict=True)}

    async def _run(self, job: _Nested | _Search) -> Settled:
        if isinstance(job, _Search):
            try:
                return Settled(search(self.plan.stubs, *job.args, **job.kwargs))
            except TypeError as exc:
                return Settled(exc_type="TypeError", message=str(exc))
        return await call_tool(self.nested, job.target, job.kwargs)

    def _fail(self, kind: str, printed: str, text: str = "") -> NoReturn:
        calls = self.nested.calls
        message = failure_text(kind, text, self.settings, calls, printed)
        raise ToolFailure(message, metadata={"printed": printed, "tool_calls": calls})
