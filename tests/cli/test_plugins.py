"""``tooldeck plugins``."""

from __future__ import annotations

import json

from .conftest import trust


def test_table_shows_order_status_and_effects(project, tooldeck):
    (project / ".tooldeck" / "plugins" / "d_broken.py").write_text("raise OSError('disk')\n")
    trust(project)
    code, out, _ = tooldeck("plugins")
    assert code == 0
    assert out.splitlines() == [
        "#  PLUGIN          DISTRIBUTION  VERSION  LAYER  STATUS    TOOLS",
        "1  local:a_greet   -             -        local  active    +fun_joke; lost greet to "
        "local:b_loud",
        "2  local:b_loud    -             -        local  active    overrides greet "
        "(local:a_greet)",
        "3  local:c_secret  -             -        local  active    +secret",
        "4  local:d_broken  -             -        local  disabled  -",
        "    disabled: not selected by TOOLDECK_LOAD_PLUGINS",
    ]


def test_json_reports_failures_with_traceback(project, tooldeck, monkeypatch):
    monkeypatch.delenv("TOOLDECK_LOAD_PLUGINS")
    (project / ".tooldeck" / "plugins" / "d_broken.py").write_text("raise OSError('disk')\n")
    trust(project)
    code, out, _ = tooldeck("plugins", "--json")
    plugins = {p["name"]: p for p in json.loads(out)}
    assert code == 0
    broken = plugins["local:d_broken"]
    assert (broken["status"], broken["reason"]) == (
        "failed",
        "executing d_broken.py raised OSError: disk",
    )
    assert "OSError: disk" in broken["traceback"]
    assert plugins["local:b_loud"]["overrides"] == [{"tool": "greet", "plugin": "local:a_greet"}]
    assert plugins["local:a_greet"]["provides"] == ["fun_joke"]


def test_a_corrupt_approvals_file_is_reported_and_set_aside(project, tooldeck, caplog):
    from tooldeck.host.config.config_files import default_data_dir

    data = default_data_dir(project.resolve())
    data.mkdir(parents=True)
    (data / "permissions.json").write_text("{truncated")
    with caplog.at_level("WARNING", logger="tooldeck"):
        code, _, _ = tooldeck("plugins")
    assert code == 0
    assert f"permission approvals in {data / 'permissions.json'} were not valid" in caplog.text
    assert (data / "permissions.json.corrupt").read_text() == "{truncated"


def test_missed_update_and_remove_targets_show_as_warnings(project, tooldeck, monkeypatch):
    (project / ".tooldeck" / "plugins" / "e_typo.py").write_text(
        "from tooldeck import hookimpl\n\n"
        "@hookimpl\ndef tool_transform(editor):\n    editor.remove('gret')\n"
    )
    trust(project)
    monkeypatch.setenv("TOOLDECK_LOAD_PLUGINS", "local:a_greet,local:e_typo")
    code, out, _ = tooldeck("plugins")
    assert code == 0
    assert out.splitlines()[-1] == (
        "    warning: source 'local:e_typo', tool 'gret': remove('gret') did nothing: no tool "
        "has that effective name here"
    )
    code, out, _ = tooldeck("plugins", "--json")
    typo = {p["name"]: p for p in json.loads(out)}["local:e_typo"]
    assert (typo["status"], typo["diagnostics"], len(typo["warnings"])) == ("active", [], 1)
