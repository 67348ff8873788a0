"""A complete host agent loop over tooldeck's real built-in tools, with a scripted model.

Run it: ``python examples/agent_loop.py``. It needs nothing but tooldeck: it creates a
small project in a temporary directory, opens a ``Host`` on it, and drives a fake model
whose turns are canned (``SCRIPT``) instead of coming from an LLM API. Everything else
is what a real host does on every model request:

1. take a ``Snapshot`` of the catalog and advertise ``snapshot.definitions_for(...)``;
2. send the conversation and the definitions to the model;
3. run each tool call the model makes with ``run_tool_call`` against *that* snapshot;
4. append one tool result per call (whatever its status) and go back to 1;
5. stop when the model answers with text only.

Permission asks go to ``ScriptedUser``, the host's *asker*: it prints what it is asked
and replies ``"once"``, ``Reject(feedback)`` or ``"reject"`` in turn, as a person at a
prompt would. The transcript printed on stdout is what ``tests/test_examples.py`` checks.

The model's messages use the OpenAI Chat Completions shape; swap the ``FakeModel`` for
a real client and the ``"openai"`` format for the provider's and nothing else changes.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tooldeck import (
    Host,
    Reject,
    Snapshot,
    TextPart,
    ToolCall,
    ToolCallOutcome,
    run_tool_call,
)

if TYPE_CHECKING:  # for annotations only: the asker receives these, it never builds them
    from tooldeck import PermissionRequest, Reply

Message = dict[str, Any]

APP = '''\
def greet(name):
    # TODO: say hello properly
    return "hi " + name


def farewell(name):
    return "bye " + name  # TODO: capitalize
'''

TASK = "Make greet() say 'Hello, <name>!' and tell me which TODOs are left."


# -- the scripted model ------------------------------------------------------------------
def call(call_id: str, name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """One tool call as an OpenAI-style assistant message carries it (arguments as JSON)."""
    return {"id": call_id, "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)}}


SCRIPT: list[Message] = [
    # Two calls in one turn: look at the file and search the project.
    {"content": "Let me look at the code first.", "tool_calls": [
        call("call_1", "read", {"path": "app.py"}),
        call("call_2", "grep", {"pattern": "TODO"}),
    ]},
    # Invalid arguments: old_string has the wrong type and new_string is missing. The
    # boundary refuses the call before the tool runs and tells the model what to fix.
    {"content": "Now the edit.", "tool_calls": [
        call("call_3", "edit", {"path": "app.py", "old_string": 42}),
    ]},
    # The corrected call. edit asks permission (the user approves once) and then writes.
    {"content": "Fixing the arguments.", "tool_calls": [
        call("call_4", "edit", {"path": "app.py",
                                "old_string": '    # TODO: say hello properly\n'
                                              '    return "hi " + name',
                                "new_string": '    return f"Hello, {name}!"'}),
    ]},
    # The user rejects with feedback: the call fails with it and the model carries on.
    {"content": "Let me run the old build script too.", "tool_calls": [
        call("call_5", "shell", {"command": "rm -rf build && make",
                                 "description": "Rebuild from scratch"}),
    ]},
    # The user simply declines: the model is told not to retry.
    {"content": "I'll write a summary file.", "tool_calls": [
        call("call_6", "write", {"path": "SUMMARY.md", "content": "greet() fixed.\n"}),
    ]},
    {"content": "greet() now returns 'Hello, <name>!'. One TODO is left: "
                "capitalize the farewell in app.py line 6."},
]


class FakeModel:
    """Plays ``SCRIPT`` back, checking each call targets a tool it was offered."""

    def __init__(self, script: Sequence[Message]) -> None:
        self._turns = list(script)

    def complete(self, messages: Sequence[Message], tools: Sequence[Mapping[str, Any]]) -> Message:
        offered = {tool["function"]["name"] for tool in tools}
        turn = self._turns.pop(0)
        for tool_call in turn.get("tool_calls", ()):
            assert tool_call["function"]["name"] in offered, tool_call
        return {"role": "assistant", **turn}


# -- the user at the permission prompt ---------------------------------------------------
class ScriptedUser:
    """The host's asker: prints each permission request and answers from a script."""

    def __init__(self, root: Path, replies: Sequence[Reply]) -> None:
        self._root = root
        self._replies = list(replies)

    def __call__(self, request: PermissionRequest) -> Reply:
        shown = ", ".join(self._relative(r) for r in request.resources)
        say(f"  ? permission: {request.action} {shown}")
        diff = request.metadata.get("diff")
        if diff:
            say(quoted(str(diff).rstrip()))
        reply = self._replies.pop(0)
        say(f"  ! user replies: {reply!r}")
        return reply

    def _relative(self, resource: str) -> str:
        prefix = f"{self._root}{os.sep}"
        return resource.removeprefix(prefix)


# -- the host's loop -----------------------------------------------------------------------
async def agent_loop(host: Host, model: FakeModel, task: str) -> list[Message]:
    """Run model turns until the model answers without tool calls; return the messages."""
    messages: list[Message] = [{"role": "user", "content": task}]
    say(f"user: {task}")
    while True:
        snapshot = host.snapshot()  # one per request: it is what the model is shown
        tools = snapshot.definitions_for("openai")
        reply = model.complete(messages, tools)
        messages.append(reply)
        say(f"assistant: {reply['content']}")
        if not reply.get("tool_calls"):
            return messages
        for tool_call in reply["tool_calls"]:
            messages.append(await run_one(snapshot, tool_call))


async def run_one(snapshot: Snapshot, tool_call: Mapping[str, Any]) -> Message:
    """Run one call through the session boundary; every outcome becomes a tool message."""
    function = tool_call["function"]
    say(f"  > {tool_call['id']} {function['name']} {function['arguments']}")
    outcome = await run_tool_call(
        snapshot,
        ToolCall(tool_call["id"], function["name"], function["arguments"]),
        session_id="session-1",
        message_id="message-1",
    )
    say(f"  < {tool_call['id']} {describe(outcome)}")
    text = "\n".join(part.text for part in outcome.content if isinstance(part, TextPart))
    say(quoted(text))
    return {"role": "tool", "tool_call_id": tool_call["id"], "content": text}


def describe(outcome: ToolCallOutcome) -> str:
    """``completed``, ``failed (tool.execution)``, ``declined``, ``interrupted``."""
    if outcome.error is not None:
        return f"{outcome.status} ({outcome.error.type})"
    return outcome.status


def say(line: str) -> None:
    print(line, flush=True)


def quoted(text: str) -> str:
    """``text`` indented under the line it belongs to, blank lines included."""
    return "\n".join(f"  |   {line}" if line else "  |" for line in text.split("\n"))


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="tooldeck-agent-") as temp:
        root = Path(temp, "project")
        root.mkdir()
        (root / "app.py").write_text(APP)
        user = ScriptedUser(root, ["once", Reject("Don't delete build/, it is shared."),
                                   "reject"])
        # plugins=[]: only the built-ins, whatever packs this environment has installed.
        # data_dir: saved outputs and "always" approvals stay in the temp dir too.
        host = Host.open(root, plugins=[], asker=user, data_dir=Path(temp, "data"))
        names = ", ".join(host.snapshot().names)
        say(f"tools: {names}")
        messages = asyncio.run(agent_loop(host, FakeModel(SCRIPT), TASK))
        say(f"app.py now:\n{quoted((root / 'app.py').read_text().rstrip())}")
        say(f"SUMMARY.md exists: {(root / 'SUMMARY.md').exists()}")
        say(f"messages: {len(messages)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
