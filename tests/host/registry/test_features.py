"""Resources and prompts replay like tools: add, override, remove, reveal on dispose,
session scopes, and a diagnostic for what the editor refuses."""

from __future__ import annotations

import pytest

from tooldeck import (
    Location,
    Prompt,
    PromptArgument,
    Resource,
    ResourceTemplate,
    Tool,
    ToolResult,
    ToolService,
)


def text(value):
    return lambda ctx: value


def resource(uri="notes://today", name="today", **options):
    return Resource(uri, name, read=options.pop("read", text("hello")), **options)


def template(uri_template="notes://{name}", name="note", **options):
    return ResourceTemplate(uri_template, name, read=lambda params, ctx: params["name"], **options)


def prompt(name="greet", description="Greet someone.", **options):
    return Prompt(
        name, description, render=options.pop("render", lambda args, ctx: "hi"), **options
    )


@pytest.fixture
def service(tmp_path):
    return ToolService(Location(tmp_path, data_dir=tmp_path / "data"))


def test_added_resources_and_prompts_are_in_the_catalog_sorted(service):
    b, a, t = resource("notes://b", "b"), resource("notes://a", "a"), template()
    later, earlier = prompt("zeta"), prompt("alpha")

    def transform(editor):
        for item in (b, a, t):
            editor.add_resource(item)
        editor.add_prompt(later)
        editor.add_prompt(earlier)
        assert editor.get_resource("notes://a") is a
        assert editor.get_resource("notes://{name}") is t
        assert editor.get_resource("notes://missing") is None
        assert editor.list_resources() == [a, b, t]
        assert editor.get_prompt("alpha") is earlier
        assert editor.list_prompts() == [earlier, later]

    service.transform(transform, source="pack")
    catalog = service.catalog
    assert list(catalog.resources) == ["notes://a", "notes://b", "notes://{name}"]
    assert catalog.resources["notes://a"].source == "pack"
    assert list(catalog.prompts) == ["alpha", "zeta"]
    assert catalog.tools == {}  # resources and prompts are not tools


def test_a_later_registration_overrides_and_its_disposal_reveals_the_earlier(service):
    first, second = resource(read=text("first")), resource(read=text("second"))
    base_prompt, better_prompt = prompt(), prompt(description="Greet warmly.")
    service.transform(lambda e: (e.add_resource(first), e.add_prompt(base_prompt)), source="a")
    later = service.transform(
        lambda e: (e.add_resource(second), e.add_prompt(better_prompt)), source="b"
    )
    catalog = service.catalog
    assert catalog.resources["notes://today"].resource is second
    assert catalog.prompts["greet"].prompt is better_prompt
    assert catalog.lineage("resource:notes://today") == ("b", "a")
    later.dispose()
    catalog = service.catalog
    assert catalog.resources["notes://today"].resource is first
    assert catalog.prompts["greet"].prompt is base_prompt


def test_remove_hides_what_came_before_until_the_remover_is_disposed(service):
    service.transform(lambda e: (e.add_resource(resource()), e.add_prompt(prompt())), source="a")
    remover = service.transform(
        lambda e: (e.remove_resource("notes://today"), e.remove_prompt("greet")), source="b"
    )
    assert service.catalog.resources == {} and service.catalog.prompts == {}
    remover.dispose()
    assert list(service.catalog.resources) == ["notes://today"]
    assert list(service.catalog.prompts) == ["greet"]


def test_removing_what_is_missing_is_a_warning_and_changes_nothing(service):
    service.transform(lambda e: e.remove_resource("notes://nope"), source="b")
    [warning] = service.diagnostics
    assert warning.level == "warning" and "remove_resource('notes://nope')" in warning.reason


def test_prompt_names_follow_tool_names(service):
    service.transform(lambda e: e.add_prompt(prompt("review code", namespace="git")), source="a")
    assert list(service.catalog.prompts) == ["git_review_code"]


@pytest.mark.parametrize(
    ("item", "reason"),
    [
        (resource("not a uri"), "must be an absolute URI"),
        (resource("notes://{x}"), "register a ResourceTemplate"),
        (resource(name=""), "name must be a non-empty string"),
        (resource(read="text"), "read must be callable"),
        (resource(mime_type="plain"), "mime_type must be a MIME type"),
        (template("notes://fixed"), "register a Resource"),
        (template("notes://{a}/{a}"), "names a variable twice"),
        (template("notes://{?q}"), "is not supported"),
        (template(complete={"other": ["x"]}), "not variables of"),
        (Tool(name="t", description="d", execute=lambda i, c: ToolResult()), "expected a Resource"),
    ],
)
def test_an_invalid_resource_is_refused_with_a_diagnostic(service, item, reason):
    service.transform(lambda e: (e.add_resource(item), e.add_resource(resource())), source="p")
    [diagnostic] = service.diagnostics
    assert reason in diagnostic.reason and diagnostic.source == "p"
    assert list(service.catalog.resources) == ["notes://today"]  # the rest still applies


@pytest.mark.parametrize(
    ("item", "reason"),
    [
        (prompt(""), "name must be 1-64 characters"),
        (prompt(description=""), "description must be a non-empty string"),
        (prompt(render=None), "render must be callable"),
        (prompt(arguments=[PromptArgument("a"), PromptArgument("a")]), "named twice"),
        (prompt(arguments=["a"]), "must be PromptArgument values"),
        (resource(), "expected a Prompt"),
    ],
)
def test_an_invalid_prompt_is_refused_with_a_diagnostic(service, item, reason):
    service.transform(lambda e: e.add_prompt(item), source="p")
    [diagnostic] = service.diagnostics
    assert reason in diagnostic.reason
    assert service.catalog.prompts == {}


def test_a_pure_transform_replayed_from_its_delta_keeps_its_resources(service):
    calls = []

    def pure(editor):
        calls.append(1)
        editor.add_resource(resource())
        editor.add_prompt(prompt())

    service.transform(pure, source="a")
    middle = service.transform(lambda e: e.add_resource(resource("notes://b", "b")), source="b")
    service.transform(lambda e: e.add_prompt(prompt("later")), source="c")
    assert service.catalog.resources and calls == [1]
    middle.dispose()  # replays from a checkpoint; the pure first transform is not called
    catalog = service.catalog
    assert list(catalog.resources) == ["notes://today"]
    assert list(catalog.prompts) == ["greet", "later"]
    assert calls == [1]


def test_session_registrations_apply_to_their_session_alone(service):
    service.transform(lambda e: e.add_resource(resource()), source="location")
    with service.session("s1") as scope:
        scope.transform(
            lambda e: (
                e.add_resource(resource("notes://mine", "mine")),
                e.remove_resource("notes://today"),
                e.add_prompt(prompt("mine")),
            ),
            source="session",
        )
        mine = service.snapshot(session="s1").catalog
        assert list(mine.resources) == ["notes://mine"]
        assert list(mine.prompts) == ["mine"]
        assert list(service.snapshot(session="s2").catalog.resources) == ["notes://today"]
    assert list(service.snapshot(session="s1").catalog.resources) == ["notes://today"]


def test_a_session_sees_the_locations_later_resources(service):
    with service.session("s1"):
        assert service.snapshot(session="s1").catalog.resources == {}
        service.transform(lambda e: e.add_prompt(prompt()), source="location")
        assert list(service.snapshot(session="s1").catalog.prompts) == ["greet"]
