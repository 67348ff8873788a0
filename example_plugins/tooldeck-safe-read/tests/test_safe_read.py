"""tooldeck-safe-read over a real Host: the override, the refusals, the caps, the reveal."""

from __future__ import annotations

import pytest
import tooldeck

import tooldeck_safe_read


@pytest.fixture(params=["code", "native"])
def project(tmp_path, monkeypatch, request):
    """A project dir with no user config leaking in, with code mode on and off (``read``
    is native either way: models are trained to call it directly)."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    root = tmp_path / "project"
    root.mkdir()
    if request.param == "native":
        (root / "tooldeck.toml").write_text("[codemode]\nenabled = false\n")
    (root / "README.md").write_text("# demo\nhello\n")
    return root


@pytest.fixture
def asks():
    return []


@pytest.fixture
def read(project, asks):
    """``await read(path=..., ...)`` through a Host with safe-read loaded."""
    host = tooldeck.Host.open(project, plugins=[tooldeck_safe_read], asker=asks.append)

    async def read_(**arguments):
        call = tooldeck.ToolCall("call_1", "read", arguments)
        return await tooldeck.run_tool_call(host.snapshot(), call)

    return read_


def entry(host, name="read"):
    return host.service.catalog.tools[name]


# -- the override --------------------------------------------------------------------------
def test_safe_read_overrides_the_builtin_read(project):
    host = tooldeck.Host.open(project, plugins=[tooldeck_safe_read])
    assert entry(host).source == "tooldeck_safe_read"
    assert host.service.catalog.lineage("read") == ("tooldeck_safe_read", "builtin:read")
    [info] = [p for p in host.plugins if p.name == "tooldeck_safe_read"]
    assert info.overrides == (("read", "builtin:read"),)
    tool = host.snapshot().get("read")
    assert tool.codemode is False
    assert "Refused" in tool.description
    assert tool.permission == "read"


def test_without_the_pack_read_is_the_builtin_again(project):
    assert entry(tooldeck.Host.open(project, plugins=[])).source == "builtin:read"


def test_the_installed_pack_overrides_and_disabling_it_reveals_the_builtin(project):
    """Needs the pack installed: loaded by its entry point, then disabled by name."""
    host = tooldeck.Host.open(project, plugins=["tooldeck-safe-read"])
    assert entry(host).source == "tooldeck-safe-read"
    disabled = tooldeck.Host.open(
        project, plugins=["tooldeck-safe-read"], disable=["tooldeck-safe-read"]
    )
    assert entry(disabled).source == "builtin:read"
    [info] = [p for p in disabled.plugins if p.name == "tooldeck-safe-read"]
    assert info.status == "disabled"


def test_without_any_read_safe_read_adds_none(project):
    host = tooldeck.Host.open(project, plugins=[tooldeck_safe_read], disable=["builtin:read"])
    assert "read" not in host.service.catalog.tools


async def test_it_wraps_whatever_read_came_before_it(project):
    """Another pack's ``read`` with a JSON Schema input: safe-read guards that one."""

    class PlainRead:
        @tooldeck.hookimpl
        def tool_transform(self, editor):
            editor.add(
                tooldeck.Tool(
                    name="read",
                    description="Plain read.",
                    codemode=False,
                    input={
                        "type": "object",
                        "properties": {
                            "path": {"type": "string"},
                            "offset": {"type": "integer"},
                            "limit": {"type": "integer"},
                        },
                    },
                    execute=lambda data, ctx: tooldeck.ToolResult(f"plain {data}"),
                )
            )

    host = tooldeck.Host.open(project, plugins=[PlainRead(), tooldeck_safe_read])
    assert host.service.catalog.lineage("read")[:2] == ("tooldeck_safe_read", "PlainRead")
    snapshot = host.snapshot()
    done = await tooldeck.run_tool_call(
        snapshot, tooldeck.ToolCall("c", "read", {"path": "a", "limit": 900})
    )
    assert done.content[0].text == "plain {'path': 'a', 'offset': 1, 'limit': 500}"
    refused = await tooldeck.run_tool_call(
        snapshot, tooldeck.ToolCall("c", "read", {"path": ".env"})
    )
    assert refused.status == "failed"


# -- reading still works -------------------------------------------------------------------
async def test_ordinary_files_are_read_by_the_builtin(read, project):
    outcome = await read(path="README.md")
    assert outcome.status == "completed", outcome.error
    assert "1: # demo" in outcome.content[0].text
    assert outcome.output["path"] == str(project / "README.md")
    assert outcome.output["kind"] == "text"


async def test_directory_listings_and_lookalikes_are_allowed(read, project):
    (project / "docs").mkdir()
    for name in ["keys.md", "id_generator.py", "environment.txt", "dotenv.md"]:
        (project / "docs" / name).write_text("fine\n")
        assert (await read(path=f"docs/{name}")).status == "completed", name
    assert (await read(path=".")).status == "completed"


# -- refusals ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "path, reason",
    [
        (".env", ".env files hold secrets"),
        (".env.local", ".env files hold secrets"),
        ("config/.env", ".env files hold secrets"),
        ("certs/server.pem", "private keys"),
        ("tls.KEY", "private keys"),
        ("keys/id_rsa", "SSH keys"),
        ("id_ed25519.pub", "SSH keys"),
        (".git/config", "inside .git/"),
        (".git", "inside .git/"),
        (".ssh/known_hosts", "hidden files and directories"),
        (".npmrc", "hidden files and directories"),
        ("sub/../.netrc", "hidden files and directories"),
    ],
)
async def test_secrets_and_dotfiles_are_refused_with_the_reason(read, project, asks, path, reason):
    target = project / path
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists():
        target.write_text("TOP-SECRET\n")
    outcome = await read(path=path)
    assert outcome.status == "failed"
    assert outcome.error.type == "tool.execution"
    assert outcome.error.message.startswith(f"Refused to read {path}: ")
    assert reason in outcome.error.message
    assert "TOP-SECRET" not in outcome.error.message
    assert asks == []  # refused before anything was asked


async def test_a_symlink_to_a_secret_is_refused(read, project):
    (project / ".env").write_text("TOP-SECRET\n")
    (project / "notes.txt").symlink_to(project / ".env")
    outcome = await read(path="notes.txt")
    assert outcome.status == "failed"
    assert f"(it leads to {project / '.env'})" in outcome.error.message


async def test_a_secret_outside_the_project_is_refused_without_asking(read, tmp_path, asks):
    key = tmp_path / "home" / ".ssh" / "id_rsa"
    key.parent.mkdir(parents=True)
    key.write_text("TOP-SECRET\n")
    outcome = await read(path=str(key))
    assert outcome.status == "failed"
    assert "SSH keys" in outcome.error.message
    assert asks == []


async def test_a_project_inside_a_hidden_directory_is_still_readable(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    root = tmp_path / ".local" / "src" / "project"
    root.mkdir(parents=True)
    (root / "a.txt").write_text("fine\n")
    host = tooldeck.Host.open(root, plugins=[tooldeck_safe_read])
    outcome = await tooldeck.run_tool_call(
        host.snapshot(), tooldeck.ToolCall("c", "read", {"path": "a.txt"})
    )
    assert outcome.status == "completed", outcome.error


# -- caps ----------------------------------------------------------------------------------
async def test_pages_hold_at_most_500_lines(read, project):
    (project / "long.txt").write_text("".join(f"{i}\n" for i in range(1, 1201)))
    outcome = await read(path="long.txt", limit=2000)
    assert outcome.output["last"] == 500
    assert outcome.output["next_offset"] == 501
    assert "Use offset=501 to continue." in outcome.content[0].text
    short = await read(path="long.txt", offset=1195, limit=10)
    assert (short.output["first"], short.output["last"]) == (1195, 1200)


async def test_files_over_1_mb_are_refused(read, project):
    (project / "big.log").write_bytes(b"x\n" * (600 * 1024))
    outcome = await read(path="big.log")
    assert outcome.status == "failed"
    assert "it is 1.2 MB and safe-read reads files up to 1 MB" in outcome.error.message


async def test_missing_files_are_reported_by_the_builtin(read):
    outcome = await read(path="READNE.md")
    assert outcome.status == "failed"
    assert "Did you mean: README.md?" in outcome.error.message
