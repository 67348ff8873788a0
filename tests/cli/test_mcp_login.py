"""``tooldeck mcp login`` and ``tooldeck mcp logout``, as a user runs them: real processes,
``$BROWSER`` a program that opens the URL (and follows it back to tooldeck's loopback
listener), against a real authorization server and protected MCP server on 127.0.0.1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import NamedTuple

import pytest

from ..mcp.client.oauth.authserver import AuthorizationServer
from ..mcp.client.oauth.conftest import serve_authority, serve_resource
from ..mcp.client.oauth.resource import ProtectedResource

BROWSER = """\
import sys, httpx
with open(sys.argv[0] + ".opened", "a") as seen:
    seen.write(sys.argv[1] + "\\n")
httpx.get(sys.argv[1], follow_redirects=True, timeout=30)
"""


@pytest.fixture
def authority() -> Iterator[AuthorizationServer]:
    yield from serve_authority(AuthorizationServer())


@pytest.fixture
def resource(authority: AuthorizationServer) -> Iterator[ProtectedResource]:
    yield from serve_resource(ProtectedResource(authority))


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "browser.py").write_text(BROWSER)
    return tmp_path


def make_project(home: Path, resource: ProtectedResource) -> Path:
    root = home / "project"
    root.mkdir()
    (root / "tooldeck.toml").write_text(
        '[[permission]]\naction = "secure_*"\neffect = "allow"\n\n'
        f'[mcp.servers.secure]\nurl = "{resource.resource}"\nauth = "oauth"\n\n'
        f'[mcp.servers.plain]\nurl = "{resource.resource}"\n'
    )
    return root


@pytest.fixture
def project(home: Path, resource: ProtectedResource) -> Path:
    return make_project(home, resource)


class SignedIn(NamedTuple):
    home: Path
    project: Path
    authority: AuthorizationServer
    login: subprocess.CompletedProcess[str]


@pytest.fixture(scope="module")
def signed_in(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SignedIn]:
    """One ``tooldeck mcp login secure`` for the tests that only read what it did and
    left (a login is two interpreters, one importing the MCP SDK)."""
    home = tmp_path_factory.mktemp("signed-in")
    (home / "browser.py").write_text(BROWSER)
    with ExitStack() as stack:
        authority = stack.enter_context(contextmanager(serve_authority)(AuthorizationServer()))
        resource = stack.enter_context(contextmanager(serve_resource)(ProtectedResource(authority)))
        project = make_project(home, resource)
        yield SignedIn(home, project, authority, tooldeck(home, project, "mcp", "login", "secure"))


def environment(home: Path, trust: bool = True) -> dict[str, str]:
    """A user's environment with ``home``'s data and config dirs and browser."""
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith(("TOOLDECK_", "XDG_"))},
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "BROWSER": f"{sys.executable} {home / 'browser.py'}",
        **({"TOOLDECK_TRUST": "1"} if trust else {}),
    }


def tooldeck(
    home: Path, project: Path, *args: str, trust: bool = True
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tooldeck", "--location", str(project), *args],
        env=environment(home, trust),
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )


def test_login_opens_the_browser_and_keeps_the_tokens_for_later_commands(signed_in):
    home, project, authority, done = signed_in
    assert done.returncode == 0, done.stderr
    assert "to sign in to MCP server 'secure', open this URL:" in done.stderr
    (opened,) = (home / "browser.py.opened").read_text().splitlines()
    assert opened.startswith(f"{authority.url}/authorize?")
    assert opened in done.stderr  # printed too: the URL works without a browser
    assert done.stdout.startswith("signed in to MCP server 'secure' (3 tools); tokens kept in ")
    (tokens,) = (home / "data" / "tooldeck" / "oauth").glob("*.json")
    assert str(tokens) in done.stdout
    called = tooldeck(home, project, "call", "secure_whoami", "{}")
    assert called.returncode == 0, called.stderr
    assert "hello, authorized caller" in called.stdout


def test_a_command_needing_a_sign_in_says_to_log_in(home, project):
    done = tooldeck(home, project, "call", "secure_whoami", "{}")
    assert done.returncode == 1
    assert "needs a sign-in (OAuth); run `tooldeck mcp login secure`" in done.stdout + done.stderr


def test_logout_revokes_the_tokens_and_forgets_them(home, project, authority):
    assert tooldeck(home, project, "mcp", "login", "secure").returncode == 0
    access = next(iter(authority.grants))
    done = tooldeck(home, project, "mcp", "logout", "secure")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        "signed out of MCP server 'secure': revoked refresh_token, access_token at "
        f"{authority.url}/revoke; its tokens are deleted"
    )
    assert authority.grants[access].revoked
    assert list((home / "data" / "tooldeck" / "oauth").glob("*.json")) == []
    again = tooldeck(home, project, "mcp", "logout", "secure")
    assert again.stdout.strip() == "no tokens were kept for MCP server 'secure'; nothing to revoke"


def test_login_refuses_what_it_cannot_sign_in_to(home, project):
    plain = tooldeck(home, project, "mcp", "login", "plain")
    assert plain.returncode == 2
    assert 'does not say auth = "oauth"' in plain.stderr
    unknown = tooldeck(home, project, "mcp", "login", "nope")
    assert unknown.returncode == 2
    assert "no MCP server 'nope' is configured (configured: plain, secure)" in unknown.stderr
    untrusted = tooldeck(home, project, "mcp", "login", "secure", trust=False)
    assert untrusted.returncode == 2
    assert "comes from this folder's config, which is not trusted" in untrusted.stderr
    assert "tooldeck trust" in untrusted.stderr


REFUSED = """
import sys
from tooldeck.cli import main
code = main(sys.argv[1:])
print(code, "mcp" in sys.modules)
"""


@pytest.mark.parametrize("command", ["login", "logout"])
def test_a_refused_name_is_refused_before_the_sdk_loads(home, project, command):
    """The server is looked up first: a typo costs reading the config, not the SDK."""
    done = subprocess.run(
        [sys.executable, "-c", REFUSED, "--location", str(project), "mcp", command, "nope"],
        env=environment(home),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "no MCP server 'nope' is configured" in done.stderr
    assert done.stdout.split() == ["2", "False"]


def test_tokens_are_never_written_into_the_project(signed_in):
    home, project, _authority, done = signed_in
    assert done.returncode == 0, done.stderr
    written = [p.name for p in project.rglob("*") if p.is_file()]
    assert written == ["tooldeck.toml"]
    (tokens,) = (home / "data" / "tooldeck" / "oauth").glob("*.json")
    assert json.loads(tokens.read_text())["server"].endswith("/mcp")
