"""``[mcp.servers.NAME] defer_loading = true``: a whole server behind ``search_tools``."""

from __future__ import annotations

from tooldeck import Host, ToolCall

from ..conftest import make_project, stdio_server


def test_a_deferred_server_is_found_through_search_tools(tooldeck_env, tmp_path):
    config = (
        stdio_server("calc", "calc_server.py", extra="codemode = false\ndefer_loading = true")
        + '[[permission]]\naction = "*"\neffect = "allow"\n'
    )
    with Host.open(make_project(tmp_path / "p", config), plugins=[], trust=True) as host:
        snapshot = host.snapshot()
        assert "calc_add" in snapshot.deferred and "calc_weather" in snapshot.deferred
        names = [d["name"] for d in snapshot.definitions_for("mcp")]
        assert "search_tools" in names and not any(n.startswith("calc_") for n in names)
        found = snapshot.execute_sync(ToolCall("c1", "search_tools", {"query": "weather city"}))
        assert found.output["tools"][0]["name"] == "calc_weather"
        added = snapshot.execute_sync(ToolCall("c2", "calc_add", {"a": 2, "b": 3}))
        assert "5" in added.content[0].text
