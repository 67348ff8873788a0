"""The project's ``[plugins]`` narrows the user's selection and never switches off, or
reorders below a tool, a hook plugin of the user's (issue 34, case 4)."""

from __future__ import annotations

import asyncio

import pytest

from tooldeck import Host, Tool, ToolCall, ToolFailure, ToolResult, hookimpl, run_tool_call
from tooldeck.host.config.config_files import user_config_path

pytestmark = pytest.mark.usefixtures("clean_env", "no_builtins")


def tool(name):
    return Tool(name=name, description=name, codemode=False, execute=lambda i, c: ToolResult(name))


class Shell:
    @hookimpl
    def tool_transform(self, editor):
        editor.add(tool("shell"))


class Raw:
    """Another plugin adding ``shell``: loaded after the guard, its shell would win."""

    @hookimpl
    def tool_transform(self, editor):
        editor.add(tool("shell"))
        editor.add(tool("raw"))


class Guard:
    """The user's guard: refuses every ``shell`` call; overrides ``shell`` and adds a tool."""

    @hookimpl
    def tool_transform(self, editor):
        editor.add(tool("shell"))
        editor.add(tool("guard_status"))

    @hookimpl(wrapper=True)
    def tool_call(self, call, context):
        if context.name == "shell":
            raise ToolFailure("refused by the guard")
        return (yield)


def open_with(root, project, user="", trust=False):
    root.mkdir(exist_ok=True)
    (root / "tooldeck.toml").write_text(project)
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(user)
    return Host.open(root, plugins=[Shell(), Guard(), Raw()], trust=trust)


def shell(host):
    call = ToolCall("c1", "shell", {})
    return asyncio.run(run_tool_call(host.snapshot(), call)).content[0].text


def rows(host):
    return {p.name: (p.status, p.reason) for p in host.plugins}


@pytest.mark.parametrize("trust", [False, True])
@pytest.mark.parametrize("plugins", ['disable = ["Guard"]', 'disable = ["*"]', 'disable = ["G*"]'])
def test_a_project_cannot_switch_off_the_users_guard(tmp_path, plugins, trust):
    with open_with(tmp_path / "p", f"[plugins]\n{plugins}\n", trust=trust) as host:
        status, reason = rows(host)["Guard"]
        assert status == "active"
        assert reason is not None and "provides a tool_call hook" in reason
        everything = '"*"' in plugins
        assert rows(host)["Shell"][0] == ("disabled" if everything else "active")
        # the tools the guard adds are hidden; with Shell gone its shell was one of them
        assert "guard_status" not in host.snapshot().names
        assert ("shell" in host.snapshot().names) is not everything
        assert shell(host) != "shell"  # never unguarded
        if not everything:
            assert shell(host) == "refused by the guard"


def test_a_project_may_still_switch_off_a_plugin_without_hooks(tmp_path):
    with open_with(tmp_path / "p", '[plugins]\ndisable = ["Raw"]\n') as host:
        assert rows(host)["Raw"] == ("disabled", "disabled by project config plugins.disable")
        assert "raw" not in host.snapshot().names


def test_a_project_cannot_move_a_tool_above_the_users_guard(tmp_path):
    user = '[plugins]\norder = ["Guard"]\n'  # the user puts the guard last
    with open_with(tmp_path / "p", '[plugins]\norder = ["Raw"]\n', user) as host:
        order = [p.name for p in host.plugins]
        assert order.index("Raw") < order.index("Guard")
        assert shell(host) == "refused by the guard"
    with open_with(tmp_path / "p", '[plugins]\norder = ["Shell"]\n') as host:
        # moving Shell last would take it past the guard: that move is left out
        assert [p.name for p in host.plugins] == ["Shell", "Guard", "Raw"]


def test_a_project_moves_what_no_guard_is_above(tmp_path):
    user = '[plugins]\norder = ["Shell", "Raw"]\n'  # the guard first, below both
    with open_with(tmp_path / "p", '[plugins]\norder = ["Shell"]\n', user) as host:
        assert [p.name for p in host.plugins] == ["Guard", "Raw", "Shell"]


def test_the_project_adds_to_the_users_disable_and_never_replaces_it(tmp_path):
    user = '[plugins]\ndisable = ["Raw"]\n'
    with open_with(tmp_path / "p", '[plugins]\ndisable = ["Shell"]\n', user) as host:
        assert rows(host)["Raw"] == ("disabled", "disabled by config plugins.disable")
        assert rows(host)["Shell"][0] == "disabled"


class SessionGuard(Guard):
    """A guard that also gives each session a tool of its own."""

    @hookimpl
    def session_transform(self, editor, session_id):
        editor.add(tool("session_note"))


def test_the_tools_a_kept_guard_adds_in_a_session_are_hidden_too(tmp_path):
    root = tmp_path / "p"
    root.mkdir()
    (root / "tooldeck.toml").write_text('[plugins]\ndisable = ["SessionGuard"]\n')
    with Host.open(root, plugins=[Shell(), SessionGuard()], trust=False) as host:
        host.session("s1")
        names = host.snapshot(session="s1").names
        assert "session_note" not in names and "guard_status" not in names
        call = ToolCall("c1", "shell", {})
        outcome = asyncio.run(run_tool_call(host.snapshot(session="s1"), call, session_id="s1"))
        assert outcome.content[0].text == "refused by the guard"
