"""tooldeck-broken: a pack that fails on import, on purpose.

It shows that a broken pack cannot take the host down with it: tooldeck imports each
plugin separately, reports this one as ``failed`` with the error below as its reason
(``tooldeck plugins``, ``Host.plugins``), and every other plugin keeps serving.
"""

raise RuntimeError(
    "tooldeck-broken fails on import on purpose (it demonstrates plugin isolation); "
    "uninstall it with `pip uninstall tooldeck-broken`"
)
