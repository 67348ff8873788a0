"""The blocks of ``docs/mcp.md``'s "Signing in with OAuth" run, against the fixture
authorization server and protected MCP server: the example URLs become theirs, the
``login``/``logout`` lines run as commands with ``$BROWSER`` a program that signs in,
the embedding example runs with ``webbrowser.open`` doing the same, and the quoted
message is the one a host without an authorizer reports."""

from __future__ import annotations

import os
import subprocess
import sys
import webbrowser
from pathlib import Path

import httpx

from tooldeck.host.config.config_files import load_config

from ....docs_blocks import page
from .authserver import AuthorizationServer, Client
from .conftest import open_host, row, serve_authority, serve_resource
from .resource import ProtectedResource

PAGE = page("mcp.md")
CODE_GRANT = PAGE.take("toml", "[mcp.servers.docs]")
CLIENT_CREDENTIALS = PAGE.take("toml", "[mcp.servers.reports]")
ISSUER = PAGE.take("toml", "[mcp.servers.billing]")
LOGIN = PAGE.take("bash", "tooldeck mcp login docs")
NEEDS_SIGN_IN = PAGE.take("text", "needs a sign-in (OAuth)")
EMBEDDED = PAGE.take("python", "authorizer=sign_in")


def configured(block: str, resource: ProtectedResource, root: Path) -> Path:
    """The block as a project's ``tooldeck.toml``, its example URL the fixture server's."""
    url = next(line.split('"')[1] for line in block.splitlines() if line.startswith("url ="))
    root.mkdir(parents=True, exist_ok=True)
    rules = '[[permission]]\naction = "*"\neffect = "allow"\n\n'
    (root / "tooldeck.toml").write_text(rules + block.replace(url, resource.resource))
    load_config(root)  # strict: an unknown key or a wrong type raises ConfigError
    return root


def test_the_authorization_code_block_mounts_after_a_sign_in(tmp_path, resource, browser):
    root = configured(CODE_GRANT.code, resource, tmp_path / "p")
    with open_host(root, browser) as host:
        assert row(host, "docs").status == "active", row(host, "docs").reason
    assert "read" in browser.requests[0].url  # the configured scope was asked for


def test_the_client_credentials_block_needs_no_person(tmp_path, monkeypatch):
    monkeypatch.setenv("REPORTS_CLIENT_SECRET", "s3cret")
    bot = Client("reporting-bot", secret="s3cret", grant_types=("client_credentials",))
    for authority in serve_authority(AuthorizationServer(clients={"reporting-bot": bot})):
        for resource in serve_resource(ProtectedResource(authority)):
            root = configured(CLIENT_CREDENTIALS.code, resource, tmp_path / "p")
            with open_host(root, None) as host:
                assert row(host, "reports").status == "active", row(host, "reports").reason


def test_the_issuer_block_signs_in_where_resource_metadata_is_missing(tmp_path, monkeypatch):
    monkeypatch.setenv("BILLING_CLIENT_SECRET", "s3cret")
    bot = Client("billing-bot", secret="s3cret", grant_types=("client_credentials",))
    for authority in serve_authority(AuthorizationServer(clients={"billing-bot": bot})):
        for resource in serve_resource(ProtectedResource(authority, published=False)):
            block = ISSUER.code.replace("https://login.example.com", authority.url)
            root = configured(block, resource, tmp_path / "p")
            with open_host(root, None) as host:
                assert row(host, "billing").status == "active", row(host, "billing").reason


def test_the_quoted_message_is_what_a_host_without_an_authorizer_reports(tmp_path, resource):
    root = configured(CODE_GRANT.code, resource, tmp_path / "p")
    with open_host(root, None) as host:
        assert row(host, "docs").reason == NEEDS_SIGN_IN.code.strip()


def test_login_and_logout_run_as_written(tmp_path, user_dirs, authority, resource):
    root = configured(CODE_GRANT.code, resource, tmp_path / "p")
    browser = tmp_path / "browser.py"
    browser.write_text("import sys, httpx\nhttpx.get(sys.argv[1], follow_redirects=True)\n")
    env = {**os.environ, "TOOLDECK_TRUST": "1", "BROWSER": f"{sys.executable} {browser}"}
    commands = [line.split("#")[0].split() for line in LOGIN.code.splitlines()]
    outputs = []
    for argv in commands:
        assert argv[:2] == ["tooldeck", "mcp"]
        done = subprocess.run(
            [sys.executable, "-m", "tooldeck", "--location", str(root), *argv[1:]],
            env=env,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    assert outputs[0].startswith("signed in to MCP server 'docs' (3 tools)")
    assert outputs[1].startswith("signed out of MCP server 'docs': revoked refresh_token")
    assert all(grant.revoked for grant in authority.grants.values())


def test_the_embedding_example_signs_in_through_its_authorizer(
    tmp_path, resource, monkeypatch, capsys
):
    root = configured(CODE_GRANT.code, resource, tmp_path / "project")
    opened: list[str] = []

    def open_url(url: str) -> bool:  # the user's browser: signs in, comes back
        opened.append(url)
        httpx.get(url, follow_redirects=True, timeout=30)
        return True

    monkeypatch.setattr(webbrowser, "open", open_url)
    monkeypatch.setenv("TOOLDECK_TRUST", "1")
    code = EMBEDDED.code.replace("/path/to/project", str(root))
    exec(compile(code, str(EMBEDDED), "exec"), {"__name__": "__doc_example__"})
    assert capsys.readouterr().out.splitlines() == [
        f"Sign in to docs: {opened[0]}",
        "['active']",
    ]
