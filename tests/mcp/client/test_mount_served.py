"""A mounted server's resources and prompts are served on by ``tooldeck mcp serve``, and
its questions during a served call reach the client of that call.

Real processes all the way: an SDK client → ``tooldeck mcp serve --http`` (one per
project, each test's client a session of its own) → the mounted
``servers/features_server.py`` (stdio).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from mcp import Client
from mcp import types as mcp_types

from ...ports import free_port
from ..conftest import stdio_server, trusted_project
from ..serve.test_serve import http_serving

CONFIG = (
    stdio_server("features", "features_server.py", extra="timeout_s = 60")
    + '[[permission]]\naction = "features_*"\neffect = "allow"\n'
    + '[[permission]]\naction = "resource"\nresource = "*"\neffect = "allow"\n'
)
RESOURCES_CHANGED = "notifications/resources/list_changed"
PROMPTS_CHANGED = "notifications/prompts/list_changed"


@pytest.fixture(scope="module")
def project(module_env: Path) -> Path:
    return trusted_project(module_env / "project", CONFIG)


def test_resources_and_prompts_are_served_on_and_their_changes_heard(url):
    heard: list[str] = []

    async def note(message):
        heard.append(getattr(message, "method", type(message).__name__))

    async def scenario():
        async with Client(url, mode="legacy", message_handler=note) as c:
            resources = (await c.list_resources()).resources
            templates = (await c.list_resource_templates()).resource_templates
            prompts = (await c.list_prompts()).prompts
            greeting = (await c.read_resource("greeting://bob")).contents[0]
            logo = (await c.read_resource("info://logo")).contents[0]
            pair = (await c.read_resource("info://pair")).contents
            shown = await c.get_prompt("features_show")
            review = await c.get_prompt("features_review", {"path": "a.py", "focus": "style"})
            await c.call_tool("features_add_note", {"name": "n1", "text": "milk"})
            with anyio.fail_after(60):  # the list changes first, then clients are told
                while not {RESOURCES_CHANGED, PROMPTS_CHANGED} <= set(heard):
                    await anyio.sleep(0.1)
            assert "note://n1" in [str(r.uri) for r in (await c.list_resources()).resources]
            note_text = (await c.read_resource("note://n1")).contents[0].text
            return resources, templates, prompts, greeting, logo, pair, shown, review, note_text

    resources, templates, prompts, greeting, logo, pair, shown, review, note_text = anyio.run(
        scenario
    )
    names = {str(r.uri): r.name for r in resources}
    assert names["info://readme"] == "features_readme"
    assert [(t.uri_template, t.name) for t in templates] == [
        ("greeting://{who}", "features_greeting")
    ]
    assert {"features_review", "features_show"} <= {p.name for p in prompts}
    assert (greeting.text, greeting.mime_type) == ("hello bob", "text/plain")
    assert logo.mime_type == "image/png" and logo.blob
    assert [(c.mime_type, getattr(c, "text", None)) for c in pair] == [
        ("text/plain", "one"),
        ("application/octet-stream", None),
    ]
    embedded, image = shown.messages
    assert (str(embedded.content.resource.uri), embedded.content.resource.text) == (
        "info://readme",
        "inline",
    )
    assert image.content.type == "image"
    assert review.messages[0].content.text == "Review a.py for style."
    assert note_text == "milk"


def test_a_mounted_servers_question_goes_to_the_client_of_the_served_call(url):
    asked = []

    async def answer(context, params):
        asked.append(params)
        return mcp_types.ElicitResult(action="accept", content={"colour": "red"})

    async def scenario():
        async with Client(url, mode="legacy", elicitation_callback=answer) as c:
            return await c.call_tool("features_ask", {})

    result = anyio.run(scenario)
    assert result.content[0].text == "colour red"
    (params,) = asked
    assert params.message == "Which colour?"
    assert params.requested_schema["properties"]["colour"]["default"] == "teal"


def test_a_client_that_cannot_be_asked_leaves_the_question_to_the_hosts_asker(url):
    async def scenario():
        async with Client(url, mode="legacy") as c:
            return await c.call_tool("features_ask", {})

    # tooldeck mcp serve's asker asks only the client of a call; this one cannot be asked.
    assert anyio.run(scenario).content[0].text == "no answer: decline"


# -- a mounted server's question over HTTP, both eras on both sides ------------------------
MODERN_CONFIG = (
    stdio_server("features", "features_server.py", "--modern", extra="timeout_s = 60")
    + '[[permission]]\naction = "features_*"\neffect = "allow"\n'
)


@pytest.fixture(scope="module")
def modern_url(module_env: Path) -> Iterator[str]:
    """A project mounting the features server in the 2026-07-28 era, served over HTTP."""
    root = trusted_project(module_env / "modern", MODERN_CONFIG)
    with http_serving(root, free_port(), "--no-codemode") as address:
        yield address


class Colours:
    """A serving client's user, who answers the mounted server's form."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def elicit(self, context, params):
        self.asked.append(params.message)
        assert params.requested_schema["properties"]["colour"]["default"] == "teal"
        return mcp_types.ElicitResult(action="accept", content={"colour": "plum"})


@pytest.mark.parametrize(
    ("era", "client_mode"),
    [
        ("handshake", "legacy"),
        ("modern", "auto"),
        ("handshake", "auto"),
        ("modern", "legacy"),
    ],
)
def test_a_mounted_servers_question_reaches_the_serving_client_of_either_era(
    request, era, client_mode
):
    url = request.getfixturevalue("url" if era == "handshake" else "modern_url")
    colours = Colours()

    async def scenario():
        async with Client(url, mode=client_mode, elicitation_callback=colours.elicit) as c:
            return c.protocol_version, await c.call_tool("features_pick", {})

    version, result = anyio.run(scenario)
    assert (version == "2026-07-28") == (client_mode == "auto")
    assert (result.is_error, result.content[0].text) == (False, "colour plum")
    assert colours.asked == ["Which colour?"]  # asked once, answered in the next round
