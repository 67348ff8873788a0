"""tooldeck in pydantic-ai (``pip install 'tooldeck[pydantic-ai]'``).

``TooldeckToolset(host)`` is a pydantic-ai toolset whose tools are the host's catalog:
the snapshot's native definitions (code mode's ``execute`` included), taken afresh at
every run step, so a pack installed or a tool removed reaches the agent at its next
step. Calls go through ``run_tool_call``: validation, the output contract, bounding
and content (images and files as ``BinaryContent``). Arguments tooldeck refuses raise
``ModelRetry`` with tooldeck's text, so the model reads pydantic-ai's retry prompt and
the agent's ``retries`` limit applies (each tool gets the run's limit, as a
``FunctionToolset`` tool that sets none does). Any other call that does not complete
raises ``ToolFailed`` with the text tooldeck's own adapters give the model. A
permission ask that needs the user raises ``ApprovalRequired``, so the run ends with
``DeferredToolRequests``: the call is a pending call in the Location's store
(``docs/approvals.md``). ``answer(requests, {call_id: reply})`` builds the
``DeferredToolResults`` that resume the run; the call is then resumed through
``host.resume``, so it runs exactly once and its pending record is resolved.

``pack_from_toolset(toolset, name=...)`` goes the other way: a pydantic-ai
``FunctionToolset`` becomes a tooldeck plugin object for ``Host.open(plugins=[...])``.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any, Literal

from pydantic_ai import (
    ApprovalRequired,
    BinaryContent,
    DeferredToolRequests,
    DeferredToolResults,
    ModelRetry,
    RunContext,
    ToolDenied,
    ToolFailed,
)
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import AbstractToolset, ToolsetTool
from pydantic_core import SchemaValidator, core_schema

from tooldeck import Host, Reject, Reply, Snapshot, ToolCall, ToolCallOutcome
from tooldeck.host.boundary.outcome import CORRECTED_TEXT, DECLINED_TEXT
from tooldeck.integrations._calls import (
    Asked,
    decode,
    encode,
    pending_of,
    resume_call,
    run_call,
    text_of,
)
from tooldeck.integrations._pydantic_ai_pack import ToolsetPack, pack_from_toolset

__all__ = ["METADATA_KEY", "TooldeckToolset", "ToolsetPack", "answer", "pack_from_toolset"]

METADATA_KEY = "tooldeck"
"""The key of tooldeck's entry in a deferred call's metadata (the ask and its pending id;
in ``DeferredToolResults``, the pending id and the reply)."""

_ANY_ARGS = SchemaValidator(core_schema.any_schema())  # tooldeck validates, once, itself
_INVALID_INPUT = "Invalid input for tool '{name}':"
"""How tooldeck's text for refused arguments begins (``tests`` pin it to the boundary's)."""


@dataclasses.dataclass(kw_only=True)
class _Tool(ToolsetTool[Any]):
    """A tool of one step, with the snapshot its call must run against."""

    snapshot: Snapshot


class TooldeckToolset(AbstractToolset[Any]):
    """The host's catalog as a pydantic-ai toolset.

    ``session``: ``None`` runs calls in the Location's view; a string, in that host
    session (opened if needed, left open); ``True``, in a session of its own per agent
    run, opened when the run starts and closed when it ends (the run's tools and
    ``once`` approvals do not outlive it).
    """

    def __init__(
        self,
        host: Host,
        *,
        session: str | Literal[True] | None = None,
        id: str | None = None,
    ) -> None:
        if session is not None and session is not True and not isinstance(session, str):
            raise TypeError(
                f"TooldeckToolset(session=...): expected None, True or a session id, "
                f"got {session!r}"
            )
        self.host = host
        self.session = session
        self._id = id
        self._session_id = session if isinstance(session, str) else ""
        self._entered = 0
        self._cached: tuple[Snapshot, int, dict[str, ToolsetTool[Any]]] | None = None

    @property
    def id(self) -> str | None:
        return self._id

    async def for_run(self, ctx: RunContext[Any]) -> AbstractToolset[Any]:
        if self.session is not True:
            return self
        run = TooldeckToolset(self.host, session=f"pydantic-ai-{ctx.run_id}", id=self._id)
        run.session = True  # closed on exit, like the scope it stands for
        return run

    async def __aenter__(self) -> TooldeckToolset:
        self._entered += 1
        if self._session_id:
            self.host.session(self._session_id)
        return self

    async def __aexit__(self, *args: Any) -> bool | None:
        self._entered -= 1
        if self._entered == 0 and self.session is True and self._session_id:
            self.host.session(self._session_id).close()
        return None

    def _snapshot(self) -> Snapshot:
        return self.host.snapshot(session=self._session_id or None)

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        snapshot = self._snapshot()
        retries = ctx.max_retries  # the agent's (or the run's) tool retries
        cached = self._cached
        if cached is not None and cached[0] is snapshot and cached[1] == retries:
            return cached[2]  # unchanged catalog: same tools
        tools: dict[str, ToolsetTool[Any]] = {
            d.name: _Tool(
                toolset=self,
                tool_def=ToolDefinition(
                    name=d.name,
                    description=d.description,
                    parameters_json_schema=_thawed(d.input_schema),
                ),
                max_retries=retries,
                args_validator=_ANY_ARGS,
                snapshot=snapshot,
            )
            for d in snapshot.definitions
        }
        self._cached = (snapshot, retries, tools)
        return tools

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        snapshot = tool.snapshot if isinstance(tool, _Tool) else self._snapshot()
        call = ToolCall(ctx.tool_call_id or name, name, tool_args)
        resumed = await self._resumed(call, ctx) if ctx.tool_call_approved else None
        if resumed is not None:
            ran = await resume_call(self.host, *resumed)
        else:
            ran = await run_call(
                snapshot,
                call,
                session_id=self._session_id,
                message_id=ctx.run_id or "",
                agent=ctx.agent.name if ctx.agent is not None else None,
            )
        if isinstance(ran, Asked):
            raise ApprovalRequired(metadata={METADATA_KEY: ran.metadata()})
        if ran.status != "completed":
            text = text_of(ran)
            if ran.status == "failed" and text.startswith(_INVALID_INPUT.format(name=name)):
                raise ModelRetry(text)  # the model corrects its arguments, within `retries`
            raise ToolFailed(text)
        return _returned(ran)

    async def _resumed(self, call: ToolCall, ctx: RunContext[Any]) -> tuple[str, Reply] | None:
        """The pending call an approved call resumes and the reply: those ``answer``
        wrote, or, for a plain approval, "once" to the call's pending record."""
        metadata = ctx.tool_call_metadata
        ours = metadata.get(METADATA_KEY) if isinstance(metadata, Mapping) else None
        if isinstance(ours, Mapping) and "pending_id" in ours:
            where = f"tool call {ctx.tool_call_id} metadata"
            return str(ours["pending_id"]), decode(ours.get("reply", "once"), where)
        found = await pending_of(self.host, self._session_id, call)
        return (found, "once") if found is not None else None


def _returned(outcome: ToolCallOutcome) -> Any:
    """What the tool returns to pydantic-ai: the text, or text and files in order."""
    if all(part.type == "text" for part in outcome.content):
        return text_of(outcome)
    return [
        part.text if part.type == "text" else BinaryContent(part.data, media_type=part.mime_type)
        for part in outcome.content
    ]


def _thawed(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A plain, mutable copy of a frozen schema (pydantic-ai may rewrite schemas)."""
    thawed: dict[str, Any] = json.loads(json.dumps(schema, default=dict))
    return thawed


def _plain(reply: Reply) -> bool | ToolDenied:
    """A reply to a deferral that is not tooldeck's, in pydantic-ai's own terms."""
    if reply == "reject":
        return ToolDenied(DECLINED_TEXT)
    if isinstance(reply, Reject):
        return ToolDenied(CORRECTED_TEXT.format(feedback=reply.feedback))
    return True


def answer(requests: DeferredToolRequests, replies: Mapping[str, Reply]) -> DeferredToolResults:
    """The ``DeferredToolResults`` that resume a run paused at tooldeck asks.

    ``replies`` maps a deferred call's ``tool_call_id`` to the user's reply, given to
    ``host.resume`` for its pending call when the run resumes: ``"once"`` and
    ``"always"`` run it (``always`` saves the ask's allow rules, as tooldeck's own
    asker does); ``Reject(feedback)`` and ``"reject"`` record the rejection, and the
    model reads tooldeck's text for it. A plain ``True`` in ``DeferredToolResults``
    works too: it answers ``once``.
    """
    results = DeferredToolResults()
    pending = {call.tool_call_id for call in requests.approvals}
    for call_id, reply in replies.items():
        if call_id not in pending:
            raise KeyError(
                f"answer(): {call_id!r} is not a call awaiting approval in these requests"
            )
        asked = requests.metadata.get(call_id, {}).get(METADATA_KEY)
        if not (isinstance(asked, Mapping) and "pending_id" in asked):  # not ours
            results.approvals[call_id] = _plain(reply)
            continue
        # Approved for pydantic-ai even when rejected: the resume records the rejection
        # and resolves the pending call, and the model reads tooldeck's text.
        results.approvals[call_id] = True
        ours = {"pending_id": asked["pending_id"], "reply": encode(reply)}
        results.metadata[call_id] = {METADATA_KEY: ours}
    return results
