"""A user's plugin with a ``tool_call`` hook stays on whatever a project's ``[plugins]``
says (DESIGN §7a).

The project's ``disable`` and ``only`` are decided from names (``selection.py``); whether
the plugin they name has a hook is known once it is loaded. Then a plugin of the user's
without a hook is disabled as the project asked, and one with a hook stays active with
the tools it adds hidden: the project keeps out the tools it does not want, and the
user's guard keeps guarding. A project's own plugins (``local:``) never get here: what
the project selects among its own is final.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Concatenate, ParamSpec

from tooldeck.host.plugins.records import PluginRecord
from tooldeck.host.registry.record import record_of

if TYPE_CHECKING:
    from tooldeck.host.plugins.wiring import PluginWiring
    from tooldeck.host.registry.editor import ToolEditor

P = ParamSpec("P")


def guards(record: PluginRecord) -> bool:
    """A plugin of the user's with a ``tool_call`` hook (see ``selection.moved``)."""
    transform = record.transform
    return (
        record.candidate.layer != "local" and transform is not None and transform.call is not None
    )


def unwanted(record: PluginRecord, reason: str, wiring: PluginWiring) -> PluginRecord:
    """The loaded ``record`` of a user's plugin the project leaves out for ``reason``:
    disabled (``wiring`` forgets it; one that failed to load has no hook either), unless
    it ``guards``."""
    transform = record.transform
    if transform is None or not guards(record):
        if transform is not None:
            wiring.unregister(record.candidate.name)
        return PluginRecord(record.candidate, "disabled", reason=reason)
    session = transform.session
    hidden = transform._replace(
        location=without_added_tools(transform.location),
        session=without_added_tools(session) if session is not None else None,
    )
    return PluginRecord(record.candidate, "active", reason=kept_for_hooks(reason), transform=hidden)


def kept_for_hooks(reason: str) -> str:
    """The report line of a user's hook plugin the project's ``[plugins]`` named."""
    return (
        f"kept although {reason}: it provides a tool_call hook the user installed, which a "
        "project cannot switch off; the tools it adds are hidden"
    )


def without_added_tools(
    transform: Callable[Concatenate[ToolEditor, P], None],
) -> Callable[Concatenate[ToolEditor, P], None]:
    """``transform`` (a Location's or a session's) with the tools it adds removed again.
    The tools it overrides keep its version: removing them would bring back what it
    replaced, unguarded."""

    def hidden(editor: ToolEditor, /, *args: P.args, **kwargs: P.kwargs) -> None:
        before = {record_of(tool).effective for tool in editor.list()}
        transform(editor, *args, **kwargs)
        for tool in editor.list():
            name = record_of(tool).effective
            if name not in before:
                editor.remove(name)

    return hidden
