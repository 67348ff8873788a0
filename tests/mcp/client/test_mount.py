"""Mounting real MCP servers (stdio, both protocol eras): list, call, permissions,
list changes with a local override that keeps winning, debouncing, cancellation."""

from __future__ import annotations

import asyncio
import json
import logging
import os

import pytest

from tooldeck import Host, ImagePart, Reject, ToolCall, run_tool_call
from tooldeck.testing import ScriptedAsker

from ..conftest import make_project, stdio_server, wait_for

ALLOW_ALL = '[[permission]]\naction = "*_*"\neffect = "allow"\n'

OVERRIDE = """
from tooldeck import hookimpl

@hookimpl
def tool_transform(editor):
    editor.update("calc_add", lambda t: t.replace(description="Add, as the project says."))
    editor.remove("calc_crash")
"""

CONFIG = (
    stdio_server("calc", "calc_server.py", extra='env = {CALC_SECRET = "42"}')
    + stdio_server("legacy", "calc_server.py", "--handshake-only", extra="codemode = false")
    + '[[permission]]\naction = "legacy_*"\neffect = "allow"\n'
)


@pytest.fixture(scope="module")
def asker():
    return ScriptedAsker()


@pytest.fixture(scope="module")
def host(module_env, asker):
    os.environ["TOOLDECK_TEST_LEAK"] = "leaked"  # must not reach the servers
    try:
        root = make_project(module_env / "project", CONFIG, {"override": OVERRIDE})
        with Host.open(root, plugins=["local:override"], asker=asker) as opened:
            yield opened
    finally:
        del os.environ["TOOLDECK_TEST_LEAK"]


def call(host, name, arguments, **options):
    snapshot = options.pop("snapshot", None) or host.snapshot()
    return asyncio.run(
        run_tool_call(
            snapshot, ToolCall("c1", name, arguments), session_id="s", message_id="m", **options
        )
    )


def row(host, name):
    return next(p for p in host.plugins if p.name == name)


def test_each_server_is_an_active_row_between_builtins_and_entry_points(host):
    infos = host.plugins
    layers = [p.layer for p in infos]
    assert layers == sorted(layers, key=["builtin", "mcp", "entrypoint", "object", "local"].index)
    calc, legacy = row(host, "mcp:calc"), row(host, "mcp:legacy")
    assert (calc.status, calc.layer, calc.reason) == ("active", "mcp", None)
    assert legacy.status == "active"
    assert {"calc_weather", "calc_picture"} <= set(calc.provides)
    assert ("calc_add", "local:override") in calc.overridden_by
    assert "calc_server.py" in calc.origin


def test_tools_are_mounted_with_the_listed_schemas(host):
    snapshot = host.snapshot()
    definitions = {d["name"]: d for d in snapshot.definitions_for("mcp")}
    weather = definitions["legacy_weather"]  # codemode = false: advertised natively
    assert weather["description"] == "The weather in a city (structured output)."
    assert weather["inputSchema"]["properties"]["city"]["type"] == "string"
    assert weather["inputSchema"]["required"] == ["city"]
    assert set(weather["outputSchema"]["properties"]) == {"city", "temp_c"}
    tools = {e.name: e.tool for e in snapshot.catalog.tools.values()}
    assert tools["calc_add"].namespace == "calc"
    assert tools["calc_add"].codemode is True
    assert tools["legacy_add"].codemode is False
    assert "calc_weather" not in definitions
    assert "calc_weather" in {e.name for e in snapshot.codemode_catalog}


def test_a_program_calls_mounted_tools_in_code_mode(host):
    outcome = call(
        host,
        "execute",
        {
            "code": "s = await tools.calc.add(a=2, b=3)\n"
            "w = await tools.calc.weather(city='Oslo')\n"
            "[s, w['temp_c']]"
        },
    )
    assert outcome.status == "completed", outcome.content
    assert outcome.output["result"] == [{"result": 5}, 21.5]


def test_a_call_returns_text_structured_output_and_images(host):
    add = call(host, "calc_add", {"a": 2, "b": 3})
    assert (add.status, add.content[0].text, add.output) == ("completed", "5", {"result": 5})
    weather = call(host, "calc_weather", {"city": "Paris"})
    assert weather.output == {"city": "Paris", "temp_c": 21.5}
    picture = call(host, "calc_picture", {})
    assert picture.content[0].text == "a pixel"
    assert isinstance(picture.content[1], ImagePart)
    assert picture.content[1].data.startswith(b"\x89PNG")


def test_a_server_error_is_a_failure_with_its_text(host):
    outcome = call(host, "calc_fail", {"message": "no such city"})
    assert outcome.status == "failed"
    assert outcome.error.type == "tool.execution"
    assert "MCP server 'calc'" in outcome.error.message
    assert "no such city" in outcome.error.message


def test_arguments_are_validated_before_they_are_sent(host):
    outcome = call(host, "calc_add", {"a": "two"})
    assert outcome.status == "failed"
    assert "Invalid input for tool 'calc_add'" in outcome.error.message
    assert "- a: 'two' is not of type 'integer'" in outcome.error.message


def test_a_call_asserts_the_effective_name_and_rules_decide(host, asker):
    asker.requests.clear()
    call(host, "legacy_add", {"a": 1, "b": 1})  # allowed by the rule legacy_*
    assert asker.requests == []
    asker.on("calc_pid", "reject")
    outcome = call(host, "calc_pid", {})
    assert outcome.status == "declined"
    assert [(r.action, r.resources) for r in asker.requests] == [("calc_pid", ("*",))]


def test_feedback_on_a_mounted_tool_reaches_the_model_as_a_failure(host, asker, caplog):
    """The mounted path: the remote tool's executor asserts the permission and lets a
    ``Reject("use X instead")`` through; the boundary turns it into a failure."""
    before = asker.replies.get("calc_pid", asker.default)
    asker.on("calc_pid", Reject("use X instead"))
    try:
        with caplog.at_level(logging.ERROR, logger="tooldeck"):
            outcome = call(host, "calc_pid", {})
    finally:
        asker.on("calc_pid", before)
    assert outcome.status == "failed"
    assert outcome.error.type == "permission.rejected"
    assert "The user rejected this tool call and said: use X instead" in outcome.error.message
    assert outcome.content[0].text == outcome.error.message
    assert caplog.records == []  # a signal, not a defect


def test_the_server_gets_only_the_safe_environment_plus_env(host):
    assert call(host, "calc_env", {"name": "CALC_SECRET"}).content[0].text == "42"
    assert call(host, "calc_env", {"name": "TOOLDECK_TEST_LEAK"}).output == {"result": ""}


def test_a_large_result_is_bounded_and_saved(host):
    outcome = call(host, "calc_big", {"megabytes": 8})
    assert outcome.status == "completed"
    text = outcome.content[0].text
    assert len(text.encode()) < 60 * 1024
    saved = next(w for w in text.split() if "tool-output" in w).strip(".()")
    assert os.path.getsize(saved) == 8 * 1024 * 1024


def test_a_50_mb_result_fails_clearly_and_the_server_keeps_serving(host):
    outcome = call(host, "calc_big", {"megabytes": 50})
    assert outcome.status == "failed"
    assert "larger than 32 MiB" in outcome.error.message
    assert "MCP server 'calc', tool 'big'" in outcome.error.message
    assert call(host, "calc_add", {"a": 1, "b": 1}).content[0].text == "2"


@pytest.mark.parametrize("server", ["calc", "legacy"])
def test_a_list_change_mounts_the_new_tool_and_the_override_keeps_winning(host, server):
    before = host.snapshot()
    grown = f"{server}_grown_{server}"
    assert call(host, f"{server}_grow", {"name": f"grown_{server}"}).status == "completed"
    after = wait_for(lambda: grown in host.snapshot().catalog.tools and host.snapshot())
    assert grown not in before.catalog.tools
    assert call(host, grown, {}, snapshot=after).content[0].text == f"grown_{server} grown"
    add = after.catalog.tools["calc_add"]
    assert (add.tool.description, add.source) == ("Add, as the project says.", "local:override")
    assert "calc_crash" not in after.catalog.tools
    assert "calc_crash" not in before.catalog.tools


def test_a_tool_named_with_its_servers_prefix_keeps_the_prefix_once(host):
    """A server whose tools already start with its name (``git_status`` on ``git``)."""
    assert call(host, "calc_grow", {"name": "calc_prefixed"}).status == "completed"
    after = wait_for(lambda: "calc_prefixed" in host.snapshot().catalog.tools and host.snapshot())
    assert "calc_calc_prefixed" not in after.catalog.tools
    entry = after.catalog.tools["calc_prefixed"]
    assert (entry.tool.name, entry.tool.namespace) == ("prefixed", "calc")
    outcome = call(host, "calc_prefixed", {}, snapshot=after)  # the server hears its own name
    assert outcome.content[0].text == "calc_prefixed grown"


@pytest.mark.parametrize("server", ["calc", "legacy"])
def test_a_notification_storm_is_debounced(host, server):
    layer_connection = host._groups["mcp"].connection(server)
    listings = layer_connection.listings
    catalog = host.service.catalog
    assert call(host, f"{server}_storm", {"count": 1000}).output == {"result": "sent 1000"}
    wait_for(lambda: layer_connection.listings > listings)
    # One burst, one listing (two if the burst outlasted the longest wait); no reload,
    # since the list did not change.
    assert layer_connection.listings - listings <= 2
    assert host.service.catalog is catalog


@pytest.mark.parametrize("server", ["calc", "legacy"])
def test_cancelling_the_call_cancels_the_request(host, tmp_path, server):
    marker = tmp_path / "marker"

    async def scenario():
        snapshot = host.snapshot()
        task = asyncio.create_task(
            snapshot.execute(
                ToolCall("c", f"{server}_slow", {"seconds": 60, "marker": str(marker)})
            )
        )
        await asyncio.sleep(1.0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())
    wait_for(lambda: marker.exists() and marker.read_text() == "cancelled")


def test_tools_and_plugins_commands_show_mounted_tools(host):
    from tooldeck.cli.plugins import render
    from tooldeck.cli.tools import tool_rows

    rows = {r["name"]: r for r in tool_rows(host.snapshot(), host.mcp_sources)}
    assert rows["calc_weather"]["plugin"] == "mcp:calc"  # the server, as `plugins` says
    assert rows["calc_add"]["overrides"] == ["mcp:calc"]
    assert {host.mcp_sources[n] for n in rows if n.startswith("legacy_")} == {"mcp:legacy"}
    text = render(host.plugins)
    assert "mcp:calc" in text and "mcp:legacy" in text
    assert json.dumps([p.to_json() for p in host.plugins])


def test_a_fixture_server_started_warm_serves_what_its_plain_start_serves(module_env, tmp_path):
    """Pins ``tests/warm`` (how most servers here start) to the plain start."""
    config = stdio_server("plain", "calc_server.py", plain=True)
    config += stdio_server("warm", "calc_server.py") + ALLOW_ALL
    with Host.open(make_project(tmp_path / "p", config), plugins=[]) as host:
        snapshot = host.snapshot()

        def served(server):
            names = sorted(
                n.removeprefix(server) for n in snapshot.catalog.tools if n.startswith(server)
            )
            sum_ = asyncio.run(
                run_tool_call(snapshot, ToolCall("c", f"{server}add", {"a": 2, "b": 3}))
            )
            return names, sum_.output

        plain, warm = served("plain_"), served("warm_")
    assert "add" in plain[0]
    assert warm == plain
