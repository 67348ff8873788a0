from __future__ import annotations

import asyncio
import logging
import subprocess
import sys

import pytest

from tooldeck import Location, Tool, ToolContext, ToolResult, ToolService
from tooldeck.errors import (
    PermissionBlocked,
    PermissionCorrected,
    PermissionDeclined,
    ReplyError,
)
from tooldeck.host.config.config import Config, PermissionRule, StoreConfig
from tooldeck.host.permissions.permission import PermissionService
from tooldeck.host.permissions.policy import policy
from tooldeck.host.permissions.request import PermissionRequest, Reject
from tooldeck.host.store.sqlite import SqliteStore

SOURCE = {"type": "tool", "message_id": "m1", "id": "call_1"}


def rule(action, resource, effect):
    return PermissionRule(action=action, resource=resource, effect=effect)


def make(tmp_path, *rules, asker=None):
    root = tmp_path / "root"
    root.mkdir(exist_ok=True)
    config = Config(permission=tuple(rules))
    return Location(root, data_dir=tmp_path / "data", asker=asker, config=config)


class Script:
    """A sync asker answering from a fixed reply and recording every request."""

    def __init__(self, reply="once"):
        self.reply = reply
        self.requests: list[PermissionRequest] = []

    def __call__(self, request):
        self.requests.append(request)
        return self.reply


class AsyncScript(Script):
    async def __call__(self, request):
        await asyncio.sleep(0)
        return Script.__call__(self, request)


async def assert_(location, action, resources, **options):
    options.setdefault("source", SOURCE)
    await location.permission.assert_(action, resources, **options)


# --- evaluation --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "effect"),
    [
        ("read", "allow"),
        ("glob", "allow"),
        ("grep", "allow"),
        ("question", "allow"),
        ("edit", "ask"),
        ("bash", "ask"),
        ("external_directory", "ask"),
        ("mcp_x_y", "ask"),
    ],
)
def test_builtin_defaults(tmp_path, action, effect):
    assert make(tmp_path).permission.evaluate(action, "/anything/at/all") == effect


def test_configured_rules_sit_over_the_defaults(tmp_path):
    service = make(tmp_path, rule("read", "*.env", "deny"), rule("bash", "git status *", "allow"))
    service = service.permission
    assert service.evaluate("read", "/x/.env") == "deny"
    assert service.evaluate("read", "/x/a.py") == "allow"
    assert service.evaluate("bash", "git status") == "allow"
    assert service.evaluate("bash", "git status --short") == "allow"
    assert service.evaluate("bash", "git push") == "ask"


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        ((rule("edit", "*", "allow"), rule("edit", "*.lock", "deny")), "deny"),
        ((rule("edit", "*.lock", "deny"), rule("edit", "*", "allow")), "allow"),
        ((rule("edit", "*", "deny"), rule("edit", "*.lock", "ask")), "ask"),
    ],
)
def test_last_matching_configured_rule_wins(tmp_path, rules, expected):
    assert make(tmp_path, *rules).permission.evaluate("edit", "uv.lock") == expected


def test_relative_path_patterns_match_absolute_paths_inside_the_location(tmp_path):
    location = make(tmp_path, rule("edit", "src/**", "allow"))
    assert location.permission.evaluate("edit", f"{location.root}/src/a/b.py") == "allow"
    assert location.permission.evaluate("edit", "src/a.py") == "allow"
    assert location.permission.evaluate("edit", f"{location.root}/lib/a.py") == "ask"
    assert location.permission.evaluate("edit", "/elsewhere/src/a.py") == "ask"


# --- assert_: allow, deny, ask --------------------------------------------------------


async def test_allowed_resources_never_reach_the_asker(tmp_path):
    asker = Script()
    location = make(tmp_path, rule("edit", "a.py", "allow"), asker=asker)
    await assert_(location, "read", ["/etc/hosts"])
    await assert_(location, "edit", ["a.py"])
    assert asker.requests == []


async def test_a_denied_resource_blocks_without_asking(tmp_path):
    asker = Script()
    deny = rule("edit", "*.env", "deny")
    location = make(tmp_path, deny, asker=asker)
    with pytest.raises(PermissionBlocked) as caught:
        await assert_(location, "edit", ["a.py", ".env"])
    assert caught.value.rule == deny
    assert caught.value.resources == (".env",)
    assert asker.requests == []


@pytest.mark.parametrize("asker_type", [Script, AsyncScript])
async def test_once_allows_this_call_and_saves_nothing(tmp_path, asker_type):
    asker = asker_type("once")
    location = make(tmp_path, asker=asker)
    await assert_(location, "edit", ["a.py"])
    await assert_(location, "edit", ["a.py"])
    assert len(asker.requests) == 2
    assert location.permission.evaluate("edit", "a.py") == "ask"
    assert not (tmp_path / "data").exists()  # nothing saved: not even a database


async def test_the_asker_is_asked_once_for_the_resources_still_at_ask(tmp_path):
    asker = Script()
    location = make(tmp_path, rule("edit", "a.py", "allow"), asker=asker)
    await assert_(
        location, "edit", ["a.py", "b.py", "c.py"], metadata={"diff": "+1"}, session_id="s1"
    )
    [request] = asker.requests
    assert request.action == "edit"
    assert request.resources == ("b.py", "c.py")
    assert request.save == ("b.py", "c.py")
    assert dict(request.metadata) == {"diff": "+1"}
    assert dict(request.source) == SOURCE
    assert request.session_id == "s1"


async def test_a_single_string_or_no_resources(tmp_path):
    asker = Script()
    location = make(tmp_path, asker=asker)
    await assert_(location, "edit", "a.py")
    await assert_(location, "webfetch", [])
    assert [r.resources for r in asker.requests] == [("a.py",), ("*",)]


@pytest.mark.parametrize("asker_type", [Script, AsyncScript])
async def test_always_saves_allow_rules_that_a_fresh_service_reloads(tmp_path, asker_type):
    asker = asker_type("always")
    location = make(tmp_path, asker=asker)
    await assert_(location, "edit", ["a.py"])
    await assert_(location, "edit", ["a.py"])
    assert len(asker.requests) == 1
    assert location.store.approvals() == (rule("edit", "a.py", "allow"),)
    fresh = make(tmp_path).permission  # a new Location on the same data dir
    assert fresh.evaluate("edit", "a.py") == "allow"
    assert fresh.evaluate("edit", "b.py") == "ask"
    assert (tmp_path / "data" / "tooldeck.sqlite3").is_file()


async def test_always_saves_the_requested_save_patterns(tmp_path):
    location = make(tmp_path, asker=Script("always"))
    await assert_(location, "bash", ["git status"], save=["git status *"])
    assert location.permission.evaluate("bash", "git status --short") == "allow"
    assert location.permission.evaluate("bash", "git push") == "ask"


async def test_always_never_lifts_a_configured_deny(tmp_path):
    location = make(tmp_path, rule("bash", "git push *", "deny"), asker=Script("always"))
    await assert_(location, "bash", ["git log"], save=["git *"])
    assert location.permission.evaluate("bash", "git diff") == "allow"
    with pytest.raises(PermissionBlocked):
        await assert_(location, "bash", ["git push origin"])


async def test_a_service_is_built_from_its_parts_without_a_location(tmp_path):
    """What ``Location.permission`` composes: a root, the policy, the store, the asker
    and the default ``on_ask``; any caller can hand them over directly."""
    store = SqliteStore.in_dir(tmp_path / "data")
    asker = Script("always")
    service = PermissionService(
        root=tmp_path,
        policy=lambda: policy([rule("edit", "docs/*", "allow")]),
        open_store=lambda: store,
        saved_store=lambda: store,
        asker=lambda: asker,
        on_ask=lambda: "ask",
    )
    assert service.evaluate("edit", str(tmp_path / "docs" / "a.md")) == "allow"  # relative
    await service.assert_("edit", ["b.py"], source=SOURCE)
    assert store.approvals() == (rule("edit", "b.py", "allow"),)
    assert service.evaluate("edit", "b.py") == "allow"
    store.close()


async def test_approvals_from_two_services_on_one_data_dir_merge(tmp_path):
    first = make(tmp_path, asker=Script("always"))
    second = make(tmp_path, asker=Script("always"))
    assert first.permission is not second.permission  # both loaded before either saves
    await assert_(first, "edit", ["a.py"])
    await assert_(second, "edit", ["b.py"])
    fresh = make(tmp_path).permission  # a new Location on the same data dir
    assert fresh.evaluate("edit", "a.py") == fresh.evaluate("edit", "b.py") == "allow"


async def test_an_always_saved_by_another_service_answers_the_next_ask(tmp_path):
    """The approvals are read again before asking, so an ``always`` another process saved
    in the same store since this one first read them is honoured, not asked again."""
    here = make(tmp_path, asker=Script("reject"))
    with pytest.raises(PermissionDeclined):
        await assert_(here, "edit", ["a.py"])  # read the approvals (none), then asked
    await assert_(make(tmp_path, asker=Script("always")), "edit", ["a.py"])
    asker = Script("reject")
    here.asker = asker
    await assert_(here, "edit", ["a.py"])
    assert asker.requests == []


async def test_an_unwritable_data_dir_keeps_the_approval_in_memory(tmp_path, caplog):
    (tmp_path / "data").write_text("not a directory")
    location = make(tmp_path, asker=Script("always"))
    with caplog.at_level(logging.WARNING, logger="tooldeck.host.permissions.approvals"):
        await assert_(location, "edit", ["a.py"])
    assert "could not save permission approvals" in caplog.text
    assert location.permission.evaluate("edit", "a.py") == "allow"


async def test_builtins_keep_working_over_a_corrupt_approvals_file(tmp_path, caplog):
    from tooldeck.testing import TestHost

    location = make(tmp_path)
    (location.root / "a.txt").write_text("hello\n")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "permissions.json").write_text("")
    host = TestHost.for_location(location, builtins=["read"])
    with caplog.at_level(logging.WARNING, logger="tooldeck.host.permissions.approvals"):
        outcome = await host.call("read", path="a.txt")
    assert outcome.status == "completed"
    assert "were not valid and are ignored" in caplog.text


NAMES = ("first", "second", "third", "fourth")
_SAVER = """
import asyncio, os, sys, time
from pathlib import Path
from tooldeck.host.location.location import Location

root, data, name, count, start = sys.argv[1:]
location = Location(root, data_dir=data, asker=lambda request: "always")
while not os.path.exists(start):
    time.sleep(0.001)

async def main():
    for i in range(int(count)):
        await location.permission.assert_("edit", [f"{name}-{i}"], source={})

asyncio.run(main())
"""


def test_approvals_saved_by_several_processes_at_once_are_all_kept(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    start = tmp_path / "start"
    args = [str(root), str(tmp_path / "data")]
    children = [
        subprocess.Popen([sys.executable, "-c", _SAVER, *args, name, "25", str(start)])
        for name in NAMES
    ]
    start.touch()
    assert [child.wait(timeout=60) for child in children] == [0] * len(NAMES)
    saved = make(tmp_path).store.approvals()
    resources = sorted(r.resource for r in saved)
    assert resources == sorted(f"{name}-{i}" for name in NAMES for i in range(25))


@pytest.mark.parametrize("asker_type", [Script, AsyncScript])
async def test_reject_declines_past_except_exception(tmp_path, asker_type):
    location = make(tmp_path, asker=asker_type("reject"))
    with pytest.raises(PermissionDeclined) as caught:
        try:
            await assert_(location, "edit", ["a.py"])
        except Exception:  # a leaf's blanket must not swallow the decline
            pytest.fail("PermissionDeclined was caught as an Exception")
    assert (caught.value.action, caught.value.resources) == ("edit", ("a.py",))
    assert location.permission.evaluate("edit", "a.py") == "ask"


async def test_reject_with_feedback_is_a_correction(tmp_path):
    location = make(tmp_path, asker=Script(Reject("use the patch tool instead")))
    with pytest.raises(PermissionCorrected) as caught:
        await assert_(location, "edit", ["a.py"])
    assert caught.value.feedback == "use the patch tool instead"


async def test_without_an_asker_every_ask_is_declined(tmp_path):
    location = make(tmp_path)
    await assert_(location, "read", ["a.py"])
    with pytest.raises(PermissionDeclined):
        await assert_(location, "edit", ["a.py"])


async def test_a_nonsense_reply_names_what_was_expected(tmp_path):
    location = make(tmp_path, asker=Script("yes please"))
    with pytest.raises(ReplyError, match="expected 'once', 'always', 'reject'"):
        await assert_(location, "edit", ["a.py"])


async def test_tool_context_passes_the_canonical_source(tmp_path):
    asker = Script()
    location = make(tmp_path, asker=asker)
    ctx = ToolContext(location=location, session_id="s1", message_id="m7", call_id="c9")
    await ctx.permission.assert_("edit", ["a.py"], save=["*.py"])
    [request] = asker.requests
    assert dict(request.source) == {"type": "tool", "message_id": "m7", "id": "c9"}
    assert request.session_id == "s1"
    assert request.save == ("*.py",)


# --- concurrent asks in one session -----------------------------------------------------


class Held:
    """An async asker that answers `answers[resource]` once every expected ask arrived;
    resources without an answer wait until cancelled (the user never answers them)."""

    def __init__(self, answers, expected):
        self.answers = answers
        self.expected = expected
        self.arrived: list[str] = []
        self.all_arrived = asyncio.Event()
        self.cancelled: list[str] = []
        self.any_cancelled = asyncio.Event()
        self.release = {name: asyncio.Event() for name in answers}

    async def __call__(self, request):
        [resource] = request.resources
        self.arrived.append(resource)
        if len(self.arrived) == self.expected:
            self.all_arrived.set()
        try:
            if resource not in self.answers:
                await asyncio.Event().wait()
            await self.all_arrived.wait()
            await self.release[resource].wait()
            return self.answers[resource]
        except asyncio.CancelledError:
            self.cancelled.append(resource)
            self.any_cancelled.set()
            raise


def ask(location, resource, session_id, **options):
    return asyncio.create_task(
        assert_(location, "edit", [resource], session_id=session_id, **options)
    )


async def test_reject_declines_the_other_pending_asks_of_its_session(tmp_path):
    asker = Held({"first": "reject", "other": "once"}, expected=3)
    location = make(tmp_path, asker=asker)
    first, second = ask(location, "first", "s1"), ask(location, "second", "s1")
    other = ask(location, "other", "s2")
    asker.release["first"].set()
    results = await asyncio.gather(first, second, return_exceptions=True)
    assert [type(r) for r in results] == [PermissionDeclined, PermissionDeclined]
    assert results[1].resources == ("second",)
    await asyncio.wait_for(asker.any_cancelled.wait(), 10)  # a guard, not a timing claim
    assert asker.cancelled == ["second"]
    assert not other.done()
    asker.release["other"].set()
    await other


async def test_always_answers_the_pending_asks_it_now_covers(tmp_path):
    asker = Held({"a.py": "always"}, expected=3)
    location = make(tmp_path, asker=asker)
    first = ask(location, "a.py", "s1", save=["*.py"])
    covered, uncovered = ask(location, "b.py", "s1"), ask(location, "c.txt", "s1")
    asker.release["a.py"].set()
    await asyncio.gather(first, covered)
    await asyncio.wait_for(asker.any_cancelled.wait(), 10)  # a guard, not a timing claim
    assert asker.cancelled == ["b.py"]
    assert not uncovered.done()
    uncovered.cancel()
    with pytest.raises(asyncio.CancelledError):
        await uncovered


async def test_asks_without_a_session_never_decline_each_other(tmp_path):
    asker = Held({"first": "reject", "second": "once"}, expected=2)
    location = make(tmp_path, asker=asker)
    first, second = ask(location, "first", ""), ask(location, "second", "")
    asker.release["first"].set()
    with pytest.raises(PermissionDeclined):
        await first
    assert not second.done()
    asker.release["second"].set()
    await second


# --- visibility ---------------------------------------------------------------------------


def test_visibility_hides_only_wholly_denied_actions(tmp_path):
    location = make(tmp_path, rule("edit", "*", "deny"), rule("bash", "rm *", "deny"))
    visibility = location.permission.visibility()
    assert visibility.hidden("edit")
    assert not visibility.hidden("bash")
    assert not visibility.hidden("read")
    assert location.permission.visibility() == visibility
    assert hash(location.permission.visibility()) == hash(visibility)


def test_a_later_allow_keeps_the_action_visible(tmp_path):
    location = make(tmp_path, rule("edit", "*", "deny"), rule("edit", "docs/**", "allow"))
    assert not location.permission.visibility().hidden("edit")


def test_snapshots_leave_out_wholly_denied_tools(tmp_path):
    location = make(tmp_path, rule("edit", "*", "deny"))

    def run(inp, ctx):
        return ToolResult("ok")

    service = ToolService(location)
    service.transform(
        lambda e: [
            e.add(
                Tool(
                    name=n,
                    description="d",
                    execute=run,
                    codemode=False,
                    permission="edit" if n in ("write", "patch") else None,
                )
            )
            for n in ("edit", "patch", "read", "write")
        ],
        source="s",
    )
    snapshot = service.snapshot(permissions=location.permission.visibility())
    assert snapshot.names == ("read",)


# --- the store is opened off the event loop -----------------------------------------------
_HOLDER = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA locking_mode = EXCLUSIVE")
db.execute("BEGIN EXCLUSIVE")
db.execute("INSERT INTO approvals (action, resource, effect) VALUES ('edit', 'held', 'allow')")
print("locked", flush=True)
sys.stdin.read()
"""


async def test_a_database_locked_by_another_process_never_stalls_the_loop(
    tmp_path, monkeypatch, caplog, tooldeck_loop_guard
):
    """The store is locked past the Location's wait: the check neither stalls the loop
    nor takes the failed read for "no approvals" in silence. The live asker is asked,
    with a warning that the saved approvals could not be read."""
    from tooldeck.host.store import calls

    first = make(tmp_path)
    first.permission.save("edit", ["saved.py"])  # the database exists, with a row
    first.close()
    holder = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        _HOLDER,
        str(tmp_path / "data" / "tooldeck.sqlite3"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    try:
        assert await holder.stdout.readline() == b"locked\n"
        monkeypatch.setattr(calls, "GRACE_S", 0.0)
        asker = Script("once")
        location = make(tmp_path, asker=asker)
        location.config = location.config.model_copy(update={"store": StoreConfig(timeout_s=0.5)})
        with caplog.at_level(logging.WARNING, logger="tooldeck.host.permissions"):
            await assert_(location, "edit", ["saved.py"])  # the store is locked: it asks
        assert [r.resources for r in asker.requests] == [("saved.py",)]
        assert "could not read permission approvals within 0.5 s" in caplog.text
        [asking] = [r.getMessage() for r in caplog.records if "asking about" in r.getMessage()]
        assert asking.startswith("asking about 'edit' without the saved approvals: ")
        assert "within 0.5 s" in asking
    finally:
        await asyncio.wait_for(holder.communicate(b""), 60)
