"""The ``[mcp.serve]`` limit defaults: bounded, yet wide enough for the sessions they allow."""

from __future__ import annotations

from tooldeck.host.config.config import Config


def test_the_default_connection_bound_holds_every_session_the_server_admits() -> None:
    # A handshake-era client holds its GET notification stream and the POST of its call,
    # and uvicorn counts a request still finishing against the same bound: three each.
    # Below that, legitimate clients get 503s long before max_sessions is reached.
    serve = Config().mcp.serve
    assert serve.max_connections >= 3 * serve.max_sessions


def test_a_configured_connection_bound_is_kept() -> None:
    serve = Config.model_validate({"mcp": {"serve": {"max_connections": 64}}}).mcp.serve
    assert serve.max_connections == 64
