"""Mount the reference MCP server ``@modelcontextprotocol/server-everything`` (npm) and use
its resources, templates, prompts and elicitation through tooldeck, then through
``tooldeck mcp serve`` as an MCP client would.

    python tests/mcp/client/everything/run.py --install DIR

Installs the server (``SERVER``, pinned) under ``DIR/server-everything`` unless it is
there, run by the Node 22 the conformance suite's install keeps in ``DIR`` (the npm
registry's ``node@22``, installed beside the server when ``DIR`` has none). It needs
npm and the registry on first use, so it is a ``.ci/run`` step (sharing the conformance
steps' ``DIR``), not part of the default test run; ``servers/features_server.py``
covers the same paths there with the SDK's own server.

Prints one line per check and exits 1 when any failed, 2 when the server could not be
installed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

SERVER = "@modelcontextprotocol/server-everything@2026.8.31"
NODE = "node@22"
ENTRY = Path("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
TOOLDECK = [sys.executable, "-c", "import sys; from tooldeck.cli import main; sys.exit(main())"]
DOC = "demo://resource/static/document/architecture.md"
TEXT_TEMPLATE = "demo://resource/dynamic/text/{resourceId}"
BLOB_TEMPLATE = "demo://resource/dynamic/blob/{resourceId}"


def install(cache: Path) -> tuple[Path, Path]:
    """``(node, the server's entry script)``, installing what is missing."""
    prefix = cache / "server-everything"
    node = cache / "node_modules" / ".bin" / "node"  # the conformance steps' Node 22
    wanted = [] if (prefix / ENTRY).exists() else [SERVER]
    if not node.exists():
        node = prefix / "node_modules" / ".bin" / "node"
        if not node.exists():
            wanted = [NODE, SERVER]
    if wanted:
        prefix.mkdir(parents=True, exist_ok=True)
        command = ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(prefix), *wanted]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, timeout=900)
    return node, prefix / ENTRY


def project(root: Path, node: Path, entry: Path) -> Path:
    root.mkdir(parents=True)
    (root / "tooldeck.toml").write_text(
        "[mcp.servers.everything]\n"
        f'command = ["{node}", "{entry}", "stdio"]\n'
        "timeout_s = 60\n\n"
        '[[permission]]\naction = "everything_*"\neffect = "allow"\n\n'
        '[[permission]]\naction = "resource"\nresource = "demo://**"\neffect = "allow"\n'
    )
    return root


# -- through the host ----------------------------------------------------------------------
def host_checks(root: Path) -> list[tuple[str, Callable[[], object]]]:
    from tooldeck import Host
    from tooldeck.host.features import prompts, reading
    from tooldeck.host.features.completion import complete_prompt

    host = Host.open(root, trust=True, mcp_listings="fresh")

    def scope(snapshot: Any) -> Any:
        return snapshot.scope("s", "m", via="host")

    def read(uri: str) -> Any:
        snapshot = host.snapshot()
        return asyncio.run(reading.read(snapshot, None, uri, scope(snapshot), "r"))

    def render(name: str, arguments: dict[str, str] | None = None) -> Any:
        snapshot = host.snapshot()
        return asyncio.run(prompts.render(snapshot, name, arguments, scope(snapshot), "p"))

    def listed() -> None:
        catalog = host.snapshot().catalog
        doc = catalog.resources[DOC].resource
        assert doc.name == "everything_architecture.md", doc.name
        assert doc.mime_type == "text/markdown", doc.mime_type
        assert {TEXT_TEMPLATE, BLOB_TEMPLATE} <= set(catalog.resources), sorted(catalog.resources)
        names = {"simple-prompt", "args-prompt", "completable-prompt", "resource-prompt"}
        assert {f"everything_{n}" for n in names} <= set(catalog.prompts), sorted(catalog.prompts)

    def reads() -> None:
        doc = read(DOC)
        assert doc.text.startswith("# Everything Server"), doc.text[:80]
        text = read("demo://resource/dynamic/text/7")
        assert text.text and text.mime_type == "text/plain", text
        blob = read("demo://resource/dynamic/blob/7")
        # a blob, with the MIME type the server gives the read (not its listing's)
        assert blob.text is None and blob.blob.startswith(b"Resource 7"), blob

    def gets() -> None:
        simple = render("everything_simple-prompt")
        assert simple.messages[0].content.text == "This is a simple prompt without arguments."
        args = render("everything_args-prompt", {"city": "Paris", "state": "Texas"})
        assert "Paris" in args.messages[0].content.text, args
        embedded = render("everything_resource-prompt", {"resourceType": "Text", "resourceId": "3"})
        uris = [getattr(m.content, "uri", None) for m in embedded.messages]
        assert "demo://resource/dynamic/text/3" in uris, embedded

    def completes() -> None:
        snapshot = host.snapshot()
        found = asyncio.run(
            complete_prompt(snapshot, "everything_completable-prompt", "department", "S")
        )
        assert set(found.values) == {"Sales", "Support"}, found

    return [
        ("host: resources, templates and prompts listed", listed),
        ("host: resources and templates read", reads),
        ("host: prompts got (arguments, embedded resource)", gets),
        ("host: a prompt argument completed by the server", completes),
        ("host: closed", host.close),
    ]


# -- through tooldeck mcp serve ---------------------------------------------------------------
def served_checks(root: Path) -> list[tuple[str, Callable[[], object]]]:
    from mcp import Client, StdioServerParameters
    from mcp import types as mcp_types

    env = {
        **{k: v for k, v in os.environ.items() if k.startswith(("XDG_", "TOOLDECK_TRUST"))},
        "PYTHONPATH": os.pathsep.join(sys.path),
    }
    params = StdioServerParameters(
        command=TOOLDECK[0],
        args=[*TOOLDECK[1:], "mcp", "serve", "--location", str(root), "--no-codemode"],
        env=env,
    )
    asked: list[Any] = []

    async def answer(context: Any, request: Any) -> Any:
        asked.append(request)
        return mcp_types.ElicitResult(action="accept", content={"name": "Ada", "check": True})

    def run(scenario: Callable[[Any], Awaitable[None]]) -> Callable[[], None]:
        async def connected() -> None:
            async with Client(params, mode="legacy", elicitation_callback=answer) as client:
                await scenario(client)

        return lambda: asyncio.run(connected())

    async def listed(client: Any) -> None:
        resources = {str(r.uri): r.name for r in (await client.list_resources()).resources}
        assert resources.get(DOC) == "everything_architecture.md", resources
        templates = [
            t.uri_template for t in (await client.list_resource_templates()).resource_templates
        ]
        assert TEXT_TEMPLATE in templates, templates
        prompts = [p.name for p in (await client.list_prompts()).prompts]
        assert "everything_args-prompt" in prompts, prompts

    async def read_and_got(client: Any) -> None:
        doc = (await client.read_resource(DOC)).contents[0]
        assert doc.mime_type == "text/markdown" and doc.text.startswith("# Everything"), doc
        blob = (await client.read_resource("demo://resource/dynamic/blob/2")).contents[0]
        assert blob.blob, blob
        got = await client.get_prompt("everything_args-prompt", {"city": "Oslo"})
        assert "Oslo" in got.messages[0].content.text, got
        embedded = await client.get_prompt(
            "everything_resource-prompt", {"resourceType": "Blob", "resourceId": "4"}
        )
        kinds = [m.content.type for m in embedded.messages]
        assert "resource" in kinds, kinds

    async def elicited(client: Any) -> None:
        result = await client.call_tool("everything_trigger-elicitation-request", {})
        text = "\n".join(block.text for block in result.content if block.type == "text")
        assert "Name: Ada" in text, text
        assert asked and asked[0].requested_schema["required"] == ["name"], asked

    return [
        ("served: resources, templates and prompts listed", run(listed)),
        ("served: resources read, prompts got", run(read_and_got)),
        ("served: the server's elicitation answered by the serving client", run(elicited)),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--install", metavar="DIR", required=True, help="the shared npm install")
    args = parser.parse_args(argv)
    try:
        node, entry = install(Path(args.install).resolve())
    except (OSError, subprocess.SubprocessError) as exc:
        print(f"server-everything: could not install {SERVER}: {exc}", file=sys.stderr)
        return 2
    failed = 0
    with tempfile.TemporaryDirectory(prefix="tooldeck-everything-") as scratch:
        base = Path(scratch)
        for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
            os.environ[name] = str(base / name.lower())
        os.environ["TOOLDECK_TRUST"] = "1"  # the scratch Location runs its config
        root = project(base / "project", node, entry)
        for name, check in host_checks(root) + served_checks(root):
            try:
                check()
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException:  # tooldeck's permission signals included
                failed += 1
                print(f"{name:70} FAILED\n{traceback.format_exc()}", flush=True)
            else:
                print(f"{name:70} ok", flush=True)
    print(
        f"server-everything ({SERVER}): {'all checks passed' if not failed else f'{failed} failed'}"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
