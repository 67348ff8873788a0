"""Trust at the plugin layer: which config a Location gets, which plugin files may run,
and the ``untrusted`` rows for what was skipped (DESIGN §7a).

``host/trust`` decides *whether* a folder is trusted; this module applies the
decision to the plugin layers, so ``Host`` stays about loading.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TypeAlias

from tooldeck.host.config.paths import LOCAL_PLUGIN_DIR, TRUST_ENV, local_plugin_files
from tooldeck.host.location.location import Location
from tooldeck.host.plugins.discovery import Candidate, member_candidate

if TYPE_CHECKING:
    from tooldeck.host.config.config_files import ConfigSource
    from tooldeck.host.location.questions import Answerer
    from tooldeck.host.permissions.asks import OnAsk
    from tooldeck.host.permissions.request import Asker
    from tooldeck.host.store.base import Store
    from tooldeck.host.trust.project import TrustStatus


class Untouched(NamedTuple):
    """The decision for a folder whose project has nothing of its own to run (no project
    config, no plugin files) opened with no explicit trust: trusted, with nothing to
    trust. It is made without loading trust (``host/trust``, W4 in ``bench/DECISIONS.md``);
    ``status_of`` gives the ``TrustStatus`` the store's path decides, when one is asked
    for. Pinned to that path by ``tests/host/plugins/test_trust.py``."""

    root: Path


Decision: TypeAlias = "TrustStatus | Untouched"
"""A Location's trust decision: a ``TrustStatus``, or ``Untouched`` before one is needed."""


def status_of(decision: Decision) -> TrustStatus:
    """``decision`` as a ``TrustStatus`` (an ``Untouched`` folder's is built here)."""
    if isinstance(decision, Untouched):
        from tooldeck.host.trust.items import fingerprint
        from tooldeck.host.trust.project import TrustStatus

        return TrustStatus(decision.root, (), fingerprint(()), True, "nothing to trust")
    return decision


def admits(status: Decision | None, candidate: Candidate) -> bool:
    """May this Location plugin file run?

    Trusted by the store: only the exact files (name and content) that were trusted, so
    one added or edited while the host is open waits for trust. Trusted by argument or
    environment: any. ``status=None`` (a host built by hand, ``tooldeck check``): the
    caller chose every candidate itself.
    """
    if isinstance(status, Untouched):  # nothing was trusted: a file added later waits
        return False
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
) -> tuple[Location, Decision]:
    """The Location with the config its trust allows, and the trust decision.

    The project layer is validated whole first (a broken file is an error either way);
    untrusted, it is narrowed (``host/trust/narrowing.py``: everything that needs trust
    is left out, and its ``allow`` rules count as no opinion) before it is layered over
    the user's (``host/config/layers.py``). A folder with nothing of its own to run,
    opened without explicit trust, is decided without loading trust (``Untouched``).
    """
    from tooldeck.host.config.config_files import config_sources
    from tooldeck.host.config.layers import layered_config

    resolved = root.expanduser().resolve()
    user, project = config_sources(resolved)
    status: Decision
    if (
        project is None
        and trust is None
        and not os.environ.get(TRUST_ENV, "").strip()
        and not local_plugin_files(resolved)
    ):
        status = Untouched(resolved)
    else:
        status = _decided(resolved, project, trust)
        if project is not None and not status.trusted:
            from tooldeck.host.trust.narrowing import narrowed

            project = project._replace(data=narrowed(project.data).table)
    trusted = isinstance(status, Untouched) or status.trusted
    config, layer = layered_config(user, project, trusted=trusted)
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
    if not isinstance(status, Untouched):  # an untouched folder withholds nothing
        from tooldeck.host.plugins.withheld import withheld_by_trust

        location.withheld = withheld_by_trust(status)
    return location, status


def _decided(root: Path, project: ConfigSource | None, trust: bool | None) -> TrustStatus:
    """``inspect_folder``'s decision, the config sources already read."""
    from tooldeck.host.trust.project import project_items
    from tooldeck.host.trust.store import evaluate

    return evaluate(
        root, project_items(root, project.data if project is not None else None), trust=trust
    )


def untrusted_reason(decision: Decision) -> str:
    """The one line under an ``untrusted`` row: why, and the command that trusts."""
    status = status_of(decision)
    why = (
        "changed since this folder was trusted" if status.changes else "this folder is not trusted"
    )
    return f"{why}; review and trust it with: {status.command}"


def skipped_servers(decision: Decision) -> list[Candidate]:
    """One candidate per project server left out because the folder is untrusted (a
    report row ``mcp:NAME``; never loaded)."""
    if isinstance(decision, Untouched):  # no project config: no server
        return []
    status = decision
    return [
        dataclasses.replace(
            member_candidate(f"mcp:{item.name}", "mcp"),
            origin=f"[mcp.servers.{item.name}] {item.detail}",
        )
        for item in status.skipped("server")
    ]
