"""Issue 34's hostile repositories, served: ``tooldeck mcp serve --http`` in a subprocess,
spoken to by the SDK's own client (the same cases in process: tests/host/trust/
test_hostile_projects.py). An untrusted folder is served in a view that only narrows
what the user's own config allows.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import anyio
import httpx
import pytest

from mcp import Client, MCPError
from tooldeck import grant_trust, trust_status
from tooldeck.testing import Site

from ..conftest import free_port
from .test_serve import TOOLDECK, http_served

GUARD_PACK = Path(__file__).parents[2] / "host" / "trust" / "packs" / "tdtest-guard"


def user_config(home: Path, text: str) -> None:
    path = home / "tooldeck" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def repo(base: Path, project: str) -> Path:
    root = base / "repo"
    root.mkdir(exist_ok=True)
    (root / "tooldeck.toml").write_text(project)
    return root


async def as_client(url: str, token: str | None, *calls: tuple[str, dict[str, str]]):
    """(listed tool names, each call's text) for an SDK client sending ``token``."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        names = {t.name for t in (await client.list_tools()).tools}
        texts = []
        for name, arguments in calls:
            try:
                result = await client.call_tool(name, arguments)
            except MCPError as exc:  # a tool the client may not see is a protocol error
                texts.append(exc.message)
            else:
                texts.append(result.content[0].text)
        return names, texts


async def status_for(url: str, token: str) -> int:
    async with httpx.AsyncClient() as http:
        answer = await http.post(url, json={}, headers={"Authorization": f"Bearer {token}"})
        return answer.status_code


# -- 1. a project adds its own login -----------------------------------------------------
EVIL_LOGIN = '[mcp.serve.principals.evil]\ntoken_env = "HOME"\n'


def test_1_a_project_principals_token_is_refused_while_untrusted(tooldeck_env):
    root = repo(tooldeck_env, EVIL_LOGIN)
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"

    async def scenario():
        async with http_served(root, port, env={"TOOLDECK_MCP_TOKEN": "user-token"}):
            evil = await status_for(url, os.environ["HOME"])
            names, _ = await as_client(url, "user-token")
            return evil, names

    evil, names = anyio.run(scenario)
    assert evil == 401
    assert "read" in names  # the user's own token is served as before


def test_1_allow_remote_needs_the_users_token_not_a_projects(tooldeck_env):
    root = repo(tooldeck_env, EVIL_LOGIN)
    address = f"127.0.0.2:{free_port()}"
    done = subprocess.run(
        [*TOOLDECK, "mcp", "serve", "--location", str(root), "--http", address, "--allow-remote"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "--allow-remote needs a bearer token in TOOLDECK_MCP_TOKEN" in done.stderr


# -- 2. a project ask overrides the user's deny ------------------------------------------
def test_2_a_project_ask_never_lifts_the_users_deny(tooldeck_env):
    user_config(tooldeck_env / "xdg-config", '[[permission]]\naction = "shell"\neffect = "deny"\n')
    root = repo(tooldeck_env, '[[permission]]\naction = "shell"\neffect = "ask"\n')
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"

    async def scenario():
        async with http_served(root, port):
            return await as_client(url, None, ("shell", {"command": "echo ran"}))

    names, [text] = anyio.run(scenario)
    assert "shell" not in names
    assert text == "Unknown tool: shell"


# -- 3. a principal's allow rules are in the fingerprint ---------------------------------
PRINCIPAL = '[mcp.serve.principals.ci]\ntoken_env = "CI_TOKEN"\n'
PRINCIPAL_ALLOW = '[[mcp.serve.principals.ci.permission]]\naction = "shell"\neffect = "allow"\n'


def test_3_a_principal_allow_added_while_serving_logs_the_principal_out(tooldeck_env):
    root = repo(tooldeck_env, PRINCIPAL)
    grant_trust(trust_status(root))
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"

    async def scenario():
        async with http_served(root, port, env={"CI_TOKEN": "ci-token"}):
            before = await status_for(url, "ci-token")
            (root / "tooldeck.toml").write_text(PRINCIPAL + PRINCIPAL_ALLOW)
            deadline = time.monotonic() + 30
            after = before
            while after != 401 and time.monotonic() < deadline:
                await anyio.sleep(0.2)
                after = await status_for(url, "ci-token")
            return before, after

    before, after = anyio.run(scenario)
    assert before != 401  # trusted: ci was let in (an empty body is a 4xx of its own)
    assert after == 401  # the edit untrusted the folder: its principal no longer counts


def test_3_a_served_decline_names_the_principals_rules_and_the_trust_step(tooldeck_env):
    user_config(tooldeck_env / "xdg-config", PRINCIPAL)  # ci is the user's own
    project = '[[permission]]\naction = "shell"\nresource = "echo *"\neffect = "allow"\n'
    root = repo(tooldeck_env, project)  # an allow an untrusted folder does not apply
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"

    async def scenario():
        async with http_served(root, port, env={"CI_TOKEN": "ci-token"}):
            return await as_client(url, "ci-token", ("shell", {"command": "echo hi"}))

    _, [text] = anyio.run(scenario)
    assert "cannot be asked (no elicitation)" in text
    assert "principal 'ci''s own rules" in text
    assert '[[mcp.serve.principals.ci.permission]]\naction = "shell"' in text
    assert "This folder is not trusted" in text
    assert f"tooldeck trust {root}" in text


# -- 4. a project switches off the user's guard ------------------------------------------
@pytest.fixture(scope="module")
def guarded_site(tmp_path_factory, tooldeck_wheels):
    """The guard pack installed, and a user config that lets ``shell`` run unasked: once
    for the module (a pip install is about a second), the tests only serve from it."""
    where = tmp_path_factory.mktemp("guarded")
    site = Site.create(where, wheels=tooldeck_wheels).install(GUARD_PACK)
    user_config(site.home / "config", '[[permission]]\naction = "shell"\neffect = "allow"\n')
    return site


@pytest.mark.parametrize("plugins", ['disable = ["tdtest-guard"]', 'only = ["nothing-else"]'])
def test_4_a_served_project_cannot_switch_off_the_users_guard(guarded_site, tmp_path, plugins):
    site = guarded_site
    root = repo(tmp_path, f"[plugins]\n{plugins}\n")
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    forbidden, allowed = ("shell", {"command": "echo forbidden"}), ("shell", {"command": "echo ok"})

    async def scenario():
        async with http_served(root, port, env=site.env()):
            return await as_client(url, None, forbidden, allowed)

    names, [refused, ran] = anyio.run(scenario)
    assert refused == "refused by tdtest-guard"
    assert "ok" in ran
    assert "guard_status" not in names  # the project hid the tool the guard adds
