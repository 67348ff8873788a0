"""``Catalog``: what one replay of the transforms produced, frozen.

The effective tools and namespaces, the diagnostics, and, rebuilt from the replay's edit
logs only when a report asks, which source defined, overrode and removed what.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

from tooldeck._public import public
from tooldeck.host.registry.editor import CallHookFn, CatalogEntry, Diagnostic, NamespaceEntry
from tooldeck.host.registry.features import FeatureEntry, PromptEntry, ResourceEntry
from tooldeck.host.registry.steps import Step


@public
class SourceEffects(NamedTuple):
    """What one source contributes to a catalog (for reports such as ``tooldeck plugins``)."""

    provides: tuple[str, ...]
    overrides: tuple[tuple[str, str], ...]
    overridden_by: tuple[tuple[str, str], ...]
    removed: tuple[tuple[str, str], ...]


class _Link(NamedTuple):
    source: str
    previous: _Link | None


@public
class Catalog:
    """An immutable result of one replay: the effective tools and what happened.

    A session's catalog is *layered*: ``base`` is the Location catalog it was replayed
    on and ``changes`` what the session's transforms changed there (an entry, or
    ``None`` for a removal). ``tools`` is always the whole effective mapping.
    ``call_hooks`` is the session's own ``tool_call`` wrappers, (source, function) in
    replay order (``ToolEditor.add_call_hook``); a Location catalog has none.
    ``resources`` (by URI or URI template) and ``prompts`` (by effective name) are the
    effective resources and prompts, sorted.
    """

    __slots__ = (
        "_extras",
        "_features",
        "_history",
        "_steps",
        "base",
        "call_hooks",
        "changes",
        "diagnostics",
        "failed",
        "namespaces",
        "tools",
    )

    def __init__(
        self,
        tools: Mapping[str, CatalogEntry],
        namespaces: Mapping[str, NamespaceEntry],
        diagnostics: tuple[Diagnostic, ...],
        failed: dict[str, Diagnostic],
        steps: tuple[Step, ...] = (),
        *,
        base: Catalog | None = None,
        changes: Mapping[str, CatalogEntry | None] = MappingProxyType({}),
        call_hooks: tuple[tuple[str, CallHookFn], ...] = (),
        extras: Mapping[str, FeatureEntry] = MappingProxyType({}),
    ) -> None:
        self.tools: MappingProxyType[str, CatalogEntry] = MappingProxyType(tools)
        self.namespaces: MappingProxyType[str, NamespaceEntry] = MappingProxyType(namespaces)
        self.diagnostics = diagnostics
        self.failed: MappingProxyType[str, Diagnostic] = MappingProxyType(failed)
        self.base = base
        self.changes = changes
        self.call_hooks = call_hooks
        self._steps = steps
        self._history: tuple[dict[str, _Link], list[tuple[str, str, str]]] | None = None
        # Resources and prompts by their ``features`` key, as the replay left them.
        self._extras: Mapping[str, FeatureEntry] = MappingProxyType(extras)
        self._features: tuple[Mapping[str, ResourceEntry], Mapping[str, PromptEntry]] | None
        self._features = None

    @property
    def resources(self) -> Mapping[str, ResourceEntry]:
        """The effective resources and templates by URI (or URI template), sorted."""
        return self._split()[0]

    @property
    def prompts(self) -> Mapping[str, PromptEntry]:
        """The effective prompts by effective name, sorted."""
        return self._split()[1]

    def _split(self) -> tuple[Mapping[str, ResourceEntry], Mapping[str, PromptEntry]]:
        # Built on first use: most catalogs (a model's turns) never list either.
        if self._features is None:
            entries = sorted(self._extras.values(), key=lambda e: (type(e).__name__, e[0]))
            resources = {e.uri: e for e in entries if isinstance(e, ResourceEntry)}
            prompts = {e.name: e for e in entries if isinstance(e, PromptEntry)}
            self._features = (MappingProxyType(resources), MappingProxyType(prompts))
        return self._features

    @property
    def sources(self) -> tuple[str, ...]:
        """The sources replayed into this catalog, in order (a session's after its base's)."""
        own = tuple(step.transform.source for step in self._steps)
        return own if self.base is None else self.base.sources + own

    def lineage(self, name: str) -> tuple[str, ...]:
        """Sources that defined ``name`` in its current chain, newest first.

        ``("safe-read", "builtin:read")`` means the current definition comes from
        ``safe-read`` and overrides ``builtin:read``; disposing it reveals the latter.
        A resource's chain is named ``resource:<uri>``, a prompt's ``prompt:<name>``.
        """
        link = self._replayed()[0].get(name)
        chain: list[str] = []
        while link is not None:
            chain.append(link.source)
            link = link.previous
        return tuple(chain)

    @property
    def removals(self) -> tuple[tuple[str, str, str], ...]:
        """Every effective remove: (remover source, tool name, removed definition's source)."""
        return tuple(self._replayed()[1])

    def effects(self, source: str) -> SourceEffects:
        """What ``source`` provides, overrides, lost to later sources, and removed."""
        provides, overrides, overridden_by = [], [], []
        for name in sorted(self.tools):
            chain = self.lineage(name)
            if chain[0] == source:
                provides.append(name)
                later = [s for s in chain[1:] if s != source]
                if later:
                    overrides.append((name, later[0]))
            elif source in chain:
                overridden_by.append((name, chain[0]))
        removed = tuple((name, gone) for who, name, gone in self.removals if who == source)
        return SourceEffects(tuple(provides), tuple(overrides), tuple(overridden_by), removed)

    def _replayed(self) -> tuple[dict[str, _Link], list[tuple[str, str, str]]]:
        # Provenance is only for reports: rebuilt from the edit logs on first use.
        if self._history is None:
            heads: dict[str, _Link] = {}
            removed: list[tuple[str, str, str]] = []
            if self.base is not None:
                base_heads, base_removed = self.base._replayed()
                heads, removed = dict(base_heads), list(base_removed)
            for step in self._steps:
                source = step.transform.source
                for name, value in step.log:
                    if value is None:
                        link = heads.pop(name, None)
                        if link is not None:
                            removed.append((source, name, link.source))
                    elif not isinstance(value, NamespaceEntry):  # a tool, resource or prompt
                        heads[name] = _Link(source, heads.get(name))
            self._history = (heads, removed)
        return self._history
