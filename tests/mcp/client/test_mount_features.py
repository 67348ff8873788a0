"""A mounted server's resources, templates and prompts join the catalog like its tools:
namespaced, read and got through the host, permission-checked, overridable by a later
plugin (revealed when it goes), followed when the server's lists change; a server that
offers none costs nothing. Against a real server process (``servers/features_server.py``).
"""

from __future__ import annotations

import asyncio

import pytest

from tooldeck import ImagePart, Resource, TextPart, ToolCall
from tooldeck.host.features import prompts, reading
from tooldeck.host.features.completion import complete_prompt
from tooldeck.testing import ScriptedAsker

from ..conftest import make_project, stdio_server, wait_for

CONFIG = (
    stdio_server("features", "features_server.py")
    + stdio_server("twin", "features_server.py")
    + stdio_server("calc", "calc_server.py")
    + '[[permission]]\naction = "features_*"\neffect = "allow"\n'
    + '[[permission]]\naction = "resource"\nresource = "greeting://*"\neffect = "allow"\n'
)


@pytest.fixture(scope="module")
def asker():
    return ScriptedAsker()


@pytest.fixture(scope="module")
def host(module_env, asker):
    from tooldeck import Host

    root = make_project(module_env / "project", CONFIG)
    with Host.open(root, asker=asker, trust=True, mcp_listings="fresh") as opened:
        yield opened


def read(snapshot, uri):
    scope = snapshot.scope(snapshot.session_id or "s", "m", via="host")
    return asyncio.run(reading.read(snapshot, None, uri, scope, "r1"))


def render(snapshot, name, arguments=None):
    scope = snapshot.scope(snapshot.session_id or "s", "m", via="host")
    return asyncio.run(prompts.render(snapshot, name, arguments, scope, "p1"))


def test_resources_keep_the_servers_uris_and_take_the_namespace_on_their_names(host):
    catalog = host.snapshot().catalog
    readme = catalog.resources["info://readme"]
    assert (readme.resource.name, readme.resource.description) == (
        "features_readme",
        "What this server is.",
    )
    assert readme.source == "mcp"
    template = catalog.resources["greeting://{who}"].resource
    assert (template.name, template.mime_type) == ("features_greeting", "text/plain")
    assert {"features_review", "features_show"} <= set(catalog.prompts)
    review = catalog.prompts["features_review"].prompt
    assert [(a.name, a.required) for a in review.arguments] == [("path", True), ("focus", False)]


def test_reads_reach_the_server_with_its_mime_types(host):
    snapshot = host.snapshot()
    assert read(snapshot, "info://readme").text == "a server with resources and prompts"
    greeting = read(snapshot, "greeting://a%20b")
    assert (greeting.uri, greeting.text) == ("greeting://a%20b", "hello a b")


def test_a_read_of_several_contents_keeps_them_all(host):
    pair = read(host.snapshot(), "info://pair")
    assert (pair.uri, pair.text) == ("info://pair", "one")
    (two,) = pair.more
    assert (two.mime_type, two.blob) == ("application/octet-stream", b"two")


def test_a_read_asks_the_resource_permission_on_its_uri(host, asker):
    from tooldeck import PermissionDeclined

    asker.requests.clear()
    read(host.snapshot(), "info://readme")  # no rule allows info://: asked
    (request,) = asker.requests
    assert (request.action, request.resources) == ("resource", ("info://readme",))
    asker.replies["resource"] = "reject"
    try:
        with pytest.raises(PermissionDeclined):
            read(host.snapshot(), "info://readme")
    finally:
        del asker.replies["resource"]
    with pytest.raises(reading.ResourceNotFound):
        read(host.snapshot(), "note://nothing")


def test_a_later_plugin_overrides_a_mounted_resource_and_its_removal_reveals_it(host):
    with host.session("override") as session:
        session.transform(
            lambda editor: editor.add_resource(
                Resource("info://logo", "local logo", read=lambda ctx: "a local logo")
            ),
            source="test",
        )
        overridden = host.snapshot(session="override")
        assert read(overridden, "info://logo").text == "a local logo"
    logo = read(host.snapshot(), "info://logo")
    assert (logo.mime_type, logo.blob[:4]) == ("image/png", b"\x89PNG")


def test_prompts_render_through_the_server(host):
    snapshot = host.snapshot()
    review = render(snapshot, "features_review", {"path": "a.py"})
    assert review.messages[0].content == TextPart("Review a.py for bugs.")
    with pytest.raises(prompts.PromptArgumentsError, match="path"):
        render(snapshot, "features_review", {})
    embedded, image = render(snapshot, "features_show").messages
    assert (embedded.content.uri, embedded.content.text) == ("info://readme", "inline")
    assert isinstance(image.content, ImagePart) and image.content.mime_type == "image/png"


def test_completions_ask_the_server(host):
    found = asyncio.run(complete_prompt(host.snapshot(), "features_review", "path", "a"))
    assert found.values == ()  # the server offers none for this argument


def test_list_changes_of_resources_and_prompts_are_followed(host):
    outcome = host.snapshot().execute_sync(
        ToolCall("c1", "features_add_note", {"name": "n1", "text": "buy milk"})
    )
    assert outcome.content[0].text == "added"
    wait_for(lambda: "note://n1" in host.snapshot().catalog.resources)
    wait_for(lambda: "features_note_n1" in host.snapshot().catalog.prompts)
    snapshot = host.snapshot()
    assert read(snapshot, "note://n1").text == "buy milk"
    assert render(snapshot, "features_note_n1").messages[0].content.text == "Remember: buy milk"


def test_a_server_without_resources_or_prompts_mounts_none(host):
    connection = host._groups["mcp"].connection("calc")
    assert connection.features[:3] == ((), (), ())
    catalog = host.snapshot().catalog
    assert not [e for e in catalog.resources.values() if e.resource.name.startswith("calc_")]
    assert not [name for name in catalog.prompts if name.startswith("calc_")]


def test_a_2026_server_lists_them_and_its_changes_arrive_through_listen(module_env):
    from tooldeck import Host

    config = stdio_server("modern", "features_server.py", "--modern") + (
        '[[permission]]\naction = "modern_*"\neffect = "allow"\n'
    )
    root = make_project(module_env / "modern", config)
    with Host.open(root, trust=True, mcp_listings="fresh") as host:
        connection = host._groups["mcp"].connection("modern")
        assert connection.protocol_version == "2026-07-28"
        assert "modern_review" in host.snapshot().catalog.prompts
        host.snapshot().execute_sync(
            ToolCall("c1", "modern_add_note", {"name": "n2", "text": "eggs"})
        )
        wait_for(lambda: "note://n2" in host.snapshot().catalog.resources)
        wait_for(lambda: "modern_note_n2" in host.snapshot().catalog.prompts)


def test_a_uri_two_servers_list_is_mounted_from_the_first_configured(host):
    catalog = host.snapshot().catalog
    assert catalog.resources["info://readme"].resource.name == "features_readme"
    assert "twin_review" in catalog.prompts  # prompts are namespaced: both mount
    twin = next(p for p in host.plugins if p.name == "mcp:twin")
    assert (
        "resource 'info://readme' is mounted from server 'features', not here" in twin.diagnostics
    )
