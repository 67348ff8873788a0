"""Trust: what a project would run or widen (``project.py``) and whether this user
trusts it (``store.py``, ``TOOLDECK_TRUST``, ``Host.open(trust=...)``)."""
