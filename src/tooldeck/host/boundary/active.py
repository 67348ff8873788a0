"""Which layers of the boundary a snapshot's calls cross: ``LAYERS`` and ``layers``.

Apart from ``boundary.py`` because every snapshot binds its layers as it is built, and
the first snapshot comes long before the first call: binding them loads only this
module (and a layer's own module when that layer is active), not the boundary and the
outcome values a call ends with.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tooldeck.host.call.layers import Layer
    from tooldeck.host.execution.snapshot import Snapshot

LAYERS: tuple[tuple[str, str], ...] = (
    ("call_limits", "tooldeck.host.boundary.limits"),
    ("call_hooks", "tooldeck.host.boundary.hooks"),
)
"""The layers every call crosses, outermost first: the snapshot attribute that holds a
layer's state for its catalog (``None``: the layer has nothing to do there), and the
module whose ``layer(snapshot)`` is that layer for one snapshot's calls, or ``None``. A
layer's module is loaded for the first snapshot where it has something to do, never
before. A new layer is one module with a ``layer`` function, its state on the snapshot
and one entry here."""


def layers(snapshot: Snapshot) -> tuple[Layer, ...]:
    """The active layers of ``snapshot``'s calls, outermost first (bound once per snapshot)."""
    return tuple(
        found
        for attribute, module in LAYERS
        if getattr(snapshot, attribute) is not None
        and (found := import_module(module).layer(snapshot)) is not None
    )
