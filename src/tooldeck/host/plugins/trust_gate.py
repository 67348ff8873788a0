"""Trust at the plugin layer: which config a Location gets, which plugin files may run,
and the ``untrusted`` rows for what was skipped (DESIGN §7a).

``host/trust`` decides *whether* a folder is trusted; this module applies the
decision to the plugin layers, so ``Host`` stays about loading.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import TYPE_CHECKING

from tooldeck.host.config.paths import LOCAL_PLUGIN_DIR
from tooldeck.host.location.location import Location
from tooldeck.host.plugins.discovery import Candidate, member_candidate
from tooldeck.host.plugins.withheld import withheld_by_trust

if TYPE_CHECKING:
    from tooldeck.host.location.questions import Answerer
    from tooldeck.host.permissions.asks import OnAsk
    from tooldeck.host.permissions.request import Asker
    from tooldeck.host.store.base import Store
    from tooldeck.host.trust.project import TrustStatus


def admits(status: TrustStatus | None, candidate: Candidate) -> bool:
    """May this Location plugin file run?

    Trusted by the store: only the exact files (name and content) that were trusted, so
    one added or edited while the host is open waits for trust. Trusted by argument or
    environment: any. ``status=None`` (a host built by hand, ``tooldeck check``): the
    caller chose every candidate itself.
    """
    if status is None or (status.trusted and status.source in ("argument", "environment")):
        return True
    if not status.trusted:
        return False
    name = str(LOCAL_PLUGIN_DIR / candidate.rank[0])
    return any(
        i.kind == "plugin" and i.name == name and i.digest == candidate.digest for i in status.items
    )


def open_location(
    root: Path,
    trust: bool | None,
    data_dir: str | os.PathLike[str] | None,
    asker: Asker | None,
    answerer: Answerer | None,
    *,
    store: Store | None = None,
    on_ask: OnAsk = "ask",
) -> tuple[Location, TrustStatus]:
    """The Location with the config its trust allows, and the trust decision.

    The project layer is validated whole first (a broken file is an error either way);
    untrusted, it is narrowed (``host/trust/narrowing.py``: everything that needs trust
    is left out, and its ``allow`` rules count as no opinion) before it is layered over
    the user's (``host/config/layers.py``).
    """
    from tooldeck.host.config.layers import layered_config
    from tooldeck.host.trust.narrowing import narrowed
    from tooldeck.host.trust.store import inspect_folder

    user, project, status = inspect_folder(root, trust)
    if project is not None and not status.trusted:
        project = project._replace(data=narrowed(project.data).table)
    config, layer = layered_config(user, project, trusted=status.trusted)
    location = Location(
        root,
        config=config,
        data_dir=data_dir,
        asker=asker,
        answerer=answerer,
        store=store,
        on_ask=on_ask,
    )
    location.project = layer
    location.withheld = withheld_by_trust(status)
    return location, status


def untrusted_reason(status: TrustStatus) -> str:
    """The one line under an ``untrusted`` row: why, and the command that trusts."""
    why = (
        "changed since this folder was trusted" if status.changes else "this folder is not trusted"
    )
    return f"{why}; review and trust it with: {status.command}"


def skipped_servers(status: TrustStatus) -> list[Candidate]:
    """One candidate per project server left out because the folder is untrusted (a
    report row ``mcp:NAME``; never loaded)."""
    return [
        dataclasses.replace(
            member_candidate(f"mcp:{item.name}", "mcp"),
            origin=f"[mcp.servers.{item.name}] {item.detail}",
        )
        for item in status.skipped("server")
    ]
