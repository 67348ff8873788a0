"""``tests/warm``: a warm start runs the program as a plain start would.

Each test runs the same program both ways and compares what it saw and how it ended
(``tests/mcp/client/test_mount.py`` mounts one fixture MCP server both ways in one host).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from .mcp.conftest import process_gone, wait_for
from .warm import warm

SEES = """\
import json, os, sys
print(json.dumps({
    "argv": sys.argv, "cwd": os.getcwd(), "marker": os.environ.get("WARM_MARKER"),
    "path": sys.path[:2], "stdin": sys.stdin.read(), "main": __name__,
}))
print("to stderr", file=sys.stderr)
sys.exit(3)
"""


def both(argv: list[str], **options) -> tuple[subprocess.CompletedProcess[str], ...]:
    return tuple(
        subprocess.run(command, capture_output=True, text=True, timeout=120, **options)
        for command in (argv, warm(argv))
    )


def test_a_program_sees_its_arguments_directory_environment_path_and_stdio(tmp_path):
    env = {**os.environ, "WARM_MARKER": "m1", "PYTHONPATH": str(tmp_path / "extra")}
    plain, warmed = both(
        [sys.executable, "-c", SEES, "a", "b c"], cwd=tmp_path, input="in", env=env
    )
    assert (
        json.loads(warmed.stdout)
        == json.loads(plain.stdout)
        == {
            "argv": ["-c", "a", "b c"],
            "cwd": str(tmp_path),
            "marker": "m1",
            "path": ["", str(tmp_path / "extra")],
            "stdin": "in",
            "main": "__main__",
        }
    )
    assert warmed.stderr == plain.stderr == "to stderr\n"
    assert warmed.returncode == plain.returncode == 3


def test_a_script_runs_as_main_with_its_folder_first(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(SEES)
    plain, warmed = both([sys.executable, str(script), "x"], input="")
    assert json.loads(warmed.stdout)["argv"] == [str(script), "x"]
    assert json.loads(warmed.stdout)["path"][0] == json.loads(plain.stdout)["path"][0]
    assert warmed.returncode == plain.returncode == 3


def test_an_uncaught_exception_ends_it_with_status_1_and_its_traceback():
    plain, warmed = both([sys.executable, "-c", "raise KeyError('boom')"])
    assert warmed.returncode == plain.returncode == 1
    assert warmed.stderr.splitlines()[-1] == plain.stderr.splitlines()[-1] == "KeyError: 'boom'"


def sleeping(tmp_path: Path) -> tuple[subprocess.Popen[bytes], int]:
    """A warm command whose program sleeps, and the program's own pid."""
    pidfile = tmp_path / "pid"
    program = (
        f"import os, time; open({str(pidfile)!r}, 'w').write(str(os.getpid())); time.sleep(60)"
    )
    command = subprocess.Popen(warm([sys.executable, "-c", program]))
    return command, int(wait_for(lambda: pidfile.exists() and pidfile.read_text()))


def test_a_signal_to_the_command_ends_the_program_as_it_would_end_a_plain_one(tmp_path):
    command, pid = sleeping(tmp_path)
    command.send_signal(signal.SIGTERM)
    assert command.wait(timeout=30) == -signal.SIGTERM
    wait_for(lambda: process_gone(pid), timeout=30)


def test_a_command_killed_outright_takes_its_program_along(tmp_path):
    command, pid = sleeping(tmp_path)
    command.kill()
    command.wait(timeout=30)
    wait_for(lambda: process_gone(pid), timeout=30)


def test_only_this_interpreter_s_programs_start_warm():
    with pytest.raises(ValueError, match="only this interpreter"):
        warm(["python3", "-c", "pass"])


def test_a_zygote_that_ended_is_reported_with_what_it_printed(tmp_path):
    ended = subprocess.Popen([sys.executable, "-c", "pass"])  # a zombie until waited for
    wait_for(lambda: process_gone(ended.pid))
    log = tmp_path / "zygote.log"
    log.write_text("ModuleNotFoundError: No module named 'mcp'\n")
    launch = warm([sys.executable, "-c", "pass"])[:4]
    argv = [*launch, str(tmp_path / "no-socket"), str(ended.pid), str(log), "-c", "pass"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    ended.wait()
    assert done.returncode == 1
    assert f"the zygote (pid {ended.pid}) exited" in done.stderr
    assert "No module named 'mcp'" in done.stderr
