"""The core of tooldeck, one package per concern. Everything under ``tooldeck.host`` is
internal: embedders and packs import public names from ``tooldeck`` (and the documented
public modules ``tooldeck.paths``, ``tooldeck.errors``, ``tooldeck.hookspecs`` and
``tooldeck.testing``).

Data flows one way; a package imports only from packages above it in this list:

- ``schema``: models and JSON Schema dicts -> frozen, closed JSON Schema; validators.
- ``registry``: names, per-tool records, the editor, the replayed state.
- ``location``: the Location, its config, permission rules and service, questions, paths.
- ``execution``: snapshots, validation, content, bounding, outcomes.
- ``service``: ``ToolService``, which keeps registrations and hands out snapshots.
- ``plugins``: discovery, selection, pluggy wiring, the load report and ``Host``.

``docs/architecture.md`` draws the same picture; ``tests/test_architecture.py`` checks it.
"""
