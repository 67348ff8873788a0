"""A resource read and a prompt that ask their user, served to a 2026-07-28 client: the
question goes out as an ``input_required`` round, as a tool call's does, and the
retry carrying the answer is read (or rendered) with it; answers sealed for one URI
or prompt do not open another; a read's permission ask is asked in its round too."""

from __future__ import annotations

import json

import anyio
import pytest

from mcp import Client, MCPError
from mcp import types as mcp_types
from tooldeck import Prompt, PromptArgument, Resource, ResourceTemplate, hookimpl

from ..conformance.serving import served
from .test_resources import ASK_RESOURCES

COLOUR = {
    "type": "object",
    "properties": {"colour": {"type": "string", "description": "Your favourite colour"}},
    "required": ["colour"],
}


async def favourite(ctx) -> str:
    answer = await ctx.elicit("Which colour?", COLOUR)
    return answer.content["colour"] if answer.action == "accept" else f"no answer ({answer.action})"


class Asking:
    """A pack whose resource, template and prompt each ask for a colour first."""

    @hookimpl
    def tool_transform(self, editor):
        async def read(ctx):
            return f"the walls are {await favourite(ctx)}"

        async def read_room(params, ctx):
            return f"room {params['room']} is {await favourite(ctx)}"

        async def render(args, ctx):
            return f"Paint the {args['thing']} {await favourite(ctx)}."

        editor.add_resource(Resource("ask://walls", "walls", "The walls' colour.", read=read))
        editor.add_resource(
            ResourceTemplate("ask://rooms/{room}", "rooms", "A room's colour.", read=read_room)
        )
        editor.add_prompt(
            Prompt(
                "paint",
                "Paint something.",
                [PromptArgument("thing", "What to paint", required=True)],
                render=render,
            )
        )


def modern(server, **callbacks):
    return Client(server.server, mode="auto", **callbacks)


def test_a_read_and_a_prompt_ask_a_2026_client_in_a_round(tooldeck_env):
    asked = []

    async def answer(context, params):
        asked.append(params.message)
        return mcp_types.ElicitResult(action="accept", content={"colour": "teal"})

    async def scenario(server):
        async with modern(server, elicitation_callback=answer) as client:
            walls = await client.read_resource("ask://walls")
            room = await client.read_resource("ask://rooms/7")
            paint = await client.get_prompt("paint", {"thing": "door"})
            return client.protocol_version, walls, room, paint

    with served(tooldeck_env / "p", plugins=(Asking(),)) as server:
        version, walls, room, paint = anyio.run(scenario, server)
    assert version == "2026-07-28"
    assert walls.contents[0].text == "the walls are teal"
    assert room.contents[0].text == "room 7 is teal"
    assert paint.messages[0].content.text == "Paint the door teal."
    assert asked == ["Which colour?"] * 3  # once each: the retry is answered


def test_a_round_answered_for_one_uri_or_prompt_opens_no_other(tooldeck_env):
    """The state of a read of room 1 carries the user's answer; sent with a read of room
    2 (or a prompt's with other arguments) it is refused, not taken as that one's."""

    async def unasked(context, params):  # declares elicitation; the test answers itself
        raise AssertionError("the rounds are driven by hand here")

    async def scenario(server):
        async with modern(server, elicitation_callback=unasked) as client:
            session = client.session
            first = await session.read_resource("ask://rooms/1", allow_input_required=True)
            assert isinstance(first, mcp_types.InputRequiredResult)
            [key] = first.input_requests
            responses = {key: {"action": "accept", "content": {"colour": "red"}}}
            resumed = await session.read_resource(
                "ask://rooms/1",
                input_responses=responses,
                request_state=first.request_state,
                allow_input_required=True,
            )
            with pytest.raises(MCPError) as other_room:
                await session.read_resource(
                    "ask://rooms/2",
                    input_responses=responses,
                    request_state=first.request_state,
                    allow_input_required=True,
                )
            asking = await session.get_prompt("paint", {"thing": "door"}, allow_input_required=True)
            assert isinstance(asking, mcp_types.InputRequiredResult)
            with pytest.raises(MCPError) as other_thing:
                await session.get_prompt(
                    "paint",
                    {"thing": "fence"},
                    input_responses=responses,
                    request_state=asking.request_state,
                    allow_input_required=True,
                )
            return first, resumed, other_room.value, other_thing.value

    with served(tooldeck_env / "p", plugins=(Asking(),)) as server:
        first, resumed, other_room, other_thing = anyio.run(scenario, server)
    [question] = first.input_requests.values()
    assert question.params.message == "Which colour?"
    assert "tool" not in json.loads(first.request_state)  # a read: no pending tool call
    assert resumed.contents[0].text == "room 1 is red"
    assert "belong to another call" in other_room.error.message
    assert "Reading ask://rooms/2 failed" in other_room.error.message
    assert "belong to another call" in other_thing.error.message
    assert "Prompt paint failed" in other_thing.error.message
    # the client sent a state that is not this request's: its params are at fault
    assert other_room.error.code == other_thing.error.code == mcp_types.INVALID_PARAMS


def test_a_read_asks_a_2026_client_its_permission_in_a_round(tooldeck_env):
    """Where a tool call defers its ask as a pending call, a read asks it in its round."""
    asked = []

    async def answer(context, params):
        asked.append(params.message)
        return mcp_types.ElicitResult(action="accept", content={"decision": "once"})

    async def scenario(server):
        async with modern(server, elicitation_callback=answer) as client:
            return (await client.read_resource("test://static-text")).contents[0].text

    with served(tooldeck_env / "p", ASK_RESOURCES) as server:
        text = anyio.run(scenario, server)
    assert text.startswith("This is the content")
    assert asked == ["Allow 'resource' on test://static-text?"]
