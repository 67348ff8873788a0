"""Recent events: a dropped stream is replayed from the event after the client's last,
its own stream only; ids are unguessable; the store stays bounded."""

from __future__ import annotations

import anyio

from tooldeck.mcp.serve.replay import RecentEvents


def test_replays_the_same_streams_later_events_and_forgets_the_oldest():
    async def scenario():
        store = RecentEvents(max_events=4)
        priming = await store.store_event("a", None)
        first = await store.store_event("a", "a1")
        await store.store_event("b", "b1")
        second = await store.store_event("a", "a2")
        sent = []

        async def send(event):
            sent.append((event.message, event.event_id))

        stream = await store.replay_events_after(priming, send)
        await store.store_event("b", "b2")  # the fifth: the priming event goes
        gone = await store.replay_events_after(priming, send)
        return stream, sent, gone, (priming, first, second)

    stream, sent, gone, (priming, first, second) = anyio.run(scenario)
    assert stream == "a" and sent == [("a1", first), ("a2", second)]
    assert gone is None
    assert len({priming, first, second}) == 3 and all(len(i) >= 16 for i in (first, second))
