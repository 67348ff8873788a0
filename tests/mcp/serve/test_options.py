"""``tooldeck mcp serve`` refuses a start its options rule out before the MCP SDK loads
(about a second of CPU), and still starts when a token may exist."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tooldeck.errors import UsageError
from tooldeck.mcp.serve.options import (
    HttpAddress,
    check_state_secret,
    check_token_possible,
    checked_address,
)

PROBE = """
import json, sys
from tooldeck.cli import main
code = main(["mcp", "serve", "--location", *sys.argv[1:]])
heavy = sorted(m for m in ("mcp", "anyio", "tooldeck.mcp.sdk", "tooldeck.mcp.serve.command")
               if m in sys.modules)
print(json.dumps({"code": code, "loaded": heavy}))
"""


def refused_start(tmp_path, *args: str, **variables: str) -> str:
    """``tooldeck mcp serve ARGS`` in a clean environment plus ``variables``: its stderr,
    once it is checked that the start was refused (exit 2) before the SDK loaded."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLDECK_")}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg-config")
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path), *args],
        capture_output=True,
        text=True,
        env={**env, **variables},
        check=True,
        timeout=120,
    )
    assert json.loads(done.stdout) == {"code": 2, "loaded": []}
    return done.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--http", "x:y"], "expected [HOST:]PORT"),
        (["--http", "0.0.0.0:8765"], "refusing to listen on a non-loopback address"),
        (["--http", "8765", "--allow-remote"], "--allow-remote needs a bearer token"),
        (["--http", "8765", "--allowed-host", "x/y"], "--allowed-host: allowed host 'x/y'"),
    ],
)
def test_a_refused_start_never_loads_the_sdk(tmp_path, args, message):
    assert message in refused_start(tmp_path, *args)


def test_a_state_secret_short_enough_to_guess_refuses_the_start(tmp_path):
    """A client can test guesses at it offline, against the sealed rounds it holds."""
    said = refused_start(tmp_path, "--http", "8765", TOOLDECK_MCP_STATE_SECRET="changeme")
    assert "TOOLDECK_MCP_STATE_SECRET is 8 characters long; it needs at least 32" in said
    assert "changeme" not in said
    check_state_secret({"TOOLDECK_MCP_STATE_SECRET": "s" * 32})  # long enough
    check_state_secret({})  # unset: the process's own key


def test_addresses_parse_and_only_loopback_is_allowed_without_allow_remote():
    assert checked_address(None, allow_remote=False) is None
    assert checked_address("8001", allow_remote=False) == HttpAddress("127.0.0.1", 8001)
    assert checked_address("[::1]:8001", allow_remote=False) == HttpAddress("::1", 8001)
    assert checked_address("10.0.0.5:80", allow_remote=True).url == "http://10.0.0.5:80/mcp"
    with pytest.raises(UsageError, match="without --allow-remote"):
        checked_address("10.0.0.5:80", allow_remote=False)
    with pytest.raises(UsageError, match="port 1-65535"):
        checked_address("0", allow_remote=False)


def test_allow_remote_waits_for_the_location_when_a_token_may_exist(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    check_token_possible(tmp_path, "8001", True, {"TOOLDECK_MCP_TOKEN": "s3cret"})
    check_token_possible(tmp_path, None, True, {})  # stdio: no token to require
    check_token_possible(tmp_path, "8001", False, {})  # loopback: anyone on the machine
    with pytest.raises(UsageError, match="needs a bearer token"):
        check_token_possible(tmp_path, "8001", True, {})
    # A principal in the files, trusted or not: whether its token is set and survives
    # trust is decided once the Location is open.
    (tmp_path / "tooldeck.toml").write_text('[mcp.serve.principals.ci]\ntoken_env = "CI_TOKEN"\n')
    check_token_possible(tmp_path, "8001", True, {})
