"""Permission asks of ``tooldeck mcp serve``, answered by the MCP client's user.

A call that needs an answer asks the client through elicitation when the client
declared the capability: allow once, always, reject, or reject with feedback. Otherwise
the Location's rules decide alone, and an ask that remains is declined with a text
naming the rule to add.

The two protocol eras elicit differently. A handshake-era client gets an
``elicitation/create`` request in the middle of the call. A 2026-07-28 client cannot be
sent a request, so its calls defer their asks (``on_ask="defer"``, docs/approvals.md):
a call that asks ends ``pending``, the result is ``input_required`` with the question and
the pending call's id in ``request_state``, and the client's retry carrying the answer
resumes that pending call, exactly once. A retry sent twice gets the recorded outcome
and never runs the tool again; a call that asks again is pending again, under a new id
that carries the answers already given. The state is not sealed: it names a pending
call by an unguessable id, and answering is what the client is asked to do.

One context variable carries call state here, ``_REQUEST``: the SDK request of the call
whose asks are being made (``current_request``). The asker is the Location's, and
``PermissionService`` calls it with a ``PermissionRequest`` that names the session but
not the call, while one client session may have several calls in flight; each
elicitation must go out related to its own call's request (over HTTP, on that call's
response stream). So the served call marks its request in its task, where its asks run.
It can go once the asker is given per call (in the call's scope) rather than per
Location.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from tooldeck.host.permissions.request import PermissionRequest, Reject, Reply
from tooldeck.host.permissions.shown import attached_lines
from tooldeck.mcp.sdk import types

if TYPE_CHECKING:
    from tooldeck.host.boundary.pending import PendingCall
    from tooldeck.host.trust.project import TrustStatus
    from tooldeck.mcp.serve.rounds import Round


class Asked:
    """The asks of one served request: those no one could answer (they were declined),
    and the 2026-07-28 round they are asked in, for a request that takes its asks there
    (a resource read: ``rounds``) rather than deferring them (a tool call)."""

    def __init__(self, ctx: Any, round_: Round | None = None) -> None:
        self.ctx = ctx
        self.round = round_
        self.unanswerable: list[PermissionRequest] = []


def input_required(pending: PendingCall) -> types.InputRequiredResult:
    """The round-trip result asking a 2026-07-28 client the question of ``pending``."""
    request = pending.request
    ask = types.ElicitRequest(
        params=types.ElicitRequestFormParams(message=_message(request), requested_schema=SCHEMA)
    )
    state = json.dumps({"pending": pending.id, "tool": pending.call.name})
    return types.InputRequiredResult(input_requests={_key(request): ask}, request_state=state)


def answered(params: types.CallToolRequestParams) -> tuple[str, Reply] | None:
    """``(pending id, reply)`` when a retried 2026-07-28 call answers a pending call of
    the same tool; ``None`` for a first call, or a retry without an answer (the call then
    runs afresh and asks again)."""
    try:
        state = json.loads(params.request_state) if params.request_state else None
    except ValueError:
        return None
    if not isinstance(state, dict) or state.get("tool") != params.name:
        return None
    pending_id = state.get("pending")
    responses = [
        response
        for response in (params.input_responses or {}).values()
        if isinstance(response, types.ElicitResult)
    ]
    if not isinstance(pending_id, str) or len(responses) != 1:
        return None
    return pending_id, _reply(responses[0])


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
def current_request(ctx: Any, round_: Round | None = None) -> Iterator[Asked]:
    """Mark the MCP request whose tool call or read may ask (the asker runs in its
    task); ``round_``: where a 2026-07-28 client answers them."""
    asked = Asked(ctx, round_)
    token = _REQUEST.set(asked)
    try:
        yield asked
    finally:
        _REQUEST.reset(token)


class ElicitingAsker:
    """The Location's asker while it is served over MCP."""

    async def __call__(self, request: PermissionRequest) -> Reply:
        asked = _REQUEST.get()
        if asked is not None and asked.round is not None and elicits_by_round_trip(asked.ctx):
            form = types.ElicitRequestFormParams(message=_message(request), requested_schema=SCHEMA)
            answer = asked.round.answer("elicit", types.ElicitRequest(params=form))
            return _reply(types.ElicitResult.model_validate(answer))  # or AwaitingInput
        if asked is None or not _can_elicit(asked.ctx):
            if asked is not None:
                asked.unanswerable.append(request)
            return "reject"
        result = await asked.ctx.session.elicit_form(
            _message(request), SCHEMA, related_request_id=asked.ctx.request_id
        )
        return _reply(result)

    @staticmethod
    def declined_text(
        requests: list[PermissionRequest],
        principal: str | None = None,
        trust: TrustStatus | None = None,
    ) -> str:
        """Why the call was declined, and the rule that would allow it: in the
        principal's own rule table when the request has one, with the trust step a
        project's allow rule needs (``trust``: the served folder's decision)."""
        request = requests[0]
        resources = ", ".join(request.resources)
        table = f"mcp.serve.principals.{principal}.permission" if principal else "permission"
        rule = f'[[{table}]]\naction = "{request.action}"\n'
        if resources != "*":
            rule += f'resource = "{request.resources[0]}"\n'
        where = (
            f"principal {principal!r}'s own rules, in the file that defines "
            f"[mcp.serve.principals.{principal}]"
            if principal
            else "the Location's tooldeck.toml"
        )
        text = (
            f"Permission for {request.action!r} on {resources} needs an answer, and this "
            "MCP client cannot be asked (no elicitation), so the call was declined. To "
            f'allow it, add this rule to {where}:\n\n{rule}effect = "allow"\n'
        )
        return text + _trust_step(trust)


def _trust_step(trust: TrustStatus | None) -> str:
    """What a project's allow rule needs besides being written: the folder's trust (a
    rule in the user's own config needs none)."""
    if trust is None or (trust.trusted and trust.source in ("argument", "environment")):
        return ""
    state = "This folder is not trusted: " if not trust.trusted else ""
    return (
        f"\n{state}an allow rule in the project's tooldeck.toml counts only once the "
        f"folder is trusted: after adding it, run `{trust.command}` (a rule in your user "
        "config needs no trust).\n"
    )


def _can_elicit(ctx: Any) -> bool:
    """A handshake-era client that can be sent ``elicitation/create`` now."""
    session = ctx.session
    if session.protocol_version == MODERN or not session.can_send_request:
        return False
    return declares_forms(session)


def elicits_by_round_trip(ctx: Any) -> bool:
    """A 2026-07-28 client that takes questions in an ``input_required`` result."""
    session = ctx.session
    return bool(session.protocol_version == MODERN and declares_forms(session))


def declares_forms(session: Any) -> bool:
    """A client that takes form questions: its ``elicitation`` capability has ``form``,
    or is bare (``{}``, the shape before modes existed). A URL-only client takes none
    (the SDK's own capability check does not look at the modes)."""
    elicitation = _elicitation(session)
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


def declares_urls(session: Any) -> bool:
    """A client that takes URL-mode questions: its ``elicitation`` capability has ``url``."""
    elicitation = _elicitation(session)
    return elicitation is not None and elicitation.url is not None


def _elicitation(session: Any) -> types.ElicitationCapability | None:
    declared = session.client_capabilities
    return declared.elicitation if declared is not None else None


def _key(request: PermissionRequest) -> str:
    """The question's key: the same ask in a rerun of the call finds its answer."""
    return "permission " + json.dumps([request.action, list(request.resources)])


DIFF_CHARS = 8000
"""How much of an attached diff a question carries; the rest is counted, not sent."""


def _message(request: PermissionRequest) -> str:
    """The question, then what the tool attached to it (its note, its diff), so the
    client's user approves what they have read."""
    resources = ", ".join(request.resources)
    attached = attached_lines(request.metadata, request.resources, diff_chars=DIFF_CHARS).rstrip(
        "\n"
    )
    question = f"Allow {request.action!r} on {resources}?"
    return f"{question}\n{attached}" if attached else question


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
