"""What one call carries through the boundary: the model's ``ToolCall``, who it runs for
(``CallScope``), and what it ends with (``ExecutedTool``).

Plain values, apart from the call paths that use them (``path.py``): a snapshot holds a
``CallScope`` from the moment it is built, and building one loads nothing a call needs.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, TypeAlias

from tooldeck._peer import Peer
from tooldeck._public import public
from tooldeck._tool import ContentPart, ProgressCallback
from tooldeck.errors import SessionError

if TYPE_CHECKING:
    from tooldeck.host.location.location import Location


@public
class ToolCall(NamedTuple):
    """One tool call from the model: ``input`` is JSON text or an already-parsed mapping."""

    id: str = ""
    name: str = ""
    input: str | Mapping[str, Any] = "{}"


CallVia: TypeAlias = Literal["native", "nested", "served"]
"""How a call reached the boundary: from the host's own loop, from inside a code-mode
program, or from an MCP client of ``tooldeck mcp serve``. (A mounted MCP tool is a
property of the tool, its executor, not of how it was called.)"""


@public
@dataclass(frozen=True, slots=True)
class CallScope:
    """Who a call runs for: resolved once (``Snapshot.scope``), then read below the boundary.

    ``session_id`` and ``message_id`` reach the tool's ``ToolContext``; ``agent`` names the
    agent making the call. ``via`` says how it arrived and ``parent_id`` is the id of the
    ``execute`` call a nested call runs in (``""`` otherwise). ``peer`` is who the call's
    logs, questions and samples reach (``ctx.log``/``elicit``/``sample``): the MCP client
    of a served call, and of the calls nested in it; ``None`` otherwise. One scope serves
    every call of a turn or of a program: it holds nothing that is per call.
    """

    session_id: str = ""
    message_id: str = ""
    agent: str | None = None
    via: CallVia = "native"
    parent_id: str = ""
    peer: Peer | None = None


def session_for(own: str, given: str) -> str:
    """The session a call given ``given`` (``""``: none) runs in, against a snapshot of
    session ``own`` (``""``: the Location's, which runs calls of any session).

    A session's snapshot runs its own session's calls only, since its tools may hold that
    session's state: another session's id is the host's mistake (``SessionError``).
    """
    if not own or given == own:
        return given
    if not given:
        return own
    raise SessionError(
        own,
        f"its snapshot cannot run a call of session {given!r} (a session's snapshot "
        f"runs only its own calls); take host.snapshot(session={given!r})",
    )


@public
class ExecutedTool(NamedTuple):
    """What the execution boundary returns: normalized content, metadata, checked output."""

    content: tuple[ContentPart, ...]
    metadata: Mapping[str, Any]
    output: Any


Done = ExecutedTool | Coroutine[Any, Any, ExecutedTool]
"""A call's end: its ``ExecutedTool``, or a coroutine for it when the call must await."""

CallPath = Callable[["Location", ToolCall, CallScope, "ProgressCallback | None"], Done]
"""``path(location, call, scope, progress)``: one call of a tool."""
