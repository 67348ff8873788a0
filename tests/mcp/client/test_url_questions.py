"""A mounted server's URL-mode question (MCP 2025-11-25) during a call: it reaches the
client of a served call that declared URL elicitation, in either protocol era, and the
server's ``notifications/elicitation/complete`` follows it there; everywhere else it
goes to the Location's asker, as before.

Real processes: an SDK client → ``tooldeck mcp serve --http`` (one for the module, each
test's client a session of its own) → the mounted ``servers/talk_server.py`` (stdio,
handshake era), whose ``connect`` tool sends its user to a sign-in page. A hand-written
JSON-RPC client, for a client that declares only part of elicitation, speaks to a
``tooldeck mcp serve`` over stdio of its own.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

import tooldeck
from mcp import Client
from mcp import types as mcp_types
from tooldeck import Host, ToolCall
from tooldeck.mcp.client.url_questions import asked_id
from tooldeck.testing import ScriptedAsker

from ..conftest import stdio_server, trusted_project
from ..serve.test_serve import TOOLDECK

CONFIG = stdio_server("talk", "talk_server.py", extra="timeout_s = 60") + (
    '[[permission]]\naction = "talk_*"\neffect = "allow"\n'
)
SIGN_IN = "https://acme.example/signin?session=42"
OURS = "talk.signin-42"
"""The id the serving client is asked under: the mounted server's, named by its server."""


@pytest.fixture(scope="module")
def project(module_env: Path) -> Path:
    return trusted_project(module_env / "project", CONFIG)


class User:
    """A serving client's user: answers URL questions, and hears they are complete."""

    def __init__(self, action: str = "accept") -> None:
        self.action = action
        self.asked: list[mcp_types.ElicitRequestURLParams] = []
        self.completed: list[str] = []

    async def elicit(self, context, params):
        assert params.mode == "url", params
        self.asked.append(params)
        return mcp_types.ElicitResult(action=self.action)

    async def note(self, message):
        if isinstance(message, mcp_types.ElicitCompleteNotification):
            self.completed.append(message.params.elicitation_id)


def connect(url: str, user: User, mode: str) -> tuple[str | None, object]:
    async def scenario():
        async with Client(
            url, mode=mode, elicitation_callback=user.elicit, message_handler=user.note
        ) as client:
            result = await client.call_tool("talk_connect", {})
            if user.action == "accept" and mode == "legacy":
                with anyio.fail_after(30):  # delivery may trail the result a little
                    while not user.completed:
                        await anyio.sleep(0.05)
            return client.protocol_version, result

    return anyio.run(scenario)


def test_a_handshake_era_client_is_sent_to_the_url_and_told_when_it_is_done(url):
    user = User()
    version, result = connect(url, user, "legacy")
    assert version != "2026-07-28"
    assert (result.is_error, result.content[0].text) == (False, "signed in")
    (asked,) = user.asked
    assert (asked.message, asked.url, asked.elicitation_id) == ("Sign in to Acme", SIGN_IN, OURS)
    assert user.completed == [OURS]


def test_a_2026_client_answers_the_url_question_in_an_input_required_round(url):
    user = User()
    version, result = connect(url, user, "auto")
    assert version == "2026-07-28"
    assert (result.is_error, result.content[0].text) == (False, "signed in")
    (asked,) = user.asked  # asked once; the server's second asking got the answer
    assert (asked.message, asked.url) == ("Sign in to Acme", SIGN_IN)
    assert user.completed == []  # that era has no completion notification


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_a_declined_url_question_is_declined_at_the_server(url, mode):
    user = User("decline")
    _, result = connect(url, user, mode)
    assert result.content[0].text == "not signed in: decline"
    assert len(user.asked) == 1


def test_a_client_without_elicitation_leaves_it_to_the_hosts_asker(url):
    async def scenario():
        async with Client(url, mode="legacy") as client:
            return await client.call_tool("talk_connect", {})

    # tooldeck mcp serve's asker asks only a call's own permission questions: declined.
    assert anyio.run(scenario).content[0].text == "not signed in: decline"


def test_a_client_offering_forms_only_is_not_sent_to_a_url(project):
    """A client that declares ``elicitation: {form: {}}`` (no ``url``) never gets the URL
    question: the asker declines it, as before."""
    messages = handshake_then_calls({"form": {}}, "forms-only", "talk_connect")
    received = anyio.run(raw_exchange, project, messages, 2)
    requests = [m for m in received if "method" in m and "id" in m]
    assert requests == [], requests  # no elicitation/create reached this client
    (answer,) = [m for m in received if m.get("id") == 2]
    assert answer["result"]["content"][0]["text"] == "not signed in: decline"


def test_a_client_offering_urls_only_gets_url_questions_and_no_forms(project):
    """``elicitation: {url: {}}`` declares no forms (a bare ``{}`` would): the mounted
    server's form goes to the asker (declined), its URL question to the client."""
    messages = handshake_then_calls({"url": {}}, "urls-only", "talk_ask", "talk_connect")
    received = anyio.run(raw_exchange, project, messages, 3, {"action": "accept"})
    asked = [m["params"] for m in received if m.get("method") == "elicitation/create"]
    assert [(a["mode"], a["url"], a["elicitationId"]) for a in asked] == [("url", SIGN_IN, OURS)]
    answers = {
        m["id"]: m["result"]["content"][0]["text"]
        for m in received
        if m.get("id") in (2, 3) and "method" not in m
    }
    assert (answers[2], answers[3]) == ("no answer: decline", "signed in")


def handshake_then_calls(elicitation: dict, name: str, *tools: str) -> list[dict]:
    """A handshake-era client's messages by hand: ``initialize`` declaring
    ``elicitation`` and nothing else, then a ``tools/call`` of each of ``tools`` (ids 2,
    3, ...)."""
    hello = {
        "protocolVersion": "2025-11-25",
        "capabilities": {"elicitation": elicitation},
        "clientInfo": {"name": name, "version": "1"},
    }
    calls = [
        {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": t, "arguments": {}}}
        for n, t in enumerate(tools, start=2)
    ]
    return [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        *calls,
    ]


async def raw_exchange(
    project: Path, messages: list[dict], last_id: int, answer: dict | None = None
) -> list[dict]:
    """Speak JSON-RPC to ``tooldeck mcp serve`` over stdio by hand; every message it
    sent until the answer to ``last_id``. A request it sends is answered ``answer``."""
    env = {
        **{k: v for k, v in os.environ.items() if k.startswith(("XDG_", "TOOLDECK_TRUST"))},
        "PYTHONPATH": os.pathsep.join(sys.path),
        "PATH": os.environ.get("PATH", ""),
    }
    command = [*TOOLDECK, "mcp", "serve", "--location", str(project), "--no-codemode"]
    received: list[dict] = []
    async with await anyio.open_process(command, env=env) as process:
        assert process.stdin is not None and process.stdout is not None
        lines = _lines(process.stdout)
        with anyio.fail_after(90):
            for message in messages:
                await process.stdin.send((json.dumps(message) + "\n").encode())
                if "id" not in message:
                    continue
                while True:
                    got = json.loads(await lines.__anext__())
                    received.append(got)
                    if "method" in got and "id" in got:  # the server asks us
                        reply = {"jsonrpc": "2.0", "id": got["id"], "result": answer or {}}
                        await process.stdin.send((json.dumps(reply) + "\n").encode())
                    if got.get("id") == message["id"] and "method" not in got:
                        break
        await process.stdin.aclose()
        process.terminate()
    assert received[-1].get("id") == last_id
    return received


async def _lines(stream):
    buffer = b""
    async for chunk in stream:
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            if line.strip():
                yield line.decode()


# -- no serving client: the Location's asker, or a host's own Peer ---------------------------
@pytest.fixture(scope="module")
def host(project: Path) -> Iterator[Host]:
    with Host.open(project, trust=True, mcp_listings="fresh") as opened:
        yield opened


def test_a_call_no_client_serves_asks_the_hosts_asker_with_the_url(host):
    asker = ScriptedAsker()
    host.location.asker = asker
    try:
        out = host.snapshot().execute_sync(ToolCall("c1", "talk_connect", {}))
    finally:
        host.location.asker = None
    assert out.content[0].text == "signed in"
    (request,) = asker.requests
    assert request.action == "elicitation"
    assert dict(request.metadata) | {"server": "talk"} == {
        "server": "talk",
        "message": "Sign in to Acme",
        "mode": "url",
        "url": SIGN_IN,
    }


class UrlPeer:
    """An embedding host's ``Peer`` that also sends its user to URLs."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, str, str | None]] = []
        self.completed: list[str] = []

    def log(self, level, message):
        pass

    async def elicit(self, message, schema):
        raise tooldeck.ToolFailure("no forms here")

    async def sample(self, messages, max_tokens, options):
        raise tooldeck.ToolFailure("no model here")

    async def elicit_url(self, message, url, elicitation_id):
        self.asked.append((message, url, elicitation_id))
        return tooldeck.Elicited("accept")

    def elicitation_complete(self, elicitation_id):
        self.completed.append(elicitation_id)


class FormsOnlyPeer(UrlPeer):
    elicit_url = None  # type: ignore[assignment]  # a peer written for forms alone
    elicitation_complete = None  # type: ignore[assignment]


def run_with_peer(host: Host, peer: object) -> object:
    snapshot = host.snapshot()

    async def scenario():
        scope = snapshot.scope("s", "m", peer=peer)
        call = ToolCall("c1", "talk_connect")
        outcome = await tooldeck.run_tool_call(snapshot, call, scope=scope)
        with anyio.fail_after(30):  # the completion comes from the server's loop
            while isinstance(peer, UrlPeer) and peer.elicit_url and not peer.completed:
                await anyio.sleep(0.05)
        return outcome

    return anyio.run(scenario)


def test_a_hosts_peer_with_elicit_url_answers_and_hears_the_completion(host):
    peer = UrlPeer()
    asker = ScriptedAsker(default="reject")  # not asked: the call's peer answers
    host.location.asker = asker
    try:
        outcome = run_with_peer(host, peer)
    finally:
        host.location.asker = None
    assert outcome.content[0].text == "signed in"
    assert peer.asked == [("Sign in to Acme", SIGN_IN, OURS)]
    assert peer.completed == [OURS]
    assert asker.requests == []


def test_a_hosts_peer_without_elicit_url_leaves_it_to_the_asker(host):
    asker = ScriptedAsker()
    host.location.asker = asker
    try:
        outcome = run_with_peer(host, FormsOnlyPeer())
    finally:
        host.location.asker = None
    assert outcome.content[0].text == "signed in"
    assert [r.metadata["mode"] for r in asker.requests] == ["url"]


# -- a hostile server's pages ------------------------------------------------------------------
HOSTILE = {
    "javascript": ("javascript:alert(document.cookie)", "'javascript'"),
    "file": ("file:///etc/passwd", "'file'"),
    "data": ("data:text/html,<script>alert(1)</script>", "'data'"),
    "credentials": ("https://admin:hunter2@acme.example/signin", "credentials"),
    "plain-http": ("http://acme.example/signin", "'http'"),
    "control": ("https://acme.example/sign\x1b[2Jin", "control"),
    "no-host": ("https:///signin", "no host"),
}
"""Pages no user should be sent to, and what the refusal says of each."""


def go(served: str, user: User, mode: str, **arguments: str) -> str:
    async def scenario():
        async with Client(served, mode=mode, elicitation_callback=user.elicit) as client:
            result = await client.call_tool("talk_go", arguments)
            return result.content[0].text

    return anyio.run(scenario)


@pytest.mark.parametrize("page, why", HOSTILE.values(), ids=HOSTILE)
def test_a_page_no_user_should_open_is_refused_to_its_server_unasked(url, page, why):
    user = User()
    text = go(url, user, "legacy", url=page)
    assert user.asked == []
    assert text.startswith("not sent: tooldeck did not send the user to this page: "), text
    assert why in text
    assert "hunter2" not in text and "\x1b" not in text


def test_a_2026_client_is_not_asked_to_open_such_a_page_either(url):
    user = User()
    text = go(url, user, "auto", url=HOSTILE["javascript"][0])
    assert user.asked == []
    assert "'javascript'" in text


def test_http_to_this_machine_is_a_page_like_any_other(url):
    user = User()
    text = go(url, user, "legacy", url="http://127.0.0.1:8080/signin")
    assert text == "went: accept"
    assert [a.url for a in user.asked] == ["http://127.0.0.1:8080/signin"]


def test_a_pages_message_reaches_the_client_without_control_characters_and_bounded(url):
    user = User()
    message = "Sign in\x1b[2J\u202egnp.exe\n" + "x" * 100_000
    go(url, user, "legacy", url=SIGN_IN, message=message)
    (asked,) = user.asked
    assert asked.message.startswith("Sign in [2J gnp.exe ")
    assert len(asked.message) <= 1000


def test_the_hosts_asker_is_not_asked_to_open_such_a_page(host):
    asker = ScriptedAsker()
    host.location.asker = asker
    try:
        out = host.snapshot().execute_sync(
            ToolCall("c1", "talk_go", {"url": HOSTILE["file"][0], "message": "Look\x1b[31m"})
        )
    finally:
        host.location.asker = None
    assert asker.requests == []
    assert "'file'" in out.content[0].text


class BrokenPeer(UrlPeer):
    """A host's ``Peer`` whose ``elicit_url`` fails with a text meant for the host alone."""

    async def elicit_url(self, message, url, elicitation_id):
        raise RuntimeError("cannot reach the browser bridge at 10.0.0.7 (token s3cr3t)")


def test_a_peer_that_fails_tells_the_server_nothing_of_why(host, caplog):
    """The server hears that no one answered; why stays in the host's own log."""
    snapshot = host.snapshot()

    async def scenario():
        scope = snapshot.scope("s", "m", peer=BrokenPeer())
        call = ToolCall("c1", "talk_go", {"url": SIGN_IN})
        return await tooldeck.run_tool_call(snapshot, call, scope=scope)

    with caplog.at_level("WARNING", logger="tooldeck.mcp.talk"):
        outcome = anyio.run(scenario)
    text = outcome.content[0].text
    assert text == "not sent: the question was not answered", text
    assert "s3cr3t" in caplog.text and "'talk'" in caplog.text


def test_two_servers_ids_never_meet_in_the_id_a_client_is_asked_under():
    pairs = [("a.b", "c"), ("a", "b.c"), ("a%2Eb", "c"), ("talk", "signin-42"), ("a.", ".c")]
    asked = [asked_id(server, theirs) for server, theirs in pairs]
    assert len(set(asked)) == len(pairs), asked
    assert asked_id("talk", "signin-42") == OURS  # a plain name reads as it is written
