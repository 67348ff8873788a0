"""End to end with real installed distributions (see ``conftest.Site``).

Packs: ``tdtest-greet`` adds ``greet`` + ``greetings_wave``; ``tdtest-hush`` (sorts
between) re-adds ``greet`` and wraps ``greetings_wave`` in a ``tool_call`` hook;
``tdtest-loud`` updates ``greet``; ``tdtest-broken`` raises
on import; ``tdtest-badsig`` has a hookimpl with an argument the spec lacks.
"""

from __future__ import annotations

import asyncio
import json
import sys

import pytest

from tooldeck import Host, ToolCall, run_tool_call

ALL = ("tdtest-badsig", "tdtest-broken", "tdtest-greet", "tdtest-hush", "tdtest-loud")


def greet(site, **env):
    done = site.tooldeck("call", "greet", '{"name": "Ada"}', **env)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_installed_packs_load_in_sorted_order_and_the_last_one_wins(site):
    site.install("tdtest-loud", "tdtest-greet")  # install order must not matter
    plugins = site.plugins()
    assert list(plugins) == ["tdtest-greet", "tdtest-loud"]
    assert plugins["tdtest-greet"]["provides"] == ["greetings_wave"]
    assert plugins["tdtest-greet"]["overridden_by"] == [{"tool": "greet", "plugin": "tdtest-loud"}]
    assert plugins["tdtest-loud"]["overrides"] == [{"tool": "greet", "plugin": "tdtest-greet"}]
    assert plugins["tdtest-loud"]["version"] == "1.0.0"
    assert greet(site) == "HELLO, ADA!"


def test_uninstalling_overrides_brings_previous_definitions_back(full_site, tmp_path):
    site = full_site.copy(tmp_path)
    site.uninstall("tdtest-loud")
    assert greet(site) == "hello, ada."
    site.uninstall("tdtest-hush")
    assert greet(site) == "Hello, Ada!"
    assert list(site.plugins()) == ["tdtest-badsig", "tdtest-broken", "tdtest-greet"]


def test_broken_packs_are_reported_failed_and_everything_else_works(full_site):
    plugins = full_site.plugins()
    assert list(plugins) == list(ALL)
    broken, badsig = plugins["tdtest-broken"], plugins["tdtest-badsig"]
    assert broken["status"] == "failed"
    assert "RuntimeError: tdtest-broken refuses to import" in broken["reason"]
    assert "tdtest_broken.py" in broken["traceback"]
    assert badsig["status"] == "failed"
    assert "tool_transform" in badsig["reason"] and "extra" in badsig["reason"]
    assert greet(full_site) == "HELLO, ADA!"
    table = full_site.tooldeck("plugins")
    assert table.returncode == 0
    assert "failed: entry point 'broken = tdtest_broken'" in table.stdout


@pytest.mark.parametrize(
    "env",
    [
        {"TOOLDECK_LOAD_PLUGINS": "tdtest-greet"},
        {"TOOLDECK_LOAD_PLUGINS": ""},
        {"TOOLDECK_DISABLE_PLUGINS": "tdtest-badsig, TDTEST_Broken"},
    ],
)
def test_a_plugin_that_is_not_selected_is_never_imported(full_site, tmp_path, env):
    marker = tmp_path / "imported"
    plugins = full_site.plugins(TDTEST_IMPORT_MARKER=str(marker), **env)
    assert plugins["tdtest-broken"]["status"] == "disabled"
    assert not marker.exists()


def test_the_import_marker_works_when_the_pack_is_selected(full_site, tmp_path):
    marker = tmp_path / "imported"
    plugins = full_site.plugins(TDTEST_IMPORT_MARKER=str(marker))
    assert plugins["tdtest-broken"]["status"] == "failed"
    assert marker.read_text() == "imported"


def test_the_user_configs_disable_keeps_a_pack_unimported(full_site, tmp_path):
    site = full_site.copy(tmp_path / "copy")
    config = site.home / "config" / "tooldeck" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[plugins]\ndisable = ["tdtest-broken"]\n')
    marker = tmp_path / "imported"
    plugins = site.plugins(cwd=tmp_path, TDTEST_IMPORT_MARKER=str(marker))
    assert plugins["tdtest-broken"]["reason"] == "disabled by config plugins.disable"
    assert not marker.exists()


def test_a_projects_disable_imports_the_pack_to_see_it_has_no_hook(full_site, tmp_path):
    """A project may not switch off a user's pack that has a ``tool_call`` hook, and
    only importing the pack tells: it is imported, then disabled as the project asked."""
    (tmp_path / "tooldeck.toml").write_text('[plugins]\ndisable = ["tdtest-broken"]\n')
    marker = tmp_path / "imported"
    plugins = full_site.plugins(cwd=tmp_path, TDTEST_IMPORT_MARKER=str(marker))
    assert plugins["tdtest-broken"]["status"] == "disabled"
    assert plugins["tdtest-broken"]["reason"] == "disabled by project config plugins.disable"
    assert marker.read_text() == "imported"


def test_tools_lists_the_overriding_plugin(full_site):
    done = full_site.tooldeck("tools", "--json")
    rows = {row["name"]: row for row in json.loads(done.stdout)}
    assert rows["greet"]["plugin"] == "tdtest-loud"
    assert rows["greet"]["overrides"] == ["tdtest-hush", "tdtest-greet"]


def test_check_an_installed_distribution(full_site):
    ok = full_site.tooldeck("check", "tdtest-greet")
    assert ok.returncode == 0, ok.stdout
    assert "tdtest-greet: ok (greet, greetings_wave)" in ok.stdout
    bad = full_site.tooldeck("check", "tdtest_badsig")
    assert bad.returncode == 1
    assert "tdtest-badsig: failed: invalid hookimpl" in bad.stdout


def tdtest(host):
    return [p.name for p in host.plugins if p.name.startswith("tdtest")]


@pytest.fixture
def in_process_site(site, monkeypatch):
    """``site`` on this process's sys.path; imported test packs are forgotten after."""
    monkeypatch.syspath_prepend(str(site.path))
    yield site
    for name in [n for n in sys.modules if n.startswith("tdtest_")]:
        del sys.modules[name]


def test_refresh_plugins_picks_up_installs_and_removals_in_one_process(in_process_site, clean_env):
    site = in_process_site
    site.install("tdtest-greet", "tdtest-loud")
    host = Host.open(clean_env, plugins=["tdtest-greet", "tdtest-hush", "tdtest-loud"])
    greet_module = sys.modules["tdtest_greet"]

    def said():
        return host.snapshot().execute_sync(ToolCall("1", "greet", {"name": "Ada"})).content[0].text

    assert said() == "HELLO, ADA!"
    site.install("tdtest-hush")
    host.refresh_plugins()
    assert tdtest(host) == ["tdtest-greet", "tdtest-hush", "tdtest-loud"]
    assert sys.modules["tdtest_greet"] is greet_module  # unchanged: not re-imported
    assert said() == "HELLO, ADA!"  # hush sorts before loud, so loud still wins
    site.uninstall("tdtest-loud")
    host.refresh_plugins()
    assert said() == "hello, ada."
    site.uninstall("tdtest-hush")
    host.refresh_plugins()
    assert said() == "Hello, Ada!"
    assert [
        (p.name, p.status, p.reason)
        for p in host.plugins
        if p.name != "tdtest-greet" and p.name.startswith("tdtest")
    ] == [
        (name, "failed", "not found (requested by Host.open(plugins=[...]))")
        for name in ("tdtest-hush", "tdtest-loud")
    ]


def test_uninstalling_a_pack_removes_its_tool_call_hook(in_process_site, clean_env):
    site = in_process_site
    site.install("tdtest-greet", "tdtest-hush")
    host = Host.open(clean_env, plugins=["tdtest-greet", "tdtest-hush"])

    def waved():
        call = ToolCall("1", "greetings_wave", {})
        return asyncio.run(run_tool_call(host.snapshot(), call)).content[0].text

    assert waved() == "*waves* (shh)"
    site.uninstall("tdtest-hush")
    host.refresh_plugins()
    assert waved() == "*waves*"
    assert host.snapshot().call_hooks is None
