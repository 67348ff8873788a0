"""A tool's own questions and samples for a 2026-07-28 client: the ``input_required``
round trip.

A client of that era cannot be sent a request in the middle of a call, so a tool's
``ctx.elicit`` or ``ctx.sample`` cannot wait for the answer. Instead the call stops at
its first question the client has not answered yet: the result is ``input_required``,
carrying that one question, and the client retries the same call with the answer. The
retry runs the tool again from the start, through ``run_tool_call`` like any call (so
its limits, permissions and hooks hold on every run), and this time each ``ctx.elicit``
or ``ctx.sample`` gets, in order, the answer given to it in an earlier round. A tool that
asks twice gets both answers on its third run. Code that acts before a question runs
again on each round: ask first, act after.

The answers travel with the call (``request_state``), sealed by the server
(HMAC-SHA256) and bound to the call that asked them: its tool, its arguments and its
principal. A state altered, minted by another server, expired (``ROUND_TTL_S``) or
brought back by another call is refused with a tool error saying to call again, so a
client cannot answer someone else's question, nor change an answer it gave. Each answer
is also bound to the exact question it answers (a digest): a run that asks something
else at that point is asked anew. The key is a secret no client holds: replicas given
the same ``TOOLDECK_MCP_STATE_SECRET`` derive the same key (``InputRounds.keyed_by``), so
a retry may reach any of them; without it the key is this process's own. It is never
derived from the bearer tokens: a client holds its token, and could then seal a
permission answer the server never gave.

Permission answers already in place when a question stops the call (a call resumed
after its permission ask, ``host.resume``) ride along, so the question that follows
does not ask the user for the same permission twice; they are sealed like the rest.

A resource read and a prompt take rounds the same way (their ``ctx.elicit``,
``ctx.elicit_url`` and ``ctx.sample``), bound to the URI read or to the prompt and its
arguments, as a tool call's are to its tool and arguments.

No context variable here: the server gives each call's peer its ``Round``.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import json
import os
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tooldeck._tool import AwaitingInput
from tooldeck.host.boundary.pending import reply_from_json, reply_to_json
from tooldeck.host.permissions.asks import Answer, answers_given, answers_in_place
from tooldeck.mcp.sdk import types

RoundParams = (
    types.CallToolRequestParams | types.ReadResourceRequestParams | types.GetPromptRequestParams
)
"""The requests that take rounds: a tool call, a resource read, a prompt."""

ROUND_TTL_S = 900.0
"""How long the answers of a call's earlier rounds stay good: the user may take their
time over a question, and a retry later than this starts the call again."""

KEY_PREFIX = "tooldeck-input-"
"""The ``input_requests`` key of a tool's own question (a permission ask has its own)."""

_VERSION = 1


INPUT_REQUIRED = (
    "This call waits for its MCP client's answer (input_required); it runs again with it."
)
"""The text of the ``AwaitingInput`` a round raises where the client has not answered
yet: the call stops, and the server answers ``input_required`` instead of its outcome."""


STOPPED_BEFORE = (
    "This permission answer was given already, and the call went on to a question of its "
    "own: answer that question (the latest input_required result), or call again."
)
"""A retry answering a permission ask a second time, when the run its first answer
resumed stopped at a question: the recorded outcome is that stop, not a result."""


def stopped_for_input(outcome: Any) -> bool:
    """Whether a recorded outcome is a run that stopped at a question (``AwaitingInput``)."""
    error = getattr(outcome, "error", None)
    return error is not None and error.message == INPUT_REQUIRED


@dataclass(slots=True)
class Asked:
    """One question of a tool and, once given, its answer."""

    kind: str  # "elicit" | "sample"
    digest: str
    answer: dict[str, Any] | None = None


@dataclass(slots=True)
class Round:
    """One run of a served call for a 2026-07-28 client: the answers it starts with and
    the question that stopped it (``needed``), if any."""

    answers: list[Asked] = field(default_factory=list)
    granted: tuple[Answer, ...] = ()
    needed: types.InputRequest | None = None
    needed_asked: Asked | None = None
    carried: tuple[Answer, ...] = ()
    _next: int = 0

    def answer(self, kind: str, request: types.InputRequest) -> dict[str, Any]:
        """The answer to the next question, ``request``; raises ``AwaitingInput`` when the
        client has not answered it yet (or answered another question at this point)."""
        digest = _digest(request)
        index = self._next
        self._next += 1
        if index < len(self.answers):
            given = self.answers[index]
            if given.kind == kind and given.digest == digest and given.answer is not None:
                return given.answer
            del self.answers[index:]  # the run took another turn: ask from here on
        if self.needed is None:
            self.needed = request
            self.needed_asked = Asked(kind, digest)
            self.carried = answers_given()
        raise AwaitingInput(INPUT_REQUIRED)


@contextlib.contextmanager
def granted_in_place(round_: Round | None) -> Iterator[None]:
    """The permission answers a call's earlier rounds carry, in place for this run."""
    if round_ is None or not round_.granted:
        yield
        return
    with answers_in_place(round_.granted):
        yield


class InputRounds:
    """Seals and opens the answers a call carries between its rounds."""

    def __init__(self, key: bytes | None = None) -> None:
        self._key = key if key is not None else os.urandom(32)

    @classmethod
    def keyed_by(cls, secret: str) -> InputRounds:
        """Rounds whose key is derived from ``secret`` (``options.STATE_SECRET_ENV``, the same on
        every replica given it)."""
        material = secret.encode()
        return cls(hmac.new(material, b"tooldeck mcp serve: input rounds", "sha256").digest())

    def first(self) -> Round:
        return Round()

    def resumed(self, params: RoundParams, principal: str | None) -> Round | str | None:
        """The round a retry of a call starts with: its earlier answers plus the answer
        to the question it was asked last. ``None``: the call carries no answers of ours;
        a string: why the answers it carries are refused."""
        state = _state(params.request_state)
        sealed = state.get("inputs") if state is not None else None
        if not isinstance(sealed, str):
            return None
        claims = self._open(sealed)
        if claims is None:
            return _REFUSED.format(why="were not sealed by this server")
        if not isinstance(claims.get("exp"), int | float) or claims["exp"] < time.time():
            return _REFUSED.format(why="are older than the call allows")
        if claims.get("bind") != _binding(params, principal):
            return _REFUSED.format(why="belong to another call")
        try:
            answers = [Asked(a["kind"], a["digest"], a["answer"]) for a in claims["answers"]]
            asked = claims["asked"]
            granted = tuple(
                (action, tuple(resources), reply_from_json(reply))
                for action, resources, reply in claims["granted"]
            )
        except (KeyError, TypeError, ValueError):
            return _REFUSED.format(why="are malformed")
        if asked is None:  # the call stopped at a permission ask (``carried_by``)
            return Round(answers, granted)
        response = (params.input_responses or {}).get(asked["key"])
        if response is None:  # a retry without the answer: asked again
            return Round(answers, granted)
        answer = _answer_of(asked["kind"], response)
        if answer is None:
            return _WRONG_KIND.format(key=asked["key"], expected=_KINDS.get(asked["kind"], "it"))
        answers.append(Asked(asked["kind"], asked["digest"], answer))
        return Round(answers, granted)

    def input_required(
        self,
        round_: Round,
        params: RoundParams,
        principal: str | None,
    ) -> types.InputRequiredResult:
        """The result asking the client the question that stopped ``round_``."""
        assert round_.needed is not None and round_.needed_asked is not None
        asked = round_.needed_asked
        key = f"{KEY_PREFIX}{len(round_.answers)}"
        asking = {"key": key, "kind": asked.kind, "digest": asked.digest}
        state = {"inputs": self._sealed(round_, params, principal, asking)}
        if isinstance(params, types.CallToolRequestParams):  # a pending ask checks it
            state["tool"] = params.name
        return types.InputRequiredResult(
            input_requests={key: round_.needed}, request_state=json.dumps(state)
        )

    def carried_by(
        self,
        result: types.InputRequiredResult,
        round_: Round | None,
        params: types.CallToolRequestParams,
        principal: str | None,
    ) -> types.InputRequiredResult:
        """A permission ask's ``result``, carrying the answers ``round_`` was given, so
        the call resumed after it does not ask its questions again."""
        if round_ is None or not (round_.answers or round_.granted):
            return result
        state = _state(result.request_state) or {}
        state["inputs"] = self._sealed(round_, params, principal, None)
        return result.model_copy(update={"request_state": json.dumps(state)})

    def _sealed(
        self,
        round_: Round,
        params: RoundParams,
        principal: str | None,
        asking: dict[str, str] | None,
    ) -> str:
        granted = _unique((*round_.granted, *round_.carried))
        claims = {
            "v": _VERSION,
            "exp": time.time() + ROUND_TTL_S,
            "bind": _binding(params, principal),
            "answers": [
                {"kind": a.kind, "digest": a.digest, "answer": a.answer} for a in round_.answers
            ],
            "asked": asking,
            "granted": [
                [action, list(resources), reply_to_json(reply)]
                for action, resources, reply in granted
            ],
        }
        return self._seal(claims)

    # -- sealing ------------------------------------------------------------------------
    def _seal(self, claims: Mapping[str, Any]) -> str:
        payload = json.dumps(claims, separators=(",", ":"), sort_keys=True).encode()
        tag = hmac.new(self._key, payload, "sha256").digest()
        return f"{_b64(payload)}.{_b64(tag)}"

    def _open(self, sealed: str) -> dict[str, Any] | None:
        payload_text, _, tag_text = sealed.partition(".")
        try:
            payload, tag = _unb64(payload_text), _unb64(tag_text)
        except ValueError:
            return None
        if not hmac.compare_digest(tag, hmac.new(self._key, payload, "sha256").digest()):
            return None
        try:
            claims = json.loads(payload)
        except ValueError:
            return None
        if not isinstance(claims, dict) or claims.get("v") != _VERSION:
            return None
        return claims


_REFUSED = (
    "The answers this request carries {why}: it cannot be resumed. Send it again "
    "from the start (its questions are asked again)."
)

_WRONG_KIND = (
    "The input response {key!r} this request carries is not {expected}: it cannot be "
    "resumed. Send it again from the start (its questions are asked again)."
)
_KINDS = {
    "elicit": "the user's answer to a question (an elicitation result)",
    "sample": "a model's message (a sampling result)",
}
"""What answers each kind of question, for a response of another kind."""


def _state(request_state: str | None) -> dict[str, Any] | None:
    try:
        state = json.loads(request_state) if request_state else None
    except ValueError:
        return None
    return state if isinstance(state, dict) else None


def carries_inputs(params: RoundParams) -> bool:
    """Whether a request's state holds answers of ours (not a pending permission)."""
    state = _state(params.request_state)
    return state is not None and "inputs" in state


def _binding(params: RoundParams, principal: str | None) -> str:
    """The request a round belongs to, as one digest: a call's tool and arguments, a
    read's URI or a prompt and its arguments (under names no tool has: they hold a
    space), and the principal."""
    if isinstance(params, types.ReadResourceRequestParams):
        name, arguments = f"resources/read {params.uri}", None
    elif isinstance(params, types.GetPromptRequestParams):
        name, arguments = f"prompts/get {params.name}", params.arguments
    else:
        name, arguments = params.name, params.arguments
    text = json.dumps([name, arguments or {}, principal], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _digest(request: types.InputRequest) -> str:
    """The question as asked: an answer counts only for the very question it answers."""
    text = json.dumps(request.model_dump(mode="json", by_alias=True), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _answer_of(kind: str, response: Any) -> dict[str, Any] | None:
    """The answer as carried between rounds, when it answers a question of ``kind``."""
    if kind == "elicit" and isinstance(response, types.ElicitResult):
        return dict(response.model_dump(mode="json", by_alias=True, exclude_none=True))
    if kind == "sample" and isinstance(response, types.CreateMessageResult):
        return dict(response.model_dump(mode="json", by_alias=True, exclude_none=True))
    return None


def _unique(answers: Sequence[Answer]) -> tuple[Answer, ...]:
    seen: list[Answer] = []
    for answer in answers:
        if answer not in seen:
            seen.append(answer)
    return tuple(seen)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, TypeError) as exc:
        raise ValueError("not base64url") from exc
