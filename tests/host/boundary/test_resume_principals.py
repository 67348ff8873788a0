"""A pending call belongs to the principal that asked it: resuming runs under that
principal's rules, whoever resumes it, and another principal cannot answer it."""

from __future__ import annotations

import pytest

from tooldeck import Host, PendingCallError, PermissionRule, ToolCall, run_tool_call
from tooldeck.host.permissions.call_rules import applying
from tooldeck.host.permissions.permission import principal_rules

from .payments import Payments, effects

PAY_BOB = ToolCall("call_1", "pay", {"to": "bob"})


@pytest.fixture
def host(tmp_path):
    (tmp_path / "root").mkdir()
    opened = Host.open(
        tmp_path / "root",
        plugins=[Payments(tmp_path / "effects")],
        data_dir=tmp_path / "data",
        on_ask="defer",
    )
    yield opened
    opened.close()


def rules_of(host, name):
    return principal_rules(host.location.permission, name, host.location.policy)


async def test_a_pending_call_records_its_principal_and_location(host):
    with applying(rules_of(host, "alice")):
        outcome = await run_tool_call(host.snapshot(), PAY_BOB)
    pending = outcome.pending
    assert (pending.principal, pending.location) == ("alice", str(host.location.root))
    assert host.pending()[0].principal == "alice"


async def test_another_principal_cannot_answer_it(host, tmp_path):
    with applying(rules_of(host, "alice")):
        pending = (await run_tool_call(host.snapshot(), PAY_BOB)).pending
    with applying(rules_of(host, "mallory")), pytest.raises(PendingCallError) as refused:
        await host.resume(pending.id, "once")
    assert refused.value.reason == "principal"
    assert "asked by principal 'alice', not by principal 'mallory'" in str(refused.value)
    assert effects(tmp_path / "effects") == []
    with applying(rules_of(host, "alice")):
        done = await host.resume(pending.id, "once")
    assert done.content[0].text == "paid bob"


async def test_an_operator_resumes_it_under_the_askers_rules(host, tmp_path):
    with applying(rules_of(host, "alice")):
        pending = (await run_tool_call(host.snapshot(), PAY_BOB)).pending
    done = await host.resume(pending.id, "always")  # no principal here: an operator
    assert done.content[0].text == "paid bob"
    store = host.location.store
    saved = PermissionRule(action="pay", resource="bob", effect="allow")
    assert (store.approvals("alice"), store.approvals()) == ((saved,), ())
