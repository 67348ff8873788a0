"""Permissions: whether a tool may act on a resource, and who is asked when the rules
do not say.

``wildcard.py`` (patterns, ``Ruleset``) and ``policy.py`` (the built-in defaults under
the configured rules) decide without I/O; ``approvals.py`` keeps the "always" answers in
the store; ``permission.py`` is the service a tool's ``ctx.permission`` is, with the
asks it makes (``request.py``: what the asker sees and replies), the asks in flight
(``inflight.py``), how a task's asks are answered (``asks.py``: awaited or deferred,
answers given ahead), a served principal's rules (``call_rules.py``) and who hears them
(``observer.py``). It reads config and the store, never the Location.
"""
