from __future__ import annotations

import asyncio
import os
import re
import time
from pathlib import Path

import pytest

from tooldeck.builtin_plugins._run.process import KILL_GRACE_SECONDS, read_tail, run_in_group
from tooldeck.builtin_plugins._run.shell import command_resources
from tooldeck.host.config.config import Config, OutputConfig, PermissionRule
from tooldeck.host.location.location import Location
from tooldeck.host.permissions.request import Reject

from ..processes import children_of, hold_after_fork, running


def text_of(outcome) -> str:
    return "".join(part.text for part in outcome.content)


def live_members(pgid: int) -> list[int]:
    """Processes of the group that are still running; zombies (reaped by no one in some
    containers) are dead and do not count."""
    alive = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_bytes()
        except OSError:
            continue
        fields = stat.rpartition(b")")[2].split()
        if int(fields[2]) == pgid and fields[0] != b"Z":
            alive.append(int(name))
    return alive


async def pid_from(path: Path) -> int:
    deadline = time.monotonic() + 30  # a bound on a start, generous for a loaded box
    while not (path.exists() and path.read_text().strip()):
        assert time.monotonic() < deadline, "the command never started"
        await asyncio.sleep(0.01)
    return int(path.read_text())


@pytest.fixture
def shell(builtins):
    builtins.load("shell")

    async def call(command: str, **options):
        return await builtins.call("shell", command=command, **options)

    return call


def builtins_for(builtins, root, tmp_path, asker, config):
    location = Location(root, config=config, data_dir=tmp_path / "data", asker=asker)
    return type(builtins)(location).load("shell")


# -- running ----------------------------------------------------------------------------------
async def test_echo_returns_output_and_exit_code(shell, tmp_path):
    outcome = await shell("echo hi")
    assert outcome.status == "completed"
    assert text_of(outcome) == "hi\n[exit code 0]"
    assert outcome.output == {
        "command": "echo hi",
        "output": "hi\n",
        "exit_code": 0,
        "signal": None,
        "timed_out": False,
        "truncated": False,
        "output_path": None,
        "workdir": str(tmp_path / "project"),
    }
    assert list((tmp_path / "data" / "shell").iterdir()) == []  # output that fits is not kept
    assert "output" not in outcome.metadata  # the text is the content already


async def test_stdout_and_stderr_are_combined_in_order(shell):
    outcome = await shell("echo one; echo two >&2; echo three; echo four >&2")
    assert text_of(outcome) == "one\ntwo\nthree\nfour\n[exit code 0]"


async def test_a_failing_command_completes_with_its_exit_code(shell):
    outcome = await shell("echo nope >&2; exit 7")
    assert outcome.status == "completed"
    assert text_of(outcome) == "nope\n[exit code 7]"
    assert outcome.output["exit_code"] == 7
    assert text_of(await shell("true")) == "(no output)\n[exit code 0]"


async def test_stdin_is_empty_and_workdir_is_used(shell, root):
    (root / "sub").mkdir()
    outcome = await shell("cat; pwd", workdir="sub")
    assert text_of(outcome) == f"{root / 'sub'}\n[exit code 0]"


async def test_long_output_returns_the_tail_and_the_full_file(shell):
    outcome = await shell("seq 1 5000")
    text = text_of(outcome)
    assert outcome.status == "completed"
    assert outcome.metadata["truncated"] is True
    path = Path(outcome.output["output_path"])
    assert path.is_absolute()
    assert path.read_text() == "".join(f"{n}\n" for n in range(1, 5001))
    marker, _, rest = text.partition("\n\n")
    assert marker.startswith("[output truncated: the first 3,004 lines")
    assert f"full output saved to {path}." in marker
    assert rest == "".join(f"{n}\n" for n in range(3005, 5001)) + "[exit code 0]"
    assert outcome.output["output"] == "".join(f"{n}\n" for n in range(3005, 5001))


async def test_one_huge_line_is_cut_to_the_byte_limit(builtins, root, tmp_path, asker):
    config = Config(output=OutputConfig(max_bytes=2048))
    tool = builtins_for(builtins, root, tmp_path, asker, config)
    outcome = await tool.call("shell", command="printf 'é%.0s' $(seq 1 5000)")
    body = text_of(outcome).split("\n\n", 1)[1].removesuffix("\n[exit code 0]")
    assert set(body) == {"é"}  # cut at a character boundary
    assert len(body.encode()) <= 2048 - 1024
    assert Path(outcome.output["output_path"]).read_text() == "é" * 5000


async def test_a_data_dir_that_is_a_file_says_where_and_runs_nothing(builtins, root, tmp_path):
    (tmp_path / "data").write_text("a file where the data dir should be")
    location = Location(root, data_dir=tmp_path / "data", asker=lambda request: "once")
    outcome = await type(builtins)(location).load("shell").call("shell", command="touch ran")
    assert outcome.status == "failed"
    assert outcome.error.message == (
        f"Could not create the output file under {tmp_path / 'data' / 'shell'}: "
        "Not a directory. The command was not run."
    )
    assert not (root / "ran").exists()


# -- killing ----------------------------------------------------------------------------------
async def test_a_timeout_kills_the_whole_process_group(shell, root):
    outcome = await shell("echo $$ > pid; echo started; sleep 30 & sleep 30; wait", timeout=600)
    assert outcome.status == "completed"
    status, hint = text_of(outcome).split("\n")[1:]
    assert status == "[Command timed out after 600 ms and was killed]"
    assert hint.startswith("If it needs longer, run it again with a larger timeout (at most 600000")
    assert "keep_background" in hint
    assert outcome.output["output"] == "started\n"
    assert outcome.output["timed_out"] is True
    assert outcome.output["exit_code"] is None
    assert live_members(int((root / "pid").read_text())) == []


async def test_a_per_tool_timeout_kills_the_whole_process_group(builtins, root, tmp_path, asker):
    config = Config.model_validate({"tools": {"shell": {"timeout_s": 0.5}}})
    tool = builtins_for(builtins, root, tmp_path, asker, config)
    outcome = await tool.call("shell", command="echo $$ > pid; sleep 30 & sleep 30; wait")
    assert (outcome.status, outcome.error.type) == ("failed", "tool.execution")
    assert "did not finish within its 0.5 s limit (timeout_s)" in outcome.error.message
    assert live_members(int((root / "pid").read_text())) == []  # killed, not orphaned


async def test_cancellation_kills_the_group_and_propagates(builtins, root, tmp_path):
    builtins.load("shell")
    task = asyncio.create_task(
        builtins.call("shell", command="echo $$ > pid; sleep 30 & sleep 30; wait")
    )
    pgid = await pid_from(root / "pid")
    assert live_members(pgid)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert live_members(pgid) == []
    assert list((tmp_path / "data" / "shell").iterdir()) == []


@pytest.mark.parametrize("cancellations", [1, 2])
def test_a_call_cancelled_while_its_process_is_being_set_up_leaves_nothing_running(
    tmp_path, cancellations
):
    """asyncio forks the command first, then finishes setting it up; cancelled in between,
    it would kill the command alone. The command's own child must not outlive it, nor
    when a second cancellation lands while the first waits for the setup to finish (one
    loop round later): the setup stays shielded, and the whole run is still stopped."""
    child = tmp_path / "child"

    async def scenario() -> None:
        script = f"sleep 30 & echo $! > {child}; wait"
        others = children_of(os.getpid())
        with open(tmp_path / "out", "wb") as out:
            task = asyncio.create_task(
                run_in_group(["sh", "-c", script], cwd=tmp_path, output=out.fileno(), timeout=60)
            )
            await hold_after_fork(others, child)
            for _ in range(cancellations):
                task.cancel()
                await asyncio.sleep(0)  # the task takes it and waits for the setup
            with pytest.raises(asyncio.CancelledError):
                await task

    asyncio.run(scenario())
    assert not running(int(child.read_text()))


async def test_what_ignores_sigterm_is_killed_after_the_grace(tmp_path):
    pidfile = tmp_path / "pid"
    fd = os.open(tmp_path / "out", os.O_WRONLY | os.O_CREAT)
    try:
        finished = await run_in_group(
            ["/bin/sh", "-c", f"trap '' TERM; echo $$ > {pidfile}; sleep 30 & wait"],
            cwd=tmp_path,
            output=fd,
            timeout=0.3,
            grace=0.2,
        )
    finally:
        os.close(fd)
    assert finished.timed_out and finished.forced
    assert finished.returncode == -9
    assert finished.seconds >= 0.3 + 0.2  # the SIGKILL came after the grace
    assert live_members(int(pidfile.read_text())) == []


IGNORES_SIGTERM = "trap '' TERM; echo $$ > pid; sleep 30 & wait"
STATED = re.compile(r"(\d+\.\d) s after it started")


async def test_a_timeout_that_took_longer_to_stop_says_when_it_ended(shell, root):
    began = time.monotonic()
    outcome = await shell(IGNORES_SIGTERM, timeout=600)
    took = time.monotonic() - began
    (status,) = [s for s in text_of(outcome).splitlines() if s.startswith("[Command timed out")]
    assert status.startswith("[Command timed out after 600 ms and was killed (it ended ")
    assert status.endswith(" s after it started: it ignored SIGTERM until it was killed)]")
    stated = float(STATED.search(status).group(1))
    assert 0.6 + KILL_GRACE_SECONDS - 0.1 <= stated <= took + 0.1  # the real time, not 0.6
    assert live_members(int((root / "pid").read_text())) == []


async def test_a_per_tool_timeout_that_took_longer_to_stop_says_when_it_ended(
    builtins, root, tmp_path, asker
):
    config = Config.model_validate({"tools": {"shell": {"timeout_s": 0.5}}})
    tool = builtins_for(builtins, root, tmp_path, asker, config)
    began = time.monotonic()
    outcome = await tool.call("shell", command=IGNORES_SIGTERM)
    took = time.monotonic() - began
    message = outcome.error.message
    assert "did not finish within its 0.5 s limit (timeout_s) and was stopped, " in message
    stated = float(STATED.search(message).group(1))
    assert 0.5 + KILL_GRACE_SECONDS - 0.1 <= stated <= took + 0.1
    assert live_members(int((root / "pid").read_text())) == []


async def test_background_processes_are_stopped_when_the_command_exits(shell, root):
    """``&`` stays in the group; ``setsid`` leaves it and is found by the run's marker."""
    outcome = await shell(
        "sleep 60 & echo $! > bg; setsid sleep 60 & echo $! > sid; "
        "sh -c 'sleep 60 & echo $! > nested' & wait $!; echo done"
    )
    assert outcome.status == "completed" and text_of(outcome) == "done\n[exit code 0]"
    pids = [int((root / name).read_text()) for name in ("bg", "sid", "nested")]
    assert [pid for pid in pids if running(pid)] == []


async def test_keep_background_leaves_them_running(shell, root):
    outcome = await shell("setsid sleep 60 & echo $! > sid", keep_background=True)
    assert outcome.status == "completed"
    pid = int((root / "sid").read_text())
    try:
        assert running(pid)
    finally:
        os.kill(pid, 9)


# -- workdir and permission -------------------------------------------------------------------
async def test_missing_or_file_workdir_fails_clearly(shell, root, asker):
    (root / "file.txt").write_text("x")
    missing = await shell("touch marker", workdir="nope")
    assert missing.status == "failed"
    assert f"workdir {root / 'nope'} does not exist" in text_of(missing)
    not_dir = await shell("touch marker", workdir="file.txt")
    assert "is not a directory" in text_of(not_dir)
    assert not (root / "marker").exists()
    assert asker.asked("shell") == []


async def test_the_ask_has_the_command_as_resource(shell, root, asker):
    await shell("echo hi", description="Print a greeting")
    (ask,) = asker.asked()
    assert (ask.action, ask.resources) == ("shell", ("echo hi",))
    assert ask.metadata == {
        "command": "echo hi",
        "description": "Print a greeting",
        "workdir": str(root),
    }
    assert ask.source == {"type": "tool", "message_id": "m1", "id": "call_1"}


@pytest.mark.parametrize("command", ["rm -f nothing; touch marker", "touch marker && rm -rf x"])
async def test_a_deny_rule_fails_and_nothing_runs(builtins, root, tmp_path, asker, command):
    rule = PermissionRule(action="shell", resource="rm *", effect="deny")
    tool = builtins_for(builtins, root, tmp_path, asker, Config(permission=(rule,)))
    outcome = await tool.call("shell", command=command)
    assert outcome.status == "failed"
    assert outcome.error.type == "permission.rejected"
    assert not (root / "marker").exists()
    assert asker.asked() == []


async def test_reject_declines_and_nothing_runs(shell, root, asker):
    asker.replies["shell"] = "reject"
    outcome = await shell("touch marker")
    assert outcome.status == "declined"
    assert not (root / "marker").exists()


async def test_reject_with_feedback_fails_with_it(shell, root, asker):
    asker.replies["shell"] = Reject("use make instead")
    outcome = await shell("touch marker")
    assert outcome.status == "failed"
    assert outcome.error.type == "tool.execution"
    assert "use make instead" in outcome.error.message
    assert not (root / "marker").exists()


async def test_an_outside_workdir_asks_external_directory_first(shell, tmp_path, asker):
    outside = tmp_path / "outside"
    outside.mkdir()
    outcome = await shell("pwd", workdir=str(outside))
    assert text_of(outcome) == f"{outside}\n[exit code 0]"
    assert [(r.action, r.resources) for r in asker.asked()] == [
        ("external_directory", (f"{outside}/*",)),
        ("shell", ("pwd",)),
    ]


async def test_the_tool_is_native_with_the_shell_action(builtins):
    builtins.load("shell")
    (tool,) = builtins.service.list()
    assert (tool.name, tool.codemode, tool.permission) == ("shell", False, "shell")
    assert "2000 lines or 50 KiB" in tool.description


# -- helpers ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("command", "resources"),
    [
        ("git status", ("git status",)),
        ("echo 'a && b' | grep a", ("echo 'a && b' | grep a", "echo a && b", "grep a")),
        ("cd x && make; ls 2>&1", ("cd x && make; ls 2>&1", "cd x", "make", "ls 2 >& 1")),
        ("echo $(rm -rf /)", ("echo $(rm -rf /)", "echo $", "rm -rf /")),
        ("a\nb", ("a\nb", "a", "b")),
        ("echo 'unbalanced && x", ("echo 'unbalanced && x",)),
    ],
)
def test_command_resources_split_chains(command, resources):
    assert command_resources(command) == resources


def test_read_tail_keeps_whole_lines_within_both_limits(tmp_path):
    path = tmp_path / "out"
    path.write_text("".join(f"line {n}\n" for n in range(100)))
    tail = read_tail(path, 3, 10_000)
    assert (tail.text, tail.cut, tail.omitted_lines) == ("line 97\nline 98\nline 99\n", True, 97)
    tail = read_tail(path, 1000, 20)  # the partial first line of the window is dropped
    assert (tail.text, tail.omitted_bytes) == ("line 98\nline 99\n", 790 - 16)
    assert read_tail(path, 100, 10_000).cut is False


def test_a_timeout_at_the_limit_points_to_the_background_instead():
    from tooldeck.builtin_plugins._run.shell import _retry_hint
    from tooldeck.builtin_plugins.shell import MAX_TIMEOUT_MS

    hint = _retry_hint(MAX_TIMEOUT_MS)
    assert hint.startswith("The timeout was already the longest allowed")
    assert "keep_background" in hint and "larger timeout" not in hint
