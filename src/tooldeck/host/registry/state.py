"""The only mutable core: ordered transforms, replay, dispose, batch.

Every change (a new transform, a disposal, ``reload()``) marks the state dirty; the next
read replays the transforms in registration order against a fresh editor and publishes
the resulting ``Catalog`` in one assignment, so readers see the old catalog or the new
one and never a half-built one. Rebuilds are lazy: N registrations with no read in
between cost one replay.

Replays resume from a checkpoint: the state after step *k* depends only on transforms
``0..k`` (and on their sources' data, which may change only through ``reload()``, which
calls every transform again), so a disposal at position *k* replays from the last
checkpoint before *k* instead of from the start. After that point, a transform that
only added, removed or described (it never called ``get``/``list``/``update``) is
re-applied from its logged edits instead of being called again.

A session's state (``session.SessionState``) is this same replay started from the
Location's final catalog instead of an empty one; the few methods it replaces are
grouped below.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from tooldeck.host.registry.catalog import Catalog
from tooldeck.host.registry.editor import (
    CatalogEntry,
    Delta,
    Diagnostic,
    NamespaceEntry,
    ToolEditor,
)
from tooldeck.host.registry.features import FeatureEntry
from tooldeck.host.registry.overlay import Draft
from tooldeck.host.registry.steps import Step, Transform, TransformFn

# Total catalog entries copied for checkpoints per replay before they get sparser.
_CHECKPOINT_BUDGET = 250_000
# Checkpoint at least every few steps: resuming replays at most this many extra steps,
# and skipping copies in between is what makes a disposal cheap.
_MIN_STRIDE = 4


class _TransformRaised(Exception):
    def __init__(self, diagnostic: Diagnostic) -> None:
        self.diagnostic = diagnostic


_EMPTY_CATALOG = Catalog({}, {}, (), {})


class ToolState:
    """Ordered transforms and the catalog replayed from them. Thread-safe."""

    takes_call_hooks = False
    """Whether a replay takes ``editor.add_call_hook`` (a session's does)."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._working: list[Transform] = []
        self._committed: tuple[Transform, ...] = ()
        self._version = 0
        self._published: tuple[int, Catalog] = (0, _EMPTY_CATALOG)
        self._steps: list[Step] = []
        self._failed: dict[str, Diagnostic] = {}
        self._full_replay = False
        self._batch_depth = 0
        self._replaying_thread: int | None = None
        self.reloads = 0
        """How many times ``reload()`` ran: states layered on this one replay in full."""

    # -- mutations -------------------------------------------------------------------------
    def add(self, fn: TransformFn, source: str) -> Transform:
        """Append a transform (lowest precedence so far is first; the newest wins)."""
        transform = Transform(fn, source)
        with self._lock:
            self._working.append(transform)
            self._commit()
        return transform

    def dispose(self, transform: Transform) -> None:
        """Remove ``transform``; idempotent. Reveals whatever it had overridden."""
        with self._lock:
            if transform.disposed:
                return
            transform.disposed = True
            self._working.remove(transform)
            source = transform.source
            if source in self._failed and all(t.source != source for t in self._working):
                del self._failed[source]
            self._commit()

    def fail(self, diagnostic: Diagnostic) -> None:
        """Disable ``diagnostic.source`` as if its transform had raised (a plugin whose
        ``tool_call`` hook failed at call time); ``reload()`` retries it."""
        with self._lock:
            if diagnostic.source not in self._failed:
                self._failed[diagnostic.source] = diagnostic
                self._version += 1

    def reload(self) -> None:
        """Replay everything from the sources' current data; retries failed sources."""
        with self._lock:
            self._failed.clear()
            self._full_replay = True
            self.reloads += 1
            self._commit()

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Coalesce changes: readers keep seeing the previous catalog until the end."""
        with self._lock:
            self._batch_depth += 1
        try:
            yield
        finally:
            with self._lock:
                self._batch_depth -= 1
                self._commit()

    def _commit(self) -> None:
        if self._batch_depth == 0:
            self._committed = tuple(self._working)
            self._version += 1

    # -- reading ---------------------------------------------------------------------------
    def current(self) -> Catalog:
        """The catalog of the committed transforms, replaying them if anything changed."""
        version, catalog = self._published
        if version == self._version:
            return catalog
        with self._lock:
            if self._replaying_thread == threading.get_ident():
                raise RuntimeError("a transform must not read the tool service it is part of")
            version, catalog = self._published
            if version != self._version:
                version = self._version
                catalog = self._rebuild()
                self._published = (version, catalog)
            return catalog

    @property
    def transforms(self) -> tuple[Transform, ...]:
        """The committed transforms in registration order."""
        return self._committed

    # -- replay ----------------------------------------------------------------------------
    def _rebuild(self) -> Catalog:
        previous = self._published[1]
        self._replaying_thread = threading.get_ident()
        try:
            while True:
                active = [t for t in self._order() if t.source not in self._failed]
                start = 0 if self._full_replay else self._common_prefix(active)
                try:
                    self._replay(active, start)
                    break
                except _TransformRaised as raised:
                    self._failed[raised.diagnostic.source] = raised.diagnostic
            self._full_replay = False
        finally:
            self._replaying_thread = None
        catalog = self._catalog()
        _log_new(self._own_diagnostics(previous), self._own_diagnostics(catalog))
        return catalog

    # -- what a layered state (a session, see ``session``) replaces --------------------------
    def _order(self) -> tuple[Transform, ...]:
        """Every transform to replay, in order."""
        return self._committed

    def _empty(self) -> tuple[Draft[CatalogEntry], Draft[NamespaceEntry], Draft[FeatureEntry]]:
        """The draft a replay from the very start begins with (tools, namespaces, and the
        resources and prompts)."""
        return {}, {}, {}

    def _own_diagnostics(self, catalog: Catalog) -> tuple[Diagnostic, ...]:
        """The diagnostics this state produced (the ones it logs)."""
        return catalog.diagnostics

    def _common_prefix(self, active: list[Transform]) -> int:
        index = 0
        for step, transform in zip(self._steps, active, strict=False):
            if step.transform is not transform:
                break
            index += 1
        return index

    def _replay(self, active: list[Transform], start: int) -> None:
        base = start - 1
        while base >= 0 and self._steps[base].tools is None:
            base -= 1
        checkpoint = self._steps[base] if base >= 0 else None
        if checkpoint is not None and checkpoint.tools is not None:
            # all three are set together
            assert checkpoint.namespaces is not None and checkpoint.extras is not None
            tools, namespaces = checkpoint.tools.copy(), checkpoint.namespaces.copy()
            extras = checkpoint.extras.copy()
        else:
            tools, namespaces, extras = self._empty()
        recorded = {} if self._full_replay else {s.transform: s for s in self._steps[base + 1 :]}
        del self._steps[base + 1 :]
        stride = max(_MIN_STRIDE, (len(tools) + 16) * len(active) // _CHECKPOINT_BUDGET)
        editor = ToolEditor(tools, namespaces, extras)
        steps, last = self._steps, len(active) - 1
        last_ns = steps[-1].namespaces if steps else None
        last_extras = steps[-1].extras if steps else None
        for index in range(base + 1, len(active)):
            transform = active[index]
            previous = recorded.get(transform)
            if previous is not None and previous.delta is not None:
                # A pure transform: re-apply its net edits instead of calling it (this
                # loop is the hot path of a disposal, so the delta is applied inline).
                # Its edits never depended on the state it ran against, so this equals
                # calling it again with unchanged source data; changed source data goes
                # through reload(), which calls every transform.
                removed, added, described, offered = previous.delta
                for name in removed:
                    tools.pop(name, None)
                tools.update(added)
                if described:
                    namespaces.update(described)
                if offered:
                    _apply(extras, offered)
                step = previous
            else:
                step = self._run(editor, transform, index)
            if index % stride == 0 or index == last:
                step.tools = tools.copy()
                # Namespaces rarely change: share the last checkpoint's copy when equal.
                if last_ns != namespaces:
                    last_ns = namespaces.copy()
                step.namespaces = last_ns
                if last_extras != extras:  # and resources and prompts, rarer still
                    last_extras = extras.copy()
                step.extras = last_extras
            else:
                step.tools = step.namespaces = step.extras = None  # drop a stale checkpoint
            steps.append(step)

    def _run(self, editor: ToolEditor, transform: Transform, index: int) -> Step:
        step = Step(transform)
        editor._source = transform.source
        editor._diagnostics = step.diagnostics
        editor._log = step.log
        editor._pure = True
        editor._hooks = step.hooks if self.takes_call_hooks else None
        try:
            transform.fn(editor)
        except Exception as exc:
            del self._steps[index:]
            reason = f"transform raised {type(exc).__name__}: {exc}; source disabled"
            raise _TransformRaised(
                Diagnostic(
                    transform.source,
                    reason,
                    traceback=_format_exc(),
                ),
            ) from exc
        if editor._pure:
            step.delta = Delta.of(step.log)
        return step

    def _catalog(self) -> Catalog:
        failed = dict(self._failed)
        if not self._steps:
            return Catalog({}, {}, tuple(failed.values()), failed)
        last = self._steps[-1]
        diagnostics = [*failed.values()]
        for step in self._steps:
            if step.diagnostics:
                diagnostics.extend(step.diagnostics)
        return Catalog(
            dict(last.tools or {}),
            dict(last.namespaces or {}),
            tuple(diagnostics),
            failed,
            tuple(self._steps),
            extras=dict(last.extras or {}),
        )


def _apply(extras: Draft[FeatureEntry], offered: dict[str, FeatureEntry | None]) -> None:
    """Re-apply a pure step's resources and prompts (``None``: removed)."""
    for key, entry in offered.items():
        if entry is None:
            extras.pop(key, None)
        else:
            extras[key] = entry


def _log_new(before: tuple[Diagnostic, ...], after: tuple[Diagnostic, ...]) -> None:
    seen = set(before)
    new = [d for d in after if d not in seen]
    if new:
        import logging  # on first use: most processes never have a diagnostic to log

        log = logging.getLogger("tooldeck")
        for diagnostic in new:
            # A missed update/remove changed nothing: `tooldeck check` and the plugin
            # report show it; it is not worth a warning on every host's stderr.
            level = logging.INFO if diagnostic.level == "warning" else logging.WARNING
            log.log(level, "tooldeck: %s", diagnostic)


def _format_exc() -> str:
    import traceback  # on failure only: most processes never format one

    return traceback.format_exc()
