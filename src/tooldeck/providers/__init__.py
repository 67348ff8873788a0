"""Provider adapters: a provider's tool calls in, tooldeck outcomes out, for a host loop.

One model turn, whatever the provider::

    calls = calls_from("anthropic", message)             # the reply's tool calls
    turn = await run_tool_calls(snapshot, calls, session_id="chat-1")
    messages += results_for("anthropic", zip(calls, turn.outcomes))
    if turn.end_turn: ...                                # a call was declined

Formats: ``"openai"`` (Chat Completions), ``"openai-responses"``, ``"anthropic"``,
``"gemini"`` and ``"mcp"``. Replies may be the SDKs' objects or plain dicts (their JSON);
no SDK is imported. ``snapshot.definitions_for(fmt)`` renders the tools to advertise
in the same formats. Every wire format lives in this package: ``formats`` (the one
``Format`` list and the definitions), ``_wire`` (calls in, results out),
``_attachments`` (a result's images and files, as each API takes them), ``wire_types``
(their typed shapes); ``_turn`` runs a turn.
"""

from __future__ import annotations

from tooldeck.providers._turn import CallProgress as CallProgress
from tooldeck.providers._turn import Pairs as Pairs
from tooldeck.providers._turn import TurnResult as TurnResult
from tooldeck.providers._turn import calls_from as calls_from
from tooldeck.providers._turn import results_for as results_for
from tooldeck.providers._turn import run_tool_calls as run_tool_calls
from tooldeck.providers.formats import Format as Format

__all__ = [
    "CallProgress",
    "Format",
    "Pairs",
    "TurnResult",
    "calls_from",
    "results_for",
    "run_tool_calls",
]
