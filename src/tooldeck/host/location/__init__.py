"""Location: one project root and the services scoped to it (``location.py``), and the
questions its tools put to the user (``questions.py``).

The Location composes the other decisions: it reads its config (``host/config``),
opens its store (``host/store``) and builds its permission service (``host/permissions``)
and question service from the parts they need. None of them imports this folder.
"""
