"""A Host with tooldeck-broken installed reports it failed and serves everything else.

The pack cannot be imported, so it is only reached through its installed entry point:
these tests need it installed (``pip install ./example_plugins/tooldeck-broken``).
"""

from __future__ import annotations

import pytest
import tooldeck

REASON = "RuntimeError: tooldeck-broken fails on import on purpose"


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    root = tmp_path / "project"
    root.mkdir()
    (root / "hello.txt").write_text("hello\n")
    return root


def broken_info(host):
    [info] = [p for p in host.plugins if p.name == "tooldeck-broken"]
    return info


@pytest.mark.parametrize("plugins", [["tooldeck-broken"], None], ids=["selected", "discovered"])
async def test_the_pack_is_reported_failed_and_the_builtins_still_serve(project, plugins):
    host = tooldeck.Host.open(project, plugins=plugins)
    info = broken_info(host)
    assert info.status == "failed"
    assert REASON in info.reason
    assert "tooldeck_broken" in info.traceback
    assert info.distribution == "tooldeck-broken"
    assert info.provides == ()
    builtins = [p for p in host.plugins if p.layer == "builtin"]
    assert builtins and all(p.status == "active" for p in builtins)
    call = tooldeck.ToolCall("call_1", "read", {"path": "hello.txt"})
    outcome = await tooldeck.run_tool_call(host.snapshot(), call)
    assert outcome.status == "completed"
    assert "1: hello" in outcome.content[0].text


def test_importing_it_directly_raises_the_same_error():
    with pytest.raises(RuntimeError, match="fails on import on purpose"):
        import tooldeck_broken  # noqa: F401 - imported for the error it raises


def test_disabling_it_means_it_is_never_imported(project):
    host = tooldeck.Host.open(project, plugins=["tooldeck-broken"], disable=["tooldeck-broken"])
    info = broken_info(host)
    assert info.status == "disabled"
    assert "read" in host.snapshot().names
