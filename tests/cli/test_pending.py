"""``tooldeck pending``, ``pending show``, ``resume`` and ``approvals migrate``: the
operator's loop of ``docs/approvals.md#operators``, run as the page shows it.

A served principal's call is deferred in this process (as a replica defers it), then
the page's transcript runs command by command through ``tooldeck.cli.main``; what each
prints must be what the page shows, once the things that differ per run (the id, the
project path, the times) are put back as the page has them.
"""

from __future__ import annotations

import asyncio
import json
import re
import shlex

import pytest

from tooldeck import Host, PermissionRule, SqliteStore, ToolCall, run_tool_call
from tooldeck.cli import main
from tooldeck.host.permissions.call_rules import applying
from tooldeck.host.permissions.permission import principal_rules

from ..docs_blocks import page
from .conftest import trust

LOOP = page("approvals.md").take("console", "$ tooldeck pending\n")
DOC_ID = "9f86d081884c4d659a2feaa0c55ad015"
DOC_ROOT = "/srv/project"

PAYMENTS = """
from tooldeck import Tool, ToolResult, hookimpl

async def pay(args, ctx):
    await ctx.permission.assert_("pay", [args["to"]])
    with open(ctx.location.root / "paid.txt", "a") as file:
        file.write(args["to"] + "\\n")
    return ToolResult(f"paid {args['to']}")

@hookimpl
def tool_transform(editor):
    editor.add(Tool(name="pay", description="Pay someone.", execute=pay, codemode=False,
                    input={"type": "object", "properties": {"to": {"type": "string"}}}))
"""


@pytest.fixture
def project(clean_env, monkeypatch):
    monkeypatch.setattr("tooldeck.builtin_plugins.BUILTIN_PLUGINS", ())
    monkeypatch.setenv("TOOLDECK_LOAD_PLUGINS", "local:payments")
    root = clean_env / "project"
    (root / ".tooldeck" / "plugins").mkdir(parents=True)
    (root / ".tooldeck" / "plugins" / "payments.py").write_text(PAYMENTS)
    trust(root)
    return root


@pytest.fixture
def tooldeck(project, capsys):
    """``tooldeck(*args)`` → (exit code, stdout, stderr), with ``--location project``."""

    def run(*args):
        code = main(["--location", str(project), *args])
        out, err = capsys.readouterr()
        return code, out, err

    return run


def defer(root, to="bob", principal="support", session="chat-7"):
    """A call of ``principal`` deferred at its ask, as a replica defers it; its id."""

    async def asked():
        with Host.open(root, on_ask="defer") as host:
            rules = principal_rules(host.location.permission, principal, host.location.policy)
            with applying(rules if principal is not None else None):
                call = ToolCall("call_1", "pay", {"to": to})
                return await run_tool_call(host.snapshot(), call, session_id=session)

    outcome = asyncio.run(asked())
    assert outcome.status == "pending"
    return outcome.pending.id


def as_the_page_shows(text, pending, root):
    """Output with what differs per run put back as the page has it."""
    text = text.replace(pending, DOC_ID).replace(str(root), DOC_ROOT)
    return re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \S+", "<time>", text)


def steps(block):
    """The transcript's ``(command, expected output)`` pairs, in order."""
    found = []
    for line in block.code.splitlines():
        if line.startswith("$ "):
            found.append((line[2:], []))
        else:
            found[-1][1].append(line)
    return [(command, "\n".join(lines)) for command, lines in found]


def test_the_operators_loop_runs_as_the_page_shows(project, tooldeck):
    pending = defer(project)
    code = None
    for command, expected in steps(LOOP):
        if command == "echo $?":
            assert str(code) == expected
            continue
        argv = shlex.split(command.replace(DOC_ID, pending))
        assert argv[0] == "tooldeck"
        code, out, err = tooldeck(*argv[1:])
        shown = as_the_page_shows((out + err).rstrip("\n"), pending, project)
        wanted = as_the_page_shows(expected, DOC_ID, DOC_ROOT)
        if command == "tooldeck pending":  # the age is however long this test took
            shown = re.sub(r"  \d+s ", "  2m ", shown)
        assert shown == wanted, command
    assert (project / "paid.txt").read_text() == "bob\n"  # resumed once, paid once


def test_an_always_is_saved_for_the_principal_that_asked_only(project, tooldeck, clean_env):
    pending = defer(project, principal="support")
    assert tooldeck("resume", pending, "always")[:2] == (0, "paid bob\n")
    [database] = clean_env.glob("xdg-data/tooldeck/locations/*/tooldeck.sqlite3")
    store = SqliteStore(database)
    try:
        assert store.approvals("support") == (
            PermissionRule(action="pay", resource="bob", effect="allow"),
        )
        assert store.approvals() == ()  # not the Location's: no other caller is covered
    finally:
        store.close()


def test_json_entries_carry_what_an_operator_needs(project, tooldeck):
    first = defer(project, to="bob")
    second = defer(project, to="carol", principal=None, session="")
    code, out, _ = tooldeck("pending", "--json")
    assert code == 0
    entries = json.loads(out)
    assert [entry["id"] for entry in entries] == [first, second]
    bob, carol = entries
    assert {key: bob[key] for key in ("tool", "input", "principal", "session", "location")} == {
        "tool": "pay",
        "input": {"to": "bob"},
        "principal": "support",
        "session": "chat-7",
        "location": str(project.resolve()),
    }
    assert bob["question"] == {"action": "pay", "resources": ["bob"]}
    assert bob["expires_at"] - bob["created_at"] == 24 * 3600
    assert carol["principal"] is None
    code, out, _ = tooldeck("pending", "show", first, "--json")
    assert (json.loads(out)["state"], json.loads(out)["reply"]) == ("open", None)


def test_a_rejection_with_feedback_is_recorded_and_runs_nothing(project, tooldeck):
    pending = defer(project)
    code, out, err = tooldeck("resume", pending, "reject", "--feedback", "pay carol instead")
    assert (code, out) == (0, "")
    assert "The user rejected this tool call and said: pay carol instead" in err
    assert not (project / "paid.txt").exists()
    code, out, _ = tooldeck("pending", "show", pending, "--json")
    shown = json.loads(out)
    assert (shown["state"], shown["reply"]) == ("done", {"reject": "pay carol instead"})
    assert shown["outcome"]["error"]["type"] == "permission.rejected"
    assert tooldeck("pending")[1] == "no calls are waiting for approval\n"


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (("resume", "nope", "once"), 2, "pending call 'nope': there is no such pending call"),
        (("resume", "nope", "once", "--feedback", "x"), 2, "--feedback goes with reject"),
        (("pending", "show", "nope"), 1, "no pending call 'nope' in the store"),
    ],
)
def test_mistakes_are_named(project, tooldeck, args, code, message):
    defer(project)
    done, _, err = tooldeck(*args)
    assert done == code
    assert message in err


def test_listing_a_location_without_a_database_creates_none(project, tooldeck, clean_env):
    assert tooldeck("pending") == (0, "no calls are waiting for approval\n", "")
    assert not list(clean_env.glob("xdg-data/tooldeck/locations/*"))


def test_migrate_approvals_copies_the_file_into_the_shared_store_once(
    project, tooldeck, postgres_dsn, monkeypatch, clean_env
):
    import uuid

    from tooldeck import PostgresStore
    from tooldeck.host.config.config_files import default_data_dir

    schema = f"t_{uuid.uuid4().hex[:16]}"
    monkeypatch.setenv("TOOLDECK_STORE_URL", postgres_dsn)
    monkeypatch.setenv("TOOLDECK_STORE_SCHEMA", schema)
    data = default_data_dir(project.resolve())
    data.mkdir(parents=True)
    rules = [{"action": "pay", "resource": "bob", "effect": "allow"}]
    (data / "permissions.json").write_text(json.dumps({"rules": rules}))
    code, out, _ = tooldeck("approvals", "migrate")
    assert code == 0
    assert out.splitlines()[0].startswith(f"copied 1 approval(s) from {data}/permissions.json")
    assert out.splitlines()[1] == "  allow pay on bob"
    assert (
        tooldeck("approvals", "migrate")[1]
        == f"nothing to migrate: no permissions.json in {data}\n"
    )
    store = PostgresStore(postgres_dsn, schema=schema)
    try:
        assert store.approvals() == (PermissionRule(action="pay", resource="bob", effect="allow"),)
    finally:
        store.close()
