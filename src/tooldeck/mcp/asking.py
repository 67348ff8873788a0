"""Permission asks of ``tooldeck mcp serve``, answered by the MCP client's user.

A call that needs an answer asks the client through elicitation when the client
supports it on this connection (a handshake-era client that declared the capability):
allow once, always, reject, or reject with feedback. Otherwise the Location's rules
decide alone, and an ask that remains is declined with a text naming the rule to add.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from typing import Any

import mcp.types as types

from tooldeck.host.location.permission import PermissionRequest, Reject, Reply


class Asked:
    """The asks of one call that no one could answer (they were declined)."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        self.unanswerable: list[PermissionRequest] = []


_REQUEST: contextvars.ContextVar[Asked | None] = contextvars.ContextVar(
    "tooldeck_mcp_request", default=None)

SCHEMA: types.ElicitRequestedSchema = {
    "type": "object",
    "properties": {
        "decision": {"type": "string", "enum": ["once", "always", "reject"],
                     "description": "once: allow this call; always: allow from now on; "
                                    "reject: do not run it"},
        "feedback": {"type": "string",
                     "description": "with reject: what the model should do instead"},
    },
    "required": ["decision"],
}


@contextlib.contextmanager
def current_request(ctx: Any) -> Iterator[Asked]:
    """Mark the MCP request whose tool call may ask (the asker runs in its task)."""
    asked = Asked(ctx)
    token = _REQUEST.set(asked)
    try:
        yield asked
    finally:
        _REQUEST.reset(token)


class ElicitingAsker:
    """The Location's asker while it is served over MCP."""

    async def __call__(self, request: PermissionRequest) -> Reply:
        asked = _REQUEST.get()
        if asked is None or not _can_elicit(asked.ctx):
            if asked is not None:
                asked.unanswerable.append(request)
            return "reject"
        result = await asked.ctx.session.elicit_form(
            _message(request), SCHEMA, related_request_id=asked.ctx.request_id)
        return _reply(result)

    @staticmethod
    def declined_text(requests: list[PermissionRequest]) -> str:
        """Why the call was declined, and the rule that would allow it."""
        request = requests[0]
        resources = ", ".join(request.resources)
        rule = f'[[permission]]\naction = "{request.action}"\n'
        if resources != "*":
            rule += f'resource = "{request.resources[0]}"\n'
        return (f"Permission for {request.action!r} on {resources} needs an answer, and this "
                "MCP client cannot be asked (no elicitation), so the call was declined. To "
                "allow it, add this rule to the Location's tooldeck.toml:\n\n"
                f'{rule}effect = "allow"\n')


def _can_elicit(ctx: Any) -> bool:
    session = ctx.session
    if session.protocol_version == "2026-07-28" or not session.can_send_request:
        return False
    capability = types.ClientCapabilities(elicitation=types.ElicitationCapability())
    return bool(session.check_client_capability(capability))


def _message(request: PermissionRequest) -> str:
    resources = ", ".join(request.resources)
    return f"Allow {request.action!r} on {resources}?"


def _reply(result: types.ElicitResult) -> Reply:
    if result.action != "accept" or not result.content:
        return "reject"
    decision = result.content.get("decision")
    feedback = str(result.content.get("feedback") or "").strip()
    if decision == "reject" and feedback:
        return Reject(feedback)
    if decision in ("once", "always"):
        return "once" if decision == "once" else "always"
    return "reject"
