"""What the replay works through: a registered ``Transform``, and the ``Step`` that
replaying it recorded.

Both the state that replays (``state``, ``session``) and the catalog a replay publishes
(``catalog``, which rebuilds provenance from the steps' logs when a report asks) read
these, so they live apart from either.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tooldeck.host.registry.editor import (
    CallHookFn,
    CatalogEntry,
    Delta,
    Diagnostic,
    NamespaceEntry,
    Op,
    ToolEditor,
)
from tooldeck.host.registry.features import FeatureEntry
from tooldeck.host.registry.overlay import Draft

TransformFn = Callable[[ToolEditor], Any]


class Transform:
    """One registered transform: a callback and the source it belongs to."""

    __slots__ = ("disposed", "fn", "source")

    def __init__(self, fn: TransformFn, source: str) -> None:
        self.fn = fn
        self.source = source
        self.disposed = False

    def __repr__(self) -> str:
        return f"<Transform {self.source!r}{' disposed' if self.disposed else ''}>"


class Step:
    """The replay of one transform: its log, diagnostics and an optional checkpoint."""

    __slots__ = (
        "delta",
        "diagnostics",
        "extras",
        "hooks",
        "log",
        "namespaces",
        "tools",
        "transform",
    )

    def __init__(self, transform: Transform) -> None:
        self.transform = transform
        self.diagnostics: list[Diagnostic] = []
        self.log: list[Op] = []
        # The call hooks it added (a session's replay only, see ``ToolEditor.add_call_hook``).
        self.hooks: list[tuple[str, CallHookFn]] = []
        # Set when the transform never read the draft: its net edits, re-applicable.
        self.delta: Delta | None = None
        self.tools: Draft[CatalogEntry] | None = None
        self.namespaces: Draft[NamespaceEntry] | None = None
        self.extras: Draft[FeatureEntry] | None = None
