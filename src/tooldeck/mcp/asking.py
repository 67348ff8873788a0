"""Permission asks of ``tooldeck mcp serve``, answered by the MCP client's user.

A call that needs an answer asks the client through elicitation when the client
declared the capability: allow once, always, reject, or reject with feedback. Otherwise
the Location's rules decide alone, and an ask that remains is declined with a text
naming the rule to add.

The two protocol eras elicit differently. A handshake-era client gets an
``elicitation/create`` request in the middle of the call. A 2026-07-28 client cannot be
sent a request: the call ends with an ``input_required`` result carrying the question,
and the client calls again with the answer, so the call runs again from the start and
this time finds its answer (``Asked.answers``); answers of earlier rounds travel in the
result's ``request_state``, which the client echoes back. The state is not sealed: a
client that rewrites it only gives answers, and answering is what it is asked to do.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
from collections.abc import Iterator, Mapping
from typing import Any

from tooldeck.host.location.permission import PermissionRequest, Reject, Reply
from tooldeck.mcp.sdk import types


class Asked:
    """The asks of one call: answers given in earlier rounds, asks still to put to the
    client (2026-07-28), and asks no one could answer (they were declined)."""

    def __init__(self, ctx: Any, answers: Mapping[str, types.ElicitResult] | None = None) -> None:
        self.ctx = ctx
        self.answers: dict[str, types.ElicitResult] = dict(answers or {})
        self.pending: dict[str, PermissionRequest] = {}
        self.unanswerable: list[PermissionRequest] = []

    def input_required(self) -> types.InputRequiredResult | None:
        """The round-trip result asking the client the pending questions, if any."""
        if not self.pending:
            return None
        requests: dict[str, types.InputRequest] = {
            key: types.ElicitRequest(
                params=types.ElicitRequestFormParams(
                    message=_message(request), requested_schema=SCHEMA
                )
            )
            for key, request in self.pending.items()
        }
        state = json.dumps(
            {
                key: answer.model_dump(mode="json", by_alias=True, exclude_none=True)
                for key, answer in self.answers.items()
            }
        )
        return types.InputRequiredResult(input_requests=requests, request_state=state)


def answers_of(params: types.CallToolRequestParams) -> dict[str, types.ElicitResult]:
    """The answers a retried 2026-07-28 call carries: earlier rounds' (in its
    ``request_state``) and this round's (its ``input_responses``). Anything else is
    ignored: a question left unanswered is asked again."""
    found: dict[str, types.ElicitResult] = {}
    try:
        earlier = json.loads(params.request_state) if params.request_state else {}
    except ValueError:
        earlier = {}
    if isinstance(earlier, dict):
        for key, value in earlier.items():
            with contextlib.suppress(ValueError):
                found[str(key)] = types.ElicitResult.model_validate(value)
    for key, response in (params.input_responses or {}).items():
        if isinstance(response, types.ElicitResult):
            found[key] = response
    return found


MODERN = "2026-07-28"
"""The protocol era whose clients are asked through ``input_required`` results."""

_REQUEST: contextvars.ContextVar[Asked | None] = contextvars.ContextVar(
    "tooldeck_mcp_request", default=None
)

SCHEMA: types.ElicitRequestedSchema = {
    "type": "object",
    "properties": {
        "decision": {
            "type": "string",
            "enum": ["once", "always", "reject"],
            "description": "once: allow this call; always: allow from now on; "
            "reject: do not run it",
        },
        "feedback": {
            "type": "string",
            "description": "with reject: what the model should do instead",
        },
    },
    "required": ["decision"],
}


@contextlib.contextmanager
def current_request(
    ctx: Any, answers: Mapping[str, types.ElicitResult] | None = None
) -> Iterator[Asked]:
    """Mark the MCP request whose tool call may ask (the asker runs in its task)."""
    asked = Asked(ctx, answers)
    token = _REQUEST.set(asked)
    try:
        yield asked
    finally:
        _REQUEST.reset(token)


class ElicitingAsker:
    """The Location's asker while it is served over MCP."""

    async def __call__(self, request: PermissionRequest) -> Reply:
        asked = _REQUEST.get()
        if asked is not None and _elicits_by_round_trip(asked.ctx):
            key = _key(request)
            answer = asked.answers.get(key)
            if answer is not None:
                return _reply(answer)
            asked.pending[key] = request  # the call ends; the client asks and calls again
            return "reject"
        if asked is None or not _can_elicit(asked.ctx):
            if asked is not None:
                asked.unanswerable.append(request)
            return "reject"
        result = await asked.ctx.session.elicit_form(
            _message(request), SCHEMA, related_request_id=asked.ctx.request_id
        )
        return _reply(result)

    @staticmethod
    def declined_text(requests: list[PermissionRequest]) -> str:
        """Why the call was declined, and the rule that would allow it."""
        request = requests[0]
        resources = ", ".join(request.resources)
        rule = f'[[permission]]\naction = "{request.action}"\n'
        if resources != "*":
            rule += f'resource = "{request.resources[0]}"\n'
        return (
            f"Permission for {request.action!r} on {resources} needs an answer, and this "
            "MCP client cannot be asked (no elicitation), so the call was declined. To "
            "allow it, add this rule to the Location's tooldeck.toml:\n\n"
            f'{rule}effect = "allow"\n'
        )


def _can_elicit(ctx: Any) -> bool:
    """A handshake-era client that can be sent ``elicitation/create`` now."""
    session = ctx.session
    if session.protocol_version == MODERN or not session.can_send_request:
        return False
    return _declares_elicitation(session)


def _elicits_by_round_trip(ctx: Any) -> bool:
    """A 2026-07-28 client that takes questions in an ``input_required`` result."""
    session = ctx.session
    return bool(session.protocol_version == MODERN and _declares_elicitation(session))


def _declares_elicitation(session: Any) -> bool:
    capability = types.ClientCapabilities(elicitation=types.ElicitationCapability())
    return bool(session.check_client_capability(capability))


def _key(request: PermissionRequest) -> str:
    """The question's key: the same ask in a rerun of the call finds its answer."""
    return "permission " + json.dumps([request.action, list(request.resources)])


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
