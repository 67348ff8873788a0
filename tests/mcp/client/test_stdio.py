"""A stdio server's command: a bare program name is found on PATH, then beside the
running interpreter (an un-activated virtual environment's console scripts)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tooldeck import Host
from tooldeck.mcp.client.stdio import resolved_command

BESIDE = Path(sys.executable).parent


def test_a_program_on_path_wins(tmp_path):
    program = tmp_path / "tooldeck"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    assert resolved_command(("tooldeck", "-x"), {"PATH": str(tmp_path)}) == (str(program), "-x")


def test_a_program_missing_from_path_is_found_beside_the_interpreter(tmp_path):
    assert (BESIDE / "tooldeck").is_file()  # this environment's console script
    found = resolved_command(("tooldeck", "--version"), {"PATH": str(tmp_path)})
    assert found == (str(BESIDE / "tooldeck"), "--version")


def test_paths_and_unknown_programs_are_left_as_written(tmp_path):
    assert resolved_command(("./server", "a"), {"PATH": ""}) == ("./server", "a")
    unknown = ("no-such-program-anywhere",)
    assert resolved_command(unknown, {"PATH": str(tmp_path)}) == unknown


def test_a_server_named_by_its_console_script_mounts_without_an_activated_venv(
    tooldeck_env, tmp_path
):
    served, root = tmp_path / "served", tmp_path / "project"
    served.mkdir()
    root.mkdir()
    command = json.dumps(["tooldeck", "mcp", "serve", "--location", str(served)])
    (root / "tooldeck.toml").write_text(
        f"[mcp.servers.td]\ncommand = {command}\ncodemode = false\ntimeout_s = 60\n"
        '[mcp.servers.td.env]\nPATH = "/usr/bin:/bin"\n'
    )
    with Host.open(root, plugins=[], trust=True) as host:
        row = next(p for p in host.plugins if p.name == "mcp:td")
        assert (row.status, row.reason) == ("active", None)
        assert "td_read" in host.snapshot().catalog.tools
