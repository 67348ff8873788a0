"""Where one Location keeps what must outlive a process: the saved "always" approvals,
the pending calls waiting for a person and the outcomes recorded when they resumed.

``base.py`` is the interface (``Store``), ``sqlite.py`` the default embedded store under
the Location's data dir, ``postgres.py`` a shared one for several hosts (extra
``tooldeck[postgres]``, pooled and bounded), ``legacy.py`` the one-time read of
``permissions.json``, ``calls.py`` how async code waits on a store (off the event loop,
never longer than the Location's bound).
It keeps rules as config values and decides nothing: permissions and the boundary do.
"""
