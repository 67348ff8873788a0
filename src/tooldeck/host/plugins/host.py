"""``Host``: one Location, its tool service, and the plugins loaded into it.

``Host.open`` is the explicit, one-call setup an application does once per project:
read config, discover plugins, register them in their total order inside one batch.
``refresh_plugins`` rediscovers what is installed now, and ``sync.PluginSync`` brings
the registrations in line with it, touching as little as possible: unchanged plugins
are never re-imported, and registrations before the first difference keep their place.
"""

from __future__ import annotations

import importlib
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from tooldeck._public import public
from tooldeck.host.location.location import Location
from tooldeck.host.plugins.discovery import Candidate, discover
from tooldeck.host.plugins.instrument import OFF, Instrumentation, instrumentation, replayed
from tooldeck.host.plugins.mcp_slot import McpOptions, mcp_layer
from tooldeck.host.plugins.records import collector_paused
from tooldeck.host.plugins.selection import Selection, ordered, split_requested
from tooldeck.host.plugins.sync import PluginSync
from tooldeck.host.plugins.trust_gate import Untouched, open_location, status_of
from tooldeck.host.plugins.wiring import PluginWiring
from tooldeck.host.service import ToolService
from tooldeck.telemetry import semconv

if TYPE_CHECKING:
    from tooldeck.host.boundary.outcome import ToolCallOutcome
    from tooldeck.host.boundary.pending import PendingCall
    from tooldeck.host.execution.definitions import Visibility
    from tooldeck.host.execution.snapshot import Snapshot
    from tooldeck.host.handles import SessionScope
    from tooldeck.host.location.questions import Answerer
    from tooldeck.host.permissions.asks import OnAsk
    from tooldeck.host.permissions.request import Asker, Reply
    from tooldeck.host.plugins.report import PluginGroup, PluginInfo
    from tooldeck.host.plugins.trust_gate import Decision
    from tooldeck.host.store.base import Store
    from tooldeck.host.trust.project import TrustStatus
    from tooldeck.mcp.client.oauth.signin import Authorizer
    from tooldeck.telemetry.settings import Telemetry


Discover = Callable[[], list[Candidate]]


@public
class Host:
    """A Location with its ``ToolService`` and plugins. Build it with ``Host.open``.

    The constructor only wires the parts together; ``discover`` lists the candidate
    plugins (``Host.open`` uses every layer; ``tooldeck check`` one pack and the
    built-ins). Nothing loads until ``refresh_plugins()``.
    """

    def __init__(
        self,
        location: Location,
        service: ToolService,
        selection: Selection,
        discover: Discover,
        *,
        trace: bool = False,
        groups: Mapping[str, PluginGroup] | None = None,
        trust: Decision | None = None,
        instrumented: Instrumentation = OFF,
    ) -> None:
        self.location = location
        self.service = service
        self._trust = trust
        self._selection = selection
        self._discover = discover
        self._groups = dict(groups or {})
        wiring = PluginWiring(location, trace=trace)
        self._plugins = PluginSync(service, wiring, selection, trust, instrumented.spans)
        self._lock = threading.RLock()
        self._spans = instrumented.spans
        self._last = instrumented.candidates  # loaded after every other plugin

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str] = ".",
        *,
        plugins: Sequence[str | object] | None = None,
        disable: Iterable[str] = (),
        asker: Asker | None = None,
        answerer: Answerer | None = None,
        data_dir: str | os.PathLike[str] | None = None,
        trust: bool | None = None,
        on_ask: OnAsk = "ask",
        store: Store | None = None,
        mcp_listings: Literal["cached", "fresh"] = "fresh",
        telemetry: bool | Telemetry | None = None,
        on_mcp_start: Callable[[str], Callable[[], None]] | None = None,
        authorizer: Authorizer | None = None,
    ) -> Host:
        """Read the config at ``path``, discover and register every selected plugin.

        ``plugins=None`` discovers the installed entry points (``TOOLDECK_LOAD_PLUGINS``
        or config ``plugins.only`` may narrow them); a list loads exactly these
        third-party plugins: names (``dist``, ``dist:ep``, ``local:stem``) and plugin
        objects (modules, classes or instances with hookimpls). Built-ins load unless
        disabled: ``disable`` takes names and glob patterns (``["builtin:*"]``), as
        ``[plugins] disable`` does. Raises ``ConfigError`` for an invalid config file; a
        broken plugin never raises, it is reported in ``host.plugins``.

        ``trust``: whether the project's own code may run or grant anything (its
        ``.tooldeck/plugins``, ``[mcp.servers]``, ``[format]``, served principals,
        ``allow`` rules: whatever ``host.trust.items`` lists). ``None`` asks
        ``TOOLDECK_TRUST``, then the user's trust store; ``True`` trusts for this
        process; ``False`` opens the untrusted view, where the project can only narrow
        what the user's own config allows. ``host.trust`` says what was decided and what
        was skipped; a folder that skipped something logs one warning on the
        ``tooldeck`` logger naming the trust command.

        ``on_ask="defer"``: a permission ask ends its call ``pending`` instead of awaiting
        ``asker`` (answer it later with ``resume``). ``store``: where approvals and
        pending calls live (default: SQLite in the data dir; ``PostgresStore`` to share
        one between hosts). See ``docs/approvals.md``.

        ``mcp_listings``: ``"fresh"`` starts every configured MCP server and waits for its
        tool listing; ``"cached"`` mounts a server from its last good listing (kept in the
        data dir) when that is still valid, and starts the server only when one of its
        tools is called, as the CLI does. See ``docs/mcp.md``. ``on_mcp_start(name)`` is
        called as each server start (connecting and listing) begins, on the servers'
        loop thread, and returns the function called as it ends: the ``tooldeck``
        command prints a line when a start lasts more than a second. ``authorizer`` gets
        a person through an OAuth sign-in a server needs (else: ``tooldeck mcp login``).

        ``telemetry``: OpenTelemetry spans and metrics (``tooldeck[otel]``): ``True`` reports
        to the global providers, a ``Telemetry`` to its own, ``False`` turns it off,
        ``None`` leaves it to config ``[telemetry] enabled`` (see ``docs/telemetry.md``).
        """
        if mcp_listings not in ("cached", "fresh"):
            raise ValueError(f"mcp_listings must be 'cached' or 'fresh', got {mcp_listings!r}")
        if isinstance(disable, str):  # its characters would be entries: "*" disables all
            raise TypeError("disable must be a list of names or patterns, not a str")
        location, status = open_location(
            Path(path), trust, data_dir, asker, answerer, store=store, on_ask=on_ask
        )
        try:
            instrumented = instrumentation(location, telemetry)
        except BaseException:
            location.close()
            raise
        mcp = McpOptions(mcp_listings, on_mcp_start, authorizer)
        with instrumented.spans("tooldeck.host.open", {semconv.LOCATION: str(location.root)}):
            return cls._opened(location, status, plugins, disable, instrumented, mcp)

    @classmethod
    def _opened(
        cls,
        location: Location,
        status: Decision,
        plugins: Sequence[str | object] | None,
        disable: Iterable[str],
        instrumented: Instrumentation,
        mcp_options: McpOptions,
    ) -> Host:
        config = location.config
        names, objects = split_requested(plugins)
        selection = Selection.build(
            plugins=names,
            disable=disable,
            config=config.plugins,
            environ=os.environ,
            project=location.project.plugins,
        )
        from tooldeck.codemode.provider import CodeMode

        service = ToolService(location, codemode=CodeMode())
        mcp = mcp_layer(location, service, selection, mcp_options)
        host = cls(
            location,
            service,
            selection,
            partial(discover, location.root, objects, mcp.load if mcp else None),
            trace=os.environ.get("TOOLDECK_TRACE_PLUGINS") == "1",
            groups={"mcp": mcp} if mcp else None,
            trust=status,
            instrumented=instrumented,
        )
        host._sync_plugins()  # a fresh process: the import system's caches are current
        notice = None if isinstance(status, Untouched) else status.notice()
        if notice is not None:
            import logging  # only for a folder that skipped something

            logging.getLogger("tooldeck").warning("%s", notice)
        return host

    @property
    def trust(self) -> TrustStatus:
        """Whether this Location's project code runs, and what was skipped if not.

        ``host.plugins`` shows each skipped plugin file and server as a row ``untrusted``;
        this says why, lists the skipped allow rules too and names the trust command.
        """
        if self._trust is None:  # a host built by hand: its caller chose every plugin
            from tooldeck.host.trust.project import TrustStatus

            return TrustStatus(self.location.root, (), "", True, "argument")
        return status_of(self._trust)

    # -- lifetime --------------------------------------------------------------------------
    def close(self) -> None:
        """Close every open session, then release what the Location holds (sandbox
        workers, server connections). Idempotent."""
        self.service.close_sessions()
        self.location.close()

    def __enter__(self) -> Host:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- sessions --------------------------------------------------------------------------
    def session(self, session_id: str) -> SessionScope:
        """Open (or return the open) scope of ``session_id``: tools for that session only.

        Every plugin's ``session_transform`` runs as the scope opens; one that raises is
        reported in ``scope.diagnostics`` and the session opens without it. The host
        holds the scope until ``scope.close()`` or ``host.close()``.
        """
        return self.service.session(session_id)

    # -- reading ---------------------------------------------------------------------------
    def snapshot(
        self,
        permissions: Visibility | Literal["location"] | None = "location",
        *,
        session: str | None = None,
    ) -> Snapshot:
        """An immutable snapshot of the effective catalog for one model request.

        By default (``"location"``) the Location's own rules apply, so a tool whose
        action is wholly denied is not advertised. ``None`` shows every registered tool
        and a ``Visibility`` (a ``Ruleset``, say) applies its own rules: the values mean
        what they mean for ``ToolService.snapshot``. ``session``: that session's view,
        the Location's catalog with the session's registrations on top (see
        ``ToolService.snapshot``).
        """
        return self.service.snapshot(permissions, session=session)

    # -- deferred asks -----------------------------------------------------------------------
    def pending(self, session: str | None = None) -> list[PendingCall]:
        """Calls waiting for an answer (of one session, or all), oldest first; expired
        ones are left out. Reads the store: blocking I/O, cheap on SQLite."""
        from tooldeck.host.boundary.pending import PendingCall

        now = time.time()
        entries = self.location.store.list_pending(session)
        return [PendingCall.from_json(e.data) for e in entries if e.expires_at >= now]

    async def resume(self, pending_id: str, reply: Reply) -> ToolCallOutcome:
        """Answer a pending call and return its outcome, exactly once across processes.

        ``reject``/``Reject(feedback)`` records the decline; ``once``/``always`` runs the
        call again from the start with the answer in place (``always`` also saves the
        approval). Resuming an id again returns the recorded outcome; a call whose tool
        may have acted before a crash ends ``failed``/``unknown`` instead of running
        twice. Raises ``PendingCallError`` for an unknown id, an expired call or a tool
        whose definition changed since the ask.
        """
        from tooldeck.host.boundary.resume import Resume

        return await Resume(self.location, self._snapshot_for, pending_id)(reply)

    def _snapshot_for(self, session_id: str) -> Snapshot:
        """The snapshot a resumed call runs against: its session's, opened if needed."""
        if not session_id:
            return self.snapshot()
        self.session(session_id)
        return self.snapshot(session=session_id)

    @property
    def plugins(self) -> list[PluginInfo]:
        """The load report: every plugin in load order, with its status and effects."""
        # only reports need it
        from tooldeck.host.plugins.report import group_infos, plugin_info

        with self._lock:
            records = list(self._plugins.records)
        catalog = self.service.catalog
        infos: list[PluginInfo] = []
        for r in records:
            group = self._groups.get(r.candidate.name)
            if group is not None:  # one registration reported as several rows
                infos += group_infos(group, r.candidate.layer, catalog, r.status, r.reason)
                continue
            infos.append(
                plugin_info(r.candidate, r.status, catalog, reason=r.reason, traceback=r.traceback)
            )
        return infos

    @property
    def plugin_failures(self) -> dict[str, str]:
        """Each plugin that failed to load (by its report name) and why, in load order.

        Cheaper than ``plugins`` (no load report is built): for saying, beside a catalog,
        that tools may be missing. MCP servers are rows of one plugin; ``mcp_failures``
        says which of them failed.
        """
        with self._lock:
            records = list(self._plugins.records)
        return {r.candidate.name: r.reason or "failed" for r in records if r.status == "failed"}

    @property
    def warnings(self) -> tuple[str, ...]:
        """What this host was told that had no effect: each ``disable`` entry (of
        ``Host.open``, ``TOOLDECK_DISABLE_PLUGINS`` or ``[plugins] disable``) that names
        no plugin or MCP server, with where it came from. Each is logged once too, as a
        warning on the ``tooldeck`` logger."""
        return self._plugins.warnings

    @property
    def mcp_failures(self) -> dict[str, str]:
        """Each configured MCP server that failed (``mcp:NAME``) and why.

        Cheaper than ``plugins`` (no load report is built): for saying, beside a catalog,
        whose tools are missing. Empty without servers.
        """
        layer = self._groups.get("mcp")
        rows = layer.members() if layer is not None else []
        return {row.name: row.reason or "failed" for row in rows if row.status == "failed"}

    @property
    def mcp_sources(self) -> dict[str, str]:
        """The server (``mcp:NAME``) each mounted tool comes from, by effective name.

        The catalog names the one MCP registration (``mcp``) as every mounted tool's
        source; this names the server, as ``plugins`` rows do. Empty without servers.
        """
        layer = self._groups.get("mcp")
        rows = layer.members() if layer is not None else []
        return {tool: row.name for row in rows for tool in sorted(row.tools)}

    # -- changing --------------------------------------------------------------------------
    def refresh_plugins(self) -> None:
        """Rescan what is installed: register new plugins at their sorted position,
        dispose removed ones (revealing what they overrode), keep unchanged ones.

        Call it after installing or removing packs in this process: it first clears
        the import system's caches (``importlib.invalidate_caches``), which ``Host.open``
        does not. Python's finders notice a directory changed since they listed it by
        its modification time, so a pack installed before ``Host.open`` is found; only
        one installed by this process within the file system's timestamp granularity of
        an earlier listing of the same directory needs this call.
        """
        importlib.invalidate_caches()
        self._sync_plugins()

    def _sync_plugins(self) -> None:
        """Discover and bring the registrations in line, with the import caches as they
        are (``Host.open``: re-listing every directory on ``sys.path`` costs a fresh
        process about 3 ms, ``bench/DECISIONS.md``)."""
        spans = self._spans
        with (
            spans("tooldeck.plugins.refresh", {}),
            self._lock,
            collector_paused(),
            replayed(self.service, spans),
        ):
            with spans("tooldeck.plugins.discover", {}):
                candidates = ordered(self._discover(), self._selection.order)
            servers = tuple(self.location.config.mcp.servers)
            self._plugins.sync([*candidates, *self._last], servers)

    def __repr__(self) -> str:
        return f"<Host {str(self.location.root)!r} plugins={len(self._plugins.records)}>"
