"""A tool's own questions and samples for a 2026-07-28 client: ``tooldeck mcp serve
--http`` in a subprocess answers ``input_required``, and the SDK's own client of that era
answers and retries; the tool runs again with every answer it asked for, in order.

The tests that need no server options of their own share one server (``shared``), each
test's client a session of its own; a test counts only the runs after its start."""

from __future__ import annotations

import base64
import hmac
import json
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import anyio
import httpx2
import mcp.types as types
import pytest
from mcp.client.streamable_http import streamable_http_client

from mcp import Client
from tooldeck import grant_trust, trust_status

from ...ports import free_port
from .test_serve import http_served, http_serving

PACK = """
from tooldeck import TextPart, Tool, ToolResult, hookimpl

NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}

def ran(ctx, what):
    with open(ctx.location.root / "runs.txt", "a") as file:
        file.write(what + "\\n")

async def interview(input, ctx):
    ran(ctx, "interview")
    who = await ctx.elicit(f"Your name, {input.get('title', '')}?", NAME)
    said = await ctx.sample([{"role": "user", "content": f"Greet {who.content['name']}"}],
                            max_tokens=20)
    return ToolResult(f"{who.action} {who.content['name']}: {said.text}")

async def guarded(input, ctx):
    ran(ctx, "guarded")
    await ctx.permission.assert_("guarded", [])
    who = await ctx.elicit("Your name?", NAME)
    return ToolResult(f"guarded for {who.content['name']}")

async def ask_first(input, ctx):
    ran(ctx, "ask_first")
    who = await ctx.elicit("Your name?", NAME)
    await ctx.permission.assert_("ask_first", [])
    return ToolResult(f"acted for {who.content['name']}")

TITLE = {"type": "object", "properties": {"title": {"type": "string"}}}

@hookimpl
def tool_transform(editor):
    for name, fn in [("interview", interview), ("guarded", guarded), ("ask_first", ask_first)]:
        editor.add(Tool(name=name, description=name, input=TITLE, execute=fn, codemode=False))
"""


def make_project(root: Path) -> Path:
    (root / ".tooldeck" / "plugins").mkdir(parents=True)
    (root / ".tooldeck" / "plugins" / "asker.py").write_text(PACK)
    (root / "tooldeck.toml").write_text('[plugins]\nonly = ["local:asker"]\n')
    grant_trust(trust_status(root))
    return root


@pytest.fixture
def project(tooldeck_env):
    """A project of this test's own, for a test that changes it or its server's options."""
    return make_project(tooldeck_env / "project")


class Shared(NamedTuple):
    root: Path
    url: str


@pytest.fixture(scope="module")
def shared(module_env: Path) -> Iterator[Shared]:
    """The project served with no options, for the module's tests that need no others."""
    root = make_project(module_env / "project")
    with http_serving(root, free_port()) as url:
        yield Shared(root, url)


class Answers:
    """The client's side: a user who gives a name, a model that greets, a permission
    answered once; everything asked is noted."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def elicit(self, context, params):
        self.asked.append(params.message)
        if "decision" in params.requested_schema["properties"]:
            return types.ElicitResult(action="accept", content={"decision": "once"})
        return types.ElicitResult(action="accept", content={"name": "Ada"})

    async def sample(self, context, params):
        self.asked.append(params.messages[0].content.text)
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text="Hello!"), model="m"
        )


def runs(root) -> list[str]:
    path = root / "runs.txt"
    return path.read_text().split() if path.exists() else []


def client(url: str, answers: Answers | None = None, http: httpx2.AsyncClient | None = None):
    """The SDK's client (its default, 2026-07-28 era), answering with ``answers``."""
    options = (
        {}
        if answers is None
        else {
            "elicitation_callback": answers.elicit,
            "sampling_callback": answers.sample,
        }
    )
    if http is None:
        return Client(url, **options)
    return Client(streamable_http_client(url, http_client=http), **options)


def bearer(token: str) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"})


def test_a_tool_that_asks_twice_gets_both_answers_on_its_third_run(shared):
    answers = Answers()
    before = len(runs(shared.root))

    async def scenario():
        async with client(shared.url, answers) as c:
            return c.protocol_version, await c.call_tool("interview", {"title": "Dr"})

    version, result = anyio.run(scenario)
    assert version == "2026-07-28"
    assert (result.is_error, result.content[0].text) == (False, "accept Ada: Hello!")
    assert answers.asked == ["Your name, Dr?", "Greet Ada"]  # each asked once
    assert runs(shared.root)[before:] == ["interview"] * 3


def test_permission_and_questions_in_one_call_are_each_asked_once(shared):
    """The permission ask and the tool's own question share the round trip, whichever
    comes first; the permission holds on every run (a resumed run, then a rerun)."""
    answers = Answers()

    async def scenario():
        async with client(shared.url, answers) as c:
            return [
                await c.call_tool("guarded", {}),
                await c.call_tool("ask_first", {}),
            ]

    guarded, ask_first = anyio.run(scenario)
    assert (guarded.is_error, guarded.content[0].text) == (False, "guarded for Ada")
    assert (ask_first.is_error, ask_first.content[0].text) == (False, "acted for Ada")
    assert answers.asked == [
        "Allow 'guarded' on *?",
        "Your name?",
        "Your name?",
        "Allow 'ask_first' on *?",
    ]


async def first_round(c: Client, name: str, arguments: dict) -> types.InputRequiredResult:
    first = await c.session.call_tool(name, arguments, allow_input_required=True)
    assert isinstance(first, types.InputRequiredResult)
    return first


async def answer(c, name, arguments, first, content):
    [key] = first.input_requests
    return await c.session.call_tool(
        name,
        arguments,
        input_responses={key: types.ElicitResult(action="accept", content=content)},
        request_state=first.request_state,
        allow_input_required=True,
    )


def tampered(state: str) -> str:
    """The state with its first answer changed and the seal kept."""
    outer = json.loads(state)
    payload, _, tag = outer["inputs"].partition(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    claims["answers"][0]["answer"]["content"]["name"] = "Mallory"
    forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
    outer["inputs"] = f"{forged}.{tag}"
    return json.dumps(outer)


def test_answers_are_bound_to_the_call_that_asked_them(shared):
    async def scenario():
        async with client(shared.url, Answers()) as c:
            first = await first_round(c, "interview", {"title": "Dr"})
            second = await answer(c, "interview", {"title": "Dr"}, first, {"name": "Ada"})
            assert isinstance(second, types.InputRequiredResult)  # now the sample
            other_call = await answer(c, "interview", {"title": "Mx"}, first, {"name": "Eve"})
            other_tool = await answer(c, "guarded", {"title": "Dr"}, first, {"name": "Eve"})
            forged = await c.session.call_tool(
                "interview",
                {"title": "Dr"},
                request_state=tampered(second.request_state),
                allow_input_required=True,
            )
            return other_call, other_tool, forged

    other_call, other_tool, forged = anyio.run(scenario)
    assert other_call.is_error and "belong to another call" in other_call.content[0].text
    assert other_tool.is_error and "belong to another call" in other_tool.content[0].text
    assert forged.is_error and "were not sealed by this server" in forged.content[0].text


def test_a_permission_answer_sent_twice_points_at_the_question_that_followed(shared):
    """The first answer resumed the call, which stopped at its own question; the same
    answer again replays that record, and says where the call is instead of running."""
    once = {"decision": "once"}
    before = len(runs(shared.root))

    async def scenario():
        async with client(shared.url, Answers()) as c:
            first = await first_round(c, "guarded", {})
            question = await answer(c, "guarded", {}, first, once)
            again = await answer(c, "guarded", {}, first, once)
            return question, again

    question, again = anyio.run(scenario)
    assert isinstance(question, types.InputRequiredResult)
    [asked] = question.input_requests.values()
    assert asked.params.message == "Your name?"
    assert again.is_error and "answer that question" in again.content[0].text
    assert runs(shared.root)[before:] == ["guarded", "guarded"]  # the second answer ran nothing


def test_another_principal_cannot_answer_the_question(project):
    """Bob holds Alice's request state (copied, leaked): his retry is refused, on the
    same server, since the answers are bound to her principal."""
    (project / "tooldeck.toml").write_text(
        '[plugins]\nonly = ["local:asker"]\n'
        '[mcp.serve.principals.alice]\ntoken_env = "ALICE_TOKEN"\n'
        '[mcp.serve.principals.bob]\ntoken_env = "BOB_TOKEN"\n'
    )
    grant_trust(trust_status(project))  # trust covers the config it was given for
    port = free_port()
    tokens = {"ALICE_TOKEN": "alice-secret", "BOB_TOKEN": "bob-secret"}

    async def scenario():
        url = f"http://127.0.0.1:{port}/mcp"
        async with (
            http_served(project, port, env=tokens),
            bearer("alice-secret") as as_alice,
            bearer("bob-secret") as as_bob,
            client(url, Answers(), as_alice) as alice,
            client(url, Answers(), as_bob) as bob,
        ):
            first = await first_round(alice, "ask_first", {})
            stolen = await answer(bob, "ask_first", {}, first, {"name": "Bob"})
            own = await answer(alice, "ask_first", {}, first, {"name": "Alice"})
            return stolen, own

    stolen, own = anyio.run(scenario)
    assert stolen.is_error and "belong to another call" in stolen.content[0].text
    assert isinstance(own, types.InputRequiredResult)  # on to her permission ask


def test_replicas_given_the_same_secret_accept_each_others_rounds(project):
    """Two processes sharing nothing but TOOLDECK_MCP_STATE_SECRET: a question asked by
    one is answered on the other; a replica with another secret refuses the answers."""
    ports = free_port(), free_port()
    third = free_port()
    shared = {"TOOLDECK_MCP_TOKEN": "t0ken", "TOOLDECK_MCP_STATE_SECRET": "shared-" + "s" * 32}
    other = {**shared, "TOOLDECK_MCP_STATE_SECRET": "other-" + "o" * 32}

    async def scenario():
        async with (
            http_served(project, ports[0], env=shared),
            http_served(project, ports[1], env=shared),
            http_served(project, third, env=other),
        ):
            urls = [f"http://127.0.0.1:{p}/mcp" for p in (*ports, third)]
            async with (
                bearer("t0ken") as http,
                client(urls[0], Answers(), http) as a,
                client(urls[1], Answers(), http) as b,
                client(urls[2], Answers(), http) as c,
            ):
                first = await first_round(a, "ask_first", {})
                carried_on = await answer(b, "ask_first", {}, first, {"name": "Ada"})
                elsewhere = await answer(c, "ask_first", {}, first, {"name": "Ada"})
            return carried_on, elsewhere

    carried_on, elsewhere = anyio.run(scenario)
    # replica B took the answer and went on to the permission ask
    assert isinstance(carried_on, types.InputRequiredResult)
    [key] = carried_on.input_requests
    assert key.startswith("permission ")
    assert elsewhere.is_error and "not sealed by this server" in elsewhere.content[0].text


def resealed_with_a_permission(state: str, key: bytes) -> str:
    """The state with a permission answer for ``ask_first`` added, sealed with ``key``:
    what a client could send if it knew the server's key."""
    outer = json.loads(state)
    payload = outer["inputs"].partition(".")[0]
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    claims["granted"].append(["ask_first", [], json.dumps("once")])
    raw = json.dumps(claims, separators=(",", ":"), sort_keys=True).encode()
    tag = hmac.new(key, raw, "sha256").digest()

    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).decode().rstrip("=")

    outer["inputs"] = f"{b64(raw)}.{b64(tag)}"
    return json.dumps(outer)


@pytest.mark.parametrize("secret", [None, "operator-s3cret-" + "x" * 32])
def test_a_client_holding_the_token_cannot_seal_a_permission_answer(project, secret):
    """The seal's key is no function of the bearer token: a client that derives a key
    from its token and seals a permission answer into the state is refused, and the
    permission is still asked."""
    port = free_port()
    env = {"TOOLDECK_MCP_TOKEN": "t0ken"}
    if secret is not None:
        env["TOOLDECK_MCP_STATE_SECRET"] = secret
    guesses = [
        hmac.new(b"t0ken", b"tooldeck mcp serve: input rounds", "sha256").digest(),
        b"t0ken",
    ]

    async def scenario():
        async with http_served(project, port, env=env):
            url = f"http://127.0.0.1:{port}/mcp"
            async with bearer("t0ken") as http, client(url, Answers(), http) as c:
                first = await first_round(c, "ask_first", {})
                [key] = first.input_requests
                results = []
                for guess in guesses:
                    results.append(
                        await c.session.call_tool(
                            "ask_first",
                            {},
                            input_responses={
                                key: types.ElicitResult(action="accept", content={"name": "M"})
                            },
                            request_state=resealed_with_a_permission(first.request_state, guess),
                            allow_input_required=True,
                        )
                    )
                honest = await answer(c, "ask_first", {}, first, {"name": "Ada"})
                return results, honest

    results, honest = anyio.run(scenario)
    for result in results:
        assert result.is_error and "not sealed by this server" in result.content[0].text
    assert isinstance(honest, types.InputRequiredResult)  # the permission is asked
    [asked] = honest.input_requests
    assert asked.startswith("permission ")
    assert runs(project) == ["ask_first", "ask_first"]


def test_a_2026_client_without_the_capability_is_told_so(shared):
    async def scenario():
        async with client(shared.url) as c:
            return await c.call_tool("interview", {})

    result = anyio.run(scenario)
    assert result.is_error
    assert (
        "interview needed to ask its user (elicitation), and this MCP client does not "
        "offer that." in result.content[0].text
    )


class OffForm(Answers):
    """A client whose answer to a form does not fill it in as the form says."""

    async def elicit(self, context, params):
        self.asked.append(params.message)
        return types.ElicitResult(action="accept", content={"name": 7, "admin": True})


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_an_answer_that_does_not_fill_in_the_form_fails_the_call(shared, mode):
    """The tool is given only what its form asked for: an answer of another shape (a
    number for a string) fails the call, naming the question and what was wrong."""
    off = OffForm()

    async def scenario():
        async with Client(
            shared.url, mode=mode, elicitation_callback=off.elicit, sampling_callback=off.sample
        ) as c:
            return await c.call_tool("interview", {"title": "Dr"})

    result = anyio.run(scenario)
    text = result.content[0].text
    assert result.is_error, text
    assert "The MCP client's answer to 'Your name, Dr?' does not fill in its form" in text
    assert "name" in text
    assert off.asked == ["Your name, Dr?"]  # nothing after it: the call stopped there


def test_an_answer_of_the_wrong_kind_is_refused_saying_so(shared):
    """A model's message sent where the user's answer to a form was asked for."""

    async def scenario():
        async with client(shared.url, Answers()) as c:
            first = await first_round(c, "interview", {"title": "Dr"})
            [key] = first.input_requests
            sampled = types.CreateMessageResult(
                role="assistant", content=types.TextContent(type="text", text="Ada"), model="m"
            )
            return await c.session.call_tool(
                "interview",
                {"title": "Dr"},
                input_responses={key: sampled},
                request_state=first.request_state,
                allow_input_required=True,
            )

    result = anyio.run(scenario)
    assert result.is_error
    assert result.content[0].text.startswith(
        "The input response 'tooldeck-input-0' this request carries is not the user's answer "
        "to a question (an elicitation result): it cannot be resumed."
    ), result.content[0].text
