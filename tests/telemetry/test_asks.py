"""Every permission ask and how it was settled, as events on the asking call's span:
the asker, a saved approval, allow and deny rules, a deferred ask, a resumed call."""

from __future__ import annotations

import asyncio

import pytest

from tooldeck import Host, Reject, Tool, ToolCall, ToolResult, hookimpl
from tooldeck import run_tool_call as run
from tooldeck.host.permissions.observer import NO_OBSERVER

pytestmark = pytest.mark.usefixtures("clean_env")

ASK, REPLY = "tooldeck.permission.ask", "tooldeck.permission.reply"


@pytest.fixture(autouse=True)
def no_builtins(monkeypatch):
    monkeypatch.setattr("tooldeck.builtin_plugins.BUILTIN_PLUGINS", ())


async def launch(input, ctx):
    await ctx.permission.assert_("launch", ["rocket", "pad"], save=["*"])
    return ToolResult(content="launched")


class Launcher:
    @hookimpl
    def tool_transform(self, editor):
        editor.add(Tool(name="launch", description="Asks.", execute=launch, codemode=False))


def rules(tmp_path, effect):
    """``effect`` for both resources (rules on each, not ``*``, so a deny hides no tool)."""
    (tmp_path / "tooldeck.toml").write_text(
        "".join(
            f'[[permission]]\naction = "launch"\nresource = "{r}"\neffect = "{effect}"\n\n'
            for r in ("rocket", "pad")
        )
    )


def asks(otel, index=0):
    """(ask attributes, reply attributes) of the ``index``-th ``launch`` call's span."""
    span = otel.spans("execute_tool launch")[index]
    assert [e.name for e in span.events] == [ASK, REPLY]
    return dict(span.events[0].attributes), dict(span.events[1].attributes)


def launched(host, call_id="c1", **options):
    return asyncio.run(run(host.snapshot(), ToolCall(call_id, "launch", {}), **options))


@pytest.mark.parametrize(
    ("reply", "status", "named"),
    [
        ("once", "completed", "once"),
        ("always", "completed", "always"),
        ("reject", "declined", "reject"),
        (Reject("not today"), "failed", "feedback"),
    ],
)
def test_the_askers_reply_follows_the_ask(tmp_path, otel, reply, status, named):
    with Host.open(
        tmp_path,
        plugins=[Launcher()],
        trust=True,
        asker=lambda r: reply,
        telemetry=otel.telemetry(),
    ) as host:
        assert launched(host).status == status
    ask, answer = asks(otel)
    assert ask["tooldeck.permission.action"] == "launch"
    assert list(ask["tooldeck.permission.resources"]) == ["rocket", "pad"]
    assert answer == {"tooldeck.permission.reply": named, "tooldeck.permission.replied_by": "asker"}
    assert "not today" not in repr(answer)  # a Reject's feedback is the user's words


def test_an_ask_a_saved_approval_settles_is_recorded_as_saved(tmp_path, otel):
    replies = iter(["always"])
    with Host.open(
        tmp_path,
        plugins=[Launcher()],
        trust=True,
        asker=lambda r: next(replies),
        telemetry=otel.telemetry(),
    ) as host:
        assert launched(host, "c1").status == "completed"
        assert launched(host, "c2").status == "completed"  # the asker would raise now
    assert asks(otel, 1)[1] == {
        "tooldeck.permission.reply": "saved",
        "tooldeck.permission.replied_by": "rules",
    }


@pytest.mark.parametrize(
    ("effect", "status", "named"), [("allow", "completed", "allowed"), ("deny", "failed", "denied")]
)
def test_an_ask_a_rule_settles_is_recorded(tmp_path, otel, effect, status, named):
    rules(tmp_path, effect)
    with Host.open(
        tmp_path,
        plugins=[Launcher()],
        trust=True,
        asker=lambda r: "reject",
        telemetry=otel.telemetry(),
    ) as host:
        assert launched(host).status == status
    _ask, answer = asks(otel)
    assert answer == {"tooldeck.permission.reply": named, "tooldeck.permission.replied_by": "rules"}


def test_a_deferred_ask_and_the_answer_its_resume_brings(tmp_path, otel):
    with Host.open(
        tmp_path, plugins=[Launcher()], trust=True, on_ask="defer", telemetry=otel.telemetry()
    ) as host:
        outcome = launched(host)
        assert outcome.status == "pending"
        assert asyncio.run(host.resume(outcome.pending.id, "once")).status == "completed"
    deferred, resumed = (asks(otel, i)[1] for i in range(2))
    assert deferred == {
        "tooldeck.permission.reply": "deferred",
        "tooldeck.permission.replied_by": "host",
    }
    assert resumed == {
        "tooldeck.permission.reply": "once",
        "tooldeck.permission.replied_by": "resume",
    }


def test_no_asker_is_a_decline_the_host_records(tmp_path, otel):
    with Host.open(tmp_path, plugins=[Launcher()], trust=True, telemetry=otel.telemetry()) as host:
        assert launched(host).status == "declined"
    assert asks(otel)[1] == {
        "tooldeck.permission.reply": "declined",
        "tooldeck.permission.replied_by": "host",
    }


def test_without_telemetry_the_permission_service_hears_nothing(tmp_path):
    with Host.open(tmp_path, plugins=[Launcher()], trust=True, asker=lambda r: "once") as host:
        assert launched(host).status == "completed"
        assert host.location.permission.observer is NO_OBSERVER
