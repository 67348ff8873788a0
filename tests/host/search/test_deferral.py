"""Deferred tools: who is deferred, what each format advertises, and ``search_tools``."""

from __future__ import annotations

import json

import pytest

from tooldeck import Location, Tool, ToolCall, ToolResult, ToolService, tool
from tooldeck.host.config.config import Config


def make(name, namespace=None, description=None, **options):
    return Tool(
        name=name,
        namespace=namespace,
        description=description or f"Do {name.replace('_', ' ')}.",
        input={"type": "object", "properties": {"id": {"type": "string"}}},
        execute=lambda i, c: ToolResult(f"ran {name}"),
        codemode=False,
        **options,
    )


def service_of(tmp_path, *tools, spaces=(), config=None):
    location = Location(
        tmp_path, config=Config.model_validate(config or {}), data_dir=tmp_path / "data"
    )
    service = ToolService(location)

    def transform(editor):
        for name, text, deferred in spaces:
            editor.namespace(name, text, defer_loading=deferred)
        for t in tools:
            editor.add(t)

    service.transform(transform, source="pack")
    return service


def names(definitions):
    return [d["function"]["name"] for d in definitions]


def test_tools_namespaces_and_function_tools_can_be_deferred(tmp_path):
    @tool(defer_loading=True)
    def lookup(word: str) -> str:
        """Look a word up."""
        return word

    service = service_of(
        tmp_path,
        make("ping"),
        make("weather", defer_loading=True),
        make("list_issues", "gh"),
        make("urgent", "gh", pinned=True),
        lookup,
        tool(lambda x: x, name="plain", description="Plain."),
        spaces=[("gh", "GitHub.", True)],
    )
    snap = service.snapshot()
    assert tool(lambda: "x", description="X.", defer_loading=True).defer_loading is True
    assert snap.deferred == ("gh_list_issues", "lookup", "weather")
    advertised = names(snap.definitions_for("openai"))
    assert advertised == ["gh_urgent", "ping", "plain", "search_tools"]
    assert snap.names == ("gh_list_issues", "gh_urgent", "lookup", "ping", "plain", "weather")


def test_config_overrides_packs_and_the_last_matching_pattern_wins(tmp_path):
    config = {
        "tools": {
            "gh_*": {"defer_loading": True},
            "gh_keep": {"defer_loading": False},
            "weather": {"defer_loading": False},
        }
    }
    service = service_of(
        tmp_path,
        make("keep", "gh"),
        make("other", "gh"),
        make("weather", defer_loading=True),
        config=config,
    )
    assert service.snapshot().deferred == ("gh_other",)


def test_nothing_deferred_advertises_no_search_tool(tmp_path):
    snap = service_of(tmp_path, make("ping")).snapshot()
    assert snap.deferred == ()
    for fmt in ("openai", "anthropic", "openai-responses", "gemini", "mcp"):
        assert len(snap.definitions_for(fmt)) == 1


def test_a_deferred_tool_coming_or_going_changes_no_advertised_byte(tmp_path):
    base = [make("ping"), make("zeta"), make("alpha", defer_loading=True)]
    more = [*base, make("beta", defer_loading=True), make("omega", defer_loading=True)]
    one = service_of(tmp_path / "a", *base).snapshot()
    two = service_of(tmp_path / "b", *more).snapshot()
    for fmt in ("openai", "gemini", "mcp"):
        assert json.dumps(one.definitions_for(fmt)) == json.dumps(two.definitions_for(fmt))
    for fmt in ("anthropic", "openai-responses"):
        kept = [
            json.dumps(d)
            for d in one.definitions_for(fmt)
            if not d.get("defer_loading") and d.get("type") != "namespace"
        ]
        assert kept == [
            json.dumps(d)
            for d in two.definitions_for(fmt)
            if not d.get("defer_loading") and d.get("type") != "namespace"
        ]


def test_search_tools_lists_without_a_session(tmp_path):
    service = service_of(
        tmp_path,
        make("ping"),
        make("create_invoice", "billing", defer_loading=True),
        make("refund_charge", "billing", "Refund a card charge.", defer_loading=True),
    )
    snap = service.snapshot()
    done = snap.execute_sync(ToolCall("c1", "search_tools", {"query": "refund a charge"}))
    assert done.output["loaded"] is False
    found = done.output["tools"]
    assert found[0]["name"] == "billing_refund_charge"
    assert found[0]["input_schema"]["properties"] == {"id": {"type": "string"}}
    assert "billing_refund_charge: Refund a card charge." in done.content[0].text
    # A deferred tool is callable on the same snapshot.
    ran = snap.execute_sync(ToolCall("c2", "billing_refund_charge", {"id": "x"}))
    assert ran.content[0].text == "ran refund_charge"


def test_a_weak_search_says_where_the_tools_are_and_suggests_a_query(tmp_path):
    service = service_of(
        tmp_path,
        make("create_invoice", "billing"),
        make("refund_charge", "billing", "Refund a card charge."),
        make("list_events", "calendar", "List calendar events."),
        spaces=[
            ("billing", "Invoices and card charges. Backed by Stripe.", True),
            ("calendar", "Events and availability.", True),
        ],
    )
    snap = service.snapshot()
    query = "who is on call this week"
    done = snap.execute_sync(ToolCall("c1", "search_tools", {"query": query}))
    assert done.output["tools"] == [] and done.output["loaded"] is False
    text = done.content[0].text
    assert text.splitlines()[0] == f'No tool matches "{query}".'
    assert "- billing: Invoices and card charges. (2 tools)" in text
    assert "- calendar: Events and availability. (1 tool)" in text
    assert "Try a namespace's name" in text
    advice = done.output["hint"]
    assert [n["name"] for n in advice["namespaces"]] == ["billing", "calendar"]
    assert advice["unmatched"] == ["on call"] and advice["suggested_query"] == ""
    assert 'No tool answers "on call".' in text

    done = snap.execute_sync(ToolCall("c2", "search_tools", {"query": "charge a calendar rota"}))
    text = done.content[0].text
    assert done.output["tools"] and "The match is weak." in text
    assert done.output["hint"]["suggested_query"] in text

    done = snap.execute_sync(ToolCall("c3", "search_tools", {"query": "refund a charge"}))
    assert "hint" not in done.output and "weak" not in done.content[0].text


def test_search_tools_loads_into_the_open_session_until_it_closes(tmp_path):
    service = service_of(
        tmp_path,
        make("ping"),
        make("create_invoice", "billing"),
        make("refund_charge", "billing"),
        spaces=[("billing", "Invoices and charges.", True)],
    )
    scope = service.session("s1")
    snap = service.snapshot(session="s1")
    done = snap.execute_sync(ToolCall("c1", "search_tools", {"query": "invoice", "limit": 1}))
    assert done.output["loaded"] is True
    assert [t["name"] for t in done.output["tools"]] == ["billing_create_invoice"]
    after = service.snapshot(session="s1")
    assert after.deferred == ("billing_refund_charge",)
    assert names(after.definitions_for("openai")) == [
        "billing_create_invoice",
        "ping",
        "search_tools",
    ]
    assert service.snapshot().deferred == ("billing_create_invoice", "billing_refund_charge")
    scope.close()
    assert service.snapshot(session="s1").deferred == service.snapshot().deferred


def test_search_tools_is_unknown_while_nothing_is_deferred(tmp_path):
    snap = service_of(tmp_path, make("ping")).snapshot()
    with pytest.raises(Exception, match="not available"):
        snap.execute_sync(ToolCall("c1", "search_tools", {"query": "x"}))


def test_a_registered_search_tools_wins_over_the_built_in_one(tmp_path):
    mine = make("search_tools", description="My own search.")
    snap = service_of(tmp_path, mine, make("hidden", defer_loading=True)).snapshot()
    definitions = snap.definitions_for("openai")
    assert [d["function"]["description"] for d in definitions] == ["My own search."]
    assert snap.execute_sync(ToolCall("c", "search_tools", {})).content[0].text == (
        "ran search_tools"
    )


def test_anthropic_search_variant_is_checked(tmp_path):
    snap = service_of(tmp_path, make("hidden", defer_loading=True)).snapshot()
    assert snap.definitions_for("anthropic", search="regex")[0]["name"] == "tool_search_tool_regex"
    with pytest.raises(ValueError, match="'bm25' or 'regex'"):
        snap.definitions_for("anthropic", search="fuzzy")
    with pytest.raises(ValueError, match="'bm25' or 'regex'"):
        snap.definitions_for("openai", search="regex")


def unknown_call(snapshot, name):
    import asyncio

    from tooldeck import run_tool_call

    return asyncio.run(run_tool_call(snapshot, ToolCall("c", name, {})))


def test_an_unknown_tool_among_thousands_of_deferred_names_a_few_and_the_search(tmp_path):
    deferred = [make(f"crm_record_{i:04d}", defer_loading=True) for i in range(3000)]
    service = service_of(tmp_path, make("ping"), make("weather"), *deferred)
    outcome = unknown_call(service.snapshot(), "crm_recod_0012")
    message = outcome.error.message
    assert outcome.status == "failed" and len(message) < 1500  # the whole list was 44 KB
    assert message.startswith("Tool 'crm_recod_0012' is not available.")
    assert "instead: crm_record_0012, " in message  # the closest names come first
    assert "ping, weather" in message  # then what the model was shown
    assert "more. Call search_tools with a few words" in message


def test_an_unknown_tool_among_thousands_advertised_is_bounded_too(tmp_path):
    service = service_of(tmp_path, *(make(f"t{i:04d}") for i in range(3000)))
    message = unknown_call(service.snapshot(), "nope").error.message
    assert len(message) < 1500 and message.endswith("2,980 more (all in your tool list).")


def test_an_unknown_tool_in_a_small_catalog_lists_every_tool(tmp_path):
    service = service_of(tmp_path, make("ping"), make("pong"))
    assert unknown_call(service.snapshot(), "nope").error.message == (
        "Tool 'nope' is not available. Call one of the available tools instead: ping, pong."
    )


def test_an_unknown_tool_when_every_tool_is_deferred_points_to_the_search(tmp_path):
    service = service_of(tmp_path, *(make(f"t{i:04d}", defer_loading=True) for i in range(50)))
    assert unknown_call(service.snapshot(), "nope").error.message == (
        "Tool 'nope' is not available. Call search_tools with a few words on what you need "
        "to find one of the 50 available tools."
    )
