"""Reading a resource: found by URI or template, permitted like a call, laid out as text
or bytes; hidden with its action, refused clearly when it returns something else."""

from __future__ import annotations

import asyncio

import pytest

from tooldeck import (
    Config,
    Location,
    PermissionBlocked,
    PermissionDeclined,
    PermissionRule,
    Resource,
    ResourceTemplate,
    Ruleset,
    ToolService,
)
from tooldeck.errors import ToolDefectError
from tooldeck.host.call.values import CallScope
from tooldeck.host.features.reading import (
    ResourceContents,
    ResourceNotFound,
    read,
    visible_resources,
)

ALLOW = PermissionRule(action="resource", resource="*", effect="allow")


def service_with(tmp_path, *items, rules=(ALLOW,), asker=None):
    location = Location(
        tmp_path, data_dir=tmp_path / "data", config=Config(permission=rules), asker=asker
    )
    service = ToolService(location)

    def transform(editor):
        for item in items:
            editor.add_resource(item)

    service.transform(transform, source="pack")
    return service


def read_now(service, uri, permissions=None):
    return asyncio.run(read(service.snapshot(), permissions, uri, CallScope("s1"), "read-1"))


def test_text_and_bytes_with_their_mime_types(tmp_path):
    seen = []

    async def binary(ctx):
        seen.append(ctx.session_id)
        return b"\x89PNG"

    service = service_with(
        tmp_path,
        Resource("test://text", "text", read=lambda ctx: "hello"),
        Resource("test://png", "png", mime_type="image/png", read=binary),
        Resource("test://raw", "raw", read=lambda ctx: b"\x00"),
    )
    assert read_now(service, "test://text") == ResourceContents(
        "test://text", "text/plain", text="hello"
    )
    assert read_now(service, "test://png") == ResourceContents(
        "test://png", "image/png", blob=b"\x89PNG"
    )
    assert read_now(service, "test://raw").mime_type == "application/octet-stream"
    assert seen == ["s1"]


def test_a_template_gets_the_uris_values_and_the_most_specific_wins(tmp_path):
    service = service_with(
        tmp_path,
        ResourceTemplate("notes://{name}", "any", read=lambda p, ctx: f"any {p['name']}"),
        ResourceTemplate("notes://{name}.md", "md", read=lambda p, ctx: f"md {p['name']}"),
        Resource("notes://fixed.md", "fixed", read=lambda ctx: "fixed"),
    )
    assert read_now(service, "notes://todo").text == "any todo"
    assert read_now(service, "notes://todo.md").text == "md todo"
    assert read_now(service, "notes://fixed.md").text == "fixed"


def test_an_unknown_uri_is_not_found(tmp_path):
    service = service_with(tmp_path)
    with pytest.raises(ResourceNotFound, match="test://nope"):
        read_now(service, "test://nope")


def test_a_read_asks_its_permission_on_the_uri(tmp_path):
    asked = []

    def asker(request):
        asked.append((request.action, request.resources))
        return "once"

    service = service_with(
        tmp_path, Resource("test://x", "x", read=lambda ctx: "x"), rules=(), asker=asker
    )
    assert read_now(service, "test://x").text == "x"
    assert asked == [("resource", ("test://x",))]


def test_a_read_nobody_can_answer_is_declined_and_a_denied_one_blocked(tmp_path):
    item = Resource("test://x", "x", read=lambda ctx: "x", permission="secrets")
    with pytest.raises(PermissionDeclined):
        read_now(service_with(tmp_path / "a", item, rules=()), "test://x")
    deny = PermissionRule(action="secrets", resource="test://x", effect="deny")
    with pytest.raises(PermissionBlocked):
        read_now(service_with(tmp_path / "b", item, rules=(deny,)), "test://x")


def test_a_wholly_denied_action_hides_its_resources(tmp_path):
    service = service_with(
        tmp_path,
        Resource("test://public", "public", read=lambda ctx: "p"),
        Resource("test://secret", "secret", read=lambda ctx: "s", permission="secrets"),
    )
    rules = Ruleset.from_rules([{"action": "secrets", "resource": "*", "effect": "deny"}])
    shown = [e.uri for e in visible_resources(service.snapshot(), rules)]
    assert shown == ["test://public"]
    with pytest.raises(ResourceNotFound):
        read_now(service, "test://secret", rules)


def test_a_read_returning_neither_text_nor_bytes_is_a_defect(tmp_path):
    service = service_with(tmp_path, Resource("test://x", "x", read=lambda ctx: 42))
    with pytest.raises(ToolDefectError, match="must return str or bytes, got int"):
        read_now(service, "test://x")
