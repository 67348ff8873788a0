"""Getting a prompt: arguments checked first, messages of text, parts and embedded
resources, and a clear refusal of what a render must not return."""

from __future__ import annotations

import asyncio

import pytest

from tooldeck import ImagePart, Location, Prompt, PromptArgument, Resource, TextPart, ToolService
from tooldeck.errors import ToolDefectError
from tooldeck.host.call.values import CallScope
from tooldeck.host.features.prompts import (
    PromptArgumentsError,
    PromptMessage,
    PromptNotFound,
    render,
)
from tooldeck.host.features.reading import ResourceContents

PNG = b"\x89PNG\r\n\x1a\n"


def service_with(tmp_path, *prompts):
    service = ToolService(Location(tmp_path, data_dir=tmp_path / "data"))
    service.transform(lambda e: [e.add_prompt(p) for p in prompts], source="pack")
    return service


def get(service, name, arguments=None):
    return asyncio.run(render(service.snapshot(), name, arguments, CallScope("s1"), "get-1"))


def test_a_string_is_one_user_message(tmp_path):
    service = service_with(tmp_path, Prompt("simple", "Simple.", render=lambda a, c: "Hi."))
    rendered = get(service, "simple")
    assert rendered.description == "Simple."
    assert rendered.messages == (PromptMessage("user", TextPart("Hi.")),)


def test_arguments_reach_render_as_strings(tmp_path):
    async def greet(args, ctx):
        return f"arg1={args['arg1']!r}, arg2={args.get('arg2')!r}, {ctx.session_id}"

    prompt = Prompt(
        "args",
        "With arguments.",
        [PromptArgument("arg1", "First", required=True), PromptArgument("arg2")],
        render=greet,
    )
    service = service_with(tmp_path, prompt)
    [message] = get(service, "args", {"arg1": "hello"}).messages
    assert message.content.text == "arg1='hello', arg2=None, s1"


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [({}, r"missing required argument\(s\) 'arg1'"), ({"arg1": "x", "typo": "y"}, "unknown")],
)
def test_arguments_that_do_not_fit_are_refused_before_render(tmp_path, arguments, reason):
    rendered = []
    prompt = Prompt(
        "args",
        "With arguments.",
        [PromptArgument("arg1", required=True)],
        render=lambda a, c: rendered.append(a) or "x",
    )
    with pytest.raises(PromptArgumentsError, match=reason) as raised:
        get(service_with(tmp_path, prompt), "args", arguments)
    assert "it takes: arg1" in str(raised.value)
    assert rendered == []


def test_messages_hold_parts_and_embedded_resources(tmp_path):
    def messages(args, ctx):
        embedded = Resource(args["uri"], "embedded", read=lambda ctx: "Embedded text.")
        return [
            {"role": "user", "content": ImagePart(PNG, "image/png")},
            {"role": "user", "content": embedded},
            {"role": "assistant", "content": "Seen."},
        ]

    prompt = Prompt("mixed", "Mixed.", [PromptArgument("uri", required=True)], render=messages)
    rendered = get(service_with(tmp_path, prompt), "mixed", {"uri": "test://doc"})
    assert rendered.messages == (
        PromptMessage("user", ImagePart(PNG, "image/png")),
        PromptMessage("user", ResourceContents("test://doc", "text/plain", text="Embedded text.")),
        PromptMessage("assistant", TextPart("Seen.")),
    )


def test_an_unknown_prompt_is_not_found(tmp_path):
    with pytest.raises(PromptNotFound):
        get(service_with(tmp_path), "nope")


@pytest.mark.parametrize(
    ("returned", "reason"),
    [
        (42, "must return a str or a list of messages"),
        ([{"role": "system", "content": "x"}], "a prompt message must be"),
        ([{"role": "user", "content": 42}], "content must be a str"),
    ],
)
def test_a_render_returning_something_else_is_a_defect(tmp_path, returned, reason):
    prompt = Prompt("bad", "Bad.", render=lambda a, c: returned)
    with pytest.raises(ToolDefectError, match=reason):
        get(service_with(tmp_path, prompt), "bad")
