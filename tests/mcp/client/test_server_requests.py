"""What a mounted server sends besides results reaches the host: its questions go to the
call's own peer when it has one, else the Location's asker, its progress to the calling
tool's ``ctx.progress``, its logs to Python ``logging`` in the call's context; it is
told the client is tooldeck; its schemas are used as written; a handshake answered with
garbage is reported as such.

Against a real server process (``servers/talk_server.py``, the SDK's ``MCPServer``).
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

import tooldeck
from tooldeck import Host, PermissionRequest, ToolCall

from ..conftest import make_project, stdio_server

TALK = stdio_server("talk", "talk_server.py", extra="timeout_s = 60")
ALLOW = '[[permission]]\naction = "talk_*"\neffect = "allow"\n\n'


class Asker:
    def __init__(self, reply: object = "once") -> None:
        self.reply = reply
        self.requests: list[PermissionRequest] = []

    def __call__(self, request: PermissionRequest) -> object:
        self.requests.append(request)
        return self.reply


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_project(tmp_path_factory.mktemp("talk"), ALLOW + TALK)


@pytest.fixture(scope="module")
def host(project: Path) -> Iterator[Host]:
    with Host.open(project, trust=True, mcp_listings="fresh") as opened:
        yield opened


def call(host: Host, name: str, arguments: dict | None = None, **options: object) -> object:
    return host.snapshot().execute_sync(ToolCall("c1", name, arguments or {}), **options)


def test_an_elicitation_reaches_the_asker_and_accepting_fills_in_the_defaults(host):
    asker = Asker("once")
    host.location.asker = asker
    try:
        assert call(host, "talk_ask").content[0].text == "teal 3"
    finally:
        host.location.asker = None
    (request,) = asker.requests
    assert request.action == "elicitation"
    assert request.resources == ("talk",)
    assert request.metadata["message"] == "Which colour?"
    assert request.metadata["mode"] == "form"
    assert set(request.metadata["schema"]["properties"]) == {"colour", "shade"}
    assert request.source["type"] == "tool" and request.source["id"] == "c1"


def test_an_asker_may_fill_in_the_form(host):
    host.location.asker = Asker({"colour": "red"})
    try:
        assert call(host, "talk_ask").content[0].text == "red 3"
    finally:
        host.location.asker = None


def test_a_rejection_declines(host):
    host.location.asker = Asker("reject")
    try:
        assert call(host, "talk_ask").content[0].text == "no answer: decline"
    finally:
        host.location.asker = None


def test_an_asker_that_fails_is_the_servers_error_naming_it(host, caplog):
    """The server hears who failed; why (the host's own business) goes to the log."""

    def failing(request):
        raise RuntimeError("the prompt window crashed")

    host.location.asker = failing
    try:
        with pytest.raises(tooldeck.ToolFailure) as failed, caplog.at_level("WARNING"):
            call(host, "talk_ask")
    finally:
        host.location.asker = None
    assert "tool 'ask'" in str(failed.value)
    assert "the host's asker failed" in str(failed.value)
    assert "crashed" not in str(failed.value)
    assert "the host's asker failed: the prompt window crashed" in caplog.text


class FormPeer:
    """An embedding host's ``Peer`` for a call: it answers the call's questions."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, dict]] = []

    def log(self, level, message):
        pass

    async def elicit(self, message, schema):
        self.asked.append((message, dict(schema)))
        return tooldeck.Elicited("accept", {"colour": "red", "shade": 5})

    async def sample(self, messages, max_tokens, options):
        raise tooldeck.ToolFailure("no model here")


def test_a_call_given_a_peer_has_the_servers_question_answered_by_it(host):
    import anyio

    peer = FormPeer()
    asker = Asker("once")  # not asked: the call's own peer answers first
    host.location.asker = asker
    snapshot = host.snapshot()

    async def scenario():
        scope = snapshot.scope("s", "m", peer=peer)
        return await tooldeck.run_tool_call(snapshot, ToolCall("c1", "talk_ask", {}), scope=scope)

    try:
        outcome = anyio.run(scenario)
    finally:
        host.location.asker = None
    assert outcome.content[0].text == "red 5"
    ((message, schema),) = peer.asked
    assert message == "Which colour?" and set(schema["properties"]) == {"colour", "shade"}
    assert asker.requests == []


def test_without_an_asker_the_server_is_told_no(host, caplog):
    with caplog.at_level(logging.INFO, logger="tooldeck.mcp.talk"):
        assert call(host, "talk_ask").content[0].text == "no answer: decline"
    assert "declined: this host has no asker" in caplog.text


def test_progress_reaches_the_calling_tools_context(host):
    seen: list[dict] = []
    call(host, "talk_work", progress=seen.append)
    assert seen == [
        {"progress": 1.0, "total": 2.0, "message": "halfway"},
        {"progress": 2.0, "total": 2.0, "message": "done"},
    ]


CALL = contextvars.ContextVar("CALL", default="none")


def test_logs_are_python_records_in_the_calling_context(host):
    """A host that forwards a call's log records (by a context variable, say) sees the
    server's messages among them."""
    seen: list[tuple[str, str, str]] = []

    class Recorder(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append((record.levelname, record.getMessage(), CALL.get()))

    recorder = Recorder()
    logger = logging.getLogger("tooldeck.mcp.talk")
    logger.addHandler(recorder)
    token = CALL.set("the call")
    try:
        assert call(host, "talk_work").content[0].text == "worked"
    finally:
        CALL.reset(token)
        logger.removeHandler(recorder)
    assert ("WARNING", "working hard [worker]", "the call") in seen


def test_the_server_is_told_the_client_is_tooldeck(host):
    text = call(host, "talk_client").content[0].text
    assert text == f"tooldeck {tooldeck.__version__}"


def test_arguments_are_judged_by_the_servers_schema_as_written(host):
    """``payload`` declares ``name`` and leaves other keys open: the server accepts an
    extra key, so tooldeck must pass it on rather than refuse (or drop) it."""
    out = call(host, "talk_echo", {"payload": {"name": "x", "extra": 1}})
    assert out.content[0].text == "[('extra', 1), ('name', 'x')]"
    with pytest.raises(tooldeck.ToolFailure, match="name"):
        call(host, "talk_echo", {"payload": {"extra": 1}})  # still checked: name is required


def test_a_handshake_answered_with_garbage_says_so(tmp_path):
    garbage = stdio_server("odd", "garbage_server.py", extra="timeout_s = 3")
    with Host.open(make_project(tmp_path / "p", garbage), trust=True) as host:
        row = next(p for p in host.plugins if p.name == "mcp:odd")
    assert row.status == "failed"
    assert row.reason.startswith(
        "the server answered the handshake with something that is not JSON-RPC: "
        "'this is not JSON-RPC'"
    ), row.reason
