"""The trust invariant, generated: whatever the user config U and the project config P,
an untrusted folder may do only what U alone allows.

Each example writes U as the user config and P as the folder's ``tooldeck.toml``, opens
the folder untrusted and the same user config without a project, and compares what
each host may do:

* the effective catalog (native tools, ``execute`` and the tools behind it);
* what runs unasked: for every action and resource, the untrusted folder's decision is
  at least as strict as U's (``deny`` > ``ask`` > ``allow``), for the Location and for
  each of U's principals;
* who may log in to ``tooldeck mcp serve``: tokens and principals;
* what starts: MCP servers (their report rows) and formatters;
* plugins: the active ones are U's or fewer; every plugin of U's with a ``tool_call``
  hook stays active, and nothing moves after it that U did not put there.

Generated: rules with wildcards (user's and principals'), principals with tokens,
plugin ``disable``/``only``/``order`` (names and patterns), MCP servers, formatters,
code mode, telemetry and per-tool settings. Plugins are objects the host passes (the
user's) plus built-in-like tool packs; servers point at a command that cannot start, so
a server that is started shows as ``failed``.

The default run keeps the example count small; ``-m slow`` runs many more.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tooldeck import Host, Location, Tool, ToolFailure, ToolResult, hookimpl, trust_status
from tooldeck.errors import UsageError
from tooldeck.host.config.config_files import user_config_path
from tooldeck.host.permissions.layers import STRICTNESS
from tooldeck.host.plugins.trust_gate import open_location
from tooldeck.host.trust.narrowing import narrowed
from tooldeck.mcp.serve.principals import names as principal_names
from tooldeck.mcp.serve.principals import tokens
from tooldeck.testing._toml import dumps

from ...examples import examples

pytestmark = pytest.mark.usefixtures("no_builtins")

ACTIONS = ("shell", "edit", "read", "fetch", "secret", "execute")
RESOURCES = ("*", "git status", "rm -rf /", "src/a.py", ".env", "docs/x.md")
ACTION_PATTERNS = (*ACTIONS, "*", "sh*", "e?it")
RESOURCE_PATTERNS = ("*", "git *", "rm *", "src/**", "*.env", "docs/*", "**")
PRINCIPALS = ("alice", "evil")
TOKEN_VARS = ("HOME", "ALICE_TOKEN", "EVIL_TOKEN")
ENVIRON = {"HOME": "home-token", "ALICE_TOKEN": "alice-token", "EVIL_TOKEN": "evil-token"}
NO_SERVER = ["/nonexistent/tooldeck-invariant-server"]


def tool(name: str, action: str, *, codemode: bool = False) -> Tool[Any, Any]:
    return Tool(
        name=name,
        description=f"{name}, acting as {action}.",
        permission=action,
        codemode=codemode,
        execute=lambda i, c: ToolResult(content=name),
    )


class Shell:
    @hookimpl
    def tool_transform(self, editor):
        editor.add(tool("shell", "shell"))
        editor.add(tool("fetch", "fetch", codemode=True))


class Files:
    @hookimpl
    def tool_transform(self, editor):
        editor.add(tool("edit", "edit"))
        editor.add(tool("read", "read", codemode=True))


class Secrets:
    @hookimpl
    def tool_transform(self, editor):
        editor.add(tool("secret", "secret"))
        editor.add(tool("shell", "shell"))  # overrides Shell's when loaded after it


class Guard:
    """The user's guard: refuses ``rm`` commands, and adds a tool of its own."""

    @hookimpl
    def tool_transform(self, editor):
        editor.add(tool("guard_log", "read"))

    @hookimpl(wrapper=True)
    def tool_call(self, call, context):
        if "rm" in str(call.input):
            raise ToolFailure("refused by the guard")
        return (yield)


class Audit:
    """A second hook plugin, with no tools of its own."""

    @hookimpl(wrapper=True)
    def tool_call(self, call, context):
        return (yield)


PLUGINS = (Shell(), Files(), Secrets(), Guard(), Audit())
PLUGIN_NAMES = tuple(type(p).__name__ for p in PLUGINS)
HOOKED = {"Guard", "Audit"}
SELECTORS = (*PLUGIN_NAMES, "*", "G*", "mcp:*", "mcp:tools", "mcp:evil")


# -- strategies -------------------------------------------------------------------------------
def maybe(draw: st.DrawFn, table: dict[str, Any], key: str, values: st.SearchStrategy[Any]) -> None:
    if draw(st.booleans()):
        table[key] = draw(values)


RULES = st.lists(
    st.fixed_dictionaries(
        {
            "action": st.sampled_from(ACTION_PATTERNS),
            "resource": st.sampled_from(RESOURCE_PATTERNS),
            "effect": st.sampled_from(("allow", "ask", "deny")),
        }
    ),
    max_size=5,
)


@st.composite
def principals(draw: st.DrawFn) -> dict[str, Any]:
    table: dict[str, Any] = {}
    for name in draw(st.lists(st.sampled_from(PRINCIPALS), unique=True, max_size=2)):
        entry: dict[str, Any] = {"token_env": draw(st.sampled_from(TOKEN_VARS))}
        maybe(draw, entry, "permission", RULES)
        table[name] = entry
    return table


@st.composite
def plugins_table(draw: st.DrawFn) -> dict[str, Any]:
    table: dict[str, Any] = {}
    names = st.lists(st.sampled_from(SELECTORS), max_size=3)
    maybe(draw, table, "disable", names)
    maybe(draw, table, "only", names)
    maybe(draw, table, "order", st.lists(st.sampled_from(PLUGIN_NAMES), max_size=3))
    return table


@st.composite
def config(draw: st.DrawFn) -> dict[str, Any]:
    """A valid config file's table, user's or project's alike."""
    table: dict[str, Any] = {}
    maybe(draw, table, "permission", RULES)
    maybe(draw, table, "plugins", plugins_table())
    mcp: dict[str, Any] = {}
    if draw(st.booleans()):
        servers = draw(st.lists(st.sampled_from(("tools", "evil")), unique=True, max_size=2))
        mcp["servers"] = {name: {"command": NO_SERVER, "timeout_s": 5.0} for name in servers}
    if draw(st.booleans()):
        mcp["serve"] = {"principals": draw(principals())}
        maybe(draw, mcp["serve"], "max_sessions", st.integers(1, 5))
    if mcp:
        table["mcp"] = mcp
    maybe(draw, table, "format", st.sampled_from(({"*.py": ["true", "$FILE"]}, {"*": ["sh"]})))
    codemode: dict[str, Any] = {}
    maybe(draw, codemode, "enabled", st.booleans())
    maybe(draw, codemode, "timeout_s", st.sampled_from((1.0, 60.0)))
    if codemode:
        table["codemode"] = codemode
    if draw(st.booleans()):
        table["telemetry"] = {"capture_content": draw(st.booleans())}
    if draw(st.booleans()):
        settings_ = {"timeout_s": 5.0, "defer_loading": draw(st.booleans())}
        table["tools"] = {draw(st.sampled_from(("*", "shell", "s*"))): settings_}
    maybe(draw, table, "output", st.fixed_dictionaries({"max_lines": st.integers(1, 100)}))
    return table


# -- what a host may do -----------------------------------------------------------------------
def catalog(host: Host) -> set[str]:
    snapshot = host.snapshot()
    return set(snapshot.names) | {entry.name for entry in snapshot.codemode_catalog}


def decisions(location: Location, principal: str | None = None) -> dict[tuple[str, str], int]:
    rules = location.principal_policy(principal) if principal else location.policy
    return {
        (action, resource): STRICTNESS[rules.evaluate(action, resource)]
        for action in ACTIONS
        for resource in RESOURCES
    }


def logins(location: Location) -> dict[str, str]:
    """Token → principal that ``tooldeck mcp serve --http`` would let in (none when it
    would refuse to start)."""
    serve = location.config.mcp.serve
    try:
        accepted = tokens(serve, ENVIRON)
    except UsageError:
        return {}
    assert set(accepted.values()) == set(principal_names(serve, ENVIRON))
    return accepted


def started(host: Host) -> set[str]:
    """The MCP servers the host started (or tried to: their command cannot run)."""
    return {p.name for p in host.plugins if p.layer == "mcp" and p.status in ("active", "failed")}


def active(host: Host) -> list[str]:
    return [p.name for p in host.plugins if p.status == "active"]


def after(order: list[str], name: str) -> set[str]:
    return set(order[order.index(name) + 1 :])


# -- the property ------------------------------------------------------------------------------
class Folders:
    """A user config, a folder with the project config and a folder without one."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.project = base / "project"
        self.bare = base / "bare"
        self.opened = 0

    def write(self, user: dict[str, Any], project: dict[str, Any]) -> None:
        for folder in (self.project, self.bare):
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
        path = user_config_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dumps(user))
        (self.project / "tooldeck.toml").write_text(dumps(project))

    def open(self, root: Path, *, trust: bool) -> Host:
        self.opened += 1
        data = self.base / f"data-{self.opened}"
        return Host.open(root, plugins=list(PLUGINS), trust=trust, data_dir=data)


@pytest.fixture
def folders(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> Folders:
    for name, value in ENVIRON.items():
        monkeypatch.setenv(name, value)
    return Folders(clean_env)


def check_location(folders: Folders, user: dict[str, Any], project: dict[str, Any]) -> None:
    """The config-level half, without loading plugins: rules, logins, servers, formatters
    and switches, as ``Host.open`` sets up the Location (cheap: many examples)."""
    folders.write(user, project)
    alone = open_location(folders.bare, True, folders.base / "data", None, None)[0]
    untrusted = open_location(folders.project, False, folders.base / "data", None, None)[0]
    for principal in (None, *alone.config.mcp.serve.principals):
        mine, now = decisions(alone, principal), decisions(untrusted, principal)
        looser = {k: (mine[k], now[k]) for k in mine if now[k] < mine[k]}
        assert not looser, f"looser than the user's own rules for {principal}: {looser}"
    assert logins(untrusted).items() <= logins(alone).items()
    config, own = untrusted.config, alone.config
    assert config.format.items() <= own.format.items()
    assert config.mcp.servers.items() <= own.mcp.servers.items()
    assert config.codemode.enabled <= own.codemode.enabled
    assert config.telemetry.capture_content <= own.telemetry.capture_content


def check_host(folders: Folders, user: dict[str, Any], project: dict[str, Any]) -> None:
    """The whole invariant on opened hosts: the catalog, what starts, which plugins."""
    folders.write(user, project)
    with (
        folders.open(folders.bare, trust=True) as alone,
        folders.open(folders.project, trust=False) as untrusted,
    ):
        assert catalog(untrusted) <= catalog(alone)
        for principal in (None, *alone.location.config.mcp.serve.principals):
            mine, now = (
                decisions(alone.location, principal),
                decisions(untrusted.location, principal),
            )
            assert all(now[k] >= mine[k] for k in mine)
        assert logins(untrusted.location).items() <= logins(alone.location).items()
        assert started(untrusted) <= started(alone)
        mine_active, now_active = active(alone), active(untrusted)
        assert set(now_active) <= set(mine_active)
        for guard in HOOKED & set(mine_active):
            assert guard in now_active, f"the project switched off the user's {guard}"
            assert after(now_active, guard) <= after(mine_active, guard)


CHEAP = settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
OPENED = settings(CHEAP, max_examples=examples(25))


@CHEAP
@given(user=config(), project=config())
def test_an_untrusted_folder_decides_logs_in_and_starts_only_what_the_user_allows(
    folders, user, project
):
    check_location(folders, user, project)


@OPENED
@given(user=config(), project=config())
def test_an_untrusted_folder_may_do_only_what_the_user_alone_allows(folders, user, project):
    check_host(folders, user, project)


@pytest.mark.slow
@settings(CHEAP, max_examples=3000)
@given(user=config(), project=config())
def test_the_location_invariant_over_many_more_configs(folders, user, project):
    check_location(folders, user, project)


@pytest.mark.slow
@settings(OPENED, max_examples=400)
@given(user=config(), project=config())
def test_the_host_invariant_over_many_more_configs(folders, user, project):
    check_host(folders, user, project)


# -- narrowing removes exactly what trust covers -------------------------------------------
def pruned(table: dict[str, Any]) -> dict[str, Any]:
    """``table`` without empty tables (they set nothing, whether narrowing keeps them)."""
    kept = {k: pruned(v) if isinstance(v, dict) else v for k, v in table.items()}
    return {k: v for k, v in kept.items() if v != {}}


@settings(max_examples=examples(200), deadline=None)
@given(project=config())
def test_nothing_to_trust_is_exactly_nothing_narrowed(project):
    narrowing = narrowed(project)
    allows = [r for r in project.get("permission", ()) if r["effect"] == "allow"]
    assert (not narrowing.items) == (pruned(narrowing.table) == pruned(project) and not allows)
    again = narrowed(narrowing.table)  # what is left needs no trust but its allow rules
    assert again.table == narrowing.table
    assert [i.kind for i in again.items] == ["allow"] * len(allows)


@OPENED
@given(user=config(), project=config())
def test_a_folder_with_nothing_to_trust_opens_the_same_trusted_or_not(folders, user, project):
    folders.write(user, project)
    if trust_status(folders.project).items:
        return
    with (
        folders.open(folders.project, trust=True) as trusted,
        folders.open(folders.project, trust=False) as untrusted,
    ):
        assert catalog(trusted) == catalog(untrusted)
        assert decisions(trusted.location) == decisions(untrusted.location)
        assert trusted.location.config == untrusted.location.config
        assert active(trusted) == active(untrusted)
