"""Code mode in a session's snapshot: the session's code-mode tools are functions of its
own ``execute``, and nested calls run in that session."""

from __future__ import annotations

import asyncio

from tooldeck import Host, Tool, ToolCall, ToolResult, run_tool_call

from .conftest import Adder


def note_tool(notes):
    def note(inp, ctx):
        notes.append((ctx.session_id, inp["text"]))
        return ToolResult(f"{len(notes)} notes")

    return Tool(
        name="note",
        description="Keep a note.",
        execute=note,
        input={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    )


def program(snapshot, code, **options):
    call = ToolCall("c", "execute", {"code": code})
    return asyncio.run(run_tool_call(snapshot, call, **options))


def test_a_session_code_mode_tool_is_a_function_of_the_session_execute(tmp_path):
    notes = []
    with Host.open(tmp_path, plugins=[Adder()], data_dir=tmp_path / "d") as host:
        host.session("chat-1").transform(lambda editor: editor.add(note_tool(notes)), source="host")
        session = host.snapshot(session="chat-1")
        assert session.names[-1] == "execute" and "note" not in session.names
        assert [e.name for e in session.codemode_catalog] == ["add", "note"]
        assert "def note(" in session.get("execute").description  # its stubs name the tool
        assert "def note(" not in host.snapshot().get("execute").description

        done = program(session, "await tools.note(text='x')\nawait tools.add(a=1, b=2)")
        assert done.status == "completed", done.content
        assert done.output["result"] == "3" and notes == [("chat-1", "x")]

        outside = program(host.snapshot(), "await tools.note(text='y')")
        assert outside.status == "failed" and notes == [("chat-1", "x")]


def test_a_session_that_changes_no_code_mode_tool_shares_the_location_execute(tmp_path):
    with Host.open(tmp_path, plugins=[Adder()], data_dir=tmp_path / "d") as host:
        host.session("chat-1").transform(
            lambda editor: editor.add(
                Tool(
                    name="native",
                    description="Native.",
                    codemode=False,
                    execute=lambda i, c: ToolResult("ok"),
                )
            ),
            source="host",
        )
        session, location = host.snapshot(session="chat-1"), host.snapshot()
        assert session.names == (*sorted((*location.names[:-1], "native")), "execute")
        assert session.get("execute") is location.get("execute")
        assert program(session, "await tools.add(a=2, b=2)").output["result"] == "4"
