"""A slow MCP server start says so on stderr; a quick one, and stdout, stay quiet."""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

import pytest

from tooldeck.cli import main
from tooldeck.cli._progress import slow_start_line

from ..mcp.conftest import server_command, toml_list, wait_for
from .conftest import trust

STARTING = "tooldeck: starting MCP server 'slow'…"


def timers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if isinstance(t, threading.Timer) and t.is_alive()]


def test_a_start_that_ends_before_the_delay_prints_nothing(capsys):
    done = slow_start_line("quick", after=3600)  # as a connection starts
    [timer] = timers()
    done()  # as its start ends
    assert timer.finished.is_set()  # the pending line was cancelled, not merely late
    timer.join(timeout=60)
    assert capsys.readouterr() == ("", "")


def test_a_start_still_running_after_the_delay_prints_one_line_on_stderr(capsys):
    printed = []
    done = slow_start_line("slow", after=0)
    wait_for(lambda: printed.append(capsys.readouterr()) or STARTING in printed[-1].err)
    done()
    assert "".join(out for out, _ in printed) == ""
    assert "".join(err for _, err in printed) == STARTING + "\n"


class Slow:
    """A stderr whose every write lets the other threads run before it returns."""

    def __init__(self) -> None:
        self.written: list[str] = []

    def write(self, text: str) -> int:
        self.written.append(text)
        time.sleep(0.01)
        return len(text)

    def flush(self) -> None:
        pass


def test_servers_slow_together_print_whole_lines(monkeypatch):
    stderr = Slow()
    monkeypatch.setattr(sys, "stderr", stderr)
    names = [f"s{n}" for n in range(6)]
    stops = [slow_start_line(name, after=0) for name in names]
    wait_for(lambda: "".join(stderr.written).count("\n") == len(names))
    for stop in stops:
        stop()
    lines = "".join(stderr.written).splitlines()
    assert sorted(lines) == [f"tooldeck: starting MCP server '{name}'…" for name in names]


# -- real servers --------------------------------------------------------------------------------
HANGS = [sys.executable, "-c", "import time; time.sleep(120)"]  # never answers: a hung server


def slow_counted(starts: Path) -> list[str]:
    """The counted fixture server, started two seconds late (as a slow real one is)."""
    script = server_command("counted_server.py", plain=True)[1]
    late = (
        "import runpy, sys, time; time.sleep(2); "
        f"sys.argv = [{script!r}, {str(starts)!r}]; runpy.run_path({script!r}, run_name='__main__')"
    )
    return [sys.executable, "-c", late]


@pytest.fixture
def project(clean_env, monkeypatch):
    root = clean_env / "project"
    root.mkdir()
    monkeypatch.setattr("tooldeck.builtin_plugins.BUILTIN_PLUGINS", ())
    return root


def run(root: Path, *argv: str, capsys) -> tuple[int, str, str]:
    code = main(["--location", str(root), *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_tools_says_which_server_it_waits_for_while_one_hangs(project, capsys):
    (project / "tooldeck.toml").write_text(
        f"[mcp.servers.slow]\ncommand = {toml_list(HANGS)}\ntimeout_s = 3\n"
    )
    trust(project)
    code, out, err = run(project, "tools", capsys=capsys)
    assert code == 0 and "starting" not in out
    lines = err.splitlines()
    assert lines[0] == STARTING
    assert lines[1].startswith("tooldeck: MCP server mcp:slow failed: timed out after 3s")


def test_call_and_json_output_keep_stdout_clean_while_a_slow_server_starts(project, capsys):
    starts = project / "starts"
    config = f"[mcp.servers.slow]\ncommand = {toml_list(slow_counted(starts))}\n"
    config += '[[permission]]\naction = "slow_*"\neffect = "allow"\n'
    (project / "tooldeck.toml").write_text(config)
    trust(project)
    code, out, err = run(project, "tools", "--json", capsys=capsys)  # lists: keeps a listing
    assert code == 0 and err == STARTING + "\n"
    assert [row["plugin"] for row in json.loads(out)] == ["mcp:slow"]
    code, out, err = run(project, "call", "slow_echo", '{"text": "hi"}', "--json", capsys=capsys)
    assert code == 0 and err == STARTING + "\n"  # the call started it again
    assert json.loads(out)["content"] == [{"type": "text", "text": "echo:hi"}]
    assert len(starts.read_text().splitlines()) == 2
