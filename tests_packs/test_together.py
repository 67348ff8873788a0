"""All example packs installed in one environment, seen through the ``tooldeck`` CLI.

What a user with every pack installed sees: one deterministic load order, the
``tooldeck-safe-read`` override of the built-in ``read``, the broken pack reported and
harmless, each pack's tools working next to the others', and the built-in ``read``
coming back when ``tooldeck-safe-read`` is uninstalled with pip.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from tooldeck import Host
from tooldeck.builtin_plugins import BUILTIN_PLUGINS

BUILTINS = [f"builtin:{module}" for module in BUILTIN_PLUGINS]
Project = Any  # conftest.Project; test modules cannot import conftest by name
Pip = Any  # conftest.run_pip


def by_name(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {row["name"]: row for row in rows}


def test_plugins_load_in_one_deterministic_order(project: Project, packs: tuple[str, ...]) -> None:
    report = project.json("plugins")
    assert [p["name"] for p in report] == [*BUILTINS, *packs]
    assert [p["layer"] for p in report] == ["builtin"] * len(BUILTINS) + ["entrypoint"] * len(packs)
    for seed in ("0", "1", "4242"):  # set and dict orders must not leak into the result
        assert project.json("plugins", PYTHONHASHSEED=seed) == report


def test_safe_read_wins_over_the_builtin_read(project: Project) -> None:
    read = by_name(project.json("tools"))["read"]
    assert (read["plugin"], read["overrides"], read["mode"]) == (
        "tooldeck-safe-read",
        ["builtin:read"],
        "native",
    )
    plugins = by_name(project.json("plugins"))
    assert plugins["builtin:read"]["overridden_by"] == [
        {"tool": "read", "plugin": "tooldeck-safe-read"}
    ]
    assert plugins["tooldeck-safe-read"]["overrides"] == [
        {"tool": "read", "plugin": "builtin:read"}
    ]
    (project.root / ".env").write_text("TOKEN=hunter2\n")
    (project.root / "notes.txt").write_text("hello\n")
    refused = project.tooldeck("call", "read", '{"path": ".env"}')
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "Refused to read .env" in refused.stderr and "hunter2" not in refused.stderr
    allowed = project.tooldeck("call", "read", '{"path": "notes.txt"}')
    assert allowed.returncode == 0 and "1: hello" in allowed.stdout, allowed.stderr


def test_the_broken_pack_is_reported_failed_and_harmless(project: Project) -> None:
    plugins = by_name(project.json("plugins"))
    broken = plugins.pop("tooldeck-broken")
    assert broken["status"] == "failed"
    assert "RuntimeError" in broken["reason"] and "tooldeck_broken" in broken["traceback"]
    assert {p["status"] for p in plugins.values()} == {"active"}
    table = project.tooldeck("plugins")
    assert table.returncode == 0 and "failed: entry point 'broken = tooldeck_broken'" in (
        table.stdout
    )
    tools = project.tooldeck("tools")
    assert tools.returncode == 0 and "tooldeck-hello" in tools.stdout, tools.stderr
    check = project.tooldeck("check", "tooldeck-broken")
    assert check.returncode == 1 and "tooldeck-broken: failed" in check.stdout


def test_every_pack_serves_next_to_the_others(project: Project) -> None:
    sources = {t["name"]: t["plugin"] for t in project.json("tools")}
    assert sources["greet"] == "tooldeck-hello"
    assert {"git_diff", "git_log", "git_show", "git_status"} <= {
        name for name, plugin in sources.items() if plugin == "tooldeck-git"
    }
    assert {sources[b.removeprefix("builtin:")] for b in BUILTINS if b != "builtin:read"} == set(
        BUILTINS
    ) - {"builtin:read"}
    greet = project.tooldeck("call", "greet", '{"name": "Ada"}')
    assert greet.returncode == 0 and greet.stdout.strip() == "Hello, Ada.", greet.stderr
    subprocess.run(["git", "init", "-q"], cwd=project.root, check=True, timeout=120)
    status = project.tooldeck("call", "--yes", "git_status", "{}")
    assert status.returncode == 0, status.stdout + status.stderr
    assert "notes.txt" not in status.stdout  # an empty repo: nothing to report
    assert project.tooldeck("call", "git_status", "{}").returncode == 1  # asks; no one there


def test_a_program_calls_tools_of_several_packs(project: Project) -> None:
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=project.root, check=True, timeout=120)
    program = "g = await tools.greet(name='Ada')\ns = await tools.git.status()\n[g, s['branch']]"
    done = project.tooldeck("run-code", "--yes", program)
    if project.mode == "native":
        assert done.returncode == 2 and "code mode is off" in done.stderr, done.stderr
        return
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout == '[\n  "Hello, Ada.",\n  "main"\n]\n'
    modes = {t["name"]: t["mode"] for t in project.json("tools")}
    assert (modes["greet"], modes["git_status"], modes["read"]) == ("code", "code", "native")


def test_uninstalling_safe_read_reveals_the_builtin_read(
    project: Project, wheelhouse: Path, pip: Pip, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in project.env().items():
        monkeypatch.setenv(name, value)
    host = Host.open(project.root)  # a long-lived host in this process, like an IDE's
    before = host.snapshot()
    assert before.catalog.tools["read"].source == "tooldeck-safe-read"
    (project.root / ".env").write_text("TOKEN=hunter2\n")
    try:
        removed = pip("uninstall", "--yes", "tooldeck-safe-read")
        assert removed.returncode == 0, removed.stdout + removed.stderr
        read = by_name(project.json("tools"))["read"]
        assert (read["plugin"], read["overrides"]) == ("builtin:read", [])
        plain = project.tooldeck("call", "read", '{"path": ".env"}')
        assert plain.returncode == 0 and "1: TOKEN=hunter2" in plain.stdout, plain.stderr
        host.refresh_plugins()
        assert host.snapshot().catalog.tools["read"].source == "builtin:read"
        assert "tooldeck-safe-read" not in [p.name for p in host.plugins]
        assert before.catalog.tools["read"].source == "tooldeck-safe-read"  # still frozen
    finally:
        [wheel] = wheelhouse.glob("tooldeck_safe_read-*.whl")
        back = pip("install", "--no-deps", str(wheel))
        assert back.returncode == 0, back.stdout + back.stderr
    host.refresh_plugins()
    assert host.snapshot().catalog.tools["read"].source == "tooldeck-safe-read"
