"""Deferred asks end a call ``pending``; ``host.resume`` answers it exactly once.

Every test runs on SQLite and on a real PostgreSQL server (the ``store`` fixture); a
second host on another store object stands for a second process (the crash tests run
real ones)."""

from __future__ import annotations

import asyncio
import time

import pytest

from tooldeck import (
    Host,
    Location,
    PendingCall,
    PendingCallError,
    Reject,
    ToolCall,
    run_tool_call,
    run_tool_calls,
)
from tooldeck.providers import results_for

from .payments import Payments, effects

PAY_BOB = ToolCall("call_1", "pay", {"to": "bob"})


@pytest.fixture
def open_host(tmp_path, store, reopen):
    """``open_host(**options)``: a host on the test's store; each one after the first
    gets its own store object, as another process would."""
    hosts: list[Host] = []
    (tmp_path / "root").mkdir()

    def open_(description="Pay someone.", **options):
        options.setdefault("on_ask", "defer")
        hosts.append(
            Host.open(
                tmp_path / "root",
                plugins=[Payments(tmp_path / "effects", description)],
                data_dir=tmp_path / "data",
                store=store if not hosts else reopen(),
                **options,
            )
        )
        return hosts[-1]

    yield open_
    for host in hosts:
        host.close()


async def defer(host, call=PAY_BOB, **options):
    outcome = await run_tool_call(host.snapshot(), call, **options)
    assert outcome.status == "pending"
    assert isinstance(outcome.pending, PendingCall)
    return outcome.pending


async def test_an_ask_deferred_ends_the_call_pending_without_acting(open_host, tmp_path):
    host = open_host()
    pending = await defer(host)
    assert effects(tmp_path / "effects") == []
    assert pending.call == PAY_BOB
    assert (pending.request.action, pending.request.resources) == ("pay", ("bob",))
    assert pending.source == "Payments"
    assert pending.fingerprint.startswith("sha256:")
    assert pending.expires_at - pending.created_at == 24 * 3600
    assert host.pending() == [pending]


async def test_resume_once_runs_the_call_in_another_host_exactly_once(open_host, tmp_path):
    pending = await defer(open_host())
    other = open_host(on_ask="ask")
    outcome = await other.resume(pending.id, "once")
    assert (outcome.status, outcome.content[0].text) == ("completed", "paid bob")
    assert await other.resume(pending.id, "reject") == outcome  # the recorded outcome
    assert effects(tmp_path / "effects") == ["bob"]
    assert other.pending() == []
    assert (await defer(other, on_ask="defer")).id != pending.id  # "once" saved nothing


async def test_resume_always_saves_the_approval(open_host, tmp_path):
    host = open_host()
    pending = await defer(host)
    assert (await host.resume(pending.id, "always")).status == "completed"
    again = await run_tool_call(host.snapshot(), PAY_BOB)
    assert again.status == "completed"  # allowed now: no ask, nothing deferred
    assert effects(tmp_path / "effects") == ["bob", "bob"]


async def test_reject_records_a_decline_without_running(open_host, tmp_path):
    host = open_host()
    pending = await defer(host)
    declined = await host.resume(pending.id, "reject")
    assert declined.status == "declined"
    assert await host.resume(pending.id, "once") == declined
    corrected = await host.resume((await defer(host)).id, Reject("pay eve instead"))
    assert (corrected.status, corrected.error.type) == ("failed", "permission.rejected")
    assert corrected.content[0].text == (  # worded as run_tool_call words a correction
        "The user rejected this tool call and said: pay eve instead\n"
        "Take this feedback into account before trying again."
    )
    assert effects(tmp_path / "effects") == []


async def test_concurrent_resumes_run_the_tool_once(open_host, tmp_path):
    pending = await defer(open_host())
    hosts = [open_host() for _ in range(3)]
    outcomes = await asyncio.gather(*(h.resume(pending.id, "once") for h in hosts))
    assert [o.status for o in outcomes] == ["completed"] * 3
    assert effects(tmp_path / "effects") == ["bob"]


async def test_a_changed_tool_definition_is_refused(open_host, tmp_path):
    pending = await defer(open_host())
    changed = open_host(description="Pay someone, twice.")
    with pytest.raises(PendingCallError, match=r"'pay' \(from Payments\) changed") as caught:
        await changed.resume(pending.id, "once")
    assert caught.value.reason == "changed"
    assert effects(tmp_path / "effects") == []
    assert (await open_host().resume(pending.id, "once")).status == "completed"  # still open


async def test_an_expired_call_is_refused_and_no_longer_listed(open_host, tmp_path):
    (tmp_path / "root").joinpath("tooldeck.toml").write_text(
        "[permissions]\npending_ttl_s = 0.001\n"
    )
    host = open_host()
    pending = await defer(host)
    time.sleep(0.01)
    with pytest.raises(PendingCallError, match=r"expired at .*pending_ttl_s") as caught:
        await host.resume(pending.id, "once")
    assert caught.value.reason == "expired"
    assert host.pending() == []


async def test_an_unknown_id_or_reply_is_refused(open_host):
    host = open_host()
    with pytest.raises(PendingCallError, match="'nope': there is no such pending call"):
        await host.resume("nope", "once")
    with pytest.raises(ValueError, match="expected 'once', 'always', 'reject' or Reject"):
        await host.resume("nope", "yes")


async def test_pending_lists_by_session(open_host):
    host = open_host()
    host.session("s1")
    first = await defer(host, session_id="s1")
    second = await defer(host, ToolCall("call_2", "pay", {"to": "eve"}))
    assert host.pending() == [first, second]
    assert host.pending("s1") == [first]
    assert host.pending("s2") == []
    outcome = await open_host().resume(first.id, "once")  # opens s1 in the other host
    assert outcome.status == "completed"


async def test_a_resumed_call_that_asks_again_is_pending_again(open_host, tmp_path):
    host = open_host()
    pending = await defer(host, ToolCall("call_1", "pay", {"to": "bob"}))
    # The asks are per resource: answering "bob" leaves "eve" still to ask.
    twice = ToolCall(
        "c", "execute", {"code": "await tools.pay(to='bob')\nawait tools.pay(to='eve')"}
    )
    program = await defer(host, twice)
    assert program.call.name == "execute" and program.request.resources == ("bob",)
    outcome = await host.resume(program.id, "once")
    assert outcome.status == "pending"
    assert outcome.pending.request.resources == ("eve",)
    assert await host.resume(program.id, "once") == outcome  # recorded, not run again
    done = await host.resume(outcome.pending.id, "once")
    assert done.status == "completed"
    # The program ran from the start each time: "bob" was paid by both runs.
    assert effects(tmp_path / "effects") == ["bob", "bob", "eve"]
    assert (await host.resume(pending.id, "reject")).status == "declined"


async def test_the_location_default_and_a_call_override(open_host, tmp_path):
    deferring = open_host()
    asked = await run_tool_call(deferring.snapshot(), PAY_BOB, on_ask="ask")
    assert asked.status == "declined"  # no asker: declined, as without deferral
    asking = open_host(on_ask="ask", asker=lambda request: "once")
    assert (await run_tool_call(asking.snapshot(), PAY_BOB)).status == "completed"
    assert (await run_tool_call(asking.snapshot(), PAY_BOB, on_ask="defer")).status == "pending"
    assert effects(tmp_path / "effects") == ["bob"]


def test_on_ask_must_be_ask_or_defer(tmp_path):
    with pytest.raises(ValueError, match="on_ask must be 'ask' or 'defer', got 'later'"):
        Location(tmp_path, on_ask="later")


async def test_a_turn_lists_its_pending_calls_and_renders_none_of_them(open_host):
    host = open_host(on_ask="ask", asker=lambda request: "once")
    calls = [PAY_BOB, ToolCall("call_2", "read", {"path": "missing.txt"})]
    turn = await run_tool_calls(host.snapshot(), calls, on_ask="defer")
    assert [o.status for o in turn.outcomes] == ["pending", "failed"]
    assert turn.pending == (turn.outcomes[0].pending,)
    assert turn.end_turn
    messages = results_for("anthropic", zip(calls, turn.outcomes, strict=True))
    assert [b["tool_use_id"] for b in messages[0]["content"]] == ["call_2"]
    resumed = await host.resume(turn.pending[0].id, "once")
    assert results_for("openai", [(PAY_BOB, resumed)]) == [
        {"role": "tool", "tool_call_id": "call_1", "content": "paid bob"}
    ]


async def test_a_call_that_cannot_be_saved_fails_saying_why(tmp_path, caplog):
    (tmp_path / "data").write_text("a file where the data dir should be")
    host = Host.open(tmp_path, plugins=[Payments(tmp_path / "effects")], data_dir=tmp_path / "data")
    outcome = await run_tool_call(host.snapshot(), PAY_BOB, on_ask="defer")
    assert (outcome.status, outcome.error.type) == ("failed", "unknown")
    assert outcome.content[0].text.startswith(
        "The tool call needs the user's approval, but it could not be saved to wait for it"
    )
    assert "could not save pending call 'pay'" in caplog.text
    host.close()
