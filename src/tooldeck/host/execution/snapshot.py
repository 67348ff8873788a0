"""``Snapshot``: the frozen catalog one model request advertises and executes against.

A snapshot captures the effective definitions *and* executors of one catalog, and the
boundary's layers active for it (``layers``, bound once by whoever builds the snapshot:
the service binds ``host/boundary``'s); later registrations, reloads and disposals build
new catalogs and never touch it. What it lists is computed on first need
(``listings.py``) and kept here. ``execute`` runs one call through those layers and the
tool's call path (``host/call/path.py``: validate input, call, enforce the output
contract, normalize content); ``run_tool_call`` does the same and classifies the ending.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, overload

from tooldeck._peer import Peer
from tooldeck._public import public
from tooldeck._tool import AnyTool, ProgressCallback, ToolFailure
from tooldeck.errors import UsageError
from tooldeck.host.call.layers import Layer, cross
from tooldeck.host.call.sizes import text_budget
from tooldeck.host.call.values import (
    CallPath,
    CallScope,
    CallVia,
    Done,
    ExecutedTool,
    ToolCall,
    session_for,
)
from tooldeck.host.execution import lazy
from tooldeck.host.execution.definitions import (
    CodeModeProvider,
    Index,
    ToolDefinition,
    Visibility,
    codemode_in_use,
    index_of,
)
from tooldeck.host.execution.lazy import run_async
from tooldeck.host.execution.reuse import index_after
from tooldeck.host.registry.catalog import Catalog
from tooldeck.host.registry.editor import CatalogEntry
from tooldeck.host.registry.names import RESERVED_CODEMODE_NAME
from tooldeck.host.registry.record import ToolRecord, record_of
from tooldeck.host.schema.frozen import FrozenDict
from tooldeck.host.search.deferral import SEARCH_TOOLS, not_available

LayerBinder = Callable[["Snapshot"], tuple[Layer, ...]]
"""Binds the boundary's active layers to a new snapshot (``host/boundary``'s ``layers``)."""

if TYPE_CHECKING:
    from tooldeck.host.boundary.hooks import HookChain
    from tooldeck.host.boundary.limits import CallLimits
    from tooldeck.host.call.fused import FusedCall
    from tooldeck.host.config.config import OutputConfig
    from tooldeck.host.execution.listings import Listings
    from tooldeck.host.location.location import Location
    from tooldeck.host.search.advertised import SearchVariant
    from tooldeck.providers.formats import Format
    from tooldeck.providers.wire_types import (
        AnthropicTool,
        GeminiFunctionDeclaration,
        MCPTool,
        OpenAIResponsesTool,
        OpenAITool,
    )


@public
class Snapshot:
    """Immutable: the advertised definitions and the executors captured with them.

    ``session_id`` is the session the snapshot belongs to (``""``: the Location's, which
    runs calls of any session); its calls default to it. What bounding a call's text
    needs (``output_limits``, ``data_dir``, ``text_budget``) is read once, here.

    ``scope``, ``default_scope``, ``layers`` and ``run`` are the call boundary's side of
    the snapshot: ``run_tool_call`` resolves a ``CallScope`` once, and ``run`` takes
    each call through ``layers`` to its tool; a call with no active layer, no ids and no
    progress takes its tool's bound closure instead (``_fuse``). ``previous`` (the
    service's last snapshot of the same permissions and provider) gives what did not
    change (``reuse.py``).
    """

    __slots__ = (
        "_codemode",
        "_codemode_on",
        "_definitions",
        "_fused",
        "_hidden",
        "_listings",
        "_records_by_name",
        "_rendered",
        "call_hooks",
        "call_limits",
        "catalog",
        "codemode_catalog",
        "data_dir",
        "default_scope",
        "layers",
        "location",
        "output_limits",
        "session_id",
        "text_budget",
    )

    def __init__(
        self,
        catalog: Catalog,
        location: Location,
        *,
        permissions: Visibility | None = None,
        codemode: CodeModeProvider | None = None,
        session_id: str = "",
        call_hooks: HookChain | None = None,
        call_limits: CallLimits | None = None,
        bind_layers: LayerBinder | None = None,
        previous: Snapshot | None = None,
    ) -> None:
        self.catalog = catalog
        self.call_hooks = call_hooks
        """The plugins' ``tool_call`` wrappers (the hooks layer's); ``None``: no plugin has one."""
        self.call_limits = call_limits
        """The per-tool limits of this catalog (the limits layer's); ``None``: none."""
        self.location = location
        self.session_id = session_id
        self.output_limits: OutputConfig = location.config.output
        self.data_dir: Path = location.data_dir
        self.text_budget = text_budget(self.output_limits.max_lines, self.output_limits.max_bytes)
        """Text no longer than this many characters is within ``[output]`` limits whatever
        it holds: the boundary keeps such text as it is without measuring it."""
        self.default_scope = CallScope(session_id)
        """The scope of a call given no ids: ``scope()``'s answer, built once."""
        self._rendered: dict[str, tuple[FrozenDict, ...]] = {}
        self._hidden: dict[str, ToolRecord] | None = None
        self._fused: dict[str, FusedCall] = {}
        """The common call of each tool called so far (``_fuse``)."""
        self._definitions: tuple[ToolDefinition, ...] | None = None
        self._listings: Listings | None = None
        reused = None if previous is None else index_after(previous, self, permissions, codemode)
        index = self._index(permissions, codemode) if reused is None else reused
        self.codemode_catalog: tuple[CatalogEntry, ...] = index[0]
        self._records_by_name: dict[str, ToolRecord] = index[1]
        self._codemode: CodeModeProvider | None = index[2]
        self.layers: tuple[Layer, ...] = bind_layers(self) if bind_layers is not None else ()
        """The boundary's layers active here, outermost first; ``()``: a call is its path alone."""

    def _index(self, permissions: Visibility | None, codemode: CodeModeProvider | None) -> Index:
        """What this snapshot advertises (a session's decides only for its changes)."""
        self._codemode_on = codemode_in_use(codemode, self.location, permissions)
        return index_of(self.catalog, permissions, codemode, self._codemode_on)

    # -- catalog ---------------------------------------------------------------------------
    @property
    def definitions(self) -> tuple[ToolDefinition, ...]:
        """The advertised tools, provider-neutral (schemas are derived on first use)."""
        if self._definitions is None:
            self._definitions = self._lister().definitions()
        return self._definitions

    @property
    def names(self) -> tuple[str, ...]:
        """Advertised native names, in definition order."""
        if self._codemode is not None:  # ``execute`` is advertised; no need to build it
            return (*self._records_by_name, RESERVED_CODEMODE_NAME)
        return tuple(self._records_by_name)

    def get(self, name: str) -> AnyTool | None:
        """The advertised tool called ``name``, or ``None``."""
        if name == RESERVED_CODEMODE_NAME:
            self._with_codemode()
        record = self._records_by_name.get(name)
        return record.tool if record is not None else None

    @overload
    def definitions_for(
        self, fmt: Literal["openai"], *, strict: bool = False
    ) -> tuple[OpenAITool, ...]: ...
    @overload
    def definitions_for(
        self, fmt: Literal["openai-responses"], *, strict: bool = False
    ) -> tuple[OpenAIResponsesTool, ...]: ...
    @overload
    def definitions_for(
        self, fmt: Literal["anthropic"], *, search: SearchVariant = "bm25"
    ) -> tuple[AnthropicTool, ...]: ...
    @overload
    def definitions_for(self, fmt: Literal["gemini"]) -> tuple[GeminiFunctionDeclaration, ...]: ...
    @overload
    def definitions_for(self, fmt: Literal["mcp"]) -> tuple[MCPTool, ...]: ...
    @overload
    def definitions_for(
        self, fmt: Format, *, strict: bool = False, search: SearchVariant = "bm25"
    ) -> tuple[Mapping[str, Any], ...]: ...
    def definitions_for(
        self, fmt: str, *, strict: bool = False, search: str = "bm25"
    ) -> tuple[Any, ...]:
        """The advertised tools in a provider format (read-only dicts, shared).

        ``fmt``: ``openai`` (Chat Completions), ``openai-responses``, ``anthropic``,
        ``gemini`` or ``mcp``. ``strict=True`` (the OpenAI formats) renders OpenAI strict
        mode for every tool whose schema has a strict form and ``"strict": false`` for
        the others; ``non_strict()`` says which and why. Deferred tools (``deferred``)
        are advertised behind a tool search (``advertised.py``); ``search`` picks
        Anthropic's tool search tool: ``"bm25"`` or ``"regex"``.
        """
        key = f"{fmt}+strict" if strict else fmt
        if fmt == "anthropic":
            key = f"{key}+{search}"
        advertised = self._rendered.get(key)
        if advertised is None:
            advertised = self._rendered[key] = self._lister().advertised(fmt, strict, search)
        return advertised

    @property
    def deferred(self) -> tuple[str, ...]:
        """The native tools advertised behind a tool search, by effective name."""
        return tuple(sorted(self._lister().deferral().names))

    def non_strict(self) -> dict[str, str]:
        """Advertised tools with no OpenAI strict form: name → why (definition order)."""
        return self._lister().non_strict()

    def _lister(self) -> Listings:
        """What computes this snapshot's listings (``listings.py``), made on first need."""
        if self._listings is None:
            self._listings = self._new_listings()
        return self._listings

    def _new_listings(self) -> Listings:
        from tooldeck.host.execution.listings import Listings  # on first listing, not at open

        return Listings(self)

    # -- execution -------------------------------------------------------------------------
    async def execute(
        self,
        call: ToolCall,
        *,
        session_id: str = "",
        message_id: str = "",
        agent: str | None = None,
        progress: ProgressCallback | None = None,
    ) -> ExecutedTool:
        """Run one call through the boundary's layers (limits, hooks, tracing) and its
        tool; ``ToolFailure`` is the only expected failure. ``run_tool_call`` is the same
        call classified into an outcome.

        ``session_id`` defaults to the snapshot's session; a session's snapshot refuses
        another session's id (``SessionError``) before anything runs.
        """
        if session_id or message_id or agent is not None or progress is not None or self.layers:
            done = self.run(call, self.scope(session_id, message_id, agent), progress)
        else:  # the common call (``_fuse``)
            done = (self._fused.get(call.name) or self._fuse(call.name))(call)
        return done if isinstance(done, ExecutedTool) else await done

    def execute_sync(
        self,
        call: ToolCall,
        *,
        session_id: str = "",
        message_id: str = "",
        agent: str | None = None,
        progress: ProgressCallback | None = None,
    ) -> ExecutedTool:
        """``execute`` for hosts without an event loop in this thread.

        Sync executors are called directly; async ones run in a private event loop.
        Calling it from a thread whose loop is running is an error: ``await execute``.
        """
        if lazy.running_loop() is not None:
            raise UsageError(
                f"execute_sync({call.name!r}) was called from a running event loop; "
                "use 'await snapshot.execute(...)' there"
            )
        if session_id or message_id or agent is not None or progress is not None or self.layers:
            done = self.run(call, self.scope(session_id, message_id, agent), progress)
        else:  # the common call (``_fuse``)
            done = (self._fused.get(call.name) or self._fuse(call.name))(call)
        if isinstance(done, ExecutedTool):
            return done
        return run_async(done)  # only sync hosts running async executors need it

    def scope(
        self,
        session_id: str = "",
        message_id: str = "",
        agent: str | None = None,
        *,
        via: CallVia = "native",
        parent_id: str = "",
        peer: Peer | None = None,
    ) -> CallScope:
        """The ``CallScope`` of calls with these ids against this snapshot, resolved once.

        ``session_id`` defaults to the snapshot's session; a session's snapshot refuses
        another session's id (``SessionError``), before anything runs.
        """
        if session_id != self.session_id:
            session_id = session_for(self.session_id, session_id)
        if message_id or agent is not None or via != "native" or parent_id or peer:
            return CallScope(session_id, message_id, agent, via, parent_id, peer)
        return self.default_scope if session_id == self.session_id else CallScope(session_id)

    def run(
        self, call: ToolCall, scope: CallScope, progress: ProgressCallback | None = None
    ) -> ExecutedTool | Coroutine[Any, Any, ExecutedTool]:
        """Run one call in ``scope`` (from ``scope()``) through the layers, then its tool:
        the ``ExecutedTool``, or a coroutine that finishes the call if it must await.

        ``ToolFailure`` and every other exception propagate: classifying how a call ended
        is ``run_tool_call``'s job, the one boundary every call crosses.
        """
        if self.layers:
            return cross(self.layers, self._start, call, scope, progress)
        # Hot: with no active layer ``cross`` would only call ``_start``; its body is
        # written here instead, saving a call per call (``bench/DECISIONS.md``; pinned to
        # ``cross`` by ``tests/host/execution/test_snapshot.py``).
        record = self._records_by_name.get(call.name) or self._unavailable(call.name)
        return (record.call_path or _path_of(record))(self.location, call, scope, progress)

    def _fuse(self, name: str) -> FusedCall:
        """The common call of ``name`` (no active layer, no ids, no progress), bound at its
        first call and kept: the tool's call path as one closure (``host/call/fused.py``).
        The name resolves as in ``run``; one that resolves to no tool raises as it does there."""
        record = self._records_by_name.get(name) or self._unavailable(name)
        from tooldeck.host.call.fused import fused_call  # with the first call, not at open

        path = record.call_path or _path_of(record)
        location, scope = self.location, self.default_scope
        fused = fused_call(record, location, scope)
        if fused is None:  # not fused: the call path, as ``run`` takes it

            def fused(call: ToolCall) -> Done:
                return path(location, call, scope, None)

        self._fused[name] = fused
        return fused

    def _start(
        self, call: ToolCall, scope: CallScope, progress: ProgressCallback | None = None
    ) -> ExecutedTool | Coroutine[Any, Any, ExecutedTool]:
        """Below every layer (``cross`` calls it last): resolve the tool and run its call
        path (``host/call/path.py``) in ``scope``."""
        record = self._records_by_name.get(call.name) or self._unavailable(call.name)
        return (record.call_path or _path_of(record))(self.location, call, scope, progress)

    def _with_codemode(self) -> None:
        """Add ``execute`` (built by the code-mode provider) the first time it is needed."""
        codemode = self._codemode
        if codemode is not None:
            record = record_of(codemode.build(self, self.codemode_catalog))
            self._records_by_name[record.effective] = record
            self._codemode = None

    def _unavailable(self, name: str) -> ToolRecord:
        """Resolve what is not advertised: ``execute`` before it is built, a code-mode tool
        by its effective name (``tools.<effective>`` names only code-mode tools), else a
        ``ToolFailure`` naming a few available tools and how to find the rest."""
        if self._codemode is not None:
            self._with_codemode()
            if name in self._records_by_name:
                return self._records_by_name[name]
        if self.codemode_catalog:
            if self._hidden is None:
                records = [record_of(e.tool) for e in self.codemode_catalog]
                hidden = {r.effective: r for r in records}
                hidden.update(("tools." + r.effective, r) for r in records)
                self._hidden = hidden
            record = self._hidden.get(name)
            if record is not None:
                return record
        if name == SEARCH_TOOLS and self._lister().deferral().names:
            return self._lister().deferral().search_record()
        withheld = self.location.withheld(name)
        if withheld is not None:
            raise ToolFailure(f"Tool '{name}' {withheld}")
        raise ToolFailure(not_available(name, self.names, self._lister().deferral().names))


def named_record(snapshot: Snapshot, name: str) -> ToolRecord | None:
    """The record a call of ``name`` runs in ``snapshot`` (``execute`` and code-mode tools
    by name included), or ``None`` when it has no such tool: what the boundary's layers
    and a pending call need to know of the tool they wrap."""
    try:
        return snapshot._records_by_name.get(name) or snapshot._unavailable(name)
    except ToolFailure:
        return None


def common_call(snapshot: Snapshot, name: str) -> FusedCall:
    """The closure that runs a common call of ``name`` in ``snapshot`` (no active layer,
    no ids, no progress), bound at its first call (``Snapshot._fuse``): the door
    ``run_tool_call`` takes for such a call, as ``execute`` and ``execute_sync`` do."""
    return snapshot._fused.get(name) or snapshot._fuse(name)


def _path_of(record: ToolRecord) -> CallPath:
    """The call path of ``record``'s tool, decided on its first call and kept on it."""
    from tooldeck.host.call.path import call_path  # with the first call, not at open

    path = record.call_path = call_path(record)
    return path
