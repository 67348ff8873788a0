"""An authorization server and a protected MCP server on 127.0.0.1, and projects that
mount the server with ``auth = "oauth"``; every test gets fresh ones (their state is
what the tests inspect) and its own user data dir (where tokens go)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tooldeck import AuthorizationRequest, Host

from .authserver import AuthorizationServer
from .resource import ProtectedResource, Served


@pytest.fixture(autouse=True)
def user_dirs(tooldeck_env: Path) -> Path:
    """``XDG_DATA_HOME`` (where tokens go) and ``XDG_CONFIG_HOME`` inside ``tmp_path``."""
    return tooldeck_env


@pytest.fixture
def authority() -> Iterator[AuthorizationServer]:
    yield from serve_authority(AuthorizationServer())


@pytest.fixture
def resource(authority: AuthorizationServer) -> Iterator[ProtectedResource]:
    yield from serve_resource(ProtectedResource(authority))


def serve_authority(server: AuthorizationServer) -> Iterator[AuthorizationServer]:
    served = Served(server.app())
    server.url = served.url
    served.start()
    try:
        yield server
    finally:
        served.stop()


def serve_resource(resource: ProtectedResource) -> Iterator[ProtectedResource]:
    served = Served(resource)
    resource.url = served.url
    served.start()
    try:
        yield resource
    finally:
        served.stop()


class Browser:
    """A person at a browser who signs in when asked: opens the authorization URL and
    follows its redirect back to tooldeck's loopback listener."""

    def __init__(self) -> None:
        self.requests: list[AuthorizationRequest] = []

    def __call__(self, request: AuthorizationRequest) -> None:
        self.requests.append(request)
        httpx.get(request.url, follow_redirects=True, timeout=30)


@pytest.fixture
def browser() -> Browser:
    return Browser()


def project(root: Path, url: str, extra: str = "", name: str = "secure") -> Path:
    """A Location mounting ``url`` as ``[mcp.servers.<name>]`` with ``auth = "oauth"``."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "tooldeck.toml").write_text(
        f'[[permission]]\naction = "{name}_*"\neffect = "allow"\n\n'
        f'[mcp.servers.{name}]\nurl = "{url}"\nauth = "oauth"\ntimeout_s = 30\n{extra}\n'
    )
    return root


def open_host(root: Path, browser: Browser | None) -> Host:
    return Host.open(root, trust=True, authorizer=browser, mcp_listings="fresh")


def row(host: Host, name: str = "secure") -> object:
    return next(p for p in host.plugins if p.name == f"mcp:{name}")
