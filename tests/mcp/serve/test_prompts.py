"""``prompts/*`` and ``completion/complete`` served from a client's view."""

from __future__ import annotations

import base64

import anyio
import pytest

from mcp import Client, MCPError
from mcp import types as mcp_types

from ..conformance.pack import PNG
from ..conformance.serving import served


def legacy(server):
    return Client(server.server, mode="legacy")


def test_listed_prompts_with_their_arguments(tooldeck_env):
    async def scenario(server):
        async with legacy(server) as client:
            return (await client.list_prompts()).prompts

    with served(tooldeck_env / "p") as server:
        prompts = {p.name: p for p in anyio.run(scenario, server)}
    assert sorted(prompts) == [
        "test_prompt_with_arguments",
        "test_prompt_with_embedded_resource",
        "test_prompt_with_image",
        "test_simple_prompt",
    ]
    arguments = prompts["test_prompt_with_arguments"].arguments
    assert [(a.name, a.description, a.required) for a in arguments] == [
        ("arg1", "First test argument", True),
        ("arg2", "Second test argument", True),
    ]


def test_getting_prompts_with_arguments_images_and_embedded_resources(tooldeck_env):
    async def scenario(server):
        async with legacy(server) as client:
            simple = await client.get_prompt("test_simple_prompt")
            with_args = await client.get_prompt(
                "test_prompt_with_arguments", {"arg1": "hello", "arg2": "world"}
            )
            embedded = await client.get_prompt(
                "test_prompt_with_embedded_resource", {"resourceUri": "test://doc"}
            )
            image = await client.get_prompt("test_prompt_with_image")
            return simple, with_args, embedded, image

    with served(tooldeck_env / "p") as server:
        simple, with_args, embedded, image = anyio.run(scenario, server)
    assert simple.description == "A prompt without arguments."
    assert simple.messages[0].content.text == "This is a simple prompt for testing."
    assert with_args.messages[0].content.text == (
        "Prompt with arguments: arg1='hello', arg2='world'"
    )
    resource = embedded.messages[0].content.resource
    assert (resource.uri, resource.mime_type, resource.text) == (
        "test://doc",
        "text/plain",
        "Embedded resource content for testing.",
    )
    assert embedded.messages[1].content.text == "Please process the embedded resource above."
    picture = image.messages[0].content
    assert (picture.type, base64.b64decode(picture.data)) == ("image", PNG)


@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        ("nope", None, "Unknown prompt: nope"),
        ("test_prompt_with_arguments", {"arg1": "x"}, "missing required argument(s) 'arg2'"),
    ],
)
def test_what_does_not_fit_is_a_protocol_error(tooldeck_env, name, arguments, message):
    async def scenario(server):
        async with legacy(server) as client:
            with pytest.raises(MCPError) as raised:
                await client.get_prompt(name, arguments)
            return raised.value

    with served(tooldeck_env / "p") as server:
        error = anyio.run(scenario, server)
    assert error.code == -32602 and message in error.message


def test_completions_for_prompt_arguments_and_template_variables(tooldeck_env):
    async def scenario(server):
        async with legacy(server) as client:
            prompt = await client.complete(
                mcp_types.PromptReference(type="ref/prompt", name="test_prompt_with_arguments"),
                {"name": "arg1", "value": "par"},
            )
            template = await client.complete(
                mcp_types.ResourceTemplateReference(
                    type="ref/resource", uri="test://template/{id}/data"
                ),
                {"name": "id", "value": "4"},
            )
            nothing = await client.complete(
                mcp_types.PromptReference(type="ref/prompt", name="test_prompt_with_arguments"),
                {"name": "arg2", "value": ""},
            )
            return prompt.completion, template.completion, nothing.completion

    with served(tooldeck_env / "p") as server:
        prompt, template, nothing = anyio.run(scenario, server)
    assert (prompt.values, prompt.total, prompt.has_more) == (["paris", "park"], 2, False)
    assert template.values == ["456"]
    assert nothing.values == []
