"""The client the MCP conformance suite drives: tooldeck mounting the suite's server.

``@modelcontextprotocol/conformance client --command "python client.py"`` starts a test
server per scenario and runs this program with the server's URL as its last argument,
the scenario's name in ``MCP_CONFORMANCE_SCENARIO`` and, for some, credentials in
``MCP_CONFORMANCE_CONTEXT`` (JSON). The program does what a tooldeck user would: it
writes ``[mcp.servers.conformance]`` into a project's ``tooldeck.toml`` (``auth =
"oauth"`` and the grant's keys for the auth scenarios), opens a ``Host`` on it, and
calls the server's tools through the snapshot. The browser step is a person who signs
in at once: the authorization URL is fetched and its redirect followed back to
tooldeck's loopback listener. Elicitations are accepted, which fills in the form's
defaults.

Everything it writes (the project, the user's data dir with the tokens) is in a
temporary directory. It exits 0 when every call succeeded, 1 otherwise, with what went
wrong on stderr (the suite keeps it in ``results/<scenario>/stderr.txt``).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

NAME = "conformance"
CIMD_URL = "https://conformance-test.local/client-metadata.json"
"""The client ID metadata document URL the suite's authorization servers expect."""

CALLS = {
    "tools_call": [("add_numbers", {"a": 5, "b": 3})],
    "elicitation-sep1034-client-defaults": [("test_client_elicitation_defaults", {})],
    "sse-retry": [("test_reconnection", {})],
}
"""What each scenario calls; every ``auth/...`` scenario calls ``test-tool``."""


def main(argv: list[str]) -> int:
    url = argv[-1]
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "initialize")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    with tempfile.TemporaryDirectory(prefix="tooldeck-conformance-") as work:
        home = Path(work)
        os.environ["XDG_DATA_HOME"] = str(home / "data")
        os.environ["XDG_CONFIG_HOME"] = str(home / "config")
        root = home / "project"
        root.mkdir()
        table = server_table(url, scenario, context, home)
        (root / "tooldeck.toml").write_text(
            f'[[permission]]\naction = "*"\neffect = "allow"\n\n[mcp.servers.{NAME}]\n{table}'
        )
        return run(root, scenario)


def server_table(url: str, scenario: str, context: dict[str, Any], home: Path) -> str:
    """The ``[mcp.servers.conformance]`` keys for ``scenario``."""
    lines = [f"url = {json.dumps(url)}", "timeout_s = 20"]
    if not scenario.startswith("auth/"):
        return "\n".join(lines) + "\n"
    lines.append('auth = "oauth"')
    if scenario.startswith("auth/client-credentials"):
        lines += ['grant = "client_credentials"', f"client_id = {json.dumps(context['client_id'])}"]
        if "private_key_pem" in context:
            key = home / "client-key.pem"
            key.write_text(context["private_key_pem"])
            algorithm = context.get("signing_algorithm", "ES256")
            lines += [f"private_key_file = {json.dumps(str(key))}"]
            lines += [f"signing_algorithm = {json.dumps(algorithm)}"]
        else:
            os.environ["CONFORMANCE_CLIENT_SECRET"] = context["client_secret"]
            lines.append('client_secret_env = "CONFORMANCE_CLIENT_SECRET"')
    elif "client_id" in context:  # a client registered beforehand (no registration)
        lines.append(f"client_id = {json.dumps(context['client_id'])}")
        if context.get("client_secret"):
            os.environ["CONFORMANCE_CLIENT_SECRET"] = context["client_secret"]
            lines.append('client_secret_env = "CONFORMANCE_CLIENT_SECRET"')
    else:
        lines.append(f"client_metadata_url = {json.dumps(CIMD_URL)}")
    return "\n".join(lines) + "\n"


def run(root: Path, scenario: str) -> int:
    from tooldeck import Host, ToolCall

    calls = CALLS.get(scenario, [("test-tool", {})] if scenario.startswith("auth/") else [])
    with Host.open(
        root, trust=True, authorizer=sign_in, asker=accept, mcp_listings="fresh"
    ) as host:
        row = next(p for p in host.plugins if p.name == f"mcp:{NAME}")
        if row.status != "active":
            print(f"the server was not mounted: {row.reason}", file=sys.stderr)
            return 1
        failed = 0
        snapshot = host.snapshot()
        for tool, arguments in calls:
            try:
                result = snapshot.execute_sync(ToolCall("call", f"{NAME}_{tool}", arguments))
            except Exception as exc:  # reported, and the run fails
                print(f"{tool} failed: {exc}", file=sys.stderr)
                failed = 1
                continue
            print(f"{tool}: {[getattr(p, 'text', p) for p in result.content]}")
    return failed


def sign_in(request: Any) -> None:
    """A person who signs in at once: open the page, follow it back to tooldeck."""
    import httpx

    httpx.get(request.url, follow_redirects=True, timeout=20)


def accept(request: Any) -> str:
    """Say yes to whatever is asked (an elicitation then gets its form's defaults)."""
    return "once"


if __name__ == "__main__":
    sys.exit(main(sys.argv))
