"""Tool search across the provider boundary: server searches skipped, client ones answered."""

from __future__ import annotations

import asyncio

from tooldeck import Location, Tool, ToolResult, ToolService
from tooldeck.providers import calls_from, results_for, run_tool_calls


def deferred_snapshot(tmp_path):
    def make(name, namespace=None, deferred=True):
        return Tool(
            name=name,
            namespace=namespace,
            description=f"{name.replace('_', ' ').capitalize()}.",
            input={"type": "object", "properties": {"q": {"type": "string"}}},
            execute=lambda i, c: ToolResult(f"ran {name}"),
            codemode=False,
            defer_loading=deferred,
        )

    service = ToolService(Location(tmp_path, data_dir=tmp_path / "data"))
    service.transform(
        lambda e: [
            e.namespace("crm", "Customer records."),
            e.add(make("ping", deferred=False)),
            e.add(make("find_contact", "crm")),
            e.add(make("delete_contact", "crm")),
        ],
        source="pack",
    )
    return service.snapshot()


def test_deferred_definitions_are_accepted_by_the_sdks(tmp_path, accepted):
    from anthropic.types import ToolUnionParam
    from openai.types.responses import ToolParam

    snap = deferred_snapshot(tmp_path)
    for search in ("bm25", "regex"):
        for definition in snap.definitions_for("anthropic", search=search):
            accepted(ToolUnionParam, definition)
    for strict in (False, True):
        for definition in snap.definitions_for("openai-responses", strict=strict):
            accepted(ToolParam, definition)


def test_anthropic_server_tool_search_blocks_are_not_calls():
    found = [{"type": "tool_reference", "tool_name": "crm_find_contact"}]
    content = [
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_bm25",
         "input": {"query": "contacts"}},
        {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1",
         "content": {"type": "tool_search_tool_search_result",
                     "tool_references": found}},
        {"type": "tool_use", "id": "toolu_1", "name": "crm_find_contact", "input": {"q": "Ada"}},
    ]  # fmt: skip
    calls = calls_from("anthropic", {"role": "assistant", "content": content})
    assert [(c.id, c.name) for c in calls] == [("toolu_1", "crm_find_contact")]


def test_responses_server_tool_search_items_are_not_calls():
    output = [
        {"type": "tool_search_call", "id": "ts_1", "execution": "server", "status": "completed",
         "arguments": {"query": "contacts"}},
        {"type": "tool_search_output", "id": "tso_1", "execution": "server", "tools": []},
        {"type": "function_call", "call_id": "call_1", "name": "crm_find_contact",
         "arguments": '{"q": "Ada"}'},
    ]  # fmt: skip
    calls = calls_from("openai-responses", {"output": output})
    assert [(c.id, c.name) for c in calls] == [("call_1", "crm_find_contact")]


def test_a_client_tool_search_call_is_answered_with_the_ranking(tmp_path, accepted):
    from openai.types.responses import ResponseInputItemParam

    snap = deferred_snapshot(tmp_path)
    output = [
        {"type": "tool_search_call", "id": "ts_1", "call_id": "call_s", "execution": "client",
         "status": "completed", "arguments": {"query": "remove a contact", "limit": 1}},
    ]  # fmt: skip
    calls = calls_from("openai-responses", {"output": output})
    assert [(c.id, c.name) for c in calls] == [("call_s", "search_tools")]
    turn = asyncio.run(run_tool_calls(snap, calls))
    [item] = results_for("openai-responses", list(zip(calls, turn.outcomes, strict=True)))
    accepted(ResponseInputItemParam, item)
    assert item["type"] == "tool_search_output" and item["call_id"] == "call_s"
    assert [t["name"] for t in item["tools"]] == ["crm_delete_contact"]
    assert item["tools"][0]["parameters"]["properties"] == {"q": {"type": "string"}}
