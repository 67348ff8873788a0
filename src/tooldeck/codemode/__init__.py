"""Code mode: code-mode tools become async functions inside one sandboxed ``execute`` tool.

The provider interface (``tooldeck.host.execution.definitions.CodeModeProvider``) is what
``ToolService(location, codemode=provider)`` and every ``Snapshot`` it takes call:

``provider.available(location) -> bool``
    Called once per snapshot; must be cheap and must not import the sandbox. When it is
    false (config ``[codemode] enabled = false``, pydantic-monty missing, a worker that
    could not start) every visible tool is advertised natively.
``provider.build(snapshot, tools) -> Tool``
    Called the first time a snapshot with at least one visible code-mode tool needs its
    definitions or a call to ``execute``; ``tools`` are the snapshot's code-mode
    ``CatalogEntry`` values sorted by effective name. Returns the native ``execute`` tool,
    whose calls run against that snapshot's captured executors.

``CodeMode`` is the implementation ``Host.open`` passes; a host building its own
``ToolService`` passes ``codemode=CodeMode()`` to get the same behaviour. Sources that
mount tools (MCP servers, packs) choose per tool with ``Tool(codemode=...)``.

The modules, one job each: ``sandbox`` (the only one that imports pydantic-monty),
``conversation`` (the steps and answers a program exchanges with it), ``workers`` (its
threads and worker slots), ``naming`` (the ``tools.<ns>.<name>`` tree), ``pytypes`` and
``stubs`` (schemas → Python stubs), ``describe`` (the ``execute`` description),
``search``, ``plan`` (all of that for one snapshot, computed lazily), ``runner`` (one
program), ``report`` (failure text), ``execute_tool``, ``availability`` and ``provider``
(``CodeMode``, which owns the Location's sandbox pool).
"""

from __future__ import annotations

from tooldeck.codemode.provider import CodeMode

__all__ = ["CodeMode"]
