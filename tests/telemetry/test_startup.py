"""Spans of opening a host: the open, discovery, each plugin's load, the catalog replay."""

from __future__ import annotations

import pytest

from tooldeck import Host, hookimpl

pytestmark = pytest.mark.usefixtures("clean_env")


class Tools:
    @hookimpl
    def tool_transform(self, editor):
        pass


class Broken:
    @hookimpl
    def tool_transform(self, editor, nonsense):  # not an argument of the hook
        pass


def test_opening_a_host_is_a_tree_of_startup_spans(tmp_path, otel):
    with Host.open(tmp_path, plugins=[Tools(), Broken()], trust=True, telemetry=otel.telemetry()):
        pass
    opened = otel.span("tooldeck.host.open")
    assert opened.parent is None
    assert opened.attributes["tooldeck.location"] == str(tmp_path.resolve())
    refresh = otel.span("tooldeck.plugins.refresh")
    assert refresh.parent.span_id == opened.context.span_id
    for name in ("tooldeck.plugins.discover", "tooldeck.catalog.replay"):
        assert otel.span(name).parent.span_id == refresh.context.span_id
    loads = {
        s.attributes["tooldeck.plugin.name"]: s.attributes["tooldeck.plugin.status"]
        for s in otel.spans("tooldeck.plugin.load")
    }
    assert loads["Tools"] == "active"
    assert loads["Broken"] == "failed"
    assert loads["telemetry"] == "active"
    assert "builtin:read" in loads
    assert list(loads)[-1] == "telemetry"  # loaded last: the outermost tool_call wrapper


def test_refresh_plugins_is_its_own_root(tmp_path, otel):
    with Host.open(tmp_path, plugins=[Tools()], trust=True, telemetry=otel.telemetry()) as host:
        otel.exporter.clear()
        host.refresh_plugins()
    assert otel.span("tooldeck.plugins.refresh").parent is None
    assert otel.spans("tooldeck.plugin.load") == []  # nothing changed, nothing loaded
