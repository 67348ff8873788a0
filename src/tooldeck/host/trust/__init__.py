"""Trust: what a project would run or grant if trusted, and whether this user trusts
the folder (DESIGN §7a).

``narrowing.py`` is the one place that says what an untrusted project may set; what it
leaves out are the trust items (``items.py``), so the fingerprint is computed, never
listed. ``project.py`` adds the plugin files and states the decision (``TrustStatus``);
``store.py`` keeps the user's grants (``TOOLDECK_TRUST``, ``Host.open(trust=...)`` decide
first). It reads config files, never a Location; the plugin layer
(``host/plugins/trust_gate.py``) applies the decision.
"""
