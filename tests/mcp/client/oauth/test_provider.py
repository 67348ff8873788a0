"""Mounting an OAuth-protected MCP server: the SDK's client auth with tooldeck's additions
(``tooldeck/mcp/client/oauth/provider.py``), against a real authorization server and a
real protected MCP server on 127.0.0.1 (``authserver.py``, ``resource.py``)."""

from __future__ import annotations

import json
import time

import pytest

from tooldeck import ToolCall

from .authserver import AuthorizationServer, Client
from .conftest import Browser, open_host, project, row, serve_authority, serve_resource
from .resource import ProtectedResource


def call(host, name: str, arguments: dict | None = None):
    return host.snapshot().execute_sync(ToolCall("c1", name, arguments or {}))


def test_a_person_signs_in_once_and_the_tools_mount(tmp_path, authority, resource, browser):
    root = project(tmp_path / "p", resource.resource)
    with open_host(root, browser) as host:
        assert row(host).status == "active", row(host).reason
        assert call(host, "secure_whoami").content[0].text == "hello, authorized caller"
    (request,) = browser.requests
    assert request.server == "secure"
    assert request.redirect_uri.startswith("http://127.0.0.1:")
    authorize = authority.events_of("authorize")[0]
    assert authorize["code_challenge_method"] == "S256"
    assert authorize["resource"] == resource.resource  # RFC 8707
    assert [kind for kind, _ in authority.events].count("register") == 1
    # A second host reuses the stored tokens: no second sign-in.
    with open_host(root, browser) as host:
        assert call(host, "secure_whoami").content[0].text == "hello, authorized caller"
    assert len(browser.requests) == 1


def tokens_file(user_dirs):
    (path,) = (user_dirs / "xdg-data" / "tooldeck" / "oauth").glob("*.json")
    return path


def test_tokens_live_in_the_user_data_dir_private_and_never_in_the_project(
    tmp_path, user_dirs, authority, resource, browser
):
    root = project(tmp_path / "p", resource.resource)
    with open_host(root, browser) as host:
        assert row(host).status == "active", row(host).reason
    path = tokens_file(user_dirs)
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o777 == 0o700
    stored = json.loads(path.read_text())
    assert stored["server"] == resource.resource
    assert stored["tokens"]["access_token"] in authority.grants
    assert stored["expires_at"] > time.time()
    assert stored["client"]["issuer"] == authority.issuer  # bound to who registered it
    assert stored["authorization_server"]["token_endpoint"] == f"{authority.url}/token"
    assert not [p for p in root.rglob("*") if "oauth" in p.name or p.suffix == ".json"]


def test_an_expired_token_is_refreshed_after_a_restart_without_a_sign_in(
    tmp_path, user_dirs, authority, resource, browser
):
    root = project(tmp_path / "p", resource.resource)
    with open_host(root, browser) as host:
        assert row(host).status == "active", row(host).reason
    authority.expire_all()
    path = tokens_file(user_dirs)
    stored = json.loads(path.read_text())
    stored["expires_at"] = time.time() - 60
    path.write_text(json.dumps(stored))
    with open_host(root, None) as host:  # no one could sign in now
        assert row(host).status == "active", row(host).reason
        assert call(host, "secure_whoami").content[0].text == "hello, authorized caller"
    grants = [e["grant_type"] for e in authority.events_of("token")]
    assert grants == ["authorization_code", "refresh_token"]
    assert len(browser.requests) == 1


@pytest.mark.parametrize("issuer_slash", [False, True], ids=["prm-has-slash", "issuer-has-slash"])
def test_a_root_issuer_that_differs_only_by_its_trailing_slash_is_the_same_server(
    tmp_path, issuer_slash, browser
):
    """Google's servers list ``https://accounts.google.com/`` in their resource metadata
    while the issuer says ``https://accounts.google.com`` (and the mirror image)."""
    for authority in serve_authority(AuthorizationServer(issuer_slash=issuer_slash)):
        other = authority.url if issuer_slash else authority.url + "/"
        for resource in serve_resource(ProtectedResource(authority, listed_as=other)):
            root = project(tmp_path / "p", resource.resource)
            with open_host(root, browser) as host:
                assert row(host).status == "active", row(host).reason
            authorize = authority.events_of("authorize")
            assert len(authorize) == 1


async def test_the_sdk_alone_still_refuses_a_root_issuer_written_differently(tmp_path):
    """Why the tolerance exists: the SDK's provider, unadorned, stops at the mismatch
    (when this starts passing the other way, the SDK handles it and the code can go)."""
    import httpx2

    from tooldeck.mcp.sdk import OAuthClientMetadata, OAuthClientProvider, OAuthFlowError

    class Memory:
        async def get_tokens(self):
            return None

        async def set_tokens(self, tokens):
            pass

        async def get_client_info(self):
            return None

        async def set_client_info(self, info):
            pass

    async def never(*args):
        raise AssertionError("the flow got past discovery")

    for authority in serve_authority(AuthorizationServer()):
        for resource in serve_resource(ProtectedResource(authority, listed_as=authority.url + "/")):
            metadata = OAuthClientMetadata(redirect_uris=["http://127.0.0.1:1/callback"])
            plain = OAuthClientProvider(resource.resource, metadata, Memory(), never, never)
            async with httpx2.AsyncClient(auth=plain) as client:
                with pytest.raises(OAuthFlowError, match="issuer mismatch"):
                    await client.post(resource.resource, json={})


def test_a_server_that_moves_to_another_authorization_server_registers_again(
    tmp_path, user_dirs, authority, resource, browser
):
    root = project(tmp_path / "p", resource.resource)
    with open_host(root, browser) as host:
        assert row(host).status == "active", row(host).reason
    for second in serve_authority(AuthorizationServer()):
        resource.authority = second  # the old tokens and client mean nothing there
        with open_host(root, browser) as host:
            assert row(host).status == "active", row(host).reason
            assert call(host, "secure_whoami").content[0].text == "hello, authorized caller"
        assert len(second.events_of("register")) == 1
        client_id = second.events_of("authorize")[0]["client_id"]
        assert client_id in second.clients and client_id not in authority.clients
        stored = json.loads(tokens_file(user_dirs).read_text())
        assert stored["client"]["issuer"] == second.issuer
    assert len(browser.requests) == 2


def test_a_client_id_metadata_document_where_registration_is_gone(tmp_path, browser):
    document = "https://tooldeck.example/oauth/client.json"
    for authority in serve_authority(AuthorizationServer(registration=False, cimd=True)):
        for resource in serve_resource(ProtectedResource(authority)):
            extra = f'client_metadata_url = "{document}"'
            root = project(tmp_path / "p", resource.resource, extra)
            with open_host(root, browser) as host:
                assert row(host).status == "active", row(host).reason
            assert authority.events_of("register") == []
            assert authority.events_of("authorize")[0]["client_id"] == document


def test_no_registration_and_no_client_configured_says_what_to_set(tmp_path, browser):
    for authority in serve_authority(AuthorizationServer(registration=False, cimd=True)):
        for resource in serve_resource(ProtectedResource(authority)):
            root = project(tmp_path / "p", resource.resource)
            with open_host(root, browser) as host:
                info = row(host)
            assert info.status == "failed"
            assert "offers no client registration" in info.reason
            assert "set client_id" in info.reason and "client_metadata_url" in info.reason
            assert browser.requests == []


@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post"])
def test_a_pre_registered_client_authenticates_as_the_server_supports(
    tmp_path, monkeypatch, method, browser
):
    client = Client("pre", secret="pre-secret", redirect_uris=("http://127.0.0.1/callback",))
    server = AuthorizationServer(
        registration=False, auth_methods=(method,), clients={"pre": client}
    )
    monkeypatch.setenv("PRE_SECRET", "pre-secret")
    for authority in serve_authority(server):
        for resource in serve_resource(ProtectedResource(authority)):
            extra = 'client_id = "pre"\nclient_secret_env = "PRE_SECRET"'
            root = project(tmp_path / "p", resource.resource, extra)
            with open_host(root, browser) as host:
                assert row(host).status == "active", row(host).reason
            (token,) = authority.events_of("token")
            assert token["authenticated"]
            assert ("client_secret" in token) == (method == "client_secret_post")


def test_a_missing_client_secret_variable_is_named(tmp_path, monkeypatch, authority, resource):
    monkeypatch.delenv("NOT_SET_SECRET", raising=False)
    extra = 'client_id = "pre"\nclient_secret_env = "NOT_SET_SECRET"'
    root = project(tmp_path / "p", resource.resource, extra)
    with open_host(root, None) as host:
        info = row(host)
    assert info.status == "failed"
    assert "$NOT_SET_SECRET, which is not set" in info.reason


def test_client_credentials_with_a_secret_need_no_person(tmp_path, monkeypatch):
    machine = Client("machine", secret="m-secret", grant_types=("client_credentials",))
    monkeypatch.setenv("MACHINE_SECRET", "m-secret")
    for authority in serve_authority(AuthorizationServer(clients={"machine": machine})):
        for resource in serve_resource(ProtectedResource(authority)):
            extra = (
                'grant = "client_credentials"\nclient_id = "machine"\n'
                'client_secret_env = "MACHINE_SECRET"\nscopes = ["read"]'
            )
            root = project(tmp_path / "p", resource.resource, extra)
            with open_host(root, None) as host:
                assert row(host).status == "active", row(host).reason
                assert call(host, "secure_whoami").content[0].text == "hello, authorized caller"
            (token,) = authority.events_of("token")
            assert token["grant_type"] == "client_credentials" and token["authenticated"]
            assert token["resource"] == resource.resource
            assert "read" in token["scope"].split()


@pytest.mark.parametrize(
    ("published", "listed_as", "slash"),
    [
        (False, None, False),  # no resource metadata at all
        (True, "http://127.0.0.1:9/elsewhere", False),  # metadata naming another server
        (False, None, True),  # and the issuer configured without the slash its metadata has
    ],
)
def test_a_configured_issuer_is_where_client_credentials_go(
    tmp_path, monkeypatch, published, listed_as, slash
):
    """``issuer``: the token endpoint comes from that issuer's metadata when the server's
    resource metadata is missing or wrong, and the credentials go there alone."""
    machine = Client("machine", secret="m-secret", grant_types=("client_credentials",))
    monkeypatch.setenv("MACHINE_SECRET", "m-secret")
    server = AuthorizationServer(clients={"machine": machine}, issuer_slash=slash)
    for authority in serve_authority(server):
        protected = ProtectedResource(authority, listed_as=listed_as, published=published)
        for resource in serve_resource(protected):
            extra = (
                'grant = "client_credentials"\nclient_id = "machine"\n'
                f'client_secret_env = "MACHINE_SECRET"\nissuer = "{authority.url}"'
            )
            root = project(tmp_path / "p", resource.resource, extra)
            with open_host(root, None) as host:
                assert row(host).status == "active", row(host).reason
                assert call(host, "secure_whoami").content[0].text == "hello, authorized caller"
            (token,) = authority.events_of("token")
            assert token["grant_type"] == "client_credentials" and token["authenticated"]


def test_without_an_issuer_missing_resource_metadata_finds_no_token_endpoint(tmp_path, monkeypatch):
    """What ``issuer`` is for: the same server, unconfigured, has nowhere to ask."""
    machine = Client("machine", secret="m-secret", grant_types=("client_credentials",))
    monkeypatch.setenv("MACHINE_SECRET", "m-secret")
    for authority in serve_authority(AuthorizationServer(clients={"machine": machine})):
        for resource in serve_resource(ProtectedResource(authority, published=False)):
            extra = (
                'grant = "client_credentials"\nclient_id = "machine"\n'
                'client_secret_env = "MACHINE_SECRET"'
            )
            root = project(tmp_path / "p", resource.resource, extra)
            with open_host(root, None) as host:
                assert row(host).status == "failed"
            assert authority.events_of("token") == []


def test_client_credentials_with_a_signed_jwt(tmp_path):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "key.pem").write_bytes(private)  # relative: the Location root's
    signer = Client("signer", public_key=public.decode(), grant_types=("client_credentials",))
    for authority in serve_authority(AuthorizationServer(clients={"signer": signer})):
        for resource in serve_resource(ProtectedResource(authority)):
            extra = (
                'grant = "client_credentials"\nclient_id = "signer"\n'
                'private_key_file = "key.pem"\nsigning_algorithm = "ES256"'
            )
            root = project(tmp_path / "p", resource.resource, extra)
            with open_host(root, None) as host:
                assert row(host).status == "active", row(host).reason
            (token,) = authority.events_of("token")
            assert token["client_assertion_type"].endswith("jwt-bearer")
            assert token["authenticated"]


def test_a_call_that_needs_more_scope_signs_in_again_for_it(tmp_path, authority, resource, browser):
    root = project(tmp_path / "p", resource.resource)
    with open_host(root, browser) as host:
        assert call(host, "secure_admin").content[0].text == "admin done"
    first, second = (r.url for r in browser.requests)
    assert "admin" not in _scope(first) and {"read", "admin"} <= _scope(second)


def test_a_step_up_the_authorization_server_never_grants_is_not_repeated(tmp_path, browser):
    for authority in serve_authority(AuthorizationServer(grant_everything=False)):
        for resource in serve_resource(ProtectedResource(authority)):
            root = project(tmp_path / "p", resource.resource)
            with open_host(root, browser) as host:
                for _ in range(3):
                    with pytest.raises(Exception, match="asked for and not granted"):
                        call(host, "secure_admin")
            assert len(browser.requests) == 2  # the first sign-in and one step-up


def test_without_an_authorizer_the_row_says_what_to_run(tmp_path, user_dirs, resource):
    root = project(tmp_path / "p", resource.resource)
    with open_host(root, None) as host:
        info = row(host)
    assert info.status == "failed"
    assert info.reason == (
        "MCP server 'secure' needs a sign-in (OAuth); run `tooldeck mcp login secure`"
    )


def test_a_step_up_without_an_authorizer_is_remembered_for_the_next_login(
    tmp_path, user_dirs, authority, resource, browser
):
    root = project(tmp_path / "p", resource.resource)
    with open_host(root, browser) as host:
        assert row(host).status == "active", row(host).reason
    with (
        open_host(root, None) as host,
        pytest.raises(Exception, match=r"needs more access \(scope 'read admin'\)"),
    ):
        call(host, "secure_admin")
    assert json.loads(tokens_file(user_dirs).read_text())["wanted_scope"] == "read admin"
    with open_host(root, browser) as host:  # the next sign-in asks for it, once
        assert call(host, "secure_admin").content[0].text == "admin done"
    assert {"read", "admin"} <= _scope(browser.requests[-1].url)
    assert "wanted_scope" not in json.loads(tokens_file(user_dirs).read_text())


def test_a_server_that_needs_auth_and_has_none_configured_says_what_to_add(tmp_path, resource):
    root = tmp_path / "p"
    root.mkdir()
    (root / "tooldeck.toml").write_text(f'[mcp.servers.secure]\nurl = "{resource.resource}"\n')
    with Host_open(root) as host:
        info = row(host)
    assert info.status == "failed"
    assert info.reason.startswith("the server requires authorization (HTTP 401, Bearer ")
    assert info.reason.endswith(
        'set auth = "oauth" in [mcp.servers.secure] and run `tooldeck mcp login secure`'
    )


def test_deadlines_stop_while_a_person_signs_in(tmp_path, authority, resource):
    """``timeout_s`` is the server's time; a slow person does not use it up."""

    class SlowBrowser(Browser):
        def __call__(self, request):
            time.sleep(2.5)
            super().__call__(request)

    slow = SlowBrowser()
    root = project(tmp_path / "p", resource.resource, "")
    text = (root / "tooldeck.toml").read_text().replace("timeout_s = 30", "timeout_s = 1")
    (root / "tooldeck.toml").write_text(text)
    with open_host(root, slow) as host:
        assert row(host).status == "active", row(host).reason


def Host_open(root):
    from tooldeck import Host

    return Host.open(root, trust=True, mcp_listings="fresh")


def _scope(url: str) -> set[str]:
    from urllib.parse import parse_qs, urlsplit

    return set(parse_qs(urlsplit(url).query).get("scope", [""])[0].split())


def test_a_2025_03_26_server_whose_issuer_has_a_path_on_its_own_origin(tmp_path, browser):
    """No resource metadata: the authorization server's metadata is at the server's own
    origin, and names an issuer with a path there (``/oauth``)."""
    authority = AuthorizationServer()
    for resource in serve_resource(ProtectedResource(authority, legacy=True)):
        authority.url = resource.url + "/oauth"
        root = project(tmp_path / "p", resource.resource)
        with open_host(root, browser) as host:
            assert row(host).status == "active", row(host).reason
            assert call(host, "secure_whoami").content[0].text == "hello, authorized caller"
        assert authority.events_of("authorize")[0]["client_id"] in authority.clients


def test_a_2025_03_26_issuer_on_another_origin_is_still_refused():
    from tooldeck.mcp.client.oauth.documents import same_origin_issuer

    server = "https://mcp.example.com/mcp"
    assert same_origin_issuer({"issuer": "https://mcp.example.com/oauth"}, server)
    assert same_origin_issuer({"issuer": "https://login.example.com/oauth"}, server) is None
    assert same_origin_issuer({"issuer": "http://mcp.example.com/oauth"}, server) is None


def test_an_unreadable_private_key_is_named(tmp_path, authority, resource):
    extra = (
        'grant = "client_credentials"\nclient_id = "signer"\n'
        'private_key_file = "missing.pem"\nsigning_algorithm = "ES256"'
    )
    root = project(tmp_path / "p", resource.resource, extra)
    with open_host(root, None) as host:
        info = row(host)
    assert info.status == "failed"
    assert f"cannot read private_key_file '{root / 'missing.pem'}'" in info.reason
