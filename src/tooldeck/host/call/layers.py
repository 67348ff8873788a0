"""What a layer of the call boundary is, and how one call crosses a snapshot's layers.

A layer is one concern of every call (per-tool limits, the plugins' ``tool_call`` hooks,
…) written as one function of one signature: ``layer(call, scope, call_next)`` does its
part and awaits ``call_next(call)`` for everything below it — the next layer, and under the last
one the tool. Which layers exist and in which order is decided once, by the boundary
(``host/boundary/active.py``, ``LAYERS``); a snapshot holds the ones active for its
catalog, so a call pays only for a layer that has something to do.

``cross`` is the one way down, for ``run_tool_call`` and ``Snapshot.execute`` alike:
with no active layer it is the tool's own call path, unchanged (a sync executor's call
returns without a coroutine).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol, TypeAlias

from tooldeck._tool import ProgressCallback
from tooldeck.host.call.values import CallScope, Done, ExecutedTool, ToolCall

Next: TypeAlias = Callable[[ToolCall], Awaitable[ExecutedTool]]
"""Everything below a layer: ``await call_next(call)`` runs the rest of the call."""

Start: TypeAlias = Callable[[ToolCall, CallScope, "ProgressCallback | None"], Done]
"""The tool's own call path under every layer (a snapshot's ``_start``)."""


class Layer(Protocol):
    """One concern of every call: ``await layer(call, scope, call_next)``."""

    def __call__(
        self, call: ToolCall, scope: CallScope, call_next: Next, /
    ) -> Awaitable[ExecutedTool]: ...


def cross(
    layers: tuple[Layer, ...],
    start: Start,
    call: ToolCall,
    scope: CallScope,
    progress: ProgressCallback | None,
) -> Done:
    """Run ``call`` through ``layers`` (outermost first), then ``start`` it."""
    if not layers:
        return start(call, scope, progress)
    return _Below(layers, 0, start, scope, progress)(call)


class _Below:
    """``call_next`` for the layer at ``index - 1``: the layer at ``index``, or the tool."""

    __slots__ = ("_index", "_layers", "_progress", "_scope", "_start")

    def __init__(
        self,
        layers: tuple[Layer, ...],
        index: int,
        start: Start,
        scope: CallScope,
        progress: ProgressCallback | None,
    ) -> None:
        self._layers = layers
        self._index = index
        self._start = start
        self._scope = scope
        self._progress = progress

    async def __call__(self, call: ToolCall) -> ExecutedTool:
        index = self._index
        if index == len(self._layers):
            done = self._start(call, self._scope, self._progress)
            return done if isinstance(done, ExecutedTool) else await done
        below = _Below(self._layers, index + 1, self._start, self._scope, self._progress)
        return await self._layers[index](call, self._scope, below)
