"""``Location``: a project directory and the services scoped to it.

One Location per project root: its config, its data dir (saved outputs, "always"
permission replies), its store, its permission and question services. The Location
composes them: each service is given the parts it decides with (the policy of the
current config, a way to open the store, the asker or answerer), never the Location, so
``permissions/`` and ``location/questions.py`` know nothing of this module. Tools capture
these services when their transform runs or on their first call; the registry itself
never consults them.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from tooldeck._public import public
from tooldeck.host.config.config import Config, default_config
from tooldeck.host.config.config_files import default_data_dir
from tooldeck.host.config.layers import NO_PROJECT, ProjectLayer
from tooldeck.host.permissions.policy import CurrentPolicy

if TYPE_CHECKING:
    from concurrent.futures import Future

    from tooldeck.host.location.questions import Answerer, QuestionService
    from tooldeck.host.permissions.asks import OnAsk
    from tooldeck.host.permissions.layers import Policy
    from tooldeck.host.permissions.permission import PermissionService
    from tooldeck.host.permissions.request import Asker
    from tooldeck.host.store.base import Store


@public
class Location:
    """A project directory and its scoped services (config, data dir, permission, question).

    ``config``: the user's config with the project's merged over it, except what the
    ``project`` layer holds apart (its permission rules and plugin selection, which
    combine with the user's by laws of their own: ``host/config/layers.py``).
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        config: Config | None = None,
        data_dir: str | os.PathLike[str] | None = None,
        asker: Asker | None = None,
        answerer: Answerer | None = None,
        store: Store | None = None,
        on_ask: OnAsk = "ask",
    ) -> None:
        if on_ask not in ("ask", "defer"):
            raise ValueError(f"on_ask must be 'ask' or 'defer', got {on_ask!r}")
        self.root = Path(root).expanduser().resolve()
        self.config = config if config is not None else default_config()
        self.project: ProjectLayer = NO_PROJECT
        """The project's rules and plugin selection, kept apart from ``config``
        (``host/config/layers.py``); ``Host.open`` sets it, a Location built by hand has
        none."""
        self.data_dir = Path(data_dir) if data_dir is not None else default_data_dir(self.root)
        self.asker = asker
        self.answerer = answerer
        self.on_ask: OnAsk = on_ask
        self._store = store
        self._opened: Store | None = None
        self._opening: Future[Store] | None = None
        self._store_lock = threading.Lock()
        self._permission: PermissionService | None = None
        self._question: QuestionService | None = None
        self._policy = CurrentPolicy(lambda: self.config.permission, lambda: self.project)
        self.withheld: Callable[[str], str | None] = _nothing_withheld
        """Why a tool this Location does not have was left out, for the failure of a call
        to it (``None``: nothing known). ``Host.open`` sets it to what trust skipped."""
        self._resource_listeners: tuple[Callable[[str], None], ...] = ()
        self._resource_followers: tuple[Callable[[str], Callable[[], None] | None], ...] = ()
        self._closers: list[Callable[[], None]] = []
        self._closed = False
        self._close_lock = threading.Lock()

    @property
    def policy(self) -> Policy:
        """The user's configured permission rules over the built-in defaults (``read``,
        ``glob``, ``grep`` and ``question`` allow), combined with the project's by
        strictest wins: what ``snapshot(permissions="location")`` hides by.

        Rebuilt only when ``config`` changes. Cheaper than ``permission``: snapshots need
        the policy to hide denied tools, and most processes never ask anything.
        """
        return self._policy()

    def principal_policy(self, name: str) -> Policy:
        """The policy a served principal's calls run under: the Location's, each layer
        followed by that layer's own rules for ``name`` (``[mcp.serve.principals.NAME]``).
        """
        configured = self.config.mcp.serve.principals.get(name)
        return self._policy.principal(name, configured.permission if configured else ())

    @property
    def permission(self) -> PermissionService:
        """Rule evaluation and asks for this Location (created on first use)."""
        if self._permission is None:
            from tooldeck.host.permissions.permission import PermissionService

            self._permission = PermissionService(
                root=self.root,
                policy=self._policy,
                open_store=lambda: self.store,
                saved_store=self._saved_store,
                asker=lambda: self.asker,
                on_ask=lambda: self.on_ask,
                store_wait_s=lambda: self.store_wait_s,
            )
        return self._permission

    @property
    def store(self) -> Store:
        """Saved approvals, pending calls and their outcomes (opened on first use).

        The store given to ``Location`` (a ``PostgresStore`` shared by several hosts),
        else ``<data_dir>/tooldeck.sqlite3``, into which an existing ``permissions.json``
        is moved once. A shared store is never filled from this machine's files: that
        takes an explicit ``tooldeck approvals migrate``. Blocking I/O: async code opens
        it in a thread (``host/store/calls.py``).

        No lock is held while the store opens: the first caller opens it and the others
        wait for that at most ``store_wait_s`` (then ``StoreUnavailable``); an open that
        failed is tried again by the next caller.
        """
        store = self._opened
        if store is not None:
            return store
        with self._store_lock:  # guards only who opens; no I/O under it
            opening = self._opening
            mine = opening is None
            if opening is None:
                from concurrent.futures import Future  # not loaded until a store is needed

                opening = self._opening = Future()
        if not mine:
            return self._wait_for(opening)
        try:
            store = self._open_store()
        except BaseException as exc:
            with self._store_lock:
                self._opening = None  # the next use tries again
            opening.set_exception(exc)
            raise
        self._opened = store
        opening.set_result(store)
        return store

    @property
    def store_wait_s(self) -> float:
        """How long a call waits on the store: ``[store] timeout_s``, plus a grace that
        lets a store bounding itself report its own reason first."""
        from tooldeck.host.store.calls import GRACE_S

        return self.config.store.timeout_s + GRACE_S

    def _wait_for(self, opening: Future[Store]) -> Store:
        from concurrent.futures import TimeoutError as Waited

        try:
            return opening.result(timeout=self.store_wait_s)
        except Waited:
            from tooldeck.errors import StoreUnavailable

            raise StoreUnavailable(
                f"the store of {self!r} did not open within {self.store_wait_s:g} s; "
                "try again once it answers"
            ) from None

    def _saved_store(self) -> Store | None:
        """The store if anything may be saved in it, else ``None`` without creating one:
        reading approvals must not create a data dir and a database in it."""
        if self._opened is not None or self._store is not None:
            return self.store
        from tooldeck.host.store.legacy import LEGACY_NAME
        from tooldeck.host.store.sqlite import DATABASE_NAME

        names = (DATABASE_NAME, LEGACY_NAME)
        return self.store if any(os.path.lexists(self.data_dir / n) for n in names) else None

    def _open_store(self) -> Store:
        """The given store or the data dir's SQLite one (closed with the Location)."""
        from tooldeck.host.store.legacy import migrate_legacy, not_migrated

        store = self._store
        if store is not None:
            not_migrated(store, self.data_dir)  # says so once, moves nothing
            return store
        from tooldeck.host.store.sqlite import SqliteStore

        store = SqliteStore.in_dir(self.data_dir)
        self.on_close(store.close)
        migrate_legacy(store, self.data_dir)
        return store

    @property
    def question(self) -> QuestionService:
        """Questions to the user for this Location (created on first use)."""
        if self._question is None:
            from tooldeck.host.location.questions import QuestionService

            self._question = QuestionService(lambda: self.answerer)
        return self._question

    def resource_updated(self, uri: str) -> None:
        """Say that the resource at ``uri`` (one a pack serves) changed: the MCP clients
        subscribed to it through ``tooldeck mcp serve`` get
        ``notifications/resources/updated`` and read it again.

        From any thread, never blocks, and nothing happens where no one serves this
        Location. A resource added or removed needs no call: list changes are announced
        from the catalog. For a change seen outside a call (a pack's watcher); within one,
        ``ctx.resource_updated`` says the same.
        """
        for listener in self._resource_listeners:
            listener(str(uri))

    def on_resource_updated(self, listener: Callable[[str], None]) -> Callable[[], None]:
        """Call ``listener(uri)`` on every ``resource_updated`` (from the caller's thread,
        so it must return at once); returns what stops it. How a server hears the
        Location's packs."""
        with self._close_lock:
            self._resource_listeners = (*self._resource_listeners, listener)

        def stop() -> None:
            with self._close_lock:
                self._resource_listeners = tuple(
                    each for each in self._resource_listeners if each is not listener
                )

        return stop

    def follow_resource(self, uri: str) -> Callable[[], None]:
        """Someone wants to hear when the resource at ``uri`` changes (a client of
        ``tooldeck mcp serve`` subscribed to it): whoever can follow it at its source
        (a mounted MCP server that offers subscriptions) starts following, and its
        changes arrive as ``resource_updated``. Returns what says the interest ended;
        each call is one interest (the source follows ``uri`` once for all of them).
        From any thread, never blocks."""
        stops = [stop for follow in self._resource_followers if (stop := follow(str(uri)))]

        def unfollow() -> None:
            while stops:
                stops.pop()()

        return unfollow

    def on_follow_resource(
        self, follower: Callable[[str], Callable[[], None] | None]
    ) -> Callable[[], None]:
        """Call ``follower(uri)`` on every ``follow_resource`` (from the caller's thread,
        so it must return at once): it returns what ends that interest, or ``None`` when
        it does not serve ``uri``. Returns what stops it. How a mounted server hears
        what its resources' subscribers want."""
        with self._close_lock:
            self._resource_followers = (*self._resource_followers, follower)

        def stop() -> None:
            with self._close_lock:
                self._resource_followers = tuple(
                    each for each in self._resource_followers if each is not follower
                )

        return stop

    def on_close(self, closer: Callable[[], None]) -> None:
        """Run ``closer`` when the Location closes (sandbox workers, server connections).

        Closers run in reverse registration order, each once. Registering on a closed
        Location runs the closer at once, so a resource created late is never leaked.
        """
        with self._close_lock:
            if not self._closed:
                self._closers.append(closer)
                return
        closer()

    def close(self) -> None:
        """Release every resource registered with ``on_close``. Idempotent.

        Every closer runs even when an earlier one raises; the first error is re-raised
        after all of them ran.
        """
        with self._close_lock:
            self._closed = True
            closers, self._closers = self._closers[::-1], []
        first: BaseException | None = None
        for closer in closers:
            try:
                closer()
            except Exception as exc:  # keep closing the rest; report the first
                first = first or exc
        if first is not None:
            raise first

    @property
    def closed(self) -> bool:
        """True once ``close()`` was called."""
        return self._closed

    def __repr__(self) -> str:
        return f"Location({str(self.root)!r})"


def _nothing_withheld(name: str) -> str | None:
    return None
