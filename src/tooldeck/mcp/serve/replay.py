"""Resumable HTTP streams: the recent events of ``tooldeck mcp serve --http``.

With an event store the SDK opens each response stream with a priming event (an id,
no data, and a ``retry`` hint), and a client whose stream dropped mid-call reconnects
with ``Last-Event-ID`` and is sent what it missed, the call's result included
(SEP-1699). ``RecentEvents`` keeps the last ``MAX_EVENTS`` events of all streams in
memory: enough for a reconnect within seconds, bounded however long the server runs.
Event ids are unguessable, since the store is shared by every session: an id is what
lets a client replay a stream.
"""

from __future__ import annotations

import secrets
from collections import OrderedDict
from typing import Any

from tooldeck.mcp.sdk import EventMessage, EventStore

MAX_EVENTS = 512
RETRY_MS = 1000
"""How long a client waits before reconnecting a dropped stream."""


class RecentEvents(EventStore):
    """The last ``max_events`` events, by id, in the order they were stored."""

    def __init__(self, max_events: int = MAX_EVENTS) -> None:
        self.max_events = max_events
        self._events: OrderedDict[str, tuple[str, Any]] = OrderedDict()

    async def store_event(self, stream_id: str, message: Any) -> str:
        event_id = secrets.token_urlsafe(12)
        self._events[event_id] = (stream_id, message)
        while len(self._events) > self.max_events:
            self._events.popitem(last=False)
        return event_id

    async def replay_events_after(self, last_event_id: str, send_callback: Any) -> str | None:
        found = self._events.get(last_event_id)
        if found is None:
            return None  # unknown or evicted: nothing to resume
        stream_id = found[0]
        after = False
        for event_id, (stream, message) in list(self._events.items()):
            if after and stream == stream_id and message is not None:
                await send_callback(EventMessage(message, event_id))
            after = after or event_id == last_event_id
        return stream_id
