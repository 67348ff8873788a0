"""A complete host agent loop on tooldeck's provider adapters, for the OpenAI and the
Anthropic SDK, over tooldeck's real built-in tools and a scripted model.

Run it: ``python examples/agent_loop.py [openai|anthropic]`` (both by default; it needs
``pip install openai anthropic``). It creates a small project in a temporary directory,
opens a ``Host`` on it, and talks to a *fake model*: a tiny HTTP server on 127.0.0.1
that answers the SDKs' real requests with canned turns (``SCRIPT``) in each provider's
JSON. Everything else is what a real host does on every model request:

1. take a ``Snapshot`` and advertise ``snapshot.definitions_for(fmt)`` as ``tools=``;
2. send the conversation; read the reply's calls with ``calls_from(fmt, reply)``;
3. run them with ``run_tool_calls`` against *that* snapshot (concurrently, outcomes in
   call order);
4. append ``results_for(fmt, zip(calls, outcomes))``: every call gets a result, images
   included (a Chat Completions tool message takes text only, so the image follows in a
   user message), failures flagged;
5. stop when the model answers with text only, or when ``turn.end_turn`` says the user
   declined a call: control goes back to the user.

Permission asks go to ``ScriptedUser``, the host's *asker*: it prints what it is asked
and replies ``"once"``, ``Reject(feedback)`` or ``"reject"`` in turn, as a person at a
prompt would. The transcript on stdout is what ``tests/test_examples.py`` checks.
"""

from __future__ import annotations

import asyncio
import json
import os
import struct
import sys
import tempfile
import threading
import zlib
from collections.abc import Callable, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from anthropic import Anthropic
from openai import OpenAI

from tooldeck import Host, Reject, Snapshot, ToolCall, ToolCallOutcome, TurnResult
from tooldeck.providers import calls_from, results_for, run_tool_calls

if TYPE_CHECKING:  # for annotations only
    from anthropic.types import MessageParam
    from openai.types.chat import ChatCompletionMessageParam

    from tooldeck import PermissionRequest, Reply

APP = """\
def greet(name):
    # TODO: say hello properly
    return "hi " + name


def farewell(name):
    return "bye " + name  # TODO: capitalize
"""

TASK = "Make greet() say 'Hello, <name>!', check the logo, and tell me which TODOs are left."

Turn = tuple[str, list[tuple[str, str, dict[str, Any]]]]
"""What the model says, and the calls it makes: (call id, tool, arguments)."""

SCRIPT: list[Turn] = [
    # Three calls in one turn: the code, the logo (an image) and a search.
    (
        "Let me look at the code and the logo first.",
        [
            ("call_1", "read", {"path": "app.py"}),
            ("call_2", "read", {"path": "logo.png"}),
            ("call_3", "grep", {"pattern": "TODO"}),
        ],
    ),
    # Invalid arguments: old_string has the wrong type and new_string is missing. The
    # boundary refuses the call before the tool runs and tells the model what to fix.
    ("Now the edit.", [("call_4", "edit", {"path": "app.py", "old_string": 42})]),
    # The corrected call. edit asks permission (the user approves once) and then writes.
    (
        "Fixing the arguments.",
        [
            (
                "call_5",
                "edit",
                {
                    "path": "app.py",
                    "old_string": '    # TODO: say hello properly\n    return "hi " + name',
                    "new_string": '    return f"Hello, {name}!"',
                },
            )
        ],
    ),
    # The user rejects with feedback: the call fails with it and the model carries on.
    (
        "Let me run the old build script too.",
        [
            (
                "call_6",
                "shell",
                {"command": "rm -rf build && make", "description": "Rebuild from scratch"},
            )
        ],
    ),
    # The user simply declines: the host ends the turn and hands back to the user.
    (
        "I'll write a summary file.",
        [("call_7", "write", {"path": "SUMMARY.md", "content": "greet() fixed.\n"})],
    ),
]


# -- the fake model: an HTTP server speaking both providers' JSON -------------------------
class FakeModel:
    """Plays ``SCRIPT`` back; checks every request as a provider would."""

    def __init__(self, script: Sequence[Turn]) -> None:
        self.turns = list(script)
        self.pending: list[str] = []  # call ids the next request must answer

    def reply(self, path: str, request: Mapping[str, Any]) -> dict[str, Any]:
        anthropic = path.endswith("/messages")
        offered = {t["name"] if anthropic else t["function"]["name"] for t in request["tools"]}
        answered, images = _answers(request["messages"], anthropic)
        assert answered == self.pending, f"unanswered calls: {self.pending} vs {answered}"
        if images:
            say(f"  (the model received {images} image{'s' if images > 1 else ''})")
        text, calls = self.turns.pop(0)
        assert all(name in offered for _, name, _ in calls), calls
        self.pending = [call_id for call_id, _, _ in calls]
        return _message(text, calls) if anthropic else _completion(text, calls)


def _answers(messages: Sequence[Mapping[str, Any]], anthropic: bool) -> tuple[list[str], int]:
    """The call ids the latest messages answer, and the images they carry."""
    latest = messages[
        len(messages)
        - next(
            (i for i, m in enumerate(reversed(messages)) if m["role"] == "assistant"), len(messages)
        ) :
    ]
    if anthropic:
        blocks = [b for m in latest if isinstance(m["content"], list) for b in m["content"]]
        answered = [b["tool_use_id"] for b in blocks if b["type"] == "tool_result"]
        parts = [p for b in blocks for p in b.get("content", [])]
        return answered, sum(p["type"] == "image" for p in parts)
    answered = [m["tool_call_id"] for m in latest if m["role"] == "tool"]
    parts = [
        p
        for m in latest
        if m["role"] == "user" and isinstance(m["content"], list)
        for p in m["content"]
    ]
    return answered, sum(p["type"] == "image_url" for p in parts)


def _completion(text: str, calls: list[tuple[str, str, dict[str, Any]]]) -> dict[str, Any]:
    tool_calls = [
        {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
        for i, n, a in calls
    ]
    message = {
        "role": "assistant",
        "content": text,
        **({"tool_calls": tool_calls} if calls else {}),
    }
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "scripted",
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
        ],
    }


def _message(text: str, calls: list[tuple[str, str, dict[str, Any]]]) -> dict[str, Any]:
    blocks = [{"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in calls]
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "scripted",
        "content": [{"type": "text", "text": text}, *blocks],
        "stop_reason": "tool_use" if calls else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


def serve(model: FakeModel) -> tuple[ThreadingHTTPServer, str]:
    """Start the fake model on a free loopback port; return the server and its URL."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            body = json.dumps(model.reply(self.path, request)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # keep stderr clean
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}"


# -- the user at the permission prompt ---------------------------------------------------
class ScriptedUser:
    """The host's asker: prints each permission request and answers from a script."""

    def __init__(self, root: Path, replies: Sequence[Reply]) -> None:
        self._root = root
        self._replies = list(replies)

    def __call__(self, request: PermissionRequest) -> Reply:
        shown = ", ".join(r.removeprefix(f"{self._root}{os.sep}") for r in request.resources)
        say(f"  ? permission: {request.action} {shown}")
        diff = request.metadata.get("diff")
        if diff:
            say(quoted(str(diff).rstrip()))
        reply = self._replies.pop(0)
        say(f"  ! user replies: {reply!r}")
        return reply


# -- the host's loops ----------------------------------------------------------------------
def run_turn(snapshot: Snapshot, calls: list[ToolCall]) -> TurnResult:
    """Run one turn's calls through the adapters' session boundary and print them."""
    for call in calls:
        arguments = call.input if isinstance(call.input, str) else json.dumps(call.input)
        say(f"  > {call.id} {call.name} {arguments}")
    turn = asyncio.run(
        run_tool_calls(snapshot, calls, session_id="session-1", message_id="message-1")
    )
    for call, outcome in zip(calls, turn.outcomes, strict=True):
        say(f"  < {call.id} {describe(outcome)}")
        say(quoted(shown(outcome)))
    return turn


def openai_loop(host: Host, base_url: str) -> int:
    """The Chat Completions loop; returns how many messages the conversation has."""
    client = OpenAI(api_key="unused", base_url=f"{base_url}/v1")
    messages: list[ChatCompletionMessageParam] = [{"role": "user", "content": TASK}]
    while True:
        snapshot = host.snapshot()  # one per request: it is what the model is shown
        reply = client.chat.completions.create(
            model="scripted", messages=messages, tools=snapshot.definitions_for("openai")
        )
        message = reply.choices[0].message
        say(f"assistant: {message.content}")
        messages.append(cast("ChatCompletionMessageParam", message.to_dict()))
        calls = calls_from("openai", message)
        if not calls:
            return len(messages)
        turn = run_turn(snapshot, calls)
        messages += results_for("openai", zip(calls, turn.outcomes, strict=True))
        if turn.end_turn:
            say("(a call was declined: the turn ends and the user decides what next)")
            return len(messages)


def anthropic_loop(host: Host, base_url: str) -> int:
    """The Messages API loop; returns how many messages the conversation has."""
    client = Anthropic(api_key="unused", base_url=base_url)
    messages: list[MessageParam] = [{"role": "user", "content": TASK}]
    while True:
        snapshot = host.snapshot()
        reply = client.messages.create(
            model="scripted",
            max_tokens=1024,
            messages=messages,
            tools=snapshot.definitions_for("anthropic"),
        )
        say(f"assistant: {''.join(b.text for b in reply.content if b.type == 'text')}")
        messages.append({"role": "assistant", "content": reply.content})
        calls = calls_from("anthropic", reply)
        if not calls:
            return len(messages)
        turn = run_turn(snapshot, calls)
        messages += results_for("anthropic", zip(calls, turn.outcomes, strict=True))
        if turn.end_turn:
            say("(a call was declined: the turn ends and the user decides what next)")
            return len(messages)


LOOPS: dict[str, Callable[[Host, str], int]] = {"openai": openai_loop, "anthropic": anthropic_loop}


def describe(outcome: ToolCallOutcome) -> str:
    """``completed``, ``failed (tool.execution)``, ``declined``, ``interrupted``."""
    if outcome.error is not None:
        return f"{outcome.status} ({outcome.error.type})"
    return outcome.status


def shown(outcome: ToolCallOutcome) -> str:
    """The outcome's content as a person reads it: text, and a line per attachment."""
    return "\n".join(
        part.text
        if part.type == "text"
        else f"[{part.mime_type} {part.type}, {len(part.data)} bytes]"
        for part in outcome.content
    )


def say(line: str) -> None:
    print(line, flush=True)


def quoted(text: str) -> str:
    """``text`` indented under the line it belongs to, blank lines included."""
    return "\n".join(f"  |   {line}" if line else "  |" for line in text.split("\n"))


def png(width: int, height: int) -> bytes:
    """A solid red PNG, written by hand so the example needs no imaging library."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def run(provider: str) -> None:
    """One whole conversation with ``provider``'s SDK, in a fresh project."""
    say(f"== {provider} ==")
    with tempfile.TemporaryDirectory(prefix="tooldeck-agent-") as temp:
        root = Path(temp, "project")
        root.mkdir()
        (root / "app.py").write_text(APP)
        (root / "logo.png").write_bytes(png(8, 8))
        user = ScriptedUser(root, ["once", Reject("Don't delete build/, it is shared."), "reject"])
        # plugins=[]: only the built-ins, whatever packs this environment has installed.
        # data_dir: saved outputs and "always" approvals stay in the temp dir too.
        with Host.open(root, plugins=[], asker=user, data_dir=Path(temp, "data")) as host:
            say(f"tools: {', '.join(host.snapshot().names)}")
            server, url = serve(FakeModel(SCRIPT))
            try:
                count = LOOPS[provider](host, url)
            finally:
                server.shutdown()
                server.server_close()
        say(f"app.py now:\n{quoted((root / 'app.py').read_text().rstrip())}")
        say(f"SUMMARY.md exists: {(root / 'SUMMARY.md').exists()}")
        say(f"messages: {count}")


def main(argv: Sequence[str]) -> int:
    providers = list(argv) or list(LOOPS)
    unknown = [p for p in providers if p not in LOOPS]
    if unknown:
        print(f"unknown provider {unknown[0]!r}; choose from {', '.join(LOOPS)}", file=sys.stderr)
        return 2
    for provider in providers:
        run(provider)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
