"""Per-tool limits at the call boundary: ``timeout_s``, ``max_concurrency``, ``sequential``.

A tool declares them (``Tool(timeout_s=...)``) and ``[tools."NAME-or-PATTERN"]`` in the
config overrides them field by field (the last matching entry wins, as for
``defer_loading``). A snapshot holds ``call_limits = None`` when no tool of its catalog
has a limit and the config sets none: then this layer is not among the snapshot's
layers and a call does no limit work at all.

* ``timeout_s``: the call (its wait for a slot included) is cancelled at the limit and
  ends ``failed`` naming the limit. Cancellation reaches what the tool awaits (a
  process-running tool stops its process on cancellation: SIGTERM, then SIGKILL after a
  grace, so the answer may come later than the limit, and then says when); a
  synchronous executor running on the event loop cannot be interrupted.
* ``max_concurrency``: at most that many calls of the tool run at once, per service
  (across its threads and event loops); the others wait in arrival order.
* ``sequential``: such a call waits until no other call of its session runs, and no
  other call of the session starts until it ends. Nested calls (inside a code-mode
  program) are exempt: their program already holds its session's turn.

The waiting places (``gates.py``) are the service's, shared by every thread and loop.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from contextlib import AsyncExitStack
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple

from tooldeck._tool import ToolFailure
from tooldeck.host.execution.snapshot import named_record
from tooldeck.host.permissions.wildcard import match

if TYPE_CHECKING:
    from tooldeck.host.boundary.gates import Gates
    from tooldeck.host.call.layers import Layer, Next
    from tooldeck.host.call.values import CallScope, ExecutedTool, ToolCall
    from tooldeck.host.config.config import ToolConfig
    from tooldeck.host.execution.snapshot import Snapshot
    from tooldeck.host.registry.catalog import Catalog
    from tooldeck.host.registry.editor import CatalogEntry
    from tooldeck.host.registry.record import ToolRecord


class Limits(NamedTuple):
    """One tool's effective limits; the defaults mean none."""

    timeout_s: float | None = None
    max_concurrency: int | None = None
    sequential: bool = False


NO_LIMITS = Limits()

LATE_SECONDS = 0.5
"""How far past its limit a stopped call must end before its message says when it did."""


class CallLimits:
    """The limits of one snapshot's calls, and the service's ``Gates`` they wait at."""

    __slots__ = ("_by_name", "_patterns", "gates", "sequential")

    def __init__(
        self, patterns: tuple[tuple[str, ToolConfig], ...], gates: Gates, sequential: bool
    ) -> None:
        self._patterns = patterns
        self._by_name: dict[str, Limits] = {}
        self.gates = gates
        self.sequential = sequential
        """Whether any call may be ``sequential``: then every call of a session takes turns."""

    @classmethod
    def of(
        cls, catalog: Catalog, config: Mapping[str, ToolConfig], gates: Gates
    ) -> CallLimits | None:
        """The limits of ``catalog``'s tools; ``None`` when no tool has any."""
        patterns = tuple(
            (p, c)
            for p, c in config.items()
            if c.timeout_s is not None or c.max_concurrency is not None or c.sequential is not None
        )
        tools = [e.tool for e in catalog.tools.values()]
        limited = [t for t in tools if t.timeout_s or t.max_concurrency or t.sequential]
        if not patterns and not limited:
            return None
        sequential = any(t.sequential for t in limited) or any(c.sequential for _, c in patterns)
        return cls(patterns, gates, sequential)

    def of_record(self, record: ToolRecord) -> Limits:
        name = record.effective
        found = self._by_name.get(name)
        if found is None:
            tool = record.tool
            values: dict[str, Any] = {
                "timeout_s": tool.timeout_s,
                "max_concurrency": tool.max_concurrency,
                "sequential": tool.sequential,
            }
            for pattern, option in self._patterns:
                if match(pattern, name):
                    values.update(
                        (k, v) for k in Limits._fields if (v := getattr(option, k)) is not None
                    )
            found = self._by_name[name] = Limits(**values)
        return found


def declares_limits(entries: Iterable[CatalogEntry | None]) -> bool:
    """Whether a tool among ``entries`` (a session's changes) declares a limit of its own."""
    return any(
        e is not None and (e.tool.timeout_s or e.tool.max_concurrency or e.tool.sequential)
        for e in entries
    )


def layer(snapshot: Snapshot) -> Layer | None:
    """The limits layer of ``snapshot``'s calls; ``None`` when none of its tools has a limit."""
    limits = snapshot.call_limits
    return None if limits is None else partial(_limited, limits, partial(named_record, snapshot))


async def _limited(
    limits: CallLimits,
    record_of: Callable[[str], ToolRecord | None],
    call: ToolCall,
    scope: CallScope,
    call_next: Next,
) -> ExecutedTool:
    """Run ``call`` within its tool's limits: a slot, the session's turn, the timeout."""
    import asyncio

    record = record_of(call.name)
    own = limits.of_record(record) if record is not None else NO_LIMITS
    takes_turns = limits.sequential and scope.via != "nested"
    if own is NO_LIMITS and not takes_turns:
        return await call_next(call)
    name = record.effective if record is not None else call.name
    started = time.monotonic()
    try:
        async with asyncio.timeout(own.timeout_s) as deadline, AsyncExitStack() as held:
            if own.max_concurrency is not None:
                await held.enter_async_context(limits.gates.slots(name, own.max_concurrency))
            if takes_turns:
                exclusive = own.sequential and scope.via != "nested"
                await held.enter_async_context(limits.gates.turn(scope.session_id, exclusive))
            return await call_next(call)
    except TimeoutError:
        if own.timeout_s is None or not deadline.expired():
            raise
        raise ToolFailure(_timed_out(name, own.timeout_s, time.monotonic() - started)) from None


def _timed_out(name: str, limit: float, seconds: float) -> str:
    """The failure of a call past its limit, with the real time when stopping its work
    took a while (a process given a grace to exit): the limit alone would understate it."""
    stopped = "was stopped"
    if seconds - limit >= LATE_SECONDS:
        stopped += f", {seconds:.1f} s after it started"
    return (
        f"Tool '{name}' did not finish within its {limit:g} s limit (timeout_s) and {stopped}. "
        "Try a smaller task, or ask the user to raise the limit."
    )
