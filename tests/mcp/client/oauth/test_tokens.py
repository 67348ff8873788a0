"""The token file (``tooldeck/mcp/client/oauth/tokens.py``): one per server in the user's
data dir, private, replaced atomically, and a broken one is named rather than trusted."""

from __future__ import annotations

import json
import stat
import subprocess
import sys

import pytest

from tooldeck.errors import ConfigError
from tooldeck.host.config.config import McpServerConfig
from tooldeck.mcp.client.oauth.tokens import TokenFile, oauth_dir, token_path
from tooldeck.mcp.sdk import OAuthToken

from ....full_disk import on_a_full_disk
from .conftest import open_host, project, row


def config(**keys: object) -> McpServerConfig:
    return McpServerConfig.model_validate(
        {"url": "https://mcp.example.com/mcp", "auth": "oauth", **keys}
    )


def test_one_file_per_server_url_grant_and_client(user_dirs):
    base = token_path(config())
    assert base.parent == oauth_dir() == user_dirs / "xdg-data" / "tooldeck" / "oauth"
    assert base.name.startswith("mcp.example.com-")
    assert token_path(config()) == base  # two projects mounting one server share it
    others = {
        token_path(config(client_id="pre")),
        token_path(config(client_metadata_url="https://tooldeck.example/client.json")),
        token_path(config(url="https://other.example.com/mcp")),
    }
    assert base not in others and len(others) == 3


def test_written_atomically_and_privately(user_dirs):
    tokens = TokenFile(token_path(config()), "https://mcp.example.com/mcp")
    tokens.set_tokens(OAuthToken(access_token="a", expires_in=60, refresh_token="r"))
    tokens.update(wanted_scope="admin")
    assert stat.S_IMODE(tokens.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(tokens.path.parent.stat().st_mode) == 0o700
    names = sorted(p.name for p in tokens.path.parent.iterdir())  # no temporary file left
    assert names == [tokens.path.name, f"{tokens.path.name}.lock"]
    assert tokens.tokens() == OAuthToken(access_token="a", expires_in=60, refresh_token="r")
    assert tokens.wanted_scope() == "admin"
    tokens.set_tokens(OAuthToken(access_token="b"))  # a new sign-in got what was wanted
    assert tokens.wanted_scope() is None and tokens.expires_at() is None
    assert tokens.remove() and not tokens.remove()


_UPDATES = """
import sys
from pathlib import Path
from tooldeck.mcp.client.oauth.tokens import TokenFile
tokens = TokenFile(Path(sys.argv[1]), "https://mcp.example.com/mcp")
for i in range(100):
    tokens.update(**{f"{sys.argv[2]}{i}": i})
"""


def test_two_processes_updating_at_once_lose_nothing(user_dirs):
    """``tooldeck mcp login`` beside a host refreshing: every update of both lands."""
    path = token_path(config())
    writers = [subprocess.Popen([sys.executable, "-c", _UPDATES, str(path), name]) for name in "ab"]
    assert [writer.wait(timeout=120) for writer in writers] == [0, 0]
    data = TokenFile(path, "https://mcp.example.com/mcp").read()
    assert sorted(k for k in data if k[0] in "ab") == sorted(
        f"{name}{i}" for name in "ab" for i in range(100)
    )


_LIMITED = """
import sys
from pathlib import Path
from tooldeck.errors import ConfigError
from tooldeck.mcp.client.oauth.tokens import TokenFile
try:
    TokenFile(Path(sys.argv[1]), "https://mcp.example.com/mcp").update(client={"id": "x" * 2000})
except ConfigError as exc:
    print(exc)
"""


def test_a_full_disk_leaves_the_tokens_whole_and_says_which_file(user_dirs):
    tokens = TokenFile(token_path(config()), "https://mcp.example.com/mcp")
    tokens.set_tokens(OAuthToken(access_token="a", refresh_token="r"))
    before = tokens.path.read_text()
    done = on_a_full_disk(_LIMITED, str(tokens.path))
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        f"{tokens.path}: OAuth tokens: cannot be written: File too large; it was left as it was\n"
    )
    assert tokens.path.read_text() == before
    assert not [p for p in tokens.path.parent.iterdir() if p.name.startswith(".")]


def test_a_file_that_is_not_a_token_file_is_named(user_dirs):
    tokens = TokenFile(token_path(config()), "https://mcp.example.com/mcp")
    tokens.path.parent.mkdir(parents=True)
    tokens.path.write_text(json.dumps({"version": 99}))
    with pytest.raises(ConfigError) as raised:
        tokens.tokens()
    assert raised.value.path == str(tokens.path)
    assert "not a token file" in raised.value.message and "remove it" in raised.value.message


def test_a_broken_token_file_fails_the_server_row_naming_it(tmp_path, user_dirs, resource):
    root = project(tmp_path / "p", resource.resource)
    path = token_path(McpServerConfig(url=resource.resource, auth="oauth"))
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    with open_host(root, None) as host:
        info = row(host)
    assert info.status == "failed"
    assert str(path) in info.reason and "remove it" in info.reason
