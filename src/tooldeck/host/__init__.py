"""The core of tooldeck, one package per concern. Everything under ``tooldeck.host`` is
internal: embedders and packs import public names from ``tooldeck`` (and the documented
public modules ``tooldeck.paths``, ``tooldeck.errors``, ``tooldeck.hookspecs`` and
``tooldeck.testing``).

Data flows one way; a package imports only from packages above it in this list, one
folder per decision:

- ``schema``: models and JSON Schema dicts -> frozen, closed JSON Schema; validators.
- ``registry``: which definition wins: names, per-tool records, the editor, the replay.
- ``config``: what the config files say.
- ``store``: what outlives a process (approvals, pending calls).
- ``trust``: whose code runs.
- ``permissions``: who may do what, and who is asked.
- ``location``: one project's config, store and services, composed.
- ``call``: one call below the boundary: validate, run, check, content, bounding.
- ``search``: the one ranking, deferred tools, what each format advertises of them.
- ``execution``: the frozen snapshot: which tools are advertised, in each format.
- ``boundary``: ``run_tool_call`` and its layers (limits, hooks), outcomes, pending calls.
- ``handles``, ``service``: ``ToolService``, registrations in and snapshots out.
- ``plugins``: discovery, selection, pluggy wiring, the load report and ``Host``.

``docs/architecture.md`` draws the same picture; ``tests/test_architecture.py`` checks it.
"""
