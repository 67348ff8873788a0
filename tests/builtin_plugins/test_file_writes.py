"""``write``, ``edit`` and ``patch`` lose nothing and tear nothing (``_run/writes.py``).

Concurrent calls on one file take turns; a change made on disk or a symlink swapped
while the user is asked fails the call instead of being overwritten or followed; a
write that fails part-way (a file-size limit, in a child process) leaves the old file
whole; a FIFO or a device is refused before anything is read.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
import threading

import pytest

from tooldeck.builtin_plugins._run import writes
from tooldeck.builtin_plugins._run.writes import Target, stage
from tooldeck.host.config.config import Config, PermissionRule
from tooldeck.host.location.location import Location


def text_of(outcome) -> str:
    return "\n".join(part.text for part in outcome.content)


def envelope(*lines: str) -> str:
    return "\n".join(("*** Begin Patch", *lines, "*** End Patch"))


@pytest.fixture
def tools(builtins):
    return builtins.load("write", "edit", "patch")


def leftovers(directory) -> list[str]:
    return sorted(name for name in os.listdir(directory) if name.endswith(".tmp"))


# -- one writer per file -----------------------------------------------------------------------
async def test_concurrent_edits_of_one_file_all_land(builtins, root, tmp_path):
    async def asker(request):
        for _ in range(5):  # a user taking their time: every other call gets to run
            await asyncio.sleep(0)
        return "once"

    location = Location(root, data_dir=tmp_path / "d", asker=asker)
    edits = type(builtins)(location).load("edit")
    (root / "f.txt").write_text("".join(f"line {i}\n" for i in range(20)))
    outcomes = await asyncio.gather(
        *(
            edits.call("edit", path="f.txt", old_string=f"line {i}\n", new_string=f"LINE {i}\n")
            for i in range(20)
        )
    )
    assert [o.status for o in outcomes] == ["completed"] * 20
    assert (root / "f.txt").read_text() == "".join(f"LINE {i}\n" for i in range(20))
    assert leftovers(root) == []


@pytest.mark.parametrize("tool", ["write", "edit", "patch"])
async def test_a_change_on_disk_during_the_ask_is_not_overwritten(tools, root, asker, tool):
    (root / "f.txt").write_text("one\ntwo\n")

    def someone_else_writes(request):
        (root / "f.txt").write_text("one\ntwo\nthree\n")
        return "once"

    asker.on("edit", someone_else_writes)
    outcome = await tools.call(tool, **CHANGES[tool])
    assert outcome.status == "failed" and outcome.error.type == "tool.execution"
    assert "f.txt changed on disk after it was read" in text_of(outcome)
    assert (root / "f.txt").read_text() == "one\ntwo\nthree\n"
    assert leftovers(root) == []


CHANGES = {
    "write": {"path": "f.txt", "content": "mine\n"},
    "edit": {"path": "f.txt", "old_string": "two", "new_string": "2"},
    "patch": {"patch_text": envelope("*** Update File: f.txt", " one", "-two", "+2")},
}


@pytest.mark.parametrize("tool", ["write", "edit", "patch"])
async def test_a_symlink_swapped_during_the_ask_is_not_followed(tools, root, tmp_path, asker, tool):
    (root / "f_real.txt").write_text("one\ntwo\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("one\ntwo\n")
    (root / "f.txt").symlink_to(root / "f_real.txt")

    def swap(request):
        (root / "f.txt").unlink()
        (root / "f.txt").symlink_to(outside)
        return "once"

    asker.on("edit", swap)
    outcome = await tools.call(tool, **CHANGES[tool])
    assert outcome.status == "failed"
    assert f"f.txt changed while waiting for approval: it now leads to {outside}" in text_of(
        outcome
    )
    assert outside.read_text() == "one\ntwo\n" and (root / "f_real.txt").read_text() == "one\ntwo\n"
    assert [r.action for r in asker.requests] == ["edit"]


async def test_a_write_keeps_the_mode_of_the_file_it_replaces(tools, root):
    script = root / "run.sh"
    script.write_text("echo 1\n")
    os.chmod(script, 0o750)
    assert (await tools.call("write", path="run.sh", content="echo 2\n")).status == "completed"
    assert os.stat(script).st_mode & 0o777 == 0o750
    assert (await tools.call("edit", path="run.sh", old_string="2", new_string="3")).status == (
        "completed"
    )
    assert os.stat(script).st_mode & 0o777 == 0o750 and script.read_text() == "echo 3\n"


async def test_writing_through_a_symlink_keeps_the_link(tools, root):
    (root / "real.txt").write_text("old\n")
    (root / "alias.txt").symlink_to("real.txt")
    outcome = await tools.call("edit", path="alias.txt", old_string="old", new_string="new")
    assert outcome.status == "completed", text_of(outcome)
    assert (root / "alias.txt").is_symlink() and (root / "real.txt").read_text() == "new\n"


# -- what is not a regular file ----------------------------------------------------------------
# A FIFO blocked the event loop forever and /dev/zero was read without end, so these run
# in a child process that is killed if it hangs and has too little memory to read forever.
_CHILD_SETUP = """
import asyncio, json, os, resource, sys
from tooldeck.host.config.config import Config, PermissionRule
from tooldeck.host.config.config import Config, PermissionRule
from tooldeck.host.location.location import Location
from tooldeck.testing import TestHost

root, data = sys.argv[1], sys.argv[2]
allow = tuple(
    PermissionRule(action=action, resource="*", effect="allow")
    for action in ("edit", "external_directory")
)
location = Location(root, config=Config(permission=allow), data_dir=data)
host = TestHost.for_location(location, builtins=["write", "edit", "patch"])

def report(outcome):
    message = outcome.error.message if outcome.error else None
    print(json.dumps({"status": outcome.status, "message": message}))
"""


def run_child(code: str, root, tmp_path, *, timeout: float = 60) -> list[dict]:
    script = _CHILD_SETUP + textwrap.dedent(code)
    done = subprocess.run(
        [sys.executable, "-c", script, str(root), str(tmp_path / "child-data")],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_a_fifo_or_a_device_is_refused_before_anything_is_read(root, tmp_path):
    os.mkfifo(root / "pipe")
    (root / "zero").symlink_to("/dev/zero")
    delete = envelope("*** Delete File: pipe")
    results = run_child(
        f"""
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
        report(host.call_sync("write", path="pipe", content="x"))
        report(host.call_sync("edit", path="pipe", old_string="a", new_string="b"))
        report(host.call_sync("write", path="/dev/zero", content="x"))
        report(host.call_sync("write", path="zero", content="x"))
        report(host.call_sync("patch", patch_text={delete!r}))
        """,
        root,
        tmp_path,
    )
    not_regular = "is not a regular file (a device, socket or pipe)."
    assert [r["status"] for r in results] == ["failed"] * 5
    assert [r["message"] for r in results[:4]] == [
        f"pipe {not_regular}",
        f"pipe {not_regular}",
        f"/dev/zero {not_regular}",
        f"zero {not_regular}",
    ]
    assert results[4]["message"].endswith(f"'*** Delete File: pipe': pipe {not_regular}")


# -- a write that fails part-way ---------------------------------------------------------------
def test_a_file_size_limit_leaves_the_old_content_whole(root, tmp_path):
    old = "old line\n" * 100  # 900 bytes; the limit below lets nothing over 1000 be written
    for name in ("w.txt", "e.txt", "p1.txt", "p2.txt"):
        (root / name).write_text(old)
    big = "new line\n" * 200
    patch = envelope(
        *("*** Update File: p1.txt", "-old line", "+short"),
        *("*** Update File: p2.txt", "-old line", *(f"+{line}" for line in big.splitlines())),
    )
    results = run_child(
        f"""
        resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))
        big = {big!r}
        report(host.call_sync("write", path="w.txt", content=big))
        old = "old line\\n"
        edit = {{"old_string": old, "new_string": big, "replace_all": True}}
        report(host.call_sync("edit", path="e.txt", **edit))
        report(host.call_sync("patch", patch_text={patch!r}))
        """,
        root,
        tmp_path,
    )
    assert [r["status"] for r in results] == ["failed"] * 3
    assert results[0]["message"] == "Cannot write w.txt: File too large."
    assert results[1]["message"] == "Cannot write e.txt: File too large."
    assert results[2]["message"] == (
        "Patch not applied; nothing was written. Cannot write p2.txt: File too large."
    )
    for name in ("w.txt", "e.txt", "p1.txt", "p2.txt"):
        assert (root / name).read_text() == old, name
    assert leftovers(root) == []


def test_a_rename_failing_midway_says_exactly_what_is_on_disk(tools, root):
    """Past staging only a rename or a delete can fail; the failure lists what landed."""
    from tooldeck.builtin_plugins._run import patch

    for name in ("a.txt", "b.txt"):
        (root / name).write_text("old\n")
    targets = [Target.of(root / name, name) for name in ("a.txt", "b.txt", "c.txt")]
    staged = [stage(t.real, b"new\n", t.shown, like=t.real) for t in targets[:2]]
    os.unlink(staged[1].temp)  # the second rename will not find its file
    new = patch.TextFile("new\n")
    changes = [
        patch._Change("M", targets[0], "old\n", new),
        patch._Change("M", targets[1], "old\n", new),
        patch._Change("D", targets[2], "", None),
    ]
    with pytest.raises(patch.ToolFailure) as failed:
        patch._commit(changes, staged)
    assert failed.value.message == (
        "Patch failed at 'M b.txt'. Cannot write b.txt: No such file or directory.\n"
        "Completed before the failure (these changes are on disk):\n  M a.txt\n"
        "Not applied:\n  D c.txt\n"
        "Fix the cause, then send a patch with only the operations not yet applied."
    )
    assert (root / "a.txt").read_text() == "new\n" and (root / "b.txt").read_text() == "old\n"


# -- the lock itself ---------------------------------------------------------------------------
def test_the_lock_is_shared_by_threads_with_their_own_event_loops(location, root, join_threads):
    target = Target.of(root / "f.txt", "f.txt")
    inside = []

    async def turn(n: int) -> None:
        async with writes.writing(location, target):
            inside.append(n)
            await asyncio.sleep(0.001)
            assert inside[-1] == n  # nobody else got in while this one held the lock
            inside.append(-n)

    def run(n: int) -> None:
        asyncio.run(turn(n))

    threads = [threading.Thread(target=run, args=(n,)) for n in range(1, 9)]
    for thread in threads:
        thread.start()
    join_threads(*threads)
    assert len(inside) == 16
    assert all(inside[i] == -inside[i + 1] for i in range(0, 16, 2))


async def test_a_cancelled_waiter_does_not_strand_the_lock(location, root):
    target = Target.of(root / "f.txt", "f.txt")
    release = asyncio.Event()

    async def holder() -> None:
        async with writes.writing(location, target):
            await release.wait()

    async def waiter() -> str:
        async with writes.writing(location, target):
            return "got it"

    held = asyncio.create_task(holder())
    await asyncio.sleep(0)
    cancelled = asyncio.create_task(waiter())
    await asyncio.sleep(0)
    cancelled.cancel()
    later = asyncio.create_task(waiter())
    await asyncio.sleep(0)
    release.set()
    await held
    assert await later == "got it"
    assert cancelled.cancelled()
    assert not writes._locks[location]._users  # nothing kept once nobody holds or waits


# -- heavy work off the event loop -------------------------------------------------------------
async def test_the_loop_keeps_running_while_an_edit_searches_a_large_file(builtins, root, tmp_path):
    """A near miss on a large file runs every fallback matcher and the similar-line
    search: that work happens in a worker thread while other tasks keep running."""
    allow = PermissionRule(action="edit", resource="*", effect="allow")
    location = Location(root, config=Config(permission=(allow,)), data_dir=tmp_path / "d")
    edits = type(builtins)(location).load("edit")
    (root / "big.py").write_text("".join(f"    value_{i} = compute({i})\n" for i in range(60_000)))
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0)
            ticks += 1

    ticking = asyncio.create_task(ticker())
    await asyncio.sleep(0)
    before = ticks
    outcome = await edits.call(
        "edit", path="big.py", old_string="value_30000 = compute(30000)  # x", new_string="y"
    )
    during = ticks - before
    ticking.cancel()
    assert outcome.status == "failed"
    assert "The most similar line is 30001:     value_30000 = compute(30000)" in text_of(outcome)
    assert during > 10  # with the search on the loop, no other task ran until it ended


async def test_a_file_over_the_size_limit_is_refused_before_asking(tools, root, asker, monkeypatch):
    from tooldeck.builtin_plugins._run import files

    monkeypatch.setattr(files, "MAX_FILE_BYTES", 1024)
    (root / "big.txt").write_text("x\n" * 600)
    outcome = await tools.call("edit", path="big.txt", old_string="x", new_string="y")
    assert outcome.error.message == (
        "big.txt is 1.2 KiB, too large to load (the file tools stop at 1 KiB). Search it "
        "with grep, or change it with shell tools."
    )
    assert asker.requests == []
