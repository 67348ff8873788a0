"""Registrations, disposals and snapshots from many threads stay consistent."""

from __future__ import annotations

import threading

import pytest

from tooldeck import Location, Tool, ToolResult, ToolService

WRITERS, ROUNDS, READERS = 4, 60, 3


def run(inp, ctx):
    return ToolResult("ok")


def pair(writer, round_):
    """Each transform adds two tools with the same tag: a snapshot shows both or neither."""
    tag = f"w{writer}-r{round_}"
    tools = [
        Tool(name=f"x{writer}", description=tag, execute=run),
        Tool(name=f"y{writer}", description=tag, execute=run),
        Tool(name="shared", description=tag, execute=run),
    ]
    return tag, lambda editor: [editor.add(t) for t in tools]


@pytest.mark.slow
def test_concurrent_registration_disposal_and_snapshots(tmp_path, join_threads):
    service = ToolService(Location(tmp_path, data_dir=tmp_path / "data"))
    registered: set[str] = set()
    errors: list[BaseException] = []
    done = threading.Event()
    snapshots = []

    def writer(w):
        try:
            previous = None
            for r in range(ROUNDS):
                tag, fn = pair(w, r)
                registered.add(tag)
                registration = service.transform(fn, source=f"writer{w}")
                if previous is not None:
                    previous.dispose()
                previous = registration
        except BaseException as exc:
            errors.append(exc)

    def reader():
        try:
            while not done.is_set():
                snapshots.append(service.snapshot())
        except BaseException as exc:
            errors.append(exc)

    readers = [threading.Thread(target=reader) for _ in range(READERS)]
    writers = [threading.Thread(target=writer, args=(w,)) for w in range(WRITERS)]
    for t in readers + writers:
        t.start()
    join_threads(*writers)
    done.set()
    join_threads(*readers)

    assert errors == []
    assert snapshots
    for snapshot in snapshots:
        described = {d.name: d.description for d in snapshot.definitions}
        for w in range(WRITERS):
            assert described.get(f"x{w}") == described.get(f"y{w}")
            assert described.get(f"x{w}") in registered | {None}
        if described:
            # "shared" comes from the latest live transform: one of the writers' live tags.
            live = {described[f"x{w}"] for w in range(WRITERS) if f"x{w}" in described}
            assert described["shared"] in live
    final = {d.name: d.description for d in service.snapshot().definitions}
    assert {final[f"x{w}"] for w in range(WRITERS)} == {
        f"w{w}-r{ROUNDS - 1}" for w in range(WRITERS)
    }
    assert len(service.registrations) == WRITERS
