"""The conformance suite's client program (``client.py``) against this suite's own
authorization server and protected MCP server: the suite itself runs in ``.ci/run``
(``run.py``, it needs npm); this keeps the program working between those runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .oauth.authserver import AuthorizationServer, Client
from .oauth.conftest import serve_authority, serve_resource
from .oauth.resource import ProtectedResource

CLIENT = Path(__file__).parent / "conformance" / "client.py"


def run_client(url: str, scenario: str, context: dict | None = None):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TOOLDECK_", "XDG_"))}
    env["MCP_CONFORMANCE_SCENARIO"] = scenario
    if context is not None:
        env["MCP_CONFORMANCE_CONTEXT"] = json.dumps({"name": scenario, **context})
    return subprocess.run(
        [sys.executable, str(CLIENT), url], env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(
    ("scenario", "context", "clients"),
    [
        ("auth/metadata-default", None, {}),
        # The other grants run where every test does (tox, CI); the conformance suite's
        # own client scenarios (tests/mcp/client/conformance/run.py) cover them too.
        pytest.param(
            "auth/pre-registration",
            {"client_id": "pre", "client_secret": "pre-secret"},
            {"pre": Client("pre", "pre-secret", ("http://127.0.0.1/callback",))},
            marks=pytest.mark.slow,
        ),
        pytest.param(
            "auth/client-credentials-basic",
            {"client_id": "bot", "client_secret": "bot-secret"},
            {"bot": Client("bot", "bot-secret", grant_types=("client_credentials",))},
            marks=pytest.mark.slow,
        ),
    ],
    ids=["dynamic-registration", "pre-registered", "client-credentials"],
)
def test_the_client_program_signs_in_and_calls_the_tool(scenario, context, clients):
    for authority in serve_authority(AuthorizationServer(clients=dict(clients))):
        for resource in serve_resource(ProtectedResource(authority)):
            done = run_client(resource.resource, scenario, context)
            assert done.returncode == 0, done.stderr
            assert done.stdout.strip() == "test-tool: ['test']"
            assert authority.events_of("token"), "no token was requested"
