"""Trust: what a project's files would run or widen if trusted (``project.py``) and
whether this user trusts the folder (``store.py``, ``TOOLDECK_TRUST``,
``Host.open(trust=...)``). It reads config files, never a Location; the plugin layer
(``host/plugins/trust_gate.py``) applies the decision.
"""
