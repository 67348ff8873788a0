"""Deferred definitions match the installed SDKs' own request types, key by key (each
test imports its SDK's types, as tests/providers/ does: not at collection)."""

from __future__ import annotations

import typing

from tooldeck import Location, Tool, ToolResult, ToolService


def fits(typed_dict: type, value: typing.Mapping) -> bool:
    """``value`` has every required key of ``typed_dict`` and no key it lacks."""
    keys = set(typing.get_type_hints(typed_dict))
    return typed_dict.__required_keys__ <= set(value) <= keys


def snapshot(tmp_path):
    def make(name, namespace=None, deferred=True):
        return Tool(
            name=name,
            namespace=namespace,
            description=f"Do {name}.",
            input={"type": "object", "properties": {"q": {"type": "string"}}},
            execute=lambda i, c: ToolResult("ok"),
            codemode=False,
            defer_loading=deferred,
        )

    service = ToolService(Location(tmp_path, data_dir=tmp_path / "data"))
    service.transform(
        lambda e: [
            e.namespace("crm", "Customer records."),
            e.add(make("ping", deferred=False)),
            e.add(make("find_contact", "crm")),
            e.add(make("add_contact", "crm")),
            e.add(make("weather")),
        ],
        source="pack",
    )
    return service.snapshot()


def test_anthropic_deferred_tools_and_the_search_tools(tmp_path):
    from anthropic.types import (
        ToolParam,
        ToolSearchToolBm25_20251119Param,
        ToolSearchToolRegex20251119Param,
    )

    snap = snapshot(tmp_path)
    ping, search, *deferred = snap.definitions_for("anthropic")
    assert fits(ToolParam, ping) and "defer_loading" not in ping
    assert fits(ToolSearchToolBm25_20251119Param, search)
    assert search["type"] == "tool_search_tool_bm25_20251119"
    assert [d["name"] for d in deferred] == ["crm_add_contact", "crm_find_contact", "weather"]
    assert all(fits(ToolParam, d) and d["defer_loading"] is True for d in deferred)
    regex = snap.definitions_for("anthropic", search="regex")[1]
    assert fits(ToolSearchToolRegex20251119Param, regex)
    assert regex["type"] == "tool_search_tool_regex_20251119"


def test_openai_responses_groups_deferred_functions_by_namespace(tmp_path):
    from openai.types.responses import FunctionToolParam, NamespaceToolParam, ToolSearchToolParam

    snap = snapshot(tmp_path)
    for strict in (False, True):
        ping, search, crm, weather = snap.definitions_for("openai-responses", strict=strict)
        assert fits(FunctionToolParam, ping) and "defer_loading" not in ping
        assert fits(ToolSearchToolParam, search) and search == {"type": "tool_search"}
        assert fits(NamespaceToolParam, crm)
        assert (crm["type"], crm["name"], crm["description"]) == (
            "namespace",
            "crm",
            "Customer records.",
        )
        inner = crm["tools"]
        assert [t["name"] for t in inner] == ["crm_add_contact", "crm_find_contact"]
        assert all(fits(FunctionToolParam, t) and t["defer_loading"] is True for t in inner)
        assert fits(FunctionToolParam, weather) and weather["defer_loading"] is True
        assert weather["strict"] is strict
