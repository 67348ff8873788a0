"""The conformance pack served in this process: a host on it and a ``CatalogServer``
whose SDK server an in-memory ``Client`` connects to (real JSON-RPC in ``legacy``
mode, the handshake era the suite speaks)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tooldeck import Host
from tooldeck.mcp.serve.asking import ElicitingAsker
from tooldeck.mcp.serve.server import CatalogServer
from tooldeck.mcp.serve.watch import Serving

from . import pack
from .run import CONFIG


@contextmanager
def served(
    root: Path, config: str = CONFIG, plugins: tuple[object, ...] = ()
) -> Iterator[CatalogServer]:
    """``CatalogServer`` over a trusted host on ``root`` with the conformance pack."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "tooldeck.toml").write_text(config, encoding="utf-8")
    asker = ElicitingAsker()
    with Host.open(root, plugins=[pack, *plugins], asker=asker, trust=True) as host:
        yield CatalogServer(Serving(lambda: host), asker)
