"""tooldeck in the OpenAI Agents SDK (``pip install 'tooldeck[openai-agents]'``).

``function_tools(host)`` is the host's catalog as ``FunctionTool`` s: the snapshot's
native definitions (code mode's ``execute`` included) with their OpenAI strict schema
where the tool has one (``strict_json_schema=False`` where it has not), each called
through ``run_tool_call``. The model reads what tooldeck's ``openai-responses`` adapter
gives it: the text (``Error: ...`` for a call that did not complete), images and files.

The SDK decides whether a call needs approval before it runs it; tooldeck asks while a
tool runs. So a tool's ``needs_approval`` check runs the call with deferred asks: at
its first ask that no rule answers it ends ``pending`` (a pending call in the
Location's store, ``docs/approvals.md``) and the run is interrupted there
(``result.interruptions``, a ``RunState`` that serializes). Approving the item resumes
that pending call through ``host.resume`` (in this process or another), so it runs
exactly once and its record is resolved. A call with no open ask runs once, in that
check, and ``on_invoke_tool`` returns its outcome. ``answer(state, item, reply)``
applies a tooldeck reply to an interruption.

The SDK never invokes a rejected tool, so a rejection reaches tooldeck another way: when
the resumed run next lists its tools (``is_enabled``), each interrupted call the run's
context now says is rejected has its pending call resumed with that rejection (the
reply ``answer`` was given, else the SDK's rejection message as feedback), so its record
is resolved rather than left to expire. ``answer`` also tells the tools of a run loaded
in another process which call it rejected.

The list is built from the catalog when ``function_tools`` is called: call it per run
to advertise tools added since. A tool removed since is disabled (``is_enabled``) and
every call runs against the current snapshot.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

from agents import FunctionTool, RunContextWrapper, RunState, ToolApprovalItem
from agents.tool import ToolOutputFileContent, ToolOutputImage, ToolOutputText
from agents.tool_context import ToolContext

from tooldeck import Host, PendingCall, Reject, Reply, Snapshot, ToolCall, ToolCallOutcome
from tooldeck.host.boundary.outcome import DECLINED_TEXT
from tooldeck.host.schema.strict import drop_null_optionals
from tooldeck.integrations._calls import Asked, pending_of, resume_call, run_call, text_of
from tooldeck.providers import results_for

__all__ = ["answer", "function_tools", "pending_call"]


class _Calls:
    """The calls of one ``function_tools`` list: the host, the session and the outcomes of
    calls that ran while the SDK asked whether they need approval."""

    def __init__(self, host: Host, session: str | None) -> None:
        self.host = host
        self.session_id = session or ""
        self.ran: dict[str, ToolCallOutcome] = {}
        # The pending call each interrupted call id stopped as (kept after its resume:
        # an approval delivered again gets the recorded outcome).
        self.asked: dict[str, str] = {}
        # Interrupted calls not yet seen approved or rejected: call id -> (tool name, the
        # reply ``answer`` rejected it with, if it did).
        self.open: dict[str, tuple[str, Reply | None]] = {}

    def snapshot(self) -> Snapshot:
        return self.host.snapshot(session=self.session_id or None)

    async def run(self, name: str, call_id: str, args: Any, agent: Any) -> ToolCallOutcome | Asked:
        return await run_call(
            self.snapshot(),
            ToolCall(call_id, name, args),
            session_id=self.session_id,
            agent=getattr(agent, "name", None),
        )

    async def resumed(self, name: str, call_id: str, args: Any, approved: bool) -> ToolCallOutcome:
        """The outcome of a call interrupted at its ask: its pending call (from this
        list's interruption, or in another process the session's open pending call of
        that call id) resumed with "once" when approved. A call the SDK runs unapproved
        cannot pause here, so its ask is rejected (the model reads tooldeck's decline),
        as is a further ask of the resumed call."""
        call = ToolCall(call_id, name, args)
        pending = self.asked.get(call_id) or await pending_of(self.host, self.session_id, call)
        if pending is None:
            ran = await self.run(name, call_id, args, None)
            if not isinstance(ran, Asked):
                return ran
            pending, approved = ran.pending.id, False
        ran = await resume_call(self.host, pending, "once" if approved else "reject")
        if isinstance(ran, Asked):
            ran = await resume_call(self.host, ran.pending.id, "reject")
        assert not isinstance(ran, Asked)  # a rejection never asks
        return ran

    async def settle_rejections(self, ctx: RunContextWrapper[Any]) -> None:
        """Resume, with its rejection, the pending call of each interrupted call that the
        run's context now says was rejected (the SDK will not invoke it)."""
        for call_id, (name, reply) in list(self.open.items()):
            if ctx.is_tool_approved(name, call_id) is not False:
                continue
            del self.open[call_id]  # before awaiting: every tool's check runs at once
            call = ToolCall(call_id, name, {})
            pending = self.asked.get(call_id) or await pending_of(self.host, self.session_id, call)
            if pending is not None:
                rejection = reply or _rejection(ctx.get_rejection_message(name, call_id))
                await resume_call(self.host, pending, rejection)


def function_tools(host: Host, *, session: str | None = None) -> list[FunctionTool]:
    """The host's catalog as Agents SDK function tools.

    ``session``: the host session the calls run in (opened if needed and left open;
    one per run: ``function_tools(host, session=run_id)``, then
    ``host.session(run_id).close()``), or ``None`` for the Location's view.
    """
    if session is not None and not isinstance(session, str):
        raise TypeError(f"function_tools(session=...): expected a session id, got {session!r}")
    if session:
        host.session(session)
    calls = _Calls(host, session)
    snapshot = calls.snapshot()
    schemas = {d.name: d.input_schema for d in snapshot.definitions}
    return [
        _function_tool(calls, rendered["function"], schemas[rendered["function"]["name"]])
        for rendered in snapshot.definitions_for("openai", strict=True)
    ]


def _function_tool(calls: _Calls, rendered: Mapping[str, Any], schema: Any) -> FunctionTool:
    name: str = rendered["name"]
    strict = bool(rendered.get("strict"))

    def arguments(raw: Any) -> Any:
        # Strict mode sends ``null`` for every optional argument left out.
        return drop_null_optionals(schema, raw) if strict and _has_null(raw) else raw

    async def needs_approval(
        ctx: RunContextWrapper[Any], params: dict[str, Any], call_id: str
    ) -> bool:
        ran = await calls.run(name, call_id, arguments(params), getattr(ctx, "agent", None))
        if isinstance(ran, Asked):
            calls.asked[call_id] = ran.pending.id
            calls.open[call_id] = (name, None)
            return True
        calls.ran[call_id] = ran
        return False

    async def invoke(ctx: ToolContext[Any], raw: str) -> Any:
        outcome = calls.ran.pop(ctx.tool_call_id, None)
        calls.open.pop(ctx.tool_call_id, None)
        if outcome is None:  # approved after an interruption (maybe in another process)
            approved = ctx.is_tool_approved(ctx.tool_name, ctx.tool_call_id) is True
            try:
                args = arguments(json.loads(raw)) if raw.strip() else {}
            except ValueError:
                args = raw  # tooldeck reports invalid JSON with its usual message
            outcome = await calls.resumed(name, ctx.tool_call_id, args, approved)
        return _output(ctx.tool_call_id, outcome)

    async def enabled(ctx: RunContextWrapper[Any], agent: Any) -> bool:
        if calls.open:  # the first look at the tools after a resume
            await calls.settle_rejections(ctx)
        return calls.snapshot().get(name) is not None

    return _TooldeckTool(
        name=name,
        description=rendered.get("description", ""),
        params_json_schema=json.loads(json.dumps(rendered["parameters"], default=dict)),
        on_invoke_tool=invoke,
        strict_json_schema=strict,
        needs_approval=needs_approval,
        is_enabled=enabled,
        calls=calls,
    )


@dataclasses.dataclass
class _TooldeckTool(FunctionTool):
    """A ``FunctionTool`` that keeps its list's calls, so ``answer`` reaches tooldeck."""

    calls: _Calls | None = dataclasses.field(default=None, kw_only=True, repr=False)


def _rejection(message: str | None) -> Reply:
    """The tooldeck reply of an SDK rejection: its message as feedback, when it has one
    that is not the plain decline ``answer`` writes."""
    if message is None or message == _DECLINED:
        return "reject"
    return Reject(message.removeprefix("Error: "))


def _has_null(value: Any) -> bool:
    """Whether a parsed JSON value holds a ``null`` (most calls do not: nothing to drop)."""
    if isinstance(value, dict):
        return any(v is None or (type(v) in _NESTED and _has_null(v)) for v in value.values())
    if isinstance(value, list):
        return any(v is None or (type(v) in _NESTED and _has_null(v)) for v in value)
    return value is None


_NESTED = (dict, list)


def _output(call_id: str, outcome: ToolCallOutcome) -> Any:
    """What tooldeck's ``openai-responses`` adapter gives the model, in the SDK's types."""
    if all(part.type == "text" for part in outcome.content):  # the usual case, kept cheap
        text = text_of(outcome)
        return text if outcome.status == "completed" else f"Error: {text}"
    items: list[Any] = results_for("openai-responses", [(ToolCall(call_id, "", {}), outcome)])
    output = items[0]["output"]
    if isinstance(output, str):
        return output
    parts: list[Any] = []
    for item in output:
        if item["type"] == "input_text":
            parts.append(ToolOutputText(text=item["text"]))
        elif item["type"] == "input_image":
            parts.append(ToolOutputImage(image_url=item["image_url"]))
        else:
            parts.append(
                ToolOutputFileContent(file_data=item["file_data"], filename=item.get("filename"))
            )
    return parts


def answer(state: RunState[Any], item: ToolApprovalItem, reply: Reply) -> None:
    """Apply a tooldeck reply to an interruption of a run paused at a tooldeck ask.

    ``"once"`` approves the call (its pending call is resumed with that answer);
    ``"always"`` approves every later call of that tool in the run too (the SDK's
    ``always_approve``; each still answers its own ask ``once``, and nothing is saved
    to the Location); ``"reject"`` and ``Reject(feedback)`` reject it, the model
    reading tooldeck's text. The SDK never invokes a rejected tool: its pending call is
    resumed with the rejection when the resumed run next lists its tools.
    """
    if reply in ("once", "always"):
        state.approve(item, always_approve=reply == "always")
    elif reply == "reject":
        state.reject(item, rejection_message=_DECLINED)
    elif isinstance(reply, Reject):
        state.reject(
            item,
            rejection_message=f"Error: The user rejected this tool call and said: "
            f"{reply.feedback}\nTake this feedback into account before trying again.",
        )
    else:
        raise ValueError(
            f"answer(): {reply!r} is not a tooldeck reply; expected 'once', 'always', "
            "'reject' or Reject(feedback)"
        )
    if reply not in ("once", "always"):
        _note_rejection(item, reply)


def pending_call(
    host: Host, item: ToolApprovalItem, *, session: str | None = None
) -> PendingCall | None:
    """The pending call an interruption stopped at, for showing the user what they
    approve: its ``request`` holds tooldeck's question (``action``, ``resources``) and
    what the tool attached to it (``metadata``: an edit's diff, a command's
    description, a note). ``session``: the one ``function_tools`` was given (``None``:
    any). ``None`` when the call waits no more (answered, or expired). Reads the store."""
    call_id = getattr(item.raw_item, "call_id", None)
    waiting = [
        p for p in host.pending(session) if p.call.id == call_id and p.call.name == item.tool_name
    ]
    return waiting[-1] if waiting else None


_DECLINED = f"Error: {DECLINED_TEXT}"


def _note_rejection(item: ToolApprovalItem, reply: Reply) -> None:
    """Tell the tool of a rejected call which reply rejected it (its list may have been
    built in this process after the run was loaded, and never have seen the call)."""
    call_id = getattr(item.raw_item, "call_id", None)
    agent = item.agent
    tools = getattr(agent, "tools", None) or []
    for tool in tools:
        if isinstance(tool, _TooldeckTool) and tool.name == item.tool_name and tool.calls:
            if isinstance(call_id, str):
                tool.calls.open[call_id] = (tool.name, reply)
            return
