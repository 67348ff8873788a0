"""The sandbox conversation: the host answers only calls and waits, in plain values."""

from __future__ import annotations

import pytest

from tooldeck.codemode.conversation import (
    Call,
    Defer,
    Done,
    Raise,
    SandboxFailure,
    Settle,
    Settled,
    Wait,
)
from tooldeck.codemode.sandbox import Limits, SandboxSession

LIMITS = Limits(timeout_s=10, memory_bytes=64 << 20, suspensions=100)


def session(pool, **values):
    return SandboxSession(pool, LIMITS, stubs=None, values=values)


def refuse(call):
    raise AssertionError(f"no call expected, got {call}")


def test_lookups_and_file_calls_are_answered_inside_the_conversation(pool):
    code = "r = [x]\ntry:\n    open('/etc/passwd').read()\nexcept Exception:\n    r.append(1)\nr"
    assert list(session(pool, x=41).conversation(code, refuse)) == [Done([41, 1], "", "")]


def test_a_call_is_deferred_then_settled_and_an_error_raised_at_its_site(pool):
    code = (
        "import asyncio\nprint('go')\na = f(1, k=2)\n"
        "try:\n    g()\nexcept RuntimeError as e:\n    m = str(e)\n"
        "[await a, m]"
    )
    calls = []

    def answer(call):  # answered where the conversation runs, before it waits
        calls.append(call)
        return Defer() if call.name == "f" else Raise("RuntimeError", "no g")

    conversation = session(pool, f=print, g=print).conversation(code, answer)
    wait = next(conversation)
    first, second = calls
    assert type(first) is Call and (first.name, first.args, first.kwargs) == ("f", (1,), {"k": 2})
    assert second.name == "g"
    assert wait == Wait([first.id])
    assert conversation.send(Settle({first.id: Settled(3)})) == Done([3, "no g"], "go\n", "")
    conversation.close()  # gives the worker back


def test_a_runtime_error_is_a_sandbox_failure_with_what_was_printed(pool):
    conversation = session(pool).conversation("print('before')\n1 / 0", refuse)
    with pytest.raises(SandboxFailure) as caught:
        list(conversation)
    assert caught.value.kind == "runtime" and caught.value.printed == "before\n"
    assert "ZeroDivisionError" in caught.value.text


def test_a_wait_settled_in_place_is_never_yielded_and_a_gather_waits_in_call_order(pool):
    code = "import asyncio\nawait asyncio.gather(f(1), f(2), f(3))"
    waits = []

    def here(call_ids):  # answered where the conversation runs: no Wait reaches the host
        waits.append(call_ids)
        return Settle({i: Settled(i * 10) for i in call_ids})

    conversation = session(pool, f=print).conversation(code, lambda call: Defer(), here)
    assert list(conversation) == [Done([0, 10, 20], "", "")]
    assert waits == [[0, 1, 2]]


def test_a_wait_not_settled_in_place_is_yielded(pool):
    conversation = session(pool, f=print).conversation(
        "await f(1)", lambda call: Defer(), lambda call_ids: None
    )
    wait = next(conversation)
    assert type(wait) is Wait
    assert conversation.send(Settle({i: Settled(5) for i in wait.call_ids})).output == 5
    conversation.close()
