"""The browser step (``tooldeck/mcp/client/oauth/signin.py``): the host's authorizer gets
the URL, tooldeck's loopback listener gets the browser back; a host may instead hand
back the redirect URL itself, and a refusal at the authorization server is reported."""

from __future__ import annotations

import httpx
import pytest

from tooldeck import AuthorizationRequest

from .authserver import AuthorizationServer
from .conftest import open_host, project, row, serve_authority, serve_resource
from .resource import ProtectedResource


def test_an_authorizer_may_hand_back_the_redirect_itself(tmp_path, authority, resource):
    """A user who copies the address the browser ended on into the host's UI: the
    listener never sees the browser, and the sign-in completes all the same."""
    pasted: list[str] = []

    def paste(request: AuthorizationRequest) -> str:
        answer = httpx.get(request.url, follow_redirects=False, timeout=30)
        pasted.append(answer.headers["location"])
        return pasted[-1]

    root = project(tmp_path / "p", resource.resource)
    with open_host(root, paste) as host:
        assert row(host).status == "active", row(host).reason
    assert pasted[0].startswith("http://127.0.0.1:") and "code=" in pasted[0]


def test_an_async_authorizer_is_awaited(tmp_path, authority, resource):
    async def browse(request: AuthorizationRequest) -> None:
        async with httpx.AsyncClient() as client:
            await client.get(request.url, follow_redirects=True, timeout=30)

    root = project(tmp_path / "p", resource.resource)
    with open_host(root, browse) as host:
        assert row(host).status == "active", row(host).reason


def test_a_refused_consent_is_reported_as_the_authorization_server_said(tmp_path, browser):
    for authority in serve_authority(AuthorizationServer(deny=True)):
        for resource in serve_resource(ProtectedResource(authority)):
            root = project(tmp_path / "p", resource.resource)
            with open_host(root, browser) as host:
                info = row(host)
    assert info.status == "failed"
    assert info.reason == (
        "authorization failed: the authorization server refused the sign-in to 'secure': "
        "access_denied (the user said no)"
    )


def test_an_authorizer_that_raises_ends_the_sign_in_with_its_error(tmp_path, resource):
    def broken(request: AuthorizationRequest) -> None:
        raise RuntimeError("no browser here")

    root = project(tmp_path / "p", resource.resource)
    with open_host(root, broken) as host:
        info = row(host)
    assert info.status == "failed"
    assert "no browser here" in info.reason


@pytest.mark.parametrize("path", ["/favicon.ico", "/elsewhere?code=x"])
def test_the_listener_answers_only_its_callback(tmp_path, authority, resource, path):
    """A browser's stray requests (a favicon) get a 404 and the listener keeps waiting."""

    def stray_first(request: AuthorizationRequest) -> None:
        base = request.redirect_uri.rsplit("/", 1)[0]
        assert httpx.get(base + path, timeout=30).status_code == 404
        httpx.get(request.url, follow_redirects=True, timeout=30)

    root = project(tmp_path / "p", resource.resource)
    with open_host(root, stray_first) as host:
        assert row(host).status == "active", row(host).reason
