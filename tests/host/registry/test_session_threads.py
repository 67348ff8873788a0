"""Sessions opened, used and closed from 8 threads while the Location keeps changing."""

from __future__ import annotations

import threading

from tooldeck import Location, Tool, ToolCall, ToolResult, ToolService

THREADS, ROUNDS = 8, 40


def run(inp, ctx):
    return ToolResult(ctx.session_id)


def tool(name, description):
    return Tool(name=name, description=description, execute=run)


def test_sessions_from_many_threads_while_the_location_changes(tmp_path, join_threads):
    service = ToolService(Location(tmp_path, data_dir=tmp_path / "data"))
    template = service.session_transform(
        lambda editor, session_id, state: editor.add(tool("whoami", f"for {session_id}")),
        source="template",
    )
    stop = threading.Event()
    errors: list[BaseException] = []
    location_tags = {"none"}

    def location_writer():
        try:
            previous, round_ = None, 0
            while not stop.is_set():
                tag = f"L{round_}"
                location_tags.add(tag)
                # Two tools with the same tag: a snapshot shows both with one tag, or neither.
                registration = service.transform(
                    lambda editor, tag=tag: [
                        editor.add(tool("shared", tag)),
                        editor.add(tool("twin", tag)),
                    ],
                    source="location",
                )
                if previous is not None:
                    previous.dispose()
                previous, round_ = registration, round_ + 1
        except BaseException as exc:
            errors.append(exc)

    def session_user(worker):
        try:
            for round_ in range(ROUNDS):
                session_id = f"w{worker}-{round_ % 3}"
                scope = service.session(session_id)
                own = f"{session_id}/{round_}"
                registration = scope.transform(
                    lambda editor, own=own: [
                        editor.add(tool("mine", own)),
                        editor.update(
                            "shared", lambda t: t.replace(description=t.description + "+" + own)
                        ),
                    ],
                    source="user",
                )
                snapshot = service.snapshot(session=session_id)
                check(snapshot, session_id, own)
                if round_ % 2:
                    registration.dispose()
                if round_ % 3 == 2:
                    scope.close()
                    assert session_id not in service.sessions
                    assert service.snapshot(session=session_id).get("mine") is None
        except BaseException as exc:
            errors.append(exc)

    def check(snapshot, session_id, own):
        described = {d.name: d.description for d in snapshot.definitions}
        assert snapshot.session_id == session_id
        assert described["whoami"] == f"for {session_id}"
        assert described["mine"] == own  # the latest own registration wins
        shared = described.get("shared")
        if shared is not None:
            base = shared.split("+")[0]
            assert base in location_tags and described["twin"] == base
            assert shared.endswith("+" + own)
        result = snapshot.execute_sync(ToolCall("c", "whoami", "{}"))
        assert result.content[0].text == session_id  # the call defaults to its session

    writer = threading.Thread(target=location_writer)
    users = [threading.Thread(target=session_user, args=(w,)) for w in range(THREADS)]
    writer.start()
    for t in users:
        t.start()
    join_threads(*users)
    stop.set()
    join_threads(writer)

    assert errors == []
    # Sessions "-2" were closed after each use; "-0" and "-1" never were.
    assert sorted(service.sessions) == sorted(f"w{w}-{k}" for w in range(THREADS) for k in (0, 1))
    final = {d.name: d.description for d in service.snapshot().definitions}
    assert "mine" not in final and "whoami" not in final
    template.dispose()
    for session_id in service.sessions:
        assert service.snapshot(session=session_id).get("whoami") is None
