"""The plugin contract: the ``hookimpl``/``hookspec`` markers and the four hookspecs.

A tool pack is any module, class or instance with ``@hookimpl`` functions named after
the hooks below, published under the ``tooldeck`` entry-point group (or listed in
``BUILTIN_PLUGINS``, or dropped into ``.tooldeck/plugins/*.py``). The host turns the two
Location hooks of one plugin into **one** registration (``ToolService.transform``) and
its ``session_transform`` into one registration of every session
(``ToolService.session_transform``), so disabling, uninstalling or failing the plugin
removes everything it did and reveals what it had overridden. Its ``tool_call`` wrapper
belongs to that same registration. See ``docs/hooks.md`` for runnable examples.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from tooldeck._tool import ToolResult
    from tooldeck.host.boundary.hooks import ToolCallContext
    from tooldeck.host.call.values import ToolCall
    from tooldeck.host.location.location import Location
    from tooldeck.host.registry.editor import ToolEditor

__all__ = [
    "HOOKS",
    "PROJECT",
    "TRANSFORM_HOOKS",
    "hookimpl",
    "hookspec",
    "namespace_descriptions",
    "session_transform",
    "tool_call",
    "tool_transform",
]

PROJECT = "tooldeck"
"""The pluggy project name; also the entry-point group packs publish under."""

hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def namespace_descriptions(editor: ToolEditor, location: Location) -> None:
    """Describe the namespaces this plugin's tools use: ``editor.namespace(name, text)``.

    When it runs: on **every replay** of the catalog (each registration, disposal or
    ``reload()`` anywhere in the Location), immediately before the same plugin's
    ``tool_transform``. It must therefore be a deterministic function of data the plugin
    already holds: cheap, and doing no I/O beyond what it captured earlier.

    Arguments (an implementation may accept any subset, by name):

    * ``editor`` — the ``ToolEditor`` of the replay in progress. It already holds every
      definition of the plugins before this one.
    * ``location`` — the ``Location`` the catalog belongs to (root, config, data dir,
      permission and question services).

    Ordering: plugins run lowest precedence first (built-ins, MCP, entry points sorted by
    distribution and entry-point name, Location plugins by file name; ``plugins.order``
    moves named plugins last). A later description of the same namespace replaces an
    earlier one.

    If it raises: the whole plugin (both hooks) is disabled, reported as ``failed`` with
    the traceback, and the catalog is rebuilt without it; every other plugin keeps
    serving. The return value is ignored.
    """


@hookspec
def tool_transform(editor: ToolEditor, location: Location) -> None:
    """Add, override, update or remove tools: ``editor.add(tool)``, ``editor.update(...)``.

    When it runs: on **every replay** of the catalog, right after this plugin's
    ``namespace_descriptions``. Like it, it must be a deterministic function of data the
    plugin already holds, cheap, and doing no I/O beyond what it captured earlier
    (discover things once, at import or in a tool's executor, not here). It is called
    synchronously: a plain function, not ``async``.

    Arguments (an implementation may accept any subset, by name):

    * ``editor`` — the ``ToolEditor`` of the replay in progress: ``list()``, ``get()``,
      ``namespace()``, ``add()``, ``update()``, ``remove()``, and the same for resources
      and prompts (``add_resource()``, ``add_prompt()``, ...). It sees the definitions
      of every plugin before this one; plugins after this one see its result.
    * ``location`` — the ``Location`` the catalog belongs to; executors capture the
      services they need from it.

    Ordering: the same as ``namespace_descriptions``. The latest valid ``add`` of an
    effective name wins; an invalid ``add`` or ``update`` is skipped with a diagnostic
    naming this plugin, and the rest of the transform still applies.

    If it raises: the whole plugin is disabled, reported as ``failed`` with the
    traceback, and the catalog is rebuilt without it. The return value is ignored.
    """


@hookspec
def session_transform(
    editor: ToolEditor, session_id: str, state: dict[str, Any], location: Location
) -> None:
    """Add, override, update or remove tools for one session (one conversation) only.

    The session's counterpart of ``tool_transform``: a todo list whose items belong to
    one conversation, a tool bound to one user's credentials. Its edits apply to
    ``host.snapshot(session=session_id)`` only; other sessions and the Location's own
    snapshot never see them.

    When it runs: when a session opens (``host.session(id)``; a plugin installed later
    joins the open sessions at their next snapshot), and again on **every replay** of
    that session's view that cannot reuse its recorded edits: after ``reload()``, and
    after any Location change if it read the editor (``get``, ``list``, ``update``). It
    must therefore be a deterministic function of its arguments: keep what the session
    needs in ``state`` (create it on the first run, find it again on the next ones),
    keep it cheap, and do no I/O here. Replays of one session never overlap; executors
    of its tools may run on several threads at once.

    Arguments (an implementation may accept any subset, by name):

    * ``editor`` — the ``ToolEditor`` of the session's replay. It already holds the
      Location's whole effective catalog (every plugin's ``tool_transform``) and the
      edits of the ``session_transform`` of every plugin before this one.
    * ``session_id`` — the session's id, as the host opened it (a non-empty str).
    * ``state`` — this plugin's own dict in this session (no other plugin or session
      sees it): empty when the session opens, the same dict on every replay while the
      session is open, and dropped by the host when the session closes (or this
      plugin leaves the host), so an id opened again starts empty. Each ``Host`` (each
      Location) has its own sessions: two hosts never share state, even for equal
      ids. Tools capture what they use from it when the hook runs, so a snapshot
      taken before the close keeps working with what its tools captured.
    * ``location`` — the ``Location`` the session belongs to.

    Ordering: after every Location registration, then plugins in the same order as
    ``tool_transform``, then the session's own registrations (``scope.transform``). The
    latest valid ``add`` of an effective name wins within the session.

    If it raises: this plugin's session registration is disabled **for that session**,
    reported in ``scope.diagnostics`` against the plugin with the traceback; the session
    still opens and the plugin's Location tools keep serving. Its ``state`` is kept for
    the next replay. The return value is ignored.
    """


@hookspec
def tool_call(
    call: ToolCall, context: ToolCallContext
) -> Generator[ToolCall | None, ToolResult, ToolResult | None]:
    """Wrap every tool call: a pluggy **wrapper** (``@hookimpl(wrapper=True)``), a generator.

    When it runs: around **every call** that crosses ``run_tool_call`` (native calls,
    calls nested in a code-mode program, calls of mounted MCP tools, calls served over
    MCP), never during a replay. It runs on the event loop of the call, so it must not
    block: keep it to checks and rewrites of data it holds.

    Arguments (an implementation may accept any subset, by name):

    * ``call`` — the ``ToolCall`` (``id``, ``name``, ``input`` as sent).
    * ``context`` — a ``ToolCallContext``: the effective ``name``, the ``source`` that
      supplied the tool and the sources it ``overrides``, ``mounted`` (an MCP server's
      tool), ``session_id``, ``message_id``, ``agent``, ``via`` (``native``, ``nested`` or
      ``served``), ``parent_id`` (the ``execute`` call a nested call runs in) and the
      ``snapshot``.

    The generator: before its ``yield`` it may refuse the call (raise ``ToolFailure``:
    the call ends ``failed`` with its message; raise ``PermissionDeclined``: it ends
    ``declined``), answer it without running the tool (``return`` a ``ToolResult``
    without yielding), or rewrite the input (``yield call._replace(input=...)``; the new
    input is validated like the model's). ``yield`` (or ``yield None``) runs the next
    layer unchanged. The ``yield`` evaluates to the ``ToolResult`` of the layers below
    (or raises what they raised); the hook returns the result: the same object, ``None``
    (unchanged) or a new ``ToolResult`` (checked against the tool's declared output
    again).

    Ordering: plugin order; the last loaded plugin's hook is the outermost (it sees the
    call first and the result last), like its tools win over earlier ones.

    If it raises anything but ``ToolFailure``, the permission signals or what the
    layers below raised: the call ends ``failed`` naming this plugin, the plugin is
    reported ``failed`` (its tools and hook leave the catalog) and every other plugin
    keeps serving. Its hook belongs to its registration: disabling or uninstalling the
    plugin removes it.
    """
    raise NotImplementedError  # a spec: never called


TRANSFORM_HOOKS: tuple[str, ...] = (
    "namespace_descriptions",
    "tool_transform",
    "session_transform",
)
"""The hooks that edit a catalog, in the order a plugin's registrations call them."""

HOOKS: tuple[str, ...] = (*TRANSFORM_HOOKS, "tool_call")
"""Every hook: the transform hooks, then the call wrapper."""
